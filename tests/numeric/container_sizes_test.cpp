// Local std::vectors whose size changes after their declaration: declared
// inside loops (sized again at every iteration), resize, assign, clear,
// pop_back, assignment from another container or a braced list, swaps,
// push_back after a shrink; insert and erase (at iterator positions, of a
// range), a vector built from two iterators; a std::vector output
// parameter filled by
// push_back; std::vectors returned by value from callees (the returned
// local is the caller's variable). The reverse sweep walks back through the
// same sizes (ReverseResize.cpp).
// Every derivative is checked against finite differences (fluxion::check_*),
// reverse against forward mode, and H v against differences of gradients,
// in float, double and long double.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

namespace sizes {

// Explicit time stepping as people write it with std::vector: a scratch
// vector declared in the loop, then copied back (`u = next`).
template <class T>
[[fluxion::hessian]] [[fluxion::jvp]] T stepped(const std::vector<T> &u0,
                                                 T nu, int steps) {
  std::vector<T> u = u0;
  for (int s = 0; s < steps; ++s) {
    std::vector<T> next(u.size());
    for (std::size_t i = 0; i < u.size(); ++i) {
      std::size_t l = i == 0 ? u.size() - 1 : i - 1;
      std::size_t r = i + 1 == u.size() ? 0 : i + 1;
      next[i] = u[i] - T(0.3) * u[i] * (u[r] - u[l]) +
                nu * (u[r] - 2 * u[i] + u[l]);
    }
    u = next;
  }
  T e = 0;
  for (T v : u)
    e += v * v;
  return e;
}

// A vector whose length changes at every step: rebuilt by push_back from
// empty, shortened by pop_back on odd steps.
[[fluxion::hessian]] [[fluxion::jvp]] double
shrinking(const std::vector<double> &x, int steps) {
  std::vector<double> u = x;
  for (int s = 0; s < steps; ++s) {
    std::vector<double> next;
    for (std::size_t i = 0; i + 1 < u.size(); ++i)
      next.push_back(u[i] * u[i + 1] + std::cos(u[i]));
    next.push_back(0.5 * u.back());
    if (s % 2)
      next.pop_back();
    u = next;
  }
  double t = 0;
  for (double v : u)
    t += v;
  return t * u.size();
}

// Every size change of a local, each reading what the one before left.
[[fluxion::hessian]] [[fluxion::jvp]] double
reshaped(const std::vector<double> &x, double k) {
  std::vector<double> t;
  for (double v : x)
    if (v > 0)
      t.push_back(v * v);
  double s = 0;
  for (double v : t)
    s += std::log(v) * t.size();
  t.clear();
  t.resize(x.size(), k);
  for (std::size_t i = 0; i < x.size(); ++i)
    t[i] *= x[i] * s;
  t.resize(2); // drops elements the reverse sweep reads again
  for (double v : t)
    s += v * v;
  t.assign(3, x[0] * k);
  t.resize(5, x[1]);
  for (std::size_t i = 0; i < t.size(); ++i)
    s += t[i] * double(i + 1);
  t = {x[2], x[0] * x[1], k};
  t.pop_back();
  s += t[0] * t[1] * t.size();
  std::vector<double> c(x.size());
  c = t; // a copy of another container shorter than c
  t.push_back(c[1] * k);
  return s + c[0] * c[1] * t.back();
}

// Double buffering with std::vectors: the state and the next state
// swapped at each step (std::swap and the member swap), and a swap of two
// vectors of different lengths.
[[fluxion::hessian]] [[fluxion::jvp]] double
swapped(const std::vector<double> &u0, double nu, int steps) {
  std::vector<double> u = u0, next(u0.size());
  const std::size_t n = u.size();
  for (int s = 0; s < steps; ++s) {
    for (std::size_t i = 0; i < n; ++i) {
      double l = u[i == 0 ? n - 1 : i - 1], r = u[i + 1 == n ? 0 : i + 1];
      next[i] = u[i] + nu * (l - 2 * u[i] + r) - 0.2 * u[i] * (r - l);
    }
    if (s % 2)
      std::swap(u, next);
    else
      u.swap(next);
  }
  std::vector<double> shorter = {u[0] * nu, u[1]};
  std::swap(shorter, u);
  double e = 0;
  for (double v : u)
    e += v * v;
  for (double v : shorter)
    e += std::sin(v) * double(shorter.size());
  return e;
}

// In a callee: the split pair hands the final sizes over.
static double smooth(const std::vector<double> &x) {
  std::vector<double> w = x;
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<double> v(w.size() - 1);
    for (std::size_t i = 0; i + 1 < w.size(); ++i)
      v[i] = 0.5 * (w[i] + w[i + 1]) + 0.1 * w[i] * w[i + 1];
    w = v;
  }
  double s = 0;
  for (double v : w)
    s += std::sin(v);
  return s;
}

