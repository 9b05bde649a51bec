// Floating types (float, double, long double), the parameter-name
// restriction of [[fluxion::grad("x", "w")]], and integer parameters passed
// through without derivative parameters.
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <type_traits>

#include "numeric_check.hpp"

namespace types {

// The same rational-polynomial model in three precisions.
[[fluxion::grad]] float model_f(float x, float w) {
  float num = w * x * x - 3 * x;
  float den = 1 + w * w;
  return num / den + x;
}
[[fluxion::grad]] double model_d(double x, double w) {
  double num = w * x * x - 3 * x;
  double den = 1 + w * w;
  return num / den + x;
}
[[fluxion::grad]] long double model_l(long double x, long double w) {
  long double num = w * x * x - 3 * x;
  long double den = 1 + w * w;
  return num / den + x;
}

// Arrays and a loop in float and long double.
[[fluxion::grad]] float sumsq_f(const float *x, int n, float w) {
  float s = 0;
  for (int i = 0; i < n; ++i)
    s += w * x[i] * x[i];
  return s;
}
[[fluxion::grad]] long double sumsq_l(const long double *x, int n,
                                      long double w) {
  long double s = 0;
  for (int i = 0; i < n; ++i)
    s += w * x[i] * x[i];
  return s;
}

// Mixed precision: a float parameter used in double arithmetic.
[[fluxion::grad]] double mixed(float x, double y) { return x * y + y * y; }

// Restriction to x and w: y gets no derivative parameter.
[[fluxion::grad("x", "w")]] double restricted(double x, double y, double w) {
  return x * y * w + y * y + w;
}

// Restriction to a scalar of a function with an array input.
[[fluxion::grad("w")]] double loss_w(const double *x, double w, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double r = w * x[i] - 1;
    s += r * r;
  }
  return s;
}

// Restriction to the array.
[[fluxion::grad("x")]] double loss_x(const double *x, double w, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double r = w * x[i] - 1;
    s += r * r;
  }
  return s;
}

// Integer parameters first, in the middle and last; they get no d_.
[[fluxion::grad]] double ints(int k, double x, int m, double y, unsigned n) {
  double r = 0;
  for (unsigned i = 0; i < n; ++i)
    r += k * x + m * y * y;
  return r;
}

// Non-floating parameters of other kinds are passed through too: an enum, a
// bool, a long.
enum Mode { Linear, Square };
[[fluxion::grad]] double modes(Mode mode, bool twice, double x, long k) {
  double r = mode == Linear ? x : x * x;
  if (twice)
    r = 2 * r;
  return r * static_cast<double>(k);
}

// The same with a scoped enumeration (compared to an enumerator).
enum class Kind { Linear, Square };
[[fluxion::grad]] double kinds(Kind kind, double x) {
  if (kind == Kind::Linear)
    return 3 * x;
  return x * x;
}

} // namespace types

using nt::ld;

template <class T> static void check_model(T (*f)(T, T), T (*g)(T, T, T *, T *)) {
  for (auto [x, w] : {std::pair{0.75L, 1.5L}, {-2.0L, 0.5L}, {1.25L, -0.8L}}) {
    auto d = nt::check_gradient<T>(
        [&](const T *v) { return f(v[0], v[1]); },
        [&](const T *v, T *d) { return g(v[0], v[1], &d[0], &d[1]); },
        {static_cast<T>(x), static_cast<T>(w)});
    ld X = static_cast<T>(x), W = static_cast<T>(w), den = 1 + W * W;
    NT_EXPECT_EXACT(T, d[0], (2 * W * X - 3) / den + 1);
    NT_EXPECT_EXACT(T, d[1],
                    (X * X * den - (W * X * X - 3 * X) * 2 * W) / (den * den));
  }
}

