// Helpers of the GMM objective (those of ADBench's C++ reference), shared
// by the pointer formulation (gmm.cpp) and the std::vector one
// (gmm_vector.cpp). Each file is compiled with the Fluxion plugin, which
// differentiates them as callees of the annotated objective.
#ifndef FLUXION_ADBENCH_GMM_HELPERS_HPP
#define FLUXION_ADBENCH_GMM_HELPERS_HPP

#include <cmath>

namespace adbench::gmm_helpers {

inline double sqnorm(int n, const double *v) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * v[i];
  return s;
}

inline double logsumexp(int n, const double *v) {
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
inline double log_gamma_distrib(double a, int p) {
  double out = 0.25 * p * (p - 1) * std::log(M_PI);
  for (int j = 1; j <= p; ++j)
    out += std::lgamma(a + 0.5 * (1 - j));
  return out;
}

inline void subtract(int d, const double *x, const double *y, double *out) {
  for (int id = 0; id < d; ++id)
    out[id] = x[id] - y[id];
}

// out = Q x, Q = diag(qdiag) + the strictly lower triangle ltri (stored
// column by column).
inline void qtimesx(int d, const double *qdiag, const double *ltri,
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

} // namespace adbench::gmm_helpers

#endif // FLUXION_ADBENCH_GMM_HELPERS_HPP
