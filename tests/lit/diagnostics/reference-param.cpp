// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// An annotated function with a reference parameter.
// CHECK: reference-param.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'f': reference parameters are not supported; pass a pointer
[[fluxion::grad]] double f(double &x) {
  return x * x;
}

// A callee taking a reference: the error is at the argument.
double sq(const double &v) { return v * v; }
[[fluxion::grad]] double g(double x) {
  // CHECK: reference-param.cpp:[[@LINE+1]]:13: error: fluxion: cannot differentiate call to 'sq': passing arguments by reference is not supported; pass a pointer
  return sq(x);
}
// CHECK: reference-param.cpp:[[@LINE-4]]:26: note: while differentiating 'g'
// CHECK-NOT: error:
// CHECK: 2 errors generated.
