// GMM: inputs, and the hand-written adjoint (reverse mode by hand).
//
// One pass over the points: for each point the forward quantities of every
// component (x - mu, Q (x - mu), the main term) are kept in scratch arrays,
// the log-sum-exp gives the softmax weights, and the adjoints of the
// component's parameters are accumulated at once; nothing is taped. The
// adjoints of qdiags = exp(icf diag) and sum_qs are chained to icf at the end.
#include "common.hpp"
#include "gmm.hpp"

#include <cmath>
#include <vector>

namespace adbench {

std::vector<double> GmmInput::params() const {
  std::vector<double> P(alphas);
  P.insert(P.end(), means.begin(), means.end());
  P.insert(P.end(), icf.begin(), icf.end());
  return P;
}

void GmmInput::setParams(const std::vector<double> &P) {
  auto It = P.begin();
  alphas.assign(It, It + k);
  It += k;
  means.assign(It, It + k * d);
  It += k * d;
  icf.assign(It, It + k * icfSize());
}

std::vector<GmmComponent> gmm_components(int d, int k, const double *alphas,
                                         const double *means,
                                         const double *icf) {
  std::vector<GmmComponent> C(k);
  const int icf_sz = d * (d + 1) / 2;
  for (int ik = 0; ik < k; ++ik)
    C[ik] = {alphas[ik], means + ik * d, icf + ik * icf_sz};
  return C;
}

GmmInput gmm_make_input(int d, int k, int n, std::uint64_t seed) {
  GmmInput In;
  In.d = d;
  In.k = k;
  In.n = n;
  Rng R(seed);
  In.alphas.resize(k);
  for (double &A : In.alphas)
    A = R.uniform(-1, 1);
  In.means.resize(k * d);
  for (double &M : In.means)
    M = R.uniform(0, 1);
  In.icf.resize(k * In.icfSize());
  for (double &Q : In.icf)
    Q = R.uniform(-0.5, 0.5);
  In.x.resize(n * d);
  for (double &X : In.x)
    X = R.uniform(0, 1);
  In.gamma = 1.0; // ADBench's Wishart prior
  In.m = 0;
  return In;
}

static double logsumexp(int n, const double *v) {
  double mx = v[0];
  for (int i = 1; i < n; ++i)
    mx = v[i] > mx ? v[i] : mx;
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::exp(v[i] - mx);
  return std::log(s) + mx;
}

double gmm_manual_grad(int d, int k, int n, const double *alphas,
                       const double *means, const double *icf, const double *x,
                       double gamma, int m, double *d_alphas, double *d_means,
                       double *d_icf) {
  const int icf_sz = d * (d + 1) / 2;
  std::vector<double> qdiags(k * d), sum_qs(k), xc(k * d), y(k * d),
      main_term(k), ybar(d), xcbar(d);
  std::vector<double> d_qdiags(k * d, 0.0), d_sum_qs(k, 0.0);

  for (int ik = 0; ik < k; ++ik) {
    sum_qs[ik] = 0;
    for (int id = 0; id < d; ++id) {
      double q = icf[ik * icf_sz + id];
      sum_qs[ik] += q;
      qdiags[ik * d + id] = std::exp(q);
    }
  }

  double slse = 0;
  for (int ix = 0; ix < n; ++ix) {
    const double *xi = x + ix * d;
    // Forward: y_k = Q_k (x_i - mu_k), main_k = alpha_k + sum(q_k) - |y_k|^2/2.
    for (int ik = 0; ik < k; ++ik) {
      const double *mu = means + ik * d;
      const double *qd = &qdiags[ik * d];
      const double *L = icf + ik * icf_sz + d;
      double *xck = &xc[ik * d];
      double *yk = &y[ik * d];
      for (int id = 0; id < d; ++id) {
        xck[id] = xi[id] - mu[id];
        yk[id] = qd[id] * xck[id];
      }
      int cur = 0;
      for (int i = 0; i < d; ++i) {
        double xci = xck[i];
        for (int j = i + 1; j < d; ++j)
          yk[j] += L[cur++] * xci;
      }
      double sq = 0;
      for (int id = 0; id < d; ++id)
        sq += yk[id] * yk[id];
      main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sq;
    }
    double lse = logsumexp(k, main_term.data());
    slse += lse;
    // Reverse: d lse / d main_k = softmax weight w_k; d main_k / d y_k = -y_k.
    for (int ik = 0; ik < k; ++ik) {
      double w = std::exp(main_term[ik] - lse);
      d_alphas[ik] += w;
      d_sum_qs[ik] += w;
      const double *qd = &qdiags[ik * d];
      const double *L = icf + ik * icf_sz + d;
      const double *xck = &xc[ik * d];
      const double *yk = &y[ik * d];
      double *dqd = &d_qdiags[ik * d];
      double *dL = d_icf + ik * icf_sz + d;
      for (int id = 0; id < d; ++id) {
        ybar[id] = -w * yk[id];
        dqd[id] += ybar[id] * xck[id];
        xcbar[id] = qd[id] * ybar[id];
      }
      int cur = 0;
      for (int i = 0; i < d; ++i) {
        double xci = xck[i], acc = 0;
        for (int j = i + 1; j < d; ++j) {
          dL[cur] += ybar[j] * xci;
          acc += L[cur] * ybar[j];
          ++cur;
        }
        xcbar[i] += acc;
      }
      double *dmu = d_means + ik * d;
      for (int id = 0; id < d; ++id)
        dmu[id] -= xcbar[id]; // xc = x - mu
    }
  }

  // - n * logsumexp(alphas)
  double lse_alphas = logsumexp(k, alphas);
  for (int ik = 0; ik < k; ++ik)
    d_alphas[ik] -= n * std::exp(alphas[ik] - lse_alphas);

  // Wishart prior: sum_k gamma^2/2 (|qdiag_k|^2 + |L_k|^2) - m sum(q_k) - k C.
  const int pn = d + m + 1;
  double prior = 0;
  for (int ik = 0; ik < k; ++ik) {
    double frobenius = 0;
    for (int id = 0; id < d; ++id) {
      double q = qdiags[ik * d + id];
      frobenius += q * q;
      d_qdiags[ik * d + id] += gamma * gamma * q;
    }
    for (int i = d; i < icf_sz; ++i) {
      double l = icf[ik * icf_sz + i];
      frobenius += l * l;
      d_icf[ik * icf_sz + i] += gamma * gamma * l;
    }
    prior += 0.5 * gamma * gamma * frobenius - m * sum_qs[ik];
    d_sum_qs[ik] -= m;
  }
  double lgd = 0.25 * d * (d - 1) * std::log(M_PI);
  for (int j = 1; j <= d; ++j)
    lgd += std::lgamma(0.5 * pn + 0.5 * (1 - j));
  const double c = pn * d * (std::log(gamma) - 0.5 * std::log(2.0)) - lgd;
  prior -= k * c;

  // qdiags = exp(icf diag), sum_qs = sum of icf diag.
  for (int ik = 0; ik < k; ++ik)
    for (int id = 0; id < d; ++id)
      d_icf[ik * icf_sz + id] +=
          d_qdiags[ik * d + id] * qdiags[ik * d + id] + d_sum_qs[ik];

  const double constant = -n * d * 0.5 * std::log(2 * M_PI);
  return constant + slse - n * lse_alphas + prior;
}

} // namespace adbench
