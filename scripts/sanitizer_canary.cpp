// scripts/sanitize.sh builds this with the plugin and the sanitizer flags of
// the sanitized test programs, and checks that each fault below makes the
// program fail with a sanitizer report: that the runtimes are installed, and
// that the options the suites run under leave reports fatal (UBSan's
// included) rather than printed and ignored.
#include <fluxion/fluxion.hpp>

#include <climits>
#include <cstdio>
#include <cstring>

// Reads one element past the end of x: the generated adjoint does too.
[[fluxion::grad]] double sum_squares_one_too_far(const double *x, int n) {
  double sum = 0;
  for (int i = 0; i <= n; ++i)
    sum += x[i] * x[i];
  return sum;
}

int main(int argc, char **argv) {
  const char *fault = argc > 1 ? argv[1] : "";
  if (!std::strcmp(fault, "asan")) {
    double *x = new double[3]{1, 2, 3};
    double *dx = new double[3]{};
    double value = sum_squares_one_too_far_grad(x, 3, dx);
    std::printf("%g %g\n", value, dx[0]);
    delete[] x;
    delete[] dx;
    return 0;
  }
  if (!std::strcmp(fault, "ubsan")) {
    volatile int big = INT_MAX;
    int overflowed = big + argc;  // signed overflow
    std::printf("%d\n", overflowed);
    return 0;
  }
  if (!std::strcmp(fault, "leak")) {
    double *lost = new double[16];
    lost[0] = argc;
    std::printf("%g\n", lost[0]);
    lost = nullptr;
    return 0;
  }
  std::printf("ok\n");  // no fault: must run clean
  return 0;
}
