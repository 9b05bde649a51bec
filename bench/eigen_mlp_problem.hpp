// The perceptron problem of eigen_mlp_bench.cpp, shared with the
// operator-overloading comparison (eigen_mlp_jet.cpp).
#ifndef FLUXION_BENCH_EIGEN_MLP_PROBLEM_HPP
#define FLUXION_BENCH_EIGEN_MLP_PROBLEM_HPP

#include <Eigen/Dense>

#include <cmath>

struct MlpProblem {
  Eigen::MatrixXd W1, W2, X, Y;
  Eigen::VectorXd b1, b2;
  MlpProblem(int In, int Hidden, int Out, int Batch)
      : W1(Hidden, In), W2(Out, Hidden), X(In, Batch), Y(Out, Batch),
        b1(Hidden), b2(Out) {
    for (int i = 0; i < Hidden; ++i) {
      for (int j = 0; j < In; ++j)
        W1(i, j) = 0.3 * std::sin(1.3 * i + 0.7 * j + 0.1) / std::sqrt(In);
      for (int k = 0; k < Out; ++k)
        W2(k, i) = 0.3 * std::cos(0.9 * i - 0.5 * k) / std::sqrt(Hidden);
      b1(i) = 0.01 * i;
    }
    b2.setConstant(0.1);
    for (int s = 0; s < Batch; ++s) {
      for (int j = 0; j < In; ++j)
        X(j, s) = std::sin(0.6 * s + 1.1 * j);
      for (int k = 0; k < Out; ++k)
        Y(k, s) = std::cos(0.3 * s - 0.2 * k);
    }
  }
};

#ifdef FLUXION_BENCH_JET
/// The gradient by ceres::Jet (eigen_mlp_jet.cpp), added into the d
/// arguments; NaN for a problem size it was not built for.
double jet_gradient(const MlpProblem &P, Eigen::MatrixXd &dW1,
                    Eigen::VectorXd &db1, Eigen::MatrixXd &dW2,
                    Eigen::VectorXd &db2);
#endif

#endif
