// Hand-written adjoint of the std::vector Burgers formulation
// (burgers_vector.cpp), written with vectors too: the trajectory is one
// vector of steps x n values (each step's input), the adjoint state a
// vector swapped with its successor after each reverse step.
#include "burgers_forms.hpp"

#include <algorithm>
#include <vector>

namespace formulations {

double burgers_vector_manual(const std::vector<double> &u0, int steps,
                             double nu, double dt, double dx,
                             std::vector<double> *d_u0, double *d_nu,
                             std::size_t *bytes) {
  const int n = static_cast<int>(u0.size());
  auto wrap = [n](int i) { return (i + n) % n; };
  std::vector<double> traj(u0.size() * static_cast<std::size_t>(steps));
  std::vector<double> u = u0, next(u0.size());
  for (int t = 0; t < steps; ++t) {
    std::copy(u.begin(), u.end(), traj.begin() + std::size_t(t) * n);
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

  const double c = dt / (2 * dx), r = nu * dt / (dx * dx);
  std::vector<double> a = u, b(u.size());
  double dr = 0;
  for (int t = steps - 1; t >= 0; --t) {
    const double *ut = traj.data() + std::size_t(t) * n;
    for (int i = 0; i < n; ++i) {
      const int im = wrap(i - 1), ip = wrap(i + 1);
      dr += a[i] * (ut[ip] - 2 * ut[i] + ut[im]);
      b[i] = a[i] * (1 - c * (ut[ip] - ut[im]) - 2 * r) +
             a[im] * (r - c * ut[im]) + a[ip] * (r + c * ut[ip]);
    }
    a.swap(b);
  }
  for (int i = 0; i < n; ++i)
    (*d_u0)[i] += a[i];
  *d_nu += dr * dt / (dx * dx);
  *bytes = traj.size() * sizeof(double);
  return loss;
}

} // namespace formulations