[[fluxion::grad]] double smoothed(const std::vector<double> &x, double a) {
  return a * smooth(x) + smooth(x) * smooth(x);
}

// An output filled by push_back after a clear: the adjoint of `y` has the
// size `y` has after the call.
[[fluxion::grad]] [[fluxion::jvp]] void
features(const std::vector<double> &x, std::vector<double> &y) {
  y.clear();
  for (std::size_t i = 0; i < x.size(); ++i) {
    y.push_back(x[i] * x[i]);
    if (x[i] > 0)
      y.push_back(std::sqrt(x[i]));
  }
  y.resize(y.size() + 1, 0.5 * x[0]);
}

// Functions returning a std::vector by value, as C++ programmers write
// layers: a template called twice, one filling its result by push_back
// inside the caller's loop, one using <algorithm> and <numeric>.
template <class T>
std::vector<T> affine(const std::vector<T> &W, const std::vector<T> &x, T b) {
  std::vector<T> y(W.size() / x.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    T s = b;
    for (std::size_t j = 0; j < x.size(); ++j)
      s += W[i * x.size() + j] * x[j];
    y[i] = std::tanh(s);
  }
  return y;
}

static std::vector<double> squares(const std::vector<double> &v) {
  std::vector<double> r;
  for (double e : v)
    r.push_back(e * e);
  return r;
}

static std::vector<double> softmax(const std::vector<double> &z) {
  double m = *std::max_element(z.begin(), z.end());
  std::vector<double> e(z.size());
  std::transform(z.begin(), z.end(), e.begin(),
                 [m](double v) { return std::exp(v - m); });
  double s = std::accumulate(e.begin(), e.end(), 0.0);
  for (auto &v : e)
    v /= s;
  return e;
}

[[fluxion::hessian]] [[fluxion::jvp]] double
layered(const std::vector<double> &W, const std::vector<double> &x) {
  std::vector<double> h = affine(W, x, 0.1);
  std::vector<double> o = affine(W, h, -0.2);
  double s = 0;
  for (int k = 0; k < 2; ++k) {
    std::vector<double> q = squares(o);
    s += std::accumulate(q.begin(), q.end(), 0.0) * (k + 1) * W[k];
  }
  std::vector<double> p = softmax(o);
  p.push_back(h[0]); // the caller changes the returned vector's size
  return s - std::log(p[1]) + p.back() * p.size();
}

// insert(p, n, v), insert(p, b, e) and insert(p, {a, b}): runs of copies
// of a value, ranges of other vectors and braced lists spliced in front, in
// the middle, at the end, in a loop, and a run of none.
template <class T>
[[fluxion::hessian]] [[fluxion::jvp]] T spliced(const std::vector<T> &x, T w) {
  std::vector<T> p(x.begin(), x.end());
  p.insert(p.begin() + 2, 3, w * x[0]);
  std::vector<T> q = {w, w * w, T(0.5)};
  p.insert(p.begin(), q.begin() + 1, q.end());
  p.insert(p.end(), x.begin(), x.begin() + 2);
  p.insert(p.begin() + 4, 0, w);
  for (int r = 0; r < 2; ++r)
    p.insert(p.begin() + 1 + r, 2, std::sin(p[r + 3]) * w);
  // A braced list whose values read elements the insertion moves.
  p.insert(p.begin() + 3, {w * p[0], x[1], p[3] * p[7]});
  for (int r = 0; r < 2; ++r)
    p.insert(p.end() - 1 - r, {p[r] * w, std::cos(p[r + 4])});
  // A zero put in by emplace without a value; capacity changes nothing.
  p.emplace(p.begin() + 2);
  p[2] += w * p[1];
  p.shrink_to_fit();
  T s = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    s += T(i + 1) * p[i] * p[i] + p[i] * w;
  return s + T(p.size());
}

