// Burgers formulation (b): compute into a scratch array, then copy back.
// The state u is updated in place (it holds u(0) on entry and u(T) on
// exit); tmp is the caller's scratch space. Compiled with the Fluxion
// plugin.
#include "burgers_forms.hpp"

#include <fluxion/fluxion.hpp>

[[fluxion::grad("u", "tmp", "nu")]] double
burgers_scratch(double *u, double *tmp, int n, int steps, double nu, double dt,
                double dx) {
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      int left = i - 1, right = i + 1;
      if (left < 0)
        left += n;
      if (right == n)
        right = 0;
      double adv = u[i] * (u[right] - u[left]) / (2 * dx);
      double diff = nu * (u[right] - 2 * u[i] + u[left]) / (dx * dx);
      tmp[i] = u[i] + dt * (diff - adv);
    }
    for (int i = 0; i < n; ++i)
      u[i] = tmp[i];
  }
  double loss = 0;
  for (int i = 0; i < n; ++i)
    loss += u[i] * u[i];
  return 0.5 * loss;
}
