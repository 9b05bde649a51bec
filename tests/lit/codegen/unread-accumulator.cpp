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
