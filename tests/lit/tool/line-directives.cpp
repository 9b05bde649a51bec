// #line directives (on by default) map the whole output back to the input:
// the user's lines to themselves, each generated function to the function
// it differentiates, each generated statement to the source line it comes
// from (a debugger steps through the adjoint against the original code).
// A directive is left out where the line count already is right.
// RUN: %fluxion-gen %s -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: %FileCheck %s --match-full-lines < %t.cpp
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x, double y) {
  double a = x * y;
  return a * x;
}

int unchanged_code_below = 1;

// CHECK:#line 1 "{{.*}}line-directives.cpp"
// CHECK-NEXT:// #line directives (on by default) map the whole output back to the input:

// The definitions right after f (which makes their declarations needless),
// statement by statement; then the user's code at its own line again.
// CHECK:#line [[#F:@LINE-12]] "{{.*}}line-directives.cpp"
// CHECK-NEXT:double f_vjp(double x, double y, double seed, double *d_x, double *d_y) {
// CHECK-NEXT:#line [[#F]]
// CHECK-NEXT:  double _ret = 0.;
// CHECK:  // double a = x * y;
// CHECK-NEXT:#line [[#F+1]]
// CHECK-NEXT:  a = x * y;
// CHECK-NEXT:  // return a * x;
// CHECK-NEXT:#line [[#F+2]]
// CHECK-NEXT:  _ret = a * x;
// CHECK-NEXT:#line [[#F+2]]
// CHECK-NEXT:  _d_a += seed * x;
// CHECK:  // double a = x * y;
// CHECK-NEXT:#line [[#F+1]]
// CHECK-NEXT:  _d_x += _d_a * y;
// CHECK:  *d_y += _d_y;
// CHECK-NEXT:#line [[#F]]
// CHECK-NEXT:  return _ret;
// CHECK-NEXT:}
// CHECK-EMPTY:
// CHECK-NEXT:#line [[#F]]
// CHECK-NEXT:double f_grad(double x, double y, double *d_x, double *d_y) {
// CHECK-NEXT:#line [[#F]]
// CHECK-NEXT:  return f_vjp(x, y, 1., d_x, d_y);
// CHECK-NEXT:}
// CHECK-NEXT:#line [[#F+4]] "{{.*}}line-directives.cpp"
// CHECK-EMPTY:
// CHECK-NEXT:int unchanged_code_below = 1;
