// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// CHECK: non-string-arg.cpp:[[@LINE+1]]:17: error: fluxion: the arguments of 'fluxion::grad' must be string literals naming parameters, e.g. {{\[\[}}fluxion::grad("x", "w")]]
[[fluxion::grad(42)]] double f(double x) {
  return x * x;
}

constexpr const char *name = "x";
// CHECK: non-string-arg.cpp:[[@LINE+1]]:22: error: fluxion: the arguments of 'fluxion::grad' must be string literals
[[fluxion::grad("x", name)]] double g(double x) {
  return x * x;
}
// CHECK-NOT: error:
// CHECK: 2 errors generated.
