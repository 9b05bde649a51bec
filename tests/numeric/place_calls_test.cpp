// Functions returning a reference into their arguments or object (`double
// &at(double *a, int i) { return a[i]; }`, a class's operator[] and an
// accessor `double &x()`), used on either side of `=`, in compound
// assignments and in expressions: each call is the place it returns.
// Checked against central differences, by the jvp dot test and f_hvp.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace places {

double &at(double *a, int i) { return a[i]; }
const double &cat(const double *a, int i) { return a[i]; }

struct Vec3 {
  double v[3];
  double &operator[](int i) { return v[i]; }
  const double &operator[](int i) const { return v[i]; }
  double &x() { return v[0]; }
  const double &y() const { return v[1]; }
};

struct Grid {
  double u[2][3];
  double &operator()(int i, int j) { return u[i][j]; }
  const double &operator()(int i, int j) const { return u[i][j]; }
};

// y is in/out: written through at(), read through it and through cat().
[[fluxion::grad]] [[fluxion::jvp]] void scale(const double *x, double *y,
                                              int n) {
  for (int i = 0; i < n; ++i)
    at(y, i) = std::sin(cat(x, i)) * at(y, i);
  at(y, 0) += cat(x, n - 1);
}

[[fluxion::hessian]] [[fluxion::jvp]] double norms(const Vec3 &a, double s,
                                                   const Grid &g) {
  Vec3 b = a;
  b[1] *= s;
  b.x() = b[1] * a[2] + a.y();
  Grid h = g;
  for (int j = 0; j < 3; ++j)
    h(1, j) = h(0, j) * b[j];
  double r = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      r += h(i, j) * g(i, j);
  return r + std::exp(0.1 * (b[0] + b[1]));
}

} // namespace places

namespace {

TEST(PlaceCalls, FreeFunctionsOnBothSides) {
  double x[3] = {0.4, -1.2, 0.9}, y[3] = {1.5, 0.25, -0.75};
  auto r = fluxion::check_vjp(places::scale, places::scale_vjp,
                              fluxion::span(x, 3), fluxion::span(y, 3), 3);
  EXPECT_TRUE(r.ok()) << r;
  EXPECT_TRUE(fluxion::check_jvp(places::scale, places::scale_jvp,
                                 fluxion::span(x, 3), fluxion::span(y, 3), 3)
                  .ok());
  // By hand: y0' = sin(x0) y0 + x2, so d y0'/d x2 = 1 and / d y0 = sin(x0).
  double d_x[3] = {}, d_y[3] = {1, 0, 0}, yy[3] = {1.5, 0.25, -0.75};
  places::scale_vjp(x, yy, 3, d_x, d_y);
  EXPECT_DOUBLE_EQ(d_y[0], std::sin(x[0]));
  EXPECT_DOUBLE_EQ(d_x[2], 1.0);
  EXPECT_DOUBLE_EQ(d_x[0], std::cos(x[0]) * 1.5);
}

TEST(PlaceCalls, OperatorsAndAccessorsOfAClass) {
  places::Vec3 a{{0.3, -0.8, 1.1}};
  places::Grid g{{{0.5, -0.25, 0.75}, {1.25, -1.5, 0.2}}};
  places::Vec3 da{};
  places::Grid dg{};
  double ds = 0, s = 0.6;
  double value = places::norms_grad(a, s, g, &da, &ds, &dg);
  EXPECT_DOUBLE_EQ(value, places::norms(a, s, g));
  auto central = [&](double *p) {
    double h = 1e-6, o = *p;
    *p = o + h;
    double up = places::norms(a, s, g);
    *p = o - h;
    double dn = places::norms(a, s, g);
    *p = o;
    return (up - dn) / (2 * h);
  };
  double dot = 0, t = 0.3;
  places::Vec3 ta{};
  places::Grid tg{};
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(da.v[i], central(&a.v[i]), 1e-7) << i;
    ta.v[i] = t;
    dot += t * da.v[i];
    t = -0.7 * t + 0.2;
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(dg.u[i][j], central(&g.u[i][j]), 1e-7) << i << j;
      tg.u[i][j] = t;
      dot += t * dg.u[i][j];
      t = -0.7 * t + 0.2;
    }
  EXPECT_NEAR(ds, central(&s), 1e-7);
  dot += t * ds;
  EXPECT_NEAR(places::norms_jvp(a, s, g, &ta, t, &tg), dot, 1e-12);
  // H v against the difference of gradients along v.
  places::Vec3 hva{};
  places::Grid hvg{};
  double hvs = 0;
  places::norms_hvp(a, s, g, &ta, t, &tg, &hva, &hvs, &hvg);
  auto grad_s = [&](double h) {
    places::Vec3 a2 = a;
    places::Grid g2 = g;
    for (int i = 0; i < 3; ++i)
      a2.v[i] += h * ta.v[i];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        g2.u[i][j] += h * tg.u[i][j];
    places::Vec3 d2{};
    places::Grid dg2{};
    double d2s = 0;
    places::norms_grad(a2, s + h * t, g2, &d2, &d2s, &dg2);
    return d2s;
  };
  EXPECT_NEAR(hvs, (grad_s(1e-5) - grad_s(-1e-5)) / 2e-5, 1e-6);
}

} // namespace
