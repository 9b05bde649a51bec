// Annotated templates are reported as not supported yet (the contract asks
// for derivative templates; this test pins the interim diagnostic).
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

template <class T>
// CHECK: template.cpp:[[@LINE+1]]:3: error: fluxion: 'fluxion::grad' on a template is not supported yet; annotate a non-template wrapper function
[[fluxion::grad]] T sq(T x) {
  return x * x;
}
double use(double v) { return sq(v) + sq(2.0f); }
// Reported once, not once per instantiation.
// CHECK-NOT: error:
// CHECK: 1 error generated.
