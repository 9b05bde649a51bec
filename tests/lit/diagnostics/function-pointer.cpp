// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x, double (*p)(double)) {
  // CHECK: function-pointer.cpp:[[@LINE+1]]:10: error: fluxion: cannot differentiate a call through a function pointer; call the function by name
  return p(x) * x;
}
// CHECK: function-pointer.cpp:[[@LINE-4]]:26: note: while differentiating 'f'

// Through a local function pointer: one error, at the call. Taking the
// function's address is not itself an error worth a second, obscure message.
double sq(double v) { return v * v; }
[[fluxion::grad]] double g(double x) {
  double (*p)(double) = sq;
  // CHECK-NOT: error:
  // CHECK: function-pointer.cpp:[[@LINE+1]]:10: error: fluxion: cannot differentiate a call through a function pointer
  return p(x);
}
// CHECK-NOT: error:
// CHECK: 2 errors generated.
