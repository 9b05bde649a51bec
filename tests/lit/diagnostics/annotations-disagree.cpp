// Two annotations of one function that generate the same f_vjp or f_jvp
// must name the same parameters: f_jacobian is built from its f_jvp or
// f_vjp, and one set of functions serves both. Before this was an error,
// the second list was ignored (f_grad silently got the other signature)
// or f_jacobian called its sweep with the wrong arguments.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// 2 columns, 1 row: built from h_vjp, which grad("x") asks for with x only.
// CHECK: annotations-disagree.cpp:[[@LINE+1]]:25: error: fluxion: cannot generate derivatives of 'h': two of its annotations ask for 'h_vjp' with different parameters ({{\[\[}}fluxion::jacobian]] and {{\[\[}}fluxion::hessian]] generate it too, and a Jacobian differentiates its output arrays whether named or not); give them the same names
[[fluxion::jacobian]] [[fluxion::grad("x")]] double h(double x, double y) {
  return x * y * y;
}

// The other order: reported at the Jacobian.
// CHECK: annotations-disagree.cpp:[[@LINE+1]]:26: error: fluxion: cannot generate derivatives of 'h2': two of its annotations ask for 'h2_vjp'
[[fluxion::grad("x")]] [[fluxion::jacobian]] double h2(double x, double y) {
  return x * y * y;
}

// The Jacobian's output array is differentiated though not named; the jvp
// that f_jacobian is built from (1 column, 2 rows) leaves it out (and
// cannot, since out receives differentiated values).
// CHECK: annotations-disagree.cpp:[[@LINE+2]]:25: error: fluxion: cannot generate derivatives of 'g': two of its annotations ask for 'g_jvp'
// CHECK: annotations-disagree.cpp:[[@LINE+2]]:66: error: fluxion: 'g' stores values that depend on its differentiated inputs through parameter 'out'
[[fluxion::jvp("x")]] [[fluxion::jacobian("x")]] double g(double x, double y,
                                                          double out[1]) {
  out[0] = x * y;
  return x * y * y;
}

// The same kind twice with different names.
// CHECK: annotations-disagree.cpp:[[@LINE+1]]:26: error: fluxion: cannot generate derivatives of 'd': two of its annotations ask for 'd_vjp'
[[fluxion::grad("x")]] [[fluxion::grad("y")]] double d(double x, double y) {
  return x * x * y;
}

// What a Hessian also gives (f_grad over its names) comes first here, and
// the written grad would be ignored.
// CHECK: annotations-disagree.cpp:[[@LINE+1]]:29: error: fluxion: cannot generate derivatives of 'a': two of its annotations ask for 'a_vjp'
[[fluxion::hessian("x")]] [[fluxion::grad]] double a(double x, double y) {
  return x * x * y;
}

// Agreeing annotations.
[[fluxion::grad("x")]] [[fluxion::grad("x")]] double c(double x, double y) {
  return x * x * y;
}
[[fluxion::jvp("x", "out")]] [[fluxion::jacobian("x")]] double
g2(double x, double y, double out[1]) {
  out[0] = x * y;
  return x * y * y;
}
[[fluxion::jacobian("x")]] [[fluxion::grad("x", "out")]] void
r(const double x[3], double y, double out[2]) {
  out[0] = x[0] * y;
  out[1] = x[1] * x[2];
}
// What a Hessian also gives yields to a grad written before it.
[[fluxion::grad]] [[fluxion::hessian("x")]] double b(double x, double y) {
  return x * x * y;
}
// CHECK-NOT: error:
// CHECK: 6 errors generated.
