// Placement in namespaces: nested and inline namespaces, a callee in an
// anonymous namespace, an out-of-line definition of a namespace member, a
// callee defined after its caller, a linkage-specification block. The
// output compiles with g++ and computes what the plugin build computes.
// RUN: %fluxion-gen %s --no-line -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: %FileCheck %s < %t.cpp
// REQUIRES: gxx
// RUN: %gxx -Wall -Wextra -Werror -I%fluxion-include %t.cpp -o %t.gxx
// RUN: %t.gxx > %t.gxx.out
// RUN: %clangxx %fluxion %s -o %t.plugin
// RUN: %t.plugin > %t.plugin.out
// RUN: diff %t.gxx.out %t.plugin.out
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>

namespace outer {
namespace inner {
double later(double v); // defined after its caller
double member(double v);
} // namespace inner
} // namespace outer

namespace {
double hidden(double v) { return std::exp(v); }
} // namespace

// An out-of-line definition: its helpers go after it, in outer::inner.
double outer::inner::member(double v) { return v * hidden(v); }
// CHECK-LABEL: double outer::inner::member(double v) { return v * hidden(v); }
// CHECK: namespace outer {
// CHECK-NEXT: namespace inner {
// CHECK-NEXT: static double member_fwd(double v);

namespace outer::inner {
[[fluxion::grad]] double f(double x) { return member(x) + later(x) * x; }
} // namespace outer::inner
// CHECK-LABEL: double f_vjp(double x, double seed, double *d_x) {
// CHECK: outer::inner::member_fwd(x)
// CHECK: outer::inner::later_fwd(x)

inline namespace v1 {
[[fluxion::grad]] double h(double x) { return hidden(x) * x; }
} // namespace v1
// CHECK-LABEL: double h_grad(double x, double *d_x);
// CHECK: } // namespace v1
// CHECK: inline namespace v1 {
// CHECK-NEXT: double h_vjp(double x, double seed, double *d_x) {
// CHECK: hidden_fwd(x)

extern "C++" {
[[fluxion::jvp]] double g(double x) { return hidden(x) * x; }
}
// CHECK-LABEL: double g_jvp(double x, double t_x) {

double outer::inner::later(double v) { return std::sin(v) * v; }

int main() {
  double dx = 0;
  double y = outer::inner::f_grad(0.5, &dx);
  double dh = 0;
  double z = h_grad(0.5, &dh);
  std::printf("%.17g %.17g %.17g %.17g\n", y, dx, z, dh);
  std::printf("%.17g\n", g_jvp(0.25, 1));
}
