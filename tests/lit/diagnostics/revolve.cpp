// Loops under '#pragma fluxion revolve' that binomial checkpointing cannot
// schedule: each is a located error that says what to change.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double notLoop(double *u, int n) {
// CHECK: revolve.cpp:[[@LINE+1]]:17: error: fluxion: '#pragma fluxion revolve' must be followed by a for loop
#pragma fluxion revolve(4) state(u, n)
  u[0] = u[0] * u[1];
  return u[0];
}
// CHECK: note: while differentiating 'notLoop'

[[fluxion::grad]] double breaks(double *u, int n, int steps) {
#pragma fluxion revolve(4) state(u, n)
  for (int t = 0; t < steps; ++t) {
    if (u[0] > 10)
      // CHECK: revolve.cpp:[[@LINE+1]]:7: error: fluxion: binomial checkpointing needs a counted loop {{.*}}: the body leaves the loop early
      break;
    u[0] = u[0] * u[1];
  }
  return u[0];
}

[[fluxion::grad]] double writesCounter(double *u, int n, int steps) {
// CHECK: revolve.cpp:[[@LINE+1]]:17: error: fluxion: binomial checkpointing needs a counted loop {{.*}}: the body writes the counter or the bound
#pragma fluxion revolve(4) state(u, n)
  for (int t = 0; t < steps; ++t) {
    u[0] = u[0] * u[1];
    steps = steps - 1;
  }
  return u[0];
}

[[fluxion::grad]] double noExtent(double *u, int n, int steps) {
// CHECK: revolve.cpp:[[@LINE+1]]:17: error: fluxion: the loop writes through pointer 'u', whose length is unknown; name it in the pragma: '#pragma fluxion revolve(snapshots) state(u, length)'
#pragma fluxion revolve(4)
  for (int t = 0; t < steps; ++t)
    u[0] = u[0] * u[1];
  return u[0];
}

[[fluxion::grad]] double badCount(double *u, int n, int steps) {
// CHECK: revolve.cpp:[[@LINE+1]]:25: error: fluxion: malformed '#pragma fluxion revolve': the snapshot count must be an integer
#pragma fluxion revolve(u) state(u, n)
  for (int t = 0; t < steps; ++t)
    u[0] = u[0] * u[1];
  return u[0];
}
// CHECK-NOT: error:
// CHECK: 5 errors generated.
