// [[fluxion::hessian]] and [[fluxion::jacobian]] on member functions
// (contract v2, "Methods"): S::f_hessian, S::f_hvp and S::f_jacobian are
// members with f's qualifiers, differentiating f's parameters; the object's
// members are constants. Checked against closed forms, against f_grad
// (central differences of the gradient for the Hessian) and against f_jvp
// columns / f_vjp rows for the Jacobian.
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <fluxion/check.hpp>

#include <cmath>
#include <vector>

namespace ms {

// A spring between two anchors: its energy at a point, and the force
// field's residuals. The anchors and stiffness are the object's state.
class Spring {
public:
  Spring(double k, double ax, double ay, double rest)
      : k_(k), ax_(ax), ay_(ay), rest_(rest) {}

  [[fluxion::hessian]] double energy(double x, double y) const {
    double d = length(x - ax_, y - ay_) - rest_;
    return 0.5 * k_ * d * d;
  }

  // 3 outputs (force x, force y, energy), 2 inputs: forward sweeps.
  [[fluxion::jacobian]] void forces(const double p[2], double out[3]) const {
    double dx = p[0] - ax_, dy = p[1] - ay_, L = length(dx, dy);
    out[0] = -k_ * (L - rest_) * dx / L;
    out[1] = -k_ * (L - rest_) * dy / L;
    out[2] = 0.5 * k_ * (L - rest_) * (L - rest_);
  }

  // 1 output, 3 inputs: reverse sweeps; a non-const method that counts
  // its calls in the object.
  [[fluxion::jacobian]] double stretch(double x, double y, double s) {
    ++evaluations_;
    return s * length(x - ax_, y - ay_) / rest_;
  }

private:
  static double length(double dx, double dy) {
    return std::sqrt(dx * dx + dy * dy);
  }
  double k_, ax_, ay_, rest_;
  int evaluations_ = 0;
};

// A non-const method that changes a member and puts it back: f_hvp (the
// only second-order form for a pointer input) follows the member through
// the adjoint's save and restore, with a zero tangent.
struct Scaled {
  double k;
  [[fluxion::hessian]] double energy(const double *x, int n) {
    k *= 2.0;
    double s = 0;
    for (int i = 0; i < n; ++i)
      s += k * x[i] * x[i] * x[(i + 1) % n];
    k *= 0.5;
    return s;
  }
};

} // namespace ms

namespace {

using so::Rng;

TEST(MethodsSecondOrder, HessianAgainstDifferencesOfTheGradient) {
  Rng rng(3);
  for (int t = 0; t < 10; ++t) {
    const ms::Spring s(rng.uniform(0.5, 2), rng.uniform(-1, 1),
                       rng.uniform(-1, 1), rng.uniform(0.2, 0.8));
    double x = rng.uniform(-2, 2), y = rng.uniform(-2, 2);
    double H[4] = {-7, -7, -7, -7};
    s.energy_hessian(x, y, H);
    double h = 1e-5;
    auto grad = [&](double px, double py, double g[2]) {
      g[0] = g[1] = 0;
      s.energy_grad(px, py, &g[0], &g[1]);
    };
    double gp[2], gm[2];
    grad(x + h, y, gp);
    grad(x - h, y, gm);
    SO_EXPECT_CLOSE(H[0], (gp[0] - gm[0]) / (2 * h), 1e-6);
    SO_EXPECT_CLOSE(H[2], (gp[1] - gm[1]) / (2 * h), 1e-6);
    grad(x, y + h, gp);
    grad(x, y - h, gm);
    SO_EXPECT_CLOSE(H[1], (gp[0] - gm[0]) / (2 * h), 1e-6);
    SO_EXPECT_CLOSE(H[3], (gp[1] - gm[1]) / (2 * h), 1e-6);
    // f_hvp along (1, 2) is H (1, 2).
    double hx = 0, hy = 0;
    s.energy_hvp(x, y, 1.0, 2.0, &hx, &hy);
    SO_EXPECT_CLOSE(hx, H[0] + 2 * H[1], 1e-12);
    SO_EXPECT_CLOSE(hy, H[2] + 2 * H[3], 1e-12);
  }
}

TEST(MethodsSecondOrder, JacobianColumnsAndRows) {
  Rng rng(4);
  for (int t = 0; t < 10; ++t) {
    ms::Spring s(rng.uniform(0.5, 2), rng.uniform(-1, 1), rng.uniform(-1, 1),
                 rng.uniform(0.2, 0.8));
    double p[2] = {rng.uniform(-2, 2), rng.uniform(-2, 2)}, out[3];
    double J[6] = {-7, -7, -7, -7, -7, -7};
    s.forces_jacobian(p, out, J);
    for (int j = 0; j < 2; ++j) {
      double tp[2] = {double(j == 0), double(j == 1)}, o[3], to[3] = {};
      s.forces_jvp(p, o, tp, to);
      for (int i = 0; i < 3; ++i)
        SO_EXPECT_CLOSE(J[2 * i + j], to[i], 1e-12);
    }
    // Forces are minus the energy's gradient: J's force rows are -H.
    double H[4];
    s.energy_hessian(p[0], p[1], H);
    for (int k = 0; k < 4; ++k)
      SO_EXPECT_CLOSE(J[k], -H[k], 1e-9);
    double x = p[0], y = p[1], sc = rng.uniform(0.5, 1.5);
    double Js[3] = {-7, -7, -7};
    s.stretch_jacobian(x, y, sc, Js);
    double dx = 0, dy = 0, ds = 0;
    s.stretch_vjp(x, y, sc, 1.0, &dx, &dy, &ds);
    SO_EXPECT_CLOSE(Js[0], dx, 1e-12);
    SO_EXPECT_CLOSE(Js[1], dy, 1e-12);
    SO_EXPECT_CLOSE(Js[2], ds, 1e-12);
  }
}

TEST(MethodsSecondOrder, HvpOfAMethodThatChangesAMember) {
  ms::Scaled s{0.75};
  std::vector<double> x = {0.4, -1.2, 0.9, 0.3};
  auto f = [&](const double *p, int n) { return s.energy(p, n); };
  auto hvp = [&](const double *p, int n, const double *v, double *hv) {
    s.energy_hvp(p, n, v, hv);
  };
  auto R = fluxion::check_hvp(f, hvp, fluxion::span(x.data(), 4), 4);
  EXPECT_TRUE(R.ok()) << R;
  EXPECT_EQ(s.k, 0.75);
}

} // namespace
