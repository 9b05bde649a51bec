// The same annotation written twice on one declaration generates each
// derivative once (or is diagnosed by Fluxion at the second attribute); it
// must not reach code generation as two definitions of f_vjp.
// RUN: %clangxx %fluxion -c %s -o %t.o 2>&1 | %FileCheck %s --allow-empty
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] [[fluxion::grad]] double f(double x) { return x * x; }
double use() {
  double d = 0;
  return f_grad(3.0, &d) + d;
}
// CHECK-NOT: definition with same mangled name
// CHECK-NOT: error
