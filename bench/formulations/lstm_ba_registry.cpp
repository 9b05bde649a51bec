// The LSTM and bundle-adjustment formulations as registry entries
// (registry.hpp).
#include "ba_forms.hpp"
#include "lstm_forms.hpp"
#include "registry.hpp"

#include "ba.hpp" // bench/adbench: inputs, helpers formulation, hand-written
#include "burgers.hpp" // bench/adbench: adolc_tape_bytes
#include "lstm.hpp" // bench/adbench: inputs, helpers formulation, hand-written

#include <fluxion/memory.hpp>

#include <algorithm>
#include <cmath>

namespace formulations {
namespace {

constexpr short LstmAdolcTag = 23;

template <class F> double fluxion_call(std::size_t *bytes, F &&call) {
  if (bytes)
    fluxion::reset_memory_peaks();
  const double v = call();
  if (bytes)
    *bytes = fluxion::memory_stats().totalPeak();
  return v;
}

// ---------------------------------------------------------------- LSTM ----

/// What both hand-written LSTM adjoints keep: the states of every layer
/// after every step, four gates per cell and step, the softmax per step.
std::size_t lstm_manual_bytes(const adbench::LstmInput &in) {
  const std::size_t steps = in.c - 1, lb = std::size_t(in.l) * in.b;
  return (2 * steps * lb + 4 * steps * lb + steps * in.b) * sizeof(double);
}

Formulation lstm_helpers(std::shared_ptr<adbench::LstmInput> d) {
  Formulation F;
  F.name = "helpers";
  F.summary = "helpers lstm_model, lstm_predict, logsumexp; state updated "
              "through pointers (bench/adbench/lstm.cpp)";
  F.fluxionSource = "bench/adbench/lstm.cpp";
  F.manualSource = "bench/adbench/lstm_manual.cpp";
  const std::size_t nm = d->main_params.size();
  F.methods.push_back({"manual", [d, nm](double *out, std::size_t *bytes) {
                         const auto &in = *d;
                         double v = adbench::lstm_manual_grad(
                             in.l, in.c, in.b, in.main_params.data(),
                             in.extra_params.data(), in.state.data(),
                             in.sequence.data(), out, out + nm);
                         if (bytes)
                           *bytes = lstm_manual_bytes(in);
                         return v;
                       }});
  F.methods.push_back({"fluxion", [d, nm](double *out, std::size_t *bytes) {
                         const auto &in = *d;
                         return fluxion_call(bytes, [&] {
                           return lstm_objective_grad(
                               in.l, in.c, in.b, in.main_params.data(),
                               in.extra_params.data(), in.state.data(),
                               in.sequence.data(), out, out + nm);
                         });
                       }});
#ifdef FLUXION_ADBENCH_ADOLC
  F.methods.push_back(
      {"adolc", [d](double *out, std::size_t *bytes) {
         std::vector<double> g(d->main_params.size() + d->extra_params.size());
         double v =
             adbench::lstm_adolc_tape_and_gradient(*d, LstmAdolcTag, g.data());
         for (std::size_t i = 0; i < g.size(); ++i)
           out[i] += g[i];
         if (bytes)
           *bytes = adbench::adolc_tape_bytes(LstmAdolcTag);
         return v;
       }});
#endif
  F.primal = [d, nm](const std::vector<double> &p) {
    return lstm_objective(d->l, d->c, d->b, p.data(), p.data() + nm,
                          d->state.data(), d->sequence.data());
  };
  return F;
}

Formulation lstm_inline_form(std::shared_ptr<adbench::LstmInput> d) {
  Formulation F;
  F.name = "inline";
  F.summary = "one function, inline loops, 2-D state arrays overwritten each "
              "step, gate array squashed in place";
  F.fluxionSource = "bench/formulations/lstm_inline.cpp";
  F.manualSource = "bench/formulations/lstm_inline_manual.cpp";
  const std::size_t nm = d->main_params.size();
  F.methods.push_back({"manual", [d, nm](double *out, std::size_t *bytes) {
                         const auto &in = *d;
                         std::size_t stored = 0;
                         double v = lstm_inline_manual(
                             in.l, in.c, in.b, in.main_params.data(),
                             in.extra_params.data(), in.state.data(),
                             in.sequence.data(), out, out + nm, &stored);
                         if (bytes)
                           *bytes = stored;
                         return v;
                       }});
  F.methods.push_back({"fluxion", [d, nm](double *out, std::size_t *bytes) {
                         const auto &in = *d;
                         return fluxion_call(bytes, [&] {
                           return lstm_inline_grad(
                               in.l, in.c, in.b, in.main_params.data(),
                               in.extra_params.data(), in.state.data(),
                               in.sequence.data(), out, out + nm);
                         });
                       }});
  F.primal = [d, nm](const std::vector<double> &p) {
    return lstm_inline(d->l, d->c, d->b, p.data(), p.data() + nm,
                       d->state.data(), d->sequence.data());
  };
  return F;
}

Instance make_lstm(int l, int c, int b, bool fd) {
  auto d = std::make_shared<adbench::LstmInput>(
      adbench::lstm_make_input(l, c, b, 3000 + 10 * l + c));
  Instance I;
  I.problem = "lstm";
  I.size = "l" + std::to_string(l) + "_c" + std::to_string(c) + "_b" +
           std::to_string(b);
  I.params = d->params();
  I.outputs = I.params.size();
  I.units = c - 1;
  I.unitName = "step";
  I.fd = fd;
  I.formulations = {lstm_helpers(d), lstm_inline_form(d)};
  return I;
}

// ------------------------------------------------- bundle adjustment ----

struct BaData {
  adbench::BaInput in;
  adbench::BaJacobian J;
  std::vector<double> e, w;
};

/// The Jacobian's nonzeros, flat (BaJacobian::flat's order), added to out;
/// returns the sum of the residuals.
double emit(BaData &d, double *out) {
  std::size_t i = 0;
  for (double v : d.J.reproj)
    out[i++] += v;
  for (double v : d.J.weight)
    out[i++] += v;
  double s = 0;
  for (double v : d.e)
    s += v;
  for (double v : d.w)
    s += v;
  return s;
}

void ba_inline_jacobian_all(BaData &d) {
  const auto &in = d.in;
  for (int i = 0; i < in.p; ++i)
    ba_inline_jacobian(&in.cams[adbench::BaCamSize * in.obs[2 * i]],
                       &in.X[3 * in.obs[2 * i + 1]], in.w[i], &in.feats[2 * i],
                       &d.e[2 * i], &d.J.reproj[2 * adbench::BaBlockCols * i]);
  // The weight residual 1 - w^2 is the same in every formulation: its
  // derivative by hand.
  for (int i = 0; i < in.p; ++i) {
    d.w[i] = 1 - in.w[i] * in.w[i];
    d.J.weight[i] = -2 * in.w[i];
  }
}

/// Central differences of a residual function over the first observations.
std::vector<double> ba_fd(const adbench::BaInput &in, int nobs,
                          void (*residual)(const double *, const double *,
                                           double, const double *, double *)) {
  std::vector<double> out(2 * adbench::BaBlockCols * nobs);
  for (int i = 0; i < nobs; ++i) {
    double x[adbench::BaBlockCols];
    const double *cam = &in.cams[adbench::BaCamSize * in.obs[2 * i]];
    const double *X = &in.X[3 * in.obs[2 * i + 1]];
    std::copy(cam, cam + adbench::BaCamSize, x);
    std::copy(X, X + 3, x + adbench::BaCamSize);
    x[adbench::BaCamSize + 3] = in.w[i];
    double *block = &out[2 * adbench::BaBlockCols * i];
    for (int j = 0; j < adbench::BaBlockCols; ++j) {
      const double xj = x[j], h = 1e-6 * std::fmax(1.0, std::fabs(xj));
      double up[2], dn[2];
      x[j] = xj + h;
      residual(x, x + adbench::BaCamSize, x[adbench::BaCamSize + 3],
               &in.feats[2 * i], up);
      x[j] = xj - h;
      residual(x, x + adbench::BaCamSize, x[adbench::BaCamSize + 3],
               &in.feats[2 * i], dn);
      x[j] = xj;
      block[j] = (up[0] - dn[0]) / (2 * h);
      block[adbench::BaBlockCols + j] = (up[1] - dn[1]) / (2 * h);
    }
  }
  return out;
}

void ba_inline_residual(const double *cam, const double *X, double w,
                        const double *feat, double *err) {
  ba_inline(cam, X, w, feat, err);
}

/// What bench/adbench/ba_manual.cpp keeps of one observation for its two
/// reverse sweeps: its struct Forward, 25 doubles and a flag (padded to 8
/// bytes), on the stack.
constexpr std::size_t BaManualBytes = 26 * sizeof(double);

Method ba_manual(std::shared_ptr<BaData> d) {
  return {"manual", [d](double *out, std::size_t *bytes) {
            d->J.resize(d->in.p);
            adbench::ba_manual_jacobian(d->in, d->e.data(), d->w.data(), d->J);
            if (bytes)
              *bytes = BaManualBytes;
            return emit(*d, out);
          }};
}

Formulation ba_helpers(std::shared_ptr<BaData> d, int fdObs) {
  Formulation F;
  F.name = "helpers";
  F.summary = "helpers over fixed-size arrays (bench/adbench/ba.cpp)";
  F.fluxionSource = "bench/adbench/ba.cpp";
  F.manualSource = "bench/adbench/ba_manual.cpp";
  F.methods.push_back(ba_manual(d));
  F.methods.push_back({"fluxion", [d](double *out, std::size_t *bytes) {
                         d->J.resize(d->in.p);
                         fluxion_call(bytes, [&] {
                           adbench::ba_fluxion_jacobian(d->in, d->e.data(),
                                                        d->w.data(), d->J);
                           return 0.0;
                         });
                         return emit(*d, out);
                       }});
#ifdef FLUXION_ADBENCH_ADOLC
  F.methods.push_back(
      {"adolc", [d](double *out, std::size_t *) {
         // ADOL-C tapes one observation's residual function once per branch
         // and evaluates it for every observation: it reports no bytes per
         // observation.
         d->J.resize(d->in.p);
         adbench::ba_adolc_jacobian(d->in, d->e.data(), d->w.data(), d->J);
         return emit(*d, out);
       }});
#endif
  F.jacobianFd = [d, fdObs] {
    return ba_fd(d->in, fdObs, adbench::ba_residual);
  };
  return F;
}

Formulation ba_inline_form(std::shared_ptr<BaData> d, int fdObs) {
  Formulation F;
  F.name = "inline";
  F.summary = "one function of scalars, Rodrigues' rotation spelled out";
  F.fluxionSource = "bench/formulations/ba_inline.cpp";
  F.manualSource = "bench/adbench/ba_manual.cpp";
  F.methods.push_back(ba_manual(d));
  F.methods.push_back({"fluxion", [d](double *out, std::size_t *bytes) {
                         d->J.resize(d->in.p);
                         fluxion_call(bytes, [&] {
                           ba_inline_jacobian_all(*d);
                           return 0.0;
                         });
                         return emit(*d, out);
                       }});
  F.jacobianFd = [d, fdObs] { return ba_fd(d->in, fdObs, ba_inline_residual); };
  return F;
}

Instance make_ba(const char *name, int n, int m, int p, bool fd) {
  auto d = std::make_shared<BaData>();
  d->in = adbench::ba_make_input(n, m, p, 2000 + n);
  d->J.resize(p);
  d->e.assign(2 * p, 0.0);
  d->w.assign(p, 0.0);
  Instance I;
  I.problem = "ba";
  I.size = std::string(name) + "_n" + std::to_string(n) + "_m" +
           std::to_string(m) + "_p" + std::to_string(p);
  I.outputs = d->J.flat().size();
  // Each observation's f_jacobian records and pops its own tape: the peak
  // over the whole Jacobian is already per observation.
  I.units = 1;
  I.unitName = "observation";
  I.fd = fd;
  const int fdObs = std::min(p, 50);
  I.formulations = {ba_helpers(d, fdObs), ba_inline_form(d, fdObs)};
  return I;
}

} // namespace

std::vector<Instance> lstm_instances(bool check) {
  std::vector<Instance> I;
  if (check) {
    I.push_back(make_lstm(1, 4, 3, true));
    I.push_back(make_lstm(2, 8, 5, true));
    return I;
  }
  I.push_back(make_lstm(2, 1024, 14, false));
  I.push_back(make_lstm(4, 4096, 14, false));
  return I;
}

std::vector<Instance> ba_instances(bool check) {
  std::vector<Instance> I;
  if (check) {
    I.push_back(make_ba("small", 3, 5, 12, true));
    return I;
  }
  I.push_back(make_ba("ba1", 49, 7776, 31843, true));
  return I;
}

} // namespace formulations
