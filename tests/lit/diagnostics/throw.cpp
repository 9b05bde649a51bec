// A throw made from literals and numbers, and printing to a stream, run in
// the forward sweep (numeric test SideEffects.StreamsAndThrows). A throw
// built from objects, and a stream manipulator, are located errors whose
// advice compiles (-DADVICE).
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
// RUN: %clangxx %fluxion -fsyntax-only -DADVICE %s
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>

#ifndef ADVICE
[[fluxion::grad]] double f(double x, int n) {
  // CHECK: throw.cpp:[[@LINE+1]]:15: error: fluxion: this throw expression is not supported in a differentiated function; throw an exception made from literals and numbers, or move the check into a function that returns a value
  if (n <= 0) throw std::invalid_argument("bad n: " + std::to_string(n));
  // CHECK: throw.cpp:[[@LINE+1]]:26: error: fluxion: a stream manipulator such as std::endl is not supported in a differentiated function; print "\n" instead
  std::cout << "x = " << std::endl;
  return x * n;
}
#else
int checked(int n) {
  if (n <= 0)
    throw std::invalid_argument("bad n: " + std::to_string(n));
  return n;
}
[[fluxion::grad]] double f(double x, int n) {
  n = fluxion::stop_gradient(checked(n));
  if (n > 100)
    throw std::invalid_argument("n too large");
  std::cout << "x = " << x << "\n";
  return x * n;
}
#endif
// CHECK-NOT: error:
