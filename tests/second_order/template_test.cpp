// Derivative templates (CONTRACT.md: "An annotated function template gets
// derivative templates of the same template parameters"): explicit template
// arguments and deduction, float, double and long double instances, non-type
// parameters, a header included by two translation units, forward mode and
// Hessians, against closed forms, finite differences (fluxion::check_*) and
// the other mode.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"
#include "template_lib.hpp"

#include <cmath>
#include <vector>
#include <type_traits>

namespace ft {

template <class T>
[[fluxion::grad]] [[fluxion::jvp]] T tmpl(T x, T y) {
  return x * std::exp(y) - y / (1 + x * x);
}

template <class T> [[fluxion::hessian]] T tmpl_h(T x, T y) {
  return x * x * y + std::sin(y);
}

// A template callee inside an annotated template: each instance of the
// caller differentiates its own instance of the callee.
template <class T> T softplus(T x) { return std::log1p(std::exp(x)); }
template <class T>
[[fluxion::grad]] T layer(const T *w, const T *x, int n, const T &b) {
  T s = b;
  for (int i = 0; i < n; ++i)
    s += w[i] * x[i];
  return softplus(s) * softplus(-b);
}

// Generic callees: policy classes, if constexpr with an auto result, a
// fold expression, decltype; each instance differentiated on its own.
struct TanhAct {
  static double f(double x) { return std::tanh(x); }
};
struct SoftAct {
  static double f(double x) { return std::log1p(std::exp(x)); }
};
template <class Act> double unit(double w, double x) { return Act::f(w * x); }
template <bool Square> auto maybe_sq(double v) {
  if constexpr (Square)
    return v * v;
  else
    return v;
}
template <class... Ts> double sum_all(Ts... xs) { return (xs + ... + 0.0); }
[[fluxion::grad]] [[fluxion::jvp]] double generic_net(double w, double x) {
  decltype(w) a = unit<TanhAct>(w, x) + unit<SoftAct>(w, x);
  auto b = maybe_sq<true>(a) + maybe_sq<false>(x);
  return sum_all(a, b, w * x);
}

// An instance differentiated at the end of the translation unit whose
// generated code assigns a class with an array member (Sema defines its
// implicit assignment then, with __builtin_memcpy: fuzz seed 464 crashed).
struct Buf {
  double a[2];
  double m;
};
inline double copy_in(Buf q, double x) {
  Buf c = q;
  c.m = c.m * x;
  return c.a[0] * c.m + std::sin(c.a[1]);
}
template <class T> [[fluxion::grad]] T uses_copy(const Buf &b, T x) {
  return copy_in(b, x) * x;
}

// f_hvp through a template callee that uses a residual rule (tanh keeps
// its result): the callee's body exists only once the template is
// instantiated, at the end of the translation unit, and f_hvp must not
// share the first-order sweeps that call tanh_fwd (fuzz seed 1268).
template <int K> double tanh_chain(double x) {
  double v = x;
  for (int i = 0; i < K; ++i)
    v = std::tanh(v) + 0.5 * v;
  return v;
}
[[fluxion::grad]] [[fluxion::hessian]] double uses_tanh_chain(double x,
                                                              double y) {
  return tanh_chain<2>(x * y) + x * tanh_chain<1>(y);
}

// A template parameter that is a number in one instance and an object or a
// container in others: f_jvp's tangent is the value for a number and the
// address of an object of the same type otherwise (CONTRACT.md, "C++
// types"), whichever the instance is.
struct Pair {
  double a, b;
};
inline double sq_of(double v) { return v * v; }
inline double sq_of(const Pair &p) { return p.a * p.a + p.b * std::sin(p.a); }
template <class C>
[[fluxion::grad]] [[fluxion::jvp]] double energy(const C &c, double k) {
  double s = 0;
  if constexpr (std::is_class_v<C>) {
    if constexpr (std::is_same_v<C, Pair>)
      s = sq_of(c);
    else
      for (double e : c)
        s += e * e * k;
  } else {
    s = sq_of(c) * k;
  }
  return s * k;
}

} // namespace ft

