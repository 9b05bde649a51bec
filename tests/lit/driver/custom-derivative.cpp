// A custom derivative (fluxion::custom::f_vjp) replaces the derived one, both
// for the annotated function and for calls to it (CONTRACT.md, "Custom
// derivatives"); float throughout.
// RUN: %clangxx %fluxion -O0 -Wall -Wextra -Werror %s -o %t.O0.exe
// RUN: %t.O0.exe | %FileCheck %s
// RUN: %clangxx %fluxion -O3 -Wall -Wextra -Werror -c %s -o %t.O3.o
// RUN: %clangxx %t.O3.o -o %t.O3.exe
// RUN: %t.O3.exe | %FileCheck %s
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>

float log1pexp(float x) { return std::log(1 + std::exp(x)); }
namespace fluxion::custom {
float log1pexp_vjp(float x, float seed, float *d_x) {
  *d_x += seed * (1 - 1 / (1 + std::exp(x)));
  return log1pexp(x);
}
} // namespace fluxion::custom

[[fluxion::grad]] float g(float x) { return 2 * log1pexp(x); }

int main() {
  float d = 0;
  g_grad(100.0f, &d);
  std::printf("dg/dx(100) = %.3f\n", d);
  // CHECK: dg/dx(100) = 2.000
  d = 0;
  g_grad(0.0f, &d);
  std::printf("dg/dx(0) = %.3f\n", d);
  // CHECK-NEXT: dg/dx(0) = 1.000
  return 0;
}
