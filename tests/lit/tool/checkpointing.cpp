// What the engine generates beyond recording goes through fluxion-gen as
// well: a [[fluxion::checkpoint]] callee (its logging primal g_logged and
// the undo-log calls around it), a loop under binomial checkpointing
// (revolve), a residual-form custom derivative and a global variable as a
// differentiation input. g++ compiles the output with warnings as errors; it
// computes what the plugin build computes, checkpointing and revolve give
// the gradient that recording everything gives, and the statements of the
// new kinds map back to the source lines they come from. The output keeps
// `#pragma fluxion revolve` commented out.
// REQUIRES: gxx
// RUN: %fluxion-gen %s -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: bash -c '%gxx -Wall -Wextra -Werror $(%fluxion-config --cxxflags) %t.cpp -o %t.gxx'
// RUN: %t.gxx > %t.gxx.out
// RUN: %clangxx %fluxion %s -o %t.plugin
// RUN: %t.plugin > %t.plugin.out
// RUN: diff %t.gxx.out %t.plugin.out
// RUN: %FileCheck %s < %t.gxx.out
// RUN: %FileCheck %s --check-prefix=SRC --match-full-lines --strict-whitespace < %t.cpp
// RUN: %FileCheck %s --check-prefix=PRAGMA < %t.cpp
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>

namespace sim {

double gain = 1.5;

void relax(double *u, int n) {
  for (int i = 0; i < n; ++i)
    u[i] = u[i] + 0.1 * std::sin(u[i]);
}

[[fluxion::checkpoint]] void relax_checkpointed(double *u, int n) {
  for (int i = 0; i < n; ++i)
    u[i] = u[i] + 0.1 * std::sin(u[i]);
}

double energy(const double *u, int n) {
  double e = 0;
  for (int i = 0; i < n; ++i)
    e += u[i] * u[i];
  return e;
}

[[fluxion::grad]] double recorded(const double *x, int steps) {
  double u[3];
  for (int i = 0; i < 3; ++i)
    u[i] = x[i];
  for (int s = 0; s < steps; ++s)
    relax(u, 3);
  return energy(u, 3);
}

[[fluxion::grad]] double checkpointed(const double *x, int steps) {
  double u[3];
  for (int i = 0; i < 3; ++i)
    u[i] = x[i];
  for (int s = 0; s < steps; ++s)
    relax_checkpointed(u, 3);
  return energy(u, 3);
}

[[fluxion::grad]] double binomial(const double *x, int steps) {
  double u[3];
  for (int i = 0; i < 3; ++i)
    u[i] = x[i];
#pragma fluxion revolve(2)
  for (int s = 0; s < steps; ++s)
    relax(u, 3);
  return energy(u, 3);
}

double softplus(double x) { return std::log1p(std::exp(x)); }

} // namespace sim

// The checkpointed callee's logging version is declared after it, and the
// call records only the undo log's mark: the reverse sweep undoes the
// callee's writes, recomputes its recorded forward sweep and reverses it.
// SRC:static void relax_checkpointed_logged(double *u, int n);
// SRC:    // relax_checkpointed(u, 3);
// SRC-NEXT:#line [[#@LINE-23]]
// SRC-NEXT:    _mark = fluxion::checkpoint_mark();
// SRC-NEXT:#line [[#@LINE-25]]
// SRC-NEXT:    _tape_unsigned_long.push(_mark);
// SRC-NEXT:#line [[#@LINE-27]]
// SRC-NEXT:    sim::relax_checkpointed_logged(u, 3);
// SRC:    // relax_checkpointed(u, 3);
// SRC-NEXT:#line [[#@LINE-30]]
// SRC-NEXT:    _mark = _tape_unsigned_long.pop();
// SRC-NEXT:#line [[#@LINE-32]]
// SRC-NEXT:    fluxion::checkpoint_restore(_mark);
// SRC-NEXT:#line [[#@LINE-34]]
// SRC-NEXT:    sim::relax_checkpointed_fwd(u, 3);
// SRC-NEXT:#line [[#@LINE-36]]
// SRC-NEXT:    sim::relax_checkpointed_bwd(u, 3, _d_u);
// SRC-NEXT:#line [[#@LINE-38]]
// SRC-NEXT:    fluxion::checkpoint_undo(_mark);

// The logging version saves each element before overwriting it, at the
// line of the write.
// SRC:static void relax_checkpointed_logged(double *u, int n) {
// SRC:    // u[i] = u[i] + 0.1 * std::sin(u[i]);
// SRC-NEXT:#line [[#@LINE-69]]
// SRC-NEXT:    _sin = {{.*}}sin(u[i]);
// SRC-NEXT:#line [[#@LINE-71]]
// SRC-NEXT:    fluxion::checkpoint_save<double>(&u[i]);
// SRC-NEXT:#line [[#@LINE-73]]
// SRC-NEXT:    u[i] = u[i] + ({{.*}} * _sin);

