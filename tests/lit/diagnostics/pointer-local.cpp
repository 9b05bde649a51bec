// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// A local pointer that stays put is its initialiser at each use (numeric
// tests); one that walks is refused at its declaration, once.
[[fluxion::grad]] double f(const double *x, int n) {
  double s = 0;
  // CHECK: pointer-local.cpp:[[@LINE+1]]:17: error: fluxion: local pointer 'p' (it is moved or reassigned) is not supported in a differentiated function; index from a base that stays put (p[k] with p = x + offset) instead of moving the pointer
  const double *p = x;
  for (int i = 0; i < n; ++i)
  {
    s += *p;
    ++p;
  }
  return s;
}
// CHECK: pointer-local.cpp:[[@LINE-11]]:26: note: while differentiating 'f'
// CHECK-NOT: error:
// CHECK: 1 error generated.

// RUN: not %clangxx %fluxion -fsyntax-only -DWALK_IN_EXPR %s 2>&1 | %FileCheck %s --check-prefix=EXPR
#ifdef WALK_IN_EXPR
// `*p++` in an expression: the pointer is reported, and the increment
// inside the expression adds no second error (f above is the other one).
[[fluxion::grad]] double g(const double *x, int n) {
  double s = 0;
  // EXPR: pointer-local.cpp:[[@LINE+1]]:17: error: fluxion: local pointer 'p' (it is moved or reassigned)
  const double *p = x;
  for (int i = 0; i < n; ++i)
    s += *p++ * 2;
  return s;
}
// EXPR-NOT: error:
// EXPR: 2 errors generated.
#endif
