// Source that does not parse: Clang's own errors, nothing from Fluxion (no
// derivative of an invalid body is attempted) and no crash.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not='error: fluxion' --implicit-check-not='PLEASE submit' --implicit-check-not='Stack dump'
// RUN: not %clangxx %fluxion -c %s -o /dev/null 2>&1 | %FileCheck %s --implicit-check-not='error: fluxion' --implicit-check-not='PLEASE submit' --implicit-check-not='Stack dump'
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x) {
  // CHECK: parse-error.cpp:[[@LINE+1]]:14: error: expected expression
  return x * ;
}

[[fluxion::grad]] double g(double x) {
  // CHECK: parse-error.cpp:[[@LINE+1]]:10: error: use of undeclared identifier 'undeclared'
  return undeclared(x);
}

double use() {
  double d = 0;
  return f_grad(1.0, &d) + g_grad(1.0, &d);
}

// A declarator that never closes swallows the rest of the file.
// CHECK: parse-error.cpp:[[@LINE+1]]:37: error: expected ')'
[[fluxion::grad]] double h(double x {
  return x;
}
// CHECK: errors generated.
