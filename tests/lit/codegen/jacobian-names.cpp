// A list of names in [[fluxion::jacobian]] picks the inputs, the columns
// (CONTRACT.md, "Jacobian"; like JAX's argnums): fixed-size output arrays
// are rows whether they are named or not, and the f_vjp or f_jvp that
// f_jacobian is built from receives their adjoints or tangents.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck --check-prefix=UNUSED %s
#include <fluxion/fluxion.hpp>

// 2 rows (err) x 15 columns (cam, X, w): one forward sweep, then one
// reverse sweep that runs both rows at once (lanes: lane k seeds row k
// through d_err, lane stride 2, and adds the adjoints of the inputs straight
// into row k of J, lane stride 15); feat gets no adjoint. err ends with the
// values f computed.
[[fluxion::jacobian("cam", "X", "w")]] void
reproj(const double cam[11], const double X[3], double w, const double feat[2],
       double err[2]) {
  err[0] = w * (cam[0] * X[0] + cam[10] - feat[0]);
  err[1] = w * (cam[1] * X[1] * X[2] - feat[1]);
}
// CHECK-LABEL: void reproj_jacobian(const double *cam, const double *X, double w,
// CHECK-NEXT: {{^ +}}const double *feat, double *err, double *J) {
// CHECK: double d_err[4] = {};
// CHECK: reproj_fwd_cam_X_w_err_restoring(cam, X, w, feat, err);
// CHECK: end_err[i] = err[i];
// CHECK: while (k < 2) {
// CHECK: J[(k * 15) + i] = 0.;
// CHECK: d_err[(k * 2) + i] = (k == i ? 1. : 0.);
// CHECK: reproj_bwd_cam_X_w_err_restoring_lanes2(cam, X, w, feat, err, J + 0, (long)15,
// CHECK-NEXT: J + 11, (long)15, J + 14, (long)15,
// CHECK-NEXT: d_err, (long)2);
// CHECK: err[i] = end_err[i];
// The lanes rows run the split pair: reproj_vjp, which nothing calls, is not
// generated (the contract lists f_jacobian only). Neither is named_vjp.
// UNUSED-NOT: reproj_vjp
// UNUSED-NOT: named_vjp

// Naming the output changes nothing: it is not a column.
[[fluxion::jacobian("cam", "X", "w", "err")]] void
named(const double cam[11], const double X[3], double w, const double feat[2],
      double err[2]) {
  err[0] = w * (cam[0] * X[0] + cam[10] - feat[0]);
  err[1] = w * (cam[1] * X[1] * X[2] - feat[1]);
}
// CHECK-LABEL: void named_jacobian(const double *cam, const double *X, double w,
// CHECK-NEXT: {{^ +}}const double *feat, double *err, double *J) {
// CHECK: named_bwd_cam_X_w_err_restoring_lanes2(cam, X, w, feat, err, J + 0, (long)15,

// 1 + 2 rows (result, out) x 1 column (x): one f_jvp, whose t_out gives the
// rows of out; y gets no tangent.
[[fluxion::jacobian("x")]] double g(double x, double y, double out[2]) {
  out[0] = x * y;
  out[1] = x * x;
  return x * y * y;
}
// CHECK-LABEL: void g_jacobian(double x, double y, double *out, double *J) {
// CHECK: t_ret = g_jvp(x, y, out, t_x, t_out);
// CHECK: J[(0 * 1) + k] = t_ret;
// CHECK: J[((1 + i) * 1) + k] = t_out[i];
// CHECK-LABEL: double g_jvp(double x, double y, double *out, double t_x, double *t_out) {
// CHECK-NOT: nullptr
// CHECK: return _t_ret;

// A pointer of unknown length is not a row: left out of the list, it stays
// out of the derivatives (it receives no differentiated values here). Its
// contents cannot be put back between rows, so each row is an f_vjp, and f
// runs once more at the end for the values of its outputs.
[[fluxion::jacobian("x")]] void scratch(const double x[2], double *work,
                                        double y[1]) {
  work[0] = 1;
  y[0] = x[0] * x[1] * work[0];
}
// CHECK-LABEL: void scratch_jacobian(const double *x, double *work, double *y, double *J) {
// CHECK: scratch_vjp(x, work, y, J + ((k * 2) + 0), d_y);
// CHECK: scratch(x, work, y);
// CHECK-LABEL: void scratch_vjp(const double *x, double *work, double *y, double *d_x,
// CHECK-NEXT: {{^ +}}double *d_y) {

// The sweep of a Jacobian that the code calls is generated, even when the
// Jacobian itself does not need it.
[[fluxion::jacobian]] void pair(const double x[3], double y[2]) {
  y[0] = x[0] * x[1];
  y[1] = x[0] + x[2];
}
void callsPairVjp(const double *x, double *y, double *dx, double *dy);
void callsPairVjp(const double *x, double *y, double *dx, double *dy) {
  pair_vjp(x, y, dx, dy);
}
// CHECK-LABEL: void pair_jacobian(const double *x, double *y, double *J) {
// CHECK: pair_bwd_restoring_lanes2(
// CHECK-LABEL: void pair_vjp(const double *x, double *y, double *d_x, double *d_y) {
