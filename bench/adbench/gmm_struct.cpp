// The GMM objective of gmm.cpp written with structs and references, as a
// C++ programmer writes it: each mixture component a struct holding its
// weight and pointers to its mean and inverse-covariance factor, the data
// and the prior in structs of their own, passed by const reference, and the
// same helper functions called on the members. Compiled with the Fluxion
// plugin: the adjoint of a Component is a Component whose pointers point to
// the gradient's arrays (contract v2); bench/ times its gradient beside the
// pointer version's ("fluxion_struct").
#include "gmm.hpp"

#include <fluxion/fluxion.hpp>

#include <cmath>

#include "gmm_helpers.hpp"

using adbench::GmmComponent;
using adbench::GmmData;
using adbench::GmmMaxD;
using adbench::GmmMaxK;
using adbench::GmmWishart;

using namespace adbench::gmm_helpers;

namespace {

double log_wishart_prior(int d, int k, const GmmWishart &prior,
                         const GmmComponent *comps, const double *sum_qs,
                         const double *qdiags) {
  const int icf_sz = d * (d + 1) / 2;
  const int pn = d + prior.m + 1;
  double out = 0;
  for (int ik = 0; ik < k; ++ik) {
    const GmmComponent &c = comps[ik];
    double frobenius = sqnorm(d, qdiags + ik * d) + sqnorm(icf_sz - d, c.icf + d);
    out += 0.5 * prior.gamma * prior.gamma * frobenius - prior.m * sum_qs[ik];
  }
  const double constant =
      pn * d * (std::log(prior.gamma) - 0.5 * std::log(2.0)) -
      log_gamma_distrib(0.5 * pn, d);
  return out - k * constant;
}

} // namespace

[[fluxion::grad("comps")]] double
gmm_objective_struct(const GmmData &data, const GmmComponent *comps, int k,
                     const GmmWishart &prior) {
  const int d = data.d;
  double qdiags[GmmMaxK * GmmMaxD];
  double sum_qs[GmmMaxK];
  double alphas[GmmMaxK];
  double xcentered[GmmMaxD];
  double qxcentered[GmmMaxD];
  double main_term[GmmMaxK];

  for (int ik = 0; ik < k; ++ik) {
    const GmmComponent &c = comps[ik];
    alphas[ik] = c.alpha;
    sum_qs[ik] = 0;
    for (int id = 0; id < d; ++id) {
      sum_qs[ik] += c.icf[id];
      qdiags[ik * d + id] = std::exp(c.icf[id]);
    }
  }

  double slse = 0;
  for (int ix = 0; ix < data.n; ++ix) {
    for (int ik = 0; ik < k; ++ik) {
      const GmmComponent &c = comps[ik];
      subtract(d, data.x + ix * d, c.mean, xcentered);
      qtimesx(d, qdiags + ik * d, c.icf + d, xcentered, qxcentered);
      main_term[ik] = c.alpha + sum_qs[ik] - 0.5 * sqnorm(d, qxcentered);
    }
    slse += logsumexp(k, main_term);
  }

  const double constant = -data.n * d * 0.5 * std::log(2 * M_PI);
  return constant + slse - data.n * logsumexp(k, alphas) +
         log_wishart_prior(d, k, prior, comps, sum_qs, qdiags);
}
