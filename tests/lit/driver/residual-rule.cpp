// The residual form of a custom derivative (JAX's custom_vjp): the forward
// part keeps exp(x) for the backward part; inside a loop the residuals go on
// the tape. No warnings with -Wall -Wextra -Werror.
// RUN: %clangxx %fluxion -O1 -Wall -Wextra -Werror %s -o %t.exe
// RUN: %t.exe | %FileCheck %s
// RUN: %clangxx %fluxion -fplugin-arg-fluxion-dump -fsyntax-only %s 2>&1 | %FileCheck %s --check-prefix=CODE
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>

double softplus(double x) { return std::log1p(std::exp(x)); }

namespace fluxion::custom {
struct SoftplusResiduals {
  double e;
};
double softplus_fwd(double x, SoftplusResiduals &res) {
  res.e = std::exp(x);
  return std::log1p(res.e);
}
void softplus_bwd(double, const SoftplusResiduals &res, double seed,
                  double *d_x) {
  *d_x += seed * res.e / (1 + res.e);
}
} // namespace fluxion::custom

[[fluxion::grad]] double sum_softplus(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += softplus(x[i]) * x[i];
  return s;
}

// CODE-LABEL: double sum_softplus_vjp(
// CODE: = fluxion::custom::softplus_fwd(x[i], _res_softplus);
// CODE: _tape_SoftplusResiduals.push(_res_softplus);
// CODE: _res_softplus = _tape_SoftplusResiduals.pop();
// CODE: fluxion::custom::softplus_bwd(0., _res_softplus, _r, &_d_arg);

int main() {
  double x[3] = {0.5, -1, 2}, dx[3] = {0, 0, 0};
  sum_softplus_grad(x, 3, dx);
  for (int i = 0; i < 3; ++i) {
    double e = std::exp(x[i]);
    double want = e / (1 + e) * x[i] + std::log1p(e);
    // CHECK-COUNT-3: ok
    std::printf("%s\n", std::fabs(dx[i] - want) < 1e-12 ? "ok" : "wrong");
  }
}
