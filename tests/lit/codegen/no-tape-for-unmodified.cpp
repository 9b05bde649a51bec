// Straight-line code where no variable is overwritten: nothing is recorded
// on a tape (every value the reverse sweep needs is still live).
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double h(double x, double y) {
  double a = x * y;
  double b = a * a;
  return b + x;
}
// CHECK-LABEL: double h_vjp(double x, double y, double seed, double *d_x, double *d_y) {
// CHECK-NOT: tape
// CHECK-NOT: push
// CHECK-NOT: pop
// CHECK: return
// CHECK-LABEL: double h_grad(
