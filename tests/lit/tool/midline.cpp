// A declaration that ends inside a line: the generated functions go on
// lines of their own and the rest of the line follows them, where the
// directive maps it back to its own line. Code on that line can call them.
// RUN: %fluxion-gen %s -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: %FileCheck %s --match-full-lines < %t.cpp
// REQUIRES: gxx
// RUN: %gxx -I%fluxion-include %t.cpp -o %t.exe
// RUN: %t.exe | %FileCheck %s --check-prefix=OUT
#include <fluxion/fluxion.hpp>
#include <cstdio>

[[fluxion::grad]] double sq(double x) { return x * x; } double dsq(double x) { double d = 0; sq_grad(x, &d); return d; }

int main() { std::printf("%g\n", dsq(1.5)); }

// CHECK:{{\[\[}}/*fluxion::grad*/]] double sq(double x) { return x * x; }
// CHECK-EMPTY:
// CHECK-NEXT:#line [[#LINE:@LINE-6]] "{{.*}}midline.cpp"
// CHECK-NEXT:double sq_vjp(double x, double seed, double *d_x) {
// CHECK:double sq_grad(double x, double *d_x) {
// CHECK:}
// CHECK-EMPTY:
// CHECK-NEXT:#line [[#LINE]] "{{.*}}midline.cpp"
// CHECK-NEXT: double dsq(double x) { double d = 0; sq_grad(x, &d); return d; }

// OUT: 3
