// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x) {
  // CHECK: static-local.cpp:[[@LINE+1]]:17: error: fluxion: cannot differentiate through static local variable 'c'; make it a parameter
  static double c = 2;
  return c * x;
}
// CHECK: static-local.cpp:[[@LINE-5]]:26: note: while differentiating 'f'
// CHECK-NOT: error:
// CHECK: 1 error generated.
