// A two-layer perceptron written with Eigen, as an Eigen user writes it:
// weights in MatrixXd, biases in VectorXd, a mini-batch as the columns of
// a matrix, products and coefficient-wise tanh left to expressions. Fluxion
// differentiates the mean squared error with respect to every weight and
// bias (the adjoint of a MatrixXd is a MatrixXd of the same shape); a few
// steps of gradient descent run on it, and the gradient is checked against
// finite differences with fluxion::check_gradient.
#include <Eigen/Dense>

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

using Eigen::MatrixXd;
using Eigen::VectorXd;

// Mean squared error over the columns of X (inputs) and Y (targets).
[[fluxion::grad("W1", "b1", "W2", "b2")]] double
loss(const MatrixXd &W1, const VectorXd &b1, const MatrixXd &W2,
     const VectorXd &b2, const MatrixXd &X, const MatrixXd &Y) {
  VectorXd h(W1.rows()), y(W2.rows());
  double total = 0;
  for (Eigen::Index s = 0; s < X.cols(); ++s) {
    h = (W1 * X.col(s) + b1).array().tanh().matrix();
    y.noalias() = W2 * h + b2;
    total += (y - Y.col(s)).squaredNorm();
  }
  return total / double(X.cols());
}

int main() {
  const int In = 3, Hidden = 6, Out = 2, Batch = 8;
  MatrixXd W1(Hidden, In), W2(Out, Hidden);
  VectorXd b1(Hidden), b2(Out);
  for (int i = 0; i < Hidden; ++i) {
    for (int j = 0; j < In; ++j)
      W1(i, j) = 0.4 * std::sin(1.3 * i + 0.7 * j + 0.1);
    for (int k = 0; k < Out; ++k)
      W2(k, i) = 0.3 * std::cos(0.9 * i - 0.5 * k);
    b1(i) = 0.02 * i;
  }
  b2.setZero();
  MatrixXd X(In, Batch), Y(Out, Batch);
  for (int s = 0; s < Batch; ++s) {
    for (int j = 0; j < In; ++j)
      X(j, s) = std::sin(0.6 * s + 1.1 * j);
    Y(0, s) = X(0, s) * X(1, s);
    Y(1, s) = 0.5 * X(2, s) - X(0, s);
  }

  // Gradient descent on every weight and bias.
  for (int step = 0; step < 5; ++step) {
    MatrixXd dW1 = MatrixXd::Zero(Hidden, In), dW2 = MatrixXd::Zero(Out, Hidden);
    VectorXd db1 = VectorXd::Zero(Hidden), db2 = VectorXd::Zero(Out);
    double l = loss_grad(W1, b1, W2, b2, X, Y, &dW1, &db1, &dW2, &db2);
    std::printf("step %d: loss %.6f\n", step, l);
    W1 -= 0.5 * dW1;
    b1 -= 0.5 * db1;
    W2 -= 0.5 * dW2;
    b2 -= 0.5 * db2;
  }

  auto report = fluxion::check_gradient(loss, loss_grad, W1, b1, W2, b2,
                                        fluxion::constant(X),
                                        fluxion::constant(Y));
  std::cout << report;
  std::printf("%s\n", report.ok() ? "gradient matches finite differences"
                                  : "MISMATCH");
  return report.ok() ? 0 : 1;
}
