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

  Formulation F;
  F.name = "eigen";
  F.summary = "Eigen matrices: dense Q per component, "
              "(Q * (X.col(i) - means.col(c))).squaredNorm()";
  F.fluxionSource = "bench/formulations/gmm_eigen.cpp";
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
  F.methods.push_back({"fluxion", [d](double *out, std::size_t *bytes) {
                         d->zero();
                         if (bytes)
                           fluxion::reset_memory_peaks();
                         double v = gmm_eigen_grad(d->alphas, d->means, d->icf,
                                                   d->X, d->gamma, d->m, &d->da,
                                                   &d->dm, &d->dq);
                         if (bytes)
                           *bytes = fluxion::memory_stats().totalPeak();
                         d->flatten(out);
                         return v;
                       }});
  const int k = in.k, dim = in.d;
  F.primal = [d, k, dim, tri](const std::vector<double> &p) {
    Eigen::VectorXd a = Eigen::Map<const Eigen::VectorXd>(p.data(), k);
    Eigen::MatrixXd mu =
        Eigen::Map<const Eigen::MatrixXd>(p.data() + k, dim, k);
    Eigen::MatrixXd q =
        Eigen::Map<const Eigen::MatrixXd>(p.data() + k + k * dim, tri, k);
    return gmm_eigen(a, mu, q, d->X, d->gamma, d->m);
  };
  // The same objective written compactly; the hand-written adjoint is the
  // one above (the same computation, the same data).
  Formulation C;
  C.name = "eigen_compact";
  C.summary = "Eigen, compactly: Q declared per component, Q.diagonal() = "
              "...exp(), Q.triangularView<Lower>() * (x - mu), array "
              "log-sum-exps";
  C.fluxionSource = "bench/formulations/gmm_eigen_compact.cpp";
  C.manualSource = F.manualSource;
  C.methods.push_back(F.methods[0]);
  C.methods.push_back({"fluxion", [d](double *out, std::size_t *bytes) {
                         d->zero();
                         if (bytes)
                           fluxion::reset_memory_peaks();
                         double v = gmm_eigen_compact_grad(
                             d->alphas, d->means, d->icf, d->X, d->gamma,
                             d->m, &d->da, &d->dm, &d->dq);
                         if (bytes)
                           *bytes = fluxion::memory_stats().totalPeak();
                         d->flatten(out);
                         return v;
                       }});
  C.primal = [d, k, dim, tri](const std::vector<double> &p) {
    Eigen::VectorXd a = Eigen::Map<const Eigen::VectorXd>(p.data(), k);
    Eigen::MatrixXd mu =
        Eigen::Map<const Eigen::MatrixXd>(p.data() + k, dim, k);
    Eigen::MatrixXd q =
        Eigen::Map<const Eigen::MatrixXd>(p.data() + k + k * dim, tri, k);
    return gmm_eigen_compact(a, mu, q, d->X, d->gamma, d->m);
  };
  inst.formulations.push_back(std::move(F));
  inst.formulations.push_back(std::move(C));
}

} // namespace formulations
