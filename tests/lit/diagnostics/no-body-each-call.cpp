// Every call that cannot be differentiated is reported at its own location
// (wrapping one of them in fluxion::stop_gradient must not reveal the next
// one only on the following compile).
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

double ext(double);

[[fluxion::grad]] double f(double x) {
  // CHECK: no-body-each-call.cpp:[[@LINE+1]]:14: error: fluxion: cannot differentiate call to 'ext'
  double a = ext(x);
  // CHECK: no-body-each-call.cpp:[[@LINE+1]]:10: error: fluxion: cannot differentiate call to 'ext'
  return ext(a) * x;
}

[[fluxion::grad]] double g(double x) {
  // CHECK: no-body-each-call.cpp:[[@LINE+1]]:10: error: fluxion: cannot differentiate call to 'ext'
  return ext(x) + x;
}
// CHECK-NOT: error:
// CHECK: 3 errors generated.
