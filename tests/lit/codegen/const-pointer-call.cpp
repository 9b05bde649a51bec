// A local array passed to a callee's `const T *` parameter cannot change in
// the call: it is not saved before it and restored after its adjoint. As the
// array is overwritten later and the callee's adjoint reads it, the part the
// callee reads (n values) is saved after the call instead. Passed to a `T *`
// parameter, the array is restored by the callee's own pair (_restoring),
// which records only the elements it writes; the pair that does not restore
// is not generated.
// RUN: %clangxx %fluxion -Xclang -plugin-arg-fluxion -Xclang dump -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

static double sqnorm(int n, const double *v) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * v[i];
  return s;
}

static void scale(int n, double *v) {
  for (int i = 0; i < n; ++i)
    v[i] = v[i] * v[i];
}

[[fluxion::grad]] double readOnly(const double *x, int n) {
  double buf[8];
  double total = 0;
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < n; ++i)
      buf[i] = x[i] * (k + 1);
    total += sqnorm(n, buf);
  }
  return total;
}
// CHECK-LABEL: double readOnly_vjp(
// CHECK-NOT: push_array
// CHECK: sqnorm_fwd(n, buf)
// CHECK-NEXT: _tape_double.push_range(buf, n);
// CHECK-NOT: pop_array
// CHECK: _tape_double.pop_range(buf, n);
// CHECK-NOT: pop_array
// CHECK: sqnorm_bwd(n, buf,
// CHECK-NOT: pop_array
// CHECK: {{^}}}

[[fluxion::grad]] double writes(const double *x, int n) {
  double buf[8];
  double total = 0;
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < n; ++i)
      buf[i] = x[i] * (k + 1);
    scale(n, buf);
    total += buf[0];
  }
  return total;
}
// CHECK-LABEL: double writes_vjp(
// CHECK-NOT: push_array
// CHECK: scale_fwd_restoring(n, buf);
// CHECK-NOT: pop_array
// CHECK: scale_bwd_restoring(n, buf, _d_buf);
// CHECK-NOT: pop_array
// CHECK-NOT: scale_fwd(
// CHECK: static void scale_fwd_restoring(
// CHECK-NOT: scale_fwd(
