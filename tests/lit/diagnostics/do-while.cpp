// A do-while loop whose condition changes a variable or calls a function is
// differentiated with the condition after the body; a 'continue' in such a
// loop would skip it, and is a located error whose advice compiles.
// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
// RUN: %clangxx %fluxion -fsyntax-only -DADVICE %s
#include <fluxion/fluxion.hpp>

[[fluxion::grad]] double iterate(double x, int n) {
  int it = 0;
#ifndef ADVICE
  do {
    if (x > 10)
      continue;
    x = x * x;
    // CHECK: do-while.cpp:[[@LINE+1]]:12: error: fluxion: a 'continue' in a do-while loop whose condition calls a function or changes a variable is not supported in a differentiated function; compute the condition into a variable at the end of the body ('more = ++it < n;') and test that ('while (more)')
  } while (++it < n);
#else
  bool more = true;
  do {
    if (x <= 10)
      x = x * x;
    more = ++it < n;
  } while (more);
#endif
  return x;
}
