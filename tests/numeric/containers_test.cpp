// std::vector and std::array parameters of differentiated functions (contract
// v2: the adjoint of a container is a container of the same type and size):
// by const reference, by reference (in/out) and by value; element access
// with [], at, front, back; size, empty, data passed to a pointer callee;
// range-for by value and by reference; containers passed on to callees;
// float, double and integer elements; a function template over
// std::vector<T>. Every derivative is checked against finite differences
// (fluxion::check_*), and reverse against forward mode.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

namespace ctr {

// A dense layer and a loss, as a C++ programmer writes them.
double dot(const std::vector<double> &a, const std::vector<double> &b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    s += a[i] * b[i];
  return s;
}

double sum(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i];
  return s;
}

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
logistic(const std::vector<double> &w, const std::vector<double> &x,
         double b) {
  double z = dot(w, x) + b;
  double p = 1 / (1 + std::exp(-z));
  // An L1-style term through data() and a plain pointer callee.
  return -std::log(p) + 0.01 * sum(w.data(), int(w.size())) * w.front() +
         0.5 * w.back() * w.back();
}

// In/out: y is written (its adjoint holds the seed on entry), x only read.
[[fluxion::grad]] [[fluxion::jvp]] void layer(const std::vector<double> &W,
                                              const std::vector<double> &x,
                                              std::vector<double> &y) {
  std::size_t n = x.size();
  for (std::size_t i = 0; i < y.size(); ++i) {
    double a = 0;
    for (std::size_t j = 0; j < n; ++j)
      a += W[i * n + j] * x[j];
    y[i] = std::tanh(a);
  }
}

// Range-for by value, by const reference and by reference (into an
// output), at(), empty().
[[fluxion::grad]] [[fluxion::jvp]] double ranges(const std::vector<double> &x,
                                                 double k,
                                                 std::vector<double> &out) {
  if (x.empty())
    return 0;
  double s = 0;
  for (double v : x)
    s += std::sin(k * v);
  for (const double &v : x)
    s += v * v * x.at(0);
  std::size_t i = 0;
  for (double &o : out) {
    o = k * x[i % x.size()];
    ++i;
  }
  return s;
}

// A container by value that is only read, and std::array (whose size is
// part of its type).
[[fluxion::grad]] [[fluxion::jvp]] double by_value(std::vector<double> x,
                                                   std::array<double, 3> a) {
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    s += x[i] * a[i % a.size()];
  for (double v : a)
    s += v * v * v;
  return s * a.front() + a.back();
}

// Containers taken by value and changed: the function's own copies (the
// caller's are untouched), sorted, grown and scaled in place.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
changed_copies(std::vector<double> x, std::array<double, 3> a, double s) {
  std::sort(x.begin(), x.end());
  x.push_back(x[0] * s);
  for (double &v : x)
    v = v * v + a[1];
  a[0] *= s;
  a[2] += a[0] * x[1];
  double t = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    t += x[i] * a[i % 3];
  return t + a[2] * a[2];
}

// Containers returned as a braced list, as a parameter, or from a lambda
// (an explicit Runge-Kutta step, as people write one).
using State = std::array<double, 3>;
State scaled(const State &a, double k) { return {k * a[0], a[1], k * a[2]}; }
std::vector<double> same(const std::vector<double> &x) { return x; }

[[fluxion::grad]] [[fluxion::jvp]] double
rk2_energy(const State &y0, const std::vector<double> &w, double h) {
  auto rhs = [&](const State &u) {
    State r{u[1], -w[0] * u[0] - w[1] * u[1], u[0] * u[1]};
    return r;
  };
  State k1 = rhs(y0);
  State mid = {y0[0] + 0.5 * h * k1[0], y0[1] + 0.5 * h * k1[1],
               y0[2] + 0.5 * h * k1[2]};
  State k2 = rhs(mid);
  State y1 = scaled(k2, h);
  std::vector<double> c = same(w);
  return (y0[0] + y1[0]) * (y0[0] + y1[0]) + c[1] * y1[1] * y1[2];
}

