// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// Structs of reals reached through pointers and references differentiate
// (numeric tests); objects as values are refused at their place, with the
// spelling that works.
struct Vec3 {
  double x, y, z;
};
struct Span {
  double *p;
  int n;
};
struct ConstSpan {
  const double *p;
  int n;
};

// An object passed by value that the function writes is its copy.
// CHECK-NOT: while differentiating 'a'
[[fluxion::grad]] double a(Vec3 v) {
  v.x *= 2;
  return v.x;
}

// Locals are copied member by member; a large object is not.
struct Grid {
  double u[20][20];
};
[[fluxion::grad]] double b(const Grid &g) {
  // CHECK: structs.cpp:[[@LINE+1]]:12: error: fluxion: copying an object of 400 numbers is not supported in a differentiated function; pass it by reference, or copy the members that change
  Grid c = g;
  return c.u[1][2];
}

// A pointer to non-const reals inside a class: refused, not silently left
// without derivative, as a parameter and where a member is read.
// CHECK: structs.cpp:[[@LINE+1]]:40: error: fluxion: a parameter of type 'const Span &' is not supported in a differentiated function; member 'p' is a pointer to non-const real numbers, which derivatives cannot follow yet; pass the real numbers as a pointer or array parameter of their own
[[fluxion::grad]] double e(const Span &s, double w) { return w * s.p[0]; }

[[fluxion::grad]] double g(const Span *s, double w) {
  // CHECK: structs.cpp:[[@LINE+1]]:17: error: fluxion: reading member 'p' of Span is not supported in a differentiated function; member 'p' is a pointer to non-const real numbers, which derivatives cannot follow yet; pass the real numbers to the function as a pointer or array parameter of their own
  return w * s->p[0];
}

// Without other real parameters, the class parameter is named: it is not
// taken for the absence of real numbers.
// CHECK: structs.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'h': parameter 's' of type 'const Span *' cannot be differentiated yet (member 'p' is a pointer to non-const real numbers); pass its real numbers as a pointer or array parameter of their own
[[fluxion::grad]] double h(const Span *s) { return s->p[0]; }

// Base classes are members of the object, unless a member of the derived
// class hides one of a base's (`s.x` would name only one of them), or the
// base is virtual.
struct Base1 {
  double x;
};
struct Hides : Base1 {
  double x;
};
// CHECK: structs.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'k': parameter 's' of type 'const Hides &' cannot be differentiated yet (member 'x' hides a member of its base class 'Base1')
[[fluxion::grad]] double k(const Hides &s) { return s.x; }
struct Virtual : virtual Base1 {
  double y;
};
// CHECK: structs.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'l': parameter 's' of type 'const Virtual &' cannot be differentiated yet (it has virtual base classes or virtual functions)
[[fluxion::grad]] double l(const Virtual &s) { return s.y; }

// A pointer to const reals inside a class is an input the object shows
// (numeric tests); its objects are read in place, never made or copied.
[[fluxion::grad]] double m(const ConstSpan &s) {
  // CHECK: structs.cpp:[[@LINE+1]]:13: error: fluxion: making or copying an object of class 'ConstSpan', which holds a pointer to real numbers is not supported in a differentiated function; read the original through a reference ('const ConstSpan &'), or pass the pointer as a parameter of its own
  ConstSpan t = s;
  return t.p[0];
}
// CHECK-NOT: error:

// A pointer to objects of reals inside a class: their shadows would need
// shadow objects; refused, not left without derivative.
struct Point {
  double x;
};
struct Scene {
  const Point *ps;
  int n;
};
// CHECK: structs.cpp:[[@LINE+1]]:45: error: fluxion: a parameter of type 'const Scene &' is not supported in a differentiated function; member 'ps' is a pointer to objects holding real numbers
[[fluxion::grad]] double scene(const Scene &s, double w) { return w * s.ps[0].x; }
