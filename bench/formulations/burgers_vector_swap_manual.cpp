// Hand-written adjoint of the std::vector Burgers formulation that swaps
// its buffers (burgers_vector_swap.cpp), written the same way: the forward
// sweep swaps `u` and `next` after each step and keeps each step's input in
// a trajectory vector (steps x n values); the reverse sweep swaps its two
// adjoint vectors the same way.
#include "burgers_forms.hpp"

#include <algorithm>
#include <vector>

namespace formulations {

double burgers_vector_swap_manual(const std::vector<double> &u0, int steps,
                                  double nu, double dt, double dx,
                                  std::vector<double> *d_u0, double *d_nu,
                                  std::size_t *bytes) {
  const int n = static_cast<int>(u0.size());
  std::vector<double> traj(u0.size() * static_cast<std::size_t>(steps));
  std::vector<double> u = u0, next(u0.size());
  for (int t = 0; t < steps; ++t) {
    std::copy(u.begin(), u.end(), traj.begin() + std::size_t(t) * n);
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

  // next[i] depends on u[l], u[i], u[r]; the adjoint gathers, for each i,
  // what next[i], next[i+1] (through l = i) and next[i-1] (through r = i)
  // send back.
  const double c = dt / (2 * dx), k = nu * dt / (dx * dx);
  std::vector<double> a = u, b(u.size());
  double dnu = 0;
  for (int t = steps - 1; t >= 0; --t) {
    const double *ut = traj.data() + std::size_t(t) * n;
    for (int i = 0; i < n; ++i) {
      const int l = (i + n - 1) % n, r = (i + 1) % n;
      dnu += a[i] * (ut[r] - 2 * ut[i] + ut[l]);
      b[i] = a[i] * (1 - c * (ut[r] - ut[l]) - 2 * k) +
             a[l] * (k - c * ut[l]) + a[r] * (k + c * ut[r]);
    }
    a.swap(b);
  }
  for (int i = 0; i < n; ++i)
    (*d_u0)[i] += a[i];
  *d_nu += dnu * dt / (dx * dx);
  *bytes = traj.size() * sizeof(double);
  return loss;
}

} // namespace formulations
