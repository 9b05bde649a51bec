// f_jacobian takes objects of reals as inputs and outputs; an object whose
// member points to reals has no fixed number of elements, and an `S &`
// the function only reads and the annotation does not name has no place in
// J: both are located errors that say what works.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

struct Span {
  const double *p;
  int n;
};
// CHECK: jacobian-objects.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'sum': a dense Jacobian needs scalar, fixed-size array and object parameters (T x[N], const S &s; outputs T y[N], S &out); use f_jvp or f_vjp for pointers, containers, dynamic-size Eigen objects and non-const scalar references
[[fluxion::jacobian]] double sum(const Span &s) {
  double t = 0;
  for (int i = 0; i < s.n; ++i)
    t += s.p[i];
  return t;
}

struct Vec2 {
  double x, y;
};
// CHECK: jacobian-objects.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'scale': 'v' is a non-const reference that the function only reads, and the annotation does not name it; declare it 'const'
[[fluxion::jacobian("s")]] void scale(Vec2 &v, double s, double out[2]) {
  out[0] = v.x * s;
  out[1] = v.y * s;
}
