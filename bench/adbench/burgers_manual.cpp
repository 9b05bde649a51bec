// Burgers: inputs, and the hand-written adjoint. The forward sweep stores
// the state before every step (n doubles per step); the reverse sweep runs
// the transposed stencil backwards through them.
#include "burgers.hpp"
#include "common.hpp"

#include <cmath>
#include <vector>

namespace adbench {

BurgersInput burgers_make_input(int n, int steps, std::uint64_t seed) {
  BurgersInput In;
  In.n = n;
  In.steps = steps;
  In.dx = 1.0 / n;
  // |u| <= 1.1. Centred differences with forward Euler are stable when the
  // cell Peclet number |u| dx / nu stays below 2 and nu dt / dx^2 <= 1/2.
  In.nu = std::fmax(0.01, 0.8 * In.dx);
  In.dt = 0.25 * In.dx * In.dx / In.nu;
  Rng R(seed);
  In.u0.resize(n);
  const double pi = 3.14159265358979323846;
  for (int i = 0; i < n; ++i)
    In.u0[i] = std::sin(2 * pi * i * In.dx) + 0.1 * R.uniform(-1, 1);
  return In;
}

double burgers_manual_grad(const double *u0, int n, int steps, double nu,
                           double dt, double dx, double *d_u0, double *d_nu,
                           std::size_t *bytes_stored) {
  const double c = dt / (2 * dx), r = nu * dt / (dx * dx);
  std::vector<double> U(static_cast<std::size_t>(steps + 1) * n);
  for (int i = 0; i < n; ++i)
    U[i] = u0[i];
  for (int t = 0; t < steps; ++t) {
    const double *u = &U[static_cast<std::size_t>(t) * n];
    double *un = &U[static_cast<std::size_t>(t + 1) * n];
    for (int i = 0; i < n; ++i) {
      int im = i == 0 ? n - 1 : i - 1, ip = i == n - 1 ? 0 : i + 1;
      un[i] =
          u[i] - c * u[i] * (u[ip] - u[im]) + r * (u[ip] - 2 * u[i] + u[im]);
    }
  }
  const double *uT = &U[static_cast<std::size_t>(steps) * n];
  double loss = 0;
  std::vector<double> a(uT, uT + n), b(n); // d loss / d u(T) = u(T)
  for (int i = 0; i < n; ++i)
    loss += 0.5 * uT[i] * uT[i];
  double dr = 0;
  for (int t = steps - 1; t >= 0; --t) {
    const double *u = &U[static_cast<std::size_t>(t) * n];
    // b = (d un / d u)^T a, gathered: u_i enters un_i, un_{i-1} (as its
    // right neighbour) and un_{i+1} (as its left neighbour).
    for (int i = 0; i < n; ++i) {
      int im = i == 0 ? n - 1 : i - 1, ip = i == n - 1 ? 0 : i + 1;
      dr += a[i] * (u[ip] - 2 * u[i] + u[im]);
      b[i] = a[i] * (1 - c * (u[ip] - u[im]) - 2 * r) +
             a[im] * (-c * u[im] + r) + a[ip] * (c * u[ip] + r);
    }
    a.swap(b);
  }
  for (int i = 0; i < n; ++i)
    d_u0[i] += a[i];
  *d_nu += dr * dt / (dx * dx);
  // The trajectory minus the final state, which a reverse sweep needs no
  // matter what.
  *bytes_stored = static_cast<std::size_t>(steps) * n * sizeof(double);
  return loss;
}

} // namespace adbench
