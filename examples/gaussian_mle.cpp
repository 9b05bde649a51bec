// Maximum-likelihood fit of a 3-D Gaussian, written as an Eigen user writes
// it: the negative log-likelihood of the samples (the columns of X) under
// N(mu, S) with S = L L^T, a solve with S's LDLT factorisation per sample
// and the log-determinant. Fluxion differentiates it with respect to mu and
// L; the solves and the determinant are differentiated by rules (a solve
// with the same factorisation), not through Eigen's loops. Gradient descent
// runs on it, and the gradient is checked against finite differences.
#include <Eigen/Dense>

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

using Eigen::Matrix3d;
using Eigen::Matrix3Xd;
using Eigen::Vector3d;

// r^T S^-1 r.
double mahalanobis2(const Vector3d &r, const Matrix3d &S) {
  return r.dot(S.ldlt().solve(r));
}

// -log p(X | mu, L L^T), up to the constant 3n/2 log(2 pi).
[[fluxion::grad("mu", "L")]] double nll(const Vector3d &mu, const Matrix3d &L,
                                        const Matrix3Xd &X) {
  Matrix3d S = L * L.transpose();
  double quadratic = 0;
  for (Eigen::Index s = 0; s < X.cols(); ++s) {
    Vector3d r = X.col(s) - mu;
    quadratic += mahalanobis2(r, S);
  }
  return 0.5 * quadratic + 0.5 * X.cols() * std::log(S.determinant());
}

int main() {
  // Samples of a correlated Gaussian, from a fixed sequence.
  const int N = 200;
  Matrix3d TrueL;
  TrueL << 1.0, 0, 0, 0.6, 0.5, 0, -0.3, 0.2, 0.4;
  Vector3d TrueMu(1.0, -2.0, 0.5);
  Matrix3Xd X(3, N);
  for (int s = 0; s < N; ++s) {
    Vector3d z(std::sin(1.7 * s + 0.3), std::cos(2.3 * s + 1.1),
               std::sin(0.9 * s * s + 0.2));
    X.col(s) = TrueMu + TrueL * (1.4 * z);
  }
  Vector3d mu = Vector3d::Zero();
  Matrix3d L = Matrix3d::Identity();
  // The gradient against finite differences, at the starting point.
  auto report = fluxion::check_gradient(nll, nll_grad, mu, L,
                                        fluxion::constant(X));
  std::cout << report;

  double First = 0, Last = 0;
  for (int step = 0; step < 1500; ++step) {
    Vector3d dmu = Vector3d::Zero();
    Matrix3d dL = Matrix3d::Zero();
    double l = nll_grad(mu, L, X, &dmu, &dL);
    if (step == 0)
      First = l;
    Last = l;
    if (step % 500 == 0)
      std::printf("step %3d: nll %.6f\n", step, l);
    // The mean's step is scaled by S (its natural gradient); L takes
    // plain gradient steps.
    mu -= (L * L.transpose()) * dmu / N;
    L -= 0.02 / N * dL;
  }
  // The maximum-likelihood estimate in closed form: the sample mean and
  // covariance, where the negative log-likelihood is n/2 (3 + log det).
  Vector3d Mean = X.rowwise().mean();
  Matrix3Xd Centered = X.colwise() - Mean;
  Matrix3d Cov = Centered * Centered.transpose() / N;
  double Optimum = 0.5 * N * (3 + std::log(Cov.determinant()));
  std::printf("fitted mean (%.4f, %.4f, %.4f), sample mean (%.4f, %.4f, "
              "%.4f)\n",
              mu(0), mu(1), mu(2), Mean(0), Mean(1), Mean(2));
  std::printf("nll %.6f, optimum %.6f\n", Last, Optimum);

  bool Fitted = Last < First && (mu - Mean).norm() < 1e-6 &&
                  Last - Optimum < 1e-3 * std::abs(Optimum);
  std::printf("%s\n", report.ok() && Fitted
                          ? "gradient matches finite differences; fitted"
                          : "MISMATCH");
  return report.ok() && Fitted ? 0 : 1;
}
