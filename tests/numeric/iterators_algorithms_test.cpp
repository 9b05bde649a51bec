// Iterators of std::vector and the standard algorithms over them, written
// the way C++ programmers write them: `for (auto it = x.begin(); it !=
// x.end(); ++it)`, `*it`, `it[1]`, `it->m`, `it - x.begin()`, std::next,
// std::distance; std::transform, std::for_each, std::accumulate and
// std::inner_product with lambdas and with std::plus / std::multiplies;
// std::fill, std::copy, std::partial_sum, std::adjacent_difference,
// std::reverse, std::sort, std::iota; *std::max_element, std::min_element
// and std::lower_bound positions; std::max({...}) and std::min({...}).
// Every derivative is checked against finite differences
// (fluxion::check_*), forward against reverse, and the Hessian-vector
// product against differences of gradients.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <iterator>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

namespace itr {

struct Point {
  double x, y;
};

// Iterator loops: forward, with a look-ahead, backwards, an index from the
// position, const_iterator and std::next / std::prev / std::distance.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
walk(const std::vector<double> &x, double k) {
  double s = 0;
  for (auto it = x.begin(); it != x.end(); ++it)
    s += std::sin(k * *it) * (it - x.begin() + 1);
  for (auto it = x.begin(); it + 1 < x.end(); it++)
    s += it[1] * *it;
  auto last = x.end();
  while (last != x.begin()) {
    --last;
    s += 0.1 * *last * *last;
  }
  std::vector<double>::const_iterator mid = std::next(x.cbegin(), 2);
  s += *std::prev(mid) * *mid * double(std::distance(x.begin(), x.end()));
  return s;
}

// Writing through iterators into an output, and members through `->`.
[[fluxion::grad]] [[fluxion::jvp]] void
scale_into(const std::vector<Point> &ps, double k, std::vector<double> &out) {
  auto o = out.begin();
  for (auto p = ps.begin(); p != ps.end() && o != out.end(); ++p, ++o)
    *o = k * p->x * p->x + std::exp(-p->y);
}

// Algorithms given lambdas: the lambda is called in place on each element;
// captured variables get their adjoints.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
with_lambdas(const std::vector<double> &x, const std::vector<double> &w,
             double k) {
  std::vector<double> y(x.size()), z(x.size());
  std::transform(x.begin(), x.end(), y.begin(),
                 [k](double v) { return std::tanh(k * v); });
  std::transform(y.begin(), y.end(), w.begin(), z.begin(),
                 [&](double a, double b) { return a * b + k; });
  double energy = 0;
  std::for_each(z.begin(), z.end(), [&energy](double v) { energy += v * v; });
  std::for_each(y.begin(), y.end(), [k](double &v) { v = v * k; });
  double folded = std::accumulate(y.begin(), y.end(), 1.0,
                                  [](double a, double b) { return a + b * b; });
  double generic = std::inner_product(
      x.begin(), x.end(), w.begin(), 0.0, [](auto a, auto b) { return a + b; },
      [](auto a, auto b) { return a * std::cos(b); });
  return energy + folded + generic;
}

// The folds with the library's function objects.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
with_functionals(const std::vector<double> &x, const std::vector<double> &w) {
  double prod = std::accumulate(x.begin(), x.end(), 1.0, std::multiplies<>());
  double dot = std::inner_product(x.begin(), x.end(), w.begin(), 0.0,
                                  std::plus<double>(), std::multiplies<double>());
  double diff = std::accumulate(x.begin() + 1, x.end(), x[0], std::minus<>());
  return prod + dot * dot + diff;
}

// Algorithms without an operation: the runtime's versions over the storage.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
library(const std::vector<double> &x, double k) {
  std::vector<double> y(x.size()), z(x.size() + 2);
  std::copy(x.begin(), x.end(), y.begin());
  std::partial_sum(y.begin(), y.end(), y.begin()); // in place
  std::fill(z.begin(), z.end(), k);
  std::copy(y.begin() + 1, y.end(), z.begin() + 2);
  std::reverse(z.begin(), z.end());
  std::vector<double> d(z.size());
  std::adjacent_difference(z.begin(), z.end(), d.begin());
  std::vector<double> r(3);
  std::iota(r.begin(), r.end(), k);
  double s = 0;
  for (std::size_t i = 0; i < d.size(); ++i)
    s += (i + 1) * d[i] * d[i];
  return s + r[2] * r[1] + std::accumulate(z.begin(), z.end(), 0.0);
}

// std::copy, std::copy_n, std::fill and std::fill_n are loops in place over
// the elements: a scratch buffer copied back at each step (nothing of it is
// recorded), a shift within one vector (overlapping ranges, copied forwards
// as the library does), a fill whose value is an element of the range it
// fills (read once, first), a copy from double into float storage, and a
// count below zero (nothing written).
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
copies_and_fills(const std::vector<double> &x, double k, int m) {
  const std::size_t n = x.size();
  std::vector<double> u(n), tmp(n);
  std::copy(x.begin(), x.end(), u.begin());
  for (int step = 0; step < 3; ++step) {
    for (std::size_t i = 0; i < n; ++i)
      tmp[i] = u[i] + k * u[(i + 1) % n] * u[(i + n - 1) % n];
    std::copy(tmp.begin(), tmp.end(), u.begin());
  }
  std::vector<double> z(n + 3);
  std::fill(z.begin(), z.end(), u[1] * k);
  std::copy_n(u.begin(), n, z.begin() + 2);
  std::copy(z.begin() + 1, z.end(), z.begin());
  std::fill(z.begin() + 3, z.end() - 1, z[4]);
  std::fill_n(z.begin(), m - 5, 100.0);
  std::vector<float> f(n);
  std::copy(u.begin(), u.end(), f.begin());
  std::fill_n(f.begin() + 1, 2, static_cast<float>(k));
  double s = 0;
  for (std::size_t i = 0; i < z.size(); ++i)
    s += (i + 1.0) * z[i] * z[i];
  for (float v : f)
    s += std::sin(double(v));
  return s;
}

// Sorting values: the values carry their derivatives to where they land.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
sorted(const std::vector<double> &x) {
  std::vector<double> y(x.size());
  std::transform(x.begin(), x.end(), y.begin(),
                 [](double v) { return v * v - v; });
  std::sort(y.begin(), y.end());
  double s = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    s += (i + 1.0) * y[i];
  return s;
}

// Sorting a local whose values carry no derivative but are read by the
// derivative first (weights): the sort's overwrite is recorded whole and
// given back in the reverse sweep, at every iteration.
[[fluxion::grad]] [[fluxion::jvp]] double
weighted_then_sorted(const std::vector<double> &x, int shift) {
  double s = 0;
  for (int k = 0; k < 4; ++k) {
    std::vector<double> w(x.size());
    for (std::size_t i = 0; i < w.size(); ++i)
      w[i] = std::cos(0.3 * double(i + k + shift));
    for (std::size_t i = 0; i < w.size(); ++i)
      s += std::sin(x[i] * w[i]);
    std::sort(w.begin(), w.end());
    s += x[k % x.size()] * w[0] * w[1];
  }
  return s;
}

// Positions: the derivative flows to the element selected.
[[fluxion::grad]] [[fluxion::jvp]] double positions(const std::vector<double> &x,
                                                    double t) {
  double top = *std::max_element(x.begin(), x.end());
  auto low = std::min_element(x.begin(), x.end());
  double idx = double(low - x.begin());
  std::vector<double> sorted_copy(x.size());
  std::copy(x.begin(), x.end(), sorted_copy.begin());
  std::sort(sorted_copy.begin(), sorted_copy.end());
  auto at = std::lower_bound(sorted_copy.begin(), sorted_copy.end(), t);
  double above = at != sorted_copy.end() ? *at : 0.0;
  return top * top + (idx + 1) * *low + above * t;
}

// std::max and std::min of a braced list: the first of equal values wins.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
extremes(double a, double b, double c) {
  return std::max({a * a, b, c + 1}) * std::min({a, b * c, 2.0});
}

// Algorithms over a vector of structs: the lambda takes the element by
// const reference or by value, returns an object into another vector, and
// folds into an object accumulator.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
over_structs(const std::vector<Point> &ps, double w) {
  double a = std::accumulate(ps.begin(), ps.end(), 0.0,
                             [](double s, const Point &p) { return s + p.x * p.y; });
  std::vector<Point> qs(ps.size());
  std::transform(ps.begin(), ps.end(), qs.begin(), [w](Point p) {
    return Point{p.y * w, std::sin(p.x)};
  });
  Point c = std::accumulate(qs.begin(), qs.end(), Point{w, 0.0},
                            [](Point acc, const Point &q) {
                              return Point{acc.x + q.x, acc.y + q.x * q.y};
                            });
  std::for_each(ps.begin(), ps.end(), [&](const Point &p) { a += w * p.x; });
  return a * c.x + c.y;
}

// Tests over the elements with lambdas: a count and answers that carry no
// derivative, used to scale the result.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
tested(const std::vector<double> &x, double w) {
  auto n = std::count_if(x.begin(), x.end(), [w](double v) { return v > w; });
  bool any = std::any_of(x.begin(), x.end(), [&](double v) { return v * w > 1; });
  bool all = std::all_of(x.begin() + 1, x.end(), [](double v) { return v < 3; });
  bool none = std::none_of(x.begin(), x.end(), [](double v) { return v > 5; });
  long m = fluxion::stop_gradient(
      std::count_if(x.begin(), x.end(), [](double v) { return v < 0; }));
  return (double(n) + 0.5 * m) * x[0] * w + (any ? x[1] : x[2]) +
         (all ? 2.0 : 3.0) * w * w + (none ? x[3] : 0.0);
}

// Positions in a local std::array are pointers.
[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
array_positions(double x, double y) {
  std::array<double, 4> c = {x, 2 * y, x * y, 1.0};
  double hi = *std::max_element(c.begin(), c.end());
  double lo = *std::min_element(c.begin(), c.end());
  return hi * lo + *std::max_element(c.begin() + 1, c.end() - 1);
}

// A float vector through a template.
template <class T>
[[fluxion::grad]] [[fluxion::jvp]] T norm1(const std::vector<T> &v) {
  T s = 0;
  for (auto it = v.begin(); it != v.end(); ++it)
    s += std::abs(*it) * (*it);
  return std::accumulate(v.begin(), v.end(), s);
}

// Positions chosen by a comparison or a test of the user's: the lambdas
// run in a loop in place; the chosen element carries the derivative.
[[fluxion::grad]] [[fluxion::jvp]] double
chosen_by_lambdas(const std::vector<double> &x,
                  const std::array<double, 4> &a) {
  auto it = std::find_if(x.begin(), x.end(), [](double v) { return v > 0.5; });
  double r = *it * 2;
  r += *std::max_element(x.begin(), x.end(), [](double p, double q) {
    return std::abs(p) < std::abs(q);
  });
  r += 3 * *std::min_element(a.begin(), a.end(), [&](double p, double q) {
    return p * x[0] < q * x[0];
  });
  auto nt = std::find_if_not(x.begin() + 1, x.end(),
                             [](double v) { return v < 0; });
  return r + *nt * *nt;
}

} // namespace itr

namespace {
const std::vector<double> X = {0.3, -1.1, 0.7, 1.9, -0.4};
const std::vector<double> W = {0.5, 0.25, -0.75, 1.5, -0.2};
} // namespace

TEST(Iterators, LoopsAndArithmetic) {
  auto R = fluxion::check_gradient(itr::walk, itr::walk_grad, X, 0.9);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(itr::walk, itr::walk_jvp, X, 0.9);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(itr::walk, itr::walk_hvp, X, 0.9);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Iterators, WriteThroughAndArrow) {
  std::vector<itr::Point> ps = {{0.5, 1.0}, {-0.3, 0.2}, {1.2, -0.7}};
  std::vector<double> out(3);
  auto R = fluxion::check_vjp(itr::scale_into, itr::scale_into_vjp, ps, 1.3, out);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(itr::scale_into, itr::scale_into_jvp, ps, 1.3, out);
  EXPECT_TRUE(J.ok()) << J;
  // By hand: d out[1] / d ps[1].x = 2 k x.
  std::vector<itr::Point> dps(3);
  std::vector<double> dout = {0, 1, 0};
  double dk = 0;
  itr::scale_into_vjp(ps, 1.3, out, &dps, &dk, &dout);
  EXPECT_NEAR(dps[1].x, 2 * 1.3 * -0.3, 1e-14);
  EXPECT_NEAR(dps[1].y, -std::exp(-0.2), 1e-14);
  EXPECT_NEAR(dk, 0.09, 1e-14);
}

TEST(Algorithms, TransformForEachFoldsWithLambdas) {
  auto R = fluxion::check_gradient(itr::with_lambdas, itr::with_lambdas_grad,
                                   X, W, 0.8);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(itr::with_lambdas, itr::with_lambdas_jvp, X, W,
                              0.8);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(itr::with_lambdas, itr::with_lambdas_hvp, X, W,
                              0.8);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Algorithms, FoldsWithFunctionObjects) {
  auto R = fluxion::check_gradient(itr::with_functionals,
                                   itr::with_functionals_grad, X, W);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(itr::with_functionals, itr::with_functionals_jvp,
                              X, W);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(itr::with_functionals, itr::with_functionals_hvp,
                              X, W);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Algorithms, LibraryVersionsOverStorage) {
  auto R = fluxion::check_gradient(itr::library, itr::library_grad, X, 0.6);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(itr::library, itr::library_jvp, X, 0.6);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(itr::library, itr::library_hvp, X, 0.6);
  EXPECT_TRUE(H.ok()) << H;
}

TEST(Algorithms, CopiesAndFillsAreLoopsInPlace) {
  for (int m : {2, 7}) {
    auto R = fluxion::check_gradient(itr::copies_and_fills,
                                     itr::copies_and_fills_grad, X, 0.35, m);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(itr::copies_and_fills,
                                itr::copies_and_fills_jvp, X, 0.35, m);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(itr::copies_and_fills,
                                itr::copies_and_fills_hvp, X, 0.35, m);
    EXPECT_TRUE(H.ok()) << H;
  }
}

TEST(Algorithms, SortOfValuesTheReverseSweepReads) {
  auto R = fluxion::check_gradient(itr::weighted_then_sorted,
                                   itr::weighted_then_sorted_grad, X, 2);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(itr::weighted_then_sorted,
                              itr::weighted_then_sorted_jvp, X, 2);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Algorithms, SortCarriesDerivativesWithValues) {
  auto R = fluxion::check_gradient(itr::sorted, itr::sorted_grad, X);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(itr::sorted, itr::sorted_jvp, X);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(itr::sorted, itr::sorted_hvp, X);
  EXPECT_TRUE(H.ok()) << H;
  // By hand: y = x^2 - x sorted; the element of rank r has weight r + 1.
  std::vector<double> y(X.size());
  std::vector<std::size_t> order(X.size());
  for (std::size_t i = 0; i < X.size(); ++i)
    y[i] = X[i] * X[i] - X[i], order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return y[a] < y[b]; });
  std::vector<double> dx(X.size());
  itr::sorted_grad(X, &dx);
  for (std::size_t r = 0; r < X.size(); ++r)
    EXPECT_NEAR(dx[order[r]], (r + 1.0) * (2 * X[order[r]] - 1), 1e-13) << r;
  // A longer vector, with repeated calls: nothing leaks between calls.
  std::vector<double> big(200);
  for (std::size_t i = 0; i < big.size(); ++i)
    big[i] = std::sin(7.3 * i + 0.1);
  auto B = fluxion::check_gradient(itr::sorted, itr::sorted_grad, big);
  EXPECT_TRUE(B.ok()) << B;
}

