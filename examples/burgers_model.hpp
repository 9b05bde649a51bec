// The viscous Burgers equation u_t + (u^2/2)_x = nu u_xx on [0, 1] with fixed
// boundary values, a Rusanov (local Lax-Friedrichs) flux and explicit Euler
// steps updated in place, as a user would write it; the loss is the final
// state's mean squared distance to a target. Two annotated versions: the
// time loop under binomial checkpointing and the same loop recorded on the
// tape. Shared by examples/burgers_revolve.cpp and bench/revolve_bench.cpp.
#ifndef FLUXION_EXAMPLES_BURGERS_MODEL_HPP
#define FLUXION_EXAMPLES_BURGERS_MODEL_HPP

#include <fluxion/fluxion.hpp>

#include <cmath>
#include <vector>

namespace burgers {

// Numerical flux between a left and a right state.
inline double flux(double l, double r, double speed) {
  return 0.25 * (l * l + r * r) - 0.5 * speed * (r - l);
}

// One explicit step, in place: `left` carries the old value of u[i - 1].
// lambda = dt / dx, mu = nu dt / dx^2, speed bounds |u| (the Rusanov
// dissipation).
inline void step(double *u, int n, double lambda, double mu, double speed) {
  double left = u[0];
  for (int i = 1; i + 1 < n; ++i) {
    double old = u[i];
    double right = u[i + 1];
    u[i] = old - lambda * (flux(old, right, speed) - flux(left, old, speed)) +
           mu * (right - 2 * old + left);
    left = old;
  }
}

inline double misfit(const double *u, const double *target, int n) {
  double loss = 0;
  for (int i = 0; i < n; ++i)
    loss += (u[i] - target[i]) * (u[i] - target[i]);
  return loss / n;
}

// u holds the initial state on entry and the final state on return.
[[fluxion::grad("u")]] double lossRevolve(double *u, const double *target,
                                          int n, int steps, int snapshots,
                                          double lambda, double mu) {
#pragma fluxion revolve(snapshots) state(u, n)
  for (int t = 0; t < steps; ++t)
    step(u, n, lambda, mu, 1.0);
  return misfit(u, target, n);
}

// The same computation, every step recorded on the tape.
[[fluxion::grad("u")]] double lossTaped(double *u, const double *target,
                                        int n, int steps, double lambda,
                                        double mu) {
  for (int t = 0; t < steps; ++t)
    step(u, n, lambda, mu, 1.0);
  return misfit(u, target, n);
}

} // namespace burgers

namespace burgers {

/// A stable setup on n cells: nu dt / dx^2 <= 1/4 and dt / dx <= 1/2 for
/// |u| <= 1, the initial state and the target.
struct Setup {
  double lambda, mu, dt;
  std::vector<double> u0, target;
  explicit Setup(int n, double nu = 0.002) : u0(n), target(n) {
    const double dx = 1.0 / (n - 1);
    dt = std::fmin(0.25 * dx * dx / nu, 0.5 * dx);
    lambda = dt / dx;
    mu = nu * dt / (dx * dx);
    for (int i = 0; i < n; ++i) {
      double x = i * dx;
      u0[i] = 0.5 * std::sin(2 * M_PI * x) + 0.25 * std::sin(6 * M_PI * x);
      target[i] = 0.3 * std::sin(2 * M_PI * x);
    }
  }
};

} // namespace burgers

#endif // FLUXION_EXAMPLES_BURGERS_MODEL_HPP
