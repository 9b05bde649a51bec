// Every <cmath> function with a derivative rule in the contract, called as
// std::f and as unqualified f, with the float and long double overloads and
// the C spellings fnf / fnl, at random points of its domain. References:
// central finite differences and the textbook derivative.
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <math.h>

#include "numeric_check.hpp"

using nt::ld;

namespace cm {

// For each unary function NAME, six annotated functions:
//   NAME_std(x)       = std::NAME(x)                      (double)
//   NAME_bare(x, a)   = a * NAME(a * x)                   (unqualified, chain rule)
//   NAME_flt(x)       = std::NAME(x)                      (float overload)
//   NAME_ldbl(x)      = std::NAME(x)                      (long double overload)
//   NAME_fsfx(x)      = NAME##f(x)                        (C float spelling)
//   NAME_lsfx(x)      = NAME##l(x)                        (C long double spelling)
#define NT_UNARY_FUNCTIONS(NAME)                                               \
  [[fluxion::grad]] double NAME##_std(double x) { return std::NAME(x); }       \
  [[fluxion::grad]] double NAME##_bare(double x, double a) {                   \
    return a * NAME(a * x);                                                    \
  }                                                                            \
  [[fluxion::grad]] float NAME##_flt(float x) { return std::NAME(x); }         \
  [[fluxion::grad]] long double NAME##_ldbl(long double x) {                   \
    return std::NAME(x);                                                       \
  }                                                                            \
  [[fluxion::grad]] float NAME##_fsfx(float x) { return ::NAME##f(x); }        \
  [[fluxion::grad]] long double NAME##_lsfx(long double x) {                   \
    return ::NAME##l(x);                                                       \
  }

NT_UNARY_FUNCTIONS(sin)
NT_UNARY_FUNCTIONS(cos)
NT_UNARY_FUNCTIONS(tan)
NT_UNARY_FUNCTIONS(asin)
NT_UNARY_FUNCTIONS(acos)
NT_UNARY_FUNCTIONS(atan)
NT_UNARY_FUNCTIONS(sinh)
NT_UNARY_FUNCTIONS(cosh)
NT_UNARY_FUNCTIONS(tanh)
NT_UNARY_FUNCTIONS(exp)
NT_UNARY_FUNCTIONS(exp2)
NT_UNARY_FUNCTIONS(expm1)
NT_UNARY_FUNCTIONS(log)
NT_UNARY_FUNCTIONS(log2)
NT_UNARY_FUNCTIONS(log10)
NT_UNARY_FUNCTIONS(log1p)
NT_UNARY_FUNCTIONS(sqrt)
NT_UNARY_FUNCTIONS(cbrt)
NT_UNARY_FUNCTIONS(fabs)
NT_UNARY_FUNCTIONS(erf)
NT_UNARY_FUNCTIONS(erfc)

// Binary functions: std:: and unqualified, double, float, long double.
#define NT_BINARY_FUNCTIONS(NAME)                                              \
  [[fluxion::grad]] double NAME##_std(double x, double y) {                    \
    return std::NAME(x, y);                                                    \
  }                                                                            \
  [[fluxion::grad]] double NAME##_bare(double x, double y) {                   \
    return NAME(x, y);                                                         \
  }                                                                            \
  [[fluxion::grad]] float NAME##_flt(float x, float y) {                       \
    return std::NAME(x, y);                                                    \
  }                                                                            \
  [[fluxion::grad]] long double NAME##_ldbl(long double x, long double y) {    \
    return std::NAME(x, y);                                                    \
  }                                                                            \
  [[fluxion::grad]] float NAME##_fsfx(float x, float y) {                      \
    return ::NAME##f(x, y);                                                    \
  }                                                                            \
  [[fluxion::grad]] long double NAME##_lsfx(long double x, long double y) {    \
    return ::NAME##l(x, y);                                                    \
  }

NT_BINARY_FUNCTIONS(atan2)
NT_BINARY_FUNCTIONS(pow)
NT_BINARY_FUNCTIONS(hypot)
NT_BINARY_FUNCTIONS(fmin)
NT_BINARY_FUNCTIONS(fmax)

