// A call to a function whose body is not visible and that has no custom
// derivative is an error at the call, naming the callee and the way out.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

double ext(double);

[[fluxion::grad]] double f(double x) {
  // CHECK: no-body.cpp:[[@LINE+1]]:10: error: fluxion: cannot differentiate call to 'ext': its body is not visible and no custom derivative matches; define 'fluxion::custom::ext_vjp' or wrap the call in fluxion::stop_gradient
  return ext(x) * x;
}
// CHECK-NOT: error:
// CHECK: 1 error generated.
