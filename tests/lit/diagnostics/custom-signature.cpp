// A custom derivative whose name matches but whose signature does not is an
// error at the call that needs it, showing the expected signature and the
// candidates; a wrong return type and a forward part without its backward
// part are errors at the rule; a rule that never matches gets a warning.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

double g(double x, double y) { return x * y; }
double h(double x) { return x * x; }
double k(double x) { return x; }

namespace fluxion::custom {
// CHECK-DAG: custom-signature.cpp:[[@LINE+1]]:8: note: candidate custom derivative 'g_vjp'
double g_vjp(double x, double seed, double *d_x) { return 0; }
// CHECK-DAG: custom-signature.cpp:[[@LINE+1]]:7: error: fluxion: custom derivative 'h_vjp' returns 'float', but the convention asks for 'double'
float h_vjp(double x, double seed, double *d_x) { return 0; }
// CHECK-DAG: custom-signature.cpp:[[@LINE+1]]:8: warning: fluxion: custom derivative 'fluxion::custom::unused_vjp' is never used: no differentiated code calls a function 'unused' whose signature it matches
double unused_vjp(double x, double seed, double *d_x) { return 0; }
struct Res { double a; };
// CHECK-DAG: custom-signature.cpp:[[@LINE+1]]:8: error: fluxion: custom forward part 'k_fwd' has no matching backward part; expected 'void k_bwd(double x, const Residuals &res, double seed, double *d_x)' in namespace fluxion::custom
double k_fwd(double x, Res &r) { return x; }
} // namespace fluxion::custom

[[fluxion::grad]] double f(double x, double y) {
  // CHECK-DAG: custom-signature.cpp:[[@LINE+1]]:10: error: fluxion: custom derivative 'g_vjp' does not match the derivative convention for 'g'; expected 'double g_vjp(double x, double y, double seed, double *d_x, double *d_y)'
  return g(x, y) + h(x) + k(x);
}
// CHECK-NOT: warning: {{.*}}'fluxion::custom::g_vjp'
