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
// CHECK: 2 errors generated.
