// A static local is out of reach of the generated functions. Both ways out
// that the error advises compile: a parameter, or a variable at namespace
// scope (read as a constant, or written as a counter).
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
// RUN: %clangxx %fluxion -fsyntax-only -DADVICE %s
#include <fluxion/fluxion.hpp>

#ifndef ADVICE
[[fluxion::grad]] double f(double x) {
  // CHECK: static-local.cpp:[[@LINE+1]]:17: error: fluxion: cannot differentiate through static local variable 'c' (derivative code is other functions, which cannot reach it); make it a parameter, or a variable at namespace scope
  static double c = 2;
  return c * x;
}
// CHECK: static-local.cpp:[[@LINE-5]]:26: note: while differentiating 'f'

[[fluxion::grad]] double g(double x) {
  // CHECK: static-local.cpp:[[@LINE+1]]:14: error: fluxion: cannot differentiate through static local variable 'calls'
  static int calls = 0;
  ++calls;
  return x * x;
}

// In a callee of a second-order function: said once, in the user's words
// (no errors naming the callee's generated forward and backward parts).
struct Vec2 {
  double x, y;
};
Vec2 scale(Vec2 v, double s) {
  // CHECK: static-local.cpp:[[@LINE+1]]:14: error: fluxion: cannot differentiate through static local variable 'n'
  static int n = 0;
  ++n;
  v.x *= s;
  return v;
}
// CHECK-NOT: scale_fwd
// CHECK-NOT: scale_bwd
[[fluxion::hessian]] double h(double a, double s) {
  Vec2 u = scale(Vec2{a, a * a}, s);
  return u.x * u.y;
}
#else
static double c = 2;
[[fluxion::grad]] double f(double x) { return c * x; }
static int calls = 0;
[[fluxion::grad]] double g(double x) {
  ++calls;
  return x * x;
}
#endif
// CHECK-NOT: error:
// CHECK: 3 errors generated.