TEST(Algorithms, PositionsSelectElements) {
  auto R = fluxion::check_gradient(itr::positions, itr::positions_grad, X, 0.5);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(itr::positions, itr::positions_jvp, X, 0.5);
  EXPECT_TRUE(J.ok()) << J;
  // By hand: max is x[3] = 1.9, min is x[1] = -1.1 at index 1, the first
  // sorted value >= 0.5 is 0.7 = x[2].
  std::vector<double> dx(X.size());
  double dt = 0;
  itr::positions_grad(X, 0.5, &dx, &dt);
  EXPECT_NEAR(dx[3], 2 * 1.9, 1e-14);
  EXPECT_NEAR(dx[1], 2.0, 1e-14);
  EXPECT_NEAR(dx[2], 0.5, 1e-14);
  EXPECT_NEAR(dt, 0.7, 1e-14);
  EXPECT_EQ(dx[0], 0.0);
}

TEST(Algorithms, MaxAndMinOfALists) {
  for (double a : {-1.5, 0.3, 1.7})
    for (double b : {-0.8, 0.9}) {
      auto R = fluxion::check_gradient(itr::extremes, itr::extremes_grad, a, b,
                                       0.4);
      EXPECT_TRUE(R.ok()) << a << " " << b << "\n" << R;
      auto H = fluxion::check_hvp(itr::extremes, itr::extremes_hvp, a, b, 0.4);
      EXPECT_TRUE(H.ok()) << a << " " << b << "\n" << H;
    }
  // Ties: the first of equal values is selected, as by the library.
  double da = 0, db = 0, dc = 0;
  itr::extremes_grad(1.0, 1.0, 0.0, &da, &db, &dc); // max({1, 1, 1})
  // max picks a*a (the first): d/da = 2a * min(1, 0, 2) = 0, d/db = 0;
  // min picks b*c = 0: d/dc = b * max = 1, d/db = c * max = 0.
  EXPECT_EQ(db, 0.0);
  EXPECT_NEAR(dc, 1.0, 1e-15);
}

TEST(Algorithms, LambdasTakingStructElements) {
  std::vector<itr::Point> ps = {{0.5, 1.0}, {-0.3, 0.2}, {1.2, -0.7}};
  auto R = fluxion::check_gradient(itr::over_structs, itr::over_structs_grad,
                                   ps, 0.8);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(itr::over_structs, itr::over_structs_jvp, ps, 0.8);
  EXPECT_TRUE(J.ok()) << J;
  auto H = fluxion::check_hvp(itr::over_structs, itr::over_structs_hvp, ps, 0.8);
  EXPECT_TRUE(H.ok()) << H;
  // By hand, with one point: f = xy (w + y w) + w x + sin(x)(y w) ... the
  // derivative along w alone.
  std::vector<itr::Point> one = {{0.5, 2.0}};
  std::vector<itr::Point> dp(1);
  double dw = 0;
  itr::over_structs_grad(one, 0.8, &dp, &dw);
  double x = 0.5, y = 2.0, w = 0.8;
  // a = x y + w x, c.x = w + y w, c.y = y w sin(x).
  double expect = x * (w + y * w) + (x * y + w * x) * (1 + y) + y * std::sin(x);
  EXPECT_NEAR(dw, expect, 1e-12);
}
TEST(Algorithms, CountsAndAnswersOfTests) {
  for (double w : {0.2, 0.8, 2.5}) {
    auto R = fluxion::check_gradient(itr::tested, itr::tested_grad, X, w);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(itr::tested, itr::tested_jvp, X, w);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(itr::tested, itr::tested_hvp, X, w);
    EXPECT_TRUE(H.ok()) << H;
  }
}

