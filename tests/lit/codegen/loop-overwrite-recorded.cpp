// A variable overwritten in a loop, whose old value the reverse sweep needs,
// is pushed before it is overwritten and popped in the reverse loop (which
// runs the counter back from its bound: no trip count is recorded). A value
// never overwritten (a) is not pushed.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x, double y) {
  double a = x * y;
  double s = 1;
  for (int i = 0; i < 3; ++i)
    s = s * a;
  return s;
}
// CHECK-LABEL: double f_vjp(double x, double y, double seed, double *d_x, double *d_y) {
// CHECK-NOT: push(a)
// CHECK: while
// CHECK-NOT: push(a)
// CHECK: .push(s);
// CHECK-NEXT: s = s * a;
// CHECK-NOT: push(a)
// CHECK: s = {{.*}}.pop();
// CHECK-NOT: push(a)
// CHECK-LABEL: double f_grad(
