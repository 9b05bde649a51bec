// The GMM formulations as registry entries (registry.hpp).
#include "gmm_forms.hpp"
#include "registry.hpp"

#include "burgers.hpp" // bench/adbench: adolc_tape_bytes
#include "gmm.hpp"     // bench/adbench: inputs, helpers and inline versions

#include <fluxion/memory.hpp>

#include <algorithm>

namespace formulations {

#ifdef FLUXION_FORMULATIONS_EIGEN
/// Appends the Eigen formulation (gmm_eigen_registry.cpp).
void add_eigen_form(Instance &inst, const adbench::GmmInput &in);
#endif

namespace {

// ADOL-C's tape grows as n K d^2: kept below a few hundred MB.
constexpr double AdolcMaxWork = 3e7;
constexpr short AdolcTag = 22;

struct GmmData {
  adbench::GmmInput in;
  GmmShape shape;
  GmmPrior prior;
  std::vector<double> da, dm, dq; // adjoints of the vector formulations
};

template <class F> double fluxion_call(std::size_t *bytes, F &&call) {
  if (bytes)
    fluxion::reset_memory_peaks();
  const double v = call();
  if (bytes)
    *bytes = fluxion::memory_stats().totalPeak();
  return v;
}

struct Offsets {
  double *a, *m, *q;
};
Offsets split(const adbench::GmmInput &in, double *out) {
  return {out, out + in.k, out + in.k + in.k * in.d};
}

Formulation helpers_form(std::shared_ptr<GmmData> d) {
  Formulation F;
  F.name = "helpers";
  F.summary = "small helper functions, point-major (bench/adbench/gmm.cpp)";
  F.fluxionSource = "bench/adbench/gmm.cpp";
  F.manualSource = "bench/adbench/gmm_manual.cpp";
  F.methods.push_back(
      {"manual", [d](double *out, std::size_t *bytes) {
         const auto &in = d->in;
         Offsets o = split(in, out);
         double v = adbench::gmm_manual_grad(
             in.d, in.k, in.n, in.alphas.data(), in.means.data(), in.icf.data(),
             in.x.data(), in.gamma, in.m, o.a, o.m, o.q);
         if (bytes) // x - mu, Q (x - mu) and exp of Q's diagonal per component,
                    // the main terms: reused for every point
           *bytes = (3 * std::size_t(in.k) * in.d + in.k) * sizeof(double);
         return v;
       }});
  F.methods.push_back({"fluxion", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         Offsets o = split(in, out);
                         return fluxion_call(bytes, [&] {
                           return gmm_objective_grad(
                               in.d, in.k, in.n, in.alphas.data(),
                               in.means.data(), in.icf.data(), in.x.data(),
                               in.gamma, in.m, o.a, o.m, o.q);
                         });
                       }});
#ifdef FLUXION_ADBENCH_ADOLC
  const auto &in = d->in;
  if (double(in.n) * in.k * in.d * (in.d + 1) / 2 <= AdolcMaxWork)
    F.methods.push_back({"adolc", [d](double *out, std::size_t *bytes) {
                           const auto &in = d->in;
                           std::vector<double> g(in.params().size());
                           double v = adbench::gmm_adolc_tape_and_gradient(
                               in, AdolcTag, g.data());
                           for (std::size_t i = 0; i < g.size(); ++i)
                             out[i] += g[i];
                           if (bytes)
                             *bytes = adbench::adolc_tape_bytes(AdolcTag);
                           return v;
                         }});
#endif
  F.primal = [d](const std::vector<double> &p) {
    const auto &in = d->in;
    return gmm_objective(in.d, in.k, in.n, p.data(), p.data() + in.k,
                         p.data() + in.k + in.k * in.d, in.x.data(), in.gamma,
                         in.m);
  };
  return F;
}

Formulation inline_form(std::shared_ptr<GmmData> d) {
  Formulation F;
  F.name = "inline";
  F.summary = "one function, inline loops, `++li`, reused local arrays "
              "(bench/adbench/gmm_inline.cpp)";
  F.fluxionSource = "bench/adbench/gmm_inline.cpp";
  F.manualSource = "bench/formulations/gmm_inline_manual.cpp";
  F.methods.push_back({"manual", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         Offsets o = split(in, out);
                         std::size_t stored = 0;
                         double v = gmm_inline_manual(
                             in.d, in.k, in.n, in.alphas.data(),
                             in.means.data(), in.icf.data(), in.x.data(),
                             in.gamma, in.m, o.a, o.m, o.q, &stored);
                         if (bytes)
                           *bytes = stored;
                         return v;
                       }});
  F.methods.push_back({"fluxion", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         Offsets o = split(in, out);
                         return fluxion_call(bytes, [&] {
                           return gmm_objective_inline_grad(
                               in.d, in.k, in.n, in.alphas.data(),
                               in.means.data(), in.icf.data(), in.x.data(),
                               in.gamma, in.m, o.a, o.m, o.q);
                         });
                       }});
  F.primal = [d](const std::vector<double> &p) {
    const auto &in = d->in;
    return gmm_objective_inline(in.d, in.k, in.n, p.data(), p.data() + in.k,
                                p.data() + in.k + in.k * in.d, in.x.data(),
                                in.gamma, in.m);
  };
  return F;
}

