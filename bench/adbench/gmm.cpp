// GMM objective (ADBench), written the way a C++ user writes it: pointers,
// loops, small helper functions (those of ADBench's C++ reference), and local
// arrays sized for the largest problem (Fluxion differentiates fixed-size
// local arrays; a local pointer to heap memory is not supported). Compiled
// with the Fluxion plugin, which generates gmm_objective_grad /
// gmm_objective_vjp.
#include "gmm.hpp"

#include <fluxion/fluxion.hpp>

#include <cmath>

using adbench::GmmMaxD;
using adbench::GmmMaxK;

static double sqnorm(int n, const double *v) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * v[i];
  return s;
}

static double logsumexp(int n, const double *v) {
  double mx = v[0];
  for (int i = 1; i < n; ++i)
    if (v[i] > mx)
      mx = v[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::exp(v[i] - mx);
  return std::log(s) + mx;
}

// log of the multivariate gamma function Gamma_p(a); constant here (it only
// depends on d and m).
static double log_gamma_distrib(double a, int p) {
  double out = 0.25 * p * (p - 1) * std::log(M_PI);
  for (int j = 1; j <= p; ++j)
    out += std::lgamma(a + 0.5 * (1 - j));
  return out;
}

static void subtract(int d, const double *x, const double *y, double *out) {
  for (int id = 0; id < d; ++id)
    out[id] = x[id] - y[id];
}

// out = Q x, Q = diag(qdiag) + the strictly lower triangle ltri (stored
// column by column).
static void qtimesx(int d, const double *qdiag, const double *ltri,
                    const double *x, double *out) {
  for (int id = 0; id < d; ++id)
    out[id] = qdiag[id] * x[id];
  int cur = 0;
  for (int i = 0; i < d; ++i)
    for (int j = i + 1; j < d; ++j) {
      out[j] += ltri[cur] * x[i];
      ++cur;
    }
}

// Wishart prior on the inverse covariances.
static double log_wishart_prior(int d, int k, double wishart_gamma,
                                int wishart_m, const double *sum_qs,
                                const double *qdiags, const double *icf) {
  const int icf_sz = d * (d + 1) / 2;
  const int pn = d + wishart_m + 1;
  double out = 0;
  for (int ik = 0; ik < k; ++ik) {
    double frobenius =
        sqnorm(d, qdiags + ik * d) + sqnorm(icf_sz - d, icf + ik * icf_sz + d);
    out += 0.5 * wishart_gamma * wishart_gamma * frobenius -
           wishart_m * sum_qs[ik];
  }
  const double c = pn * d * (std::log(wishart_gamma) - 0.5 * std::log(2.0)) -
                   log_gamma_distrib(0.5 * pn, d);
  return out - k * c;
}

[[fluxion::grad("alphas", "means", "icf")]] double
gmm_objective(int d, int k, int n, const double *alphas, const double *means,
              const double *icf, const double *x, double wishart_gamma,
              int wishart_m) {
  const int icf_sz = d * (d + 1) / 2;
  double qdiags[GmmMaxK * GmmMaxD];
  double sum_qs[GmmMaxK];
  double xcentered[GmmMaxD];
  double qxcentered[GmmMaxD];
  double main_term[GmmMaxK];

  for (int ik = 0; ik < k; ++ik) {
    sum_qs[ik] = 0;
    for (int id = 0; id < d; ++id) {
      sum_qs[ik] += icf[ik * icf_sz + id];
      qdiags[ik * d + id] = std::exp(icf[ik * icf_sz + id]);
    }
  }

  double slse = 0;
  for (int ix = 0; ix < n; ++ix) {
    for (int ik = 0; ik < k; ++ik) {
      subtract(d, x + ix * d, means + ik * d, xcentered);
      qtimesx(d, qdiags + ik * d, icf + ik * icf_sz + d, xcentered,
              qxcentered);
      main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm(d, qxcentered);
    }
    slse += logsumexp(k, main_term);
  }

  const double constant = -n * d * 0.5 * std::log(2 * M_PI);
  return constant + slse - n * logsumexp(k, alphas) +
         log_wishart_prior(d, k, wishart_gamma, wishart_m, sum_qs, qdiags,
                           icf);
}
