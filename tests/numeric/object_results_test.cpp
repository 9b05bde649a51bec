// Annotated functions returning an object of a class of reals (contract v2,
// "C++ types"): f_vjp(p..., const R &seed, d_p...) returns f's value and
// adds seed^T J into the adjoints, f_jvp(p..., t_p...) returns J t as an R.
// Checked against central differences of <seed, f(p + h t)> and by the
// dot-product test <seed, J t> = <J^T seed, t>, for double and float
// members, a nested class, a constructor and a callee returning an object;
// then the same for std::array results (a braced list, a local, a
// template), with std::array assignments and callees returning std::array
// inside loops.
#include <fluxion/fluxion.hpp>

#include <array>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace objres {

struct Vec3 {
  double x, y, z;
};
Vec3 cross(const Vec3 &a, const Vec3 &b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

[[fluxion::grad]] [[fluxion::jvp]] Vec3 torque(const Vec3 &r, const Vec3 &f,
                                               double s) {
  Vec3 t = cross(r, f);
  t.x *= s;
  t.y = t.y * std::sin(s);
  return t;
}

// A result built by a constructor, with a nested member and an int that
// carries no derivative.
struct Frame {
  Vec3 origin;
  float scale;
  int id;
  Frame(const Vec3 &o, float k) : origin(o), scale(k), id(7) {}
};
[[fluxion::grad]] [[fluxion::jvp]] Frame moved(const double *p, int n,
                                               float k) {
  Vec3 o{0, 0, 0};
  for (int i = 0; i < n; ++i) {
    o.x += p[i];
    o.y += p[i] * p[i];
    o.z += std::exp(-p[i]) * k;
  }
  return Frame(o, k * k);
}

double dotv(const Vec3 &a, const Vec3 &b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
Vec3 axpy(double e, const Vec3 &t, const Vec3 &x) {
  return {x.x + e * t.x, x.y + e * t.y, x.z + e * t.z};
}

// std::array results and assignments.
using A2 = std::array<double, 2>;
A2 step(const A2 &s, double k) {
  return {s[0] + k * std::sin(s[1]), s[1] * std::cos(s[0]) + k};
}
[[fluxion::grad]] [[fluxion::jvp]] A2 orbit(double a, double b, double k) {
  A2 s{a, b};
  for (int i = 0; i < 4; ++i) {
    s = step(s, k);                      // a callee's result, copied
    double t = step(s, 0.5 * k)[1];      // an element of one
    s[0] += 0.1 * t * s[1];
  }
  A2 r;
  r = {s[0] * s[1], s[1]}; // a braced list assigned
  return r;
}
// Callees returning std::array called with constants only (their result
// carries no derivative: the call runs as written), and a callee's result
// passed to another inside a loop (recorded whole before it is
// overwritten); a braced list assigned to the array it reads.
[[fluxion::grad]] double nested(double x, int n) {
  double c = n * 0.25, s = 0;
  for (int i = 0; i < n; ++i)
    s += x * step(A2{c, 1.0}, 0.5)[1] +
         std::sin(step(step(A2{x, s}, x)[1] > 0 ? A2{x, c} : A2{c, x}, c)[0]) *
             step(A2{step(A2{x, 0.5}, s)[0], x}, 0.25)[1];
  A2 t{x, x * x};
  t = {t[1], 3 * t[0]}; // a braced list is a temporary: an exchange
  return s + t[0] * t[1] + t[0];
}
template <typename T>
[[fluxion::grad]] [[fluxion::jvp]] std::array<T, 3> polar(T r, T th) {
  return {r * std::cos(th), r * std::sin(th)}; // the third element is zero
}

} // namespace objres

namespace {
using namespace objres;

TEST(ObjectResults, TorqueAgainstDifferencesAndForwardMode) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < 8; ++k) {
    Vec3 r{u(rng), u(rng), u(rng)}, f{u(rng), u(rng), u(rng)};
    double s = u(rng);
    Vec3 seed{u(rng), u(rng), u(rng)}, tr{u(rng), u(rng), u(rng)},
        tf{u(rng), u(rng), u(rng)};
    double ts = u(rng);
    Vec3 dr{}, df{};
    double ds = 0;
    Vec3 v = torque_vjp(r, f, s, seed, &dr, &df, &ds);
    Vec3 p = torque(r, f, s);
    EXPECT_EQ(v.x, p.x);
    EXPECT_EQ(v.y, p.y);
    EXPECT_EQ(v.z, p.z);
    Vec3 jt = torque_jvp(r, f, s, &tr, &tf, ts);
    double h = 1e-6;
    auto F = [&](double e) {
      return dotv(seed, torque(axpy(e, tr, r), axpy(e, tf, f), s + e * ts));
    };
    double fd = (F(h) - F(-h)) / (2 * h);
    double reverse = dotv(dr, tr) + dotv(df, tf) + ds * ts;
    EXPECT_NEAR(dotv(seed, jt), fd, 1e-8);
    EXPECT_NEAR(reverse, fd, 1e-8);
  }
}

TEST(ObjectResults, ConstructedResultWithNestedMembers) {
  double p[3] = {0.25, -0.5, 0.75}, t[3] = {1, -0.5, 0.25};
  float k = 1.5f, tk = -0.75f;
  Frame seed(Vec3{0.5, -1, 2}, 3.0f);
  double dp[3] = {};
  float dk = 0;
  Frame v = moved_vjp(p, 3, k, seed, dp, &dk);
  EXPECT_EQ(v.id, 7);
  Frame jt = moved_jvp(p, 3, k, t, tk);
  auto pair = [&](const Frame &a, const Frame &b) {
    return dotv(a.origin, b.origin) + double(a.scale) * double(b.scale);
  };
  double h = 1e-4;
  auto F = [&](double e) {
    double q[3];
    for (int i = 0; i < 3; ++i)
      q[i] = p[i] + e * t[i];
    return pair(seed, moved(q, 3, float(k + e * tk)));
  };
  double fd = (F(h) - F(-h)) / (2 * h);
  double reverse = dp[0] * t[0] + dp[1] * t[1] + dp[2] * t[2] + dk * tk;
  EXPECT_NEAR(pair(seed, jt), fd, 1e-3 * (1 + std::fabs(fd)));
  EXPECT_NEAR(reverse, pair(seed, jt), 1e-5 * (1 + std::fabs(fd)));
}

TEST(ObjectResults, StdArrayResultThroughLoopsAndCallees) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n = 0; n < 6; ++n) {
    double a = u(rng), b = u(rng), k = 0.5 * u(rng);
    A2 seed{u(rng), u(rng)};
    double ta = u(rng), tb = u(rng), tk = u(rng);
    double da = 0, db = 0, dk = 0;
    A2 v = orbit_vjp(a, b, k, seed, &da, &db, &dk);
    A2 p = orbit(a, b, k);
    EXPECT_EQ(v[0], p[0]);
    EXPECT_EQ(v[1], p[1]);
    A2 jt = orbit_jvp(a, b, k, ta, tb, tk);
    double h = 1e-6;
    auto F = [&](double e) {
      A2 q = orbit(a + e * ta, b + e * tb, k + e * tk);
      return seed[0] * q[0] + seed[1] * q[1];
    };
    double fd = (F(h) - F(-h)) / (2 * h);
    EXPECT_NEAR(seed[0] * jt[0] + seed[1] * jt[1], fd, 1e-7);
    EXPECT_NEAR(da * ta + db * tb + dk * tk, fd, 1e-7);
  }
}

TEST(ObjectResults, StdArrayResultOfATemplate) {
  double dr = 0, dth = 0;
  std::array<double, 3> v =
      polar_vjp(2.0, 0.5, std::array<double, 3>{1, -2, 5}, &dr, &dth);
  EXPECT_DOUBLE_EQ(v[0], 2 * std::cos(0.5));
  EXPECT_EQ(v[2], 0.0);
  EXPECT_NEAR(dr, std::cos(0.5) - 2 * std::sin(0.5), 1e-15);
  EXPECT_NEAR(dth, -2 * std::sin(0.5) - 4 * std::cos(0.5), 1e-15);
  float fr = 0, fth = 0;
  polar_vjp<float>(2.0f, 0.5f, std::array<float, 3>{0, 1, 0}, &fr, &fth);
  EXPECT_NEAR(fr, std::sin(0.5f), 1e-6f);
  EXPECT_NEAR(fth, 2 * std::cos(0.5f), 1e-6f);
  std::array<float, 3> t = polar_jvp(2.0f, 0.5f, 0.0f, 1.0f);
  EXPECT_NEAR(t[0], -2 * std::sin(0.5f), 1e-6f);
  EXPECT_NEAR(t[1], fth, 1e-6f);
  EXPECT_EQ(t[2], 0.0f);
}

TEST(ObjectResults, StdArrayCalleesWithConstantsAndNestedInLoops) {
  for (double x : {-0.7, 0.2, 0.9}) {
    double d = 0;
    nested_grad(x, 3, &d);
    double h = 1e-6;
    EXPECT_NEAR(d, (nested(x + h, 3) - nested(x - h, 3)) / (2 * h), 1e-7);
  }
}

} // namespace
