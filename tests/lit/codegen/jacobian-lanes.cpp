// f_jacobian in reverse mode with at most 8 rows runs them in one reverse
// sweep (lanes): every adjoint gets one value per row, adjoint statements
// run in a loop over the lanes, pops and primal values once. A generated
// callee's backward function gets a lanes version too; a rule (sin_bwd) is
// called once per lane. More rows, or a callee whose body comes later, keep one reverse
// sweep per row over the rewound tape.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

#include <cmath>

static double wave(double a, double b) { return std::sin(a) * b; }

[[fluxion::jacobian]] void two(const double x[3], double y[2]) {
  y[0] = wave(x[0], x[1]);
  y[1] = x[2] * x[0];
}
// CHECK-LABEL: void two_jacobian(const double *x, double *y, double *J) {
// CHECK: two_bwd_restoring_lanes2(x, y, J + 0, (long)3, d_y, (long)2);
// CHECK-NOT: tape_rewind
// CHECK: }

// The caller's lanes sweep calls the callee's lanes version once.
// CHECK-LABEL: static void two_bwd_restoring_lanes2(
// CHECK: y[1] = _tape_double.pop();
// CHECK-NEXT: _l = 0;
// CHECK-NEXT: while (_l < 2) {
// CHECK-NEXT: d_x[(_l * ld_d_x) + 2] += d_y[(_l * ld_d_y) + 1] * *x;
// CHECK: wave_bwd_lanes2(*x, x[1], _r, _d_arg, (long)1, _d_arg_1, (long)1);

// The callee: its seed is one value per lane, the scalar adjoints arrays.
// CHECK-LABEL: static void wave_bwd_lanes2({{.*}}double a, double b, double *seed,
// CHECK-NEXT: {{^ +}}double *d_a, long ld_d_a, double *d_b,
// CHECK-NEXT: {{^ +}}long ld_d_b) {
// CHECK: double _d_a[2] = {};
// CHECK: _tape_double.pop_values(_res_sin, _sin);
// CHECK-NEXT: _l = 0;
// CHECK-NEXT: while (_l < 2) {
// CHECK: _d_sin[_l] += seed[_l] * b;
// CHECK: fluxion::custom::sin_bwd(0., _res_sin, _r[_l], &_d_a[_l]);
// CHECK: d_a[_l * ld_d_a] += _d_a[_l];

// 9 rows: one reverse sweep per row over the rewound tape.
[[fluxion::jacobian]] void nine(const double x[10], double y[9]) {
  for (int i = 0; i < 9; ++i)
    y[i] = x[i] * x[i + 1];
}
// CHECK-LABEL: void nine_jacobian(const double *x, double *y, double *J) {
// CHECK: fluxion::tape_rewind(tapes);
// CHECK: nine_bwd_restoring(x, y, J + ((k * 10) + 0), d_y);

// A callee defined after the Jacobian's function: whether its reverse
// sweep can run lanes is not known yet, so one sweep per row.
static double later(double a);
[[fluxion::jacobian]] void early(const double x[3], double y[2]) {
  y[0] = later(x[0]) * x[1];
  y[1] = x[2] * x[0];
}
static double later(double a) { return a * a; }
// CHECK-LABEL: void early_jacobian(const double *x, double *y, double *J) {
// CHECK: fluxion::tape_rewind(tapes);
