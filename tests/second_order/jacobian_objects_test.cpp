// f_jacobian over objects of reals (contract v2): a `const S &` or by-value
// struct input gives one column per floating member (in declaration order,
// nested structs and array members flattened, integer members skipped), an
// `S &` the function writes gives one row per floating member. Checked
// against central differences, against columns from f_jvp with unit
// tangents and rows from f_vjp with unit seeds, in reverse and forward
// sweeps, in double and float.
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <cmath>
#include <vector>

namespace jo {

struct Vec2 {
  double x, y;
};
struct Vec3 {
  double x, y, z;
};
struct Cam {
  Vec3 rot;
  double centre[3];
  double focal;
  int id; // not a column
  Vec2 radial;
};

Vec3 operator-(const Vec3 &a, const Vec3 &b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
Vec3 rotate(const Vec3 &r, const Vec3 &p) {
  double t = std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
  double c = std::cos(t), s = std::sin(t) / t;
  return {c * p.x + s * (r.y * p.z - r.z * p.y),
          c * p.y + s * (r.z * p.x - r.x * p.z),
          c * p.z + s * (r.x * p.y - r.y * p.x)};
}

// 2 rows (err) x 12 columns (cam: 3 + 3 + 1 + 2 = 9, X: 3): reverse sweeps.
// (f_vjp and f_jvp name the output too: one f_vjp serves all three.)
[[fluxion::jacobian("cam", "X", "err")]] [[fluxion::grad("cam", "X", "err")]]
[[fluxion::jvp("cam", "X", "err")]] void
residual(const Cam &cam, const Vec3 &X, const Vec2 &feat, Vec2 &err) {
  Vec3 c{cam.centre[0], cam.centre[1], cam.centre[2]};
  Vec3 q = rotate(cam.rot, X - c);
  double px = q.x / q.z, py = q.y / q.z;
  double r2 = px * px + py * py;
  double L = 1 + cam.radial.x * r2 + cam.radial.y * r2 * r2;
  err.x = cam.focal * L * px - feat.x + cam.id;
  err.y = cam.focal * L * py - feat.y;
}

// 1 + 3 rows (result, o) x 2 columns (p by value): forward sweeps. The
// int member of `o` is written and is not a row.
struct Pair {
  double a, b;
};
struct Mixed {
  double u;
  int tag;
  double v[2];
};
[[fluxion::jacobian]] [[fluxion::grad]] [[fluxion::jvp]] double
spread(Pair p, Mixed &o) {
  o.u = p.a * p.b;
  o.tag = 7;
  o.v[0] = std::sin(p.a) * p.b;
  o.v[1] = std::exp(p.b - p.a);
  return p.a * p.a + p.b;
}

// An array of objects as input, and an object updated in place whose
// entry values are held fixed (not columns): 2 rows x 6 + 1 columns.
[[fluxion::jacobian("ps", "s")]] void
accumulate(const Vec3 ps[2], double s, Vec2 &acc) {
  acc.x = acc.x * s + ps[0].x * ps[1].y;
  acc.y = acc.y + s * (ps[0].z - ps[1].x * ps[1].z);
}

// float members, a float Jacobian.
struct VecF {
  float a, b, c;
};
[[fluxion::jacobian]] void polar(const VecF &v, VecF &out) {
  out.a = std::sqrt(v.a * v.a + v.b * v.b);
  out.b = std::atan2(v.b, v.a);
  out.c = v.c * out.a;
}

} // namespace jo

namespace {

using so::Rng;
using Vec = std::vector<double>;

// The columns of `residual` in order, as pointers into the objects.
std::vector<double *> columns(jo::Cam &cam, jo::Vec3 &X) {
  return {&cam.rot.x,     &cam.rot.y,     &cam.rot.z,    &cam.centre[0],
          &cam.centre[1], &cam.centre[2], &cam.focal,    &cam.radial.x,
          &cam.radial.y,  &X.x,           &X.y,          &X.z};
}

TEST(JacobianObjects, ReverseRowsAgainstDifferencesJvpAndVjp) {
  Rng rng(17);
  for (int t = 0; t < 10; ++t) {
    jo::Cam cam{{rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5),
                 rng.uniform(-0.5, 0.5)},
                {rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), -4},
                rng.uniform(1, 2),
                3,
                {rng.uniform(-0.1, 0.1), rng.uniform(-0.05, 0.05)}};
    jo::Vec3 X{rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(0, 1)};
    jo::Vec2 feat{rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2)}, err{};
    Vec J(2 * 12, -7.0);
    jo::residual_jacobian(cam, X, feat, err, J.data());
    jo::Vec2 ref;
    jo::residual(cam, X, feat, ref);
    SO_EXPECT_CLOSE(err.x, ref.x, 1e-15);
    SO_EXPECT_CLOSE(err.y, ref.y, 1e-15);
    std::vector<double *> col = columns(cam, X);
    for (int j = 0; j < 12; ++j) {
      SCOPED_TRACE(::testing::Message() << "column " << j);
      double keep = *col[j], h = 1e-6 * (1 + std::fabs(keep));
      jo::Vec2 up, down;
      *col[j] = keep + h;
      jo::residual(cam, X, feat, up);
      *col[j] = keep - h;
      jo::residual(cam, X, feat, down);
      *col[j] = keep;
      SO_EXPECT_CLOSE(J[j], (up.x - down.x) / (2 * h), 1e-7);
      SO_EXPECT_CLOSE(J[12 + j], (up.y - down.y) / (2 * h), 1e-7);
      // Column j from f_jvp: a unit tangent in member j.
      jo::Cam tc{};
      jo::Vec3 tX{};
      *columns(tc, tX)[j] = 1;
      jo::Vec2 e, te{};
      jo::residual_jvp(cam, X, feat, e, &tc, &tX, &te);
      SO_EXPECT_CLOSE(J[j], te.x, 1e-12);
      SO_EXPECT_CLOSE(J[12 + j], te.y, 1e-12);
    }
    // Rows from f_vjp with unit seeds in the output's adjoint.
    for (int i = 0; i < 2; ++i) {
      jo::Cam dc{};
      jo::Vec3 dX{};
      jo::Vec2 e, de{i == 0 ? 1.0 : 0.0, i == 1 ? 1.0 : 0.0};
      jo::residual_vjp(cam, X, feat, e, &dc, &dX, &de);
      std::vector<double *> d = columns(dc, dX);
      for (int j = 0; j < 12; ++j)
        SO_EXPECT_CLOSE(J[12 * i + j], *d[j], 1e-12);
      EXPECT_EQ(dc.id, 0); // integer members are never written
    }
  }
}

TEST(JacobianObjects, ForwardColumnsClosedForm) {
  Rng rng(5);
  for (int t = 0; t < 10; ++t) {
    jo::Pair p{rng.uniform(-1, 1), rng.uniform(-1, 1)};
    jo::Mixed o{};
    Vec J(4 * 2, -7.0);
    jo::spread_jacobian(p, o, J.data());
    double a = p.a, b = p.b, e = std::exp(b - a);
    Vec ref = {2 * a, 1,                    // result
               b, a,                        // o.u
               std::cos(a) * b, std::sin(a), // o.v[0]
               -e, e};                      // o.v[1]
    for (int k = 0; k < 8; ++k)
      SO_EXPECT_CLOSE(J[k], ref[k], 1e-13);
    EXPECT_EQ(o.tag, 7);
    SO_EXPECT_CLOSE(o.u, a * b, 1e-15);
    // Rows from f_vjp: the result seeded, then each member of o.
    for (int i = 0; i < 4; ++i) {
      jo::Pair dp{};
      jo::Mixed m{}, dm{};
      dm.u = i == 1;
      dm.v[0] = i == 2;
      dm.v[1] = i == 3;
      jo::spread_vjp(p, m, i == 0 ? 1.0 : 0.0, &dp, &dm);
      SO_EXPECT_CLOSE(J[2 * i], dp.a, 1e-13);
      SO_EXPECT_CLOSE(J[2 * i + 1], dp.b, 1e-13);
    }
  }
}

TEST(JacobianObjects, ArrayOfObjectsAndAnOutputUpdatedInPlace) {
  Rng rng(9);
  for (int t = 0; t < 10; ++t) {
    jo::Vec3 ps[2];
    for (jo::Vec3 &p : ps)
      p = {rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
    double s = rng.uniform(-1, 1);
    jo::Vec2 acc0{rng.uniform(-1, 1), rng.uniform(-1, 1)}, acc = acc0;
    Vec J(2 * 7, -7.0);
    jo::accumulate_jacobian(ps, s, acc, J.data());
    // The outputs end with what f computed from their entry values.
    jo::Vec2 ref = acc0;
    jo::accumulate(ps, s, ref);
    SO_EXPECT_CLOSE(acc.x, ref.x, 1e-15);
    SO_EXPECT_CLOSE(acc.y, ref.y, 1e-15);
    std::vector<double *> col = {&ps[0].x, &ps[0].y, &ps[0].z, &ps[1].x,
                                 &ps[1].y, &ps[1].z, &s};
    for (int j = 0; j < 7; ++j) {
      SCOPED_TRACE(::testing::Message() << "column " << j);
      double keep = *col[j], h = 1e-6;
      jo::Vec2 up = acc0, down = acc0;
      *col[j] = keep + h;
      jo::accumulate(ps, s, up);
      *col[j] = keep - h;
      jo::accumulate(ps, s, down);
      *col[j] = keep;
      SO_EXPECT_CLOSE(J[j], (up.x - down.x) / (2 * h), 1e-8);
      SO_EXPECT_CLOSE(J[7 + j], (up.y - down.y) / (2 * h), 1e-8);
    }
  }
}

TEST(JacobianObjects, FloatMembers) {
  jo::VecF v{0.6f, -0.8f, 1.5f}, out{};
  float J[9];
  jo::polar_jacobian(v, out, J);
  float r = 1.0f;
  // d|v|/da, d|v|/db; datan2/da = -b/r^2, /db = a/r^2; c*|v|.
  float ref[9] = {v.a / r,         v.b / r,         0,
                  -v.b / (r * r),  v.a / (r * r),   0,
                  v.c * v.a / r,   v.c * v.b / r,   r};
  for (int k = 0; k < 9; ++k)
    EXPECT_NEAR(J[k], ref[k], 1e-5f) << "entry " << k;
  EXPECT_NEAR(out.a, 1.0f, 1e-6f);
}

} // namespace
