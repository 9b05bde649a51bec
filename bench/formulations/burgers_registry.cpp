// The Burgers formulations as registry entries (registry.hpp).
#include "burgers_forms.hpp"
#include "registry.hpp"

#include "burgers.hpp" // bench/adbench: inputs

#include <fluxion/memory.hpp>

#include <algorithm>

namespace formulations {
namespace {

// ADOL-C keeps about 220 bytes per cell and step: at most 1000 steps.
constexpr int AdolcMaxSteps = 1000;
constexpr short AdolcTag = 21;

struct BurgersData {
  adbench::BurgersInput in;
  std::vector<double> a, b, buf;    // the caller's buffers
  std::vector<double> da, db, dbuf; // adjoints (seeds of the buffers: zero)
  void zeroSeeds() {
    std::fill(db.begin(), db.end(), 0.0);
    std::fill(dbuf.begin(), dbuf.end(), 0.0);
  }
};

/// Runs a generated gradient, with its tape's peak when asked.
template <class F> double fluxion_call(std::size_t *bytes, F &&call) {
  if (bytes)
    fluxion::reset_memory_peaks();
  const double v = call();
  if (bytes)
    *bytes = fluxion::memory_stats().totalPeak();
  return v;
}

Formulation swap_form(std::shared_ptr<BurgersData> d) {
  Formulation F;
  F.name = "swap";
  F.summary = "double buffer: halves of one array picked by the step's parity";
  F.fluxionSource = "bench/formulations/burgers_swap.cpp";
  F.manualSource = "bench/formulations/burgers_swap_manual.cpp";
  F.methods.push_back({"manual", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         std::size_t stored = 0;
                         double v = burgers_swap_manual(
                             in.u0.data(), d->buf.data(), in.n, in.steps, in.nu,
                             in.dt, in.dx, out, out + in.n, &stored);
                         if (bytes)
                           *bytes = stored;
                         return v;
                       }});
  F.methods.push_back({"fluxion", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         d->zeroSeeds();
                         return fluxion_call(bytes, [&] {
                           return burgers_swap_grad(in.u0.data(), d->buf.data(),
                                                    in.n, in.steps, in.nu,
                                                    in.dt, in.dx, out,
                                                    d->dbuf.data(), out + in.n);
                         });
                       }});
  F.primal = [d](const std::vector<double> &p) {
    const auto &in = d->in;
    std::vector<double> buf(2 * in.n);
    return burgers_swap(p.data(), buf.data(), in.n, in.steps, p[in.n], in.dt,
                        in.dx);
  };
  return F;
}

Formulation scratch_form(std::shared_ptr<BurgersData> d) {
  Formulation F;
  F.name = "scratch";
  F.summary = "scratch array, then copied back into u (u, tmp parameters)";
  F.fluxionSource = "bench/formulations/burgers_scratch.cpp";
  F.manualSource = "bench/formulations/burgers_scratch_manual.cpp";
  F.methods.push_back({"manual", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         std::copy(in.u0.begin(), in.u0.end(), d->a.begin());
                         std::size_t stored = 0;
                         double v = burgers_scratch_manual(
                             d->a.data(), d->b.data(), in.n, in.steps, in.nu,
                             in.dt, in.dx, out, out + in.n, &stored);
                         if (bytes)
                           *bytes = stored;
                         return v;
                       }});
  F.methods.push_back({"fluxion", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         std::copy(in.u0.begin(), in.u0.end(), d->a.begin());
                         d->zeroSeeds();
                         return fluxion_call(bytes, [&] {
                           return burgers_scratch_grad(
                               d->a.data(), d->b.data(), in.n, in.steps, in.nu,
                               in.dt, in.dx, out, d->db.data(), out + in.n);
                         });
                       }});
  F.primal = [d](const std::vector<double> &p) {
    const auto &in = d->in;
    std::vector<double> u(p.begin(), p.begin() + in.n), tmp(in.n);
    return burgers_scratch(u.data(), tmp.data(), in.n, in.steps, p[in.n], in.dt,
                           in.dx);
  };
  return F;
}

Formulation inplace_form(std::shared_ptr<BurgersData> d) {
  Formulation F;
  F.name = "inplace";
  F.summary = "one array updated in place, old left neighbour in a scalar";
  F.fluxionSource = "bench/formulations/burgers_inplace.cpp";
  F.manualSource = "bench/formulations/burgers_inplace_manual.cpp";
  F.methods.push_back({"manual", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         std::copy(in.u0.begin(), in.u0.end(), d->a.begin());
                         std::size_t stored = 0;
                         double v = burgers_inplace_manual(
                             d->a.data(), in.n, in.steps, in.nu, in.dt, in.dx,
                             out, out + in.n, &stored);
                         if (bytes)
                           *bytes = stored;
                         return v;
                       }});
  F.methods.push_back({"fluxion", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         std::copy(in.u0.begin(), in.u0.end(), d->a.begin());
                         d->zeroSeeds();
                         return fluxion_call(bytes, [&] {
                           return burgers_inplace_grad(d->a.data(), in.n,
                                                       in.steps, in.nu, in.dt,
                                                       in.dx, out, out + in.n);
                         });
                       }});
  F.primal = [d](const std::vector<double> &p) {
    const auto &in = d->in;
    std::vector<double> u(p.begin(), p.begin() + in.n);
    return burgers_inplace(u.data(), in.n, in.steps, p[in.n], in.dt, in.dx);
  };
  return F;
}

Formulation callee_form(std::shared_ptr<BurgersData> d) {
  Formulation F;
  F.name = "callee";
  F.summary = "step(const double *, double *) callee on alternating buffers";
  F.fluxionSource = "bench/formulations/burgers_callee.cpp";
  F.manualSource = "bench/formulations/burgers_callee_manual.cpp";
  F.methods.push_back({"manual", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         std::copy(in.u0.begin(), in.u0.end(), d->a.begin());
                         std::size_t stored = 0;
                         double v = burgers_callee_manual(
                             d->a.data(), d->b.data(), in.n, in.steps, in.nu,
                             in.dt, in.dx, out, out + in.n, &stored);
                         if (bytes)
                           *bytes = stored;
                         return v;
                       }});
  F.methods.push_back({"fluxion", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         std::copy(in.u0.begin(), in.u0.end(), d->a.begin());
                         d->zeroSeeds();
                         return fluxion_call(bytes, [&] {
                           return burgers_callee_grad(
                               d->a.data(), d->b.data(), in.n, in.steps, in.nu,
                               in.dt, in.dx, out, d->db.data(), out + in.n);
                         });
                       }});
  F.primal = [d](const std::vector<double> &p) {
    const auto &in = d->in;
    std::vector<double> u(p.begin(), p.begin() + in.n), w(in.n);
    return burgers_callee(u.data(), w.data(), in.n, in.steps, p[in.n], in.dt,
                          in.dx);
  };
  return F;
}

/// A formulation over std::vector state: the primal, its generated
/// gradient and its hand-written adjoint share one signature each.
using VectorPrimal = double (*)(const std::vector<double> &, int, double,
                                double, double);
using VectorGrad = double (*)(const std::vector<double> &, int, double, double,
                              double, std::vector<double> *, double *);
using VectorManual = double (*)(const std::vector<double> &, int, double,
                                double, double, std::vector<double> *,
                                double *, std::size_t *);

Formulation vector_style_form(std::shared_ptr<BurgersData> d, const char *name,
                              const char *summary, const char *file,
                              VectorPrimal primal, VectorGrad grad,
                              VectorManual manual) {
  Formulation F;
  F.name = name;
  F.summary = summary;
  F.fluxionSource = std::string("bench/formulations/") + file + ".cpp";
  F.manualSource = std::string("bench/formulations/") + file + "_manual.cpp";
  F.methods.push_back({"manual", [d, manual](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         std::fill(d->da.begin(), d->da.end(), 0.0);
                         std::size_t stored = 0;
                         double v = manual(in.u0, in.steps, in.nu, in.dt,
                                           in.dx, &d->da, out + in.n, &stored);
                         std::copy(d->da.begin(), d->da.end(), out);
                         if (bytes)
                           *bytes = stored;
                         return v;
                       }});
  F.methods.push_back({"fluxion", [d, grad](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         std::fill(d->da.begin(), d->da.end(), 0.0);
                         double v = fluxion_call(bytes, [&] {
                           return grad(in.u0, in.steps, in.nu, in.dt, in.dx,
                                       &d->da, out + in.n);
                         });
                         std::copy(d->da.begin(), d->da.end(), out);
                         return v;
                       }});
  F.primal = [d, primal](const std::vector<double> &p) {
    const auto &in = d->in;
    std::vector<double> u0(p.begin(), p.begin() + in.n);
    return primal(u0, in.steps, p[in.n], in.dt, in.dx);
  };
  return F;
}

Formulation vector_form(std::shared_ptr<BurgersData> d) {
  return vector_style_form(
      d, "vector",
      "std::vector state, std::copy back, lambda for the wrap-around",
      "burgers_vector", burgers_vector, burgers_vector_grad,
      burgers_vector_manual);
}

Formulation vector_swap_form(std::shared_ptr<BurgersData> d) {
  return vector_style_form(
      d, "vector_swap", "std::vector state, the buffers swapped (u.swap(next))",
      "burgers_vector_swap", burgers_vector_swap, burgers_vector_swap_grad,
      burgers_vector_swap_manual);
}

#ifdef FLUXION_FORMULATIONS_ADOLC
void add_adolc(Formulation &F, int form, std::shared_ptr<BurgersData> d) {
  F.methods.push_back({"adolc", [d, form](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         std::vector<double> g(in.n + 1);
                         std::size_t tape = 0;
                         double v = burgers_form_adolc(
                             form, in.u0.data(), in.n, in.steps, in.nu, in.dt,
                             in.dx, AdolcTag, g.data(), &tape);
                         for (int i = 0; i <= in.n; ++i)
                           out[i] += g[i];
                         if (bytes)
                           *bytes = tape;
                         return v;
                       }});
}
#endif

Instance make(int n, int steps, bool fd) {
  auto d = std::make_shared<BurgersData>();
  d->in = adbench::burgers_make_input(n, steps, 4000 + 7 * n + steps);
  d->a.assign(n, 0.0);
  d->b.assign(n, 0.0);
  d->da.assign(n, 0.0);
  d->db.assign(n, 0.0);
  d->buf.assign(2 * n, 0.0);
  d->dbuf.assign(2 * n, 0.0);
  Instance I;
  I.problem = "burgers";
  I.size = "n" + std::to_string(n) + "_steps" + std::to_string(steps);
  I.outputs = n + 1;
  I.units = steps;
  I.unitName = "step";
  I.params = d->in.u0;
  I.params.push_back(d->in.nu);
  I.fd = fd;
  I.formulations = {swap_form(d), scratch_form(d), inplace_form(d),
                    callee_form(d), vector_form(d),
                    vector_swap_form(d)};
#ifdef FLUXION_FORMULATIONS_ADOLC
  if (steps <= AdolcMaxSteps)
    for (int form = 0; form < 5; ++form)
      add_adolc(I.formulations[form], form, d);
#endif
  return I;
}

} // namespace

std::vector<Instance> burgers_instances(bool check) {
  std::vector<Instance> I;
  if (check) {
    // An even and an odd number of steps (the callee formulation ends in
    // either buffer), with central differences.
    I.push_back(make(16, 30, true));
    I.push_back(make(12, 7, true));
    return I;
  }
  for (int steps : {100, 1000, 10000})
    I.push_back(make(1000, steps, false));
  return I;
}

} // namespace formulations
