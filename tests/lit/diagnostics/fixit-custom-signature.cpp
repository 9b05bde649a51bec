// A call to a library function without a visible body and without a
// custom derivative: the error is followed by a note with the exact
// signature of the custom derivative to write, parameter names included.
// Rules written with those signatures (WRITTEN) are used.
// RUN: not %clangxx %fluxion -fsyntax-only -fno-caret-diagnostics -isystem %S/Inputs/isystem %s 2>&1 | %FileCheck %s
// RUN: %clangxx %fluxion -fsyntax-only -Werror -isystem %S/Inputs/isystem -DWRITTEN %s
#include <opaque.h>

#include <fluxion/fluxion.hpp>

#ifdef WRITTEN
namespace fluxion::custom {
double bessel_vjp(double order, double x, double seed, double *d_order,
                  double *d_x) {
  *d_x += seed * order;
  *d_order += seed * x;
  return opaque::bessel(order, x);
}
double bessel_jvp(double order, double x, double t_order, double t_x) {
  return order * t_x + x * t_order;
}
double weighted_vjp(const double *w, int n, double scale, double seed,
                    double *d_w, double *d_scale) {
  for (int i = 0; i < n; ++i)
    d_w[i] += seed * scale;
  *d_scale += seed;
  return opaque::weighted(w, n, scale);
}
double weighted_jvp(const double *w, int n, double scale, const double *t_w,
                    double t_scale) {
  double t = 0;
  for (int i = 0; i < n; ++i)
    t += t_w[i] * scale;
  return t + t_scale * opaque::weighted(w, n, 1.0) / 1.0;
}
double local_vjp(const double *w, double x, double seed, double *d_w,
                 double *d_x) {
  d_w[0] += seed * x;
  *d_x += seed * w[0];
  return w[0] * x;
}
} // namespace fluxion::custom
#endif

[[fluxion::grad]] double f(double x) {
  // CHECK: fixit-custom-signature.cpp:[[@LINE+2]]:10: error: fluxion: cannot differentiate call to 'bessel': {{.*}} define 'fluxion::custom::bessel_vjp'
  // CHECK-NEXT: fixit-custom-signature.cpp:[[@LINE+1]]:10: note: the custom derivative to define in namespace fluxion::custom: 'double bessel_vjp(double order, double x, double seed, double *d_order, double *d_x)'
  return opaque::bessel(1.5, x) * x;
}

[[fluxion::jvp]] double g(double x, double s) {
  // CHECK: fixit-custom-signature.cpp:[[@LINE+2]]:10: error: fluxion: cannot differentiate call to 'bessel': {{.*}} define 'fluxion::custom::bessel_jvp'
  // CHECK-NEXT: fixit-custom-signature.cpp:[[@LINE+1]]:10: note: the custom derivative to define in namespace fluxion::custom: 'double bessel_jvp(double order, double x, double t_order, double t_x)'
  return opaque::bessel(s, x);
}

[[fluxion::grad]] double h(const double *w, double s) {
  // CHECK: fixit-custom-signature.cpp:[[@LINE+2]]:10: error: fluxion: cannot differentiate call to 'weighted': {{.*}} define 'fluxion::custom::weighted_vjp'
  // CHECK-NEXT: fixit-custom-signature.cpp:[[@LINE+1]]:10: note: the custom derivative to define in namespace fluxion::custom: 'double weighted_vjp(const double *w, int n, double scale, double seed, double *d_w, double *d_scale)'
  return opaque::weighted(w, 3, s);
}
// CHECK-NOT: error:

// The tangent of a const pointer input is a const pointer.
[[fluxion::jvp]] double hj(const double *w, double s) {
  // CHECK: fixit-custom-signature.cpp:[[@LINE+2]]:10: error: fluxion: cannot differentiate call to 'weighted': {{.*}} define 'fluxion::custom::weighted_jvp'
  // CHECK-NEXT: fixit-custom-signature.cpp:[[@LINE+1]]:10: note: the custom derivative to define in namespace fluxion::custom: 'double weighted_jvp(const double *w, int n, double scale, const double *t_w, double t_scale)'
  return opaque::weighted(w, 3, s);
}

// A function of the user's own without a body, reported at the end of the
// translation unit, gets the same note.
double local(const double *w, double x);
[[fluxion::grad]] double k(const double *w, double x) {
  // CHECK: fixit-custom-signature.cpp:[[@LINE+2]]:10: error: fluxion: cannot differentiate call to 'local': {{.*}} define 'fluxion::custom::local_vjp'
  // CHECK-NEXT: fixit-custom-signature.cpp:[[@LINE+1]]:10: note: the custom derivative to define in namespace fluxion::custom: 'double local_vjp(const double *w, double x, double seed, double *d_w, double *d_x)'
  return local(w, x) * x;
}
// CHECK-NOT: error:
