// A std::vector whose storage does not move while the function runs is read
// through a local copy of its data pointer (and of its size, where the body
// reads it): through x.data() at every access, the compiler reloads the
// pointer after each tape push (the tape's stored top pointer may be the
// vector's own). A vector sized once
// gets its pointer after the sizing; one whose size changes again, and a
// std::array, are indexed as written.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

#include <array>
#include <cmath>
#include <vector>

[[fluxion::grad]] double smooth(const std::vector<double> &x,
                                std::array<double, 2> w) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    y[i] = std::sin(x[i]) * w[0];
  std::vector<double> z;
  for (std::size_t i = 0; i < y.size(); ++i)
    z.push_back(y[i] * y[i] + w[1]);
  double s = 0;
  for (double v : z)
    s += std::sqrt(v);
  return s;
}
// CHECK-LABEL: double smooth_vjp(
// CHECK: const double *const x_data = x.data();
// CHECK-NEXT: x_size = x.size();
// CHECK-NEXT: double *const d_x_data = d_x ? d_x->data() : nullptr;
// CHECK: y.assign(
// CHECK-NEXT: double *const y_data = y.data();
// CHECK: while (i < x_size)
// CHECK: y_data[i] = {{.*}}
// CHECK-NOT: z_data
// CHECK-NOT: w_data
// CHECK: z[z_n] =
// CHECK: d_x_data[i] +=
// CHECK-LABEL: double smooth_grad(
