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

// A callee that returns a reference: `return place;` is that place
// (numeric tests); another body is refused, and so is an argument that
// changes something.
double &at(double *a, int i) { return a[i]; }
double &wrap(double *a, int i) {
  int j = i % 4;
  return a[j];
}
[[fluxion::grad]] double k(double *a, int n) {
  // CHECK: references.cpp:[[@LINE+1]]:10: error: fluxion: cannot generate derivatives of 'wrap': it returns a reference from a body other than 'return place;'; return the value, or access the element directly
  return wrap(a, 0) * 2 + at(a, 1);
}
// CHECK: note: while differentiating 'k'
[[fluxion::grad]] double k2(double *a, int n) {
  // CHECK: references.cpp:[[@LINE+1]]:17: error: fluxion: an argument that changes something, given to 'at', which returns a reference is not supported in a differentiated function; make the change a statement of its own before the call
  return at(a, n++);
}
// CHECK: note: while differentiating 'k2'

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
// A callee's reference to an array: said so, with the pointer form.
double sum3(const double (&c)[3]) { return c[0] + c[1] * c[2]; }
[[fluxion::grad]] double through_array_ref(double x) {
  double c[3] = {1.0, x, x};
  // CHECK: references.cpp:[[@LINE+1]]:15: error: fluxion: a parameter that is a reference to an array ('const double (&)[3]') is not supported in a differentiated function; take a pointer to its first element ('const double *') or an array parameter ('const double a[N]')
  return sum3(c);
}
// CHECK: note: while differentiating 'through_array_ref'
// CHECK-NOT: error:
// CHECK: 8 errors generated.

