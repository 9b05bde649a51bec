// Double buffering with two buffers picked by the step's parity through
// pointers chosen with `?:`. Refused by the plugin today (run.sh records
// its diagnostics in bench/RESULTS.md); burgers_swap.cpp is the accepted
// form.
#include <fluxion/fluxion.hpp>

[[fluxion::grad("u0", "a", "b", "nu")]] double
burgers_swap_choose(const double *u0, double *a, double *b, int n, int steps,
                    double nu, double dt, double dx) {
  for (int i = 0; i < n; ++i)
    a[i] = u0[i];
  const double c = dt / (2 * dx);
  const double r = nu * dt / (dx * dx);
  for (int t = 0; t < steps; ++t) {
    const double *cur = t % 2 == 0 ? a : b;
    double *next = t % 2 == 0 ? b : a;
    for (int i = 0; i < n; ++i) {
      const double ul = cur[(i + n - 1) % n];
      const double ur = cur[(i + 1) % n];
      next[i] = cur[i] - c * cur[i] * (ur - ul) + r * (ur - 2 * cur[i] + ul);
    }
  }
  const double *last = steps % 2 == 0 ? a : b;
  double loss = 0;
  for (int i = 0; i < n; ++i)
    loss += 0.5 * last[i] * last[i];
  return loss;
}