// A callee writing into a container it receives by reference.
void axpy(double alpha, const std::vector<double> &x, std::vector<double> &y) {
  for (std::size_t i = 0; i < x.size(); ++i)
    y[i] += alpha * x[i];
}

[[fluxion::grad]] void update(const std::vector<double> &g, double lr,
                              std::vector<double> &w) {
  axpy(-lr, g, w);
  for (double &v : w)
    v = v * (1 - lr * v);
}

// Integer elements are data: read, never differentiated.
[[fluxion::grad]] [[fluxion::jvp]] double gather(const std::vector<int> &idx,
                                                 const std::vector<double> &x) {
  double s = 0;
  for (int i : idx)
    s += x[std::size_t(i)] * x[std::size_t(i)];
  return s + double(idx.size());
}

// float elements.
[[fluxion::grad]] float norm_f(const std::vector<float> &x) {
  float s = 0;
  for (float v : x)
    s += v * v;
  return std::sqrt(s);
}

// Local containers: sized, filled, copied, from a braced list, a
// std::array; written in loops and read back in reverse.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
hidden(const std::vector<double> &W, const std::vector<double> &x, int width) {
  int n = int(x.size());
  std::vector<double> h(static_cast<std::size_t>(width));
  for (int j = 0; j < width; ++j) {
    double a = 0;
    for (int k = 0; k < n; ++k)
      a += W[std::size_t(j * n + k)] * x[std::size_t(k)];
    h[std::size_t(j)] = std::tanh(a);
  }
  std::vector<double> sq = h;
  std::vector<double> half(h.size(), 0.5);
  std::array<double, 3> q{x[0], 2.0};
  std::vector<double> extra{x[0], x[1] * x[1]};
  double s = 0;
  for (std::size_t j = 0; j < h.size(); ++j) {
    sq[j] = sq[j] * sq[j];
    s += sq[j] * half[j] + h[j];
  }
  for (double v : extra)
    s += v;
  return s + q[0] * q[1] + q[2] + dot(sq, half);
}

// Local references and pointers into containers: an element by reference
// (read and written), the storage as a pointer.
[[fluxion::grad]] [[fluxion::jvp]] void element_refs(
    const std::vector<double> &x, std::vector<double> &y) {
  double &r = y[1];
  const double &c = x.front();
  double *w = y.data();
  r = c * x[1];
  r += 2 * c;
  w[0] = std::sin(r) * x.back();
  std::vector<double> t(x.size());
  double &first = t[0];
  first = w[0] * w[0];
  y[2] = first + c;
}

// A dense Hessian (lanes) of a function with a local std::vector.
[[fluxion::hessian]] double local_hessian(const double x[3]) {
  std::vector<double> t(3);
  for (int i = 0; i < 3; ++i)
    t[std::size_t(i)] = std::sin(x[i]) * x[(i + 1) % 3];
  return t[0] * t[1] + t[2];
}

template <class T>
[[fluxion::grad]] T poly(const std::vector<T> &c, T x) {
  T s = 0, p = 1;
  for (const T &ci : c) {
    s += ci * p;
    p *= x;
  }
  return s;
}

