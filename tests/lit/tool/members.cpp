// Calls to static member functions: the engine declares their derivatives
// in the callee's class, so fluxion-gen declares them there too (before the
// class's closing brace, public, so that the generated functions outside
// the class can call them even when the callee is private) and defines them
// after the class, named with their classes, in the class's namespace.
// Nested classes, a class in a namespace, a member defined out of line, a
// private member called by a friend, a member reading a static table. The
// output compiles with g++ and computes what the plugin build computes.
// RUN: %fluxion-gen %s --no-line -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: %FileCheck %s < %t.cpp
// REQUIRES: gxx
// RUN: %gxx -std=c++17 -Wall -Wextra -Werror -I%fluxion-include %t.cpp -o %t.gxx
// RUN: %t.gxx > %t.gxx.out
// RUN: %clangxx %fluxion %s -o %t.plugin
// RUN: %t.plugin > %t.plugin.out
// RUN: diff %t.gxx.out %t.plugin.out
// With line directives, and the declarations header leaves members out.
// RUN: %fluxion-gen %s -o %t.line.cpp --declarations %t.hpp -- -std=c++17 -I%fluxion-include
// RUN: %gxx -std=c++17 -Wall -Wextra -Werror -I%fluxion-include %t.line.cpp -o %t.line.gxx
// RUN: %t.line.gxx | diff - %t.plugin.out
// RUN: %FileCheck %s --check-prefix=HEADER < %t.hpp
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>

namespace nn {
class Layer {
  static double act(double x) {
    static const double a[2] = {0.5, 2.0};
    return a[0] * std::tanh(a[1] * x);
  }
  friend double run(double);

public:
  struct Inner {
    static double sq(double v) { return v * v; }
    static double cube(double v);
  };
};

double Layer::Inner::cube(double v) { return v * sq(v); }

inline double run(double x) { return Layer::act(x); }
} // namespace nn

struct Top { static double twice(double x) { return 2 * x; } };

[[fluxion::grad]] double f(double x) {
  return nn::run(x) * nn::Layer::Inner::sq(x) + nn::Layer::Inner::cube(x) +
         Top::twice(x);
}

// HEADER: double f_grad(double x, double *d_x);
// HEADER-NOT: _fwd

int main() {
  double dx = 0;
  double y = f_grad(0.75, &dx);
  std::printf("%.17g %.17g\n", y, dx);
}
// Anchored: the output also holds these lines, as comments.
// CHECK-LABEL: {{^}}namespace nn {
// CHECK: {{^}}  struct Inner {
// CHECK: {{^}}    static double cube(double v);
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}public:
// CHECK-NEXT: {{^}}  static double sq_fwd(double v);
// CHECK: {{^}}  static double cube_fwd(double v);
// CHECK: {{^}}  };
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}public:
// CHECK-NEXT: {{^}}  static double act_fwd(double x);
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  static void act_bwd(double x, double seed, double *d_x);
// CHECK-NEXT: {{^}}};
// CHECK: {{^}}struct Top { static double twice(double x) { return 2 * x; } {{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}public:
// CHECK-NEXT: {{^}}  static double twice_fwd(double x);
// CHECK: {{^}}};
// CHECK-LABEL: {{^}}double f_vjp(double x, double seed, double *d_x) {
// CHECK: {{^ +}}_sq = nn::Layer::Inner::sq_fwd(x);
// CHECK: {{^ +}}_twice = Top::twice_fwd(x);
// CHECK: {{^}}namespace nn {
// CHECK-DAG: {{^}}double Layer::Inner::sq_fwd(double v) {
// CHECK-DAG: {{^}}double Layer::Inner::cube_fwd(double v) {
// CHECK: {{^}}} // namespace nn
// CHECK: {{^}}double Top::twice_fwd(double x) {
// CHECK: {{^}}void Top::twice_bwd({{.*}}double x, double seed, double *d_x) {
// CHECK: {{^}}namespace nn {
// CHECK-NEXT: {{^}}double Layer::act_fwd(double x) {
// CHECK-NEXT: {{^ +}}// static const double a[2] = {0.5, 2.0};
// CHECK-NEXT: {{^ +}}static const double a[2] = {0.5, 2.};