TEST(Types, Float) { check_model<float>(types::model_f, types::model_f_grad); }
TEST(Types, Double) { check_model<double>(types::model_d, types::model_d_grad); }
TEST(Types, LongDouble) {
  check_model<long double>(types::model_l, types::model_l_grad);
}

TEST(Types, SignaturesUseTheParameterTypes) {
  EXPECT_TRUE((std::is_same_v<decltype(&types::model_f_grad),
                              float (*)(float, float, float *, float *)>));
  EXPECT_TRUE((std::is_same_v<decltype(&types::model_l_vjp),
                              long double (*)(long double, long double,
                                              long double, long double *,
                                              long double *)>));
  EXPECT_TRUE((std::is_same_v<decltype(&types::sumsq_f_grad),
                              float (*)(const float *, int, float, float *,
                                        float *)>));
}

TEST(Types, FloatAndLongDoubleArrays) {
  const int n = 4;
  {
    std::vector<float> in = {0.5f, -1.25f, 2.0f, 0.75f, 1.5f};
    auto g = nt::check_gradient<float>(
        [&](const float *v) { return types::sumsq_f(v, n, v[n]); },
        [&](const float *v, float *d) {
          return types::sumsq_f_grad(v, n, v[n], d, d + n);
        },
        in);
    for (int i = 0; i < n; ++i)
      NT_EXPECT_EXACT(float, g[i], 2 * (ld)in[n] * in[i]);
  }
  {
    std::vector<long double> in = {0.5L, -1.25L, 2.0L, 0.75L, 1.5L};
    auto g = nt::check_gradient<long double>(
        [&](const long double *v) { return types::sumsq_l(v, n, v[n]); },
        [&](const long double *v, long double *d) {
          return types::sumsq_l_grad(v, n, v[n], d, d + n);
        },
        in);
    ld s = 0;
    for (int i = 0; i < n; ++i) {
      NT_EXPECT_EXACT(long double, g[i], 2 * in[n] * in[i]);
      s += in[i] * in[i];
    }
    NT_EXPECT_EXACT(long double, g[n], s);
  }
}

TEST(Types, LongDoubleKeepsItsPrecision) {
  // At x = 1 + 2^-60 (not representable in double), the long double
  // derivative must see the exact x: d/dx of the model at w = 0 is 1 - 3 = -2
  // everywhere, so use sumsq_l, whose derivative 2 w x shows the low bits.
  long double x[1] = {1.0L + std::ldexp(1.0L, -60)};
  long double dx[1] = {0}, dw = 0;
  types::sumsq_l_grad(x, 1, 1.0L, dx, &dw);
  EXPECT_EQ(dx[0], 2 * x[0]);
  EXPECT_NE(dx[0], 2.0L);
}

TEST(Types, MixedPrecisionParameter) {
  float x = 1.5f;
  double y = -0.75;
  float dx = 0;
  double dy = 0;
  double v = types::mixed_grad(x, y, &dx, &dy);
  NT_EXPECT_EXACT(double, v, types::mixed(x, y));
  NT_EXPECT_EXACT(float, dx, y);
  NT_EXPECT_EXACT(double, dy, x + 2 * y);
}

TEST(Params, NameRestriction) {
  EXPECT_TRUE((std::is_same_v<decltype(&types::restricted_grad),
                              double (*)(double, double, double, double *,
                                         double *)>));
  for (auto [x, y, w] : {std::tuple{0.5, 1.5, -2.0}, {-1.0, 0.25, 3.0}}) {
    auto g = nt::check_gradient<double>(
        [](const double *v) { return types::restricted(v[0], v[1], v[2]); },
        [](const double *v, double *d) {
          return types::restricted_grad(v[0], v[1], v[2], &d[0], &d[1]);
        },
        {x, y, w}, {0, 2});
    NT_EXPECT_EXACT(double, g[0], y * w);
    NT_EXPECT_EXACT(double, g[1], x * y + 1);
  }
  double dx = 0, dw = 0;
  double v = types::restricted_vjp(0.5, 1.5, -2.0, 2.0, &dx, &dw);
  NT_EXPECT_EXACT(double, v, types::restricted(0.5, 1.5, -2.0));
  NT_EXPECT_EXACT(double, dx, 2 * 1.5 * -2.0);
  NT_EXPECT_EXACT(double, dw, 2 * (0.5 * 1.5 + 1));
}

TEST(Params, NameRestrictionWithArrays) {
  EXPECT_TRUE((std::is_same_v<decltype(&types::loss_w_grad),
                              double (*)(const double *, double, int, double *)>));
  EXPECT_TRUE((std::is_same_v<decltype(&types::loss_x_grad),
                              double (*)(const double *, double, int, double *)>));
  const int n = 3;
  std::vector<double> in = {0.5, -1.0, 2.0, 0.75}; // x, w
  auto F = [&](const double *v) { return types::loss_w(v, v[n], n); };
  auto gw = nt::check_gradient<double>(
      F, [&](const double *v, double *d) { return types::loss_w_grad(v, v[n], n, d); },
      in, {3});
  ld ref = 0;
  for (int i = 0; i < n; ++i)
    ref += 2 * (in[n] * (ld)in[i] - 1) * in[i];
  NT_EXPECT_EXACT(double, gw[0], ref);
  auto gx = nt::check_gradient<double>(
      F, [&](const double *v, double *d) { return types::loss_x_grad(v, v[n], n, d); },
      in, {0, 1, 2});
  for (int i = 0; i < n; ++i)
    NT_EXPECT_EXACT(double, gx[i], 2 * (in[n] * (ld)in[i] - 1) * in[n]);
}

TEST(Params, IntegersPassedThrough) {
  EXPECT_TRUE((std::is_same_v<decltype(&types::ints_grad),
                              double (*)(int, double, int, double, unsigned,
                                         double *, double *)>));
  for (auto [k_, m_, n_] : {std::tuple{3, -2, 4u}, {0, 5, 1u}, {7, 1, 0u}}) {
    int k = k_, m = m_;
    unsigned n = n_;
    auto g = nt::check_gradient<double>(
        [&](const double *v) { return types::ints(k, v[0], m, v[1], n); },
        [&](const double *v, double *d) {
          return types::ints_grad(k, v[0], m, v[1], n, &d[0], &d[1]);
        },
        {1.25, -0.5});
    NT_EXPECT_EXACT(double, g[0], (ld)n * k);
    NT_EXPECT_EXACT(double, g[1], (ld)n * m * 2 * -0.5);
  }
}

TEST(Params, EnumBoolLongPassedThrough) {
  EXPECT_TRUE((std::is_same_v<decltype(&types::modes_grad),
                              double (*)(types::Mode, bool, double, long,
                                         double *)>));
  for (auto mode : {types::Linear, types::Square})
    for (bool twice : {false, true}) {
      ld g = nt::check_gradient1<double>(
          [&](double x) { return types::modes(mode, twice, x, 3L); },
          [&](double x, double *d) {
            return types::modes_grad(mode, twice, x, 3L, d);
          },
          1.5);
      ld ref = (mode == types::Linear ? 1 : 3.0L) * (twice ? 2 : 1) * 3;
      NT_EXPECT_EXACT(double, g, ref);
    }
}

TEST(Params, ScopedEnumPassedThrough) {
  EXPECT_TRUE((std::is_same_v<decltype(&types::kinds_grad),
                              double (*)(types::Kind, double, double *)>));
  for (auto kind : {types::Kind::Linear, types::Kind::Square}) {
    ld g = nt::check_gradient1<double>(
        [&](double x) { return types::kinds(kind, x); },
        [&](double x, double *d) { return types::kinds_grad(kind, x, d); },
        1.25);
    NT_EXPECT_EXACT(double, g, kind == types::Kind::Linear ? 3.0L : 2.5L);
  }
}
