// Block-local scalars of a counted loop computed from the counter and from
// values the loop does not change (the periodic neighbours of a stencil)
// are computed again at the top of each reverse iteration instead of being
// recorded: only u is on the tape. The stencil's reverse iterations only
// accumulate into d_u, so they run forward (ReverseLoopOrder.cpp); in a
// recurrence the reverse runs back and recomputes right after the counter
// steps back.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad("u0")]] double step(const double *u0, int n, double c) {
  double u[16], un[16];
  for (int i = 0; i < n; ++i)
    u[i] = u0[i];
  for (int t = 0; t < 4; ++t) {
    for (int i = 0; i < n; ++i) {
      int im = i == 0 ? n - 1 : i - 1;
      int ip = i == n - 1 ? 0 : i + 1;
      un[i] = u[i] - c * u[i] * (u[ip] - u[im]);
    }
    for (int i = 0; i < n; ++i)
      u[i] = un[i];
  }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += u[i] * u[i];
  return s;
}
// CHECK-LABEL: double step_vjp(
// CHECK-NOT: _tape_int
// CHECK: im = (i_1 == 0 ? n - 1 : i_1 - 1);
// CHECK-NEXT: // int ip
// CHECK-NEXT: ip = (i_1 == (n - 1) ? 0 : i_1 + 1);
// CHECK-NEXT: // un[i] =
// CHECK-NEXT: un[i_1] =
// CHECK: _tape_double.push_range(&u[0], (long)n);
// CHECK: i_1 = 0;
// CHECK-NEXT: while (i_1 < n) {
// CHECK-NEXT: // int im
// CHECK-NEXT: im = (i_1 == 0 ? n - 1 : i_1 - 1);
// CHECK-NEXT: // int ip
// CHECK-NEXT: ip = (i_1 == (n - 1) ? 0 : i_1 + 1);
// CHECK-NOT: _tape_int
// CHECK-LABEL: double step_grad(

[[fluxion::grad("u0")]] double chain(const double *u0, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    int im = i == 0 ? n - 1 : i - 1;
    s = s * 0.5 + u0[i] * u0[im];
  }
  return s;
}
// CHECK-LABEL: double chain_vjp(
// CHECK-NOT: _tape_int
// CHECK: i = n;
// CHECK-NEXT: while (i > 0) {
// CHECK-NEXT: i = i - 1;
// CHECK-NEXT: // int im
// CHECK-NEXT: im = (i == 0 ? n - 1 : i - 1);
// CHECK-NOT: _tape_int
// CHECK-LABEL: double chain_grad(
