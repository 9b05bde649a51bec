// Definitions of functions that the numeric tests call without seeing their
// bodies: the differentiator must use a fluxion::custom rule for them.
#include <cmath>

namespace calls {

// sigma(a x) for a logistic sigma: declared without a body in calls_test.cpp.
double opaque_logistic(double x, double a) { return 1 / (1 + std::exp(-a * x)); }

// Sum of cubes of an array: declared without a body in calls_test.cpp.
double opaque_cubes(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i] * x[i];
  return s;
}

} // namespace calls
