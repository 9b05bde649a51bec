// Hand-written adjoint of the scratch-array Burgers formulation
// (burgers_scratch.cpp). The only value the reverse sweep needs that the
// forward sweep destroys is the old u of each step, overwritten by the
// copy-back: it is saved there (n doubles per step). Nothing of tmp is
// saved: tmp is rewritten before it is read in every step. In reverse, the
// copy-back's adjoint moves d_u into tmp (free again), u is restored, and
// the stencil's adjoint gathers tmp back into d_u. u ends as it started.
#include "burgers_forms.hpp"

#include <vector>

namespace formulations {

double burgers_scratch_manual(double *u, double *tmp, int n, int steps,
                              double nu, double dt, double dx, double *d_u,
                              double *d_nu, std::size_t *bytes) {
  std::vector<double> old_u(static_cast<std::size_t>(steps) * n);
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
    double *saved = &old_u[static_cast<std::size_t>(t) * n];
    for (int i = 0; i < n; ++i) {
      saved[i] = u[i];
      u[i] = tmp[i];
    }
  }
  double loss = 0;
  for (int i = 0; i < n; ++i)
    loss += u[i] * u[i];

  // d(0.5 loss)/du = u, added to d_u's seed.
  for (int i = 0; i < n; ++i)
    d_u[i] += u[i];
  const double c = dt / (2 * dx), r = nu * dt / (dx * dx);
  double dr = 0;
  for (int t = steps - 1; t >= 0; --t) {
    const double *saved = &old_u[static_cast<std::size_t>(t) * n];
    for (int i = 0; i < n; ++i) {
      tmp[i] = d_u[i]; // u[i] = tmp[i]: the adjoint moves to tmp
      u[i] = saved[i];
    }
    for (int i = 0; i < n; ++i) {
      int left = i - 1, right = i + 1;
      if (left < 0)
        left += n;
      if (right == n)
        right = 0;
      dr += tmp[i] * (u[right] - 2 * u[i] + u[left]);
      d_u[i] = tmp[i] * (1 - c * (u[right] - u[left]) - 2 * r) +
               tmp[left] * (r - c * u[left]) + tmp[right] * (r + c * u[right]);
    }
  }
  *d_nu += dr * dt / (dx * dx);
  *bytes = old_u.size() * sizeof(double);
  return 0.5 * loss;
}

} // namespace formulations
