// A local array updated in place and then read only by a callee through a
// const pointer of known extent (sumsq reads v[0..n)) is not recorded at
// its writes: the n values the callee reads are saved once after the call
// and given back before its backward function. The `for` counters are run
// backwards from their bounds instead of being recorded with their trip
// counts; the triangular update's reverse, which only accumulates, runs
// forward. xc, read by y's updates, is still recorded, but once per pass
// as the range its loop writes (HoistedRecords.cpp), restored after that
// loop's reverse, which then runs forward too.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

static double sumsq(int n, const double *v) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * v[i];
  return s;
}

[[fluxion::grad("x", "l")]] double f(int d, const double *x, const double *l) {
  double xc[8];
  double y[8];
  double total = 0;
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < d; ++i) {
      xc[i] = x[i] - k;
      y[i] = xc[i];
    }
    for (int i = 0; i < d; ++i)
      for (int j = i + 1; j < d; ++j)
        y[j] += l[i * d + j] * xc[i];
    total += sumsq(d, y);
  }
  return total;
}
// CHECK-LABEL: double f_vjp(
// CHECK-NOT: push(y[
// CHECK-NOT: _tape_unsigned_long
// CHECK-NOT: _tape_int
// CHECK: _tape_double.push_range(&xc[0], (long)d);
// CHECK-NOT: push(y[
// CHECK: _sumsq = sumsq_fwd(d, y);
// CHECK-NEXT: _tape_double.push_range(y, d);
// The reverse sweep: counters run back from their bounds.
// CHECK: k = 3;
// CHECK-NEXT: while (k > 0) {
// CHECK-NEXT: k = k - 1;
// CHECK: _tape_double.pop_range(y, d);
// CHECK: sumsq_bwd(d, y, {{.*}});
// CHECK: i_1 = 0;
// CHECK-NEXT: while (i_1 < d) {
// CHECK: j = i_1 + 1;
// CHECK-NEXT: while (j < d) {
// CHECK: {{^ *}}i = 0;
// CHECK-NEXT: while (i < d) {
// CHECK-NOT: y[{{.*}}] = {{.*}}pop()
// CHECK: _tape_double.pop_range(&xc[0], (long)d);
// CHECK-LABEL: double f_grad(
