// A primal's `static const` or `constexpr` local table is read in place by
// the plugin's generated code; in source, nothing outside the primal's body
// can name it, so each generated function that reads it declares it again
// at the top of its body, with the user's initializer (and the local
// constants that initializer uses), under a name nothing else there uses.
// Tables in the annotated function, in a differentiated callee (its _fwd
// and _bwd), in two instances of a function template, and a local variable
// that shadows a table. The output compiles with g++ and computes what the
// plugin build computes.
// RUN: %fluxion-gen %s --no-line -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: %FileCheck %s < %t.cpp
// REQUIRES: gxx
// RUN: %gxx -std=c++17 -Wall -Wextra -Werror -I%fluxion-include %t.cpp -o %t.gxx
// RUN: %t.gxx > %t.gxx.out
// RUN: %clangxx %fluxion %s -o %t.plugin
// RUN: %t.plugin > %t.plugin.out
// RUN: diff %t.gxx.out %t.plugin.out
// The line directives do not get in the way.
// RUN: %fluxion-gen %s -o %t.line.cpp -- -std=c++17 -I%fluxion-include
// RUN: %gxx -std=c++17 -Wall -Wextra -Werror -I%fluxion-include %t.line.cpp -o %t.line.gxx
// RUN: %t.line.gxx | diff - %t.plugin.out
#include <fluxion/fluxion.hpp>

#include <cstdio>

namespace quad {

// A callee: its _fwd and _bwd both read the tables.
double weighted(double v) {
  constexpr int n = 3;
  static constexpr double w[n] = {0.25, 0.5, 0.25};
  static const double scale(2.0);
  static const double shifted[2] = {n * 0.5, -n * 0.5};
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += w[i] * v * v * scale;
  return s + shifted[0] * v;
}

template <int N> double poly(double x) {
  static const double c[2] = {N * 0.5, 1.0};
  return c[0] * x + c[1] * x * x;
}

[[fluxion::grad]] double f(double x) {
  static const double node[2] = {0.5, 1.5};
  double r = node[0] * weighted(x) + poly<3>(x) - poly<2>(x);
  {
    double node = r * 2; // shadows the table
    r += node;
  }
  return r * node[1];
}

} // namespace quad

int main() {
  double dx = 0;
  double y = quad::f_grad(0.75, &dx);
  std::printf("%.17g %.17g\n", y, dx);
}
// Anchored: the output also holds these lines, as comments.
// CHECK-LABEL: {{^}}double f_vjp(double x, double seed, double *d_x) {
// CHECK-NEXT: {{^ +}}// static const double node[2] = {0.5, 1.5};
// CHECK-NEXT: {{^ +}}static const double node[2] = {0.5, 1.5};
// CHECK-NOT: {{^ +}}static
// CHECK: {{^ +}}double node_{{[0-9]+}} = 0.;
// CHECK-LABEL: {{^}}static double weighted_fwd(double v) {
// CHECK-DAG: {{^ +}}static constexpr {{.*}}double w[3] = {0.25, 0.5, 0.25};
// CHECK-DAG: {{^ +}}static const double scale(2.);
// CHECK-DAG: {{^ +}}constexpr const int [[N:n_[0-9]+]] = 3;
// CHECK-DAG: {{^ +}}static const double shifted[2] = {[[N]] * 0.5, -[[N]] * 0.5};
// CHECK-DAG: {{^ +}}int n = 0;
// CHECK-LABEL: {{^}}static void weighted_bwd(double v, double seed, double *d_v) {
// CHECK-DAG: {{^ +}}static constexpr {{.*}}double w[3] = {0.25, 0.5, 0.25};
// CHECK-DAG: {{^ +}}static const double scale(2.);
// CHECK-LABEL: {{^}}static double poly{{.*}}_fwd(double x) {
// CHECK: {{^ +}}static const double c[2] = {{[{][23]}} * 0.5, 1.};
// CHECK-LABEL: {{^}}static void poly{{.*}}_bwd(double x, double seed, double *d_x) {
// CHECK: {{^ +}}static const double c[2] = {{[{][23]}} * 0.5, 1.};
