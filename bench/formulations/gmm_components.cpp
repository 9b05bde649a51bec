// GMM formulation "components": the objective of bench/adbench/gmm.cpp
// written component by component, with std::vector parameters and scratch,
// small structs for the problem's shape and the prior, and a different
// order and style than the other formulations: the outer loop runs over the
// mixture components and the inner one over the points, so the main terms
// of all (point, component) pairs are kept in an n x K vector before the
// log-sum-exp over components; Q (x - mu) is computed row by row into a
// scalar accumulator, with the position of Q's entries in the packed
// parameters given by a helper; the squared norm is std::inner_product.
// Compiled with the Fluxion plugin.
#include "gmm_forms.hpp"

#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

using formulations::GmmPrior;
using formulations::GmmShape;

namespace {

// Where Q's entry (row, col), row > col, sits in a component's icf block:
// after the d log-diagonal entries, the strictly lower triangle column by
// column.
int lower_index(int d, int row, int col) {
  return d + col * (2 * d - col - 1) / 2 + (row - col - 1);
}

} // namespace

[[fluxion::grad("alphas", "means", "icf")]] double
gmm_components(const GmmShape &shape, const std::vector<double> &alphas,
               const std::vector<double> &means, const std::vector<double> &icf,
               const std::vector<double> &x, const GmmPrior &prior) {
  const int d = shape.d, k = shape.k, n = shape.n;
  const int tri = d * (d + 1) / 2;
  std::vector<double> terms(static_cast<std::size_t>(n) * k);
  std::vector<double> qdiag(d), diff(d), y(d);
  double log_prior = 0;
  for (int c = 0; c < k; ++c) {
    const int q0 = c * tri;
    double logdet = 0, frob = 0;
    for (int j = 0; j < d; ++j) {
      qdiag[j] = std::exp(icf[q0 + j]);
      logdet += icf[q0 + j];
      frob += qdiag[j] * qdiag[j];
    }
    for (int j = d; j < tri; ++j)
      frob += icf[q0 + j] * icf[q0 + j];
    log_prior += 0.5 * prior.gamma * prior.gamma * frob - prior.m * logdet;

    for (int p = 0; p < n; ++p) {
      for (int j = 0; j < d; ++j)
        diff[j] = x[p * d + j] - means[c * d + j];
      for (int row = 0; row < d; ++row) {
        double acc = qdiag[row] * diff[row];
        for (int col = 0; col < row; ++col)
          acc += icf[q0 + lower_index(d, row, col)] * diff[col];
        y[row] = acc;
      }
      const double sq = std::inner_product(y.begin(), y.end(), y.begin(), 0.0);
      terms[p * k + c] = alphas[c] + logdet - 0.5 * sq;
    }
  }

  double slse = 0;
  for (int p = 0; p < n; ++p) {
    double mx = terms[p * k];
    for (int c = 1; c < k; ++c)
      mx = std::max(mx, terms[p * k + c]);
    double se = 0;
    for (int c = 0; c < k; ++c)
      se += std::exp(terms[p * k + c] - mx);
    slse += mx + std::log(se);
  }

  const double amax = *std::max_element(alphas.begin(), alphas.end());
  double ase = 0;
  for (double a : alphas)
    ase += std::exp(a - amax);

  // The prior's normalising constant (log multivariate gamma).
  const int pn = d + prior.m + 1;
  double lgd = 0.25 * d * (d - 1) * std::log(M_PI);
  for (int j = 1; j <= d; ++j)
    lgd += std::lgamma(0.5 * pn + 0.5 * (1 - j));
  const double cst =
      pn * d * (std::log(prior.gamma) - 0.5 * std::log(2.0)) - lgd;

  return -0.5 * n * d * std::log(2 * M_PI) + slse - n * (amax + std::log(ase)) +
         log_prior - k * cst;
}
