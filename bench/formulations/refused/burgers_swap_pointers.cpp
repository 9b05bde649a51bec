// Double buffering with two buffers whose pointers are swapped after each
// step: the formulation (a) of the time-stepping problem as it is most
// often written. Refused by the plugin today (run.sh records its
// diagnostics in bench/RESULTS.md); burgers_swap.cpp is the accepted form.
#include <fluxion/fluxion.hpp>

#include <utility>

[[fluxion::grad("u0", "a", "b", "nu")]] double
burgers_swap_pointers(const double *u0, double *a, double *b, int n, int steps,
                      double nu, double dt, double dx) {
  double *cur = a;
  double *next = b;
  for (int i = 0; i < n; ++i)
    cur[i] = u0[i];
  const double c = dt / (2 * dx);
  const double r = nu * dt / (dx * dx);
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      const double ul = cur[(i + n - 1) % n];
      const double ur = cur[(i + 1) % n];
      next[i] = cur[i] - c * cur[i] * (ur - ul) + r * (ur - 2 * cur[i] + ul);
    }
    std::swap(cur, next);
  }
  double loss = 0;
  for (int i = 0; i < n; ++i)
    loss += 0.5 * cur[i] * cur[i];
  return loss;
}