// Scratch containers in callees: the callees' split pairs hand the size
// (and the elements the backward function reads) over on the tape.
double smooth(const double *x, int n) {
  std::vector<double> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = std::sin(x[i]) * x[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += h[i] * h[i];
  return s;
}
// A scratch container sized in one branch only.
double branchy(const double *x, int n) {
  double r = x[0];
  if (x[0] > 0) {
    std::vector<double> t(n);
    for (int i = 0; i < n; ++i)
      t[i] = x[i] * x[i];
    r += t[n - 1] * t[0];
  }
  return r;
}
// Only the adjoint of t is needed backwards, not its elements.
double twice_sum(const std::vector<double> &x) {
  std::vector<double> t(x.size(), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i)
    t[i] = 2 * x[i];
  double s = 0;
  for (double v : t)
    s += v;
  return s;
}
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
scratch_in_callees(const std::vector<double> &x) {
  return smooth(x.data(), (int)x.size()) * twice_sum(x) +
         smooth(x.data(), (int)x.size()) +
         branchy(x.data(), (int)x.size()) * x[1];
}
// f_jacobian splits an annotated function with a local container.
[[fluxion::jacobian]] void split_local(const double x[3], double y[2]) {
  std::vector<double> t(3);
  for (int i = 0; i < 3; ++i)
    t[i] = x[i] * x[i];
  y[0] = t[0] * t[1];
  y[1] = std::exp(t[2]) + smooth(x, 3);
}

// A std::array local that the reverse rows of f_jacobian read (one output,
// four inputs: the Jacobian is built from the split pair), here and in a
// callee's split pair: its elements are handed over although it is never
// resized.
double scaled_sine(const double *x) {
  std::array<double, 2> a{x[0] * x[1], x[2] * x[3]};
  return std::sin(a[0]) * a[1];
}
[[fluxion::jacobian]] void split_fixed_local(const double x[4], double y[1]) {
  std::array<double, 2> a{x[0] * x[1], x[2] * x[3]};
  y[0] = std::sin(a[0]) * a[1] + scaled_sine(x) * a[0];
}

// <numeric>'s folds over a container's begin() and end(), and over raw
// pointers (the library's own body, whose parameters walk).
[[fluxion::hessian]] [[fluxion::jvp]] double
folds(const std::vector<double> &x, const std::vector<double> &w,
      const std::array<double, 3> &a) {
  double s = std::accumulate(x.begin(), x.end(), 0.0);
  double d = std::inner_product(x.cbegin(), x.cend(), w.begin(), 1.0);
  double t = std::accumulate(a.begin(), a.end(), 0.0);
  return s * d + std::sin(t) + std::accumulate(w.data(), w.data() + 2, 0.0);
}

// A local vector grown by push_back in a loop, reading what it holds
// (back(), size(), earlier elements) while it grows; also in a callee.
static double running(const std::vector<double> &x) {
  std::vector<double> r;
  r.reserve(x.size());
  for (double v : x)
    r.push_back(r.empty() ? v : 0.5 * r.back() + std::sin(v));
  double s = 0;
  for (std::size_t i = 0; i < r.size(); ++i)
    s += r[i] * r[r.size() - 1 - i];
  return s;
}

[[fluxion::grad]] double runs(const std::vector<double> &x) {
  return running(x) * x[0];
}

[[fluxion::hessian]] [[fluxion::jvp]] double grows(const std::vector<double> &x,
                                                   double w) {
  std::vector<double> kept;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i] > 0)
      kept.push_back(w * x[i]);
  while (kept.size() < 6)
    kept.push_back(kept.empty() ? w : kept.back() * w);
  std::vector<double> r;
  r.reserve(x.size());
  for (double v : x)
    r.push_back(r.empty() ? v : 0.5 * r.back() + std::sin(v));
  return std::accumulate(kept.begin(), kept.end(), 0.0) * kept.size() +
         std::inner_product(r.begin(), r.end(), r.begin(), 0.0);
}

// Locals declared empty and sized by their first resize or assign; one
// that grows after it.
[[fluxion::hessian]] [[fluxion::jvp]] double
sized_later(const std::vector<double> &x, double k) {
  std::vector<double> a, b, c;
  a.resize(x.size());
  b.assign(x.size(), k);
  c.resize(2, 0.5 * k);
  for (std::size_t i = 0; i < x.size(); ++i) {
    a[i] = x[i] * x[i];
    b[i] += a[i] * k;
  }
  std::vector<double> g;
  g.reserve(x.size() + 1);
  g.resize(1);
  g[0] = k;
  for (double v : b)
    g.push_back(v * c[1]);
  double s = 0;
  for (double v : g)
    s += std::sin(v);
  return s * double(g.size()) + c[0] * a.back();
}

