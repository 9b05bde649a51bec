// A function returning an object gets f_vjp (with a seed object) and f_jvp;
// what needs a floating-point result is refused at the annotation.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
#include <fluxion/fluxion.hpp>

struct Vec2 {
  double x, y;
};

// CHECK: object-result.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'rotate': it returns an object ('Vec2'); {{\[\[}}fluxion::hessian]] needs a floating-point result: return one of its members, or use {{\[\[}}fluxion::grad]] (f_vjp with a seed object) or {{\[\[}}fluxion::jvp]]
[[fluxion::hessian]] Vec2 rotate(const Vec2 &v, double a) {
  return {v.x * a - v.y, v.x + v.y * a};
}

// Fine: f_vjp and f_jvp.
[[fluxion::grad]] [[fluxion::jvp]] Vec2 scale(const Vec2 &v, double a) {
  return {v.x * a, v.y * a};
}
double use(const Vec2 &v) {
  Vec2 seed{1, 0}, dv{}, tv{1, 1};
  double da = 0;
  // No f_grad for an object result.
  Vec2 s = scale_vjp(v, 2.0, seed, &dv, &da);
  return s.x + scale_jvp(v, 2.0, &tv, 0.5).y + dv.x + da;
}
// CHECK: 1 error generated.
