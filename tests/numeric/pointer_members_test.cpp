// Classes holding pointers to const reals (contract v2: the adjoint of an S
// is an S whose pointer members point to shadow memory of the same extent):
// a span passed by value and by const reference, an array of Gaussians
// whose means and factors are pointers into shared arrays, members passed
// on to pointer callees, and walks over a member's memory. Checked against
// central differences, reverse against forward mode, and f_hvp.
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace pm {

struct Span {
  const double *p;
  int n;
};

struct Gaussian {
  double alpha;
  const double *mean; // d entries
  const double *icf;  // d entries: log of the inverse standard deviations
};

static double sumsq(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * v[i];
  return s;
}

static double norm2(const Span &s) { return sumsq(s.p, s.n); }

[[fluxion::hessian]] [[fluxion::jvp]] double
mixture(Span s, const Gaussian *gs, int k, const double *x, int d) {
  double r = std::sqrt(1 + norm2(s));
  for (int j = 0; j < k; ++j) {
    const Gaussian &g = gs[j];
    double q = 0;
    for (int i = 0; i < d; ++i) {
      double t = std::exp(g.icf[i]) * (x[i] - g.mean[i]);
      q += t * t;
    }
    r += g.alpha * std::exp(-0.5 * q);
  }
  // A walk over the span's memory.
  for (const double *p = s.p; p != s.p + s.n; ++p)
    r += 0.1 * std::sin(*p);
  return r;
}

} // namespace pm

namespace {

struct Problem {
  static constexpr int K = 3, D = 2, N = 4;
  double v[N] = {0.4, -1.1, 0.7, 0.2};
  double means[K * D] = {0.1, 0.2, -0.3, 0.4, 0.5, -0.6};
  double icf[K * D] = {0.1, -0.2, 0.3, 0.05, -0.15, 0.25};
  double x[D] = {0.5, -0.5};
  double alpha[K] = {0.7, 1.3, -0.4};
  std::vector<pm::Gaussian> gs;
  Problem() { bind(gs, alpha, means, icf); }
  /// Gaussians over the arrays given (the primal's or a shadow's).
  static void bind(std::vector<pm::Gaussian> &g, const double *a,
                   const double *m, const double *c) {
    g.clear();
    for (int j = 0; j < K; ++j)
      g.push_back({a[j], m + j * D, c + j * D});
  }
  double f() { return pm::mixture({v, N}, gs.data(), K, x, D); }
  /// Every input, by address (alphas live in the Gaussians).
  std::vector<double *> inputs() {
    std::vector<double *> in;
    for (double &e : v)
      in.push_back(&e);
    for (auto &g : gs)
      in.push_back(&g.alpha);
    for (double &e : means)
      in.push_back(&e);
    for (double &e : icf)
      in.push_back(&e);
    for (double &e : x)
      in.push_back(&e);
    return in;
  }
};

/// Shadow storage laid out like Problem::inputs().
struct Shadow {
  double v[Problem::N] = {}, means[Problem::K * Problem::D] = {},
                          icf[Problem::K * Problem::D] = {}, x[Problem::D] = {};
  double alpha[Problem::K] = {};
  std::vector<pm::Gaussian> gs;
  Shadow() { Problem::bind(gs, alpha, means, icf); }
  std::vector<double> flat() const {
    std::vector<double> out(v, v + Problem::N);
    for (auto &g : gs)
      out.push_back(g.alpha);
    out.insert(out.end(), means, means + Problem::K * Problem::D);
    out.insert(out.end(), icf, icf + Problem::K * Problem::D);
    out.insert(out.end(), x, x + Problem::D);
    return out;
  }
  void set(const std::vector<double> &t) {
    std::size_t k = 0;
    for (double &e : v)
      e = t[k++];
    for (auto &g : gs)
      g.alpha = t[k++];
    for (double &e : means)
      e = t[k++];
    for (double &e : icf)
      e = t[k++];
    for (double &e : x)
      e = t[k++];
  }
};

std::vector<double> central(Problem &P) {
  std::vector<double> g;
  for (double *p : P.inputs()) {
    double h = 1e-6, o = *p;
    *p = o + h;
    double up = P.f();
    *p = o - h;
    double dn = P.f();
    *p = o;
    g.push_back((up - dn) / (2 * h));
  }
  return g;
}

TEST(PointerMembers, GradientThroughShadowMembers) {
  Problem P;
  Shadow d;
  pm::Span dv{d.v, Problem::N};
  double value = pm::mixture_grad({P.v, Problem::N}, P.gs.data(), Problem::K,
                                  P.x, Problem::D, &dv, d.gs.data(), d.x);
  EXPECT_DOUBLE_EQ(value, P.f());
  std::vector<double> got = d.flat(), want = central(P);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-7 * (1 + std::fabs(want[i]))) << i;
}

TEST(PointerMembers, JvpMatchesGradientAndHvpMatchesDifferences) {
  Problem P;
  Shadow d, t;
  pm::Span dv{d.v, Problem::N}, tv{t.v, Problem::N};
  pm::mixture_grad({P.v, Problem::N}, P.gs.data(), Problem::K, P.x,
                   Problem::D, &dv, d.gs.data(), d.x);
  std::vector<double> dir(d.flat().size());
  for (std::size_t i = 0; i < dir.size(); ++i)
    dir[i] = std::sin(1.7 * i + 0.3);
  t.set(dir);
  double jvp = pm::mixture_jvp({P.v, Problem::N}, P.gs.data(), Problem::K,
                               P.x, Problem::D, &tv, t.gs.data(), t.x);
  double dot = 0;
  std::vector<double> g = d.flat();
  for (std::size_t i = 0; i < g.size(); ++i)
    dot += g[i] * dir[i];
  EXPECT_NEAR(jvp, dot, 1e-12 * (1 + std::fabs(dot)));

  // H v against the central difference of the gradient along v.
  Shadow hv;
  pm::Span hvv{hv.v, Problem::N};
  pm::mixture_hvp({P.v, Problem::N}, P.gs.data(), Problem::K, P.x, Problem::D,
                  &tv, t.gs.data(), t.x, &hvv, hv.gs.data(), hv.x);
  auto grad_at = [&](double h) {
    Problem Q;
    std::vector<double *> in = Q.inputs();
    for (std::size_t i = 0; i < in.size(); ++i)
      *in[i] += h * dir[i];
    Shadow s;
    pm::Span sv{s.v, Problem::N};
    pm::mixture_grad({Q.v, Problem::N}, Q.gs.data(), Problem::K, Q.x,
                     Problem::D, &sv, s.gs.data(), s.x);
    return s.flat();
  };
  std::vector<double> up = grad_at(1e-5), dn = grad_at(-1e-5),
                      got = hv.flat();
  for (std::size_t i = 0; i < got.size(); ++i) {
    double want = (up[i] - dn[i]) / 2e-5;
    EXPECT_NEAR(got[i], want, 1e-6 * (1 + std::fabs(want))) << i;
  }
}

} // namespace
