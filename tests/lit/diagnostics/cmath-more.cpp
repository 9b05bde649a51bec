// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>
#include <algorithm>
#include <cmath>

// A builtin spelling has the rules of the library function it spells
// (__builtin_sqrt uses sqrt_vjp); one whose function has no rule is refused
// at the call, with the rule to write under the function's own name.
[[fluxion::grad]] double tenfold(double x) {
  // CHECK: cmath-more.cpp:[[@LINE+1]]:10: error: fluxion: cannot differentiate call to '__builtin_exp10': its body is not visible and no custom derivative matches; define 'fluxion::custom::exp10_vjp' or wrap the call in fluxion::stop_gradient
  return __builtin_exp10(x) + __builtin_sqrt(x);
}
// CHECK: note: while differentiating 'tenfold'

// Three-argument hypot with an integer argument: the rules take three
// floating arguments; the error shows the signature a rule would need.
[[fluxion::grad]] double mixed(double x, double y) {
  // CHECK: cmath-more.cpp:[[@LINE+1]]:10: error: fluxion: custom derivative 'hypot_vjp' does not match the derivative convention for 'hypot<double, int, double>'; expected 'double hypot_vjp(double x, int y, double z, double seed, double *d_x, double *d_z)'
  return std::hypot(x, 1, y);
}
// CHECK: note: while differentiating 'mixed'

// A reference to std::max's result is kept: it would see later writes to
// x and y, so it is not read as a copy; it stays refused.
[[fluxion::grad]] double kept(double x, double y) {
  // CHECK: cmath-more.cpp:[[@LINE+1]]:17: error: fluxion: local reference 'r'
  const double &r = std::max(x, y);
  return r * x;
}
// CHECK: note: while differentiating 'kept'

// Used by value, std::max, std::min and std::clamp are differentiated.
[[fluxion::grad]] double used(double x, double y) {
  return std::max(x, y) * std::min(x, 2.0) + std::clamp(y, 0.0, 1.0);
}
// CHECK-NOT: while differentiating 'used'
