// Differentiating a function from a header the user does not own: an
// annotated redeclaration in the user's file generates its derivatives
// (CONTRACT.md, "Differentiating what you cannot annotate"). The header is
// a system header (-isystem), its functions inline, in a namespace, not
// annotated. The derivatives are checked against finite differences; the
// annotation draws no warning. tool/redeclaration.cpp builds this file with
// fluxion-gen + g++.
// RUN: %clangxx %fluxion -O1 -Wall -Wextra -Werror -isystem %S/Inputs/isystem %s -o %t.exe
// RUN: %t.exe | %FileCheck %s --implicit-check-not=FAILED
#include <vendor/kinematics.h>

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cstdio>
#include <iostream>

// The redeclarations leave the parameters unnamed, as is usual: they take
// the definition's names, which the annotation may use.
[[fluxion::grad]] [[fluxion::jvp]] double vendor::drag(double, double);
[[fluxion::grad("x")]] double vendor::energy(const double *, int, double);

static void report(const char *What, const fluxion::check_report &R) {
  std::printf("%s: %s\n", What, R.ok() ? "ok" : "FAILED");
  if (!R.ok())
    std::cout << R;
}

int main() {
  for (double v : {-1.3, 0.4, 2.5}) {
    report("drag grad",
           fluxion::check_gradient(vendor::drag, vendor::drag_grad, v, 0.8));
    report("drag jvp",
           fluxion::check_jvp(vendor::drag, vendor::drag_jvp, v, 0.8));
  }
  // CHECK-COUNT-3: drag grad: ok
  double x[4] = {0.5, -1.25, 2, 0.1};
  report("energy grad", fluxion::check_gradient(
                            vendor::energy, vendor::energy_grad,
                            fluxion::span(x, 4), 4, fluxion::constant(1.5)));
  // CHECK: energy grad: ok
}
