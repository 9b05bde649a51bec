// Burgers formulation (c): one array, updated in place. Each cell's new
// value needs the old values of both neighbours: the left one has already
// been overwritten, so it is kept in a scalar carried along the sweep, and
// the periodic wrap-around reads the first cell's old value, saved before
// the sweep. Compiled with the Fluxion plugin.
#include "burgers_forms.hpp"

#include <fluxion/fluxion.hpp>

[[fluxion::grad("u", "nu")]] double
burgers_inplace(double *u, int n, int steps, double nu, double dt, double dx) {
  const double c = dt / (2 * dx), r = nu * dt / (dx * dx);
  for (int t = 0; t < steps; ++t) {
    const double first = u[0];
    double left = u[n - 1]; // old value of the left neighbour
    for (int i = 0; i < n; ++i) {
      const double right = i + 1 < n ? u[i + 1] : first;
      const double old = u[i];
      u[i] = old - c * old * (right - left) + r * (right - 2 * old + left);
      left = old;
    }
  }
  double loss = 0;
  for (int i = n - 1; i >= 0; --i)
    loss += 0.5 * u[i] * u[i];
  return loss;
}
