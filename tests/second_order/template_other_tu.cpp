// The other translation unit using template_lib.hpp's instances: linking it
// with template_test.cpp checks that both definitions of
// tl::springs_grad<double> merge (and that they agree, in the test).
#include "template_lib.hpp"

double springs_grad_from_other_tu(const double *x, int n, double k, double *d_x,
                                  double *d_k) {
  return tl::springs_grad(x, n, k, d_x, d_k);
}