// Containers of objects of reals (contract v2: the adjoint is a container of
// the same type and size): elements' members, range-for by reference,
// back(), a callee taking one element, a std::array of them.
struct Body {
  int id;
  double m;
  double x[2];
};

static double kinetic(const Body &b) {
  return 0.5 * b.m * (b.x[0] * b.x[0] + b.x[1] * b.x[1]);
}

[[fluxion::hessian]] [[fluxion::jvp]] double
chain(const std::vector<Body> &bs, const std::array<Body, 2> &ends, double k) {
  double s = 0;
  for (const Body &b : bs)
    s += kinetic(b);
  for (std::size_t i = 0; i + 1 < bs.size(); ++i) {
    double d = bs[i].x[0] - bs[i + 1].x[0];
    s += k * d * d * bs[i].m;
  }
  return s + ends[0].m * ends[1].x[1] + std::sin(bs.back().m * k);
}

// std::array::fill, then some elements written again.
[[fluxion::grad]] [[fluxion::jvp]] double filled(const std::array<double, 3> &a,
                                                 double x) {
  std::array<double, 4> c;
  c.fill(x * a[0]);
  c[1] = a[1] * x;
  double s = 0;
  for (int r = 0; r < 2; ++r) {
    c.fill(c[r] + a[2]);
    s += c[0] * c[3];
  }
  return s;
}

// A dense Hessian over a std::array parameter and a scalar (flattened in
// parameter order).
[[fluxion::hessian]] double array_hessian(const std::array<double, 3> &a,
                                          double w) {
  return a[0] * a[1] * w + std::sin(a[2] * w) + a[1] * a[1] * a[2];
}

// fluxion::stop_gradient of containers: copies with no derivative.
[[fluxion::grad]] [[fluxion::jvp]] double
stopped(const std::vector<double> &x, const std::array<double, 2> &a) {
  std::vector<double> c = fluxion::stop_gradient(x);
  std::array<double, 2> b = fluxion::stop_gradient(a);
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    s += x[i] * c[i];
  return s + a[0] * b[1] + a[1] * b[0];
}

} // namespace ctr

namespace {

const std::vector<double> W0 = {0.3, -0.2, 0.5, 0.1, -0.4, 0.25};
const std::vector<double> X0 = {0.7, -1.1, 0.4};

TEST(Containers, ConstReferenceParameters) {
  auto R = fluxion::check_gradient(ctr::logistic, ctr::logistic_grad,
                                   std::vector<double>{0.3, -0.2, 0.5}, X0,
                                   0.1);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ctr::logistic, ctr::logistic_jvp,
                              std::vector<double>{0.3, -0.2, 0.5}, X0, 0.1);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(ctr::logistic, ctr::logistic_hvp,
                              std::vector<double>{0.3, -0.2, 0.5}, X0, 0.1);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Containers, AccumulateAndInnerProduct) {
  std::array<double, 3> A = {0.2, -0.6, 1.3};
  auto R = fluxion::check_gradient(ctr::folds, ctr::folds_grad, X0,
                                   std::vector<double>{0.5, 1.5, -0.25}, A);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ctr::folds, ctr::folds_jvp, X0,
                              std::vector<double>{0.5, 1.5, -0.25}, A);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(ctr::folds, ctr::folds_hvp, X0,
                              std::vector<double>{0.5, 1.5, -0.25}, A);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Containers, PushBackInLoops) {
  for (auto x : {std::vector<double>{0.7, -1.1, 0.4},
                 std::vector<double>{-0.3, -0.2, -0.9, 1.2}}) {
    auto R = fluxion::check_gradient(ctr::grows, ctr::grows_grad, x, 0.8);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(ctr::grows, ctr::grows_jvp, x, 0.8);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(ctr::grows, ctr::grows_hvp, x, 0.8);
    EXPECT_TRUE(H.ok()) << H;
    // In a callee (a split pair hands the grown vector over).
    auto C = fluxion::check_gradient(ctr::runs, ctr::runs_grad, x);
    EXPECT_TRUE(C.ok()) << C;
  }
}

