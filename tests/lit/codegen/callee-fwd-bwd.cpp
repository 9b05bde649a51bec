// A function called from a differentiated one gets a forward/backward pair:
// the forward sweep calls callee_fwd, the reverse sweep callee_bwd with the
// adjoint of the result as its seed.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

double sq(double v) { return v * v; }

[[fluxion::grad]] double f(double x) { return sq(x) + x; }
// CHECK-DAG: {{^}}double f_vjp(double x, double seed, double *d_x) {
// CHECK-DAG: sq_fwd(x)
// CHECK-DAG: sq_bwd(x, {{.*}}, &{{.*}});
// CHECK-DAG: double sq_fwd(double v) {
// CHECK-DAG: void sq_bwd(double v, double seed, double *d_v) {
