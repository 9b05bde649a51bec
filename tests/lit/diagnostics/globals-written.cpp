// Differentiated code may write counters and flags (integer, bool and enum
// globals); a global of real numbers stays a located error whose advice
// compiles (-DADVICE). Derivative code made before a write to a counter was
// known, which reads the counter as a constant, is a located error at the
// write, and its advice (define the writer first) compiles too.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
// RUN: %clangxx %fluxion -fsyntax-only -DADVICE %s
#include <fluxion/fluxion.hpp>

double last = 0;
int calls = 0;
int iter = 0;

#ifndef ADVICE
[[fluxion::grad]] double f(double x) {
  ++calls;
  // CHECK: globals-written.cpp:[[@LINE+1]]:3: error: fluxion: writing the global variable 'last' is not supported in a differentiated function; keep the value in a local variable, or pass the memory as an output parameter
  last = x * x;
  return x * last;
}

double g(double x) { return x * x * iter; }
[[fluxion::grad]] double h(double x) { return g(x); }
// CHECK: globals-written.cpp:[[@LINE+1]]:59: error: fluxion: writing 'iter' while the derivatives of 'g' (generated earlier) read it as a constant is not supported in a differentiated function; define this function before the annotated functions that call 'g'
[[fluxion::grad]] double k(double x) { double y = g(x); ++iter; return y * iter; }

// CHECK: globals-written.cpp:[[@LINE+1]]:66: error: fluxion: writing the global 'calls' in a checkpointed function (its writes are undone when it is recomputed) is not supported in a differentiated function; count or flag in its caller
[[fluxion::checkpoint]] void relax(double *o, const double *x) { ++calls; o[0] *= x[0]; }
[[fluxion::grad]] double r(const double *x) {
  double o[1] = {1.0};
  relax(o, x);
  return o[0];
}
#else
[[fluxion::grad]] double f(double x, double *out) {
  ++calls;
  double local = x * x;
  out[0] = local;
  return x * local;
}

double g(double x) { return x * x * iter; }
[[fluxion::grad]] double k(double x) { double y = g(x); ++iter; return y * iter; }
[[fluxion::grad]] double h(double x) { return g(x); }

[[fluxion::checkpoint]] void relax(double *o, const double *x) { o[0] *= x[0]; }
[[fluxion::grad]] double r(const double *x) {
  double o[1] = {1.0};
  ++calls;
  relax(o, x);
  return o[0];
}
#endif
// CHECK-NOT: error:
