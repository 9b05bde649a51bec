// Containers held by containers and by objects (contract v2: "nested
// structs, arrays and containers inside"): std::vector<std::vector<T>>,
// std::vector<std::array<T, 3>>, classes with std::vector and std::array
// members, as parameters by const& and by & (an output written element by
// element), and local std::vectors of objects. Rows are indexed, walked by
// range-based for (by reference and by value), passed to callees that read
// them, and read through a method of the object (a method of a class
// template would keep the file from fluxion-gen's round trip, which writes
// no members of class templates yet: the template's layer is read by a
// free function). The adjoint is an object of the same type and shape.
// Every derivative is checked against finite differences (fluxion::check_*),
// reverse against forward mode, and H v against differences of gradients,
// in float, double and long double.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <array>
#include <cmath>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

namespace nested {

template <class T> T dot(const std::vector<T> &a, const std::vector<T> &b) {
  T s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    s += a[i] * b[i];
  return s;
}

// A small network as a C++ programmer writes it: weights as a vector of
// rows, a layer as a class with a std::vector member.
template <class T> struct Layer {
  std::vector<T> w;
  T b;
  std::array<T, 2> scale;
};

template <class T> T out(const Layer<T> &L, const std::vector<T> &h) {
  return L.scale[0] * std::tanh(dot(L.w, h) + L.b) +
         L.scale.back() * L.w.size();
}

// A specialization named by a plain function before anything instantiates
// it: its members are known when the annotation is read.
[[fluxion::grad]] [[fluxion::jvp]] double
scored(const Layer<double> &L, const std::vector<double> &x) {
  return std::exp(L.scale[1]) * out(L, x) + L.b * x.back();
}

template <class T>
[[fluxion::hessian]] [[fluxion::jvp]] T
network(const std::vector<std::vector<T>> &W, const Layer<T> &L,
        const std::vector<T> &x) {
  std::vector<T> h(W.size());
  for (std::size_t i = 0; i < W.size(); ++i)
    h[i] = std::tanh(dot(W[i], x)); // a row passed to a callee
  T s = out(L, h);
  for (const auto &row : W) // rows by reference
    s += row.front() * row.back() * T(row.size());
  for (std::vector<T> row : W) // and by value: a copy per iteration
    s += T(0.5) * row[1] * row.at(0);
  for (T v : L.w)
    s += T(0.1) * v * v;
  return s + W[1][2] * W.back()[0] / T(W.size());
}

// An output held by a container, updated in place from its own values.
[[fluxion::grad]] [[fluxion::jvp]] void
outer(const std::vector<double> &a, const std::vector<double> &b,
      std::vector<std::vector<double>> &P) {
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j)
      P[i][j] += a[i] * std::sin(b[j]) * P[i][j];
}

// An object whose container member the function updates (one step of
// gradient descent on a layer, differentiated with respect to the layer).
struct Dense {
  std::vector<double> w;
  double b;
  std::array<double, 2> scale;
  double pre(const std::vector<double> &x) const { return dot(w, x) + b; }
};

[[fluxion::grad]] [[fluxion::jvp]] void step(Dense &L,
                                             const std::vector<double> &x,
                                             double lr) {
  double z = L.pre(x);
  double g = 1 - std::tanh(z) * std::tanh(z);
  for (std::size_t i = 0; i < L.w.size(); ++i)
    L.w[i] -= lr * g * x[i] * L.w[i];
  L.b -= lr * g;
  L.scale[1] *= L.b;
}

// Points as a vector of std::arrays.
[[fluxion::hessian]] [[fluxion::jvp]] double
coulomb(const std::vector<std::array<double, 3>> &p) {
  double e = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t j = i + 1; j < p.size(); ++j) {
      double d2 = 0;
      for (int k = 0; k < 3; ++k)
        d2 += (p[i][k] - p[j][k]) * (p[i][k] - p[j][k]);
      e += 1 / std::sqrt(d2);
    }
  return e;
}

// Local std::vectors of objects: sized with copies of an object, copied,
// an element assigned from a braced list, members written through a
// range-based for, filled by push_back and emplace_back, read by a callee.
struct Particle {
  double x, y;
};

static double pairEnergy(const std::vector<Particle> &ps) {
  double e = 0;
  for (std::size_t i = 0; i < ps.size(); ++i)
    for (std::size_t j = i + 1; j < ps.size(); ++j) {
      double dx = ps[i].x - ps[j].x, dy = ps[i].y - ps[j].y;
      e += 1.0 / std::sqrt(dx * dx + dy * dy + 1.0);
    }
  return e;
}

[[fluxion::hessian]] [[fluxion::jvp]] double
particles(const std::vector<double> &v, double k) {
  Particle origin{k, 0.5 * k};
  std::vector<Particle> ps(v.size() / 2, origin);
  for (std::size_t i = 0; i < ps.size(); ++i) {
    ps[i].x += v[2 * i];
    ps[i].y *= v[2 * i + 1];
  }
  std::vector<Particle> qs = ps;
  qs[1] = Particle{qs[0].y * k, qs[2].x};
  for (auto &q : qs)
    q.x = std::tanh(q.x);
  std::vector<Particle> trail;
  for (const Particle &p : ps)
    trail.push_back(Particle{k * p.x, p.y * p.y});
  trail.emplace_back(qs.back());
  std::vector<Particle> ends = {trail.front(), Particle{v[0] * k, 2.0}};
  return pairEnergy(ps) + pairEnergy(qs) + pairEnergy(trail) +
         ends[0].x * ends[1].y + qs.front().x * qs.back().y;
}

// f_jacobian of a function growing a vector of objects (the library's
// push_back holds noexcept(std::declval...) operands the engine once
// instantiated while looking for calls).
[[fluxion::jacobian]] double grown(const Particle &p, double k) {
  std::vector<Particle> ps;
  ps.push_back(p);
  ps.emplace_back(Particle{k * p.y, p.x});
  return std::sin(ps[0].x * ps[1].x) + ps.back().y * k;
}

// A local std::vector of std::array: sized, filled by push_back from a
// local std::array (a local std::array is its storage: copied element by
// element), from a braced one and from one of zeros; elements assigned
// whole from braced lists (one exchanging an element's own values), from
// another element and from a local; and an element copied out.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
segments(const std::vector<double> &x, double k) {
  std::vector<std::array<double, 2>> ps(1);
  ps[0] = {k, x[0]};
  for (std::size_t i = 0; i + 1 < x.size(); ++i) {
    std::array<double, 2> p = {x[i] * x[i + 1], x[i] - k * x[i + 1]};
    ps.push_back(p);
  }
  ps.push_back({x.back(), k * k});
  std::array<double, 2> zero{};
  ps.push_back(zero);
  ps.back()[1] = std::sin(ps[1][0]);
  ps[1] = {ps[1][1], ps[1][0] * k};
  ps[3] = ps[2];
  std::array<double, 2> q = {ps[0][1] * ps[2][0], k};
  ps[2] = q;
  std::array<double, 2> last = ps[2];
  double s = last[0] * last[1];
  for (const auto &p : ps)
    s += p[0] * p[1] + p[1] * p[1];
  return s;
}

} // namespace nested

