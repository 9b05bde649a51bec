// Derivative templates (CONTRACT.md: "An annotated function template gets
// derivative templates of the same template parameters"). Not supported by
// the plugin yet ("'fluxion::grad' on a template is not supported yet"), so
// this file is built only when FLUXION_HAVE_TEMPLATE_DERIVATIVES is ON.
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <cmath>

namespace ft {

template <class T>
[[fluxion::grad]] [[fluxion::jvp]] T tmpl(T x, T y) {
  return x * std::exp(y) - y / (1 + x * x);
}

template <class T> [[fluxion::hessian]] T tmpl_h(T x, T y) {
  return x * x * y + std::sin(y);
}

} // namespace ft

namespace {

TEST(Templates, ForwardVsReverseFloatAndDouble) {
  so::Rng rng(28);
  for (int k = 0; k < 10; ++k) {
    double x = rng.uniform(-1, 1), y = rng.uniform(-1, 1);
    double tx = rng.uniform(-1, 1), ty = rng.uniform(-1, 1);
    double gx = 0, gy = 0;
    ft::tmpl_grad<double>(x, y, &gx, &gy);
    double fwd = ft::tmpl_jvp<double>(x, y, tx, ty);
    SO_EXPECT_CLOSE(fwd, gx * tx + gy * ty, 1e-12);
    // d/dx = e^y + 2xy/(1+x^2)^2, d/dy = x e^y - 1/(1+x^2).
    double q = 1 + x * x;
    SO_EXPECT_CLOSE(gx, std::exp(y) + 2 * x * y / (q * q), 1e-12);
    SO_EXPECT_CLOSE(gy, x * std::exp(y) - 1 / q, 1e-12);
    float fgx = 0, fgy = 0;
    ft::tmpl_grad(float(x), float(y), &fgx, &fgy); // deduced
    float ffwd = ft::tmpl_jvp(float(x), float(y), float(tx), float(ty));
    SO_EXPECT_CLOSE(ffwd, fgx * float(tx) + fgy * float(ty), 1e-5);
    SO_EXPECT_CLOSE(ffwd, fwd, 1e-5);
  }
}

TEST(Templates, Hessian) {
  double H[4];
  ft::tmpl_h_hessian<double>(0.5, 0.25, H);
  // f = x^2 y + sin y: [[2y, 2x], [2x, -sin y]]
  SO_EXPECT_CLOSE(H[0], 0.5, 1e-14);
  SO_EXPECT_CLOSE(H[1], 1.0, 1e-14);
  SO_EXPECT_CLOSE(H[2], 1.0, 1e-14);
  SO_EXPECT_CLOSE(H[3], -std::sin(0.25), 1e-14);
}

} // namespace