TEST(Containers, VectorsOfObjects) {
  std::vector<ctr::Body> bs = {
      {0, 1.5, {0.2, 0.3}}, {1, 0.7, {-0.4, 1.1}}, {2, 2.0, {0.9, -0.6}}};
  std::array<ctr::Body, 2> ends = {{{0, 1.2, {0.1, 0.2}}, {1, 0.3, {0.5, 0.6}}}};
  double k = 0.8;
  // Every real by address, and the same places in a shadow.
  auto reals = [](std::vector<ctr::Body> &v, std::array<ctr::Body, 2> &a,
                  double &kk) {
    std::vector<double *> r;
    for (auto *b : {&v[0], &v[1], &v[2], &a[0], &a[1]})
      for (double *p : {&b->m, &b->x[0], &b->x[1]})
        r.push_back(p);
    r.push_back(&kk);
    return r;
  };
  std::vector<ctr::Body> d(3);
  std::array<ctr::Body, 2> dends{};
  double dk = 0;
  double value = ctr::chain_grad(bs, ends, k, &d, &dends, &dk);
  EXPECT_DOUBLE_EQ(value, ctr::chain(bs, ends, k));
  auto in = reals(bs, ends, k), grad = reals(d, dends, dk);
  std::vector<double> dir;
  for (std::size_t i = 0; i < in.size(); ++i) {
    double h = 1e-6, o = *in[i];
    *in[i] = o + h;
    double up = ctr::chain(bs, ends, k);
    *in[i] = o - h;
    double dn = ctr::chain(bs, ends, k);
    *in[i] = o;
    EXPECT_NEAR(*grad[i], (up - dn) / (2 * h), 1e-7) << i;
    dir.push_back(std::cos(1.3 * i + 0.2));
  }
  EXPECT_EQ(d[1].id, 0); // integer members are left alone
  // Reverse against forward, and H v against differences of gradients.
  std::vector<ctr::Body> t(3), hv(3);
  std::array<ctr::Body, 2> tends{}, hvends{};
  double tk = 0, hk = 0;
  auto tan = reals(t, tends, tk);
  double dot = 0;
  for (std::size_t i = 0; i < tan.size(); ++i) {
    *tan[i] = dir[i];
    dot += dir[i] * *grad[i];
  }
  EXPECT_NEAR(ctr::chain_jvp(bs, ends, k, &t, &tends, tk), dot, 1e-12);
  ctr::chain_hvp(bs, ends, k, &t, &tends, tk, &hv, &hvends, &hk);
  auto gradAt = [&](double h) {
    auto b2 = bs;
    auto e2 = ends;
    double k2 = k;
    auto p = reals(b2, e2, k2);
    for (std::size_t i = 0; i < p.size(); ++i)
      *p[i] += h * dir[i];
    std::vector<ctr::Body> g(3);
    std::array<ctr::Body, 2> ge{};
    double gk = 0;
    ctr::chain_grad(b2, e2, k2, &g, &ge, &gk);
    std::vector<double> out;
    for (double *q : reals(g, ge, gk))
      out.push_back(*q);
    return out;
  };
  auto up = gradAt(1e-5), dn = gradAt(-1e-5);
  auto got = reals(hv, hvends, hk);
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(*got[i], (up[i] - dn[i]) / 2e-5, 1e-6) << i;
}