namespace {

TEST(Templates, ForwardVsReverseFloatAndDouble) {
  so::Rng rng(28);
  for (int k = 0; k < 10; ++k) {
    double x = rng.uniform(-1, 1), y = rng.uniform(-1, 1);
    double tx = rng.uniform(-1, 1), ty = rng.uniform(-1, 1);
    double gx = 0, gy = 0;
    ft::tmpl_grad<double>(x, y, &gx, &gy);
    double fwd = ft::tmpl_jvp<double>(x, y, tx, ty);
    SO_EXPECT_CLOSE(fwd, gx * tx + gy * ty, 1e-12);
    // d/dx = e^y + 2xy/(1+x^2)^2, d/dy = x e^y - 1/(1+x^2).
    double q = 1 + x * x;
    SO_EXPECT_CLOSE(gx, std::exp(y) + 2 * x * y / (q * q), 1e-12);
    SO_EXPECT_CLOSE(gy, x * std::exp(y) - 1 / q, 1e-12);
    float fgx = 0, fgy = 0;
    ft::tmpl_grad(float(x), float(y), &fgx, &fgy); // deduced
    float ffwd = ft::tmpl_jvp(float(x), float(y), float(tx), float(ty));
    SO_EXPECT_CLOSE(ffwd, fgx * float(tx) + fgy * float(ty), 1e-5);
    SO_EXPECT_CLOSE(ffwd, fwd, 1e-5);
  }
}

TEST(Templates, Hessian) {
  double H[4];
  ft::tmpl_h_hessian<double>(0.5, 0.25, H);
  // f = x^2 y + sin y: [[2y, 2x], [2x, -sin y]]
  SO_EXPECT_CLOSE(H[0], 0.5, 1e-14);
  SO_EXPECT_CLOSE(H[1], 1.0, 1e-14);
  SO_EXPECT_CLOSE(H[2], 1.0, 1e-14);
  SO_EXPECT_CLOSE(H[3], -std::sin(0.25), 1e-14);
}

template <class T> void checkSprings(int seed) {
  so::Rng rng(seed);
  T x[6];
  for (T &v : x)
    v = T(rng.uniform(-1, 1));
  T k = T(rng.uniform(0.5, 2));
  auto R = fluxion::check_gradient(tl::springs<T>, tl::springs_grad<T>,
                                   fluxion::span(x, 6), 6, k);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(tl::springs<T>, tl::springs_jvp<T>,
                              fluxion::span(x, 6), 6, k);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Templates, EveryFloatingTypeAgainstFiniteDifferences) {
  checkSprings<float>(3);
  checkSprings<double>(4);
  checkSprings<long double>(5);
}

TEST(Templates, DeducedAndExplicitCallsAgree) {
  so::Rng rng(6);
  double x[5], a[5] = {}, b[5] = {}, da = 0, db = 0;
  for (double &v : x)
    v = rng.uniform(-1, 1);
  double va = tl::springs_grad(x, 5, 1.5, a, &da);
  double vb = tl::springs_grad<double>(x, 5, 1.5, b, &db);
  EXPECT_EQ(va, tl::springs(x, 5, 1.5));
  EXPECT_EQ(va, vb);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(a[i], b[i]);
  EXPECT_EQ(da, db);
  // The same instance, defined by the other translation unit.
  double c[5] = {}, dc = 0;
  EXPECT_EQ(springs_grad_from_other_tu(x, 5, 1.5, c, &dc), va);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(c[i], a[i]);
  EXPECT_EQ(dc, da);
}

TEST(Templates, NonTypeParameters) {
  so::Rng rng(7);
  double x[5], w[5];
  for (int i = 0; i < 5; ++i) {
    x[i] = rng.uniform(-1, 1);
    w[i] = rng.uniform(-1, 1);
  }
  // weighted_dot<3> reads three entries, weighted_dot<5> five: the gradient
  // of the shorter one is zero beyond them.
  for (int n : {3, 5}) {
    double dx[5] = {}, dw[5] = {};
    if (n == 3)
      tl::weighted_dot_grad<3>(x, w, dx, dw);
    else
      tl::weighted_dot_grad<5>(x, w, dx, dw);
    for (int i = 0; i < 5; ++i) {
      double e = i < n ? std::exp(w[i] * x[i] / n) : 0;
      double gx = i < n ? 2 * w[i] * x[i] + e * w[i] / n : 0;
      double gw = i < n ? x[i] * x[i] + e * x[i] / n : 0;
      SO_EXPECT_CLOSE(dx[i], gx, 1e-13);
      SO_EXPECT_CLOSE(dw[i], gw, 1e-13);
    }
  }
}

TEST(Templates, DenseHessianPerInstance) {
  so::Rng rng(8);
  double x[4];
  for (double &v : x)
    v = rng.uniform(-1, 1);
  double H[16];
  tl::ring_hessian<double, 4>(x, H);
  // d2/dxi dxj of sum x_i x_{i+1} + (i+1) cos x_i.
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double e = i == j ? -(i + 1) * std::cos(x[i])
                 : ((i + 1) % 4 == j || (j + 1) % 4 == i) ? 1
                                                          : 0;
      SO_EXPECT_CLOSE(H[i * 4 + j], e, 1e-13);
    }
  float xf[3] = {0.25f, -0.5f, 1.0f}, Hf[9];
  tl::ring_hessian<float, 3>(xf, Hf);
  // N = 3: every pair is adjacent on the ring.
  SO_EXPECT_CLOSE(Hf[1], 1.0f, 1e-6);
  SO_EXPECT_CLOSE(Hf[4], -2 * std::cos(-0.5f), 1e-6);
  double v[4] = {1, -2, 0.5, 3}, hv[4] = {};
  tl::ring_hvp<double, 4>(x, v, hv);
  for (int i = 0; i < 4; ++i) {
    double e = 0;
    for (int j = 0; j < 4; ++j)
      e += H[i * 4 + j] * v[j];
    SO_EXPECT_CLOSE(hv[i], e, 1e-13);
  }
}

