// A pointer parameter that receives values depending on the differentiated
// inputs needs an adjoint buffer from the caller: leaving it out of the
// annotation's names is an error at the parameter, not a null adjoint.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// CHECK: undifferentiated-output.cpp:[[@LINE+1]]:60: error: fluxion: 'run' stores values that depend on its differentiated inputs through parameter 'work', which is not differentiated; add it to the names in the annotation so that the derivative receives its adjoint buffer
[[fluxion::grad("x")]] double run(const double *x, double *work, int n) {
  for (int i = 0; i < n; ++i)
    work[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += work[i];
  return s;
}
// CHECK: note: while differentiating 'run'

// Written with inactive values only: nothing to ask for.
[[fluxion::grad("x")]] double fine(const double *x, double *work, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    work[i] = i;
    s += x[i] * work[i];
  }
  return s;
}
// CHECK-NOT: error:
// CHECK: 1 error generated.
