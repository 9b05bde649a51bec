// The user-facing gradient checker, <fluxion/check.hpp>: generated
// derivatives of every parameter kind pass it, deliberately wrong ones
// (hand-written next to them) fail it, and a kink is reported as a kink.
// std::vector and std::array parameters are not differentiated by the
// engine yet: their derivatives here are written by hand, with the calling
// convention of the contract.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace chk {

// Scalars: by value, by const reference, and an int passed through.
[[fluxion::grad]] [[fluxion::jvp]] double scalars(double x, const double &y,
                                                  int n) {
  double p = 1;
  for (int i = 0; i < n; ++i)
    p *= y;
  return x * p + std::sin(x * y);
}
// Forgets the cos term of dx.
double scalars_wrong_grad(double x, const double &y, int n, double *dx,
                          double *dy) {
  double r = scalars_grad(x, y, n, dx, dy);
  *dx -= y * std::cos(x * y);
  return r;
}

// A pointer with a length.
[[fluxion::grad]] [[fluxion::jvp]] double poly(const double *x, double w,
                                               int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += w * x[i] * x[i] + std::exp(0.3 * x[i]);
  return s;
}
// One entry off by 0.1%.
double poly_wrong_grad(const double *x, double w, int n, double *dx,
                       double *dw) {
  double r = poly_grad(x, w, n, dx, dw);
  dx[1] *= 1.001;
  return r;
}
// The tangent of the result off by its w part.
double poly_wrong_jvp(const double *x, double w, int n, const double *tx,
                      double tw) {
  return poly_jvp(x, w, n, tx, tw) + 0.5 * tw;
}

// A fixed-size array parameter.
[[fluxion::grad]] double fixed(const double x[4], double k) {
  return std::tanh(k * x[0]) + x[1] * x[2] / (1 + x[3] * x[3]);
}

// Only x is differentiated: w gets no adjoint.
[[fluxion::grad("x")]] double partial(const double *x, double w, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::cos(w * x[i]);
  return s;
}

// fabs has a kink at 0.
[[fluxion::grad]] double absval(double x) { return std::fabs(x) + 2 * x; }

// Single precision.
[[fluxion::grad]] float single(const float *x, float w) {
  return w * std::exp(x[0]) * x[1] + std::sqrt(x[2]);
}

// Structs: nested, with an array member and an int member.
struct Vec3 {
  double x, y, z;
};
struct Particle {
  Vec3 pos;
  double m;
  int id; // never perturbed, never differentiated
};
struct Layer {
  double w[2][3];
  double b[2];
  int unused;
};

[[fluxion::grad]] [[fluxion::jvp]] double energy(const Particle *ps, int n) {
  double e = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      double dx = ps[i].pos.x - ps[j].pos.x, dy = ps[i].pos.y - ps[j].pos.y,
             dz = ps[i].pos.z - ps[j].pos.z;
      e -= ps[i].m * ps[j].m / std::sqrt(dx * dx + dy * dy + dz * dz);
    }
  return e;
}
// Forgets the z part of every position's adjoint.
double energy_wrong_grad(const Particle *ps, int n, Particle *d_ps) {
  double e = energy_grad(ps, n, d_ps);
  for (int i = 0; i < n; ++i)
    d_ps[i].pos.z = 0;
  return e;
}

[[fluxion::grad]] [[fluxion::jvp]] double layer(const Layer &l,
                                                const double *x) {
  double out = 0;
  for (int i = 0; i < 2; ++i) {
    double s = l.b[i];
    for (int j = 0; j < 3; ++j)
      s += l.w[i][j] * x[j];
    out += std::tanh(s);
  }
  return out;
}

// An in/out struct reference.
[[fluxion::grad]] [[fluxion::jvp]] void scale(Vec3 &v, const double &k) {
  v.x *= k;
  v.y = v.y * v.x + k;
  v.z = std::exp(v.z) * k;
}

