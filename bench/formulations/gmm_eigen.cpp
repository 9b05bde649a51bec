// GMM formulation "eigen": the objective written with Eigen, as an Eigen
// user writes it: the means and the icf parameters as the columns of
// matrices (one column per component, the same memory layout as ADBench's
// arrays), the data points as the columns of X, each component's Q built in
// a dense d x d matrix, the main terms kept in a K x n matrix, and
// `(Q * (X.col(i) - means.col(c))).squaredNorm()`. Compiled with the Fluxion
// plugin.
//
// gmm_eigen_compact.cpp writes the same computation more compactly (Q
// declared in the loop over components, `Q.diagonal() = ...`,
// `Q.triangularView<Eigen::Lower>() * ...`, array log-sum-exps); this one
// spells those parts as loops over coefficients, as it had to when the
// plugin refused them.
#include "gmm_forms.hpp"

#include <fluxion/fluxion.hpp>

#include <Eigen/Dense>

#include <cmath>

[[fluxion::grad("alphas", "means", "icf")]] double
gmm_eigen(const Eigen::VectorXd &alphas, const Eigen::MatrixXd &means,
          const Eigen::MatrixXd &icf, const Eigen::MatrixXd &X, double gamma,
          int m) {
  const int d = static_cast<int>(means.rows());
  const int k = static_cast<int>(means.cols());
  const int n = static_cast<int>(X.cols());
  Eigen::MatrixXd terms(k, n);
  Eigen::MatrixXd Q(d, d);
  double prior = 0;
  for (int c = 0; c < k; ++c) {
    Q.setZero();
    for (int j = 0; j < d; ++j)
      Q(j, j) = std::exp(icf(j, c));
    int li = d;
    for (int j = 0; j < d; ++j)
      for (int l = j + 1; l < d; ++l)
        Q(l, j) = icf(li++, c);
    const double logdet = icf.col(c).head(d).sum();
    prior += 0.5 * gamma * gamma * Q.squaredNorm() - m * logdet;
    for (int i = 0; i < n; ++i)
      terms(c, i) = alphas(c) + logdet -
                    0.5 * (Q * (X.col(i) - means.col(c))).squaredNorm();
  }
  double slse = 0;
  for (int i = 0; i < n; ++i) {
    const double mx = terms.col(i).maxCoeff();
    double se = 0;
    for (int c = 0; c < k; ++c)
      se += std::exp(terms(c, i) - mx);
    slse += mx + std::log(se);
  }
  const double amax = alphas.maxCoeff();
  double ase = 0;
  for (int c = 0; c < k; ++c)
    ase += std::exp(alphas(c) - amax);
  const double lse_alphas = amax + std::log(ase);

  const int pn = d + m + 1;
  double lgd = 0.25 * d * (d - 1) * std::log(M_PI);
  for (int j = 1; j <= d; ++j)
    lgd += std::lgamma(0.5 * pn + 0.5 * (1 - j));
  const double cst = pn * d * (std::log(gamma) - 0.5 * std::log(2.0)) - lgd;
  return -0.5 * n * d * std::log(2 * M_PI) + slse - n * lse_alphas + prior -
         k * cst;
}
