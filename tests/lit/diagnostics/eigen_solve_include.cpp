// A linear solve needs the rules of <fluxion/eigen.hpp>, which
// <fluxion/fluxion.hpp> includes only when Eigen was included before it.
// Without them the solve is a located error whose advice, followed, works.
// REQUIRES: eigen
// RUN: not %clangxx %fluxion %eigen -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
// RUN: %clangxx %fluxion %eigen -fsyntax-only -DFOLLOW_ADVICE %s
#include <fluxion/fluxion.hpp>

#include <Eigen/Dense>
#ifdef FOLLOW_ADVICE
#include <fluxion/eigen.hpp>
#endif

[[fluxion::grad]] double quadratic(const Eigen::MatrixXd &S,
                                   const Eigen::VectorXd &r) {
  // CHECK: eigen_solve_include.cpp:[[@LINE+1]]:25: error: fluxion: a linear solve ('ldlt().solve') without Fluxion's rules for Eigen's solves is not supported in a differentiated function; #include <fluxion/eigen.hpp> (or include Eigen before <fluxion/fluxion.hpp>)
  return r.dot(S.ldlt().solve(r));
}