TEST(Containers, ConstReferenceByHand) {
  // d/db of -log(sigmoid(z)) is sigmoid(z) - 1.
  std::vector<double> w = {0.3, -0.2, 0.5}, dw(3), dx(3);
  double db = 0;
  ctr::logistic_grad(w, X0, 0.1, &dw, &dx, &db);
  double z = ctr::dot(w, X0) + 0.1;
  EXPECT_NEAR(db, 1 / (1 + std::exp(-z)) - 1, 1e-14);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(dx[i], (1 / (1 + std::exp(-z)) - 1) * w[i], 1e-14);
}

TEST(Containers, OutputContainer) {
  std::vector<double> y(2);
  auto R = fluxion::check_vjp(ctr::layer, ctr::layer_vjp, W0, X0, y);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ctr::layer, ctr::layer_jvp, W0, X0, y);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Containers, DotProductTest) {
  // <J t, s> computed forward equals <t, J^T s> computed backward.
  std::vector<double> tW = {0.1, 0.2, -0.3, 0.4, 0.5, -0.6},
                      tx = {-0.7, 0.8, 0.9}, y(2), ty(2);
  ctr::layer_jvp(W0, X0, y, &tW, &tx, &ty);
  std::vector<double> s = {1.3, -0.4}, dW(6), dx(3), ds = s;
  ctr::layer_vjp(W0, X0, y, &dW, &dx, &ds);
  double lhs = ty[0] * s[0] + ty[1] * s[1], rhs = 0;
  for (std::size_t i = 0; i < 6; ++i)
    rhs += tW[i] * dW[i];
  for (std::size_t i = 0; i < 3; ++i)
    rhs += tx[i] * dx[i];
  EXPECT_NEAR(lhs, rhs, 1e-13);
  EXPECT_EQ(ds, std::vector<double>(2, 0.0)) << "an output's seed is consumed";
}

TEST(Containers, RangeForAtEmpty) {
  std::vector<double> out(5);
  auto R = fluxion::check_vjp(ctr::ranges, ctr::ranges_vjp, X0, 0.8, out);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ctr::ranges, ctr::ranges_jvp, X0, 0.8, out);
  EXPECT_TRUE(J.ok()) << J;
  std::vector<double> none, dnone, dout(5);
  double dk = 0;
  EXPECT_EQ(ctr::ranges_vjp(none, 0.8, out, 1.0, &dnone, &dk, &dout), 0.0);
  EXPECT_EQ(dk, 0.0);
}

TEST(Containers, ByValueAndStdArray) {
  std::array<double, 3> a = {0.9, -0.3, 1.2};
  auto R = fluxion::check_gradient(ctr::by_value, ctr::by_value_grad, X0, a);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ctr::by_value, ctr::by_value_jvp, X0, a);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Containers, ChangedCopiesOfParameters) {
  std::vector<double> x = {0.4, -1.1, 0.7, 0.2};
  std::array<double, 3> a = {0.9, -0.3, 1.2};
  double s = 0.8;
  auto R = fluxion::check_gradient(ctr::changed_copies, ctr::changed_copies_grad,
                                   x, a, s);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ctr::changed_copies, ctr::changed_copies_jvp, x,
                              a, s);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(ctr::changed_copies, ctr::changed_copies_hvp, x,
                              a, s);
  EXPECT_TRUE(H.ok()) << H;
  // The caller's containers keep their values.
  std::vector<double> dx(4);
  std::array<double, 3> da = {0, 0, 0};
  double ds = 0;
  ctr::changed_copies_grad(x, a, s, &dx, &da, &ds);
  EXPECT_EQ(x[0], 0.4);
  EXPECT_EQ(x.size(), 4u);
  EXPECT_EQ(a[0], 0.9);
}

