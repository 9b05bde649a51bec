// Eigen operations of geometry code: cross products, normalized(),
// cwiseMax/cwiseMin, Zero/Ones/Constant/Identity inside expressions,
// fixed-size Eigen and std::array locals declared inside loops (assigned
// again at each iteration, like local arrays), and callees returning
// fixed-size Eigen objects, called with expressions as arguments;
// annotated functions returning fixed-size Eigen objects (f_vjp takes a
// seed object and returns the value, f_jvp returns the tangent object);
// vectors built in place (Vector3d(a, b, c), UnitX()); normalized() of a
// zero vector.
// Every derivative is checked
// against finite differences (fluxion::check_*), forward mode against
// reverse mode by the dot-product test, and f_hvp where the function is
// twice differentiable.
#include <Eigen/Dense>

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <array>
#include <cmath>

#include <gtest/gtest.h>

namespace geo {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using Eigen::VectorXd;

// A triangle's area and its unit normal's tilt.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
triangle(const Vector3d &a, const Vector3d &b, const Vector3d &c) {
  Vector3d n = (b - a).cross(c - a);
  Vector3d u = n.normalized();
  return 0.5 * n.norm() + u.z() * u.x() + a.cross(b).dot(c);
}

// Rodrigues' rotation with cross and normalized, of a row vector too.
[[fluxion::grad]] [[fluxion::jvp]] double rotate(const Vector3d &w,
                                                 const Vector3d &p) {
  double theta = w.norm();
  Vector3d k = w.normalized();
  Vector3d q = std::cos(theta) * p + std::sin(theta) * k.cross(p) +
               (1 - std::cos(theta)) * k.dot(p) * k;
  Eigen::RowVector3d r = p.transpose().cross(q.transpose());
  return q.squaredNorm() * q(1) + r.sum();
}

// Coefficient-wise max and min (hinge, clipping).
[[fluxion::grad]] [[fluxion::jvp]] double clipped(const VectorXd &x,
                                                  const VectorXd &y) {
  VectorXd h = (x - y).cwiseMax(VectorXd::Zero(x.size()));
  return h.squaredNorm() + x.cwiseMin(y).sum() +
         (2 * x).cwiseMax(y).cwiseProduct(y).sum();
}

// Constant matrices inside expressions.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
regularised(const Matrix3d &A, const Vector3d &x, double lambda) {
  Matrix3d M = A.transpose() * A + lambda * Matrix3d::Identity();
  Vector3d y = (M - Matrix3d::Ones()) * x + Vector3d::Constant(0.5) +
               Vector3d::Zero();
  return y.dot(x) + (M + 2 * Matrix3d::Identity()).trace();
}

// Fixed-size locals declared in loops: assigned again at each iteration,
// and read by the reverse sweep of the iteration that assigned them.
[[fluxion::grad]] [[fluxion::jvp]] double springs(const Eigen::Matrix3Xd &P,
                                                  double k) {
  double e = 0;
  for (Eigen::Index i = 0; i + 1 < P.cols(); ++i) {
    Vector3d d = P.col(i + 1) - P.col(i);
    Vector3d zeros = Vector3d::Zero();
    std::array<double, 3> w{};
    w[0] = d.x() * d.x();
    w[2] = d.z();
    double len = d.norm();
    e += k * (len - 1) * (len - 1) + w[0] * w[1] + w[2] * zeros.sum() +
         d.cross(P.col(i)).squaredNorm();
  }
  return e;
}

[[fluxion::grad]] [[fluxion::jvp]] double arrays_in_loop(const double *x,
                                                         int n) {
  double s = 0;
  for (int i = 0; i + 2 < n; ++i) {
    std::array<double, 3> t = {x[i], x[i + 1] * x[i + 2]};
    s += t[0] * t[1] + std::sin(t[2] + t[0]);
  }
  return s;
}

// Helpers returning fixed-size Eigen objects, as geometry code writes them
// (each called with expressions as arguments: evaluated into temporaries).
Vector3d rotated(const Vector3d &w, const Vector3d &p) {
  double theta = w.norm();
  Vector3d k = w / theta;
  return std::cos(theta) * p + std::sin(theta) * k.cross(p) +
         (1 - std::cos(theta)) * k.dot(p) * k;
}

Eigen::Vector2d projected(const Vector3d &p) {
  return Eigen::Vector2d(p.x() / p.z(), p.y() / p.z());
}

Matrix3d outer(const Vector3d &a, const Vector3d &b) {
  Matrix3d M = a * b.transpose();
  return M;
}

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
reprojected(const Vector3d &w, const Vector3d &t, const Eigen::Matrix3Xd &P) {
  double s = outer(w, t).trace();
  for (Eigen::Index i = 0; i < P.cols(); ++i) {
    Eigen::Vector2d uv = projected(rotated(w, P.col(i)) + t);
    s += uv.squaredNorm() + projected(t - P.col(i)).x();
  }
  return s;
}

// Vectors built in place from coefficients and unit vectors, as operands
// and as arguments.
[[fluxion::grad]] [[fluxion::jvp]] double aimed(const Vector3d &y, double s) {
  double a = y.dot(Vector3d(1, 2 * s, 3)) +
             projected(Vector3d(y.x(), s, 2.0)).squaredNorm();
  Vector3d c = y.cross(Vector3d::UnitZ()) + s * Vector3d::UnitX();
  return a + c.norm() + (y - Vector3d(s, 0, 1)).squaredNorm();
}

// normalized() of a zero vector is the vector itself, as in Eigen.
[[fluxion::grad]] [[fluxion::jvp]] double facing(const Vector3d &y,
                                                 const Vector3d &c) {
  return y.normalized().dot(c);
}

// Annotated functions returning fixed-size Eigen objects: a pose applied
// to a point (through the callee above), a skew matrix scaled by the
// norm, an Array expression, a float projection, and a template.
[[fluxion::grad]] [[fluxion::jvp]] Vector3d posed(const Vector3d &w,
                                                  const Vector3d &t,
                                                  const Vector3d &p) {
  // (A call on constants carries no derivative: it runs as written.)
  double k = projected(Vector3d(0.5, 0.25, 2.0)).x();
  return rotated(w, p) + k * t;
}
[[fluxion::grad]] [[fluxion::jvp]] Matrix3d skew(const Vector3d &w) {
  Matrix3d m;
  m << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
  return m * w.norm();
}
[[fluxion::grad]] [[fluxion::jvp]] Eigen::Array3d grown(const Eigen::Array3d &a,
                                                        double s) {
  return (a * s).exp();
}
[[fluxion::grad]] [[fluxion::jvp]] Eigen::Vector2f
pinhole(const Eigen::Matrix<float, 2, 3> &K, const Eigen::Vector3f &x) {
  Eigen::Vector2f uv = K * x;
  return uv / x.z();
}
template <typename T>
[[fluxion::grad]] [[fluxion::jvp]] Eigen::Matrix<T, 3, 1>
scaled(const Eigen::Matrix<T, 3, 1> &v, T s) {
  return v.normalized() * s;
}

} // namespace geo

namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using Eigen::VectorXd;

TEST(EigenGeometry, CrossAndNormalized) {
  Vector3d a(0.3, -0.4, 1.2), b(-0.7, 0.2, 0.5), c(0.1, 0.9, -0.3);
  auto G = fluxion::check_gradient(geo::triangle, geo::triangle_grad, a, b, c);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(geo::triangle, geo::triangle_jvp, a, b, c);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(geo::triangle, geo::triangle_hvp, a, b, c);
  EXPECT_TRUE(H.ok()) << H;
  // Closed form: the area and the tilt do not change when the three
  // points move together, so the sum of the three derivatives is that of
  // the triple product (a x b) . c: b x c + c x a + a x b.
  Vector3d da = Vector3d::Zero(), db = Vector3d::Zero(), dc = Vector3d::Zero();
  geo::triangle_grad(a, b, c, &da, &db, &dc);
  Vector3d Expected = b.cross(c) + c.cross(a) + a.cross(b);
  EXPECT_LT((da + db + dc - Expected).norm(), 1e-12);
}

TEST(EigenGeometry, RodriguesAndRowCross) {
  Vector3d w(0.2, -0.5, 0.3), p(1.0, 2.0, -0.5);
  auto G = fluxion::check_gradient(geo::rotate, geo::rotate_grad, w, p);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(geo::rotate, geo::rotate_jvp, w, p);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenGeometry, CwiseMaxMin) {
  VectorXd x(5), y(5);
  x << 0.3, -1.2, 0.8, 2.0, -0.1;
  y << -0.5, 0.4, 0.1, 1.1, 0.7;
  auto G = fluxion::check_gradient(geo::clipped, geo::clipped_grad, x, y);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(geo::clipped, geo::clipped_jvp, x, y);
  EXPECT_TRUE(J.ok()) << J;
  // At a tie the derivative follows std::max's choice, the first argument.
  VectorXd t = VectorXd::Constant(5, 0.5), dx = VectorXd::Zero(5),
           dy = VectorXd::Zero(5);
  geo::clipped_grad(t, t, &dx, &dy);
  // h = max(0, 0) = 0 (no derivative); min(x, y) -> x; max(2x, y) -> 2x.
  EXPECT_NEAR(dx(0), 1 + 2 * 0.5, 1e-15);
  EXPECT_NEAR(dy(0), 2 * 0.5, 1e-15);
}

TEST(EigenGeometry, ConstantsInExpressions) {
  Matrix3d A;
  A << 1, 0.2, -0.3, 0.4, 1.5, 0.1, -0.2, 0.3, 0.8;
  Vector3d x(0.5, -1.0, 2.0);
  auto G = fluxion::check_gradient(geo::regularised, geo::regularised_grad, A,
                                   x, 0.3);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(geo::regularised, geo::regularised_jvp, A, x,
                              0.3);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(geo::regularised, geo::regularised_hvp, A, x,
                              0.3);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenGeometry, FixedSizeLocalsInLoops) {
  Eigen::Matrix3Xd P(3, 5);
  for (int j = 0; j < 5; ++j)
    P.col(j) = Vector3d(std::sin(j), std::cos(1.3 * j), 0.4 * j);
  auto G = fluxion::check_gradient(geo::springs, geo::springs_grad, P, 2.5);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(geo::springs, geo::springs_jvp, P, 2.5);
  EXPECT_TRUE(J.ok()) << J;
  double x[7] = {0.3, -0.2, 0.9, 1.1, -0.4, 0.6, 0.25};
  auto A = fluxion::check_gradient(geo::arrays_in_loop,
                                   geo::arrays_in_loop_grad,
                                   fluxion::span(x, 7), 7);
  EXPECT_TRUE(A.ok()) << A;
  auto AJ = fluxion::check_jvp(geo::arrays_in_loop, geo::arrays_in_loop_jvp,
                               fluxion::span(x, 7), 7);
  EXPECT_TRUE(AJ.ok()) << AJ;
}

TEST(EigenGeometry, CalleesReturningEigenObjects) {
  Vector3d w(0.2, -0.5, 0.3), t(0.1, 0.4, 4.0);
  Eigen::Matrix3Xd P(3, 4);
  for (int j = 0; j < 4; ++j)
    P.col(j) = Vector3d(std::sin(j), std::cos(1.3 * j), 0.5 + 0.2 * j);
  auto G = fluxion::check_gradient(geo::reprojected, geo::reprojected_grad, w,
                                   t, P);
  EXPECT_TRUE(G.ok()) << G;
  auto J =
      fluxion::check_jvp(geo::reprojected, geo::reprojected_jvp, w, t, P);
  EXPECT_TRUE(J.ok()) << J;
  auto H =
      fluxion::check_hvp(geo::reprojected, geo::reprojected_hvp, w, t, P);
  EXPECT_TRUE(H.ok()) << H;
}

// <seed, f(x + e t)> by central differences against <seed, J t> (f_jvp)
// and <J^T seed, t> (f_vjp): Fj and Fv return those two, D the function of e.
template <typename D, typename Fj, typename Fv>
void expectResultDerivatives(D F, Fj Jt, Fv JTs, double h, double tol) {
  double fd = (F(h) - F(-h)) / (2 * h);
  EXPECT_NEAR(Jt(), fd, tol * (1 + std::fabs(fd)));
  EXPECT_NEAR(JTs(), fd, tol * (1 + std::fabs(fd)));
}

TEST(EigenGeometry, AnnotatedFunctionsReturningEigenObjects) {
  Vector3d w(0.2, -0.5, 0.3), t(0.1, 0.4, 4.0), p(1, -2, 0.5);
  Vector3d tw(0.3, 0.1, -0.2), tt(-1, 0.5, 2), tp(0.2, 0.2, -0.7);
  Vector3d seed(0.5, -1, 2);
  Vector3d dw = Vector3d::Zero(), dt = Vector3d::Zero(), dp = Vector3d::Zero();
  Vector3d v = geo::posed_vjp(w, t, p, seed, &dw, &dt, &dp);
  EXPECT_EQ(v, geo::posed(w, t, p));
  Vector3d jt = geo::posed_jvp(w, t, p, &tw, &tt, &tp);
  expectResultDerivatives(
      [&](double e) {
        return seed.dot(geo::posed(w + e * tw, t + e * tt, p + e * tp));
      },
      [&] { return seed.dot(jt); },
      [&] { return dw.dot(tw) + dt.dot(tt) + dp.dot(tp); }, 1e-6, 1e-7);

  Matrix3d S;
  S << 1, -2, 0.5, 0.25, 3, -1, 2, 0.5, -0.75;
  Vector3d dws = Vector3d::Zero();
  Matrix3d m = geo::skew_vjp(w, S, &dws);
  EXPECT_EQ(m, geo::skew(w));
  Matrix3d mt = geo::skew_jvp(w, &tw);
  expectResultDerivatives(
      [&](double e) { return geo::skew(w + e * tw).cwiseProduct(S).sum(); },
      [&] { return mt.cwiseProduct(S).sum(); }, [&] { return dws.dot(tw); },
      1e-6, 1e-7);

  Eigen::Array3d a(0.1, -0.2, 0.3), ta(1, 2, -1), sa(0.5, 1, -2);
  Eigen::Array3d da = Eigen::Array3d::Zero();
  double ds = 0;
  geo::grown_vjp(a, 1.5, sa, &da, &ds);
  Eigen::Array3d at = geo::grown_jvp(a, 1.5, &ta, -0.5);
  expectResultDerivatives(
      [&](double e) { return (geo::grown(a + e * ta, 1.5 - 0.5 * e) * sa).sum(); },
      [&] { return (at * sa).sum(); },
      [&] { return (da * ta).sum() - 0.5 * ds; }, 1e-6, 1e-7);

  Eigen::Matrix<float, 2, 3> K, dK = Eigen::Matrix<float, 2, 3>::Zero(), tK;
  K << 500, 0, 320, 0, 500, 240;
  tK << 1, 0.5, -1, 0.25, 2, 1;
  Eigen::Vector3f x(0.1f, -0.2f, 2.0f), tx(0.01f, 0.02f, -0.05f);
  Eigen::Vector3f dx = Eigen::Vector3f::Zero();
  Eigen::Vector2f su(1.0f, -0.5f);
  geo::pinhole_vjp(K, x, su, &dK, &dx);
  Eigen::Vector2f ut = geo::pinhole_jvp(K, x, &tK, &tx);
  expectResultDerivatives(
      [&](double e) {
        Eigen::Matrix<double, 2, 3> Kd = K.cast<double>() + e * tK.cast<double>();
        Eigen::Vector3d xd = x.cast<double>() + e * tx.cast<double>();
        return su.cast<double>().dot(Kd * xd / xd.z());
      },
      [&] { return double(su.dot(ut)); },
      [&] { return double(dK.cwiseProduct(tK).sum() + dx.dot(tx)); }, 1e-6,
      1e-5);

  Eigen::Vector3f vf(1, 2, 2), dvf = Eigen::Vector3f::Zero();
  float dsf = 0;
  Eigen::Vector3f r = geo::scaled_vjp<float>(vf, 3.0f,
                                             Eigen::Vector3f(1, 0, 0), &dvf,
                                             &dsf);
  EXPECT_NEAR(r.x(), 1.0f, 1e-6f);
  EXPECT_NEAR(dsf, 1.0f / 3, 1e-6f);
  // d(v_x / |v|) / dv = (e_x - n n_x) / |v|, times s = 3.
  EXPECT_NEAR(dvf.x(), 1 - 1.0f / 9, 1e-6f);
  EXPECT_NEAR(dvf.y(), -2.0f / 9, 1e-6f);
  Vector3d dvd = Vector3d::Zero();
  double dsd = 0;
  geo::scaled_vjp(Vector3d(1, 2, 2), 3.0, Vector3d(0, 1, 0), &dvd, &dsd);
  EXPECT_NEAR(dsd, 2.0 / 3, 1e-15);
  EXPECT_NEAR(dvd.y(), 1 - 4.0 / 9, 1e-15);
}

TEST(EigenGeometry, VectorsBuiltInPlace) {
  Vector3d y(0.3, -0.4, 1.2);
  auto G = fluxion::check_gradient(geo::aimed, geo::aimed_grad, y, 0.7);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(geo::aimed, geo::aimed_jvp, y, 0.7);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenGeometry, NormalizedZeroVectorAsEigen) {
  Vector3d y = Vector3d::Zero(), c(1, 2, 3), dy = Vector3d::Zero(),
           dc = Vector3d::Zero(), t(0.5, -1, 2), tc = Vector3d::Zero();
  EXPECT_EQ(geo::facing_grad(y, c, &dy, &dc), 0.0);
  EXPECT_EQ(dy, c); // the identity: Eigen returns y itself there
  EXPECT_EQ(dc, Vector3d::Zero());
  EXPECT_EQ(geo::facing_jvp(y, c, &t, &tc), t.dot(c));
  Vector3d y1(0.3, -0.4, 1.2);
  auto G = fluxion::check_gradient(geo::facing, geo::facing_grad, y1, c);
  EXPECT_TRUE(G.ok()) << G;
}

} // namespace
