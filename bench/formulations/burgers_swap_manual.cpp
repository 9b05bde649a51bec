// Hand-written adjoint of the double-buffered Burgers formulation
// (burgers_swap.cpp). The forward sweep runs the same loop over the two
// halves of buf and copies each step's input state into a trajectory (n
// doubles per step); the reverse sweep alternates between the two halves of
// an adjoint buffer the same way.
#include "burgers_forms.hpp"

#include <vector>

namespace formulations {

double burgers_swap_manual(const double *u0, double *buf, int n, int steps,
                           double nu, double dt, double dx, double *d_u0,
                           double *d_nu, std::size_t *bytes) {
  const double c = dt / (2 * dx);
  const double r = nu * dt / (dx * dx);
  std::vector<double> traj(static_cast<std::size_t>(steps) * n);
  for (int i = 0; i < n; ++i)
    buf[i] = u0[i];
  for (int t = 0; t < steps; ++t) {
    const double *cur = buf + (t % 2) * n;
    double *next = buf + ((t + 1) % 2) * n;
    double *saved = &traj[static_cast<std::size_t>(t) * n];
    for (int i = 0; i < n; ++i)
      saved[i] = cur[i];
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

  // Reverse: the half of `adj` at the parity of t + 1 holds the adjoint of
  // the state after step t; the other half receives that of its input.
  std::vector<double> adj(2 * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    adj[(steps % 2) * n + i] = last[i];
  double dr = 0;
  for (int t = steps - 1; t >= 0; --t) {
    const double *u = &traj[static_cast<std::size_t>(t) * n];
    const double *a = &adj[((t + 1) % 2) * n];
    double *b = &adj[(t % 2) * n];
    for (int i = 0; i < n; ++i) {
      const int im = (i + n - 1) % n, ip = (i + 1) % n;
      dr += a[i] * (u[ip] - 2 * u[i] + u[im]);
      b[i] = a[i] * (1 - c * (u[ip] - u[im]) - 2 * r) +
             a[im] * (r - c * u[im]) + a[ip] * (r + c * u[ip]);
    }
  }
  for (int i = 0; i < n; ++i)
    d_u0[i] += adj[i];
  *d_nu += dr * dt / (dx * dx);
  *bytes = traj.size() * sizeof(double);
  return loss;
}

} // namespace formulations
