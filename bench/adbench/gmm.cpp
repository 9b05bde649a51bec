// GMM objective (ADBench), written the way a C++ user writes it: pointers,
// loops, small helper functions (those of ADBench's C++ reference, in
// gmm_helpers.hpp, shared with gmm_vector.cpp), and local
// arrays sized for the largest problem (Fluxion differentiates fixed-size
// local arrays; a local pointer to heap memory is not supported). Compiled
// with the Fluxion plugin, which generates gmm_objective_grad /
// gmm_objective_vjp.
#include "gmm.hpp"

#include <fluxion/fluxion.hpp>

#include <cmath>

#include "gmm_helpers.hpp"

using adbench::GmmMaxD;
using adbench::GmmMaxK;

using namespace adbench::gmm_helpers;

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
