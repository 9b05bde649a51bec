// Burgers formulation (a): double buffering. Each step reads one buffer and
// writes the other, so no state is ever copied. The two buffers are the
// halves of one caller-provided allocation of 2 n values, picked by the
// step's parity. (Two separate buffers whose pointers are swapped after each
// step, `std::swap(cur, next)`, or picked by `t % 2 == 0 ? a : b`, are
// refused by the plugin today with a located error; see the Formulations
// section of bench/RESULTS.md.) Compiled with the Fluxion plugin.
#include "burgers_forms.hpp"

#include <fluxion/fluxion.hpp>

[[fluxion::grad("u0", "buf", "nu")]] double burgers_swap(const double *u0,
                                                         double *buf, int n,
                                                         int steps, double nu,
                                                         double dt, double dx) {
  for (int i = 0; i < n; ++i)
    buf[i] = u0[i];
  const double c = dt / (2 * dx);
  const double r = nu * dt / (dx * dx);
  for (int t = 0; t < steps; ++t) {
    const double *cur = buf + (t % 2) * n;
    double *next = buf + ((t + 1) % 2) * n;
    for (int i = 0; i < n; ++i) {
      const double ul = cur[(i + n - 1) % n];
      const double ur = cur[(i + 1) % n];
      next[i] = cur[i] - c * cur[i] * (ur - ul) + r * (ur - 2 * cur[i] + ul);
    }
  }
  const double *last = buf + (steps % 2) * n;
  double loss = 0;
  for (int i = 0; i < n; ++i)
    loss += 0.5 * last[i] * last[i];
  return loss;
}
