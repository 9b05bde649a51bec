// Forward mode, as reverse mode (undifferentiated-output.cpp): a pointer
// parameter that receives values depending on the differentiated inputs
// needs a tangent buffer from the caller; leaving it out of the names is an
// error at the parameter, not a write through a null tangent.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// CHECK: undifferentiated-output-jvp.cpp:[[@LINE+1]]:59: error: fluxion: 'g' stores values that depend on its differentiated inputs through parameter 'out', which is not differentiated; add it to the names in the annotation so that the derivative receives its tangent buffer
[[fluxion::jvp("x")]] double g(double x, double y, double out[2]) {
  out[0] = x * y;
  out[1] = y;
  return x * y * y;
}
// CHECK: note: while differentiating 'g'

// Written with inactive values only: nothing to ask for.
[[fluxion::jvp("x")]] double fine(double x, double y, double out[2]) {
  out[0] = y;
  return x * out[0];
}

// Named: the tangent arrives in t_out.
[[fluxion::jvp("x", "out")]] double named(double x, double y, double out[2]) {
  out[0] = x * y;
  return x * y * y;
}
// CHECK-NOT: error:
// CHECK: 1 error generated.
