// --declarations writes the generated functions that other translation
// units can call, as a header; alone, it writes nothing else. Internal
// helpers (static, anonymous namespace) and inline functions stay out.
// RUN: %fluxion-gen %s --declarations %t.hpp -- -std=c++17 -I%fluxion-include > %t.stdout
// RUN: count 0 < %t.stdout
// RUN: %FileCheck %s --match-full-lines < %t.hpp
// Another translation unit calls the derivatives through the header and
// links with the output compiled by g++.
// REQUIRES: gxx
// RUN: %fluxion-gen %s -o %t.cpp --declarations %t.both.hpp -- -std=c++17 -I%fluxion-include
// RUN: %FileCheck %s --match-full-lines < %t.both.hpp
// RUN: %gxx -I%fluxion-include -c %t.cpp -o %t.o
// RUN: %gxx -include %t.hpp %S/Inputs/call-declarations.cpp %t.o -o %t.exe
// RUN: %t.exe | %FileCheck %s --check-prefix=OUT
#include <fluxion/fluxion.hpp>

namespace phys {

static double sq(double v) { return v * v; }

[[fluxion::grad]] double kinetic(double m, double v) { return 0.5 * m * sq(v); }

[[fluxion::jvp]] double spring(double k, double x) { return 0.5 * k * x * x; }

[[fluxion::grad]] inline double inlined(double x) { return x; }

} // namespace phys

namespace {
[[fluxion::grad]] double hidden(double x) { return x; }
} // namespace

[[fluxion::grad]] static double internal(double x) { return x; }

// CHECK:// Declarations of the functions fluxion-gen generated from {{.*}}declarations.cpp.
// CHECK-NEXT:// Include it after the declarations of the types they use.
// CHECK-NEXT:#ifndef [[GUARD:FLUXION_GENERATED_DECLARATIONS_CPP_TMP[A-Z_]*HPP]]
// CHECK-NEXT:#define [[GUARD]]
// CHECK-EMPTY:
// CHECK-NEXT:// From {{.*}}declarations.cpp
// CHECK-NEXT:namespace phys {
// CHECK-NEXT:double kinetic_vjp(double m, double v, double seed, double *d_m, double *d_v);
// CHECK-EMPTY:
// CHECK-NEXT:double kinetic_grad(double m, double v, double *d_m, double *d_v);
// CHECK-EMPTY:
// CHECK-NEXT:double spring_jvp(double k, double x, double t_k, double t_x);
// CHECK-NEXT:} // namespace phys
// CHECK-EMPTY:
// CHECK-NEXT:#endif // [[GUARD]]

// OUT: kinetic 4.5 4.5 3
// OUT-NEXT: spring 6