// Output arrays: y is written from x.
[[fluxion::grad]] [[fluxion::jvp]] void square_into(double *y, const double *x,
                                                    int n) {
  for (int i = 0; i < n; ++i)
    y[i] = x[i] * x[i] + std::sin(x[i]);
}
// Ignores the seed in d_y: x gets the adjoint of seed 1 instead.
void square_into_wrong_vjp(double *y, const double *x, int n, double *d_y,
                           double *d_x) {
  for (int i = 0; i < n; ++i) {
    y[i] = x[i] * x[i] + std::sin(x[i]);
    d_x[i] += 2 * x[i] + std::cos(x[i]);
    d_y[i] = 0;
  }
}
// The output tangent misses the sin term.
void square_into_wrong_jvp(double *y, const double *x, int n, double *t_y,
                           const double *t_x) {
  for (int i = 0; i < n; ++i) {
    y[i] = x[i] * x[i] + std::sin(x[i]);
    t_y[i] = 2 * x[i] * t_x[i];
  }
}

// A result and an in-place updated array.
[[fluxion::grad]] double update(double *y, const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    y[i] = y[i] * x[i] + 1;
    s += y[i] * y[i];
  }
  return s;
}

// Second order.
[[fluxion::hessian]] double quartic(const double *x, double a) {
  return a * x[0] * x[0] * x[1] + std::exp(x[1]) * x[2] + x[2] * x[2] * x[2];
}
void quartic_wrong_hvp(const double *x, double a, const double *v_x, double v_a,
                       double *hv_x, double *hv_a) {
  quartic_hvp(x, a, v_x, v_a, hv_x, hv_a);
  hv_x[2] += 0.01 * v_x[2];
}

// Containers, with hand-written derivatives.
double spread(const std::vector<double> &v, double s) {
  double r = 0;
  for (double e : v)
    r += std::log(1 + s * e * e);
  return r;
}
double spread_grad(const std::vector<double> &v, double s,
                   std::vector<double> *d_v, double *d_s) {
  double r = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    double q = 1 + s * v[i] * v[i];
    r += std::log(q);
    (*d_v)[i] += 2 * s * v[i] / q;
    *d_s += v[i] * v[i] / q;
  }
  return r;
}
double spread_wrong_grad(const std::vector<double> &v, double s,
                         std::vector<double> *d_v, double *d_s) {
  double r = spread_grad(v, s, d_v, d_s);
  d_v->back() *= -1;
  return r;
}
double cross(const std::array<double, 3> &a, std::array<double, 3> b) {
  return a[0] * b[1] - a[1] * b[0] + a[2] * b[2];
}
double cross_grad(const std::array<double, 3> &a, std::array<double, 3> b,
                  std::array<double, 3> *d_a, std::array<double, 3> *d_b) {
  (*d_a)[0] += b[1];
  (*d_a)[1] -= b[0];
  (*d_a)[2] += b[2];
  (*d_b)[1] += a[0];
  (*d_b)[0] -= a[1];
  (*d_b)[2] += a[2];
  return cross(a, b);
}

// Jacobians: 3 rows (the result, out[0], out[1]) x 3 columns (x, y[0],
// y[1]).
[[fluxion::jacobian]] double mapping(double x, const double y[2],
                                     double out[2]) {
  out[0] = x * y[0] + std::sin(y[1]);
  out[1] = std::exp(x) * y[1] * y[1];
  return x * x * y[0];
}
// d out[1] / d x 1% off.
void mapping_wrong_jacobian(double x, const double y[2], double out[2],
                            double *J) {
  mapping_jacobian(x, y, out, J);
  J[2 * 3 + 0] *= 1.01;
}
// Column-major instead of row-major.
void mapping_transposed_jacobian(double x, const double y[2], double out[2],
                                 double *J) {
  double T[9];
  mapping_jacobian(x, y, out, T);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      J[j * 3 + i] = T[i * 3 + j];
}
// Writes a row too many (as if out had 3 elements).
void mapping_long_jacobian(double x, const double y[2], double out[2],
                           double *J) {
  mapping_jacobian(x, y, out, J);
  for (int j = 0; j < 3; ++j)
    J[9 + j] = 0;
}

// An array updated in place (a row; its entry values are held fixed), and
// a non-const array the function only reads (a column), in float.
[[fluxion::jacobian]] void relax(float acc[2], float w[3], float k) {
  acc[0] = acc[0] * w[0] + k * w[1] * w[2];
  acc[1] = std::sin(w[2]) * acc[0] + k * k;
}

// A kink in one entry: d|x| / dx at x = 0.
[[fluxion::jacobian]] double bend(double x, double y, double out[1]) {
  out[0] = x * y;
  return std::fabs(x) + y;
}

} // namespace chk

using fluxion::check_options;
using fluxion::span;

TEST(Check, FieldCounting) {
  // Arrays and nested structs count as one field each.
  using fluxion::detail::field_count;
  EXPECT_EQ(field_count<chk::Vec3>(), 3u);
  EXPECT_EQ(field_count<chk::Particle>(), 3u);
  EXPECT_EQ(field_count<chk::Layer>(), 3u);
  struct Sixteen {
    double a[2];
    chk::Vec3 b;
    int c, d, e, f;
    float g, h, i, j, k, l, m, n, o, p;
  };
  EXPECT_EQ(field_count<Sixteen>(), 16u);
  EXPECT_TRUE(fluxion::detail::has_reals<chk::Layer>());
  struct Ints {
    int a;
    bool b;
  };
  EXPECT_FALSE(fluxion::detail::has_reals<Ints>());
}

TEST(Check, Scalars) {
  auto R =
      fluxion::check_gradient(chk::scalars, chk::scalars_grad, 1.3, 0.7, 3);
  EXPECT_TRUE(R.ok()) << R;
  // x, y and the returned value; n is passed through.
  EXPECT_EQ(R.entries().size(), 3u);
  EXPECT_EQ(R.kinks(), 0u);
  // An integer literal passed to a double parameter is a real.
  EXPECT_TRUE(
      fluxion::check_gradient(chk::scalars, chk::scalars_grad, 2, 0.5, 2).ok());
  auto J = fluxion::check_jvp(chk::scalars, chk::scalars_jvp, 1.3, 0.7, 3);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Check, WrongScalarGradientFails) {
  check_options Opts;
  Opts.names = {"x", "y", "n"};
  auto R = fluxion::check_gradient(Opts, chk::scalars, chk::scalars_wrong_grad,
                                   1.3, 0.7, 3);
  EXPECT_FALSE(R.ok()) << R;
  EXPECT_EQ(R.failures(), 1u);
  std::string S = R.str();
  EXPECT_NE(S.find("FAILED"), std::string::npos) << S;
  // The worst entry comes first in the table, under its name.
  EXPECT_NE(S.find("\n  x "), std::string::npos) << S;
  for (const auto &E : R.entries()) {
    if (E.param == "x") {
      EXPECT_EQ(E.state, fluxion::check_entry::status::fail);
    }
  }
}

TEST(Check, PointerWithLength) {
  double X[4] = {0.5, -1.25, 2, 0.1};
  auto R =
      fluxion::check_gradient(chk::poly, chk::poly_grad, span(X, 4), 1.5, 4);
  EXPECT_TRUE(R.ok()) << R;
  EXPECT_EQ(R.entries().size(), 6u); // 4 + w + the value
  // The user's memory is not touched.
  EXPECT_EQ(X[0], 0.5);
  EXPECT_EQ(X[3], 0.1);

  auto W = fluxion::check_gradient(chk::poly, chk::poly_wrong_grad, span(X, 4),
                                   1.5, 4);
  EXPECT_FALSE(W.ok()) << W;
  EXPECT_EQ(W.failures(), 1u);
  EXPECT_NE(W.str().find("[1]"), std::string::npos) << W;

  // A read-only array works too: the function reads a copy.
  static const double C[3] = {1, 2, 3};
  EXPECT_TRUE(
      fluxion::check_gradient(chk::poly, chk::poly_grad, span(C, 3), 1.5, 3)
          .ok());
}

TEST(Check, FixedArray) {
  double X[4] = {0.3, -1, 2, 0.5};
  auto R = fluxion::check_gradient(chk::fixed, chk::fixed_grad, X, 1.7);
  EXPECT_TRUE(R.ok()) << R;
  EXPECT_EQ(R.entries().size(), 6u);
}

TEST(Check, ConstantArgument) {
  double X[3] = {0.3, -1, 2};
  auto R = fluxion::check_gradient(chk::partial, chk::partial_grad, span(X, 3),
                                   fluxion::constant(1.3), 3);
  EXPECT_TRUE(R.ok()) << R;
  EXPECT_EQ(R.entries().size(), 4u); // x and the value, not w
}

TEST(Check, Containers) {
  std::vector<double> V = {0.5, -2, 1.5};
  auto R = fluxion::check_gradient(chk::spread, chk::spread_grad, V, 0.8);
  EXPECT_TRUE(R.ok()) << R;
  EXPECT_EQ(R.entries().size(), 5u);
  auto W = fluxion::check_gradient(chk::spread, chk::spread_wrong_grad, V, 0.8);
  EXPECT_FALSE(W.ok()) << W;
  EXPECT_EQ(W.failures(), 1u);

  std::array<double, 3> A = {1, 2, 3}, B = {-1, 0.5, 4};
  auto C = fluxion::check_gradient(chk::cross, chk::cross_grad, A, B);
  EXPECT_TRUE(C.ok()) << C;
  EXPECT_EQ(C.entries().size(), 7u);
}

TEST(Check, Structs) {
  chk::Particle Ps[3] = {
      {{0, 0, 0}, 1, 7}, {{1, 0.5, -0.3}, 2, 8}, {{-0.4, 1.2, 0.9}, 0.5, 9}};
  auto R =
      fluxion::check_gradient(chk::energy, chk::energy_grad, span(Ps, 3), 3);
  EXPECT_TRUE(R.ok()) << R;
  EXPECT_EQ(R.entries().size(), 3 * 4 + 1u); // ids are not perturbed
  auto W = fluxion::check_gradient(chk::energy, chk::energy_wrong_grad,
                                   span(Ps, 3), 3);
  EXPECT_FALSE(W.ok()) << W;
  EXPECT_EQ(W.failures(), 3u);
  // Positions inside the struct: particle 2, field 0 (pos), field 2 (z).
  EXPECT_NE(W.str().find("[2].0.2"), std::string::npos) << W;

  chk::Layer L = {{{0.1, -0.2, 0.3}, {0.5, 0.4, -0.6}}, {0.05, -0.1}, 3};
  double X[3] = {1, -0.5, 2};
  auto LR = fluxion::check_gradient(chk::layer, chk::layer_grad, L, X);
  EXPECT_TRUE(LR.ok()) << LR;
  EXPECT_EQ(LR.entries().size(), 8 + 3 + 1u);
  auto LJ = fluxion::check_jvp(chk::layer, chk::layer_jvp, L, X);
  EXPECT_TRUE(LJ.ok()) << LJ;
}

TEST(Check, VjpWithOutputs) {
  double X[3] = {0.5, -1, 2}, Y[3] = {0, 0, 0};
  auto R = fluxion::check_vjp(chk::square_into, chk::square_into_vjp,
                              span(Y, 3), span(X, 3), 3);
  EXPECT_TRUE(R.ok()) << R;
  auto W = fluxion::check_vjp(chk::square_into, chk::square_into_wrong_vjp,
                              span(Y, 3), span(X, 3), 3);
  EXPECT_FALSE(W.ok()) << W;

  // A result and an in-place update: the seed of the result and of y.
  double Y2[3] = {1, 0.5, -2};
  auto U = fluxion::check_vjp(chk::update, chk::update_vjp, span(Y2, 3),
                              span(X, 3), 3);
  EXPECT_TRUE(U.ok()) << U;
  // check_gradient is the vjp with seed 1 and zero output seeds.
  auto G = fluxion::check_gradient(chk::update, chk::update_grad, span(Y2, 3),
                                   span(X, 3), 3);
  EXPECT_TRUE(G.ok()) << G;

  // An in/out struct reference.
  chk::Vec3 V = {0.5, -1, 0.25};
  auto S = fluxion::check_vjp(chk::scale, chk::scale_vjp, V, 1.7);
  EXPECT_TRUE(S.ok()) << S;
  EXPECT_EQ(S.entries().size(), 4u);
}

