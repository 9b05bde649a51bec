// Annotated functions returning an object of a class of reals (contract v2,
// "C++ types"): f_vjp(p..., const R &seed, d_p...) returns f's value and
// adds seed^T J into the adjoints, f_jvp(p..., t_p...) returns J t as an R.
// Checked against central differences of <seed, f(p + h t)> and by the
// dot-product test <seed, J t> = <J^T seed, t>, for double and float
// members, a nested class, a constructor and a callee returning an object.
#include <fluxion/fluxion.hpp>

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

} // namespace