TEST(Containers, ReturnedBracedListsParametersAndLambdaResults) {
  ctr::State y = {0.4, -1.1, 0.7};
  std::vector<double> w = {1.3, 0.2};
  auto R = fluxion::check_gradient(ctr::rk2_energy, ctr::rk2_energy_grad, y,
                                   w, 0.1);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ctr::rk2_energy, ctr::rk2_energy_jvp, y, w, 0.1);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Containers, CalleeWritesContainer) {
  std::vector<double> w = {0.2, -0.5, 0.8};
  auto R = fluxion::check_vjp(ctr::update, ctr::update_vjp, X0, 0.3, w);
  EXPECT_TRUE(R.ok()) << R;
}

TEST(Containers, IntegerElementsAreData) {
  std::vector<int> idx = {2, 0, 2};
  auto R = fluxion::check_gradient(ctr::gather, ctr::gather_grad,
                                   fluxion::constant(idx), X0);
  EXPECT_TRUE(R.ok()) << R;
  std::vector<double> dx(3);
  ctr::gather_grad(idx, X0, &dx);
  EXPECT_NEAR(dx[2], 4 * X0[2], 1e-15);
  EXPECT_NEAR(dx[0], 2 * X0[0], 1e-15);
  EXPECT_EQ(dx[1], 0.0);
}

TEST(Containers, SizedByResizeOrAssign) {
  auto R = fluxion::check_gradient(ctr::sized_later, ctr::sized_later_grad, X0,
                                   0.7);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ctr::sized_later, ctr::sized_later_jvp, X0, 0.7);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(ctr::sized_later, ctr::sized_later_hvp, X0, 0.7);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Containers, LocalContainers) {
  auto R = fluxion::check_gradient(ctr::hidden, ctr::hidden_grad, W0,
                                   std::vector<double>{0.7, -1.1}, 3);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ctr::hidden, ctr::hidden_jvp, W0,
                              std::vector<double>{0.7, -1.1}, 3);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(ctr::hidden, ctr::hidden_hvp, W0,
                              std::vector<double>{0.7, -1.1}, 3);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Containers, ReferencesToElements) {
  std::vector<double> y(3);
  auto R = fluxion::check_vjp(ctr::element_refs, ctr::element_refs_vjp, X0, y);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ctr::element_refs, ctr::element_refs_jvp, X0, y);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Containers, LocalContainerDenseHessian) {
  double x[3] = {0.3, 0.5, -0.7};
  auto R = fluxion::check_hvp(ctr::local_hessian, ctr::local_hessian_hvp,
                              fluxion::span(x, 3));
  EXPECT_TRUE(R.ok()) << R;
  // Each row of the dense Hessian is an f_hvp along a unit vector.
  double H[9];
  ctr::local_hessian_hessian(x, H);
  for (int i = 0; i < 3; ++i) {
    double v[3] = {0, 0, 0}, hv[3] = {0, 0, 0};
    v[i] = 1;
    ctr::local_hessian_hvp(x, v, hv);
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(H[i * 3 + j], hv[j], 1e-13) << i << "," << j;
  }
}

TEST(Containers, StdArrayFill) {
  std::array<double, 3> a = {0.3, -0.5, 1.2};
  auto R = fluxion::check_gradient(ctr::filled, ctr::filled_grad, a, 0.7);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(ctr::filled, ctr::filled_jvp, a, 0.7);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Containers, DenseHessianOfAStdArray) {
  std::array<double, 3> a = {0.3, 0.5, -0.7};
  double w = 1.3, H[16];
  ctr::array_hessian_hessian(a, w, H);
  // Closed form over (a0, a1, a2, w).
  double c = -std::sin(a[2] * w);
  double Ex[16] = {0,        w,        0,
                   a[1],     w,        2 * a[2], 2 * a[1],
                   a[0],     0,        2 * a[1], w * w * c,
                   std::cos(a[2] * w) + a[2] * w * c,
                   a[1],     a[0],     std::cos(a[2] * w) + a[2] * w * c,
                   a[2] * a[2] * c};
  for (int i = 0; i < 16; ++i)
    EXPECT_NEAR(H[i], Ex[i], 1e-12) << i;
}

