// The missing derivative is inside a function that is differentiated only
// because an annotated function calls it: the error is at the call inside
// the callee, reported once although the callee is called twice, and a note
// points at the call that made it differentiated.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

double ext(double);

double mid(double v) {
  // CHECK: no-body-in-callee.cpp:[[@LINE+1]]:10: error: fluxion: cannot differentiate call to 'ext'
  return ext(v) + v;
}
[[fluxion::grad]] double g(double x) {
  // CHECK: no-body-in-callee.cpp:[[@LINE+1]]:10: note: 'mid' is differentiated because it is called here
  return mid(x) + mid(2 * x);
}
// CHECK-NOT: error:
// CHECK: 1 error generated.
