// A third-party header, included with -isystem: inline functions in a
// namespace, without annotations. redeclaration.cpp differentiates them
// without editing this file.
#ifndef VENDOR_KINEMATICS_H
#define VENDOR_KINEMATICS_H

#include <cmath>

namespace vendor {
namespace detail {
inline double sq(double v) { return v * v; }
} // namespace detail

inline double drag(double v, double c) {
  return c * v * std::fabs(v) + std::sin(v) * detail::sq(c);
}

inline double energy(const double *x, int n, double k) {
  double e = 0;
  for (int i = 0; i < n; ++i)
    e += k * detail::sq(x[i]) * std::exp(-x[i] / 4);
  return e;
}
} // namespace vendor

#endif
