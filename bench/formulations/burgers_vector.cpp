// Burgers formulation (e): the state in std::vectors, the grid size taken
// from the initial condition, periodic neighbours through a small lambda,
// and the new state handed back with std::copy. Compiled with the Fluxion
// plugin.
#include "burgers_forms.hpp"

#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <vector>

[[fluxion::grad("u0", "nu")]] double
burgers_vector(const std::vector<double> &u0, int steps, double nu, double dt,
               double dx) {
  const int n = static_cast<int>(u0.size());
  std::vector<double> u = u0;
  std::vector<double> next(u0.size());
  auto wrap = [n](int i) { return (i + n) % n; };
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      const double ux = (u[wrap(i + 1)] - u[wrap(i - 1)]) / (2 * dx);
      const double uxx =
          (u[wrap(i + 1)] - 2 * u[i] + u[wrap(i - 1)]) / (dx * dx);
      next[i] = u[i] + dt * (nu * uxx - u[i] * ux);
    }
    std::copy(next.begin(), next.end(), u.begin());
  }
  double loss = 0;
  for (double v : u)
    loss += 0.5 * v * v;
  return loss;
}
