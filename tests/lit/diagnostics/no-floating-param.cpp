// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// CHECK: no-floating-param.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'f': it has no floating-point parameter to differentiate with respect to
[[fluxion::grad]] double f(int n, bool b) {
  return b ? n * 2.0 : 1.0;
}
// CHECK-NOT: error:
// CHECK: 1 error generated.
