// Range-based for loops over arrays of known size inside differentiated
// code: loop variables by value, by const reference (read) and by reference
// (written), local arrays, struct member arrays (of a parameter, of a
// callee's parameter), rows of 2-D arrays, arrays of structs, nested loops,
// break and continue. Each is lowered to the counted index loop; gradients
// and tangents are checked against finite differences.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace rf {

struct Poly {
  double c[4];
};

struct Particle {
  double x, v, m;
};

// A copy of each element; the copy is changed in the body, the array not.
[[fluxion::grad]] [[fluxion::jvp]] double by_value(double x, double y) {
  double a[4] = {x, y, x * y, 2.0};
  double s = 0;
  for (double v : a) {
    v = v * x + 1;
    s += std::sin(v) * y;
  }
  for (auto v : a)
    s += v * v;
  return s + a[0];
}

// A const reference to each coefficient of a struct member array, and an
// integer array converted to double by value.
[[fluxion::grad]] [[fluxion::jvp]] double horner(const Poly &p, double x) {
  double s = 0, xp = 1;
  for (const double &c : p.c) {
    s += c * xp;
    xp *= x;
  }
  const int w[3] = {1, 2, 3};
  for (double k : w)
    s += k * p.c[int(k)] * x;
  return s;
}

// Written through the loop variable: every element scaled in place.
[[fluxion::grad]] [[fluxion::jvp]] double written(const double *in,
                                                  double x) {
  double a[3] = {in[0], in[1], in[2]};
  for (double &v : a)
    v *= x;
  for (auto &v : a)
    v = std::exp(v) + v * in[1];
  double s = 0;
  for (const double &v : a)
    s += v * v;
  return s;
}

// A callee writing through a reference loop variable into its parameter's
// member array.
void scale(Poly &p, double k) {
  for (double &c : p.c)
    c *= k;
}

// A callee reading a struct passed by value.
double total(Poly p) {
  double s = 0;
  for (double c : p.c)
    s += c * c;
  return s;
}

[[fluxion::grad]] double through_callees(double a, double b) {
  Poly p = {{a, b, a * b, 1.5}};
  scale(p, a + b);
  return total(p) + p.c[2];
}

// Arrays of structs: read by const reference, written by reference, copied
// by value.
[[fluxion::grad]] [[fluxion::jvp]] double particles(const double *x0,
                                                    const double *v0,
                                                    double dt) {
  Particle ps[3];
  for (int i = 0; i < 3; ++i) {
    ps[i].x = x0[i];
    ps[i].v = v0[i];
    ps[i].m = 1.0 + i;
  }
  for (int step = 0; step < 4; ++step)
    for (Particle &p : ps) {
      p.v -= dt * p.x * p.x;
      p.x += dt * p.v;
    }
  double e = 0;
  for (const Particle &p : ps)
    e += 0.5 * p.m * p.v * p.v;
  for (Particle p : ps) {
    p.x = p.x * p.m;
    e += p.x * p.x;
  }
  return e;
}

// Nested range-for over a 2-D array: rows by reference, elements by value
// and by reference; and a range over a row chosen by an index loop.
[[fluxion::grad]] [[fluxion::jvp]] double nested(const double *x, double y) {
  double m[3][2];
  int i = 0;
  for (auto &row : m)
    for (double &v : row) {
      v = x[i] * y;
      ++i;
    }
  double s = 0;
  for (const auto &row : m) {
    double r = 0;
    for (double v : row)
      r += v;
    s += r * r;
  }
  for (int k = 0; k < 3; ++k)
    for (double v : m[k])
      s += std::cos(v) * (k + 1);
  return s;
}

// break and continue inside, also in a nested range-for.
[[fluxion::grad]] [[fluxion::jvp]] double jumps(const double *x, double t) {
  double a[5] = {x[0], x[1], x[2], x[3], x[4]};
  double s = 0;
  for (double v : a) {
    if (v < 0)
      continue;
    if (v > 2)
      break;
    s += v * t;
  }
  double m[2][3] = {{x[0], x[1], x[2]}, {x[3], x[4], t}};
  for (auto &row : m) {
    for (double &v : row) {
      if (v > 1.8)
        break;
      v *= t;
      if (v < 0)
        continue;
      s += v * v;
    }
    s += row[0];
  }
  return s;
}

} // namespace rf

namespace {

TEST(RangeFor, ByValue) {
  auto R = fluxion::check_gradient(rf::by_value, rf::by_value_grad, 0.7, -1.3);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(rf::by_value, rf::by_value_jvp, 0.7, -1.3);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(RangeFor, ConstReferenceToMemberArray) {
  rf::Poly p = {{0.5, -1.0, 2.0, 0.25}};
  auto R = fluxion::check_gradient(rf::horner, rf::horner_grad, p, 0.8);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(rf::horner, rf::horner_jvp, p, 0.8);
  EXPECT_TRUE(J.ok()) << J;
  // d/dx of sum c_i x^i + x (c1 + 2 c2 + 3 c3), by hand.
  rf::Poly dp = {};
  double dx = 0, x = 0.8;
  rf::horner_grad(p, x, &dp, &dx);
  EXPECT_NEAR(dx, p.c[1] + 2 * p.c[2] * x + 3 * p.c[3] * x * x + p.c[1] +
                      2 * p.c[2] + 3 * p.c[3],
              1e-13);
  EXPECT_NEAR(dp.c[3], x * x * x + 3 * x, 1e-13);
}

TEST(RangeFor, WrittenThroughReference) {
  double in[3] = {0.3, -0.6, 1.1};
  auto R = fluxion::check_gradient(rf::written, rf::written_grad,
                                   fluxion::span(in, 3), 0.9);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(rf::written, rf::written_jvp,
                              fluxion::span(in, 3), 0.9);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(RangeFor, InCallees) {
  auto R = fluxion::check_gradient(rf::through_callees,
                                   rf::through_callees_grad, 0.6, -0.45);
  EXPECT_TRUE(R.ok()) << R;
}

TEST(RangeFor, ArraysOfStructs) {
  double x0[3] = {0.2, -0.5, 0.9}, v0[3] = {1.0, 0.3, -0.7};
  auto R = fluxion::check_gradient(rf::particles, rf::particles_grad,
                                   fluxion::span(x0, 3), fluxion::span(v0, 3),
                                   0.1);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(rf::particles, rf::particles_jvp,
                              fluxion::span(x0, 3), fluxion::span(v0, 3), 0.1);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(RangeFor, Nested) {
  double x[6] = {0.5, -0.25, 1.5, 0.75, -1.0, 0.3};
  auto R = fluxion::check_gradient(rf::nested, rf::nested_grad,
                                   fluxion::span(x, 6), 1.2);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(rf::nested, rf::nested_jvp, fluxion::span(x, 6),
                              1.2);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(RangeFor, BreakAndContinue) {
  // Elements on both sides of the break and continue thresholds, away from
  // them (the function has kinks there).
  double x[5] = {0.5, -0.4, 1.2, 2.5, 0.7};
  auto R = fluxion::check_gradient(rf::jumps, rf::jumps_grad,
                                   fluxion::span(x, 5), 1.3);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(rf::jumps, rf::jumps_jvp, fluxion::span(x, 5),
                              1.3);
  EXPECT_TRUE(J.ok()) << J;
  // The same value as the loops the range-fors stand for.
  double t = 1.3, s = 0;
  for (int k = 0; k < 5; ++k) {
    if (x[k] < 0)
      continue;
    if (x[k] > 2)
      break;
    s += x[k] * t;
  }
  double m[2][3] = {{x[0], x[1], x[2]}, {x[3], x[4], t}};
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) {
      if (m[r][c] > 1.8)
        break;
      m[r][c] *= t;
      if (m[r][c] < 0)
        continue;
      s += m[r][c] * m[r][c];
    }
    s += m[r][0];
  }
  double d[5] = {}, dt = 0;
  EXPECT_DOUBLE_EQ(rf::jumps_grad(x, t, d, &dt), s);
}

} // namespace
