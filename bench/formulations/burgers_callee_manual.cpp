// Hand-written adjoint of the Burgers formulation with a step callee on
// alternating buffers (burgers_callee.cpp), written the same way: a step
// function and its adjoint step_adjoint. Each step's input is saved before
// the step (n doubles per step); the reverse sweep calls step_adjoint on
// two adjoint buffers in turn.
#include "burgers_forms.hpp"

#include <vector>

namespace formulations {
namespace {

void step(const double *u, double *un, int n, double c, double r) {
  un[0] =
      u[0] - c * u[0] * (u[1] - u[n - 1]) + r * (u[1] - 2 * u[0] + u[n - 1]);
  for (int i = 1; i < n - 1; ++i)
    un[i] = u[i] - c * u[i] * (u[i + 1] - u[i - 1]) +
            r * (u[i + 1] - 2 * u[i] + u[i - 1]);
  un[n - 1] = u[n - 1] - c * u[n - 1] * (u[0] - u[n - 2]) +
              r * (u[0] - 2 * u[n - 1] + u[n - 2]);
}

// a = (d step / d u)^T an, and *dr += (d step / d r)^T an; the
// boundary cells peeled like step's, so that the interior loop has no
// wrap-around test.
void step_adjoint(const double *u, const double *an, double *a, int n, double c,
                  double r, double *dr) {
  auto cell = [&](int im, int i, int ip) {
    a[i] = an[i] * (1 - c * (u[ip] - u[im]) - 2 * r) +
           an[im] * (r - c * u[im]) + an[ip] * (r + c * u[ip]);
    return an[i] * (u[ip] - 2 * u[i] + u[im]);
  };
  double s = cell(n - 1, 0, 1);
  for (int i = 1; i < n - 1; ++i)
    s += cell(i - 1, i, i + 1);
  s += cell(n - 2, n - 1, 0);
  *dr += s;
}

} // namespace

double burgers_callee_manual(double *u, double *w, int n, int steps, double nu,
                             double dt, double dx, double *d_u, double *d_nu,
                             std::size_t *bytes) {
  const double c = dt / (2 * dx), r = nu * dt / (dx * dx);
  std::vector<double> inputs(static_cast<std::size_t>(steps) * n);
  for (int t = 0; t < steps; ++t) {
    const double *from = t % 2 == 0 ? u : w;
    double *saved = &inputs[static_cast<std::size_t>(t) * n];
    for (int i = 0; i < n; ++i)
      saved[i] = from[i];
    if (t % 2 == 0)
      step(u, w, n, c, r);
    else
      step(w, u, n, c, r);
  }
  const double *last = steps % 2 == 0 ? u : w;
  double loss = 0;
  for (int i = 0; i < n; ++i)
    loss += last[i] * last[i];

  std::vector<double> adj_a(n), adj_b(n);
  double *a = adj_a.data(), *b = adj_b.data();
  for (int i = 0; i < n; ++i)
    a[i] = last[i];
  double dr = 0;
  for (int t = steps - 1; t >= 0; --t) {
    step_adjoint(&inputs[static_cast<std::size_t>(t) * n], a, b, n, c, r, &dr);
    double *s = a;
    a = b;
    b = s;
  }
  for (int i = 0; i < n; ++i) {
    d_u[i] += a[i];
    if (steps > 0)
      u[i] = inputs[i]; // leave u as it came
  }
  *d_nu += dr * dt / (dx * dx);
  *bytes = inputs.size() * sizeof(double);
  return 0.5 * loss;
}

} // namespace formulations
