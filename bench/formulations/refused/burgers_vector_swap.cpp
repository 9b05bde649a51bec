// The std::vector time-stepping formulation with the new state handed back
// by swapping the vectors (`u.swap(next)`, the idiomatic O(1) hand-back)
// and by `std::swap(u, next)`. Refused by the plugin today (run.sh records
// its diagnostics in bench/RESULTS.md); burgers_vector.cpp uses std::copy.
#include <fluxion/fluxion.hpp>

#include <utility>
#include <vector>

[[fluxion::grad("u0", "nu")]] double
burgers_vector_member_swap(const std::vector<double> &u0, int steps, double nu,
                           double dt, double dx) {
  const int n = static_cast<int>(u0.size());
  std::vector<double> u = u0;
  std::vector<double> next(u0.size());
  for (int t = 0; t < steps; ++t) {
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
  return loss;
}

[[fluxion::grad("u0", "nu")]] double
burgers_vector_std_swap(const std::vector<double> &u0, int steps, double nu,
                        double dt, double dx) {
  const int n = static_cast<int>(u0.size());
  std::vector<double> u = u0;
  std::vector<double> next(u0.size());
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      const int l = (i + n - 1) % n, r = (i + 1) % n;
      next[i] = u[i] + dt * (nu * (u[r] - 2 * u[i] + u[l]) / (dx * dx) -
                             u[i] * (u[r] - u[l]) / (2 * dx));
    }
    std::swap(u, next);
  }
  double loss = 0;
  for (double v : u)
    loss += 0.5 * v * v;
  return loss;
}
