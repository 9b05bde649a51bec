// Quick start: the gradient of a small function with a loop, a branch and a
// call into <cmath>, printed next to a central finite-difference check.
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>

// f(x, w) = sum_i w * x_i^2 + sin(x_i), with negative entries damped.
[[fluxion::grad]] double f(const double *x, double w, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    double t = w * x[i] * x[i] + std::sin(x[i]);
    if (x[i] < 0)
      t *= 0.5;
    sum += t;
  }
  return sum;
}

int main() {
  double x[3] = {1.0, -2.0, 0.5};
  double w = 2.0;
  double dx[3] = {0, 0, 0}, dw = 0;
  double value = f_grad(x, w, 3, dx, &dw);

  std::printf("f(x, w) = %.10f\n", value);
  const double h = 1e-6;
  int bad = 0;
  for (int i = 0; i < 3; ++i) {
    double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
    xp[i] += h;
    xm[i] -= h;
    double fd = (f(xp, w, 3) - f(xm, w, 3)) / (2 * h);
    std::printf("df/dx[%d] = % .10f   finite difference % .10f\n", i, dx[i], fd);
    bad += std::fabs(fd - dx[i]) > 1e-6 * (1 + std::fabs(fd));
  }
  double fd = (f(x, w + h, 3) - f(x, w - h, 3)) / (2 * h);
  std::printf("df/dw    = % .10f   finite difference % .10f\n", dw, fd);
  bad += std::fabs(fd - dw) > 1e-6 * (1 + std::fabs(fd));
  std::printf("%s\n", bad ? "MISMATCH" : "gradient matches finite differences");
  return bad ? 1 : 0;
}
