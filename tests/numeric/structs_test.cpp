// Structs of reals (contract v2, "C++ types"): objects reached through
// pointers and references (`const S*`, `S*`, `const S&`, `S&`), arrays of
// them, nested structs and array members, read and written with `.` and
// `->`, in annotated functions and in callees. The adjoint of an S is an S:
// its floating members accumulate, its integer members are never touched.
// Every derivative is checked against finite differences of the primal and,
// across modes, by the dot-product test.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <array>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "numeric_check.hpp"

namespace structs {

struct Vec3 {
  double x, y, z;
};
struct Particle {
  Vec3 pos;
  double m;
  int id; // never differentiated
};

double dist(const Vec3 &a, const Vec3 &b) {
  double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

// Gravitational potential energy of n particles: an array of structs read
// through `.` and passed member-wise to a callee by const reference.
[[fluxion::grad]] [[fluxion::jvp]] double energy(const Particle *ps, int n) {
  double e = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      e -= ps[i].m * ps[j].m / dist(ps[i].pos, ps[j].pos);
  return e;
}

// A const S& input next to a scalar.
[[fluxion::grad]] [[fluxion::jvp]] double kinetic(const Particle &p,
                                                  double vx) {
  return 0.5 * p.m * vx * vx + p.pos.x * p.pos.y;
}

// Moves particles in place through `->` and `.`: every member is an input
// and an output.
void drift(Particle *p, double dt) {
  p->pos.x += dt * p->pos.y * p->m;
  p->pos.y = std::sin(p->pos.y) + dt * p->pos.z;
}
[[fluxion::grad]] [[fluxion::jvp]] void step(Particle *ps, int n, double dt) {
  for (int i = 0; i < n; ++i)
    drift(&ps[i], dt);
  for (int i = 0; i + 1 < n; ++i)
    ps[i].m *= ps[i + 1].pos.x;
}

// An in/out S&.
[[fluxion::grad]] [[fluxion::jvp]] void scale(Vec3 &v, const double &k) {
  v.x *= k;
  v.y = v.y * v.x + k;
  v.z = std::exp(v.z) * k;
}

// Array members: a layer of a small network.
struct Layer {
  double w[2][3];
  double b[2];
};
[[fluxion::grad]] [[fluxion::jvp]] double mlp(const Layer &l, const double *x,
                                              const Layer *out) {
  double h[2];
  for (int i = 0; i < 2; ++i) {
    double s = l.b[i];
    for (int j = 0; j < 3; ++j)
      s += l.w[i][j] * x[j];
    h[i] = std::tanh(s);
  }
  return out->w[0][0] * h[0] + out->w[0][1] * h[1] + out->b[0];
}

// Struct locals: aggregate initialisation (missing members zeroed), value
// initialisation, copies from array elements and members, whole-object
// assignment, a local passed to callees by reference (in and out), and
// locals overwritten in a loop (their members are recorded like scalars).
void sub(const Vec3 &a, const Vec3 &b, Vec3 &out) {
  out.x = a.x - b.x;
  out.y = a.y - b.y;
  out.z = a.z - b.z;
}
double dot(const Vec3 &a, const Vec3 &b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
[[fluxion::grad]] [[fluxion::jvp]] double locals(const Particle *ps, int n,
                                                 double k) {
  double e = 0;
  Vec3 acc{};
  for (int i = 0; i + 1 < n; ++i) {
    Vec3 d;
    sub(ps[i + 1].pos, ps[i].pos, d);
    Particle q = ps[i]; // a copy, int member included
    Vec3 w = {d.x * k, d.y, q.m * d.z};
    w.y += std::sin(q.pos.z);
    q = ps[i + 1];
    acc.x += w.x * q.m;
    acc.y = acc.y * 0.5 + w.y;
    e += dot(d, w) / (1 + dot(d, d)) + q.pos.x * k;
  }
  Vec3 last = acc;
  Vec3 part = {last.x}; // y and z zeroed
  return e + dot(last, acc) + dot(part, last);
}

// Objects passed by value, to the annotated function and to a callee: read
// in place; the adjoint is an S*, the tangent a const S*.
double norm2(Vec3 v) { return v.x * v.x + v.y * v.y + v.z * v.z; }
[[fluxion::grad]] [[fluxion::jvp]] double byValue(Vec3 a, const Vec3 *b,
                                                  double s) {
  return norm2(a) * s + norm2(b[0]) * a.x + std::cos(a.z * b[0].y);
}

// An object taken by value and changed: the function's own copy.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
changedCopy(Vec3 v, double k) {
  v.x *= k;
  v.y += v.x * v.z;
  v = {v.y, v.z, v.x};
  return norm2(v) + std::sin(v.x);
}

// An element of an array member of a const object passed to a callee's
// const T&: its adjoint is a pointer into the adjoint object, which the
// forward-over-reverse sweep of f_hvp must see as written.
struct Poly {
  double c0;
  long double a[3];
};
long double cubeSin(const long double &x) { return x * x * std::sin(x); }
[[fluxion::grad]] [[fluxion::hessian]] long double
polyTerm(const Poly &p, long double x) {
  return cubeSin(p.a[1]) * x * p.a[2] + p.c0 * cubeSin(p.a[0]);
}

// A callee that copies its object into a local: the callee's forward
// function hands the copy to its backward function, tangents included
// (f_hvp missed the copy's half before; fuzz seed 464).
double copiedExp(const Poly &q) {
  Poly c = q;
  return std::exp(static_cast<double>(q.a[0] * c.a[0]) + q.c0 * c.c0);
}
[[fluxion::hessian]] double copyInCallee(const Poly &p) { return copiedExp(p); }

// float and long double objects: a method in the loop, a reference into
// an array of objects, a copy.
struct BodyF {
  float x, v, m;
  int tag;
  float kinetic() const { return 0.5f * m * v * v; }
};
struct BodyL {
  long double x, v, m;
  int tag;
  long double kinetic() const { return 0.5L * m * v * v; }
};
[[fluxion::grad]] [[fluxion::jvp]] float energyF(const BodyF *b, int n,
                                                 float g) {
  float e = 0;
  for (int i = 0; i < n; ++i) {
    const BodyF &me = b[i];
    BodyF next = b[(i + 1) % n];
    e += me.kinetic() + me.m * g * std::sin(me.x) * next.v;
  }
  return e;
}
[[fluxion::grad]] [[fluxion::jvp]] long double
energyL(const BodyL *b, int n, long double g) {
  long double e = 0;
  for (int i = 0; i < n; ++i) {
    const BodyL &me = b[i];
    BodyL next = b[(i + 1) % n];
    e += me.kinetic() + me.m * g * std::sin(me.x) * next.v;
  }
  return e;
}

// A local array of objects initialised from a braced list of objects
// (fuzz seed 296: the copies' members lost their derivatives), by value
// and by reference, read by index and by range-for.
struct Sample {
  double m;
  double a[2];
};
[[fluxion::grad]] [[fluxion::jvp]] double braced_objects(Sample s,
                                                         const Sample &t) {
  Sample ps[3] = {s, t, {s.m * t.m, {t.a[0], 1.5}}};
  double acc = 0;
  for (int i = 0; i < 3; ++i)
    acc += ps[i].m * ps[i].a[0];
  for (const Sample &p : ps)
    acc += p.m * p.m + p.a[1];
  return acc;
}

// Assigning a braced object that reads the one it replaces: the new
// object is built whole first (`v = {v.y, v.x, ...}` exchanges), into a
// local, an element of a local array, a member and an output.
[[fluxion::grad]] [[fluxion::jvp]] double rotated(Vec3 &out, const Vec3 &a,
                                                  double k) {
  Vec3 v = a;
  v = {v.y, v.x * k, v.z + v.x};
  Particle ps[2] = {{a, 1.0, 0}, {v, k, 1}};
  ps[1].pos = {ps[1].pos.z, ps[0].pos.y, ps[1].pos.x * ps[1].m};
  ps[0] = {{ps[0].pos.y, ps[1].pos.x, k}, ps[0].m * ps[1].m, 2};
  out = {out.y * k, out.x, out.z * out.x};
  return v.x * v.y + v.z + ps[1].pos.x * ps[1].pos.z + ps[0].pos.x * ps[0].m;
}

// Structured bindings: of an object returned by a callee (a copy), by
// reference to a local (writes through the names), const, of an array (a
// copy), of a std::pair returned by `return {a, b};`, of a std::array by
// reference.
static Vec3 spherical(double x, double y, double z) {
  double r = std::sqrt(x * x + y * y + z * z);
  return {r, std::acos(z / r), std::atan2(y, x)};
}
static std::pair<double, double> polar(double x, double y) {
  return {std::sqrt(x * x + y * y), std::atan2(y, x)};
}
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
bound(const Vec3 &a, double k) {
  auto [r, theta, phi] = spherical(a.x, a.y, a.z);
  Vec3 v = a;
  auto &[vx, vy, vz] = v;
  vx *= r;
  vz += theta * k;
  const auto [cx, cy, cz] = v;
  double arr[2] = {vy, phi};
  auto [a0, a1] = arr;
  auto [rho, psi] = polar(vx, k);
  std::array<double, 2> q = {rho * a0, psi};
  auto &[q0, q1] = q;
  q1 = q0 * a1 + q1;
  return cx * cy + cz + v.x * a0 + q[1] * rho + psi;
}

// std::make_pair of temporaries (its parameters are T&&), in a declaration,
// an assignment and a callee's return; std::swap of two objects with an
// integer, an array member, and of elements of a vector of them.
struct Tagged {
  double w;
  int tag;
  double v[2];
};
inline std::pair<double, double> scaled(double a, double b) {
  return std::make_pair(a * b, std::sin(b));
}
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
paired_swapped(double x, double y) {
  auto p = std::make_pair(x * 2, y * y);
  std::pair<double, double> q(1.0, 2.0);
  q = std::make_pair(p.second + x, 3.0);
  auto r = scaled(q.first, y);
  Tagged a{x, 1, {y, x * y}}, b{y * y, 2, {x, 0.5}};
  std::swap(a, b);
  std::vector<Tagged> ts = {a, b, a};
  for (int k = 0; k < 2; ++k) {
    std::swap(ts[k], ts[k + 1]);
    ts[k].w *= ts[k + 1].v[1] + ts[k].tag;
  }
  return p.first * q.first + r.first * r.second + a.w * a.tag + b.v[1] +
         ts[0].w * ts[2].v[0] + ts[1].w;
}

} // namespace structs

using nt::ld;
using structs::Layer;
using structs::Particle;
using structs::Vec3;

namespace {
// The reals of a Particle, in a fixed order (the int member excluded).
double *reals(Particle &p, int k) {
  double *r[4] = {&p.pos.x, &p.pos.y, &p.pos.z, &p.m};
  return r[k];
}
double *reals(Layer &l, int k) { return k < 6 ? &l.w[k / 3][k % 3] : &l.b[k - 6]; }

Particle particle(double x, double y, double z, double m, int id) {
  Particle p;
  p.pos = {x, y, z};
  p.m = m;
  p.id = id;
  return p;
}
} // namespace

TEST(Structs, BracedObjectReadingWhatItReplaces) {
  structs::Vec3 a = {0.4, -1.2, 0.9}, out = {0.3, 0.8, -0.5};
  auto R = fluxion::check_vjp(structs::rotated, structs::rotated_vjp, out, a,
                              0.7);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(structs::rotated, structs::rotated_jvp, out, a,
                              0.7);
  EXPECT_TRUE(J.ok()) << J;
  // The value, against the same code compiled plainly.
  structs::Vec3 o = out, d_o = {}, d_a = {};
  double d_k = 0;
  double r = structs::rotated_vjp(o, a, 0.7, 1.0, &d_o, &d_a, &d_k);
  structs::Vec3 o2 = out;
  EXPECT_DOUBLE_EQ(r, structs::rotated(o2, a, 0.7));
  // d r / d k through v.y = a.x k and ps[1].m = k.
  EXPECT_NE(d_k, 0.0);
}

TEST(Structs, ChangedCopyOfAParameter) {
  structs::Vec3 v = {0.4, -1.2, 0.9};
  auto R = fluxion::check_gradient(structs::changedCopy,
                                   structs::changedCopy_grad, v, 1.3);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(structs::changedCopy, structs::changedCopy_jvp, v,
                              1.3);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(structs::changedCopy, structs::changedCopy_hvp,
                              v, 1.3);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Structs, StructuredBindings) {
  structs::Vec3 a = {0.4, -1.2, 0.9};
  auto R = fluxion::check_gradient(structs::bound, structs::bound_grad, a, 0.7);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(structs::bound, structs::bound_jvp, a, 0.7);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(structs::bound, structs::bound_hvp, a, 0.7);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Structs, PairsMadeAndObjectsSwapped) {
  for (auto [x, y] : {std::pair{0.4, -1.2}, std::pair{1.3, 0.7}}) {
    auto R = fluxion::check_gradient(structs::paired_swapped,
                                     structs::paired_swapped_grad, x, y);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(structs::paired_swapped,
                                structs::paired_swapped_jvp, x, y);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(structs::paired_swapped,
                                structs::paired_swapped_hvp, x, y);
    EXPECT_TRUE(H.ok()) << H;
  }
}

TEST(Structs, BracedArrayOfObjects) {
  structs::Sample s = {0.5, {1.0, 2.0}}, t = {-0.3, {0.7, -1.1}};
  auto R = fluxion::check_gradient(structs::braced_objects,
                                   structs::braced_objects_grad, s, t);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(structs::braced_objects,
                              structs::braced_objects_jvp, s, t);
  EXPECT_TRUE(J.ok()) << J;
  structs::Sample ds = {}, dt = {};
  structs::braced_objects_grad(s, t, &ds, &dt);
  // d/ds.m: a[0] of ps[0] + t.m * t.a[0] (ps[2].m) + 2 s.m + 2 (s.m t.m) t.m
  EXPECT_NEAR(ds.m, 1.0 + t.m * t.a[0] + 2 * s.m + 2 * s.m * t.m * t.m,
              1e-14);
}

TEST(Structs, GeneratedSignatures) {
  // The adjoint of an S is an S; a const S& input's tangent is a const S*.
  EXPECT_TRUE((std::is_same_v<decltype(&structs::energy_grad),
                              double (*)(const Particle *, int, Particle *)>));
  EXPECT_TRUE((std::is_same_v<decltype(&structs::kinetic_grad),
                              double (*)(const Particle &, double, Particle *,
                                         double *)>));
  EXPECT_TRUE((std::is_same_v<decltype(&structs::scale_vjp),
                              void (*)(Vec3 &, const double &, Vec3 *,
                                       double *)>));
}

TEST(Structs, ArrayOfStructsAgainstFiniteDifferences) {
  Particle ps[4] = {particle(0, 0, 0, 1, 7), particle(1, 0.5, 0, 2, 8),
                    particle(0, 1.5, 1, 0.5, 9), particle(-1, 0.25, 2, 1.5, 10)};
  Particle d[4] = {};
  double e = structs::energy_grad(ps, 4, d);
  EXPECT_EQ(e, structs::energy(ps, 4));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d[i].id, 0) << "integer members are left alone";
    for (int k = 0; k < 4; ++k) {
      double *v = reals(ps[i], k);
      double saved = *v;
      ld fd = nt::central_diff<double>(
          [&](double t) {
            *v = t;
            double r = structs::energy(ps, 4);
            *v = saved;
            return r;
          },
          saved);
      NT_EXPECT_CLOSE(*reals(d[i], k), fd, 1e-6L, 1e-8L);
    }
  }
  // Forward mode along a direction, against the gradient (dot test).
  Particle t[4];
  for (int i = 0; i < 4; ++i)
    t[i] = particle(0.1 * i, -0.2, 0.3 * i, 0.05 * i - 0.1, 0);
  ld dot = 0;
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 4; ++k)
      dot += static_cast<ld>(*reals(t[i], k)) * *reals(d[i], k);
  NT_EXPECT_CLOSE(structs::energy_jvp(ps, 4, t), dot, 1e-12L, 1e-14L);
}

TEST(Structs, ConstReferenceInput) {
  Particle p = particle(0.7, -1.2, 3, 2.5, 1);
  Particle dp{};
  double dvx = 0;
  structs::kinetic_grad(p, 1.5, &dp, &dvx);
  NT_EXPECT_CLOSE(dp.m, 0.5 * 1.5 * 1.5, 1e-14L, 0);
  NT_EXPECT_CLOSE(dp.pos.x, -1.2, 1e-14L, 0);
  NT_EXPECT_CLOSE(dp.pos.y, 0.7, 1e-14L, 0);
  EXPECT_EQ(dp.pos.z, 0.0);
  NT_EXPECT_CLOSE(dvx, 2.5 * 1.5, 1e-14L, 0);
  Particle tp = particle(0.5, 1, 2, -1, 0);
  NT_EXPECT_CLOSE(structs::kinetic_jvp(p, 1.5, &tp, 0.25),
                  0.5 * dp.pos.x + 1 * dp.pos.y - 1 * dp.m + 0.25 * dvx, 1e-14L,
                  1e-15L);
}

// step's map from the 4n reals of ps and dt to the 4n reals of ps: the
// pullback of a seed against finite differences and against f_jvp.
TEST(Structs, WrittenThroughPointersAgainstFiniteDifferences) {
  const int n = 3;
  Particle base[n] = {particle(0.3, 0.5, -0.2, 1.5, 1),
                      particle(-0.4, 1.1, 0.6, 0.8, 2),
                      particle(0.9, -0.7, 0.1, 1.2, 3)};
  const double dt = 0.1;
  Particle seed[n];
  for (int i = 0; i < n; ++i)
    seed[i] = particle(0.3 - i, 0.7, -0.5 + i, 0.2 * i + 0.1, 0);
  auto weighted = [&](Particle *ps, double h) { // <seed, step(ps, h)>
    structs::step(ps, n, h);
    ld s = 0;
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 4; ++k)
        s += static_cast<ld>(*reals(seed[i], k)) * *reals(ps[i], k);
    return s;
  };
  Particle ps[n], d[n];
  for (int i = 0; i < n; ++i) {
    ps[i] = base[i];
    d[i] = seed[i];
    d[i].id = 0;
  }
  double ddt = 0;
  structs::step_vjp(ps, n, dt, d, &ddt);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 4; ++k) {
      ld fd = nt::central_diff<double>(
          [&](double v) {
            Particle c[n];
            for (int j = 0; j < n; ++j)
              c[j] = base[j];
            *reals(c[i], k) = v;
            return weighted(c, dt);
          },
          *reals(base[i], k));
      NT_EXPECT_CLOSE(*reals(d[i], k), fd, 1e-6L, 1e-8L);
    }
  }
  ld fdt = nt::central_diff<double>(
      [&](double h) {
        Particle c[n];
        for (int j = 0; j < n; ++j)
          c[j] = base[j];
        return weighted(c, h);
      },
      dt);
  NT_EXPECT_CLOSE(ddt, fdt, 1e-6L, 1e-8L);
  // Dot test: <seed, J v> == <J^T seed, v>.
  Particle v[n], t[n];
  for (int i = 0; i < n; ++i) {
    ps[i] = base[i];
    v[i] = particle(0.2, -0.1 * i, 0.4, 0.3 - 0.1 * i, 0);
    t[i] = v[i];
  }
  structs::step_jvp(ps, n, dt, t, 0.5);
  ld lhs = 0, rhs = 0.5L * ddt;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 4; ++k) {
      lhs += static_cast<ld>(*reals(seed[i], k)) * *reals(t[i], k);
      rhs += static_cast<ld>(*reals(v[i], k)) * *reals(d[i], k);
    }
  NT_EXPECT_CLOSE(lhs, rhs, 1e-12L, 1e-14L);
}

TEST(Structs, InOutReference) {
  const Vec3 v0 = {0.8, -0.3, 0.4};
  const double k = 1.7;
  Vec3 v = v0, d = {0.5, -1.0, 2.0};
  double dk = 0;
  structs::scale_vjp(v, k, &d, &dk);
  // v' = (k x, y k x + k, e^z k): J^T (0.5, -1, 2).
  const double x = v0.x, y = v0.y, z = v0.z;
  NT_EXPECT_CLOSE(d.x, 0.5 * k - 1.0 * y * k, 1e-14L, 1e-15L);
  NT_EXPECT_CLOSE(d.y, -1.0 * k * x, 1e-14L, 1e-15L);
  NT_EXPECT_CLOSE(d.z, 2.0 * std::exp(z) * k, 1e-14L, 1e-15L);
  NT_EXPECT_CLOSE(dk, 0.5 * x - 1.0 * (y * x + 1) + 2.0 * std::exp(z), 1e-14L,
                  1e-15L);
  Vec3 w = v0, tw = {0.1, 0.2, 0.3};
  structs::scale_jvp(w, k, &tw, -0.5);
  NT_EXPECT_CLOSE(tw.x, 0.1 * k - 0.5 * x, 1e-14L, 1e-15L);
  NT_EXPECT_CLOSE(w.x, k * x, 1e-15L, 0);
}

TEST(Structs, LocalsAndCopies) {
  Particle ps[4] = {particle(0.3, 0.5, -0.2, 1.5, 1),
                    particle(-0.4, 1.1, 0.6, 0.8, 2),
                    particle(0.9, -0.7, 0.1, 1.2, 3),
                    particle(0.2, 0.4, -0.9, 0.6, 4)};
  const double k = 0.7;
  Particle d[4] = {};
  double dk = 0;
  double e = structs::locals_grad(ps, 4, k, d, &dk);
  EXPECT_EQ(e, structs::locals(ps, 4, k));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d[i].id, 0);
    for (int c = 0; c < 4; ++c) {
      double *v = reals(ps[i], c);
      double saved = *v;
      ld fd = nt::central_diff<double>(
          [&](double t) {
            *v = t;
            double r = structs::locals(ps, 4, k);
            *v = saved;
            return r;
          },
          saved);
      NT_EXPECT_CLOSE(*reals(d[i], c), fd, 1e-6L, 1e-8L);
    }
  }
  ld fdk = nt::central_diff<double>(
      [&](double t) { return structs::locals(ps, 4, t); }, k);
  NT_EXPECT_CLOSE(dk, fdk, 1e-6L, 1e-8L);
  Particle t[4];
  ld dot = 0.3L * dk;
  for (int i = 0; i < 4; ++i) {
    t[i] = particle(0.1 * i, -0.2, 0.05 * i, 0.3 - 0.1 * i, 0);
    for (int c = 0; c < 4; ++c)
      dot += static_cast<ld>(*reals(t[i], c)) * *reals(d[i], c);
  }
  NT_EXPECT_CLOSE(structs::locals_jvp(ps, 4, k, t, 0.3), dot, 1e-12L, 1e-14L);
}

TEST(Structs, ObjectsByValue) {
  EXPECT_TRUE((std::is_same_v<decltype(&structs::byValue_grad),
                              double (*)(Vec3, const Vec3 *, double, Vec3 *,
                                         Vec3 *, double *)>));
  EXPECT_TRUE((std::is_same_v<decltype(&structs::byValue_jvp),
                              double (*)(Vec3, const Vec3 *, double,
                                         const Vec3 *, const Vec3 *, double)>));
  const Vec3 a = {0.4, -1.1, 0.7}, b = {1.3, 0.2, -0.5};
  const double s = 1.9;
  Vec3 da{}, db{};
  double ds = 0;
  structs::byValue_grad(a, &b, s, &da, &db, &ds);
  const double nb = b.x * b.x + b.y * b.y + b.z * b.z;
  const double sn = std::sin(a.z * b.y);
  NT_EXPECT_CLOSE(da.x, 2 * a.x * s + nb, 1e-14L, 1e-15L);
  NT_EXPECT_CLOSE(da.y, 2 * a.y * s, 1e-14L, 1e-15L);
  NT_EXPECT_CLOSE(da.z, 2 * a.z * s - sn * b.y, 1e-14L, 1e-15L);
  NT_EXPECT_CLOSE(db.x, 2 * b.x * a.x, 1e-14L, 1e-15L);
  NT_EXPECT_CLOSE(db.y, 2 * b.y * a.x - sn * a.z, 1e-14L, 1e-15L);
  NT_EXPECT_CLOSE(db.z, 2 * b.z * a.x, 1e-14L, 1e-15L);
  NT_EXPECT_CLOSE(ds, a.x * a.x + a.y * a.y + a.z * a.z, 1e-14L, 1e-15L);
  const Vec3 ta = {0.1, 0.2, -0.3}, tb = {-0.2, 0.5, 0.4};
  ld dot = 0.1L * da.x + 0.2L * da.y - 0.3L * da.z - 0.2L * db.x +
           0.5L * db.y + 0.4L * db.z + 0.6L * ds;
  NT_EXPECT_CLOSE(structs::byValue_jvp(a, &b, s, &ta, &tb, 0.6), dot, 1e-13L,
                  1e-14L);
}

TEST(Structs, ArrayMembers) {
  Layer l, out;
  for (int k = 0; k < 8; ++k) {
    *reals(l, k) = 0.3 * std::sin(1.0 + k);
    *reals(out, k) = 0.5 * std::cos(2.0 + k);
  }
  const double x[3] = {0.5, -1.0, 2.0};
  Layer dl{}, dout{};
  double dx[3] = {0, 0, 0};
  structs::mlp_grad(l, x, &out, &dl, dx, &dout);
  for (int k = 0; k < 8; ++k) {
    for (Layer *which : {&l, &out}) {
      double *v = reals(*which, k);
      double saved = *v;
      ld fd = nt::central_diff<double>(
          [&](double t) {
            *v = t;
            double r = structs::mlp(l, x, &out);
            *v = saved;
            return r;
          },
          saved);
      NT_EXPECT_CLOSE(*reals(which == &l ? dl : dout, k), fd, 1e-6L, 1e-8L);
    }
  }
  Layer tl, tout;
  double tx[3] = {0.1, 0.2, -0.3};
  ld dot = 0.1L * dx[0] + 0.2L * dx[1] - 0.3L * dx[2];
  for (int k = 0; k < 8; ++k) {
    *reals(tl, k) = 0.1 * k - 0.3;
    *reals(tout, k) = 0.05 * k;
    dot += static_cast<ld>(*reals(tl, k)) * *reals(dl, k) +
           static_cast<ld>(*reals(tout, k)) * *reals(dout, k);
  }
  NT_EXPECT_CLOSE(structs::mlp_jvp(l, x, &out, &tl, tx, &tout), dot, 1e-12L,
                  1e-14L);
}

