// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// Methods, constructors and object results differentiate (numeric tests);
// what stays unsupported is refused where it is written, in the user's
// words, with what works instead.
struct Shape {
  virtual double area(double s) const { return s * s; }
  virtual ~Shape() = default;
};
[[fluxion::grad]] double a(const Shape *s, double x) {
  // CHECK: methods.cpp:[[@LINE+1]]:13: error: fluxion: a dynamic virtual call to 'area', whose target is known only at run time is not supported in a differentiated function; call the override you mean (obj.Shape::area(...)), or declare the class or the method 'final'
  return s->area(x);
}
// CHECK: note: while differentiating 'a'

struct Vec {
  double v[3];
  double &at(int i) {
    if (i < 0)
      i += 3;
    return v[i];
  }
  Vec &scale(double k) {
    for (int i = 0; i < 3; ++i)
      v[i] *= k;
    return *this;
  }
};
[[fluxion::grad]] double b(Vec *p, double k) {
  p->scale(k); // for its effect: fine
  // CHECK: methods.cpp:[[@LINE+1]]:13: error: fluxion: cannot generate derivatives of 'at': it returns a reference from a body other than 'return place;'; return the value, or access the element directly
  return p->at(1) * k;
}
// CHECK: note: while differentiating 'b'

struct P2 {
  double x, y;
  P2(double x, double y) : x(x), y(y) {}
  // CHECK: methods.cpp:[[@LINE+1]]:10: error: fluxion: a delegating constructor is not supported in a differentiated function; initialise the members in this constructor
  P2() : P2(0, 0) {}
};
[[fluxion::grad]] double c(double x) {
  P2 p;
  p.x = x;
  return p.x * p.y;
}
// CHECK: note: while differentiating 'c'

// Annotated members: every annotation generates members; a Hessian's and
// a Jacobian's inputs are the parameters (the object's members are
// constants), so they may not name "this"; "this" needs an object; and a
// method storing an active value in its object must name "this".
struct Q {
  double w;
  [[fluxion::hessian]] double f(double x) const { return w * x * x; }
  // CHECK: methods.cpp:[[@LINE+1]]:5: error: fluxion: cannot generate derivatives of 'h': {{\[\[}}fluxion::hessian{{\]\]}} naming "this" is not supported yet; name parameters only (the object's members are then constants), or name "this" in {{\[\[}}fluxion::grad{{\]\]}} or {{\[\[}}fluxion::jvp{{\]\]}}, which take it
  [[fluxion::hessian("x", "this")]] double h(double x) const { return w * x; }
  // CHECK: methods.cpp:[[@LINE+1]]:5: error: fluxion: cannot generate derivatives of 'g': it names "this", which only a non-static member function has
  [[fluxion::grad("x", "this")]] static double g(double x) { return x; }
  // CHECK: methods.cpp:[[@LINE+1]]:32: error: fluxion: cannot generate derivatives of 'keep': it stores values that depend on its differentiated inputs in its object (*this), which is not differentiated; name "this" in the annotation ({{\[\[}}fluxion::grad{{\]\]}} and {{\[\[}}fluxion::jvp{{\]\]}} take it), or keep the value in a local
  [[fluxion::jacobian]] double keep(double x) {
    w = x * x;
    return w * x;
  }
};
// CHECK-NOT: error:
