// Deterministic Eigen inputs shared by the Eigen test programs: smooth,
// distinct, non-special values.
#ifndef FLUXION_TESTS_NUMERIC_EIGEN_INPUTS_HPP
#define FLUXION_TESTS_NUMERIC_EIGEN_INPUTS_HPP

#include <Eigen/Dense>

#include <cmath>

namespace eigen_inputs {

inline Eigen::MatrixXd matrix(int r, int c, double s) {
  Eigen::MatrixXd m(r, c);
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j)
      m(i, j) = std::sin(s + 1.3 * i - 0.7 * j);
  return m;
}

inline Eigen::VectorXd vec(int n, double s) {
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i)
    v(i) = std::cos(s + 0.9 * i);
  return v;
}

/// Symmetric positive definite: M M^T + n I.
inline Eigen::MatrixXd spd(int n, double s) {
  Eigen::MatrixXd m = matrix(n, n, s);
  return m * m.transpose() + n * Eigen::MatrixXd::Identity(n, n);
}

} // namespace eigen_inputs

#endif
