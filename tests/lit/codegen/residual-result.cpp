// exp, tanh and sqrt keep their result as residual, and their forward rules
// return it. Where the result goes to a variable that the reverse sweep
// reads anyway, the reverse sweep takes the residual from that variable
// instead of the tape keeping the same value twice. Where nothing else
// reads the result, the residual is kept as before. A user rule that
// returns something other than its residual on some path keeps it too.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

#include <cmath>

static double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// CHECK-LABEL: static double sigmoid_fwd(double x) {
// CHECK: _exp = fluxion::custom::exp_fwd(-x, _res_exp);
// CHECK-NEXT: _ret = 1. / (1. + _exp);
// CHECK-NEXT: _tape_double.push(_exp);
// CHECK-NEXT: return _ret;

// CHECK-LABEL: static void sigmoid_bwd(
// CHECK: _exp = _tape_double.pop();
// CHECK-NOT: _tape_double
// CHECK: _res_exp = _exp;
// CHECK-NEXT: double _r = _d_exp;
// CHECK: fluxion::custom::exp_bwd(0., _res_exp, _r, &_d_arg);

[[fluxion::grad]] double gates(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += sigmoid(x[i]) * x[i];
  return s;
}

// A loop variable overwritten by tanh: its old value is recorded, the
// residual is not.
// CHECK-LABEL: double recurrence_vjp(
// CHECK: _call = fluxion::custom::tanh_fwd((h * x[i]) + 0.5, _res_tanh);
// CHECK-NEXT: _tape_double.push(h);
// CHECK-NEXT: h = _call;
// CHECK-NOT: _res_tanh)
// CHECK: _res_tanh = h;
// CHECK-NEXT: h = _tape_double.pop();
// CHECK: fluxion::custom::tanh_bwd(0., _res_tanh, _r, &_d_arg);
[[fluxion::grad]] double recurrence(const double *x, int n) {
  double h = 0.1;
  for (int i = 0; i < n; ++i)
    h = std::tanh(h * x[i] + 0.5);
  return h;
}

// The sum reads no exp(x[i]) in reverse: the residual stays on the tape.
// CHECK-LABEL: double sum_exp_vjp(
// CHECK: _exp = fluxion::custom::exp_fwd(x[i], _res_exp);
// CHECK-NEXT: _tape_double.push(_res_exp);
// CHECK: _res_exp = _tape_double.pop();
[[fluxion::grad]] double sum_exp(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::exp(x[i]);
  return s;
}

double signed_sqrt(double x) { return x < 0 ? -std::sqrt(-x) : std::sqrt(x); }

namespace fluxion::custom {
inline double signed_sqrt_fwd(double x, double &r) {
  r = std::sqrt(std::fabs(x));
  if (x < 0)
    return -r;
  return r;
}
inline void signed_sqrt_bwd(double, const double &r, double seed,
                            double *d_x) {
  *d_x += seed / (2 * r);
}
} // namespace fluxion::custom

// CHECK-LABEL: double scaled_vjp(
// CHECK: _signed_sqrt = fluxion::custom::signed_sqrt_fwd(x, _res_signed_sqrt);
// CHECK-NOT: _res_signed_sqrt = _signed_sqrt
// CHECK: fluxion::custom::signed_sqrt_bwd(0., _res_signed_sqrt,
[[fluxion::grad]] double scaled(double x) { return x * signed_sqrt(x); }
