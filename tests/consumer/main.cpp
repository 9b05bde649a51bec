// Checks f_grad against the closed form; exits non-zero on a mismatch.
#include <fluxion/fluxion.hpp>

#include "close.hpp"
#include "consumer_model.hpp"

#include <cmath>
#include <cstdio>

// The project asks for C++20 (CMakeLists.txt): fluxion-gen must parse with it.
#if __cplusplus < 202002L
#error "not compiled as C++20"
#endif

[[fluxion::grad]] double energy(const double *x, double w, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += w * model_term(x[i]) + std::sin(x[i]);
  return sum;
}

int main() {
  const int n = 3;
  double x[n] = {1.0, -2.0, 0.5}, dx[n] = {0, 0, 0}, dw = 0;
  const double w = 2.0;
  double value = energy_grad(x, w, n, dx, &dw);

  double expected_value = 0, expected_dw = 0;
  int failures = 0;
  for (int i = 0; i < n; ++i) {
    expected_value += w * model_term(x[i]) + std::sin(x[i]);
    expected_dw += model_term(x[i]);
    double expected_dx = w * model_term_derivative(x[i]) + std::cos(x[i]);
    if (!near_equal(dx[i], expected_dx)) {
      std::printf("dx[%d] = %.17g, expected %.17g\n", i, dx[i], expected_dx);
      ++failures;
    }
  }
  if (!near_equal(value, expected_value)) {
    std::printf("value = %.17g, expected %.17g\n", value, expected_value);
    ++failures;
  }
  if (!near_equal(dw, expected_dw)) {
    std::printf("dw = %.17g, expected %.17g\n", dw, expected_dw);
    ++failures;
  }
  std::printf("consumer: energy = %g, d/dx = {%g, %g, %g}, d/dw = %g: %s\n",
              value, dx[0], dx[1], dx[2], dw, failures ? "MISMATCH" : "ok");
  return failures ? 1 : 0;
}
