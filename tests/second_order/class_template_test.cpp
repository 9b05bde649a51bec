// Annotated members of class templates (CONTRACT.md, "Templates"): the
// derivative members are members of the class template, instantiated with
// each instance of the class the program uses. fluxion-gen does not write
// members of class templates yet (a located error), so this program is
// built with the plugin only, outside the round trip.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <cmath>

namespace {

template <class T> struct Spring {
  T k = 2, rest = 1;
  [[fluxion::grad]] [[fluxion::jvp]] T energy(T x) const {
    T d = x - rest;
    return k * d * d / 2 + std::sin(x);
  }
  // The object's members are differentiated too.
  [[fluxion::grad("x", "this")]] T tension(const T *x, int n) const {
    T s = 0;
    for (int i = 0; i + 1 < n; ++i) {
      T d = x[i + 1] - x[i] - rest;
      s += k * d * d;
    }
    return s;
  }
};

template <class T, int N> struct Poly {
  T c[N];
  [[fluxion::grad]] T eval(T x) const {
    T r = 0;
    for (int i = N - 1; i >= 0; --i)
      r = r * x + c[i];
    return r;
  }
};

template <class T> void checkSpring(double x0) {
  Spring<T> s;
  T x = T(x0);
  auto R = fluxion::check_gradient(
      [&](T v) { return s.energy(v); },
      [&](T v, T *d) { return s.energy_grad(v, d); }, x);
  EXPECT_TRUE(R.ok()) << R;
  T d = 0;
  s.energy_grad(x, &d);
  SO_EXPECT_CLOSE(s.energy_jvp(x, T(1)), d, 1e-5);
  SO_EXPECT_CLOSE(d, s.k * (x - s.rest) + std::cos(x), 1e-5);
}

TEST(ClassTemplates, MemberOfEveryInstance) {
  checkSpring<float>(0.3);
  checkSpring<double>(2.5);
  checkSpring<long double>(-1.25);
}

TEST(ClassTemplates, ObjectMembersDifferentiated) {
  Spring<double> s;
  s.k = 1.5;
  s.rest = 0.5;
  double x[4] = {0.1, 0.9, 1.2, 2.0}, dx[4] = {};
  Spring<double> ds{0, 0};
  s.tension_grad(x, 4, dx, &ds);
  double dk = 0, drest = 0, ex[4] = {};
  for (int i = 0; i + 1 < 4; ++i) {
    double d = x[i + 1] - x[i] - s.rest;
    dk += d * d;
    drest += -2 * s.k * d;
    ex[i + 1] += 2 * s.k * d;
    ex[i] -= 2 * s.k * d;
  }
  SO_EXPECT_CLOSE(ds.k, dk, 1e-13);
  SO_EXPECT_CLOSE(ds.rest, drest, 1e-13);
  for (int i = 0; i < 4; ++i)
    SO_EXPECT_CLOSE(dx[i], ex[i], 1e-13);
}

TEST(ClassTemplates, NonTypeParameterOfTheClass) {
  Poly<double, 4> p{{1, -2, 0.5, 3}};
  Poly<float, 2> q{{1, -2}};
  double d = 0;
  p.eval_grad(0.7, &d);
  SO_EXPECT_CLOSE(d, -2 + 2 * 0.5 * 0.7 + 3 * 3 * 0.7 * 0.7, 1e-13);
  float e = 0;
  q.eval_grad(0.7f, &e);
  SO_EXPECT_CLOSE(e, -2.0f, 1e-6);
}

} // namespace
