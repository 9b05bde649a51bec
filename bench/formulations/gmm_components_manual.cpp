// Hand-written adjoint of the components GMM formulation
// (gmm_components.cpp), component-major like it. The forward sweep keeps
// Q (x - mu) of every (point, component) pair and the main terms; after the
// log-sum-exp of every point, the reverse sweep visits the components again,
// recomputing x - mu (one subtraction per entry) rather than storing it.
#include "gmm_forms.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace formulations {
namespace {

int lower_index(int d, int row, int col) {
  return d + col * (2 * d - col - 1) / 2 + (row - col - 1);
}

} // namespace

double gmm_components_manual(
    const GmmShape &shape, const std::vector<double> &alphas,
    const std::vector<double> &means, const std::vector<double> &icf,
    const std::vector<double> &x, const GmmPrior &prior,
    std::vector<double> *d_alphas, std::vector<double> *d_means,
    std::vector<double> *d_icf, std::size_t *bytes) {
  const int d = shape.d, k = shape.k, n = shape.n;
  const int tri = d * (d + 1) / 2;
  const double g2 = prior.gamma * prior.gamma;
  std::vector<double> terms(std::size_t(n) * k), lse(n);
  std::vector<double> Y(std::size_t(n) * k * d); // Q (x - mu), pair (c, p)
  std::vector<double> qdiag(std::size_t(k) * d), logdet(k);
  std::vector<double> diff(d), ybar(d), ddiff(d), dqd(d);
  double log_prior = 0;
  for (int c = 0; c < k; ++c) {
    const int q0 = c * tri;
    double *qd = &qdiag[std::size_t(c) * d];
    double frob = 0;
    logdet[c] = 0;
    for (int j = 0; j < d; ++j) {
      qd[j] = std::exp(icf[q0 + j]);
      logdet[c] += icf[q0 + j];
      frob += qd[j] * qd[j];
    }
    for (int j = d; j < tri; ++j)
      frob += icf[q0 + j] * icf[q0 + j];
    log_prior += 0.5 * g2 * frob - prior.m * logdet[c];
    for (int p = 0; p < n; ++p) {
      double *y = &Y[(std::size_t(c) * n + p) * d];
      for (int j = 0; j < d; ++j)
        diff[j] = x[p * d + j] - means[c * d + j];
      double sq = 0;
      for (int row = 0; row < d; ++row) {
        double acc = qd[row] * diff[row];
        for (int col = 0; col < row; ++col)
          acc += icf[q0 + lower_index(d, row, col)] * diff[col];
        y[row] = acc;
        sq += acc * acc;
      }
      terms[std::size_t(p) * k + c] = alphas[c] + logdet[c] - 0.5 * sq;
    }
  }
  double slse = 0;
  for (int p = 0; p < n; ++p) {
    const double *tp = &terms[std::size_t(p) * k];
    double mx = *std::max_element(tp, tp + k);
    double se = 0;
    for (int c = 0; c < k; ++c)
      se += std::exp(tp[c] - mx);
    lse[p] = mx + std::log(se);
    slse += lse[p];
  }
  const double amax = *std::max_element(alphas.begin(), alphas.end());
  double ase = 0;
  for (double a : alphas)
    ase += std::exp(a - amax);
  const double lse_alphas = amax + std::log(ase);

  // Reverse, one component at a time.
  for (int c = 0; c < k; ++c) {
    const int q0 = c * tri;
    const double *qd = &qdiag[std::size_t(c) * d];
    double wsum = 0;
    std::fill(dqd.begin(), dqd.end(), 0.0);
    for (int p = 0; p < n; ++p) {
      const double w = std::exp(terms[std::size_t(p) * k + c] - lse[p]);
      wsum += w;
      const double *y = &Y[(std::size_t(c) * n + p) * d];
      for (int j = 0; j < d; ++j)
        diff[j] = x[p * d + j] - means[c * d + j];
      for (int row = 0; row < d; ++row) {
        const double yb = -w * y[row];
        dqd[row] += yb * diff[row];
        ddiff[row] = qd[row] * yb;
      }
      for (int row = 0; row < d; ++row) {
        const double yb = -w * y[row];
        for (int col = 0; col < row; ++col) {
          const int at = q0 + lower_index(d, row, col);
          (*d_icf)[at] += yb * diff[col];
          ddiff[col] += icf[at] * yb;
        }
      }
      for (int j = 0; j < d; ++j)
        (*d_means)[c * d + j] -= ddiff[j];
    }
    (*d_alphas)[c] += wsum - n * std::exp(alphas[c] - lse_alphas);
    const double dlogdet = wsum - prior.m;
    for (int j = 0; j < d; ++j)
      (*d_icf)[q0 + j] += (dqd[j] + g2 * qd[j]) * qd[j] + dlogdet;
    for (int j = d; j < tri; ++j)
      (*d_icf)[q0 + j] += g2 * icf[q0 + j];
  }

  const int pn = d + prior.m + 1;
  double lgd = 0.25 * d * (d - 1) * std::log(M_PI);
  for (int j = 1; j <= d; ++j)
    lgd += std::lgamma(0.5 * pn + 0.5 * (1 - j));
  const double cst =
      pn * d * (std::log(prior.gamma) - 0.5 * std::log(2.0)) - lgd;
  *bytes =
      (Y.size() + terms.size() + lse.size() + qdiag.size()) * sizeof(double);
  return -0.5 * n * d * std::log(2 * M_PI) + slse - n * lse_alphas + log_prior -
         k * cst;
}

} // namespace formulations
