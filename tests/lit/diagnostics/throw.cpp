// A throw in differentiated code is a located error; its advice (the check
// in a function of its own, called through fluxion::stop_gradient)
// compiles, and the derivative then throws as the primal does.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
// RUN: %clangxx %fluxion -fsyntax-only -DADVICE %s
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <stdexcept>

#ifndef ADVICE
[[fluxion::grad]] double f(double x, int n) {
  // CHECK: throw.cpp:[[@LINE+1]]:15: error: fluxion: a throw expression is not supported in a differentiated function; move the check into a function that returns a value
  if (n <= 0) throw std::invalid_argument("n must be positive");
  return x * n;
}
#else
int checked(int n) {
  if (n <= 0)
    throw std::invalid_argument("n must be positive");
  return n;
}
[[fluxion::grad]] double f(double x, int n) {
  n = fluxion::stop_gradient(checked(n));
  return x * n;
}
#endif
// CHECK-NOT: error:
