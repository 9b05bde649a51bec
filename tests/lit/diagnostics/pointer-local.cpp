// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x) {
  // CHECK: pointer-local.cpp:[[@LINE+1]]:11: error: fluxion: local variable of type 'double *' is not supported in a differentiated function (supported: floating and integer scalars, fixed-size arrays of them, pointer parameters, references to scalars as parameters)
  double *p = &x;
  return *p * 2;
}
// CHECK: pointer-local.cpp:[[@LINE-5]]:26: note: while differentiating 'f'
// CHECK-NOT: error:
// CHECK: 1 error generated.
