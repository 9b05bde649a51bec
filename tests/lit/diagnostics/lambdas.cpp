// Lambdas are differentiated where they are defined and called; a lambda
// passed on, one that returns early, and a call through std::function are
// located errors that say what works.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
#include <fluxion/fluxion.hpp>

#include <functional>

template <class F> double apply(F f, double x) { return f(x); }

[[fluxion::grad]] double passed_on(double x) {
  auto f = [](double t) { return t * t; };
  // CHECK: lambdas.cpp:[[@LINE+1]]:16: error: fluxion: passing a lambda on is not supported in a differentiated function; call it where it is defined, or make it a named function
  return apply(f, x);
}

[[fluxion::grad]] double early_return(double x) {
  auto clip = [](double t) {
    // CHECK: lambdas.cpp:[[@LINE+1]]:5: error: fluxion: a 'return' before the end of a lambda is not supported in a differentiated function; compute the result into a variable and return it at the end
    if (t > 1)
      return 1.0;
    return t;
  };
  return clip(x * 2);
}

[[fluxion::grad]] double through_std_function(double x) {
  // CHECK: lambdas.cpp:[[@LINE+1]]:33: error: fluxion: a std::function (its target is known only at run time) is not supported in a differentiated function; call the lambda or the function directly
  std::function<double(double)> g = [](double t) { return t + 1; };
  return g(x);
}
