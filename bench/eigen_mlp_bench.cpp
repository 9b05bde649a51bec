// The gradient of a two-layer perceptron written with Eigen (the loss of
// examples/eigen_mlp.cpp): Fluxion's f_grad against the adjoint a careful
// Eigen user writes by hand (the same products, run by Eigen's kernels),
// and the primal for the gradient / primal ratio; and, where Ceres' headers
// are found, ceres::Jet (operator overloading, eigen_mlp_jet.cpp). Every
// gradient is compared with the hand-written one before timing. Arguments:
// inputs, hidden units, outputs, batch.
#include "eigen_mlp_problem.hpp"

#include <Eigen/Dense>

#include <fluxion/fluxion.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

using Eigen::MatrixXd;
using Eigen::VectorXd;

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

namespace {

/// The hand-written adjoint: forward per sample keeping h, backward with
/// Eigen's products and rank-one updates.
double manual_grad(const MatrixXd &W1, const VectorXd &b1, const MatrixXd &W2,
                   const VectorXd &b2, const MatrixXd &X, const MatrixXd &Y,
                   MatrixXd &dW1, VectorXd &db1, MatrixXd &dW2,
                   VectorXd &db2) {
  const double Scale = 1.0 / double(X.cols());
  VectorXd h(W1.rows()), y(W2.rows()), dy(W2.rows()), da(W1.rows());
  double total = 0;
  for (Eigen::Index s = 0; s < X.cols(); ++s) {
    h = (W1 * X.col(s) + b1).array().tanh().matrix();
    y.noalias() = W2 * h;
    y += b2;
    y -= Y.col(s);
    total += y.squaredNorm();
    dy = (2 * Scale) * y;
    dW2.noalias() += dy * h.transpose();
    db2 += dy;
    da.noalias() = W2.transpose() * dy;
    da.array() *= 1 - h.array().square();
    dW1.noalias() += da * X.col(s).transpose();
    db1 += da;
  }
  return total * Scale;
}

using Problem = MlpProblem;

Problem make(const benchmark::State &State) {
  return Problem(int(State.range(0)), int(State.range(1)),
                 int(State.range(2)), int(State.range(3)));
}

/// Fluxion's gradient agrees with the hand-written one (else abort).
void crossCheck(const Problem &P) {
  MatrixXd a1 = MatrixXd::Zero(P.W1.rows(), P.W1.cols()),
           a2 = MatrixXd::Zero(P.W2.rows(), P.W2.cols());
  VectorXd c1 = VectorXd::Zero(P.b1.size()), c2 = VectorXd::Zero(P.b2.size());
  MatrixXd m1 = a1, m2 = a2;
  VectorXd n1 = c1, n2 = c2;
  double l1 = loss_grad(P.W1, P.b1, P.W2, P.b2, P.X, P.Y, &a1, &c1, &a2, &c2);
  double l2 = manual_grad(P.W1, P.b1, P.W2, P.b2, P.X, P.Y, m1, n1, m2, n2);
  double Err = std::abs(l1 - l2) + (a1 - m1).norm() + (a2 - m2).norm() +
               (c1 - n1).norm() + (c2 - n2).norm();
  if (!(Err < 1e-9 * (1 + m1.norm() + m2.norm()))) {
    std::fprintf(stderr, "eigen_mlp: gradients differ by %g\n", Err);
    std::abort();
  }
}

void BM_Primal(benchmark::State &State) {
  Problem P = make(State);
  for (auto _ : State)
    benchmark::DoNotOptimize(loss(P.W1, P.b1, P.W2, P.b2, P.X, P.Y));
}

void BM_Fluxion(benchmark::State &State) {
  Problem P = make(State);
  crossCheck(P);
  MatrixXd d1(P.W1.rows(), P.W1.cols()), d2(P.W2.rows(), P.W2.cols());
  VectorXd e1(P.b1.size()), e2(P.b2.size());
  for (auto _ : State) {
    d1.setZero();
    d2.setZero();
    e1.setZero();
    e2.setZero();
    benchmark::DoNotOptimize(
        loss_grad(P.W1, P.b1, P.W2, P.b2, P.X, P.Y, &d1, &e1, &d2, &e2));
  }
}

void BM_Manual(benchmark::State &State) {
  Problem P = make(State);
  MatrixXd d1(P.W1.rows(), P.W1.cols()), d2(P.W2.rows(), P.W2.cols());
  VectorXd e1(P.b1.size()), e2(P.b2.size());
  for (auto _ : State) {
    d1.setZero();
    d2.setZero();
    e1.setZero();
    e2.setZero();
    benchmark::DoNotOptimize(
        manual_grad(P.W1, P.b1, P.W2, P.b2, P.X, P.Y, d1, e1, d2, e2));
  }
}

#ifdef FLUXION_BENCH_JET
/// Ceres' Jet: its gradient agrees with the hand-written one (else abort).
void BM_Jet(benchmark::State &State) {
  Problem P = make(State);
  MatrixXd d1 = MatrixXd::Zero(P.W1.rows(), P.W1.cols()),
           d2 = MatrixXd::Zero(P.W2.rows(), P.W2.cols());
  VectorXd e1 = VectorXd::Zero(P.b1.size()), e2 = VectorXd::Zero(P.b2.size());
  MatrixXd m1 = d1, m2 = d2;
  VectorXd n1 = e1, n2 = e2;
  double l1 = jet_gradient(P, d1, e1, d2, e2);
  double l2 = manual_grad(P.W1, P.b1, P.W2, P.b2, P.X, P.Y, m1, n1, m2, n2);
  double Err = std::abs(l1 - l2) + (d1 - m1).norm() + (d2 - m2).norm() +
               (e1 - n1).norm() + (e2 - n2).norm();
  if (!(Err < 1e-9 * (1 + m1.norm() + m2.norm()))) {
    std::fprintf(stderr, "eigen_mlp: Jet gradient differs by %g\n", Err);
    std::abort();
  }
  for (auto _ : State) {
    d1.setZero();
    d2.setZero();
    e1.setZero();
    e2.setZero();
    benchmark::DoNotOptimize(jet_gradient(P, d1, e1, d2, e2));
  }
}
#endif

void Sizes(benchmark::internal::Benchmark *B) {
  B->Args({4, 8, 2, 32})->Args({16, 32, 4, 32})->Args({64, 128, 10, 64});
}

} // namespace

BENCHMARK(BM_Primal)->Apply(Sizes);
BENCHMARK(BM_Fluxion)->Apply(Sizes);
BENCHMARK(BM_Manual)->Apply(Sizes);
#ifdef FLUXION_BENCH_JET
// One Jet per weight: the two smaller problems (58 and 676 weights).
BENCHMARK(BM_Jet)->Args({4, 8, 2, 32})->Args({16, 32, 4, 32});
#endif
BENCHMARK_MAIN();
