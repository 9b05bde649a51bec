// The GMM objective of gmm.cpp written with std::vector, as a C++
// programmer writes it today: the parameters and data as const
// std::vector<double>& (the adjoints are vectors of the same size), scratch
// space as local std::vectors sized by the problem instead of arrays sized
// for the largest one, and the same helper functions, called on .data().
// Compiled with the Fluxion plugin; bench/ times its gradient beside the
// pointer version's ("fluxion_vector").
#include "gmm.hpp"

#include <fluxion/fluxion.hpp>

#include <cmath>

#include "gmm_helpers.hpp"

namespace {

using namespace adbench::gmm_helpers;

double logsumexp(const std::vector<double> &v) {
  double mx = v[0];
  for (double e : v)
    if (e > mx)
      mx = e;
  double s = 0;
  for (double e : v)
    s += std::exp(e - mx);
  return std::log(s) + mx;
}

double log_wishart_prior(int d, int k, double wishart_gamma, int wishart_m,
                         const std::vector<double> &sum_qs,
                         const std::vector<double> &qdiags,
                         const std::vector<double> &icf) {
  const int icf_sz = d * (d + 1) / 2;
  const int pn = d + wishart_m + 1;
  double out = 0;
  for (int ik = 0; ik < k; ++ik) {
    double frobenius = sqnorm(d, qdiags.data() + ik * d) +
                       sqnorm(icf_sz - d, icf.data() + ik * icf_sz + d);
    out += 0.5 * wishart_gamma * wishart_gamma * frobenius -
           wishart_m * sum_qs[std::size_t(ik)];
  }
  const double c = pn * d * (std::log(wishart_gamma) - 0.5 * std::log(2.0)) -
                   log_gamma_distrib(0.5 * pn, d);
  return out - k * c;
}

} // namespace

[[fluxion::grad("alphas", "means", "icf")]] double
gmm_objective_vector(int d, int k, int n, const std::vector<double> &alphas,
                     const std::vector<double> &means,
                     const std::vector<double> &icf,
                     const std::vector<double> &x, double wishart_gamma,
                     int wishart_m) {
  const int icf_sz = d * (d + 1) / 2;
  std::vector<double> qdiags(static_cast<std::size_t>(k * d));
  std::vector<double> sum_qs(static_cast<std::size_t>(k));
  std::vector<double> xcentered(static_cast<std::size_t>(d));
  std::vector<double> qxcentered(static_cast<std::size_t>(d));
  std::vector<double> main_term(static_cast<std::size_t>(k));

  for (int ik = 0; ik < k; ++ik) {
    sum_qs[std::size_t(ik)] = 0;
    for (int id = 0; id < d; ++id) {
      sum_qs[std::size_t(ik)] += icf[std::size_t(ik * icf_sz + id)];
      qdiags[std::size_t(ik * d + id)] =
          std::exp(icf[std::size_t(ik * icf_sz + id)]);
    }
  }

  double slse = 0;
  for (int ix = 0; ix < n; ++ix) {
    for (int ik = 0; ik < k; ++ik) {
      subtract(d, x.data() + ix * d, means.data() + ik * d, xcentered.data());
      qtimesx(d, qdiags.data() + ik * d, icf.data() + ik * icf_sz + d,
              xcentered.data(), qxcentered.data());
      main_term[std::size_t(ik)] = alphas[std::size_t(ik)] +
                                   sum_qs[std::size_t(ik)] -
                                   0.5 * sqnorm(d, qxcentered.data());
    }
    slse += logsumexp(main_term);
  }

  const double constant = -n * d * 0.5 * std::log(2 * M_PI);
  return constant + slse - n * logsumexp(alphas) +
         log_wishart_prior(d, k, wishart_gamma, wishart_m, sum_qs, qdiags,
                           icf);
}
