// Consecutive pushes become one push_values call per tape, and the reverse
// sweep's consecutive pops into variables one pop_values call, listing the
// variables in pop order (the mirror of the push): the tape checks for room
// once per group instead of once per value. Pushes to different tapes are
// grouped separately; a save before an overwrite, followed by the
// overwrite, stays a single push.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

#include <cmath>

static double blend(double a, double b, int k) {
  double s = std::sin(a);
  double t = a * b;
  int m = k * 2;
  double u = s * t * m;
  return u * std::exp(t);
}

[[fluxion::grad]] double outer(double x, double y, int k) {
  double acc[2];
  acc[0] = x * y;
  acc[0] = acc[0] * blend(x, y, k);
  acc[1] = acc[0] * x;
  return acc[1];
}

// CHECK-LABEL: double outer_vjp(
// CHECK: _blend = blend_fwd(x, y, k);
// CHECK-NEXT: _tape_double.push(acc[0]);
// CHECK-NEXT: acc[0] = acc[0] * _blend;
// CHECK: _tape_double.push(acc[1]);
// CHECK: acc[1] = _tape_double.pop();
// CHECK: acc[0] = _tape_double.pop();

// CHECK-LABEL: static double blend_fwd(double a, double b, int k) {
// CHECK: _ret = u * _exp;
// CHECK-NEXT: _tape_double.push_values(s, t, u, _exp, _res_sin);
// CHECK-NEXT: _tape_int.push(m);
// CHECK-NEXT: return _ret;

// CHECK-LABEL: static void blend_bwd(
// CHECK: auto &_tape_int = fluxion::tape<int>();
// CHECK-NEXT: _tape_double.pop_values(_res_sin, _exp, u, t, s);
// CHECK-NEXT: m = _tape_int.pop();
// CHECK: _d_u += seed * _exp;
