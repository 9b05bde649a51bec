// Hand-written adjoint of the Eigen GMM formulation (gmm_eigen.cpp), written
// with Eigen the way an Eigen user writes a reverse sweep: the forward sweep
// computes each component's main terms for all points at once (one matrix
// product Q (X - mu 1^T)) and keeps only the K x n main terms and the
// points' log-sum-exps; the reverse sweep rebuilds each component's Q and
// Q (X - mu 1^T), weights its columns by the softmax, and gets the
// adjoints of Q and mu from two more matrix products.
#include "gmm_eigen_forms.hpp"

#include <cmath>

namespace formulations {
namespace {

void build_q(const Eigen::MatrixXd &icf, int c, Eigen::MatrixXd &Q) {
  const int d = static_cast<int>(Q.rows());
  Q.setZero();
  for (int j = 0; j < d; ++j)
    Q(j, j) = std::exp(icf(j, c));
  int li = d;
  for (int j = 0; j < d; ++j)
    for (int l = j + 1; l < d; ++l)
      Q(l, j) = icf(li++, c);
}

} // namespace

double gmm_eigen_manual(const Eigen::VectorXd &alphas,
                        const Eigen::MatrixXd &means,
                        const Eigen::MatrixXd &icf, const Eigen::MatrixXd &X,
                        double gamma, int m, Eigen::VectorXd *d_alphas,
                        Eigen::MatrixXd *d_means, Eigen::MatrixXd *d_icf,
                        std::size_t *bytes) {
  const int d = static_cast<int>(means.rows());
  const int k = static_cast<int>(means.cols());
  const int n = static_cast<int>(X.cols());
  const double g2 = gamma * gamma;
  Eigen::MatrixXd terms(k, n), Q(d, d), XC(d, n), Y(d, n), dQ(d, d);
  double prior = 0;
  for (int c = 0; c < k; ++c) {
    build_q(icf, c, Q);
    const double logdet = icf.col(c).head(d).sum();
    prior += 0.5 * g2 * Q.squaredNorm() - m * logdet;
    XC = X.colwise() - means.col(c);
    Y.noalias() = Q * XC;
    terms.row(c) =
        (alphas(c) + logdet - 0.5 * Y.colwise().squaredNorm().array()).matrix();
  }
  const Eigen::RowVectorXd mx = terms.colwise().maxCoeff();
  const Eigen::RowVectorXd lse =
      mx.array() + (terms.rowwise() - mx).array().exp().colwise().sum().log();
  const double amax = alphas.maxCoeff();
  const double lse_alphas =
      amax + std::log((alphas.array() - amax).exp().sum());

  // Reverse: W(c, i) = d lse_i / d terms(c, i), the softmax weights.
  const Eigen::MatrixXd W = (terms.rowwise() - lse).array().exp().matrix();
  for (int c = 0; c < k; ++c) {
    build_q(icf, c, Q);
    XC = X.colwise() - means.col(c);
    Y.noalias() = Q * XC;
    Y.array().rowwise() *= W.row(c).array(); // w_i y_i
    dQ.noalias() = -Y * XC.transpose();
    dQ += g2 * Q; // prior: 0.5 gamma^2 |Q|_F^2
    d_means->col(c).noalias() += Q.transpose() * Y.rowwise().sum();
    const double wsum = W.row(c).sum();
    (*d_alphas)(c) += wsum - n * std::exp(alphas(c) - lse_alphas);
    for (int j = 0; j < d; ++j)
      (*d_icf)(j, c) += dQ(j, j) * Q(j, j) + wsum - m;
    int li = d;
    for (int j = 0; j < d; ++j)
      for (int l = j + 1; l < d; ++l)
        (*d_icf)(li++, c) += dQ(l, j);
  }

  const int pn = d + m + 1;
  double lgd = 0.25 * d * (d - 1) * std::log(M_PI);
  for (int j = 1; j <= d; ++j)
    lgd += std::lgamma(0.5 * pn + 0.5 * (1 - j));
  const double cst = pn * d * (std::log(gamma) - 0.5 * std::log(2.0)) - lgd;
  *bytes = (terms.size() + lse.size()) * sizeof(double);
  return -0.5 * n * d * std::log(2 * M_PI) + lse.sum() - n * lse_alphas +
         prior - k * cst;
}

} // namespace formulations
