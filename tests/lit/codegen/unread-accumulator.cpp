// A variable overwritten in a loop whose reverse sweep never reads it, and
// that nothing before the loop reads in reverse either, is not recorded:
// logsumexp's sum s is read back (by log's derivative) only after the loop,
// and so is the running maximum mx (its loop's reverse pops the branch
// taken instead of comparing again).
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

#include <cmath>

[[fluxion::grad("v")]] double logsumexp(int n, const double *v) {
  double mx = v[0];
  for (int i = 1; i < n; ++i)
    if (v[i] > mx)
      mx = v[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::exp(v[i] - mx);
  return std::log(s) + mx;
}
// CHECK-LABEL: double logsumexp_vjp(
// CHECK-NOT: push(mx)
// CHECK: {{^ +}}mx = v[i];
// CHECK-NEXT: // if (v[i] > mx)
// CHECK-NEXT: _tape_bool.push(true);
// CHECK-NOT: push(s)
// CHECK: s += _exp;
// CHECK-NOT: push(mx)
// CHECK-NOT: push(s)
// CHECK-LABEL: double logsumexp_grad(

// Elements a call fills in a loop, read only by later code, are not
// recorded either: the call's result goes straight to the element.
[[fluxion::grad("x")]] double filled(const double *x, int n) {
  double e[16];
  for (int i = 0; i < n; ++i)
    e[i] = std::exp(x[i]);
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += e[i] * e[(i + 1) % n];
  return s;
}
// CHECK-LABEL: double filled_vjp(
// CHECK-NOT: push(e[
// CHECK: e[i] = fluxion::custom::exp_fwd(x[i], _res_exp);
// CHECK-NEXT: _tape_double.push(_res_exp);
// CHECK-NOT: = _tape_double.pop();
// CHECK: _res_exp = _tape_double.pop();
// CHECK-NOT: e[i] = _tape_double.pop();
// CHECK-LABEL: double filled_grad(
