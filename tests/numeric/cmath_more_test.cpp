// The rest of <cmath> (issue 18): gamma functions, fdim, remainder, remquo,
// frexp, modf, logb, nextafter, nexttoward, scalbln, three-argument hypot,
// the C++17 special functions, the __builtin_ spellings and the constants
// INFINITY / HUGE_VAL; and std::min, std::max, std::clamp, std::swap on
// numbers. Each generated gradient is checked against central finite
// differences of the primal (nt::check_gradient), and each generated f_jvp,
// along every coordinate direction, against that gradient.
#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <math.h>
#include <utility>

#include "numeric_check.hpp"

using nt::ld;

namespace cmx {

#define NT_FN1(NAME, EXPR)                                                     \
  [[fluxion::grad]] [[fluxion::jvp]] double NAME(double x) { return EXPR; }
#define NT_FN2(NAME, EXPR)                                                     \
  [[fluxion::grad]] [[fluxion::jvp]] double NAME(double x, double y) {         \
    return EXPR;                                                               \
  }
#define NT_FN3(NAME, EXPR)                                                     \
  [[fluxion::grad]] [[fluxion::jvp]] double NAME(double x, double y,           \
                                                 double z) {                   \
    return EXPR;                                                               \
  }

// Functions of <cmath> that had no rule.
NT_FN1(lgamma1, std::lgamma(x))
NT_FN1(tgamma1, std::tgamma(x))
NT_FN2(fdim2, std::fdim(x, y))
NT_FN2(remainder2, std::remainder(x, y))
NT_FN2(nextafter2, y * std::nextafter(x, y))
NT_FN1(nexttoward1, std::nexttoward(x, 2.0L) * 3)
NT_FN1(logb1, x * std::logb(x))
NT_FN1(scalbln1, std::scalbln(x * x, 3L))
NT_FN3(hypot3, std::hypot(x, y, z))
[[fluxion::grad]] [[fluxion::jvp]] double remquo2(double x, double y) {
  int q = 0;
  double r = std::remquo(x, y, &q);
  return r * r + q;
}
[[fluxion::grad]] [[fluxion::jvp]] double frexp1(double x) {
  int e = 0;
  double m = std::frexp(x, &e);
  return m * m + e;
}
[[fluxion::grad]] [[fluxion::jvp]] double modf1(double x) {
  double i = 0;
  double f = std::modf(x, &i);
  return f * f + 3 * i * x;
}
// C spellings.
[[fluxion::grad]] float lgammaf1(float x) { return ::lgammaf(x); }
[[fluxion::grad]] long double tgammal1(long double x) { return ::tgammal(x); }
[[fluxion::grad]] float fdimf2(float x, float y) { return ::fdimf(x, y); }
[[fluxion::grad]] long double remainderl2(long double x, long double y) {
  return ::remainderl(x, y);
}

// Builtin spellings and builtin constants.
NT_FN2(builtins2, __builtin_sqrt(x) + __builtin_fabs(y) * __builtin_exp(x) +
                      __builtin_pow(x, y) + __builtin_sin(x * y))
[[fluxion::grad]] float builtinf1(float x) {
  return __builtin_sqrtf(x) + __builtin_logf(x);
}
NT_FN2(constants2, std::fmin(x, HUGE_VAL) + std::fmax(y, -INFINITY) +
                       (x > -HUGE_VAL ? x * y : 0.0) +
                       (y < INFINITY ? y * y : 1.0))

// The C++17 special functions.
NT_FN2(beta2, std::beta(x, y))
NT_FN1(expint1, std::expint(x))
NT_FN1(zeta1, std::riemann_zeta(x))
NT_FN1(comp_ellint_1_1, std::comp_ellint_1(x))
NT_FN1(comp_ellint_2_1, std::comp_ellint_2(x))
NT_FN2(comp_ellint_3_2, std::comp_ellint_3(x, y))
NT_FN2(ellint_1_2, std::ellint_1(x, y))
NT_FN2(ellint_2_2, std::ellint_2(x, y))
NT_FN3(ellint_3_3, std::ellint_3(x, y, z))
NT_FN1(cyl_bessel_j1, std::cyl_bessel_j(1.5, x) + std::cyl_bessel_j(0, x))
NT_FN1(cyl_bessel_i1, std::cyl_bessel_i(0.5, x) + std::cyl_bessel_i(2, x))
NT_FN1(cyl_bessel_k1, std::cyl_bessel_k(0.25, x) + std::cyl_bessel_k(1, x))
NT_FN1(cyl_neumann1, std::cyl_neumann(2.5, x) + std::cyl_neumann(0, x))
NT_FN1(legendre1, std::legendre(5, x) + std::legendre(0, x))
NT_FN1(assoc_legendre1, std::assoc_legendre(4, 2, x) +
                            std::assoc_legendre(3, 1, x) +
                            std::assoc_legendre(3, 3, x))
NT_FN1(laguerre1, std::laguerre(4, x) + std::laguerre(0, x))
NT_FN1(assoc_laguerre1, std::assoc_laguerre(3, 2, x))
NT_FN1(hermite1, std::hermite(5, x))
NT_FN1(sph_bessel1, std::sph_bessel(0, x) + std::sph_bessel(2, x))
NT_FN1(sph_neumann1, std::sph_neumann(1, x) + std::sph_neumann(3, x))
NT_FN1(sph_legendre1, std::sph_legendre(4, 1, x) + std::sph_legendre(3, 0, x) +
                          std::sph_legendre(3, 2, x))
[[fluxion::grad]] float betaf2(float x, float y) { return std::betaf(x, y); }
[[fluxion::grad]] long double legendrel1(long double x) {
  return std::legendrel(3, x);
}
// A real order that is differentiated: no number but NaN.
NT_FN2(bessel_order2, std::cyl_bessel_j(x, y))

// std::min, std::max, std::clamp, std::swap.
NT_FN2(max2, std::max(x, y))
NT_FN2(min2, std::min(x, y))
NT_FN2(fmax2, std::fmax(x, y))
NT_FN2(fmin2, std::fmin(x, y))
NT_FN3(max_nested3, std::max(std::max(x * y, z), std::min(x, 2 * z)) * x)
NT_FN3(clamp3, std::clamp(x, y, z) * std::clamp(y * y, 0.5, 2.0))
[[fluxion::grad]] [[fluxion::jvp]] double swap2(double x, double y) {
  double a = x * x, b = std::sin(y);
  std::swap(a, b);
  return 3 * a + b * y;
}
[[fluxion::grad]] [[fluxion::jvp]] void swap_refs(double &a, double &b) {
  std::swap(a, b);
}
[[fluxion::grad]] [[fluxion::jvp]] double moved(double x) {
  double a = std::move(x);
  return a * a;
}
[[fluxion::grad]] float max_float(float x, float y) {
  return std::max(x, y) * std::min(x, 1.0f);
}
[[fluxion::grad]] long double clamp_ldbl(long double x) {
  return std::clamp(x, -1.0L, 1.0L) * x;
}

} // namespace cmx

