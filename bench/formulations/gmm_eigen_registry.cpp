// The Eigen GMM formulation as a registry entry (registry.hpp), built when
// Eigen is found.
#include "gmm_eigen_forms.hpp"
#include "registry.hpp"

#include "gmm.hpp" // bench/adbench: inputs

#include <fluxion/memory.hpp>

#include <algorithm>

namespace formulations {

namespace {

struct EigenData {
  Eigen::VectorXd alphas;
  Eigen::MatrixXd means, icf, X;
  double gamma;
  int m;
  Eigen::VectorXd da;
  Eigen::MatrixXd dm, dq;
  void zero() {
    da.setZero();
    dm.setZero();
    dq.setZero();
  }
  void flatten(double *out) const {
    out = std::copy(da.data(), da.data() + da.size(), out);
    out = std::copy(dm.data(), dm.data() + dm.size(), out);
    std::copy(dq.data(), dq.data() + dq.size(), out);
  }
};

using EigenObjective = double (*)(const Eigen::VectorXd &,
                                  const Eigen::MatrixXd &,
                                  const Eigen::MatrixXd &,
                                  const Eigen::MatrixXd &, double, int);
using EigenGradient = double (*)(const Eigen::VectorXd &,
                                 const Eigen::MatrixXd &,
                                 const Eigen::MatrixXd &,
                                 const Eigen::MatrixXd &, double, int,
                                 Eigen::VectorXd *, Eigen::MatrixXd *,
                                 Eigen::MatrixXd *);

/// A formulation of the objective Objective, Fluxion's gradient Gradient,
/// timed against the hand-written adjoint of gmm_eigen_manual.cpp (every
/// Eigen formulation computes the same thing on the same data).
Formulation eigen_formulation(std::shared_ptr<EigenData> d, int k, int dim,
                              int tri, const char *name, const char *summary,
                              const char *source, EigenObjective objective,
                              EigenGradient gradient) {
  Formulation F;
  F.name = name;
  F.summary = summary;
  F.fluxionSource = source;
  F.manualSource = "bench/formulations/gmm_eigen_manual.cpp";
  F.methods.push_back({"manual", [d](double *out, std::size_t *bytes) {
                         d->zero();
                         std::size_t stored = 0;
                         double v = gmm_eigen_manual(
                             d->alphas, d->means, d->icf, d->X, d->gamma, d->m,
                             &d->da, &d->dm, &d->dq, &stored);
                         d->flatten(out);
                         if (bytes)
                           *bytes = stored;
                         return v;
                       }});
  F.methods.push_back(
      {"fluxion", [d, gradient](double *out, std::size_t *bytes) {
         d->zero();
         if (bytes)
           fluxion::reset_memory_peaks();
         double v = gradient(d->alphas, d->means, d->icf, d->X, d->gamma, d->m,
                             &d->da, &d->dm, &d->dq);
         if (bytes)
           *bytes = fluxion::memory_stats().totalPeak();
         d->flatten(out);
         return v;
       }});
  F.primal = [d, k, dim, tri, objective](const std::vector<double> &p) {
    Eigen::VectorXd a = Eigen::Map<const Eigen::VectorXd>(p.data(), k);
    Eigen::MatrixXd mu =
        Eigen::Map<const Eigen::MatrixXd>(p.data() + k, dim, k);
    Eigen::MatrixXd q =
        Eigen::Map<const Eigen::MatrixXd>(p.data() + k + k * dim, tri, k);
    return objective(a, mu, q, d->X, d->gamma, d->m);
  };
  return F;
}

} // namespace

void add_eigen_form(Instance &inst, const adbench::GmmInput &in) {
  auto d = std::make_shared<EigenData>();
  const int tri = in.icfSize();
  d->alphas = Eigen::Map<const Eigen::VectorXd>(in.alphas.data(), in.k);
  d->means = Eigen::Map<const Eigen::MatrixXd>(in.means.data(), in.d, in.k);
  d->icf = Eigen::Map<const Eigen::MatrixXd>(in.icf.data(), tri, in.k);
  d->X = Eigen::Map<const Eigen::MatrixXd>(in.x.data(), in.d, in.n);
  d->gamma = in.gamma;
  d->m = in.m;
  d->da = Eigen::VectorXd::Zero(in.k);
  d->dm = Eigen::MatrixXd::Zero(in.d, in.k);
  d->dq = Eigen::MatrixXd::Zero(tri, in.k);
  inst.formulations.push_back(eigen_formulation(
      d, in.k, in.d, tri, "eigen",
      "Eigen matrices: dense Q per component, "
      "(Q * (X.col(i) - means.col(c))).squaredNorm()",
      "bench/formulations/gmm_eigen.cpp", gmm_eigen, gmm_eigen_grad));
  inst.formulations.push_back(eigen_formulation(
      d, in.k, in.d, tri, "eigen_compact",
      "Eigen, compactly: Q declared per component, Q.diagonal() = ...exp(), "
      "Q.triangularView<Lower>() * (x - mu), array log-sum-exps",
      "bench/formulations/gmm_eigen_compact.cpp", gmm_eigen_compact,
      gmm_eigen_compact_grad));
}

} // namespace formulations