TEST(Structs, HvpThroughAnArrayMemberOfAConstObject) {
  structs::Poly p{0.7, {0.3L, -1.1L, 0.8L}}, v{0.2, {0.5L, -0.3L, 0.7L}};
  long double x = 0.9L, vx = -0.4L;
  structs::Poly hv{};
  long double hx = 0;
  structs::polyTerm_hvp(p, x, &v, vx, &hv, &hx);
  // Central differences of the gradient along (v, vx).
  auto grad = [&](long double t, structs::Poly &g, long double &gx) {
    structs::Poly q = p;
    q.c0 += static_cast<double>(t) * v.c0;
    for (int i = 0; i < 3; ++i)
      q.a[i] += t * v.a[i];
    g = structs::Poly{};
    gx = 0;
    structs::polyTerm_grad(q, x + t * vx, &g, &gx);
  };
  const long double h = 1e-6L;
  structs::Poly gp, gm;
  long double gxp, gxm;
  grad(h, gp, gxp);
  grad(-h, gm, gxm);
  NT_EXPECT_CLOSE(hx, (gxp - gxm) / (2 * h), 1e-7L, 1e-9L);
  NT_EXPECT_CLOSE(hv.c0, (gp.c0 - gm.c0) / (2 * h), 1e-7L, 1e-9L);
  for (int i = 0; i < 3; ++i)
    NT_EXPECT_CLOSE(hv.a[i], (gp.a[i] - gm.a[i]) / (2 * h), 1e-7L, 1e-9L);
  EXPECT_NE(hv.a[1], 0.0L);
}

