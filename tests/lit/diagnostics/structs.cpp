// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// Structs of reals reached through pointers and references differentiate
// (numeric tests); objects as values are refused at their place, with the
// spelling that works.
struct Vec3 {
  double x, y, z;
};
struct Span {
  const double *p;
  int n;
};

// CHECK: structs.cpp:[[@LINE+1]]:33: error: fluxion: a parameter of class type Vec3 is not supported in a differentiated function; pass it by reference ('const Vec3 &')
[[fluxion::grad]] double a(Vec3 v) { return v.x; }
// CHECK: note: while differentiating 'a'

[[fluxion::grad]] double b(const Vec3 *v) {
  // CHECK: structs.cpp:[[@LINE+1]]:8: error: fluxion: a local variable of class type Vec3 is not supported in a differentiated function; keep objects of this class in the caller and pass them by reference
  Vec3 w = v[0];
  return w.x;
}

Vec3 sub(const Vec3 &l, const Vec3 &r) { return {l.x - r.x, l.y - r.y, l.z - r.z}; }
[[fluxion::grad]] double c(const Vec3 *v) {
  // CHECK: structs.cpp:[[@LINE+1]]:10: error: fluxion: cannot generate derivatives of 'sub': it returns an object of class type Vec3; write the result through a reference parameter instead ('Vec3 &out')
  return sub(v[0], v[1]).x;
}

double first(Vec3 v) { return v.x; }
[[fluxion::grad]] double d(const Vec3 *v) {
  // CHECK: structs.cpp:[[@LINE+1]]:10: error: fluxion: cannot generate derivatives of 'first': it takes an object of class type Vec3 by value; make parameter 'v' a const reference ('const Vec3 &')
  return first(v[1]);
}

// A pointer to reals inside a class: refused, not silently left without
// derivative, as a parameter and where a member is read.
// CHECK: structs.cpp:[[@LINE+1]]:40: error: fluxion: a parameter of type 'const Span &' is not supported in a differentiated function; member 'p' is a pointer to real numbers, which derivatives cannot follow yet; pass the real numbers as a pointer or array parameter of their own
[[fluxion::grad]] double e(const Span &s, double w) { return w * s.p[0]; }

[[fluxion::grad]] double g(const Span *s, double w) {
  // CHECK: structs.cpp:[[@LINE+1]]:17: error: fluxion: reading member 'p' of Span is not supported in a differentiated function; member 'p' is a pointer to real numbers, which derivatives cannot follow yet; pass the real numbers to the function as a pointer or array parameter of their own
  return w * s->p[0];
}
