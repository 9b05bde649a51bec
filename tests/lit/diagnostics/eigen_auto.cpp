// An 'auto' local holding an Eigen expression is differentiated as the
// expression, read where it is used. What Eigen would not evaluate there
// from the operands' values at that use (a view that may be written
// through, a solve, a temporary the expression outlives) is a located
// error whose advice, followed, works.
// REQUIRES: eigen
// RUN: not %clangxx %fluxion %eigen -fsyntax-only %s 2>&1 | %FileCheck %s --implicit-check-not=error:
// RUN: %clangxx %fluxion %eigen -fsyntax-only -DADVICE %s
#include <Eigen/Dense>
#include <fluxion/fluxion.hpp>

using namespace Eigen;

[[fluxion::grad]] double viewed(const VectorXd &x) {
  VectorXd y = 2 * x;
#ifndef ADVICE
  // CHECK: eigen_auto.cpp:[[@LINE+1]]:8: error: fluxion: 'h', an 'auto' holding a view of 'y', which may be written through is not supported in a differentiated function; declare it with the type it evaluates to ('Eigen::VectorXd h = ...;', 'Eigen::Vector3d', 'Eigen::MatrixXd'), which holds values
  auto h = y.head(2);
#else
  VectorXd h = y.head(2);
#endif
  return h.sum();
}

[[fluxion::grad]] double solved(const MatrixXd &A, const VectorXd &b) {
#ifndef ADVICE
  // CHECK: eigen_auto.cpp:[[@LINE+1]]:8: error: fluxion: 's', an 'auto' holding a solve or an inverse (Eigen computes it where it is used) is not supported in a differentiated function; declare it with the type it evaluates to ('Eigen::VectorXd s = ...;', 'Eigen::Vector3d', 'Eigen::MatrixXd'), which holds values
  auto s = A.llt().solve(b);
#else
  VectorXd s = A.llt().solve(b);
#endif
  return s.dot(b);
}

[[fluxion::grad]] double unit(const Vector3d &p, const Vector3d &q) {
#ifndef ADVICE
  // CHECK: eigen_auto.cpp:[[@LINE+1]]:8: error: fluxion: 'd', an 'auto' holding an expression over the result of 'normalized', a temporary object that is destroyed where 'd' is declared is not supported in a differentiated function; declare it with the type it evaluates to ('Eigen::VectorXd d = ...;', 'Eigen::Vector3d', 'Eigen::MatrixXd'), which holds values
  auto d = p.normalized() - q;
#else
  Vector3d d = p.normalized() - q;
#endif
  return d.squaredNorm();
}
