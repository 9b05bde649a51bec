// Annotated function templates in a header that several translation units
// include (template_test.cpp and template_other_tu.cpp): each defines the
// instances it uses, and the linker merges them like any template instance.
#ifndef FLUXION_TESTS_SECOND_ORDER_TEMPLATE_LIB_HPP
#define FLUXION_TESTS_SECOND_ORDER_TEMPLATE_LIB_HPP

#include <fluxion/fluxion.hpp>

#include <cmath>

namespace tl {

// A chain of springs plus a pinned end: a type parameter, a pointer with a
// length, a scalar parameter of the template's type.
template <class T>
[[fluxion::grad]] [[fluxion::jvp]] inline T springs(const T *x, int n, T k) {
  T e = std::sin(x[0]);
  for (int i = 0; i + 1 < n; ++i) {
    T d = x[i + 1] - x[i];
    e += k * d * d + d * d * d * d / 12;
  }
  return e;
}

// A non-type parameter fixes the loop length.
template <int N>
[[fluxion::grad]] inline double weighted_dot(const double *x, const double *w) {
  double s = 0;
  for (int i = 0; i < N; ++i)
    s += w[i] * x[i] * x[i] + std::exp(w[i] * x[i] / N);
  return s;
}

// Type and non-type parameters, a fixed-size array: a dense Hessian per
// instance.
template <class T, int N> [[fluxion::hessian]] inline T ring(const T x[N]) {
  T s = 0;
  for (int i = 0; i < N; ++i)
    s += x[i] * x[(i + 1) % N] + std::cos(x[i]) * (i + 1);
  return s;
}

} // namespace tl

double springs_grad_from_other_tu(const double *x, int n, double k, double *d_x,
                                  double *d_k);

#endif