// A polyline refined by midpoints inserted in a loop, its two smallest
// entries erased, an end dropped and a value put in front; a window of it
// copied by iterators and shortened by a range erase, another assigned
// ranges of both; large entries
// erased by an iterator loop.
template <class T>
[[fluxion::hessian]] [[fluxion::jvp]] T edited(const std::vector<T> &x, T w) {
  std::vector<T> p(x.begin(), x.end());
  for (std::size_t i = 0; i + 1 < p.size(); i += 2)
    p.insert(p.begin() + i + 1, 0.5 * (p[i] + p[i + 1]) * w);
  for (int r = 0; r < 2; ++r) {
    std::size_t k = 0;
    for (std::size_t i = 1; i < p.size(); ++i)
      if (p[i] < p[k])
        k = i;
    p.erase(p.begin() + k);
  }
  p.erase(p.end() - 1);
  p.insert(p.begin(), std::sin(w) * p.back());
  // The erase-remove loop: erase returns the position after.
  for (auto it = p.begin(); it != p.end();)
    if (*it > 1.2)
      it = p.erase(it);
    else
      ++it;
  std::vector<T> mid(p.begin() + 1, p.end() - 1);
  mid.erase(mid.begin(), mid.begin() + 2);
  std::vector<T> tail;
  tail.assign(mid.begin() + 1, mid.end());
  tail.assign(x.begin(), x.begin() + 3);
  mid.push_back(tail[1] * tail[2]);
  T s = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    s += p[i] * p[i] * T(i + 1);
  for (T v : mid)
    s += std::cos(v) * T(mid.size());
  return s;
}

} // namespace sizes

