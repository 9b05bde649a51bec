// fluxion-gen parses its output again before writing it: output that does
// not compile is an error of fluxion-gen's, located in the output (with the
// offending line and the input line it comes from), and nothing is written.
// Here a macro of the user's is named like a parameter of the generated
// functions: the plugin's generated code is not text and does not see it.
// RUN: rm -f %t.cpp
// RUN: not %fluxion-gen %s -o %t.cpp -- -std=c++17 -I%fluxion-include 2>&1 | %FileCheck %s
// RUN: not test -e %t.cpp
// RUN: %clangxx %fluxion -fsyntax-only %s
// --no-compile-check writes the output anyway, to look at.
// RUN: %fluxion-gen %s --no-compile-check -o %t.cpp -- -std=c++17 -I%fluxion-include
// RUN: %FileCheck %s --check-prefix=WRITTEN < %t.cpp
#include <fluxion/fluxion.hpp>

#define seed 0

[[fluxion::grad]] double f(double x) { return x * x; }
// CHECK: compile-check.cpp.tmp.cpp:[[#]]:[[#]]: error: fluxion-gen produced output that does not compile: {{.*}}
// CHECK-NEXT: {{ *}}[[#]] | double f_vjp(double x, double seed, double *d_x) {
// CHECK-NEXT: {{ *}}| {{ *}}^
// CHECK: compile-check.cpp:[[#@LINE-4]]: note: line [[#]] of the output comes from this line
// CHECK: fluxion-gen: error: the output for '{{.*}}compile-check.cpp' does not compile: this is a bug in fluxion-gen, not in your code

// WRITTEN: double f_vjp(double x, double seed, double *d_x) {