namespace {

TEST(NestedContainers, SpecializationInAPlainFunction) {
  nested::Layer<double> L{{0.7, -0.4, 0.2}, 0.1, {1.5, -0.5}};
  std::vector<double> x = {1, -1, 0.5};
  auto R = fluxion::check_gradient(nested::scored, nested::scored_grad, L, x);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(nested::scored, nested::scored_jvp, L, x);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(NestedContainers, LocalVectorsOfObjects) {
  std::vector<double> v = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  for (double k : {0.7, -1.3}) {
    auto R = fluxion::check_gradient(nested::particles, nested::particles_grad,
                                     v, k);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(nested::particles, nested::particles_jvp, v, k);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(nested::particles, nested::particles_hvp, v, k);
    EXPECT_TRUE(H.ok()) << H;
  }
}

TEST(NestedContainers, JacobianOfAGrownVectorOfObjects) {
  nested::Particle p{0.4, -1.1};
  auto R = fluxion::check_jacobian(nested::grown, nested::grown_jacobian, p,
                                   0.6);
  EXPECT_TRUE(R.ok()) << R;
}

template <class T> void checkNetwork() {
  std::vector<std::vector<T>> W = {{T(0.1), T(0.2), T(0.3)},
                                   {T(-0.3), T(0.5), T(0.1)},
                                   {T(0.4), T(-0.2), T(0.6)}};
  nested::Layer<T> L{{T(0.7), T(-0.4), T(0.2)}, T(0.1), {T(1.5), T(-0.5)}};
  std::vector<T> x = {T(1), T(-1), T(0.5)};
  auto R = fluxion::check_gradient(nested::network<T>, nested::network_grad<T>,
                                   W, L, x);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(nested::network<T>, nested::network_jvp<T>, W, L,
                              x);
  EXPECT_TRUE(J.ok()) << J;
  if (std::is_same_v<T, float>) // differences of float gradients: too coarse
    return;
  auto H = fluxion::check_hvp(nested::network<T>, nested::network_hvp<T>, W, L,
                              x);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(NestedContainers, VectorOfRowsAndAClassWithAVector) {
  checkNetwork<double>();
  checkNetwork<float>();
  checkNetwork<long double>();
}

TEST(NestedContainers, OutputHeldByAContainer) {
  const std::vector<double> a = {0.5, -1}, b = {0.3, 0.9, -0.2};
  const std::vector<std::vector<double>> P0 = {{1, 2, 3}, {4, 5, 6}};
  auto R = fluxion::check_vjp(nested::outer, nested::outer_vjp, a, b, P0);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(nested::outer, nested::outer_jvp, a, b, P0);
  EXPECT_TRUE(J.ok()) << J;
  // The closed form of one seed: d P[1][2]' / d P[1][2] = 1 + a1 sin(b2).
  std::vector<std::vector<double>> P = P0, dP = {{0, 0, 0}, {0, 0, 1}};
  std::vector<double> da(2), db(3);
  nested::outer_vjp(a, b, P, &da, &db, &dP);
  EXPECT_NEAR(dP[1][2], 1 - std::sin(-0.2), 1e-15);
  EXPECT_NEAR(da[1], std::sin(-0.2) * 6, 1e-15);
  EXPECT_EQ(dP[0][0], 0);
}

TEST(NestedContainers, MemberContainerUpdatedInPlace) {
  const nested::Dense L = {{0.7, -0.4, 0.2}, 0.1, {1.5, -0.5}};
  const std::vector<double> x = {1, -1, 0.5};
  auto R = fluxion::check_vjp(nested::step, nested::step_vjp, L, x, 0.3);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(nested::step, nested::step_jvp, L, x, 0.3);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(NestedContainers, LocalVectorOfArraysGrown) {
  std::vector<double> x = {0.3, -0.8, 1.2, 0.45};
  auto R = fluxion::check_gradient(nested::segments, nested::segments_grad, x,
                                   0.6);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(nested::segments, nested::segments_jvp, x, 0.6);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(nested::segments, nested::segments_hvp, x, 0.6);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(NestedContainers, VectorOfArrays) {
  const std::vector<std::array<double, 3>> p = {
      {0, 0, 0}, {1, 0.2, 0}, {0.3, 1.1, 0.4}, {-0.5, 0.6, 0.9}};
  auto R = fluxion::check_gradient(nested::coulomb, nested::coulomb_grad, p);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(nested::coulomb, nested::coulomb_jvp, p);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(nested::coulomb, nested::coulomb_hvp, p);
  EXPECT_TRUE(H.ok()) << H;
}

} // namespace
