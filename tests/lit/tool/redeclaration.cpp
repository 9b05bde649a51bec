// fluxion-gen on annotated redeclarations of functions from a system header
// (driver/redeclaration.cpp, which checks the derivatives against finite
// differences): the output compiles with g++ without warnings and computes
// what the plugin build computes.
// RUN: %fluxion-gen %S/../driver/redeclaration.cpp --no-line -o %t.cpp -- -std=c++17 -I%fluxion-include -isystem %S/../driver/Inputs/isystem
// RUN: %FileCheck %s < %t.cpp
// REQUIRES: gxx
// RUN: %gxx -O1 -Wall -Wextra -Werror -I%fluxion-include -isystem %S/../driver/Inputs/isystem %t.cpp -o %t.exe
// RUN: %t.exe | %FileCheck %S/../driver/redeclaration.cpp --implicit-check-not=FAILED

// The annotations are commented out, for other compilers.
// CHECK: {{^}}{{\[\[}}/*fluxion::grad*/]] {{\[\[}}/*fluxion::jvp*/]] double vendor::drag(double, double);
// CHECK: {{^}}{{\[\[}}/*fluxion::grad("x")*/]] double vendor::energy(const double *, int, double);
// The generated functions are named after the definition's parameters.
// CHECK-DAG: double drag_grad(double v, double c, double *d_v, double *d_c)
// CHECK-DAG: double drag_jvp(double v, double c, double t_v, double t_c)
// CHECK-DAG: double energy_grad(const double *x, int n, double k, double *d_x)