/// Splits the parameters into the three vectors of the vector
/// formulations.
void unflatten(const adbench::GmmInput &in, const std::vector<double> &p,
               std::vector<double> &a, std::vector<double> &m,
               std::vector<double> &q) {
  a.assign(p.begin(), p.begin() + in.k);
  m.assign(p.begin() + in.k, p.begin() + in.k + in.k * in.d);
  q.assign(p.begin() + in.k + in.k * in.d, p.end());
}

void zero(GmmData &d) {
  std::fill(d.da.begin(), d.da.end(), 0.0);
  std::fill(d.dm.begin(), d.dm.end(), 0.0);
  std::fill(d.dq.begin(), d.dq.end(), 0.0);
}

void flatten(const GmmData &d, double *out) {
  out = std::copy(d.da.begin(), d.da.end(), out);
  out = std::copy(d.dm.begin(), d.dm.end(), out);
  std::copy(d.dq.begin(), d.dq.end(), out);
}

Formulation components_form(std::shared_ptr<GmmData> d) {
  Formulation F;
  F.name = "components";
  F.summary = "std::vector and structs, component-major, n x K main terms, "
              "Q (x - mu) row by row into an accumulator";
  F.fluxionSource = "bench/formulations/gmm_components.cpp";
  F.manualSource = "bench/formulations/gmm_components_manual.cpp";
  F.methods.push_back({"manual", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         zero(*d);
                         std::size_t stored = 0;
                         double v = gmm_components_manual(
                             d->shape, in.alphas, in.means, in.icf, in.x,
                             d->prior, &d->da, &d->dm, &d->dq, &stored);
                         flatten(*d, out);
                         if (bytes)
                           *bytes = stored;
                         return v;
                       }});
  F.methods.push_back({"fluxion", [d](double *out, std::size_t *bytes) {
                         const auto &in = d->in;
                         zero(*d);
                         double v = fluxion_call(bytes, [&] {
                           return gmm_components_grad(
                               d->shape, in.alphas, in.means, in.icf, in.x,
                               d->prior, &d->da, &d->dm, &d->dq);
                         });
                         flatten(*d, out);
                         return v;
                       }});
  F.primal = [d](const std::vector<double> &p) {
    std::vector<double> a, m, q;
    unflatten(d->in, p, a, m, q);
    return gmm_components(d->shape, a, m, q, d->in.x, d->prior);
  };
  return F;
}

Instance make(int dim, int k, int n, bool fd) {
  auto d = std::make_shared<GmmData>();
  d->in = adbench::gmm_make_input(dim, k, n, 1000 + 100 * dim + k);
  d->shape = {dim, k, n};
  d->prior = {d->in.gamma, d->in.m};
  d->da.assign(d->in.alphas.size(), 0.0);
  d->dm.assign(d->in.means.size(), 0.0);
  d->dq.assign(d->in.icf.size(), 0.0);
  Instance I;
  I.problem = "gmm";
  I.size = "d" + std::to_string(dim) + "_K" + std::to_string(k) + "_n" +
           std::to_string(n);
  I.params = d->in.params();
  I.outputs = I.params.size();
  I.units = n;
  I.unitName = "point";
  I.fd = fd;
  I.formulations = {helpers_form(d), inline_form(d), components_form(d)};
#ifdef FLUXION_FORMULATIONS_EIGEN
  add_eigen_form(I, d->in);
#endif
  return I;
}

} // namespace

std::vector<Instance> gmm_instances(bool check) {
  std::vector<Instance> I;
  if (check) {
    I.push_back(make(2, 5, 20, true));
    I.push_back(make(5, 3, 10, true));
    return I;
  }
  I.push_back(make(10, 25, 1000, false));
  I.push_back(make(64, 10, 1000, false));
  return I;
}

} // namespace formulations