// Mixed argument types.
[[fluxion::grad]] double pow_int(double x) { return std::pow(x, 3); }
[[fluxion::grad]] double pow_base(double x) { return std::pow(2.0, x); }
[[fluxion::grad]] double pow_float_int(float x) { return std::pow(x, 2); }
[[fluxion::grad]] double atan2_const(double y) { return std::atan2(y, 1.5); }

// A composite of several rules in one expression (chain and product rules).
[[fluxion::grad]] double composite(double x, double y) {
  return std::exp(-x * x) * std::sin(3 * y) + std::log1p(x * x + y * y) -
         std::sqrt(std::hypot(x, y) + 1) + std::pow(std::cosh(x), 0.5);
}

// Unqualified calls with float and long double arguments (the overloads
// <cmath> puts in the global namespace).
[[fluxion::grad]] long double unqualified_ldbl(long double x) {
  return sin(x) + exp(x) * log(x) + pow(x, x);
}
[[fluxion::grad]] float unqualified_flt(float x) {
  return sin(x) + exp(x) * log(x) + pow(x, x);
}

} // namespace cm

namespace {

constexpr ld kPi = 3.141592653589793238462643383279502884L;
constexpr ld kLn2 = 0.693147180559945309417232121458176568L;
constexpr ld kLn10 = 2.30258509299404568401799145468436421L;

struct Domain {
  ld lo, hi;
  bool random_sign; // |x| in [lo, hi] with a random sign
};

using DerivFn = ld (*)(ld);

// Runs all six spellings of a unary function at random points of its domain.
template <class Ff, class Gf, class Fl, class Gl>
void run_unary(const char *name, Domain dom, DerivFn deriv, //
               double (*f_std)(double), double (*g_std)(double, double *),
               double (*f_bare)(double, double),
               double (*g_bare)(double, double, double *, double *),
               Ff f_flt, Gf g_flt, Fl f_ldbl, Gl g_ldbl,
               float (*f_fsfx)(float), float (*g_fsfx)(float, float *),
               long double (*f_lsfx)(long double),
               long double (*g_lsfx)(long double, long double *)) {
  SCOPED_TRACE(name);
  nt::Rng rng(std::hash<std::string>{}(name) & 0xffffffffu);
  auto draw = [&] {
    return dom.random_sign ? rng.signed_uniform(dom.lo, dom.hi)
                           : rng.uniform(dom.lo, dom.hi);
  };
  for (int rep = 0; rep < 12; ++rep) {
    {
      double x = static_cast<double>(draw());
      ld g = nt::check_gradient1<double>(f_std, g_std, x);
      NT_EXPECT_CLOSE(g, deriv(x), 1e-12L, 1e-14L) << "std:: double";
    }
    {
      // a in [0.6, 1] keeps a x inside the domain.
      double x = static_cast<double>(draw()), a = static_cast<double>(rng.uniform(0.6, 1));
      auto g = nt::check_gradient<double>(
          [&](const double *v) { return f_bare(v[0], v[1]); },
          [&](const double *v, double *d) { return g_bare(v[0], v[1], &d[0], &d[1]); },
          {x, a});
      ld ax = (ld)a * x;
      NT_EXPECT_CLOSE(g[0], a * a * deriv(ax), 1e-12L, 1e-14L) << "unqualified";
      NT_EXPECT_CLOSE(g[1], f_bare(x, a) / a + ax * deriv(ax), 1e-11L, 1e-13L)
          << "unqualified, d/da";
    }
    {
      float x = static_cast<float>(draw());
      ld g = nt::check_gradient1<float>(f_flt, g_flt, x);
      NT_EXPECT_CLOSE(g, deriv(x), 2e-5L, 1e-6L) << "float overload";
      float d = 0;
      g_fsfx(x, &d);
      NT_EXPECT_CLOSE(d, deriv(x), 2e-5L, 1e-6L) << "C float spelling";
      NT_EXPECT_CLOSE(g_fsfx(x, &d), f_fsfx(x), 1e-6L, 0.0L);
    }
    {
      long double x = draw();
      ld g = nt::check_gradient1<long double>(f_ldbl, g_ldbl, x);
      NT_EXPECT_CLOSE(g, deriv(x), 1e-15L, 1e-17L) << "long double overload";
      long double d = 0;
      g_lsfx(x, &d);
      NT_EXPECT_CLOSE(d, deriv(x), 1e-15L, 1e-17L) << "C long double spelling";
      NT_EXPECT_CLOSE(g_lsfx(x, &d), f_lsfx(x), 1e-18L, 0.0L);
    }
  }
}

} // namespace

#define NT_UNARY_TEST(NAME, DOMAIN, DERIV)                                     \
  TEST(Cmath, NAME) {                                                          \
    run_unary(#NAME, DOMAIN, [](ld x) -> ld { return DERIV; }, cm::NAME##_std, \
              cm::NAME##_std_grad, cm::NAME##_bare, cm::NAME##_bare_grad,      \
              cm::NAME##_flt, cm::NAME##_flt_grad, cm::NAME##_ldbl,         \
              cm::NAME##_ldbl_grad, cm::NAME##_fsfx, cm::NAME##_fsfx_grad,     \
              cm::NAME##_lsfx, cm::NAME##_lsfx_grad);                          \
  }

NT_UNARY_TEST(sin, (Domain{-6, 6, false}), std::cos(x))
NT_UNARY_TEST(cos, (Domain{-6, 6, false}), -std::sin(x))
NT_UNARY_TEST(tan, (Domain{-1.4L, 1.4L, false}), 1 / (std::cos(x) * std::cos(x)))
NT_UNARY_TEST(asin, (Domain{-0.95L, 0.95L, false}), 1 / std::sqrt(1 - x * x))
NT_UNARY_TEST(acos, (Domain{-0.95L, 0.95L, false}), -1 / std::sqrt(1 - x * x))
NT_UNARY_TEST(atan, (Domain{-5, 5, false}), 1 / (1 + x * x))
NT_UNARY_TEST(sinh, (Domain{-3, 3, false}), std::cosh(x))
NT_UNARY_TEST(cosh, (Domain{-3, 3, false}), std::sinh(x))
NT_UNARY_TEST(tanh, (Domain{-3, 3, false}), 1 / (std::cosh(x) * std::cosh(x)))
NT_UNARY_TEST(exp, (Domain{-5, 5, false}), std::exp(x))
NT_UNARY_TEST(exp2, (Domain{-5, 5, false}), std::exp2(x) * kLn2)
NT_UNARY_TEST(expm1, (Domain{-3, 3, false}), std::exp(x))
NT_UNARY_TEST(log, (Domain{0.05L, 20, false}), 1 / x)
NT_UNARY_TEST(log2, (Domain{0.05L, 20, false}), 1 / (x * kLn2))
NT_UNARY_TEST(log10, (Domain{0.05L, 20, false}), 1 / (x * kLn10))
NT_UNARY_TEST(log1p, (Domain{-0.9L, 10, false}), 1 / (1 + x))
NT_UNARY_TEST(sqrt, (Domain{0.01L, 20, false}), 0.5L / std::sqrt(x))
NT_UNARY_TEST(cbrt, (Domain{0.05L, 10, true}), 1 / (3 * std::cbrt(x) * std::cbrt(x)))
NT_UNARY_TEST(fabs, (Domain{0.1L, 5, true}), x > 0 ? 1 : -1)
NT_UNARY_TEST(erf, (Domain{-2.5L, 2.5L, false}), 2 / std::sqrt(kPi) * std::exp(-x * x))
NT_UNARY_TEST(erfc, (Domain{-2.5L, 2.5L, false}), -2 / std::sqrt(kPi) * std::exp(-x * x))

namespace {

struct Deriv2 {
  ld dx, dy;
};
using Deriv2Fn = Deriv2 (*)(ld, ld);

template <class T>
void check2(const char *what, T (*f)(T, T), T (*g)(T, T, T *, T *), T x, T y,
            Deriv2Fn deriv, ld rtol) {
  SCOPED_TRACE(what);
  auto d = nt::check_gradient<T>([&](const T *v) { return f(v[0], v[1]); },
                                 [&](const T *v, T *dd) {
                                   return g(v[0], v[1], &dd[0], &dd[1]);
                                 },
                                 {x, y});
  Deriv2 r = deriv(x, y);
  NT_EXPECT_CLOSE(d[0], r.dx, rtol, rtol * 1e-2L) << "d/dx";
  NT_EXPECT_CLOSE(d[1], r.dy, rtol, rtol * 1e-2L) << "d/dy";
}

template <class Draw>
void run_binary(const char *name, Draw draw, Deriv2Fn deriv,
                double (*f_std)(double, double),
                double (*g_std)(double, double, double *, double *),
                double (*f_bare)(double, double),
                double (*g_bare)(double, double, double *, double *),
                float (*f_flt)(float, float),
                float (*g_flt)(float, float, float *, float *),
                long double (*f_ldbl)(long double, long double),
                long double (*g_ldbl)(long double, long double, long double *,
                                      long double *),
                float (*f_fsfx)(float, float),
                float (*g_fsfx)(float, float, float *, float *),
                long double (*f_lsfx)(long double, long double),
                long double (*g_lsfx)(long double, long double, long double *,
                                      long double *)) {
  SCOPED_TRACE(name);
  nt::Rng rng(std::hash<std::string>{}(name) & 0xffffffffu);
  for (int rep = 0; rep < 12; ++rep) {
    auto [x, y] = draw(rng);
    check2<double>("std::", f_std, g_std, (double)x, (double)y, deriv, 1e-12L);
    check2<double>("unqualified", f_bare, g_bare, (double)x, (double)y, deriv,
                   1e-12L);
    check2<float>("float", f_flt, g_flt, (float)x, (float)y, deriv, 2e-5L);
    check2<float>("C float", f_fsfx, g_fsfx, (float)x, (float)y, deriv, 2e-5L);
    check2<long double>("long double", f_ldbl, g_ldbl, x, y, deriv, 1e-15L);
    check2<long double>("C long double", f_lsfx, g_lsfx, x, y, deriv, 1e-15L);
  }
}

} // namespace

#define NT_BINARY_TEST(NAME, DRAW, DERIV)                                      \
  TEST(Cmath, NAME) {                                                          \
    run_binary(                                                                \
        #NAME, DRAW, [](ld x, ld y) -> Deriv2 { return DERIV; },               \
        cm::NAME##_std, cm::NAME##_std_grad, cm::NAME##_bare,                  \
        cm::NAME##_bare_grad, cm::NAME##_flt, cm::NAME##_flt_grad,             \
        cm::NAME##_ldbl, cm::NAME##_ldbl_grad, cm::NAME##_fsfx,                \
        cm::NAME##_fsfx_grad, cm::NAME##_lsfx, cm::NAME##_lsfx_grad);          \
  }

NT_BINARY_TEST(atan2,
               ([](nt::Rng &r) {
                 return std::pair{r.signed_uniform(0.2L, 3), r.signed_uniform(0.2L, 3)};
               }),
               (Deriv2{y / (x * x + y * y), -x / (x * x + y * y)}))
NT_BINARY_TEST(pow,
               ([](nt::Rng &r) {
                 return std::pair{r.uniform(0.2L, 4), r.uniform(-2.5L, 2.5L)};
               }),
               (Deriv2{y * std::pow(x, y - 1), std::pow(x, y) * std::log(x)}))
NT_BINARY_TEST(hypot,
               ([](nt::Rng &r) {
                 return std::pair{r.signed_uniform(0.1L, 5), r.signed_uniform(0.1L, 5)};
               }),
               (Deriv2{x / std::hypot(x, y), y / std::hypot(x, y)}))
// fmin / fmax: the two arguments at least 0.05 apart, so FD sees no kink.
NT_BINARY_TEST(fmin,
               ([](nt::Rng &r) {
                 ld a = r.uniform(-3, 3), b = a + r.signed_uniform(0.05L, 2);
                 return std::pair{a, b};
               }),
               (Deriv2{x < y ? 1.0L : 0.0L, x < y ? 0.0L : 1.0L}))
NT_BINARY_TEST(fmax,
               ([](nt::Rng &r) {
                 ld a = r.uniform(-3, 3), b = a + r.signed_uniform(0.05L, 2);
                 return std::pair{a, b};
               }),
               (Deriv2{x > y ? 1.0L : 0.0L, x > y ? 0.0L : 1.0L}))

TEST(Cmath, MixedArgumentTypes) {
  for (double x : {-1.5, 0.5, 2.25}) {
    ld g = nt::check_gradient1<double>(cm::pow_int, cm::pow_int_grad, x);
    NT_EXPECT_EXACT(double, g, 3 * (ld)x * x);
    g = nt::check_gradient1<double>(cm::pow_base, cm::pow_base_grad, x);
    NT_EXPECT_CLOSE(g, std::exp2((ld)x) * kLn2, 1e-12L, 0.0L);
    g = nt::check_gradient1<double>(cm::atan2_const, cm::atan2_const_grad, x);
    NT_EXPECT_CLOSE(g, 1.5L / (x * x + 2.25L), 1e-12L, 0.0L);
    // std::pow(float, int) computes in double; the derivative goes to the
    // float parameter.
    float xf = static_cast<float>(x), dxf = 0;
    double v = cm::pow_float_int_grad(xf, &dxf);
    NT_EXPECT_EXACT(double, v, (double)xf * xf);
    NT_EXPECT_CLOSE(dxf, 2 * (ld)xf, 1e-7L, 0.0L);
  }
}

TEST(Cmath, CompositeExpression) {
  nt::Rng rng(41);
  for (int rep = 0; rep < 20; ++rep) {
    double x = rng.uniform(-2, 2), y = rng.uniform(-2, 2);
    auto g = nt::check_gradient<double>(
        [](const double *v) { return cm::composite(v[0], v[1]); },
        [](const double *v, double *d) {
          return cm::composite_grad(v[0], v[1], &d[0], &d[1]);
        },
        {x, y});
    ld X = x, Y = y, r2 = X * X + Y * Y, h = std::sqrt(r2);
    ld dx = -2 * X * std::exp(-X * X) * std::sin(3 * Y) + 2 * X / (1 + r2) -
            0.5L / std::sqrt(h + 1) * X / h +
            0.5L / std::sqrt(std::cosh(X)) * std::sinh(X);
    ld dy = 3 * std::exp(-X * X) * std::cos(3 * Y) + 2 * Y / (1 + r2) -
            0.5L / std::sqrt(h + 1) * Y / h;
    NT_EXPECT_CLOSE(g[0], dx, 1e-12L, 1e-14L);
    NT_EXPECT_CLOSE(g[1], dy, 1e-12L, 1e-14L);
  }
}

TEST(Cmath, UnqualifiedFloatAndLongDoubleArguments) {
  for (long double x : {0.4L, 1.3L, 2.2L}) {
    auto ref = [](ld v) {
      return std::cos(v) + std::exp(v) * std::log(v) + std::exp(v) / v +
             std::pow(v, v) * (std::log(v) + 1);
    };
    ld g = nt::check_gradient1<long double>(cm::unqualified_ldbl,
                                            cm::unqualified_ldbl_grad, x);
    NT_EXPECT_EXACT(long double, g, ref(x));
    float xf = static_cast<float>(x);
    g = nt::check_gradient1<float>(cm::unqualified_flt, cm::unqualified_flt_grad, xf);
    NT_EXPECT_CLOSE(g, ref(xf), 1e-5L, 1e-6L);
  }
}
