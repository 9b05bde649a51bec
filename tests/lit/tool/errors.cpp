// Errors are the plugin's located diagnostics, and fluxion-gen exits with a
// failure and writes no output for the file.
// RUN: rm -f %t.cpp
// RUN: not %fluxion-gen %s -o %t.cpp -- -std=c++17 -I%fluxion-include 2>&1 | %FileCheck %s
// RUN: not test -e %t.cpp
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
// A file Clang itself rejects fails the same way.
// RUN: not %fluxion-gen %S/Inputs/not-cxx.cpp -o %t.cpp -- -std=c++17 2>&1 | %FileCheck %s --check-prefix=CLANG
// RUN: not test -e %t.cpp
#include <fluxion/fluxion.hpp>

double opaque(double x);

[[fluxion::grad]] double f(double x) { return opaque(x) * x; }
// CHECK-DAG: errors.cpp:[[#@LINE-1]]:47: error: {{.*}}'opaque'
// CHECK-DAG: errors.cpp:[[#@LINE-2]]:26: note: {{.*}}'f'

[[fluxion::grad("z")]] double g(double x) { return x; }
// CHECK-DAG: errors.cpp:[[#@LINE-1]]:17: error: {{.*}}'z'

// CLANG: not-cxx.cpp:{{[0-9]+}}:{{[0-9]+}}: error:
