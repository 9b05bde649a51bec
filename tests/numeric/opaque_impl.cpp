// Definitions of functions that the numeric tests call without seeing their
// bodies: the differentiator must use a fluxion::custom rule for them.
#include <cmath>
#include <cstdio>

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

namespace effects {

// A log that differentiated code calls for its side effect only
// (side_effects_test.cpp): it counts its calls and keeps the last entry.
int log_count = 0;
double log_last = 0;
char log_tag[32];

void log_value(const char *tag, double v) {
  ++log_count;
  log_last = v;
  std::snprintf(log_tag, sizeof log_tag, "%s", tag);
}

} // namespace effects
