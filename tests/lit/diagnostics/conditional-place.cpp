// Assigning to a place chosen at run time (a conditional lvalue, or a
// function returning one) is a located error; its advice (an assignment in
// each branch of an if) compiles.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
// RUN: %clangxx %fluxion -fsyntax-only -DADVICE %s
#include <fluxion/fluxion.hpp>

#include <array>
#include <vector>

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

// Elements of containers, whose selected value gets a local of its own.
[[fluxion::grad]] double g(const std::vector<double> &v, double k) {
  std::vector<double> a = v;
  std::array<double, 2> b = {k, 2 * k};
#ifndef ADVICE
  // CHECK: conditional-place.cpp:[[@LINE+1]]:3: error: fluxion: assigning to a place chosen at run time
  (a[0] > a[1] ? a[0] : a[1]) += k;
  // CHECK: conditional-place.cpp:[[@LINE+1]]:5: error: fluxion: assigning to a place chosen at run time
  ++(b[0] > b[1] ? b[0] : b[1]);
#else
  if (a[0] > a[1])
    a[0] += k;
  else
    a[1] += k;
  if (b[0] > b[1])
    ++b[0];
  else
    ++b[1];
#endif
  return a[0] * b[0] + a[1] * b[1];
}
// CHECK-NOT: error:
