// Eigen objects held by classes (contract v2: a class's floating members,
// recursively, Eigen's Matrix and Array included): fixed-size members read
// in expressions (c.R * X + c.t), as coefficients (c.R(0, 1), c.t.x()),
// written through an output object (s.v += dt * a, s.x.noalias() += ...,
// views scaled in place), classes built empty, from braced lists and by
// copies, returned by callees; dynamic-size members (a network's weights
// as MatrixXd); std::vectors of such classes; methods whose object's
// Eigen members are differentiated ("this"), in float. Every derivative is
// checked against finite differences (fluxion::check_*), forward mode
// against reverse mode by the dot-product test, and f_hvp where the
// function is twice differentiable.
#include <Eigen/Dense>

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace held {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector2d;
using Eigen::Vector3d;
using Eigen::VectorXd;

struct Camera {
  Matrix3d R;
  Vector3d t;
  double f;
  int id; // carries no derivative
};

static double residual(const Camera &c, const Vector3d &X,
                       const Vector2d &obs) {
  Vector3d p = c.R * X + c.t;
  Vector2d r = c.f * p.head<2>() / p.z() - obs;
  return r.squaredNorm();
}

// Members in expressions, as coefficients, and through a callee.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
reprojection(const Camera &c, const Vector3d &X, const Vector2d &obs) {
  return residual(c, X, obs) + c.R(0, 1) * c.t.x() + c.t.norm();
}

// A std::vector of such classes: range-for by reference, and by index.
[[fluxion::grad]] [[fluxion::jvp]] double
bundle(const std::vector<Camera> &cams, const Vector3d &X,
       const Vector2d &obs) {
  double e = 0;
  for (const Camera &c : cams)
    e += residual(c, X, obs);
  for (std::size_t i = 0; i < cams.size(); ++i)
    e += cams[i].t.dot(X) * cams[i].f;
  return e;
}

struct Pose {
  Matrix3d R;
  Vector3d t;
};

static Pose compose(const Pose &a, const Pose &b) {
  Pose c;
  c.R = a.R * b.R;
  c.t = a.R * b.t + a.t;
  return c;
}

// Classes built empty, zeroed, by a callee and by copies; members written
// whole, by comma initialisation and through views.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
composed(const Pose &a, const Pose &b, const Vector3d &x) {
  Pose c = compose(a, b);
  Pose d{};
  d.t << x.x(), 2 * x.y(), c.t.z();
  d.R = c.R.transpose();
  d.R.col(1) *= 2;
  d.t.head<2>() /= 3;
  Pose e = d;
  e.t.segment<2>(1) = 2 * c.t.head<2>();
  Pose f{a.R * x.x(), b.t + x};
  return (c.R * x + c.t).dot(e.t) + d.R.sum() + f.R.trace() * f.t.z();
}

struct State {
  Vector3d x, v;
  double m;
};

// An output object whose members a loop updates.
[[fluxion::grad]] [[fluxion::jvp]] void integrate(State &s, const Vector3d &g,
                                                  double dt, int n) {
  for (int i = 0; i < n; ++i) {
    Vector3d a = g - 0.1 * s.v * s.v.norm() / s.m;
    s.v += dt * a;
    s.x.noalias() += dt * s.v;
    s.x.z() = std::max(s.x.z(), -1.0);
  }
  s.m = s.m * 0.9 + s.x.head<2>().sum();
}

[[fluxion::grad]] double energy_after(const State &s0, const Vector3d &g,
                                      double dt) {
  State s = s0;
  integrate(s, g, dt, 3);
  return 0.5 * s.m * s.v.squaredNorm() + s.m * 9.81 * s.x.z();
}

// Members assigned products of other members of the same object.
struct Linear {
  Matrix3d A;
  Vector3d x, y;
};

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
applied(const Linear &l0, double s) {
  Linear l = l0;
  l.y = l.A * l.x;
  l.x = s * l.A.transpose() * l.y;
  l.y.noalias() += l.A.col(0).cross(l.x);
  return l.x.squaredNorm() + l.y.sum();
}

// Dynamic-size members: a network's weights, read in place.
struct Network {
  MatrixXd W1;
  VectorXd b1;
  VectorXd w2;
  double b2;
};

[[fluxion::grad]] [[fluxion::jvp]] double mlp(const Network &n,
                                              const VectorXd &x) {
  VectorXd h = (n.W1 * x + n.b1).array().tanh().matrix();
  return n.w2.dot(h) + n.b2 * n.b1.sum();
}

// The object's own Eigen members, differentiated ("this"), in float.
struct Affine {
  Eigen::Matrix2f A;
  Eigen::Vector2f b;
  [[fluxion::grad("x", "this")]] float energy(const Eigen::Vector2f &x) const {
    return (A * x + b).squaredNorm() + A.col(0).dot(b);
  }
};

Camera camera() {
  Camera c;
  c.R << 1, 0.1, 0.2, -0.1, 1, 0.3, 0.05, -0.2, 1;
  c.t << 0.1, 0.2, 3;
  c.f = 2;
  c.id = 1;
  return c;
}

Pose pose(double angle, const Vector3d &axis, const Vector3d &t) {
  return {Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix(), t};
}

// A local array of such objects overwritten in a loop: the reverse sweep
// keeps their numbers one by one (the tape holds trivially copyable values
// only), also across the split of f_jacobian.
struct Particle {
  Vector2d x;
  double m;
};

[[fluxion::grad]] [[fluxion::jacobian]] void
swarm(const double p[2], double out[2]) {
  Particle base{Vector2d(p[1], 2 * p[0]), p[0]};
  out[0] = 0;
  out[1] = 0;
  for (int s = 0; s < 3; ++s) {
    Particle ps[3];
    for (Particle &q : ps) {
      q = base;
      q.m += s;
    }
    for (int i = 0; i < 3; ++i) {
      ps[i].x += Vector2d(p[0] * (i + s), std::sin(p[1] * (i + 1)));
      ps[i].m *= p[1];
    }
    for (const Particle &q : ps) {
      out[0] += q.m * q.x.squaredNorm();
      out[1] += std::cos(q.x.y()) * q.m;
    }
  }
}

} // namespace held

using namespace held;

TEST(EigenMembers, FixedSizeMembersOfAParameter) {
  Camera c = camera();
  Vector3d X(0.3, -0.2, 1.5);
  Vector2d obs(0.1, 0.05);
  auto G = fluxion::check_gradient(reprojection, reprojection_grad, c, X, obs);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(reprojection, reprojection_jvp, c, X, obs);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(reprojection, reprojection_hvp, c, X, obs);
  EXPECT_TRUE(H.ok()) << H;
  // The integer member is left alone.
  Camera d{};
  Vector3d dX = Vector3d::Zero();
  Vector2d dobs = Vector2d::Zero();
  d.id = 42;
  reprojection_grad(c, X, obs, &d, &dX, &dobs);
  EXPECT_EQ(d.id, 42);
}

TEST(EigenMembers, VectorOfClassesHoldingEigenObjects) {
  Pose p = pose(0.4, Vector3d(1, 2, 3), Vector3d(0.2, -0.1, 2.5));
  std::vector<Camera> cams = {camera(), Camera{p.R, p.t, 1.5, 2}};
  Vector3d X(0.3, -0.2, 1.5);
  Vector2d obs(0.1, 0.05);
  auto G = fluxion::check_gradient(bundle, bundle_grad, cams, X, obs);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(bundle, bundle_jvp, cams, X, obs);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenMembers, ClassesBuiltCopiedAndReturned) {
  Pose a = pose(0.3, Vector3d(1, 2, 3), Vector3d(0.1, 0.2, 0.3));
  Pose b = pose(-0.5, Vector3d(0, 1, 1), Vector3d(-1, 0.5, 2));
  Vector3d x(0.4, 0.5, -0.6);
  auto G = fluxion::check_gradient(composed, composed_grad, a, b, x);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(composed, composed_jvp, a, b, x);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(composed, composed_hvp, a, b, x);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenMembers, OutputObjectUpdatedInALoop) {
  State s{Vector3d(0.1, 0.2, 1.0), Vector3d(1.0, -0.5, 0.3), 2.0};
  Vector3d g(0, 0.1, -9.81);
  auto G = fluxion::check_gradient(energy_after, energy_after_grad, s, g, 0.01);
  EXPECT_TRUE(G.ok()) << G;
  // integrate's own vjp and jvp: <seed, J t> = <J^T seed, t>.
  State t{Vector3d(0.3, -0.2, 0.1), Vector3d(-0.4, 0.5, 0.2), 0.7};
  Vector3d tg(0.2, -0.3, 0.4);
  State y = s, ty = t;
  integrate_jvp(y, g, 0.05, 4, &ty, &tg, 0.0);
  State seed{Vector3d(0.5, 0.1, -0.3), Vector3d(0.2, 0.4, 0.6), -0.8};
  State z = s, adj = seed;
  Vector3d dg = Vector3d::Zero();
  double ddt = 0;
  integrate_vjp(z, g, 0.05, 4, &adj, &dg, &ddt);
  State plain = s;
  integrate(plain, g, 0.05, 4);
  EXPECT_TRUE(y.x.isApprox(plain.x) && y.v.isApprox(plain.v));
  EXPECT_DOUBLE_EQ(y.m, plain.m);
  double forward = seed.x.dot(ty.x) + seed.v.dot(ty.v) + seed.m * ty.m;
  double reverse = adj.x.dot(t.x) + adj.v.dot(t.v) + adj.m * t.m + dg.dot(tg);
  EXPECT_NEAR(forward, reverse, 1e-12 * (1 + std::abs(forward)));
}

