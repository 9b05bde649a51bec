// Burgers formulation (d): one time step is a function from the old state
// to the new one, `step(const double *u, double *un, ...)`, called on two
// buffers in turn: even steps go from u to w, odd steps from w back to u.
// Compiled with the Fluxion plugin.
#include "burgers_forms.hpp"

#include <fluxion/fluxion.hpp>

namespace {

// One explicit Euler step of u_t + u u_x = nu u_xx on a periodic grid.
void step(const double *u, double *un, int n, double c, double r) {
  un[0] =
      u[0] - c * u[0] * (u[1] - u[n - 1]) + r * (u[1] - 2 * u[0] + u[n - 1]);
  for (int i = 1; i < n - 1; ++i)
    un[i] = u[i] - c * u[i] * (u[i + 1] - u[i - 1]) +
            r * (u[i + 1] - 2 * u[i] + u[i - 1]);
  un[n - 1] = u[n - 1] - c * u[n - 1] * (u[0] - u[n - 2]) +
              r * (u[0] - 2 * u[n - 1] + u[n - 2]);
}

double energy(const double *u, int n) {
  double e = 0;
  for (int i = 0; i < n; ++i)
    e += u[i] * u[i];
  return 0.5 * e;
}

} // namespace

[[fluxion::grad("u", "w", "nu")]] double burgers_callee(double *u, double *w,
                                                        int n, int steps,
                                                        double nu, double dt,
                                                        double dx) {
  const double c = dt / (2 * dx), r = nu * dt / (dx * dx);
  for (int t = 0; t < steps; ++t) {
    if (t % 2 == 0)
      step(u, w, n, c, r);
    else
      step(w, u, n, c, r);
  }
  if (steps % 2 == 0)
    return energy(u, n);
  return energy(w, n);
}