TEST(Structs, HvpThroughACopyInACallee) {
  structs::Poly p{0.4, {0.5L, 0, 0}}, v{1.0, {0.5L, 0, 0}}, hv{};
  structs::copyInCallee_hvp(p, &v, &hv);
  // f = exp(a^2 + c^2): H v = f (4 [a c] [a c]^T v + 2 v).
  double a = 0.5, c = 0.4, f = std::exp(a * a + c * c);
  double va = 0.5, vc = 1.0, dotv = a * va + c * vc;
  NT_EXPECT_CLOSE(hv.a[0], f * (4 * a * dotv + 2 * va), 1e-12L, 0);
  NT_EXPECT_CLOSE(hv.c0, f * (4 * c * dotv + 2 * vc), 1e-12L, 0);
}

namespace {
// energyF / energyL over the flattened reals (x, v, m of each body, then g),
// against finite differences, and f_jvp against the gradient.
template <class T, class Body, class F, class G, class J>
void checkBodies(F primal, G grad, J jvp) {
  const int n = 3;
  std::vector<T> x = {T(0.3),  T(1.1), T(2.0), T(-0.7), T(0.4),
                      T(1.5),  T(1.2), T(-0.9), T(0.8), T(9.81)};
  auto unpack = [&](const T *v, Body *b) {
    for (int i = 0; i < n; ++i)
      b[i] = Body{v[3 * i], v[3 * i + 1], v[3 * i + 2], 40 + i};
  };
  auto f = [&](const T *v) {
    Body b[n];
    unpack(v, b);
    return primal(b, n, v[9]);
  };
  auto g = [&](const T *v, T *d) {
    Body b[n], db[n] = {};
    unpack(v, b);
    T dg = 0;
    T r = grad(b, n, v[9], db, &dg);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(db[i].tag, 0) << "integer members are left alone";
      d[3 * i] += db[i].x;
      d[3 * i + 1] += db[i].v;
      d[3 * i + 2] += db[i].m;
    }
    d[9] += dg;
    return r;
  };
  std::vector<ld> gr = nt::check_gradient<T>(f, g, x);
  Body b[n], t[n];
  unpack(x.data(), b);
  std::vector<T> tv = {T(0.1), T(-0.2), T(0.3), T(0.05), T(0.4),
                       T(-0.1), T(0.2), T(0.3), T(-0.25), T(0.5)};
  unpack(tv.data(), t);
  ld dot = 0;
  for (int k = 0; k < 10; ++k)
    dot += static_cast<ld>(tv[k]) * gr[k];
  NT_EXPECT_CLOSE(jvp(b, n, x[9], t, tv[9]), dot, 100 * nt::Tol<T>::exact_rtol,
                  100 * nt::Tol<T>::exact_atol);
}
} // namespace

TEST(Structs, FloatObjectsWithMethods) {
  checkBodies<float, structs::BodyF>(structs::energyF, structs::energyF_grad,
                                     structs::energyF_jvp);
}

TEST(Structs, LongDoubleObjectsWithMethods) {
  checkBodies<long double, structs::BodyL>(
      structs::energyL, structs::energyL_grad, structs::energyL_jvp);
}