TEST(Check, Jvp) {
  double X[4] = {0.5, -1.25, 2, 0.1};
  auto R = fluxion::check_jvp(chk::poly, chk::poly_jvp, span(X, 4), 1.5, 4);
  EXPECT_TRUE(R.ok()) << R;
  auto W =
      fluxion::check_jvp(chk::poly, chk::poly_wrong_jvp, span(X, 4), 1.5, 4);
  EXPECT_FALSE(W.ok()) << W;

  // Every output's tangent is compared.
  double Y[3] = {0, 0, 0};
  auto O = fluxion::check_jvp(chk::square_into, chk::square_into_jvp,
                              span(Y, 3), span(X, 3), 3);
  EXPECT_TRUE(O.ok()) << O;
  EXPECT_EQ(O.entries().size(), 3u);
  auto OW = fluxion::check_jvp(chk::square_into, chk::square_into_wrong_jvp,
                               span(Y, 3), span(X, 3), 3);
  EXPECT_FALSE(OW.ok()) << OW;
  EXPECT_EQ(OW.failures(), 3u);

  chk::Vec3 V = {0.5, -1, 0.25};
  auto S = fluxion::check_jvp(chk::scale, chk::scale_jvp, V, 1.7);
  EXPECT_TRUE(S.ok()) << S;
}

TEST(Check, KinkAtZero) {
  auto K = fluxion::check_gradient(chk::absval, chk::absval_grad, 0.0);
  EXPECT_TRUE(K.ok()) << K;
  EXPECT_EQ(K.kinks(), 1u) << K;
  EXPECT_NE(K.str().find("kink"), std::string::npos) << K;
  // Within a step of the kink, the two steps disagree.
  EXPECT_EQ(
      fluxion::check_gradient(chk::absval, chk::absval_grad, 1e-7).kinks(), 1u);
  auto Smooth = fluxion::check_gradient(chk::absval, chk::absval_grad, 0.5);
  EXPECT_TRUE(Smooth.ok()) << Smooth;
  EXPECT_EQ(Smooth.kinks(), 0u) << Smooth;
}

TEST(Check, SinglePrecision) {
  float X[3] = {0.5f, -1.5f, 2};
  auto R = fluxion::check_gradient(chk::single, chk::single_grad, X, 1.25f);
  EXPECT_TRUE(R.ok()) << R;
  EXPECT_EQ(R.kinks(), 0u) << R;
}

TEST(Check, Hvp) {
  double X[3] = {0.5, -1, 1.5};
  auto R = fluxion::check_hvp(chk::quartic, chk::quartic_hvp, X, 1.3);
  EXPECT_TRUE(R.ok()) << R;
  EXPECT_EQ(R.entries().size(), 4u);
  auto W = fluxion::check_hvp(chk::quartic, chk::quartic_wrong_hvp, X, 1.3);
  EXPECT_FALSE(W.ok()) << W;
}

TEST(Check, LambdasAndOptions) {
  // Any callables; the parameter types come from a non-generic lambda.
  auto F = [](const double &x, double *y) {
    *y = x * x;
    return std::sin(x);
  };
  auto FVjp = [](const double &x, double *y, double seed, double *d_x,
                 double *d_y) {
    *y = x * x;
    *d_x += seed * std::cos(x) + 2 * x * *d_y;
    *d_y = 0;
    return std::sin(x);
  };
  double Y = 0;
  auto R = fluxion::check_vjp(F, FVjp, 0.7, span(&Y, 1));
  EXPECT_TRUE(R.ok()) << R;

  // A tolerance and a step of the user's.
  check_options Opts;
  Opts.step = 1e-4;
  Opts.rtol = 1e-5;
  double X[2] = {0.5, 1};
  EXPECT_TRUE(fluxion::check_gradient(Opts, chk::poly, chk::poly_grad,
                                      span(X, 2), 1.5, 2)
                  .ok());
  Opts.rtol = 1e-4;
  EXPECT_FALSE(fluxion::check_gradient(Opts, chk::poly, chk::poly_wrong_grad,
                                       span(X, 2), 1.5, 2)
                   .ok());
}

