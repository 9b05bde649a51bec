// fluxion-gen's output, compiled by g++ with warnings as errors and the
// documented flags, computes exactly what the plugin build computes: reverse
// and forward mode, a callee pair, a loop that overwrites, a branch, <cmath>,
// a custom derivative, second order and a Jacobian.
// REQUIRES: gxx
// RUN: %fluxion-gen %s -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: bash -c '%gxx -Wall -Wextra -Werror $(%fluxion-config --cxxflags) %t.cpp -o %t.gxx'
// RUN: %t.gxx > %t.gxx.out
// RUN: %clangxx %fluxion %s -o %t.plugin
// RUN: %t.plugin > %t.plugin.out
// RUN: diff %t.gxx.out %t.plugin.out
// RUN: %FileCheck %s < %t.gxx.out
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>

namespace model {

static double sq(double v) { return v * v; }

double softplus(double x) { return std::log(1 + std::exp(x)); }

[[fluxion::grad]] [[fluxion::jvp]] double energy(const double *x, double w,
                                                 int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double t = x[i] * w;
    if (t > 0)
      s += sq(t);
    else
      s -= std::sin(t);
  }
  return s + softplus(w);
}

[[fluxion::hessian]] double rosen(double a, double b) {
  return sq(1 - a) + 100 * sq(b - a * a);
}

[[fluxion::jacobian]] void polar(const double in[2], double out[2]) {
  out[0] = in[0] * std::cos(in[1]);
  out[1] = in[0] * std::sin(in[1]);
}

} // namespace model

namespace fluxion::custom {
// softplus' derivative is the logistic function.
inline double softplus_vjp(double x, double seed, double *d_x) {
  *d_x += seed / (1 + std::exp(-x));
  return model::softplus(x);
}
inline double softplus_jvp(double x, double t_x) {
  return t_x / (1 + std::exp(-x));
}
} // namespace fluxion::custom

int main() {
  double x[3] = {0.5, -1.25, 2.0}, dx[3] = {0, 0, 0}, dw = 0;
  double e = model::energy_grad(x, 0.75, 3, dx, &dw);
  std::printf("energy %.17g\n", e);
  std::printf("grad %.17g %.17g %.17g %.17g\n", dx[0], dx[1], dx[2], dw);
  double tx[3] = {1, 0, 0};
  std::printf("jvp %.17g\n", model::energy_jvp(x, 0.75, 3, tx, 0.5));
  double H[4];
  model::rosen_hessian(0.5, 1.5, H);
  std::printf("hessian %.17g %.17g %.17g %.17g\n", H[0], H[1], H[2], H[3]);
  double in[2] = {2, 0.5}, out[2], J[4];
  model::polar_jacobian(in, out, J);
  std::printf("jacobian %.17g %.17g %.17g %.17g\n", J[0], J[1], J[2], J[3]);
}
// CHECK: energy
// CHECK: grad
// CHECK: jvp
// H = [[2 - 400 (b - 3 a^2), -400 a], [-400 a, 200]] at (0.5, 1.5).
// CHECK: hessian -298 -200 -200 200
// CHECK: jacobian