TEST(Algorithms, PositionsInAStdArray) {
  for (auto [x, y] : {std::pair{0.4, -1.2}, std::pair{1.3, 0.7}, std::pair{-0.2, 2.0}}) {
    auto R = fluxion::check_gradient(itr::array_positions,
                                     itr::array_positions_grad, x, y);
    EXPECT_TRUE(R.ok()) << R;
    auto J = fluxion::check_jvp(itr::array_positions, itr::array_positions_jvp,
                                x, y);
    EXPECT_TRUE(J.ok()) << J;
    auto H = fluxion::check_hvp(itr::array_positions, itr::array_positions_hvp,
                                x, y);
    EXPECT_TRUE(H.ok()) << H;
  }
}
TEST(Iterators, FloatTemplate) {
  std::vector<float> v = {0.5f, -1.25f, 2.0f};
  std::vector<float> dv(3);
  itr::norm1_grad<float>(v, &dv);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(dv[i], 2 * std::abs(v[i]) + 1, 1e-5) << i;
  std::vector<double> x = X, dx(X.size());
  auto R = fluxion::check_gradient(itr::norm1<double>, itr::norm1_grad<double>, x);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(itr::norm1<double>, itr::norm1_jvp<double>, x);
  EXPECT_TRUE(J.ok()) << J;
}

TEST(Algorithms, PositionsChosenByLambdas) {
  std::vector<double> x = {0.1, -0.9, 0.7, 0.3};
  std::array<double, 4> a = {0.4, -0.2, 1.5, 0.8};
  auto R = fluxion::check_gradient(itr::chosen_by_lambdas,
                                   itr::chosen_by_lambdas_grad, x, a);
  EXPECT_TRUE(R.ok()) << R;
  auto J = fluxion::check_jvp(itr::chosen_by_lambdas,
                              itr::chosen_by_lambdas_jvp, x, a);
  EXPECT_TRUE(J.ok()) << J;
}
