// A local array passed to a callee's `const T *` parameter cannot change in
// the call: nothing is recorded around the call, even when the array is
// overwritten later and the callee's adjoint reads it. Passed to a `T *`
// parameter, the array is saved before the call and restored after its
// adjoint.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

static double sqnorm(int n, const double *v) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * v[i];
  return s;
}

static void scale(int n, double *v) {
  for (int i = 0; i < n; ++i)
    v[i] = v[i] * v[i];
}

[[fluxion::grad]] double readOnly(const double *x, int n) {
  double buf[8];
  double total = 0;
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < n; ++i)
      buf[i] = x[i] * (k + 1);
    total += sqnorm(n, buf);
  }
  return total;
}
// CHECK-LABEL: double readOnly_vjp(
// CHECK-NOT: push_array
// CHECK: sqnorm_fwd(n, buf)
// CHECK-NOT: pop_array
// CHECK: sqnorm_bwd(n, buf,
// CHECK-NOT: pop_array
// CHECK: {{^}}}

[[fluxion::grad]] double writes(const double *x, int n) {
  double buf[8];
  double total = 0;
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < n; ++i)
      buf[i] = x[i] * (k + 1);
    scale(n, buf);
    total += buf[0];
  }
  return total;
}
// CHECK-LABEL: double writes_vjp(
// CHECK: _tape_double.push_array(&buf[0], 8UL);
// CHECK-NEXT: scale_fwd(n, buf);
// CHECK: scale_bwd(n, buf, _d_buf);
// CHECK-NEXT: _tape_double.pop_array(&buf[0], 8UL);