TEST(Check, Jacobian) {
  double Y[2] = {0.7, -1.2}, Out[2] = {0, 0};
  auto R = fluxion::check_jacobian(chk::mapping, chk::mapping_jacobian, 0.4, Y,
                                   Out);
  EXPECT_TRUE(R.ok()) << R;
  ASSERT_EQ(R.entries().size(), 9u) << R;
  // Row-major: the result's row first, then out's elements; the columns
  // are x, then y's elements.
  EXPECT_EQ(R.entries()[0].output, "result");
  EXPECT_EQ(R.entries()[0].param, "arg 0");
  EXPECT_EQ(R.entries()[5].output, "arg 2[0]");
  EXPECT_EQ(R.entries()[5].param, "arg 1");
  EXPECT_EQ(R.entries()[5].element, "[1]");
  // The user's arrays are not touched.
  EXPECT_EQ(Out[0], 0.0);
  EXPECT_EQ(Y[1], -1.2);

  check_options Opts;
  Opts.names = {"x", "y", "out"};
  auto W = fluxion::check_jacobian(Opts, chk::mapping,
                                   chk::mapping_wrong_jacobian, 0.4, Y, Out);
  EXPECT_FALSE(W.ok()) << W;
  EXPECT_EQ(W.failures(), 1u) << W;
  std::string S = W.str();
  EXPECT_NE(S.find("check_jacobian: FAILED"), std::string::npos) << S;
  // The worst entry first, with its row.
  EXPECT_NE(S.find("\n  out[1]  x "), std::string::npos) << S;

  auto T = fluxion::check_jacobian(chk::mapping,
                                   chk::mapping_transposed_jacobian, 0.4, Y,
                                   Out);
  EXPECT_FALSE(T.ok()) << T;

  // Entries past rows x columns are reported, not ignored.
  auto L = fluxion::check_jacobian(chk::mapping, chk::mapping_long_jacobian,
                                   0.4, Y, Out);
  EXPECT_FALSE(L.ok()) << L;
  EXPECT_EQ(L.failures(), 1u) << L;
  EXPECT_NE(L.str().find("past the 3 x 3 matrix"), std::string::npos) << L;
}

TEST(Check, JacobianInPlaceAndReadOnlyArrays) {
  // acc is written: 2 rows; w is only read: 3 columns, with k.
  float Acc[2] = {1.5f, -0.5f}, W[3] = {0.3f, -0.8f, 1.1f};
  auto R = fluxion::check_jacobian(chk::relax, chk::relax_jacobian, Acc, W,
                                   0.9f);
  EXPECT_TRUE(R.ok()) << R;
  EXPECT_EQ(R.entries().size(), 2 * 4u) << R;
  EXPECT_EQ(R.kinks(), 0u) << R;
  // The rows start from the entry values, even when they are what f
  // would write.
  float Same[2] = {0, 0};
  chk::relax(Same, W, 0.9f);
  auto S = fluxion::check_jacobian(chk::relax, chk::relax_jacobian, Same, W,
                                   0.9f);
  EXPECT_TRUE(S.ok()) << S;
  EXPECT_EQ(S.entries().size(), 2 * 4u) << S;
}

TEST(Check, JacobianKink) {
  double Out[1] = {0};
  auto K = fluxion::check_jacobian(chk::bend, chk::bend_jacobian, 0.0, 1.5,
                                   Out);
  EXPECT_TRUE(K.ok()) << K;
  EXPECT_EQ(K.kinks(), 1u) << K;
  EXPECT_NE(K.str().find("kinks"), std::string::npos) << K;
  auto Smooth =
      fluxion::check_jacobian(chk::bend, chk::bend_jacobian, 0.5, 1.5, Out);
  EXPECT_TRUE(Smooth.ok()) << Smooth;
  EXPECT_EQ(Smooth.kinks(), 0u) << Smooth;
}
