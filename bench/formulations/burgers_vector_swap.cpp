// Burgers formulation (f): the state in std::vectors, the neighbours'
// indices wrapped with %, and the new state handed back by swapping the
// vectors (`u.swap(next)`, the idiomatic O(1) hand-back). Compiled with the
// Fluxion plugin. (std::swap(u, next) is the same to the plugin; the
// numeric tests cover both spellings.)
#include "burgers_forms.hpp"

#include <fluxion/fluxion.hpp>

#include <vector>

[[fluxion::grad("u0", "nu")]] double
burgers_vector_swap(const std::vector<double> &u0, int steps, double nu,
                    double dt, double dx) {
  const int n = static_cast<int>(u0.size());
  std::vector<double> u = u0;
  std::vector<double> next(u0.size());
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      const int l = (i + n - 1) % n, r = (i + 1) % n;
      next[i] = u[i] + dt * (nu * (u[r] - 2 * u[i] + u[l]) / (dx * dx) -
                             u[i] * (u[r] - u[l]) / (2 * dx));
    }
    u.swap(next);
  }
  double loss = 0;
  for (double v : u)
    loss += 0.5 * v * v;
  return loss;
}