// The revolve loop's calls of the runtime are at the line of the pragma,
// its loops at the line of the loop.
// SRC:  // #pragma fluxion revolve(2)
// SRC-NEXT:#line [[#@LINE-47]]
// SRC-NEXT:  fluxion::revolve_begin((long)steps - (long)s, 2);
// SRC-NEXT:#line [[#@LINE-49]]
// SRC-NEXT:  fluxion::revolve_state<double>(u, 3UL);
// SRC-NEXT:#line [[#@LINE-51]]
// SRC-NEXT:  fluxion::revolve_state<int>(&s, 1UL);
// SRC-NEXT:#line [[#@LINE-53]]
// SRC-NEXT:  _rv_k = fluxion::revolve_forward();
// SRC-NEXT:  // for (int s = 0; s < steps; ++s)
// SRC-NEXT:#line [[#@LINE-55]]
// SRC-NEXT:  while (_rv_k > (long)0) {
// SRC:  if (_tape_bool.pop()) {
// SRC:  // #pragma fluxion revolve(2)
// SRC-NEXT:#line [[#@LINE-60]]
// SRC-NEXT:  fluxion::revolve_rebind();
// SRC-NEXT:#line [[#@LINE-62]]
// SRC-NEXT:  fluxion::revolve_state<double>(u, 3UL);
// SRC-NEXT:#line [[#@LINE-64]]
// SRC-NEXT:  fluxion::revolve_state<int>(&s, 1UL);
// SRC-NEXT:#line [[#@LINE-66]]
// SRC-NEXT:  fluxion::revolve_turn();
// SRC-NEXT:#line [[#@LINE-68]]
// SRC-NEXT:  _rv_k = fluxion::revolve_reverse();

// The user's pragma is commented out, so that g++ -Wall does not warn about
// it; the generated code does what it asked for.
// PRAGMA-NOT: {{^[[:space:]]*#[[:space:]]*pragma}}
// PRAGMA: {{^}}// #pragma fluxion revolve(2){{$}}
// PRAGMA-NOT: {{^[[:space:]]*#[[:space:]]*pragma}}

namespace fluxion::custom {
struct SoftplusResiduals {
  double e;
};
inline double softplus_fwd(double x, SoftplusResiduals &res) {
  res.e = std::exp(x);
  return std::log1p(res.e);
}
inline void softplus_bwd(double, const SoftplusResiduals &res, double seed,
                         double *d_x) {
  *d_x += seed * res.e / (1 + res.e);
}
} // namespace fluxion::custom

namespace sim {

[[fluxion::grad("x", "gain")]] double scaled(double x) {
  return gain * softplus(x);
}

} // namespace sim

// The residual rule's parts are called in place of softplus; the global's
// adjoint leaves through d_gain, at the line of the function.
// SRC:double scaled_vjp(double x, double seed, double *d_x, double *d_gain) {
// SRC:  // return gain * softplus(x);
// SRC-NEXT:#line [[#@LINE-9]]
// SRC-NEXT:  _softplus = fluxion::custom::softplus_fwd(x, _res_softplus);
// SRC:    fluxion::custom::softplus_bwd(0., _res_softplus, _r, &_d_x);
// SRC-NEXT:  }
// SRC-NEXT:#line [[#@LINE-14]]
// SRC-NEXT:  *d_x += _d_x;
// SRC-NEXT:#line [[#@LINE-16]]
// SRC-NEXT:  *d_gain += _d_gain;

int main() {
  const double x[3] = {0.5, -1.25, 2.0};
  double (*grads[3])(const double *, int, double *) = {
      sim::recorded_grad, sim::checkpointed_grad, sim::binomial_grad};
  const char *names[3] = {"recorded", "checkpointed", "binomial"};
  for (int k = 0; k < 3; ++k) {
    double dx[3] = {0, 0, 0};
    double e = grads[k](x, 7, dx);
    std::printf("%s %.12g %.12g %.12g %.12g\n", names[k], e, dx[0], dx[1],
                dx[2]);
  }
  double dx = 0, dgain = 0;
  double v = sim::scaled_grad(0.5, &dx, &dgain);
  std::printf("scaled %.17g %.17g %.17g\n", v, dx, dgain);
}
// Checkpointing and binomial checkpointing recompute what recording keeps,
// and give the same gradient.
// CHECK: recorded [[G:.*]]
// CHECK-NEXT: checkpointed [[G]]
// CHECK-NEXT: binomial [[G]]
// gain * softplus(x) at x = 0.5, gain = 1.5: the value, gain * sigmoid(x)
// and softplus(x).
// CHECK-NEXT: scaled 1.46111547627{{[0-9]*}} 0.93368899680{{[0-9]*}} 0.97407698418{{[0-9]*}}
