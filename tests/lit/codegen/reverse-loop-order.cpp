// A counted loop whose reverse iterations commute runs its reverse sweep
// forward, counting up like the primal: each iteration touches its own
// elements, accumulates into sums nothing in the loop reads, and calls only
// rules that write the body's own temporaries. Loops whose reverse
// iterations depend on each other keep running backwards: a scalar that
// outlives the iteration, an element read at one index and accumulated at
// another, a helper whose sweeps record on the tape.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

#include <cmath>

// CHECK-LABEL: double squares_vjp(
// CHECK: _d_s += seed;
// CHECK: {{^ *}}i = 0;
// CHECK-NEXT: while (i < n) {
// CHECK-NEXT: // s += x[i] * x[i];
// CHECK-NEXT: d_x[i] += _d_s * x[i];
// CHECK-NEXT: d_x[i] += x[i] * _d_s;
// CHECK: i = i + 1;
// CHECK-NEXT: }
[[fluxion::grad("x")]] double squares(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  return s;
}

// A rule's out parameter is the body's own temporary.
// CHECK-LABEL: double logs_vjp(
// CHECK: _d_s += seed;
// CHECK: {{^ *}}i = 0;
// CHECK-NEXT: while (i < n) {
// CHECK: fluxion::custom::log_vjp<double, 0>(x[i], _r, &_d_arg);
// CHECK-NEXT: d_x[i] += _d_arg;
// CHECK: i = i + 1;
[[fluxion::grad("x")]] double logs(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::log(x[i]) + x[i + 1];
  return s;
}

// d_y[i] is read and reset at the iteration's own index, d_x only
// accumulated into: both loops' reverses run forward.
// CHECK-LABEL: double neighbours_vjp(
// CHECK: _d_s += seed;
// CHECK: {{^ *}}i_1 = 1;
// CHECK-NEXT: while (i_1 < n) {
// CHECK: _d_y[i_1 - 1] += _d_s * x[i_1];
// CHECK: {{^ *}}i = 0;
// CHECK-NEXT: while (i < (n - 1)) {
// CHECK-NEXT: // y[i] = x[i] * x[i + 1];
// CHECK-NEXT: d_x[i] += _d_y[i] * x[i + 1];
// CHECK-NEXT: d_x[i + 1] += x[i] * _d_y[i];
// CHECK-NEXT: _d_y[i] = 0.;
[[fluxion::grad("x")]] double neighbours(const double *x, int n) {
  double y[16];
  for (int i = 0; i < n - 1; ++i)
    y[i] = x[i] * x[i + 1];
  double s = 0;
  for (int i = 1; i < n; ++i)
    s += y[i - 1] * x[i];
  return s;
}

// Only the last iteration's value reaches the result.
// CHECK-LABEL: double last_square_vjp(
// CHECK: {{^ *}}i = n;
// CHECK-NEXT: while (i > 0) {
// CHECK-NEXT: i = i - 1;
// CHECK: _d_last = 0.;
[[fluxion::grad("x")]] double last_square(const double *x, int n) {
  double last = 0;
  for (int i = 0; i < n; ++i)
    last = x[i] * x[i];
  return last;
}

// d_b[i] is read, d_b[i - 1] accumulated: the next iteration reads it.
// CHECK-LABEL: double prefix_vjp(
// CHECK: {{^ *}}i_1 = n;
// CHECK-NEXT: while (i_1 > 1) {
// CHECK-NEXT: i_1 = i_1 - 1;
// CHECK: _d_b[i_1 - 1] += 0.5 * _r;
[[fluxion::grad("x")]] double prefix(const double *x, int n) {
  double b[16];
  for (int i = 0; i < n; ++i)
    b[i] = x[i];
  for (int i = 1; i < n; ++i)
    b[i] += 0.5 * b[i - 1];
  return b[n - 1];
}

// helper_bwd pops what helper_fwd pushed, last call first.
// CHECK-LABEL: double calls_helper_vjp(
// CHECK: {{^ *}}i = n;
// CHECK-NEXT: while (i > 0) {
// CHECK-NEXT: i = i - 1;
// CHECK: helper_bwd(x[i], _r, &_d_arg);
static double helper(double v) {
  double r = 1;
  for (int k = 0; k < 3; ++k)
    r = r * v + std::sin(r);
  return r;
}
[[fluxion::grad("x")]] double calls_helper(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += helper(x[i]);
  return s;
}
