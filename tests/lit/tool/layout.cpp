// Where fluxion-gen puts what it generates (--no-line, for readability):
// the declarations right after the function they are declared next to, in
// its namespace; the definitions after the top-level declaration whose body
// completed them, reopening the namespace; helpers of a callee as static
// functions next to the callee. The annotation itself is commented out.
// RUN: %fluxion-gen %s --no-line -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: %FileCheck %s --match-full-lines --strict-whitespace < %t.cpp
#include <fluxion/fluxion.hpp>

namespace geo {

double sq(double v) { return v * v; }

[[fluxion::grad]] double norm2(double x, double y) {
  return sq(x) + y * y;
}

} // namespace geo

double after(double x) { return x; }

// The user's code is copied as it is, the annotation commented out.
// CHECK:namespace geo {
// CHECK-EMPTY:
// CHECK-NEXT:double sq(double v) { return v * v; }
// CHECK-EMPTY:
// CHECK-NEXT:static double sq_fwd(double v);
// CHECK-EMPTY:
// CHECK-NEXT:static void sq_bwd(double v, double seed, double *d_v);
// CHECK-EMPTY:
// CHECK-NEXT:{{\[\[}}/*fluxion::grad*/]] double norm2(double x, double y) {
// CHECK-NEXT:  return sq(x) + y * y;
// CHECK-NEXT:}
// CHECK-EMPTY:
// CHECK-NEXT:double norm2_vjp(double x, double y, double seed, double *d_x, double *d_y);
// CHECK-EMPTY:
// CHECK-NEXT:double norm2_grad(double x, double y, double *d_x, double *d_y);
// CHECK-EMPTY:
// CHECK-NEXT:} // namespace geo
// CHECK-EMPTY:
// The definitions, after the namespace that completed them, with the
// source line each group of statements comes from.
// CHECK-NEXT:namespace geo {
// CHECK-NEXT:double norm2_vjp(double x, double y, double seed, double *d_x, double *d_y) {
// CHECK-NEXT:  double _ret = 0.;
// CHECK:  // return sq(x) + y * y;
// CHECK-NEXT:  _sq = geo::sq_fwd(x);
// CHECK-NEXT:  _ret = _sq + (y * y);
// CHECK:    geo::sq_bwd(x, _r, &_d_x);
// CHECK:  return _ret;
// CHECK-NEXT:}
// CHECK-EMPTY:
// CHECK-NEXT:double norm2_grad(double x, double y, double *d_x, double *d_y) {
// CHECK-NEXT:  return geo::norm2_vjp(x, y, 1., d_x, d_y);
// CHECK-NEXT:}
// CHECK-EMPTY:
// CHECK-NEXT:static double sq_fwd(double v) {
// CHECK:  // double sq(double v) { return v * v; }
// CHECK-NEXT:  _ret = v * v;
// CHECK:static void sq_bwd(double v, double seed, double *d_v) {
// CHECK:} // namespace geo
// CHECK-EMPTY:
// CHECK-NEXT:double after(double x) { return x; }
