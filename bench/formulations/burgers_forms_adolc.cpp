// The five Burgers formulations on ADOL-C's adouble, each written as its
// plugin-compiled counterpart is (double buffer in the halves of one array,
// scratch array and copy-back, in place with a saved neighbour, a step
// callee on alternating buffers, std::vector state), recorded and reversed
// at once.
#include "burgers_forms.hpp"

#include <adolc/adolc.h>

#include <algorithm>
#include <vector>

namespace formulations {
namespace {

adouble swap_form(const adouble *u0, adouble *buf, int n, int steps,
                  const adouble &nu, double dt, double dx) {
  for (int i = 0; i < n; ++i)
    buf[i] = u0[i];
  const double c = dt / (2 * dx);
  adouble r = nu * dt / (dx * dx);
  for (int t = 0; t < steps; ++t) {
    const adouble *cur = buf + (t % 2) * n;
    adouble *next = buf + ((t + 1) % 2) * n;
    for (int i = 0; i < n; ++i) {
      adouble ul = cur[(i + n - 1) % n], ur = cur[(i + 1) % n];
      next[i] = cur[i] - c * cur[i] * (ur - ul) + r * (ur - 2 * cur[i] + ul);
    }
  }
  const adouble *last = buf + (steps % 2) * n;
  adouble loss = 0;
  for (int i = 0; i < n; ++i)
    loss += 0.5 * last[i] * last[i];
  return loss;
}

adouble scratch_form(adouble *u, adouble *tmp, int n, int steps,
                     const adouble &nu, double dt, double dx) {
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      int left = i - 1, right = i + 1;
      if (left < 0)
        left += n;
      if (right == n)
        right = 0;
      adouble adv = u[i] * (u[right] - u[left]) / (2 * dx);
      adouble diff = nu * (u[right] - 2 * u[i] + u[left]) / (dx * dx);
      tmp[i] = u[i] + dt * (diff - adv);
    }
    for (int i = 0; i < n; ++i)
      u[i] = tmp[i];
  }
  adouble loss = 0;
  for (int i = 0; i < n; ++i)
    loss += u[i] * u[i];
  return 0.5 * loss;
}

adouble inplace_form(adouble *u, int n, int steps, const adouble &nu, double dt,
                     double dx) {
  const double c = dt / (2 * dx);
  adouble r = nu * dt / (dx * dx);
  adouble first, left, right, old;
  for (int t = 0; t < steps; ++t) {
    first = u[0];
    left = u[n - 1];
    for (int i = 0; i < n; ++i) {
      right = i + 1 < n ? u[i + 1] : first;
      old = u[i];
      u[i] = old - c * old * (right - left) + r * (right - 2 * old + left);
      left = old;
    }
  }
  adouble loss = 0;
  for (int i = n - 1; i >= 0; --i)
    loss += 0.5 * u[i] * u[i];
  return loss;
}

void step(const adouble *u, adouble *un, int n, double c, const adouble &r) {
  un[0] =
      u[0] - c * u[0] * (u[1] - u[n - 1]) + r * (u[1] - 2 * u[0] + u[n - 1]);
  for (int i = 1; i < n - 1; ++i)
    un[i] = u[i] - c * u[i] * (u[i + 1] - u[i - 1]) +
            r * (u[i + 1] - 2 * u[i] + u[i - 1]);
  un[n - 1] = u[n - 1] - c * u[n - 1] * (u[0] - u[n - 2]) +
              r * (u[0] - 2 * u[n - 1] + u[n - 2]);
}

adouble callee_form(adouble *u, adouble *w, int n, int steps, const adouble &nu,
                    double dt, double dx) {
  const double c = dt / (2 * dx);
  adouble r = nu * dt / (dx * dx);
  for (int t = 0; t < steps; ++t) {
    if (t % 2 == 0)
      step(u, w, n, c, r);
    else
      step(w, u, n, c, r);
  }
  const adouble *last = steps % 2 == 0 ? u : w;
  adouble e = 0;
  for (int i = 0; i < n; ++i)
    e += last[i] * last[i];
  return 0.5 * e;
}

adouble vector_form(const std::vector<adouble> &u0, int steps,
                    const adouble &nu, double dt, double dx) {
  const int n = static_cast<int>(u0.size());
  std::vector<adouble> u = u0, next(u0.size());
  auto wrap = [n](int i) { return (i + n) % n; };
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      adouble ux = (u[wrap(i + 1)] - u[wrap(i - 1)]) / (2 * dx);
      adouble uxx = (u[wrap(i + 1)] - 2 * u[i] + u[wrap(i - 1)]) / (dx * dx);
      next[i] = u[i] + dt * (nu * uxx - u[i] * ux);
    }
    std::copy(next.begin(), next.end(), u.begin());
  }
  adouble loss = 0;
  for (const adouble &v : u)
    loss += 0.5 * v * v;
  return loss;
}

std::size_t tape_bytes(short tag) {
  std::size_t stats[STAT_SIZE];
  tapestats(tag, stats);
  return stats[NUM_OPERATIONS] * sizeof(unsigned char) +
         stats[NUM_LOCATIONS] * sizeof(locint) +
         stats[NUM_VALUES] * sizeof(double) +
         stats[TAY_STACK_SIZE] * sizeof(double);
}

} // namespace

double burgers_form_adolc(int form, const double *u0, int n, int steps,
                          double nu, double dt, double dx, short tag,
                          double *grad, std::size_t *bytes) {
  double value = 0;
  {
    std::vector<adouble> u(n), w(n), buf(form == 0 ? 2 * n : 0);
    adouble anu;
    trace_on(tag, 1); // keep the forward values for the reverse sweep
    for (int i = 0; i < n; ++i)
      u[i] <<= u0[i];
    anu <<= nu;
    adouble loss;
    switch (form) {
    case 0:
      loss = swap_form(u.data(), buf.data(), n, steps, anu, dt, dx);
      break;
    case 1:
      loss = scratch_form(u.data(), w.data(), n, steps, anu, dt, dx);
      break;
    case 2:
      loss = inplace_form(u.data(), n, steps, anu, dt, dx);
      break;
    case 3:
      loss = callee_form(u.data(), w.data(), n, steps, anu, dt, dx);
      break;
    default:
      loss = vector_form(u, steps, anu, dt, dx);
      break;
    }
    loss >>= value;
    trace_off();
  }
  double seed = 1.0;
  fos_reverse(tag, 1, n + 1, &seed, grad);
  *bytes = tape_bytes(tag);
  return value;
}

} // namespace formulations
