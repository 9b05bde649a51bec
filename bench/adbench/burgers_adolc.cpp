// Burgers with ADOL-C: the same scheme on adouble, taped and reversed.
#include "burgers.hpp"

#include <adolc/adolc.h>

#include <vector>

namespace adbench {

double burgers_adolc_tape_and_gradient(const BurgersInput &in, short tag,
                                       double *grad, std::size_t *tape_bytes) {
  const int n = in.n;
  std::vector<adouble> u(n), un(n);
  adouble nu;
  double value = 0;
  trace_on(tag, 1); // keep the forward values for the reverse sweep
  for (int i = 0; i < n; ++i)
    u[i] <<= in.u0[i];
  nu <<= in.nu;
  const double c = in.dt / (2 * in.dx);
  adouble r = nu * in.dt / (in.dx * in.dx);
  for (int t = 0; t < in.steps; ++t) {
    for (int i = 0; i < n; ++i) {
      int im = i == 0 ? n - 1 : i - 1, ip = i == n - 1 ? 0 : i + 1;
      un[i] =
          u[i] - c * u[i] * (u[ip] - u[im]) + r * (u[ip] - 2 * u[i] + u[im]);
    }
    for (int i = 0; i < n; ++i)
      u[i] = un[i];
  }
  adouble loss = 0;
  for (int i = 0; i < n; ++i)
    loss += 0.5 * u[i] * u[i];
  loss >>= value;
  trace_off();
  double seed = 1.0;
  fos_reverse(tag, 1, n + 1, &seed, grad);
  *tape_bytes = adolc_tape_bytes(tag);
  return value;
}

std::size_t adolc_tape_bytes(short tag) {
  std::size_t stats[STAT_SIZE];
  tapestats(tag, stats);
  return stats[NUM_OPERATIONS] * sizeof(unsigned char) +
         stats[NUM_LOCATIONS] * sizeof(locint) +
         stats[NUM_VALUES] * sizeof(double) +
         stats[TAY_STACK_SIZE] * sizeof(double);
}

} // namespace adbench
