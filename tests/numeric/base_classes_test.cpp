// Classes with base classes (non-virtual): a base's members are members of
// the object, so the adjoint of a Derived is a Derived whose inherited
// members accumulate too. Aggregate initialisation with a base, a
// constructor with a base initialiser, a base's method called on a derived
// object, a derived object passed to a const Base& callee, arrays of derived
// objects, copies, and an annotated method of a derived class that names
// "this". Checked against central differences and by the jvp dot test.
#include <fluxion/fluxion.hpp>

#include <cmath>

#include <gtest/gtest.h>

namespace bases {

struct Body {
  double m;
  int id;
  double weight(double g) const { return m * g; }
};

struct Particle : Body {
  double x[2];
  double v;
  Particle() = default;
  Particle(double mass, double x0, double x1, double vel)
      : Body{mass, 0}, x{x0, x1}, v(vel) {}
  double kinetic() const { return 0.5 * m * v * v; }
};

struct Charged : Particle {
  double q;
  // The object's members are differentiated with "this": inherited ones
  // (m, x, v) included.
  [[fluxion::grad("E", "this")]] double energy(double E) const {
    return q * E * x[0] + kinetic() + weight(9.81) * x[1];
  }
};

double potential(const Body &b, double h) { return b.m * 9.81 * h; }

[[fluxion::grad]] [[fluxion::jvp]] double total(const Particle *ps, int n,
                                                const Charged &c) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += ps[i].kinetic() + potential(ps[i], ps[i].x[1]) +
         std::sin(ps[i].x[0]) * ps[i].weight(1.5);
  Particle copy = ps[0];
  copy.v *= 2;
  Particle built(c.m, c.x[0] * c.q, c.x[1], c.v);
  Particle agg;
  agg = copy;
  s += copy.kinetic() + built.kinetic() * built.x[0] + agg.m * c.q;
  return s;
}

} // namespace bases

namespace {

using bases::Charged;
using bases::Particle;

struct Inputs {
  Particle ps[3];
  Charged c;
  Inputs() {
    const double v[3][4] = {
        {1.5, 0.4, -0.7, 1.1}, {0.8, -1.2, 0.3, -0.6}, {2.1, 0.9, 1.4, 0.25}};
    for (int i = 0; i < 3; ++i)
      ps[i] = Particle(v[i][0], v[i][1], v[i][2], v[i][3]);
    c.m = 1.3;
    c.id = 4;
    c.x[0] = 0.6;
    c.x[1] = -0.9;
    c.v = 0.7;
    c.q = -1.1;
  }
};

/// Every real of a Particle or Charged, by address.
template <class T> std::vector<double *> reals(T &o) {
  std::vector<double *> r = {&o.m, &o.x[0], &o.x[1], &o.v};
  if constexpr (std::is_same_v<T, Charged>)
    r.push_back(&o.q);
  return r;
}

TEST(BaseClasses, GradientAndJvpOfInheritedMembers) {
  Inputs in;
  Particle dps[3] = {};
  Charged dc{};
  double value = bases::total_grad(in.ps, 3, in.c, dps, &dc);
  EXPECT_DOUBLE_EQ(value, bases::total(in.ps, 3, in.c));
  auto central = [&](double *p) {
    double h = 1e-6, o = *p;
    *p = o + h;
    double up = bases::total(in.ps, 3, in.c);
    *p = o - h;
    double dn = bases::total(in.ps, 3, in.c);
    *p = o;
    return (up - dn) / (2 * h);
  };
  double dot = 0;
  Particle tps[3] = {};
  Charged tc{};
  double t = 0.25;
  for (int i = 0; i < 3; ++i) {
    auto xs = reals(in.ps[i]), ds = reals(dps[i]), ts = reals(tps[i]);
    for (std::size_t k = 0; k < xs.size(); ++k) {
      EXPECT_NEAR(*ds[k], central(xs[k]), 1e-6 * (1 + std::fabs(*ds[k])));
      *ts[k] = t;
      dot += t * *ds[k];
      t = -0.8 * t + 0.1;
    }
  }
  auto xs = reals(in.c), ds = reals(dc), ts = reals(tc);
  for (std::size_t k = 0; k < xs.size(); ++k) {
    EXPECT_NEAR(*ds[k], central(xs[k]), 1e-6 * (1 + std::fabs(*ds[k])));
    *ts[k] = t;
    dot += t * *ds[k];
    t = -0.8 * t + 0.1;
  }
  // Integer members of the base are left alone.
  EXPECT_EQ(dc.id, 0);
  EXPECT_NEAR(bases::total_jvp(in.ps, 3, in.c, tps, &tc), dot,
              1e-12 * (1 + std::fabs(dot)));
}

TEST(BaseClasses, AnnotatedMethodOfDerivedClassWithThis) {
  Inputs in;
  double E = 0.35, dE = 0;
  Charged dthis{};
  double value = in.c.energy_grad(E, &dE, &dthis);
  EXPECT_DOUBLE_EQ(value, in.c.energy(E));
  Charged &c = in.c;
  EXPECT_NEAR(dE, c.q * c.x[0], 1e-15);
  EXPECT_NEAR(dthis.q, E * c.x[0], 1e-15);
  EXPECT_NEAR(dthis.x[0], c.q * E, 1e-15);
  EXPECT_NEAR(dthis.x[1], c.m * 9.81, 1e-15);
  EXPECT_NEAR(dthis.v, c.m * c.v, 1e-15);
  // m is inherited from Body through Particle.
  EXPECT_NEAR(dthis.m, 0.5 * c.v * c.v + 9.81 * c.x[1], 1e-15);
}

} // namespace
