// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// CHECK: returns-int.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'f': it returns 'int'; a differentiated function returns a floating-point value or void
[[fluxion::grad]] int f(double x) {
  return (int)x;
}
// CHECK-NOT: error:
// CHECK: 1 error generated.
