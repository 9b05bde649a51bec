// Functions the engine generates for declarations in a header go into the
// main file right after the #include that brings them in, inside their
// namespace; quoted includes are still found next to the input (-I).
// RUN: %fluxion-gen %s --no-line -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: %FileCheck %s --match-full-lines < %t.cpp
// REQUIRES: gxx
// RUN: %gxx -I%fluxion-include -I%S %t.cpp -o %t.exe
// RUN: %t.exe | %FileCheck %s --check-prefix=OUT
#include "Inputs/annotated.h"
#include <cstdio>

int main() {
  double dx = 0;
  double y = lib::scaled_sq_grad(2, &dx);
  std::printf("%g %g\n", y, dx);
}
// CHECK:#include "Inputs/annotated.h"
// CHECK-EMPTY:
// CHECK-NEXT:namespace lib {
// CHECK-NEXT:static double scale_fwd(double v);
// CHECK-EMPTY:
// CHECK-NEXT:static void scale_bwd(double v, double seed, double *d_v);
// CHECK-EMPTY:
// CHECK-NEXT:double scaled_sq_vjp(double x, double seed, double *d_x) {
// CHECK:double scaled_sq_grad(double x, double *d_x) {
// CHECK:static double scale_fwd(double v) {
// CHECK:} // namespace lib
// CHECK-EMPTY:
// CHECK-NEXT:#include <cstdio>

// OUT: 12 12
