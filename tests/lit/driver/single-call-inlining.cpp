// With optimisation on, a callee's generated sweeps that generated code calls
// from one place are marked always_inline: inlined first, optimised once.
// Sweeps called from two places, entry points user code may call (even
// static ones), and recursive sweeps are left to the optimiser; at -O0
// nothing is marked.
// RUN: %clangxx %fluxion -O1 -S -emit-llvm -Xclang -disable-llvm-passes %s -o - | %FileCheck %s
// RUN: %clangxx %fluxion -O0 -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=O0
#include <fluxion/fluxion.hpp>

#include <cmath>

static double once(double x) { return std::sin(x) * x; }
static double twice(double x) { return std::exp(x) * x; }
static double fact(double x, int n) { return n <= 1 ? x : x * fact(x, n - 1); }

[[fluxion::grad]] static double entry(double x) { return x * std::cos(x); }

// once and entry are called once, twice twice, fact recursively.
[[fluxion::grad]] double top(double x, double y) {
  return once(x) + twice(x) + twice(y) * fact(x, 3) + entry(y);
}

double use(double x) {
  double d = 0;
  return entry_grad(x, &d) + entry_vjp(x, 1.0, &d) + d;
}

// CHECK-DAG: define internal {{.*}}@_ZL8once_fwdd({{.*}}) #[[INL:[0-9]+]]
// CHECK-DAG: define internal {{.*}}@_ZL8once_bwdddPd({{.*}}) #[[INL]]
// CHECK-DAG: define internal {{.*}}@_ZL9entry_fwdd({{.*}}) #[[INL]]
// CHECK-DAG: define internal {{.*}}@_ZL9entry_bwdddPd({{.*}}) #[[INL]]
// CHECK-DAG: define internal {{.*}}@_ZL9twice_fwdd({{.*}}) #[[NOINL:[0-9]+]]
// CHECK-DAG: define internal {{.*}}@_ZL9twice_bwdddPd({{.*}}) #[[NOINL]]
// CHECK-DAG: define internal {{.*}}@_ZL8fact_fwddi({{.*}}) #[[NOINL]]
// CHECK-DAG: define internal {{.*}}@_ZL9entry_vjpddPd({{.*}}) #[[VJP:[0-9]+]]
// CHECK-DAG: attributes #[[INL]] = { alwaysinline
// CHECK-DAG: attributes #[[NOINL]] = { mustprogress
// CHECK-DAG: attributes #[[VJP]] = { mustprogress
// O0-NOT: alwaysinline
