// Assigning to a place chosen at run time (a conditional lvalue, or a
// function returning one) is a located error; its advice (an assignment in
// each branch of an if) compiles.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
// RUN: %clangxx %fluxion -fsyntax-only -DADVICE %s
#include <fluxion/fluxion.hpp>

struct P {
  double x, y;
};
double &coord(P &p, int k) { return k == 0 ? p.x : p.y; }

[[fluxion::grad]] double f(double a, int k) {
  P p{a, a * a};
#ifndef ADVICE
  // CHECK: conditional-place.cpp:[[@LINE+1]]:3: error: fluxion: assigning to a place chosen at run time (a conditional 'c ? a : b', or a function returning one) is not supported in a differentiated function; write the assignment in each branch of an 'if'
  coord(p, k) *= 2;
  // CHECK: conditional-place.cpp:[[@LINE+1]]:3: error: fluxion: assigning to a place chosen at run time
  (k == 0 ? p.x : p.y) = a;
#else
  if (k == 0)
    p.x *= 2;
  else
    p.y *= 2;
  if (k == 0)
    p.x = a;
  else
    p.y = a;
#endif
  return p.x * p.y;
}
// CHECK-NOT: error:
