// RUN: not %clangxx %fluxion -fsyntax-only %s 2>&1 | %FileCheck %s
#include <fluxion/fluxion.hpp>

// A pointer that walks within the memory it starts in is a base plus a
// position (numeric tests: walking_pointers_test.cpp). One that moves to
// other memory, or whose address escapes, is refused where it is declared,
// once; so is a pointer stored into memory.
[[fluxion::grad]] double f(const double *x, const double *y, int n) {
  double s = 0;
  // CHECK: pointer-local.cpp:[[@LINE+1]]:17: error: fluxion: local pointer 'p' (it is set to a place in other memory) is not supported in a differentiated function; move it only within the memory it starts in (++p, p += n, p = x + k), or index from a base that stays put (p[k])
  const double *p = x;
  for (int i = 0; i < n; ++i) {
    s += *p++;
    if (i == 2)
      p = y;
  }
  // CHECK: pointer-local.cpp:[[@LINE+1]]:17: error: fluxion: local pointer 'q' (its address is taken)
  const double *q = x + 1;
  const double **qq = &q;
  s += **qq;
  // CHECK: pointer-local.cpp:[[@LINE+1]]:17: error: fluxion: local pointer 'r' (declared without a value)
  const double *r;
  r = x;
  return s + r[0];
}
// CHECK: pointer-local.cpp:[[@LINE-18]]:26: note: while differentiating 'f'

// CHECK: pointer-local.cpp:[[@LINE+1]]:59: error: fluxion: moving pointer parameter 'y' (it is set to a place in other memory) is not supported in a differentiated function; index from it (y[k]) or walk a local pointer that starts at it
[[fluxion::grad]] double g(const double *x, const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += *y++;
  y = x;
  return s + y[0];
}

[[fluxion::grad]] double h(double **rows, double *y, int n) {
  // CHECK: pointer-local.cpp:[[@LINE+1]]:11: error: fluxion: storing a pointer into memory is not supported in a differentiated function; pass the memory it points to as a parameter of its own
  rows[0] = y;
  double s = 0;
  for (int j = 0; j < n; ++j)
    s += rows[0][j] * rows[1][j];
  return s;
}
// CHECK-NOT: error:
