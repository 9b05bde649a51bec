// Iterators of std::vector are positions and the standard algorithms run
// over them (tests/numeric/iterators_algorithms_test.cpp); what the engine
// does not follow is a located error in the user's words, never naming
// the library's iterator classes, and each advice compiles (-DADVICE).
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
// RUN: %clangxx %fluxion -fsyntax-only -DADVICE %s
#include <fluxion/fluxion.hpp>
#include <algorithm>
#include <iterator>
#include <numeric>
#include <vector>

double twice(double v) { return 2 * v; }

[[fluxion::grad]] double op_function(const std::vector<double> &x,
                                     std::vector<double> &y) {
#ifndef ADVICE
  // CHECK: iterators.cpp:[[@LINE+1]]:49: error: fluxion: a function or function object given to std::transform is not supported in a differentiated function; pass a lambda that calls it ('[&](double v) { return f(v); }')
  std::transform(x.begin(), x.end(), y.begin(), twice);
#else
  std::transform(x.begin(), x.end(), y.begin(), [&](double v) { return twice(v); });
#endif
  return y[0];
}

[[fluxion::grad]] double comparator(const std::vector<double> &x) {
#ifndef ADVICE
  // (max_element, min_element, find_if and find_if_not take one.)
  // CHECK: iterators.cpp:[[@LINE+1]]:53: error: fluxion: std::lower_bound with a comparison or test of its own is not supported in a differentiated function; write the loop, keeping the index of the element you want
  return *std::lower_bound(x.begin(), x.end(), 0.5, [](double a, double b) { return a * a < b; });
#else
  std::size_t k = 0;
  while (k < x.size() && x[k] * x[k] < 0.5)
    ++k;
  return x[k];
#endif
}

double first(std::vector<double>::const_iterator it) { return *it; }

[[fluxion::grad]] double passes_on(const std::vector<double> &x) {
  auto it = x.begin();
#ifndef ADVICE
  // CHECK: iterators.cpp:[[@LINE+1]]:16: error: fluxion: passing iterator 'it' on is not supported in a differentiated function; pass the element ('*it') or its index ('it - x.begin()')
  return first(it);
#else
  return *it;
#endif
}

[[fluxion::grad]] double two_containers(const std::vector<double> &x,
                                        const std::vector<double> &y) {
  double s = 0;
#ifndef ADVICE
  // CHECK: iterators.cpp:[[@LINE+1]]:65: error: fluxion: comparing or subtracting iterators of two containers is not supported in a differentiated function; compare iterators of one container, or compare indices
  for (auto it = x.begin(), jt = y.begin(); it != x.end() && jt != x.end(); ++it, ++jt)
    s += *it * *jt;
#else
  for (auto it = x.begin(), jt = y.begin(); it != x.end() && jt != y.end(); ++it, ++jt)
    s += *it * *jt;
#endif
  return s;
}

[[fluxion::grad]] double reversed(const std::vector<double> &x) {
  double s = 0;
#ifndef ADVICE
  // CHECK: iterators.cpp:[[@LINE+1]]:20: error: fluxion: an iterator of a 'std::vector<double>' ('rbegin()') here is not supported in a differentiated function; loop over the elements with a range-based for or an index loop, or use begin() and end() with *it, ++it, it + n and comparisons
  for (auto it = x.rbegin(); it != x.rend(); ++it)
    s = 0.5 * s + *it;
#else
  for (auto it = x.end(); it != x.begin();) {
    --it;
    s = 0.5 * s + *it;
  }
#endif
  return s;
}

[[fluxion::grad]] double unknown(std::vector<double> &x) {
#ifndef ADVICE
  // CHECK: iterators.cpp:[[@LINE+1]]:3: error: fluxion: std::nth_element over a container is not supported in a differentiated function; write the loop (a range-based for or an index loop)
  std::nth_element(x.begin(), x.begin() + 1, x.end());
#else
  std::sort(x.begin(), x.end());
#endif
  return x[1];
}

[[fluxion::grad]] double inserters(const std::vector<double> &x, double k) {
  std::vector<double> out, copy;
#ifndef ADVICE
  // CHECK: iterators.cpp:[[@LINE+1]]:38: error: fluxion: std::transform writing through an inserter or another kind of output iterator is not supported in a differentiated function; size the output first ('out.resize(n);') and pass 'out.begin()'
  std::transform(x.begin(), x.end(), std::back_inserter(out), [k](double v) { return v * k; });
  // CHECK: iterators.cpp:[[@LINE+1]]:33: error: fluxion: std::copy writing through an inserter
  std::copy(x.begin(), x.end(), std::back_inserter(copy));
#else
  out.resize(x.size());
  std::transform(x.begin(), x.end(), out.begin(), [k](double v) { return v * k; });
  copy.resize(x.size());
  std::copy(x.begin(), x.end(), copy.begin());
#endif
  return out[0] * copy[1];
}