TEST(Containers, FloatAndTemplate) {
  auto R = fluxion::check_gradient(ctr::norm_f, ctr::norm_f_grad,
                                   std::vector<float>{0.5f, -1.5f, 2.0f});
  EXPECT_TRUE(R.ok()) << R;
  std::vector<double> c = {1.0, -2.0, 0.5}, dc(3);
  double dx = 0;
  double v = ctr::poly_grad(c, 1.5, &dc, &dx);
  EXPECT_DOUBLE_EQ(v, 1.0 - 3.0 + 0.5 * 2.25);
  EXPECT_DOUBLE_EQ(dx, -2.0 + 2 * 0.5 * 1.5);
  EXPECT_DOUBLE_EQ(dc[2], 2.25);
  std::vector<float> cf = {1.0f, 2.0f}, dcf(2);
  float dxf = 0;
  ctr::poly_grad(cf, 2.0f, &dcf, &dxf);
  EXPECT_FLOAT_EQ(dxf, 2.0f);
  EXPECT_FLOAT_EQ(dcf[1], 2.0f);
}

TEST(Containers, ScratchInCallees) {
  // x[0] > 0, then x[0] < 0: the branch sizes the container, then not.
  std::vector<double> negative = {-0.3, -0.7, 1.1, 0.5};
  auto N = fluxion::check_gradient(ctr::scratch_in_callees,
                                   ctr::scratch_in_callees_grad, negative);
  EXPECT_TRUE(N.ok()) << N;
  std::vector<double> x = {0.3, -0.7, 1.1, 0.5};
  auto G = fluxion::check_gradient(ctr::scratch_in_callees,
                                   ctr::scratch_in_callees_grad, x);
  EXPECT_TRUE(G.ok()) << G;
  auto J = fluxion::check_jvp(ctr::scratch_in_callees,
                              ctr::scratch_in_callees_jvp, x);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(ctr::scratch_in_callees,
                              ctr::scratch_in_callees_hvp, x);
  EXPECT_TRUE(H.ok()) << H;
  double x3[3] = {0.3, -0.7, 1.1}, y[2];
  auto Jac = fluxion::check_jacobian(ctr::split_local, ctr::split_local_jacobian,
                                     x3, y);
  EXPECT_TRUE(Jac.ok()) << Jac;
}

TEST(Containers, FixedSizeLocalInJacobianRows) {
  double x[4] = {0.5, 0.7, 0.3, 0.9}, y[1];
  auto Jac = fluxion::check_jacobian(ctr::split_fixed_local,
                                     ctr::split_fixed_local_jacobian, x, y);
  EXPECT_TRUE(Jac.ok()) << Jac;
  double J[4];
  ctr::split_fixed_local_jacobian(x, y, J);
  // d/dx0 of sin(x0 x1) x2 x3 (twice, once through the callee) + ...: not 0.
  EXPECT_NE(J[0], 0.0);
}

TEST(Containers, StopGradientOfContainers) {
  // Closed forms (finite differences would see through stop_gradient).
  std::vector<double> x = {0.4, -1.3, 2.2}, dx(3);
  std::array<double, 2> a = {0.7, -0.2}, da = {0, 0};
  double f = ctr::stopped_grad(x, a, &dx, &da);
  EXPECT_NEAR(f, ctr::stopped(x, a), 1e-12);
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(dx[i], x[i], 1e-12) << i;
  EXPECT_NEAR(da[0], a[1], 1e-12);
  EXPECT_NEAR(da[1], a[0], 1e-12);
  std::vector<double> tx = {0.5, 0.25, -1.0};
  std::array<double, 2> ta = {0.3, 0.9};
  EXPECT_NEAR(ctr::stopped_jvp(x, a, &tx, &ta),
              dx[0] * tx[0] + dx[1] * tx[1] + dx[2] * tx[2] + da[0] * ta[0] +
                  da[1] * ta[1],
              1e-12);
}

} // namespace
