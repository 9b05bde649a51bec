// An unknown name in the parameter list is an error at that name.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// CHECK: unknown-param.cpp:[[@LINE+1]]:17: error: fluxion: 'nope' is not a parameter of 'f'
[[fluxion::grad("nope")]] double f(double x) {
  return x * x;
}

// CHECK: unknown-param.cpp:[[@LINE+1]]:22: error: fluxion: 'wq' is not a parameter of 'g'
[[fluxion::grad("x", "wq")]] double g(double x, double w) {
  return x * w;
}
// CHECK-NOT: error:
// CHECK: 2 errors generated.
