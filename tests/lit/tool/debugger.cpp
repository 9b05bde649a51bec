// With the #line directives, a debugger steps through the adjoint against
// the original code: down the loop body in the forward sweep, back up it in
// the reverse sweep.
// REQUIRES: gxx, gdb
// RUN: %fluxion-gen %s -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: %gxx -g -O0 -I%fluxion-include %t.cpp -o %t.exe
// RUN: gdb -nx -batch -ex 'break energy_vjp' -ex run \
// RUN:     -ex next -ex next -ex next -ex next -ex next -ex next -ex next \
// RUN:     -ex next -ex next -ex next -ex next -ex next -ex next -ex next \
// RUN:     -ex next -ex next -ex next -ex next -ex next -ex next %t.exe 2>&1 \
// RUN:   | %FileCheck %s
#include <fluxion/fluxion.hpp>

#include <cmath>

static double spring(double d, double k) { return 0.5 * k * d * d; }

[[fluxion::grad]] double energy(const double *x, double k, int n) {
  double e = 0;
  for (int i = 1; i < n; ++i) {
    double d = x[i] - x[i - 1];
    e += spring(d, k) + std::sin(x[i]);
  }
  return e;
}

int main() {
  double x[3] = {0.1, 0.5, -0.3}, dx[3] = {0, 0, 0}, dk = 0;
  return energy_grad(x, 2.0, 3, dx, &dk) > 0;
}

// The breakpoint is at the function the adjoint differentiates.
// CHECK: Breakpoint 1, energy_vjp ({{.*}}debugger.cpp:[[#FN:@LINE-15]]
// Forward sweep.
// CHECK: {{^}}[[#FN+1]]{{[[:space:]]+}}double e = 0;
// CHECK: {{^}}[[#FN+2]]{{[[:space:]]+}}for (int i = 1; i < n; ++i) {
// CHECK: {{^}}[[#FN+3]]{{[[:space:]]+}}double d = x[i] - x[i - 1];
// CHECK: {{^}}[[#FN+4]]{{[[:space:]]+}}e += spring(d, k) + std::sin(x[i]);
// CHECK: {{^}}[[#FN+6]]{{[[:space:]]+}}return e;
// Reverse sweep, upwards.
// CHECK: {{^}}[[#FN+4]]{{[[:space:]]+}}e += spring(d, k) + std::sin(x[i]);
// CHECK: {{^}}[[#FN+3]]{{[[:space:]]+}}double d = x[i] - x[i - 1];
