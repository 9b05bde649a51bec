// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// References to scalars are parameters like any other (numeric tests); what
// is still refused says so at its place.

// A reference to a pointer.
// CHECK: references.cpp:[[@LINE+1]]:37: error: fluxion: parameter of type 'double *&' is not supported in a differentiated function
[[fluxion::grad]] double f(double *&p) { return p[0] * p[0]; }
// CHECK: note: while differentiating 'f'

// The same variable passed to a parameter the callee writes and to another:
// the derivatives would be wrong, so the call is refused.
void update(const double &a, double &b) { b = a * b; }
[[fluxion::grad]] double g(double x) {
  double y = x;
  // CHECK: references.cpp:[[@LINE+1]]:13: error: fluxion: cannot differentiate call to 'update': it writes through parameter 'b', and the same variable is passed as 'a'; derivatives assume that memory a function writes is reached through no other parameter: pass a copy to one of them
  update(y, y);
  return y;
}
// CHECK: note: while differentiating 'g'

// Pointers too.
void scale(const double *a, double *b) { *b = 2 * *a; }
[[fluxion::grad]] double h(double *v) {
  // CHECK: references.cpp:[[@LINE+1]]:18: error: fluxion: cannot differentiate call to 'scale': it writes through parameter 'b', and the same variable is passed as 'a'
  scale(v + 1, v + 1);
  return v[1];
}
// CHECK: note: while differentiating 'h'

// A callee that returns a reference.
double &at(double *a, int i) { return a[i]; }
[[fluxion::grad]] double k(double *a) {
  // CHECK: references.cpp:[[@LINE+1]]:10: error: fluxion: cannot generate derivatives of 'at': it returns a reference; return the value, or access the element directly
  return at(a, 0) * 2;
}
// CHECK: note: while differentiating 'k'

// A local reference whose place changes while it is in use: one error at
// its declaration, none at its uses.
[[fluxion::grad]] double m(double *a, int i) {
  // CHECK: references.cpp:[[@LINE+1]]:11: error: fluxion: local reference 'r' ('i', which chooses the place, changes while it is in use) is not supported in a differentiated function; index the array or name the member at each use
  double &r = a[i];
  ++i;
  r *= 2;
  return r;
}
// CHECK: note: while differentiating 'm'

// A conditional bound to a non-const reference (a const one reads a copy).
void bump(double &v, double by) { v += by; }
[[fluxion::grad]] double n(double a, double b) {
  // CHECK: references.cpp:[[@LINE+1]]:8: error: fluxion: a conditional passed to a non-const reference is not supported in a differentiated function; pass a variable or an array element
  bump(a > b ? a : b, 1.0);
  return a * b;
}
// CHECK: note: while differentiating 'n'
// CHECK-NOT: error:
// CHECK: 6 errors generated.
