// A construct refused in a function with several derivatives (here three
// annotations, and a template differentiated for float and for double) is
// reported once, with the notes of its first report, not once per
// derivative: the same place and the same words are the same fix.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error: --implicit-check-not=note:
#include <fluxion/fluxion.hpp>

struct Span {
  const double *p;
  int n;
};

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
first(const Span &s) {
  Span c = s;
  return c.p[0] * c.p[0];
}
// CHECK: said-once.cpp:[[@LINE-3]]:8: error: fluxion: making or copying an object of class 'Span'
// CHECK: said-once.cpp:[[@LINE-5]]:1: note: while differentiating 'first'

extern Span g;
template <class T> [[fluxion::grad]] T twice(T x) {
  Span c = g;
  return x * T(c.p[0]);
}
void use(double *dx, float *dy) {
  twice_grad<double>(1.0, dx);
  twice_grad<float>(2.0f, dy);
}
// CHECK: said-once.cpp:[[@LINE-7]]:8: error: fluxion: making or copying an object of class 'Span'
// CHECK: note: while differentiating 'twice<double>'
// CHECK: 2 errors generated.
