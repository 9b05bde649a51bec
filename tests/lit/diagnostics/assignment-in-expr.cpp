// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x) {
  // CHECK: assignment-in-expr.cpp:[[@LINE+1]]:17: error: fluxion: assignments and increments inside a larger expression are not supported; write them as separate statements
  double y = (x = 2) * 3;
  return y;
}
// CHECK: assignment-in-expr.cpp:[[@LINE-5]]:26: note: while differentiating 'f'
// CHECK-NOT: error:
// CHECK: 1 error generated.
