// Lambdas are differentiated where they are defined and called (or where a
// function taking one calls it); a lambda passed on to a std::function, one
// that returns early, a call through std::function, and a
// pointer parameter given an expression or moved in the lambda are located
// errors that say what works.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
#include <fluxion/fluxion.hpp>

#include <functional>

// A template taking the lambda is inlined with it (numeric tests); a
// std::function parameter hides the lambda's type.
double apply_erased(const std::function<double(double)> &f, double x) {
  return f(x);
}

[[fluxion::grad]] double passed_on(double x) {
  auto f = [](double t) { return t * t; };
  // CHECK: lambdas.cpp:[[@LINE+1]]:23: error: fluxion: a std::function (its target is known only at run time) is not supported in a differentiated function; take the callable as a template parameter ('template <class F> double g(F f, double x)'), or call the lambda directly
  return apply_erased(f, x);
}

template <class F> double clipped(F f, double x) {
  // CHECK: lambdas.cpp:[[@LINE+1]]:3: error: fluxion: a 'return' before the end of a function taking a lambda is not supported in a differentiated function; compute the result into a variable and return it at the end
  if (x > 1)
    return f(1.0);
  return f(x);
}

[[fluxion::grad]] double early_return_in_template(double x) {
  return clipped([](double t) { return t * t; }, x);
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

// A lambda's pointer parameter is the argument variable itself: an
// expression, or a parameter the lambda moves, has no variable to stand for.
[[fluxion::grad]] double pointer_expression(const double *x) {
  auto first = [](const double *p) { return p[0]; };
  // CHECK: lambdas.cpp:[[@LINE+1]]:16: error: fluxion: a lambda's pointer parameter given something other than a pointer or array variable, or changed in its body is not supported in a differentiated function; pass a variable and leave the parameter unchanged
  return first(x + 1);
}

[[fluxion::grad]] double pointer_moved(const double *x) {
  auto walk = [](const double *p) {
    ++p;
    return p[0];
  };
  // CHECK: lambdas.cpp:[[@LINE+1]]:15: error: fluxion: a lambda's pointer parameter given something other than a pointer or array variable, or changed in its body is not supported in a differentiated function; pass a variable and leave the parameter unchanged
  return walk(x);
}