namespace {

using F1 = double (*)(double);
using G1 = double (*)(double, double *);
using J1 = double (*)(double, double);
using F2 = double (*)(double, double);
using G2 = double (*)(double, double, double *, double *);
using J2 = double (*)(double, double, double, double);
using F3 = double (*)(double, double, double);
using G3 = double (*)(double, double, double, double *, double *, double *);
using J3 = double (*)(double, double, double, double, double, double);

/// f_grad against finite differences, f_jvp along e_i against the gradient.
std::vector<ld> check1(F1 f, G1 g, J1 j, double x) {
  ld d = nt::check_gradient1<double>(f, g, x);
  NT_EXPECT_CLOSE(j(x, 1.0), d, 1e-13L, 1e-15L) << "f_jvp at " << x;
  return {d};
}
std::vector<ld> check2(F2 f, G2 g, J2 j, double x, double y) {
  auto d = nt::check_gradient<double>(
      [&](const double *v) { return f(v[0], v[1]); },
      [&](const double *v, double *a) { return g(v[0], v[1], &a[0], &a[1]); },
      {x, y});
  NT_EXPECT_CLOSE(j(x, y, 1, 0), d[0], 1e-13L, 1e-15L) << "f_jvp, x";
  NT_EXPECT_CLOSE(j(x, y, 0, 1), d[1], 1e-13L, 1e-15L) << "f_jvp, y";
  return d;
}
std::vector<ld> check3(F3 f, G3 g, J3 j, double x, double y, double z) {
  auto d = nt::check_gradient<double>(
      [&](const double *v) { return f(v[0], v[1], v[2]); },
      [&](const double *v, double *a) {
        return g(v[0], v[1], v[2], &a[0], &a[1], &a[2]);
      },
      {x, y, z});
  NT_EXPECT_CLOSE(j(x, y, z, 1, 0, 0), d[0], 1e-13L, 1e-15L) << "f_jvp, x";
  NT_EXPECT_CLOSE(j(x, y, z, 0, 1, 0), d[1], 1e-13L, 1e-15L) << "f_jvp, y";
  NT_EXPECT_CLOSE(j(x, y, z, 0, 0, 1), d[2], 1e-13L, 1e-15L) << "f_jvp, z";
  return d;
}

#define NT_CHECK1(NAME, X) check1(cmx::NAME, cmx::NAME##_grad, cmx::NAME##_jvp, X)
#define NT_CHECK2(NAME, X, Y)                                                  \
  check2(cmx::NAME, cmx::NAME##_grad, cmx::NAME##_jvp, X, Y)
#define NT_CHECK3(NAME, X, Y, Z)                                               \
  check3(cmx::NAME, cmx::NAME##_grad, cmx::NAME##_jvp, X, Y, Z)

/// n random points in [lo, hi].
std::vector<double> points(const char *seed, ld lo, ld hi, int n = 8) {
  nt::Rng rng(std::hash<std::string>{}(seed) & 0xffffffffu);
  std::vector<double> p;
  for (int i = 0; i < n; ++i)
    p.push_back(static_cast<double>(rng.uniform(lo, hi)));
  return p;
}

} // namespace

TEST(CmathMore, Gamma) {
  for (double x : points("lgamma+", 0.1L, 9))
    NT_CHECK1(lgamma1, x);
  for (double x : points("lgamma-", -3.9L, -3.1L)) // Gamma < 0 here
    NT_CHECK1(lgamma1, x);
  for (double x : points("tgamma", 0.2L, 5))
    NT_CHECK1(tgamma1, x);
  for (double x : points("tgamma-", -2.8L, -2.2L))
    NT_CHECK1(tgamma1, x);
  // psi(1) = -Euler's gamma, exactly known: a check independent of FD.
  double d = 0;
  cmx::lgamma1_grad(1.0, &d);
  NT_EXPECT_CLOSE(d, -0.577215664901532860606512090082402431L, 1e-14L, 0.0L);
  // At a pole the value is infinite and the derivative NaN, not a number.
  d = 0;
  cmx::tgamma1_grad(-2.0, &d);
  EXPECT_TRUE(std::isnan(d));
  nt::check_gradient1<float>(cmx::lgammaf1, cmx::lgammaf1_grad, 2.5f);
  long double dl = 0;
  cmx::tgammal1_grad(3.5L, &dl);
  // Gamma'(3.5) = Gamma(3.5) psi(3.5), psi(3.5) = psi(0.5) + 2 + 2/3 + 2/5.
  long double psi = -0.577215664901532860606512090082402431L -
                    2 * 0.693147180559945309417232121458176568L + 2 +
                    2.0L / 3 + 2.0L / 5;
  NT_EXPECT_CLOSE(dl, std::tgamma(3.5L) * psi, 1e-16L, 0.0L);
}

TEST(CmathMore, FdimRemainderNextafter) {
  nt::Rng rng(18);
  for (int i = 0; i < 8; ++i) {
    double x = static_cast<double>(rng.uniform(-4, 4));
    double y = static_cast<double>(rng.uniform(-4, 4));
    auto d = NT_CHECK2(fdim2, x, y);
    EXPECT_EQ(d[0], x > y ? 1 : 0);
    // remainder: away from the jumps of the rounded quotient.
    double yr = static_cast<double>(rng.uniform(0.7L, 2));
    double q = std::nearbyint(x / yr);
    double xr = (q + static_cast<double>(rng.uniform(-0.4L, 0.4L))) * yr;
    NT_CHECK2(remainder2, xr, yr);
    NT_CHECK2(remquo2, xr, yr);
    NT_CHECK2(nextafter2, x, y);
  }
  // fdim at its kink: 0, as relu'(0).
  double dx = 7, dy = 7;
  cmx::fdim2_grad(1.5, 1.5, &dx, &dy);
  EXPECT_EQ(dx, 7);
  EXPECT_EQ(dy, 7);
  nt::check_gradient<float>(
      [](const float *v) { return cmx::fdimf2(v[0], v[1]); },
      [](const float *v, float *a) {
        return cmx::fdimf2_grad(v[0], v[1], &a[0], &a[1]);
      },
      {2.5f, 1.0f});
  nt::check_gradient<long double>(
      [](const long double *v) { return cmx::remainderl2(v[0], v[1]); },
      [](const long double *v, long double *a) {
        return cmx::remainderl2_grad(v[0], v[1], &a[0], &a[1]);
      },
      {7.3L, 1.5L});
}

TEST(CmathMore, ExponentsAndParts) {
  for (double x : points("parts", -6, 6)) {
    if (std::fabs(x) < 0.1)
      continue;
    NT_CHECK1(nexttoward1, x);
    NT_CHECK1(logb1, x);
    NT_CHECK1(scalbln1, x);
    NT_CHECK1(frexp1, x);
    NT_CHECK1(modf1, x);
  }
  // logb is piecewise constant: x logb(x) has derivative logb(x).
  double d = 0;
  cmx::logb1_grad(5.0, &d);
  EXPECT_EQ(d, 2);
}

TEST(CmathMore, Hypot3) {
  nt::Rng rng(3);
  for (int i = 0; i < 8; ++i)
    NT_CHECK3(hypot3, static_cast<double>(rng.uniform(-3, 3)),
              static_cast<double>(rng.uniform(-3, 3)),
              static_cast<double>(rng.uniform(-3, 3)));
  double d[3] = {0, 0, 0};
  cmx::hypot3_grad(0, 0, 0, &d[0], &d[1], &d[2]); // the origin: 0, as fabs'(0)
  EXPECT_EQ(d[0], 0);
  EXPECT_EQ(d[1], 0);
  EXPECT_EQ(d[2], 0);
}

TEST(CmathMore, Builtins) {
  for (double x : points("builtins", 0.2L, 3)) {
    NT_CHECK2(builtins2, x, 1.3 - x);
    NT_CHECK2(constants2, x, -x);
  }
  nt::check_gradient1<float>(cmx::builtinf1, cmx::builtinf1_grad, 1.7f);
}

TEST(CmathMore, SpecialFunctions) {
  for (double x : points("beta", 0.3L, 4))
    NT_CHECK2(beta2, x, 4.3 - x);
  for (double x : points("expint", 0.2L, 5))
    NT_CHECK1(expint1, x);
  for (double x : points("expint-", -5, -0.2L))
    NT_CHECK1(expint1, x);
  for (double s : points("zeta>1", 1.2L, 8))
    NT_CHECK1(zeta1, s);
  for (double s : points("zeta<1", 0.05L, 0.95L))
    NT_CHECK1(zeta1, s);
  for (double s : points("zeta<0", -7, -0.1L))
    NT_CHECK1(zeta1, s);
  NT_CHECK1(zeta1, 60.0);
  // Known values: zeta'(0) = -log(2 pi) / 2; zeta'(2) = -0.9375482543...
  double d = 0;
  cmx::zeta1_grad(0.0, &d);
  NT_EXPECT_CLOSE(d, -0.918938533204672741780329736405617639L, 1e-13L, 0.0L);
  d = 0;
  cmx::zeta1_grad(2.0, &d);
  NT_EXPECT_CLOSE(d, -0.937548254315843753702574094567864L, 1e-13L, 0.0L);
  for (double k : points("ellint", -0.9L, 0.9L)) {
    NT_CHECK1(comp_ellint_1_1, k);
    NT_CHECK1(comp_ellint_2_1, k);
    NT_CHECK2(comp_ellint_3_2, k, k * 0.7 - 0.2);
    NT_CHECK2(ellint_1_2, k, 1.2 - k);
    NT_CHECK2(ellint_2_2, k, 1.2 + k);
    NT_CHECK3(ellint_3_3, k, 0.5 * k + 0.1, 1.3 - 0.5 * k);
  }
  // The special cases k = 0 and n = 0 of the formulas.
  NT_CHECK1(comp_ellint_1_1, 0.0);
  NT_CHECK1(comp_ellint_2_1, 0.0);
  NT_CHECK2(comp_ellint_3_2, 0.4, 0.0);
  NT_CHECK2(comp_ellint_3_2, 0.0, 0.3);
  NT_CHECK2(ellint_1_2, 0.0, 0.7);
  NT_CHECK2(ellint_2_2, 0.0, 0.7);
  NT_CHECK3(ellint_3_3, 0.4, 0.0, 0.8);
  NT_CHECK3(ellint_3_3, 0.0, 0.3, 0.8);
  for (double x : points("bessel", 0.3L, 12)) {
    NT_CHECK1(cyl_bessel_j1, x);
    NT_CHECK1(cyl_bessel_k1, x);
    NT_CHECK1(cyl_neumann1, x);
    NT_CHECK1(sph_bessel1, x);
    NT_CHECK1(sph_neumann1, x);
  }
  for (double x : points("bessel_i", 0.1L, 5))
    NT_CHECK1(cyl_bessel_i1, x);
  for (double x : points("polynomials", -0.95L, 0.95L)) {
    NT_CHECK1(legendre1, x);
    NT_CHECK1(assoc_legendre1, x);
  }
  for (double x : points("laguerre", 0, 6)) {
    NT_CHECK1(laguerre1, x);
    NT_CHECK1(assoc_laguerre1, x);
  }
  for (double x : points("hermite", -2, 2))
    NT_CHECK1(hermite1, x);
  for (double t : points("sph_legendre", 0.1L, 3))
    NT_CHECK1(sph_legendre1, t);
  // Closed forms at the ends: P_5'(1) = 15, P_5'(-1) = 15, and
  // (P_4^2)'(1) = -2 P_4''(1) = -2 * 3 * 4 * 5 * 6 / 8.
  d = 0;
  cmx::legendre1_grad(1.0, &d);
  EXPECT_EQ(d, 15);
  d = 0;
  cmx::legendre1_grad(-1.0, &d);
  EXPECT_EQ(d, 15);
  // j_0'(0) = 0, j_2'(0) = 0.
  d = 1;
  cmx::sph_bessel1_grad(0.0, &d);
  EXPECT_EQ(d, 1);
  nt::check_gradient<float>(
      [](const float *v) { return cmx::betaf2(v[0], v[1]); },
      [](const float *v, float *a) {
        return cmx::betaf2_grad(v[0], v[1], &a[0], &a[1]);
      },
      {1.5f, 2.5f});
  nt::check_gradient1<long double>(cmx::legendrel1, cmx::legendrel1_grad,
                                   0.3L);
}

TEST(CmathMore, BesselOrderHasNoDerivative) {
  // The derivative in the order is not computed: NaN, never a number; the
  // one in x is right.
  double dnu = 0, dx = 0;
  cmx::bessel_order2_grad(1.5, 2.0, &dnu, &dx);
  EXPECT_TRUE(std::isnan(dnu));
  NT_EXPECT_CLOSE(dx,
                  nt::central_diff<double>(
                      [](double x) { return std::cyl_bessel_j(1.5, x); }, 2.0),
                  2e-6L, 2e-8L);
  EXPECT_TRUE(std::isnan(cmx::bessel_order2_jvp(1.5, 2.0, 1, 0)));
  NT_EXPECT_CLOSE(cmx::bessel_order2_jvp(1.5, 2.0, 0, 1), dx, 1e-13L, 0.0L);
}

TEST(CmathMore, MinMaxClamp) {
  nt::Rng rng(7);
  for (int i = 0; i < 10; ++i) {
    double x = static_cast<double>(rng.uniform(-3, 3));
    double y = static_cast<double>(rng.uniform(-3, 3));
    double z = static_cast<double>(rng.uniform(-3, 3));
    NT_CHECK2(max2, x, y);
    NT_CHECK2(min2, x, y);
    NT_CHECK3(max_nested3, x, y, z);
    NT_CHECK3(clamp3, x, std::min(y, z), std::max(y, z));
  }
  // Ties: the same choice as fmax and fmin (the first argument).
  for (double v : {-1.5, 0.0, 2.0}) {
    double a[2] = {0, 0}, b[2] = {0, 0};
    cmx::max2_grad(v, v, &a[0], &a[1]);
    cmx::fmax2_grad(v, v, &b[0], &b[1]);
    EXPECT_EQ(a[0], b[0]);
    EXPECT_EQ(a[1], b[1]);
    EXPECT_EQ(a[0], 1);
    EXPECT_EQ(cmx::max2_jvp(v, v, 1, 0), 1);
    a[0] = a[1] = b[0] = b[1] = 0;
    cmx::min2_grad(v, v, &a[0], &a[1]);
    cmx::fmin2_grad(v, v, &b[0], &b[1]);
    EXPECT_EQ(a[0], b[0]);
    EXPECT_EQ(a[1], b[1]);
    EXPECT_EQ(a[0], 1);
    // clamp at either end of the range: the value itself is selected.
    double c[3] = {0, 0, 0};
    cmx::clamp3_grad(v, v, v + 1, &c[0], &c[1], &c[2]);
    EXPECT_EQ(c[1] + c[2], 0) << "the ends get nothing at a tie";
    EXPECT_NE(c[0], 0);
  }
  nt::check_gradient<float>(
      [](const float *v) { return cmx::max_float(v[0], v[1]); },
      [](const float *v, float *a) {
        return cmx::max_float_grad(v[0], v[1], &a[0], &a[1]);
      },
      {0.5f, -0.25f});
  for (long double x : {-1.5L, 0.5L, 1.25L})
    nt::check_gradient1<long double>(cmx::clamp_ldbl, cmx::clamp_ldbl_grad, x);
}

TEST(CmathMore, Swap) {
  for (double x : points("swap", -2, 2))
    NT_CHECK2(swap2, x, 0.5 - x);
  // By reference: a and b exchange their values and their adjoints.
  double a = 1, b = 2, da = 3, db = 5;
  cmx::swap_refs_vjp(a, b, &da, &db);
  EXPECT_EQ(da, 5);
  EXPECT_EQ(db, 3);
  double ta = 3, tb = 5;
  a = 1;
  b = 2;
  cmx::swap_refs_jvp(a, b, &ta, &tb);
  EXPECT_EQ(a, 2);
  EXPECT_EQ(b, 1);
  EXPECT_EQ(ta, 5);
  EXPECT_EQ(tb, 3);
  for (double x : points("move", -2, 2))
    NT_CHECK1(moved, x);
}
