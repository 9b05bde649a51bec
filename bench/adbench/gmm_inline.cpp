// GMM objective (ADBench) written as one function with inline loops, the
// way a C++ programmer might write it without helpers: the lower-triangular
// index kept in a counter advanced inside the nested loop (`++li`), the
// local arrays xcentered, qxc and main_term reused for every point and
// component, log-sum-exp written out. Same value as gmm.cpp; compiled with
// the Fluxion plugin (gmm_objective_inline_grad).
#include "gmm.hpp"

#include <fluxion/fluxion.hpp>

#include <cmath>

using adbench::GmmMaxD;
using adbench::GmmMaxK;

[[fluxion::grad("alphas", "means", "icf")]] double
gmm_objective_inline(int d, int k, int n, const double *alphas,
                     const double *means, const double *icf, const double *x,
                     double wishart_gamma, int wishart_m) {
  const int icf_sz = d * (d + 1) / 2;
  double xcentered[GmmMaxD], qxc[GmmMaxD], main_term[GmmMaxK];

  double slse = 0;
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < k; ++c) {
      const double *q = icf + c * icf_sz;
      double sum_q = 0;
      for (int j = 0; j < d; ++j) {
        xcentered[j] = x[i * d + j] - means[c * d + j];
        qxc[j] = std::exp(q[j]) * xcentered[j];
        sum_q += q[j];
      }
      int li = d;
      for (int j = 0; j < d; ++j)
        for (int l = j + 1; l < d; ++l) {
          qxc[l] += q[li] * xcentered[j];
          ++li;
        }
      double sq = 0;
      for (int j = 0; j < d; ++j)
        sq += qxc[j] * qxc[j];
      main_term[c] = alphas[c] + sum_q - 0.5 * sq;
    }
    double mx = main_term[0];
    for (int c = 1; c < k; ++c)
      if (main_term[c] > mx)
        mx = main_term[c];
    double se = 0;
    for (int c = 0; c < k; ++c)
      se += std::exp(main_term[c] - mx);
    slse += std::log(se) + mx;
  }

  double amx = alphas[0];
  for (int c = 1; c < k; ++c)
    if (alphas[c] > amx)
      amx = alphas[c];
  double ase = 0;
  for (int c = 0; c < k; ++c)
    ase += std::exp(alphas[c] - amx);
  const double lse_alphas = std::log(ase) + amx;

  // Wishart prior.
  const int pn = d + wishart_m + 1;
  double prior = 0;
  for (int c = 0; c < k; ++c) {
    double frob = 0, sum_q = 0;
    for (int j = 0; j < d; ++j) {
      double e = std::exp(icf[c * icf_sz + j]);
      frob += e * e;
      sum_q += icf[c * icf_sz + j];
    }
    for (int j = d; j < icf_sz; ++j)
      frob += icf[c * icf_sz + j] * icf[c * icf_sz + j];
    prior += 0.5 * wishart_gamma * wishart_gamma * frob - wishart_m * sum_q;
  }
  double lgd = 0.25 * d * (d - 1) * std::log(M_PI);
  for (int j = 1; j <= d; ++j)
    lgd += std::lgamma(0.5 * pn + 0.5 * (1 - j));
  const double cst =
      pn * d * (std::log(wishart_gamma) - 0.5 * std::log(2.0)) - lgd;
  prior -= k * cst;

  return -n * d * 0.5 * std::log(2 * M_PI) + slse - n * lse_alphas + prior;
}
