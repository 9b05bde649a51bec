// A label that no goto jumps to changes nothing in the control flow: it must
// be accepted.
// RUN: %clangxx %fluxion -fsyntax-only -Wno-unused-label %s 2>&1 | %FileCheck %s --allow-empty
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x) {
  double y = x;
here:
  y = y * x;
  return y;
}
// CHECK-NOT: error
