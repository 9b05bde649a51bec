// Signatures of the generated reverse-mode functions (CONTRACT.md, "Reverse
// mode"): f_vjp(params..., R seed, d_ for each differentiable parameter),
// f_grad(params..., d_...) = f_vjp with seed 1; integers pass through with
// no derivative parameter; void functions have no seed.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double f(double x, double y) { return x * y; }
// CHECK-LABEL: double f_vjp(double x, double y, double seed, double *d_x, double *d_y) {
// CHECK-LABEL: double f_grad(double x, double y, double *d_x, double *d_y) {
// CHECK-NEXT: return f_vjp(x, y, 1{{\.?0*}}, d_x, d_y);

[[fluxion::grad]] float p(const float *x, float w, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i)
    s += w * x[i];
  return s;
}
// CHECK-LABEL: float p_vjp(const float *x, float w, int n, float seed, float *d_x,
// CHECK-NEXT: {{^ +}}float *d_w) {
// CHECK-LABEL: float p_grad(const float *x, float w, int n, float *d_x, float *d_w) {

// Only the listed parameters get a derivative parameter.
[[fluxion::grad("x")]] double r(double x, double w) { return w * x; }
// CHECK-LABEL: double r_vjp(double x, double w, double seed, double *d_x) {
// CHECK-LABEL: double r_grad(double x, double w, double *d_x) {

// void with an output array: the seed comes in through d_out.
[[fluxion::grad]] void v(const double *in, double *out, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = in[i] * in[i];
}
// CHECK-LABEL: void v_vjp(const double *in, double *out, int n, double *d_in, double *d_out) {
