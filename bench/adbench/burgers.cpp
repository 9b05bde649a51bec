// Viscous Burgers, explicit time stepping, written the way a C++ user writes
// it: a local array for the state and one for the next step, sized for the
// largest grid. Compiled with the Fluxion plugin.
#include "burgers.hpp"

#include <fluxion/fluxion.hpp>

using adbench::BurgersMaxN;

[[fluxion::grad("u0", "nu")]] double burgers_loss(const double *u0, int n,
                                                  int steps, double nu,
                                                  double dt, double dx) {
  double u[BurgersMaxN], un[BurgersMaxN];
  for (int i = 0; i < n; ++i)
    u[i] = u0[i];
  const double c = dt / (2 * dx), r = nu * dt / (dx * dx);
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      int im = i == 0 ? n - 1 : i - 1; // periodic neighbours
      int ip = i == n - 1 ? 0 : i + 1;
      un[i] =
          u[i] - c * u[i] * (u[ip] - u[im]) + r * (u[ip] - 2 * u[i] + u[im]);
    }
    for (int i = 0; i < n; ++i)
      u[i] = un[i];
  }
  double loss = 0;
  for (int i = 0; i < n; ++i)
    loss += 0.5 * u[i] * u[i];
  return loss;
}