TEST(EigenMembers, ProductsOfOtherMembers) {
  Linear l{camera().R, Vector3d(0.3, -0.2, 0.5), Vector3d(1, 2, 3)};
  auto G = fluxion::check_gradient(applied, applied_grad, l, 0.7);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(applied, applied_jvp, l, 0.7);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(applied, applied_hvp, l, 0.7);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(EigenMembers, DynamicSizeMembers) {
  std::srand(3);
  Network n{MatrixXd::Random(4, 3), VectorXd::Random(4), VectorXd::Random(4),
            0.3};
  VectorXd x = VectorXd::Random(3);
  auto G = fluxion::check_gradient(mlp, mlp_grad, n, x);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(mlp, mlp_jvp, n, x);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(EigenMembers, MethodOfAClassHoldingEigenObjects) {
  Affine f{(Eigen::Matrix2f() << 0.6f, -0.3f, 0.2f, 0.9f).finished(),
           Eigen::Vector2f(0.1f, -0.4f)};
  Eigen::Vector2f x(0.3f, -0.4f), dx = Eigen::Vector2f::Zero();
  Affine df{Eigen::Matrix2f::Zero(), Eigen::Vector2f::Zero()};
  float value = f.energy_grad(x, &dx, &df);
  EXPECT_FLOAT_EQ(value, f.energy(x));
  // Central differences in double of the same float function.
  auto fd = [&](auto perturb) {
    double h = 1e-2;
    Affine u = f, d = f;
    Eigen::Vector2f xu = x, xd = x;
    perturb(u, xu, float(h));
    perturb(d, xd, float(-h));
    return (double(u.energy(xu)) - double(d.energy(xd))) / (2 * h);
  };
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(df.A(k),
                fd([&](Affine &a, Eigen::Vector2f &, float h) { a.A(k) += h; }),
                2e-3)
        << "A(" << k << ")";
  for (int k = 0; k < 2; ++k) {
    EXPECT_NEAR(df.b(k),
                fd([&](Affine &a, Eigen::Vector2f &, float h) { a.b(k) += h; }),
                2e-3)
        << "b(" << k << ")";
    EXPECT_NEAR(dx(k),
                fd([&](Affine &, Eigen::Vector2f &v, float h) { v(k) += h; }),
                2e-3)
        << "x(" << k << ")";
  }
}

TEST(EigenMembers, ArrayOfObjectsOverwrittenInALoop) {
  double p[2] = {0.3, 0.7}, out[2];
  auto J = fluxion::check_jacobian(swarm, swarm_jacobian, p, out);
  EXPECT_TRUE(J.ok()) << J;
  auto V = fluxion::check_vjp(swarm, swarm_vjp, p, out);
  EXPECT_TRUE(V.ok()) << V;
}