namespace {

template <class T> void checkStepped() {
  std::vector<T> u0;
  for (int i = 0; i < 7; ++i)
    u0.push_back(T(0.4 * std::sin(0.9 * i + 0.3)));
  for (int steps : {0, 1, 5}) {
    auto R = fluxion::check_gradient(sizes::stepped<T>, sizes::stepped_grad<T>,
                                     u0, T(0.2), steps);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(sizes::stepped<T>, sizes::stepped_jvp<T>, u0,
                                T(0.2), steps);
    EXPECT_TRUE(J.ok()) << J;
    // Differences of float gradients are too coarse for H v.
    if (std::is_same_v<T, float>)
      continue;
    auto H = fluxion::check_hvp(sizes::stepped<T>, sizes::stepped_hvp<T>, u0,
                                T(0.2), steps);
    EXPECT_TRUE(H.ok()) << H;
  }
}

TEST(ContainerSizes, DeclaredInALoopAndCopiedBack) {
  checkStepped<double>();
  checkStepped<float>();
  checkStepped<long double>();
}

TEST(ContainerSizes, LengthChangingEveryStep) {
  std::vector<double> x = {0.3, -0.2, 0.5, 0.9, -0.4, 0.1};
  for (int steps : {1, 2, 4}) {
    auto R = fluxion::check_gradient(sizes::shrinking, sizes::shrinking_grad,
                                     x, steps);
    EXPECT_TRUE(R.ok()) << R;
    auto J =
        fluxion::check_jvp(sizes::shrinking, sizes::shrinking_jvp, x, steps);
    EXPECT_TRUE(J.ok()) << J;
    auto H =
        fluxion::check_hvp(sizes::shrinking, sizes::shrinking_hvp, x, steps);
    EXPECT_TRUE(H.ok()) << H;
  }
}

TEST(ContainerSizes, ResizeAssignClearPopBackAndCopies) {
  for (auto x : {std::vector<double>{0.7, -1.1, 0.4},
                 std::vector<double>{0.3, 0.2, 0.9, -1.2}}) {
    auto R = fluxion::check_gradient(sizes::reshaped, sizes::reshaped_grad, x,
                                     0.8);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(sizes::reshaped, sizes::reshaped_jvp, x, 0.8);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(sizes::reshaped, sizes::reshaped_hvp, x, 0.8);
    EXPECT_TRUE(H.ok()) << H;
  }
}

template <class T> void checkEdited() {
  for (auto x : {std::vector<T>{T(0.7), T(-1.1), T(0.4), T(1.3), T(-0.2)},
                 std::vector<T>{T(0.3), T(0.25), T(0.9), T(-1.2), T(0.6),
                                T(1.7)}}) {
    auto R = fluxion::check_gradient(sizes::edited<T>, sizes::edited_grad<T>,
                                     x, T(0.8));
    EXPECT_TRUE(R.ok()) << R;
    auto J =
        fluxion::check_jvp(sizes::edited<T>, sizes::edited_jvp<T>, x, T(0.8));
    EXPECT_TRUE(J.ok()) << J;
    // Differences of float gradients are too coarse for H v.
    if (std::is_same_v<T, float>)
      continue;
    auto H =
        fluxion::check_hvp(sizes::edited<T>, sizes::edited_hvp<T>, x, T(0.8));
    EXPECT_TRUE(H.ok()) << H;
  }
}

TEST(ContainerSizes, InsertAndErase) {
  checkEdited<double>();
  checkEdited<float>();
  checkEdited<long double>();
}

TEST(ContainerSizes, InsertRunsAndRanges) {
  const std::vector<double> x = {0.7, -1.1, 0.4, 1.3, -0.2};
  auto R = fluxion::check_gradient(sizes::spliced<double>,
                                   sizes::spliced_grad<double>, x, 0.8);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(sizes::spliced<double>,
                              sizes::spliced_jvp<double>, x, 0.8);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(sizes::spliced<double>,
                              sizes::spliced_hvp<double>, x, 0.8);
  EXPECT_TRUE(H.ok()) << H;
  const std::vector<float> xf = {0.7f, -1.1f, 0.4f, 1.3f, -0.2f};
  auto RF = fluxion::check_gradient(sizes::spliced<float>,
                                    sizes::spliced_grad<float>, xf, 0.8f);
  EXPECT_TRUE(RF.ok()) << RF;
}

TEST(ContainerSizes, SwappedBuffers) {
  std::vector<double> u0 = {0.3, -0.2, 0.5, 0.9, -0.4, 0.1};
  for (int steps : {0, 1, 4}) {
    auto R = fluxion::check_gradient(sizes::swapped, sizes::swapped_grad, u0,
                                     0.2, steps);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(sizes::swapped, sizes::swapped_jvp, u0, 0.2,
                                steps);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(sizes::swapped, sizes::swapped_hvp, u0, 0.2,
                                steps);
    EXPECT_TRUE(H.ok()) << H;
  }
}

TEST(ContainerSizes, InACallee) {
  std::vector<double> x = {0.3, -0.2, 0.5, 0.9, -0.4, 0.1};
  auto R = fluxion::check_gradient(sizes::smoothed, sizes::smoothed_grad, x,
                                   1.3);
  EXPECT_TRUE(R.ok()) << R;
}

TEST(ContainerSizes, OutputFilledByPushBack) {
  const std::vector<double> x = {0.3, -0.2, 0.5, 0.9};
  std::vector<double> y0 = {7, 8};
  std::vector<double> y = y0;
  sizes::features(x, y);
  const std::size_t m = y.size();
  ASSERT_EQ(m, 8u);
  // Each output's row of the Jacobian, by f_vjp with a unit seed, against
  // central differences; then the rows against f_jvp (the dot test).
  std::vector<std::vector<double>> rows;
  for (std::size_t r = 0; r < m; ++r) {
    std::vector<double> out = y0, seed(m, 0.0), dx(x.size(), 0.0);
    seed[r] = 1;
    sizes::features_vjp(x, out, &dx, &seed);
    // The entry elements are all dropped by clear(): no derivative reaches
    // them, and the seed's container is back to their number.
    ASSERT_EQ(seed.size(), y0.size());
    EXPECT_EQ(seed[0], 0);
    EXPECT_EQ(seed[1], 0);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double h = 1e-6;
      std::vector<double> up = x, dn = x, yu, yd;
      up[i] += h;
      dn[i] -= h;
      sizes::features(up, yu);
      sizes::features(dn, yd);
      EXPECT_NEAR(dx[i], (yu[r] - yd[r]) / (2 * h), 1e-7) << r << " " << i;
    }
    rows.push_back(dx);
  }
  std::vector<double> t = {0.1, 0.2, -0.3, 0.4}, out = y0, ty = {1, 1};
  sizes::features_jvp(x, out, &t, &ty);
  ASSERT_EQ(ty.size(), m);
  for (std::size_t r = 0; r < m; ++r) {
    double dot = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      dot += rows[r][i] * t[i];
    EXPECT_NEAR(ty[r], dot, 1e-12) << r;
    EXPECT_DOUBLE_EQ(out[r], y[r]);
  }
}

TEST(ContainerSizes, ReturnedByCallees) {
  std::vector<double> W = {0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9};
  for (std::vector<double> x : {std::vector<double>{0.5, -1.0, 2.0},
                                std::vector<double>{-0.3, 0.2, 0.9}}) {
    auto R = fluxion::check_gradient(sizes::layered, sizes::layered_grad, W, x);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(sizes::layered, sizes::layered_jvp, W, x);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(sizes::layered, sizes::layered_hvp, W, x);
    EXPECT_TRUE(H.ok()) << H;
  }
}

TEST(ContainerSizesDeathTest, SeedOfTheWrongSize) {
  const std::vector<double> x = {0.3, -0.2};
  std::vector<double> y, seed(1), dx(2);
  EXPECT_DEATH(sizes::features_vjp(x, y, &dx, &seed),
               "adjoint \\(seed\\) of a container output has 1 elements");
}

} // namespace
