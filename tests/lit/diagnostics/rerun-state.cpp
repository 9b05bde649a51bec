// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// f_jacobian's columns and f_hessian's columns run the function once each:
// state it reads and changes would differ between them, so it is refused.
// CHECK: rerun-state.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'counted': f_hessian runs it once per column, and it changes what parameter 'calls' refers to and reads it
[[fluxion::hessian]] double counted(double a, double b, int *calls) {
  ++*calls;
  return *calls > 1 ? a * a * b : a * b * b;
}


struct Counter {
  double bias;
  // CHECK: rerun-state.cpp:[[@LINE+1]]:5: error: fluxion: cannot generate derivatives of 'forward': f_jacobian runs it once per column, and it changes members of its object that it reads, which each run would find changed by the one before; keep that state out of the function (pass it as a const input and return or write its new value), or call f_jvp, f_vjp or f_hvp yourself, restoring the state between calls
  [[fluxion::jacobian]] void forward(const double x[2], double out[3]) {
    bias += 0.1;
    for (int i = 0; i < 3; ++i)
      out[i] = bias * (x[0] + x[1]);
  }
};

// Written but never read (a cache of the last input): no run sees another's.
struct Cache {
  int sign;
  // CHECK-NOT: derivatives of 'energy'
  [[fluxion::hessian]] double energy(double a, double b) {
    sign = a > 0 ? 1 : -1;
    return a * a * b;
  }
};
