// GMM with ADOL-C (operator overloading, tape based): the objective templated
// on the scalar type, recorded on a tape with adouble and reversed with
// ADOL-C's drivers. Same algorithm as gmm.cpp.
#include "gmm.hpp"

#include <adolc/adolc.h>

#include <cmath>
#include <vector>

namespace adbench {
namespace {

template <class T> T logsumexp(int n, const T *v) {
  T mx = v[0];
  for (int i = 1; i < n; ++i)
    if (v[i] > mx)
      mx = v[i];
  T s = 0;
  for (int i = 0; i < n; ++i)
    s += exp(v[i] - mx);
  return log(s) + mx;
}

template <class T>
T objective(int d, int k, int n, const T *alphas, const T *means, const T *icf,
            const double *x, double gamma, int m) {
  const int icf_sz = d * (d + 1) / 2;
  std::vector<T> qdiags(k * d), sum_qs(k), xc(d), qxc(d), main_term(k);
  for (int ik = 0; ik < k; ++ik) {
    sum_qs[ik] = 0;
    for (int id = 0; id < d; ++id) {
      sum_qs[ik] += icf[ik * icf_sz + id];
      qdiags[ik * d + id] = exp(icf[ik * icf_sz + id]);
    }
  }
  T slse = 0;
  for (int ix = 0; ix < n; ++ix) {
    for (int ik = 0; ik < k; ++ik) {
      for (int id = 0; id < d; ++id) {
        xc[id] = x[ix * d + id] - means[ik * d + id];
        qxc[id] = qdiags[ik * d + id] * xc[id];
      }
      int cur = ik * icf_sz + d;
      for (int i = 0; i < d; ++i)
        for (int j = i + 1; j < d; ++j)
          qxc[j] += icf[cur++] * xc[i];
      T sq = 0;
      for (int id = 0; id < d; ++id)
        sq += qxc[id] * qxc[id];
      main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sq;
    }
    slse += logsumexp(k, main_term.data());
  }
  const int pn = d + m + 1;
  T prior = 0;
  for (int ik = 0; ik < k; ++ik) {
    T frobenius = 0;
    for (int id = 0; id < d; ++id)
      frobenius += qdiags[ik * d + id] * qdiags[ik * d + id];
    for (int i = d; i < icf_sz; ++i)
      frobenius += icf[ik * icf_sz + i] * icf[ik * icf_sz + i];
    prior += 0.5 * gamma * gamma * frobenius - m * sum_qs[ik];
  }
  double lgd = 0.25 * d * (d - 1) * std::log(M_PI);
  for (int j = 1; j <= d; ++j)
    lgd += std::lgamma(0.5 * pn + 0.5 * (1 - j));
  const double c = pn * d * (std::log(gamma) - 0.5 * std::log(2.0)) - lgd;
  const double constant = -n * d * 0.5 * std::log(2 * M_PI);
  return constant + slse - n * logsumexp(k, alphas) + prior - k * c;
}

} // namespace

double gmm_adolc_tape_and_gradient(const GmmInput &in, short tag,
                                   double *grad) {
  std::vector<double> p = in.params();
  const int np = static_cast<int>(p.size());
  std::vector<adouble> ap(np);
  double value = 0;
  trace_on(tag, 1); // keep the forward values for the reverse sweep
  for (int i = 0; i < np; ++i)
    ap[i] <<= p[i];
  const adouble *alphas = ap.data();
  adouble f = objective<adouble>(in.d, in.k, in.n, alphas, alphas + in.k,
                                 alphas + in.k + in.k * in.d, in.x.data(),
                                 in.gamma, in.m);
  f >>= value;
  trace_off();
  double seed = 1.0;
  fos_reverse(tag, 1, np, &seed, grad);
  return value;
}

void gmm_adolc_gradient(short tag, const std::vector<double> &params,
                        double *grad) {
  gradient(tag, static_cast<int>(params.size()), params.data(), grad);
}

} // namespace adbench
