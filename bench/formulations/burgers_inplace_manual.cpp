// Hand-written adjoint of the in-place Burgers formulation
// (burgers_inplace.cpp). The forward sweep saves each step's old state (n
// doubles per step) before updating in place. The reverse sweep is in place
// too: cells are visited from the last to the first, each cell's adjoint
// turned from that of its new value into that of its old value, with the
// old left neighbour's share carried in a scalar (as the forward sweep
// carries its value) and the first cell's share, which the wrap-around
// reads, kept apart until the end of the sweep.
#include "burgers_forms.hpp"

#include <vector>

namespace formulations {

double burgers_inplace_manual(double *u, int n, int steps, double nu, double dt,
                              double dx, double *d_u, double *d_nu,
                              std::size_t *bytes) {
  const double c = dt / (2 * dx), r = nu * dt / (dx * dx);
  std::vector<double> old_u(static_cast<std::size_t>(steps) * n);
  for (int t = 0; t < steps; ++t) {
    double *saved = &old_u[static_cast<std::size_t>(t) * n];
    for (int i = 0; i < n; ++i)
      saved[i] = u[i];
    const double first = u[0];
    double left = u[n - 1];
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

  for (int i = 0; i < n; ++i)
    d_u[i] += u[i];
  double dr = 0;
  for (int t = steps - 1; t >= 0; --t) {
    const double *old = &old_u[static_cast<std::size_t>(t) * n];
    double d_first = 0; // share of the old u[0], read as the last cell's right
    double d_left = 0;  // share of the old u[i], read as cell i + 1's left
    for (int i = n - 1; i >= 0; --i) {
      const double ui = old[i];
      const double left = old[i == 0 ? n - 1 : i - 1];
      const double right = old[i + 1 < n ? i + 1 : 0];
      const double a = d_u[i];
      dr += a * (right - 2 * ui + left);
      if (i + 1 < n)
        d_u[i + 1] += a * (r - c * ui);
      else
        d_first += a * (r - c * ui);
      d_u[i] = a * (1 - c * (right - left) - 2 * r) + d_left;
      d_left = a * (c * ui + r);
    }
    d_u[n - 1] += d_left; // cell 0's left was the old u[n - 1]
    d_u[0] += d_first;
  }
  for (int i = 0; i < n; ++i)
    u[i] = old_u[i]; // leave u as it came
  *d_nu += dr * dt / (dx * dx);
  *bytes = old_u.size() * sizeof(double);
  return loss;
}

} // namespace formulations
