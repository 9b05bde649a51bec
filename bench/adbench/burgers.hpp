// A long loop for tape memory: the viscous Burgers equation
// u_t + u u_x = nu u_xx on a periodic 1-D grid of n cells, advanced by
// `steps` explicit Euler steps with centred differences; the loss is
// 0.5 |u(T)|^2. Its gradient with respect to the initial condition u0 and
// the viscosity nu needs the whole trajectory in reverse: a tape that grows
// with the number of steps.
#ifndef FLUXION_ADBENCH_BURGERS_HPP
#define FLUXION_ADBENCH_BURGERS_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

namespace adbench {

/// Largest grid the Fluxion version's local arrays hold.
constexpr int BurgersMaxN = 1024;

struct BurgersInput {
  int n = 0, steps = 0;
  double nu = 0, dt = 0, dx = 0;
  std::vector<double> u0;
};

BurgersInput burgers_make_input(int n, int steps, std::uint64_t seed);

/// Hand-written adjoint (burgers_manual.cpp): stores the trajectory (n
/// doubles per step), returns the loss, ADDS the gradient into d_u0 and
/// *d_nu, and reports the bytes it stored.
double burgers_manual_grad(const double *u0, int n, int steps, double nu,
                           double dt, double dx, double *d_u0, double *d_nu,
                           std::size_t *bytes_stored);

#ifdef FLUXION_ADBENCH_ADOLC
/// ADOL-C: tape, reverse at once; gradient (u0, then nu) into grad. The
/// tape's size in bytes (operations, locations, constants and the kept
/// forward values) goes to *tape_bytes.
double burgers_adolc_tape_and_gradient(const BurgersInput &in, short tag,
                                       double *grad, std::size_t *tape_bytes);
/// Bytes of ADOL-C tape `tag`: operations, locations, constants, and the
/// forward values kept for the reverse sweep (trace_on with keep = 1).
std::size_t adolc_tape_bytes(short tag);
#endif

} // namespace adbench

// The Fluxion version (burgers.cpp) and its generated gradient.
double burgers_loss(const double *u0, int n, int steps, double nu, double dt,
                    double dx);
double burgers_loss_grad(const double *u0, int n, int steps, double nu,
                         double dt, double dx, double *d_u0, double *d_nu);

#endif // FLUXION_ADBENCH_BURGERS_HPP