TEST(Templates, TemplateCalleeAndConstReferenceParameter) {
  so::Rng rng(9);
  double w[4], x[4];
  for (int i = 0; i < 4; ++i) {
    w[i] = rng.uniform(-1, 1);
    x[i] = rng.uniform(-1, 1);
  }
  auto R = fluxion::check_gradient(ft::layer<double>, ft::layer_grad<double>,
                                   fluxion::span(w, 4), fluxion::span(x, 4), 4,
                                   0.3);
  EXPECT_TRUE(R.ok()) << R;
  float wf[4], xf[4];
  for (int i = 0; i < 4; ++i) {
    wf[i] = float(w[i]);
    xf[i] = float(x[i]);
  }
  auto F = fluxion::check_gradient(ft::layer<float>, ft::layer_grad<float>,
                                   fluxion::span(wf, 4), fluxion::span(xf, 4),
                                   4, 0.3f);
  EXPECT_TRUE(F.ok()) << F;
}

TEST(Templates, GenericCallees) {
  so::Rng rng(10);
  for (int k = 0; k < 4; ++k) {
    double w = rng.uniform(-1, 1), x = rng.uniform(-1, 1);
    auto R = fluxion::check_gradient(ft::generic_net, ft::generic_net_grad, w,
                                     x);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(ft::generic_net, ft::generic_net_jvp, w, x);
    EXPECT_TRUE(J.ok()) << J;
  }
}

TEST(Templates, InstanceCopyingAClassWithAnArray) {
  ft::Buf b{{1.5, -0.5}, 2.0}, db{};
  double dx = 0, x = 0.75;
  double v = ft::uses_copy_grad<double>(b, x, &db, &dx);
  // f = (a0 m x + sin a1) x
  EXPECT_DOUBLE_EQ(v, (1.5 * 2.0 * x + std::sin(-0.5)) * x);
  SO_EXPECT_CLOSE(dx, 2 * 1.5 * 2.0 * x + std::sin(-0.5), 1e-14);
  SO_EXPECT_CLOSE(db.a[0], 2.0 * x * x, 1e-14);
  SO_EXPECT_CLOSE(db.a[1], std::cos(-0.5) * x, 1e-14);
  SO_EXPECT_CLOSE(db.m, 1.5 * x * x, 1e-14);
}

TEST(Templates, HvpThroughATemplateCalleeWithAResidualRule) {
  double x = 0.6, y = -0.8, H[4];
  ft::uses_tanh_chain_hessian(x, y, H);
  // Each column of H against central differences of f_grad.
  double h = 1e-5;
  for (int c = 0; c < 2; ++c) {
    double gp[2] = {}, gm[2] = {};
    double xp = x + (c == 0 ? h : 0), yp = y + (c == 1 ? h : 0);
    double xm = x - (c == 0 ? h : 0), ym = y - (c == 1 ? h : 0);
    ft::uses_tanh_chain_grad(xp, yp, &gp[0], &gp[1]);
    ft::uses_tanh_chain_grad(xm, ym, &gm[0], &gm[1]);
    for (int r = 0; r < 2; ++r)
      SO_EXPECT_CLOSE(H[r * 2 + c], (gp[r] - gm[r]) / (2 * h), 1e-7);
  }
}

TEST(Templates, TangentsOfNumbersObjectsAndContainers) {
  double k = 0.7;
  std::vector<double> v = {0.5, -1.25, 2.0}, tv = {0.3, 0.1, -0.4};
  auto R = fluxion::check_gradient(ft::energy<std::vector<double>>,
                                   ft::energy_grad<std::vector<double>>, v, k);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ft::energy<std::vector<double>>,
                              ft::energy_jvp<std::vector<double>>, v, k);
  EXPECT_TRUE(J.ok()) << J;
  // Deduced, with the tangent given by address.
  std::vector<double> dv(3);
  double dk = 0;
  ft::energy_grad(v, k, &dv, &dk);
  double expect = dk * 0.5;
  for (int i = 0; i < 3; ++i)
    expect += dv[i] * tv[i];
  SO_EXPECT_CLOSE(ft::energy_jvp(v, k, &tv, 0.5), expect, 1e-13);
  ft::Pair p{0.4, -0.9}, tp{1.0, 0.5};
  auto RP = fluxion::check_gradient(ft::energy<ft::Pair>,
                                    ft::energy_grad<ft::Pair>, p, k);
  EXPECT_TRUE(RP.ok()) << RP;
  ft::Pair dp{};
  double dkp = 0;
  ft::energy_grad(p, k, &dp, &dkp);
  SO_EXPECT_CLOSE(ft::energy_jvp(p, k, &tp, 0.0), dp.a * tp.a + dp.b * tp.b,
                  1e-13);
  // A number: its tangent is a value, as before.
  double dx = 0, dkx = 0;
  ft::energy_grad(1.5, k, &dx, &dkx);
  SO_EXPECT_CLOSE(ft::energy_jvp(1.5, k, 2.0, 0.0), 2.0 * dx, 1e-13);
}

} // namespace
