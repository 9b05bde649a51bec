// The plugin's dump option prints the generated functions as fluxion-gen
// writes them with --no-line: formatted, each group of statements under the
// source line it comes from.
// RUN: %clangxx %fluxion -fplugin-arg-fluxion-dump -fsyntax-only %s 2>&1 | %FileCheck %s
// RUN: %fluxion-gen %s --no-line -- -std=c++17 -I%fluxion-include | %FileCheck %s
#include <fluxion/fluxion.hpp>

#include <cmath>

[[fluxion::grad]] double f(double x, double y) {
  double a = std::sin(x) * y;
  return a * a;
}
// CHECK:      {{^}}double f_vjp(double x, double y, double seed, double *d_x, double *d_y) {
// CHECK-NEXT: {{^}}  double _ret = 0.;
// CHECK:      {{^}}  // double a = std::sin(x) * y;
// CHECK-NEXT: {{^}}  _sin = fluxion::custom::sin_fwd(x, _res_sin);
// CHECK-NEXT: {{^}}  a = _sin * y;
// CHECK-NEXT: {{^}}  // return a * a;
// CHECK-NEXT: {{^}}  _ret = a * a;
// CHECK-NOT:  #line
// CHECK:      {{^}}    fluxion::custom::sin_bwd(0., _res_sin, _r, &_d_x);
// CHECK:      {{^}}double f_grad(double x, double y, double *d_x, double *d_y) {
// CHECK-NEXT: {{^}}  return f_vjp(x, y, 1., d_x, d_y);
// CHECK-NEXT: {{^}}}
