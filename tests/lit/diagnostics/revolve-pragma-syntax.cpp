// The pragma's own syntax errors come from the preprocessor, at the token
// that is wrong, and show the expected form.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

double f(double *u, int n, int steps) {
// CHECK: revolve-pragma-syntax.cpp:[[@LINE+1]]:25: error: fluxion: expected '(' and a snapshot count; the syntax is '#pragma fluxion revolve(snapshots) [state(pointer, length)]...'
#pragma fluxion revolve 4
  for (int t = 0; t < steps; ++t)
    u[0] = u[0] * u[1];
// CHECK: revolve-pragma-syntax.cpp:[[@LINE+1]]:35: error: fluxion: a state clause is 'state(pointer, length)'
#pragma fluxion revolve(4) state(u)
  for (int t = 0; t < steps; ++t)
    u[0] = u[0] * u[1];
// CHECK: revolve-pragma-syntax.cpp:[[@LINE+1]]:17: error: fluxion: expected 'revolve' after '#pragma fluxion'
#pragma fluxion unroll(4)
  for (int t = 0; t < steps; ++t)
    u[0] = u[0] * u[1];
  return u[0];
}
// CHECK-NOT: error:
// CHECK: 3 errors generated.
