// Forward mode through a callee that takes floating arguments but returns a
// non-floating value (bool, int). Valid code that does not compile yet: the
// generated tangent callee ends in `return;` instead of returning its value:
//
//   static bool big(double x, double y) { return x >= y; }
//   [[fluxion::jvp]] double f(double x, double y) { return big(x, y) ? x * y : y; }
//   -> error: non-void function 'big_dual' should return a value
//
// The same bug breaks [[fluxion::hessian]] on any function that calls
// std::fmax / std::fmin, whose rules in runtime/include/fluxion/math.hpp call
// the bool helpers fmaxTakesX / fminTakesX ('fmaxTakesX_dual'). Built only
// when FLUXION_HAVE_FWD_NONFLOAT_CALLEES is ON.
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <cmath>
#include <vector>

namespace nf {

static bool big(double x, double y) { return x >= y; }
static int cls(double x) { return x > 1 ? 2 : 1; }

[[fluxion::grad]] [[fluxion::jvp]] double pick(double x, double y) {
  return big(x, y) ? x * y * cls(y) : y * y;
}

[[fluxion::hessian]] double pick2(double x, double y) {
  return big(x, y) ? x * x * y * cls(y) : y * y * y;
}

[[fluxion::hessian]] [[fluxion::jvp]] double minmax(double x, double y) {
  return std::fmin(x * x, y) * std::fmax(x, y * y);
}

} // namespace nf

namespace {

TEST(NonFloatCallee, JvpThroughBoolAndIntHelpers) {
  so::Rng rng(301);
  for (int t = 0; t < 20; ++t) {
    double x = rng.uniform(-2, 2), y = rng.uniform(-2, 2);
    double c = y > 1 ? 2 : 1;
    double dx = x >= y ? y * c : 0, dy = x >= y ? x * c : 2 * y;
    SO_EXPECT_CLOSE(nf::pick_jvp(x, y, 1, 0), dx, 1e-14);
    SO_EXPECT_CLOSE(nf::pick_jvp(x, y, 0, 1), dy, 1e-14);
    double H[4];
    nf::pick2_hessian(x, y, H);
    if (x >= y) {
      SO_EXPECT_CLOSE(H[0], 2 * y * c, 1e-14);
      SO_EXPECT_CLOSE(H[1], 2 * x * c, 1e-14);
      SO_EXPECT_CLOSE(H[3], 0, 1e-14);
    } else {
      SO_EXPECT_CLOSE(H[0], 0, 1e-14);
      SO_EXPECT_CLOSE(H[1], 0, 1e-14);
      SO_EXPECT_CLOSE(H[3], 6 * y, 1e-14);
    }
  }
}

TEST(NonFloatCallee, HessianOfFminFmax) {
  so::Rng rng(302);
  for (int t = 0; t < 20; ++t) {
    std::vector<double> x = {rng.uniform(0.3, 2), rng.uniform(0.3, 2)};
    double H[4];
    nf::minmax_hessian(x[0], x[1], H);
    auto g = [](const std::vector<double> &p) {
      std::vector<double> d(2, 0.0);
      nf::minmax_grad(p[0], p[1], &d[0], &d[1]);
      return d;
    };
    for (int j = 0; j < 2; ++j) {
      std::vector<double> col = so::fd_vec_dir(g, x, so::unit(2, j));
      for (int i = 0; i < 2; ++i)
        SO_EXPECT_CLOSE(H[i * 2 + j], col[i], 1e-6);
    }
  }
}

} // namespace
