// The perceptron of eigen_mlp_bench.cpp differentiated by operator
// overloading, the way Ceres users differentiate Eigen code: the loss
// templated on its scalar and evaluated once on ceres::Jet<double, N>, one
// dual number per weight (N = every weight and bias). Built only when
// Ceres' headers are found (Debian's libceres-dev).
#include "eigen_mlp_problem.hpp"

#include <ceres/jet.h>

#include <cmath>

namespace {

template <class T>
T loss_t(const Eigen::Matrix<T, -1, -1> &W1, const Eigen::Matrix<T, -1, 1> &b1,
         const Eigen::Matrix<T, -1, -1> &W2, const Eigen::Matrix<T, -1, 1> &b2,
         const Eigen::MatrixXd &X, const Eigen::MatrixXd &Y) {
  Eigen::Matrix<T, -1, 1> h(W1.rows()), y(W2.rows());
  T total(0.0);
  for (Eigen::Index s = 0; s < X.cols(); ++s) {
    h = (W1 * X.col(s).template cast<T>() + b1).array().tanh().matrix();
    y.noalias() = W2 * h + b2;
    total += (y - Y.col(s).template cast<T>()).squaredNorm();
  }
  return total / double(X.cols());
}

template <int N>
double jetGradient(const MlpProblem &P, Eigen::MatrixXd &dW1,
                   Eigen::VectorXd &db1, Eigen::MatrixXd &dW2,
                   Eigen::VectorXd &db2) {
  using J = ceres::Jet<double, N>;
  int K = 0;
  // Each weight and bias is a Jet seeded with its own unit direction.
  auto Seeded = [&K](const Eigen::MatrixXd &M) {
    Eigen::Matrix<J, -1, -1> Out(M.rows(), M.cols());
    for (Eigen::Index k = 0; k < M.size(); ++k)
      Out(k) = J(M(k), K++);
    return Out;
  };
  Eigen::Matrix<J, -1, -1> W1 = Seeded(P.W1), W2 = Seeded(P.W2);
  Eigen::Matrix<J, -1, 1> b1 = Seeded(P.b1), b2 = Seeded(P.b2);
  J L = loss_t<J>(W1, b1, W2, b2, P.X, P.Y);
  // The directions in the order they were seeded: W1, W2, b1, b2.
  K = 0;
  for (Eigen::Index k = 0; k < dW1.size(); ++k)
    dW1(k) += L.v[K++];
  for (Eigen::Index k = 0; k < dW2.size(); ++k)
    dW2(k) += L.v[K++];
  for (Eigen::Index k = 0; k < db1.size(); ++k)
    db1(k) += L.v[K++];
  for (Eigen::Index k = 0; k < db2.size(); ++k)
    db2(k) += L.v[K++];
  return L.a;
}

} // namespace

double jet_gradient(const MlpProblem &P, Eigen::MatrixXd &dW1,
                    Eigen::VectorXd &db1, Eigen::MatrixXd &dW2,
                    Eigen::VectorXd &db2) {
  // The Jets' size is a compile-time constant: the two smaller problems.
  switch (P.W1.size() + P.b1.size() + P.W2.size() + P.b2.size()) {
  case 4 * 8 + 8 + 8 * 2 + 2:
    return jetGradient<58>(P, dW1, db1, dW2, db2);
  case 16 * 32 + 32 + 32 * 4 + 4:
    return jetGradient<676>(P, dW1, db1, dW2, db2);
  default:
    return std::nan("");
  }
}
