// GMM formulation "eigen_compact": the Eigen formulation as an Eigen user
// first writes it (gmm_eigen.cpp spells these parts as loops over
// coefficients): Q declared in the loop over components, its diagonal set
// with diagonal(), the triangular product through triangularView, and the
// log-sum-exps with array expressions. Compiled with the Fluxion plugin.
#include "gmm_eigen_forms.hpp"

#include <fluxion/fluxion.hpp>

#include <Eigen/Dense>

#include <cmath>

[[fluxion::grad("alphas", "means", "icf")]] double
gmm_eigen_compact(const Eigen::VectorXd &alphas, const Eigen::MatrixXd &means,
                  const Eigen::MatrixXd &icf, const Eigen::MatrixXd &X,
                  double gamma, int m) {
  const int d = static_cast<int>(means.rows());
  const int k = static_cast<int>(means.cols());
  const int n = static_cast<int>(X.cols());
  Eigen::MatrixXd terms(k, n);
  double prior = 0;
  for (int c = 0; c < k; ++c) {
    Eigen::MatrixXd Q = Eigen::MatrixXd::Zero(d, d);
    Q.diagonal() = icf.col(c).head(d).array().exp();
    int li = d;
    for (int j = 0; j < d; ++j)
      for (int l = j + 1; l < d; ++l)
        Q(l, j) = icf(li++, c);
    const double logdet = icf.col(c).head(d).sum();
    prior += 0.5 * gamma * gamma * Q.squaredNorm() - m * logdet;
    for (int i = 0; i < n; ++i)
      terms(c, i) =
          alphas(c) + logdet -
          0.5 * (Q.triangularView<Eigen::Lower>() * (X.col(i) - means.col(c)))
                    .squaredNorm();
  }
  double slse = 0;
  for (int i = 0; i < n; ++i) {
    const double mx = terms.col(i).maxCoeff();
    slse += mx + std::log((terms.col(i).array() - mx).exp().sum());
  }
  const double amax = alphas.maxCoeff();
  const double lse_alphas =
      amax + std::log((alphas.array() - amax).exp().sum());

  const int pn = d + m + 1;
  double lgd = 0.25 * d * (d - 1) * std::log(M_PI);
  for (int j = 1; j <= d; ++j)
    lgd += std::lgamma(0.5 * pn + 0.5 * (1 - j));
  const double cst = pn * d * (std::log(gamma) - 0.5 * std::log(2.0)) - lgd;
  return -0.5 * n * d * std::log(2 * M_PI) + slse - n * lse_alphas + prior -
         k * cst;
}
