// Hand-written adjoint of the inline GMM formulation
// (bench/adbench/gmm_inline.cpp), written for that program: one function,
// the same loops and `li` counter, exp of the diagonal taken per point and
// component as the formulation does. Each point is differentiated as soon
// as its log-sum-exp is known: the forward values of its K components
// (centred point, Q (x - mu), exp of Q's diagonal) are kept in scratch
// arrays reused for every point, so nothing grows with n.
#include "gmm_forms.hpp"

#include <cmath>
#include <vector>

namespace formulations {

double gmm_inline_manual(int d, int k, int n, const double *alphas,
                         const double *means, const double *icf,
                         const double *x, double wishart_gamma, int wishart_m,
                         double *d_alphas, double *d_means, double *d_icf,
                         std::size_t *bytes) {
  const int icf_sz = d * (d + 1) / 2;
  std::vector<double> xcentered(k * d), qxc(k * d), eq(k * d), main_term(k),
      qbar(d), xbar(d);
  double slse = 0;
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < k; ++c) {
      const double *q = icf + c * icf_sz;
      double *xc = &xcentered[c * d], *y = &qxc[c * d], *e = &eq[c * d];
      double sum_q = 0;
      for (int j = 0; j < d; ++j) {
        xc[j] = x[i * d + j] - means[c * d + j];
        e[j] = std::exp(q[j]);
        y[j] = e[j] * xc[j];
        sum_q += q[j];
      }
      int li = d;
      for (int j = 0; j < d; ++j)
        for (int l = j + 1; l < d; ++l) {
          y[l] += q[li] * xc[j];
          ++li;
        }
      double sq = 0;
      for (int j = 0; j < d; ++j)
        sq += y[j] * y[j];
      main_term[c] = alphas[c] + sum_q - 0.5 * sq;
    }
    double mx = main_term[0];
    for (int c = 1; c < k; ++c)
      if (main_term[c] > mx)
        mx = main_term[c];
    double se = 0;
    for (int c = 0; c < k; ++c)
      se += std::exp(main_term[c] - mx);
    const double lse = std::log(se) + mx;
    slse += lse;

    // Reverse for this point: d lse / d main_term[c] is the softmax weight.
    for (int c = 0; c < k; ++c) {
      const double w = std::exp(main_term[c] - lse);
      const double *q = icf + c * icf_sz;
      double *dq = d_icf + c * icf_sz;
      const double *xc = &xcentered[c * d], *y = &qxc[c * d], *e = &eq[c * d];
      d_alphas[c] += w;
      for (int j = 0; j < d; ++j)
        qbar[j] = -w * y[j];
      int li = d;
      for (int j = 0; j < d; ++j) {
        double acc = 0;
        for (int l = j + 1; l < d; ++l) {
          dq[li] += qbar[l] * xc[j];
          acc += q[li] * qbar[l];
          ++li;
        }
        xbar[j] = acc + e[j] * qbar[j];
      }
      for (int j = 0; j < d; ++j) {
        dq[j] += w + qbar[j] * e[j] * xc[j]; // sum_q, then exp(q) * xc
        d_means[c * d + j] -= xbar[j];
      }
    }
  }

  double amx = alphas[0];
  for (int c = 1; c < k; ++c)
    if (alphas[c] > amx)
      amx = alphas[c];
  double ase = 0;
  for (int c = 0; c < k; ++c)
    ase += std::exp(alphas[c] - amx);
  const double lse_alphas = std::log(ase) + amx;
  for (int c = 0; c < k; ++c)
    d_alphas[c] -= n * std::exp(alphas[c] - lse_alphas);

  const int pn = d + wishart_m + 1;
  const double g2 = wishart_gamma * wishart_gamma;
  double prior = 0;
  for (int c = 0; c < k; ++c) {
    double frob = 0, sum_q = 0;
    double *dq = d_icf + c * icf_sz;
    for (int j = 0; j < d; ++j) {
      double e = std::exp(icf[c * icf_sz + j]);
      frob += e * e;
      sum_q += icf[c * icf_sz + j];
      dq[j] += g2 * e * e - wishart_m;
    }
    for (int j = d; j < icf_sz; ++j) {
      frob += icf[c * icf_sz + j] * icf[c * icf_sz + j];
      dq[j] += g2 * icf[c * icf_sz + j];
    }
    prior += 0.5 * g2 * frob - wishart_m * sum_q;
  }
  double lgd = 0.25 * d * (d - 1) * std::log(M_PI);
  for (int j = 1; j <= d; ++j)
    lgd += std::lgamma(0.5 * pn + 0.5 * (1 - j));
  const double cst =
      pn * d * (std::log(wishart_gamma) - 0.5 * std::log(2.0)) - lgd;
  prior -= k * cst;

  *bytes = (xcentered.size() + qxc.size() + eq.size() + main_term.size()) *
           sizeof(double);
  return -n * d * 0.5 * std::log(2 * M_PI) + slse - n * lse_alphas + prior;
}

} // namespace formulations
