// Compile and link through the driver, in two steps and in one, at -O0 and
// -O3, with warnings as errors (generated code must not warn), then run.
// RUN: %clangxx %fluxion -O0 -Wall -Wextra -Werror -c %s -o %t.O0.o
// RUN: %clangxx %t.O0.o -o %t.O0.exe
// RUN: %t.O0.exe | %FileCheck %s
// RUN: %clangxx %fluxion -O3 -Wall -Wextra -Werror -c %s -o %t.O3.o
// RUN: %clangxx %t.O3.o -o %t.O3.exe
// RUN: %t.O3.exe | %FileCheck %s
// RUN: %clangxx %fluxion -O0 -Wall -Wextra -Werror %s -o %t.one.O0.exe
// RUN: %t.one.O0.exe | %FileCheck %s
// RUN: %clangxx %fluxion -O3 -Wall -Wextra -Werror %s -o %t.one.O3.exe
// RUN: %t.one.O3.exe | %FileCheck %s
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>

static double sq(double v) { return v * v; }

// Straight line, a callee, a loop that overwrites, a branch, <cmath>.
[[fluxion::grad]] double f(const double *x, double w, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    double t = w * sq(x[i]) + std::sin(x[i]);
    if (x[i] < 0)
      t *= 0.5;
    sum += t;
  }
  return sum;
}

[[fluxion::grad]] double prod(double x, double y) {
  double s = 1;
  for (int i = 0; i < 3; ++i)
    s = s * x + y;
  return s;
}

// An output array: the seed comes in through d_out.
[[fluxion::grad]] void square_all(const double *in, double *out, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = in[i] * in[i];
}

int main() {
  double x[3] = {1.0, -2.0, 0.5};
  double dx[3] = {0, 0, 0}, dw = 0;
  double v = f_grad(x, 2.0, 3, dx, &dw);
  // df/dx_i = (2 w x_i + cos x_i) * (x_i < 0 ? 0.5 : 1); df/dw = sum x_i^2 (damped)
  double ex[3], ew = 0, ev = 0;
  for (int i = 0; i < 3; ++i) {
    double k = x[i] < 0 ? 0.5 : 1;
    ex[i] = (4 * x[i] + std::cos(x[i])) * k;
    ew += x[i] * x[i] * k;
    ev += (2 * x[i] * x[i] + std::sin(x[i])) * k;
  }
  int bad = std::fabs(v - ev) > 1e-12 || std::fabs(dw - ew) > 1e-12;
  for (int i = 0; i < 3; ++i)
    bad += std::fabs(dx[i] - ex[i]) > 1e-12;
  std::printf("f: %s\n", bad ? "WRONG" : "ok");
  // CHECK: f: ok

  // Gradients add into d_ (the caller zeroes them).
  double dpx = 0, dpy = 0;
  double p = prod_grad(2.0, 1.0, &dpx, &dpy);
  prod_grad(2.0, 1.0, &dpx, &dpy);
  // s = ((x + y) x + y) x + y = x^3 + x^2 y + x y + y
  std::printf("prod = %g, d/dx = %g, d/dy = %g\n", p, dpx, dpy);
  // CHECK-NEXT: prod = 15, d/dx = 34, d/dy = 14

  double in[2] = {3, -1}, out[2], din[2] = {0, 0}, dout[2] = {1, 10};
  square_all_vjp(in, out, 2, din, dout);
  std::printf("out = %g %g, d_in = %g %g\n", out[0], out[1], din[0], din[1]);
  // CHECK-NEXT: out = 9 1, d_in = 6 -20
  return bad;
}
