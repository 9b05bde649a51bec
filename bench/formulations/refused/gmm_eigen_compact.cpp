// The Eigen GMM formulation as an Eigen user first writes it: Q declared in
// the loop over components, its diagonal set with diagonal(), the
// triangular product through triangularView, and the log-sum-exps with
// array expressions. Refused by the plugin today (run.sh records its
// diagnostics in bench/RESULTS.md); gmm_eigen.cpp writes those parts as
// loops over coefficients.
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
  return slse - n * lse_alphas + prior;
}
