// Methods, constructors and objects returned by value, written as a C++
// programmer writes a small vector class and a particle system: member
// functions (const and not, on locals, parameters, `this` and through `->`),
// private data behind accessors, constructors with member-initialiser
// lists, member and free operators, `operator+=` returning *this, functions
// returning a Vec3, temporaries such as (a - b).norm(), a method defined
// after the function that calls it, static methods, and a virtual call
// whose target is known (a final class). Each derivative is checked against
// finite differences and across modes (f_jvp by the dot-product test, f_hvp
// against differences of f_grad), also through fluxion-gen in the round
// trip.
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <type_traits>
#include <vector>

#include "numeric_check.hpp"

namespace methods {

struct Vec3 {
  double x, y, z;
  Vec3() = default;
  Vec3(double x, double y, double z) : x(x), y(y), z(z) {}
  Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
  Vec3 operator*(double s) const { return Vec3(x * s, y * s, z * s); }
  Vec3 &operator+=(const Vec3 &o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
  double norm() const { return std::sqrt(dot(*this)); }
};
Vec3 operator+(Vec3 a, const Vec3 &b) { return Vec3(a.x + b.x, a.y + b.y, a.z + b.z); }
Vec3 cross(const Vec3 &a, const Vec3 &b) {
  Vec3 r;
  r.x = a.y * b.z - a.z * b.y;
  r.y = a.z * b.x - a.x * b.z;
  r.z = a.x * b.y - a.y * b.x;
  return r;
}

// A chain of springs whose nodes are read from a flat array into Vec3
// objects: constructors, operators, temporaries, a free function returning
// a Vec3, an accumulator updated with += and with a = a + ...
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
springs(const double *p, int n, double k) {
  double e = 0;
  Vec3 acc(0, 0, 0);
  for (int i = 0; i + 1 < n; ++i) {
    Vec3 a(p[3 * i], p[3 * i + 1], p[3 * i + 2]);
    Vec3 b{p[3 * i + 3], p[3 * i + 4], p[3 * i + 5]};
    double l = (a - b).norm() - 1;
    e += 0.5 * k * l * l + cross(a, b).dot(a + b * 0.5);
    acc += cross(acc, a) * 0.1;
    acc = acc + b;
  }
  return e + acc.norm();
}

// A class with private state and accessors, methods that write the object,
// a method calling another through `this`, one defined after its first
// use, a static method, and calls through `->` and on parameters.
class Particle {
public:
  Particle(double x, double v, double m) : x_(x), v_(v), m_(m) {}
  double x() const { return x_; }
  double kinetic() const { return 0.5 * m_ * v_ * v_; }
  double energy(double g) const { return kinetic() + potential(g); }
  double potential(double g) const;
  void kick(double f, double dt) { v_ += f / m_ * dt; }
  void drift(double dt) { this->x_ = x_ + v_ * dt; }
  static double spring(double dx, double k) { return -k * dx; }

private:
  double x_, v_, m_;
  int steps_ = 0; // never differentiated
};

[[fluxion::grad]] [[fluxion::jvp]] double simulate(const double *x0, int n,
                                                   double k, double dt) {
  double e = 0;
  for (int i = 0; i < n; ++i) {
    Particle p(x0[i], 0.0, 1.0 + 0.5 * i);
    for (int s = 0; s < 3; ++s) {
      p.kick(Particle::spring(p.x(), k), dt);
      Particle *q = &p;
      q->drift(dt);
    }
    e += p.energy(9.81) * x0[(i + 1) % n];
  }
  return e;
}

double Particle::potential(double g) const { return m_ * g * std::sin(x_); }

// Objects as parameters: a method on a const reference, on an element of
// an array of objects, and a final class's override of a virtual method.
struct Shape {
  virtual double area(double s) const { return s * s; }
  virtual ~Shape() = default;
};
struct Hexagon final : Shape {
  double area(double s) const override { return 2.598076211353316 * s * s; }
};
[[fluxion::grad]] [[fluxion::jvp]] double
measure(const Vec3 &u, const Vec3 *vs, int n, const Hexagon &h) {
  double r = 0;
  for (int i = 0; i < n; ++i)
    r += h.area(vs[i].dot(u)) + (vs[i] - u).norm();
  return r;
}

// Annotated member functions (contract v2): the generated functions are
// members with the method's qualifiers; the object's members are
// differentiated when the annotation names "this", and S* d_this follows
// the parameters' adjoints.
class Chain {
public:
  Chain(double k, double rest) : k_(k), rest_(rest) {}
  [[fluxion::grad("x", "this")]] [[fluxion::jvp("x", "this")]] double
  energy(const double *x, int n) const {
    double e = 0;
    for (int i = 0; i + 1 < n; ++i) {
      double l = x[i + 1] - x[i] - rest_;
      e += 0.5 * k_ * l * l + damping(l);
    }
    return e;
  }
  // Parameters only: the object is a constant.
  [[fluxion::grad]] double stiffness(double s) const {
    return std::exp(s * k_) / rest_;
  }
  // Writes the object: in f_vjp, *d_this holds the seeds of its members on
  // entry and their adjoints on exit.
  [[fluxion::grad("dt", "this")]] [[fluxion::jvp("dt", "this")]] void
  relax(double dt) {
    k_ = k_ * std::exp(-dt * rest_);
    rest_ += dt * k_;
  }
  [[fluxion::grad]] static double scale(double a, double b) {
    return a * std::sin(b);
  }
  double k_, rest_;

private:
  double damping(double l) const { return 0.1 * k_ * l * l * l * l; }
};

// A conversion operator, called where the object is read as a number.
struct Length {
  double v;
  explicit Length(double x) : v(x) {}
  operator double() const { return 2 * v; }
};

[[fluxion::grad]] [[fluxion::jvp]] double converted(const double *x) {
  Length a(x[0]), b(x[1] * x[1]);
  double s = x[2];
  s += a;
  double t = b;
  return s * t + std::sin(a) + static_cast<double>(b) / a;
}

// Compound operators and setters that return their object, chained.
struct Pt {
  double x, y;
  Pt &operator+=(const Pt &o) {
    x += o.x;
    y += o.y;
    return *this;
  }
  Pt &operator*=(double s) {
    x *= s;
    y *= s;
    return *this;
  }
  Pt &stretch(double s) {
    x *= s;
    return *this;
  }
};

[[fluxion::grad]] [[fluxion::jvp]] double chained(const double *p) {
  Pt a{p[0], p[1]}, u{p[1] * p[1], p[0]};
  (a += u) *= p[2];
  double n = (a += u).x;
  a.stretch(p[2]).stretch(p[0]) += u;
  return a.x * a.y + n + std::sin(a.y);
}

} // namespace methods

using methods::Vec3;
using nt::ld;

TEST(Methods, OperatorsConstructorsAndObjectResults) {
  const int n = 4;
  std::vector<double> x = {0.3, -1.2, 0.7, 1.1,  0.4,  -0.9,
                           0.2, 0.5,  1.3, -0.6, 0.25, 0.8, 1.5};
  auto f = [&](const double *v) { return methods::springs(v, n, v[12]); };
  auto g = [&](const double *v, double *d) {
    return methods::springs_grad(v, n, v[12], d, d + 12);
  };
  std::vector<ld> grad = nt::check_gradient<double>(f, g, x);
  // f_jvp against the gradient (dot test).
  std::vector<double> t(13);
  for (int i = 0; i < 13; ++i)
    t[i] = 0.1 * i - 0.45;
  ld dot = 0;
  for (int i = 0; i < 13; ++i)
    dot += static_cast<ld>(t[i]) * grad[i];
  NT_EXPECT_CLOSE(methods::springs_jvp(x.data(), n, x[12], t.data(), t[12]),
                  dot, 1e-12L, 1e-13L);
  // f_hvp against central differences of f_grad.
  std::vector<double> hv(13, 0.0), hk(1, 0.0);
  methods::springs_hvp(x.data(), n, x[12], t.data(), t[12], hv.data(),
                       hk.data());
  hv[12] = hk[0];
  for (int i = 0; i < 13; ++i) {
    auto gi = [&](double s) {
      std::vector<double> y = x, d(13, 0.0);
      for (int j = 0; j < 13; ++j)
        y[j] += s * t[j];
      methods::springs_grad(y.data(), n, y[12], d.data(), d.data() + 12);
      return d[i];
    };
    NT_EXPECT_CLOSE(hv[i], nt::central_diff<double>(gi, 0.0), 1e-6L, 1e-7L);
  }
}

TEST(Methods, PrivateStateWrittenByMethods) {
  const int n = 3;
  std::vector<double> x = {0.4, -0.3, 0.9, 2.0, 0.05};
  auto f = [&](const double *v) { return methods::simulate(v, n, v[3], v[4]); };
  auto g = [&](const double *v, double *d) {
    return methods::simulate_grad(v, n, v[3], v[4], d, d + 3, d + 4);
  };
  std::vector<ld> grad = nt::check_gradient<double>(f, g, x);
  std::vector<double> t = {0.2, -0.1, 0.3, 0.5, -0.7};
  ld dot = 0;
  for (int i = 0; i < 5; ++i)
    dot += static_cast<ld>(t[i]) * grad[i];
  NT_EXPECT_CLOSE(
      methods::simulate_jvp(x.data(), n, x[3], x[4], t.data(), t[3], t[4]),
      dot, 1e-12L, 1e-13L);
}

TEST(Methods, ObjectParametersAndAFinalOverride) {
  Vec3 u(0.3, -0.8, 0.5), du(0, 0, 0);
  Vec3 vs[3] = {Vec3(1, 0.5, -0.2), Vec3(-0.4, 0.9, 0.1), Vec3(0.6, 0.2, 1.1)};
  Vec3 dvs[3] = {Vec3(0, 0, 0), Vec3(0, 0, 0), Vec3(0, 0, 0)};
  methods::Hexagon h;
  double r = methods::measure_grad(u, vs, 3, h, &du, dvs);
  // The same value, up to how the optimiser schedules the primal's sums.
  NT_EXPECT_CLOSE(r, methods::measure(u, vs, 3, h), 1e-15L, 0);
  auto member = [](Vec3 &v, int k) -> double & {
    return k == 0 ? v.x : k == 1 ? v.y : v.z;
  };
  for (int k = 0; k < 3; ++k) {
    double saved = member(u, k);
    ld fd = nt::central_diff<double>(
        [&](double s) {
          member(u, k) = s;
          double e = methods::measure(u, vs, 3, h);
          member(u, k) = saved;
          return e;
        },
        saved);
    NT_EXPECT_CLOSE(member(du, k), fd, 1e-6L, 1e-8L);
    for (int i = 0; i < 3; ++i) {
      double s0 = member(vs[i], k);
      ld fdv = nt::central_diff<double>(
          [&](double s) {
            member(vs[i], k) = s;
            double e = methods::measure(u, vs, 3, h);
            member(vs[i], k) = s0;
            return e;
          },
          s0);
      NT_EXPECT_CLOSE(member(dvs[i], k), fdv, 1e-6L, 1e-8L);
    }
  }
  // Tangents of objects are const S*.
  Vec3 tu(0.1, 0.2, 0.3);
  Vec3 tv[3] = {Vec3(-0.2, 0.1, 0.4), Vec3(0.5, -0.3, 0.2), Vec3(0.1, 0.1, -0.6)};
  ld dot = tu.x * du.x + tu.y * du.y + tu.z * du.z;
  for (int i = 0; i < 3; ++i)
    dot += tv[i].x * dvs[i].x + tv[i].y * dvs[i].y + tv[i].z * dvs[i].z;
  NT_EXPECT_CLOSE(methods::measure_jvp(u, vs, 3, h, &tu, tv), dot, 1e-12L,
                  1e-13L);
}

TEST(Methods, AnnotatedMemberFunctions) {
  using methods::Chain;
  EXPECT_TRUE((std::is_same_v<decltype(&Chain::energy_grad),
                              double (Chain::*)(const double *, int, double *,
                                                Chain *) const>));
  EXPECT_TRUE((std::is_same_v<decltype(&Chain::relax_vjp),
                              void (Chain::*)(double, double *, Chain *)>));
  EXPECT_TRUE((std::is_same_v<decltype(&Chain::scale_grad),
                              double (*)(double, double, double *, double *)>));
  // energy: against central differences in x, k and rest.
  std::vector<double> v = {0.1, 0.9, 1.4, 2.6, 2.0, 0.7}; // x[0..3], k, rest
  auto f = [](const double *p) { return Chain(p[4], p[5]).energy(p, 4); };
  auto g = [](const double *p, double *d) {
    Chain dc(0, 0);
    double r = Chain(p[4], p[5]).energy_grad(p, 4, d, &dc);
    d[4] += dc.k_;
    d[5] += dc.rest_;
    return r;
  };
  std::vector<ld> grad = nt::check_gradient<double>(f, g, v);
  // f_jvp (const S* t_this after the parameters' tangents) by the dot test.
  double tx[4] = {0.3, -0.2, 0.5, 0.1};
  Chain tc(0.4, -0.6);
  ld dot = tc.k_ * grad[4] + tc.rest_ * grad[5];
  for (int i = 0; i < 4; ++i)
    dot += tx[i] * grad[i];
  NT_EXPECT_CLOSE(Chain(v[4], v[5]).energy_jvp(v.data(), 4, tx, &tc), dot,
                  1e-12L, 1e-14L);
  // stiffness: the closed form.
  Chain c(2.0, 0.7);
  double ds = 0;
  double st = c.stiffness_grad(0.3, &ds);
  NT_EXPECT_CLOSE(st, std::exp(0.6) / 0.7, 1e-15L, 0);
  NT_EXPECT_CLOSE(ds, 2.0 * std::exp(0.6) / 0.7, 1e-14L, 0);
  // relax: the pullback of seeds on both members, against differences of
  // <seed, object after relax>.
  const double dt = 0.2, wk = 0.6, wr = -1.3;
  auto after = [&](double k, double rest, double h) {
    Chain o(k, rest);
    o.relax(h);
    return wk * o.k_ + wr * o.rest_;
  };
  Chain o(2.0, 0.7);
  Chain seed(wk, wr);
  double ddt = 0;
  o.relax_vjp(dt, &ddt, &seed);
  // An in-place update: f_vjp restores the object (as for pointer outputs).
  EXPECT_EQ(o.k_, 2.0);
  EXPECT_EQ(o.rest_, 0.7);
  NT_EXPECT_CLOSE(seed.k_,
                  nt::central_diff<double>(
                      [&](double k) { return after(k, 0.7, dt); }, 2.0),
                  1e-7L, 1e-9L);
  NT_EXPECT_CLOSE(seed.rest_,
                  nt::central_diff<double>(
                      [&](double r) { return after(2.0, r, dt); }, 0.7),
                  1e-7L, 1e-9L);
  NT_EXPECT_CLOSE(ddt,
                  nt::central_diff<double>(
                      [&](double h) { return after(2.0, 0.7, h); }, dt),
                  1e-7L, 1e-9L);
  // relax_jvp: the object's tangent is in/out (S* t_this); dot test
  // against the pullback above.
  Chain o2(2.0, 0.7), t(0.25, 0.5);
  o2.relax_jvp(dt, 0.3, &t);
  NT_EXPECT_CLOSE(wk * t.k_ + wr * t.rest_,
                  seed.k_ * 0.25 + seed.rest_ * 0.5 + ddt * 0.3, 1e-13L,
                  1e-15L);
  double da = 0, db = 0;
  NT_EXPECT_CLOSE(Chain::scale_grad(1.5, 0.4, &da, &db), 1.5 * std::sin(0.4),
                  1e-15L, 0);
  NT_EXPECT_CLOSE(da, std::sin(0.4), 1e-15L, 0);
  NT_EXPECT_CLOSE(db, 1.5 * std::cos(0.4), 1e-15L, 0);
}

TEST(Methods, ConversionOperators) {
  std::vector<double> x = {0.6, -1.3, 0.4};
  auto f = [](const double *v) { return methods::converted(v); };
  auto g = [](const double *v, double *d) {
    return methods::converted_grad(v, d);
  };
  std::vector<ld> grad = nt::check_gradient<double>(f, g, x);
  std::vector<double> t = {0.3, -0.2, 0.7};
  ld dot = 0;
  for (int i = 0; i < 3; ++i)
    dot += static_cast<ld>(t[i]) * grad[i];
  NT_EXPECT_CLOSE(methods::converted_jvp(x.data(), t.data()), dot, 1e-12L,
                  1e-13L);
}

TEST(Methods, ChainedCompoundOperators) {
  std::vector<double> x = {0.7, -1.2, 1.3};
  auto f = [](const double *v) { return methods::chained(v); };
  auto g = [](const double *v, double *d) {
    return methods::chained_grad(v, d);
  };
  std::vector<ld> grad = nt::check_gradient<double>(f, g, x);
  std::vector<double> t = {0.3, -0.2, 0.5};
  ld dot = 0;
  for (int i = 0; i < 3; ++i)
    dot += static_cast<ld>(t[i]) * grad[i];
  NT_EXPECT_CLOSE(methods::chained_jvp(x.data(), t.data()), dot, 1e-12L,
                  1e-13L);
}
