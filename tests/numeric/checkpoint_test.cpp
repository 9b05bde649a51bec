// [[fluxion::checkpoint]] (TensorFlow's recompute_grad, JAX's checkpoint)
// through the public contract: a checkpointed callee gives the same gradient
// as the recorded one, records only an undo log of its writes instead of its
// tape, may overwrite its caller's memory through pointers, and nests.
#include <fluxion/fluxion.hpp>
#include <fluxion/memory.hpp>

#include "numeric_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ckpt {

// About a thousand operations: 250 iterations of a multiply, a sine, a
// multiply and an add, each of which the plain reverse sweep records.
[[fluxion::checkpoint]] double heavy(double s, const double *w) {
  for (int i = 0; i < 250; ++i)
    s = s + 0.0004 * std::sin(s * w[i % 4]);
  return s;
}
double heavyRecorded(double s, const double *w) {
  for (int i = 0; i < 250; ++i)
    s = s + 0.0004 * std::sin(s * w[i % 4]);
  return s;
}

[[fluxion::grad]] double chain(double s, const double *w) {
  for (int k = 0; k < 100; ++k)
    s = heavy(s, w);
  return s * s;
}
[[fluxion::grad]] double chainRecorded(double s, const double *w) {
  for (int k = 0; k < 100; ++k)
    s = heavyRecorded(s, w);
  return s * s;
}

// A checkpointed time step that overwrites the caller's state in place: the
// undo log hands the callee its inputs back before recomputing it, and the
// caller its memory before the step for the statements before it.
[[fluxion::checkpoint]] void diffuse(double *u, int n, double nu) {
  for (int it = 0; it < 4; ++it)
    for (int i = 1; i + 1 < n; ++i)
      u[i] = u[i] + nu * (u[i - 1] - 2 * u[i] + u[i + 1]) -
             0.01 * u[i] * u[i] * u[i];
}
[[fluxion::grad("u", "nu")]] double evolve(double *u, int n, double nu) {
  double energy = 0;
  for (int k = 0; k < 30; ++k) {
    diffuse(u, n, nu);
    energy += u[n / 2] * u[n / 3];
  }
  for (int i = 0; i < n; ++i)
    energy += u[i] * u[i];
  return energy;
}

// Checkpointed callees nest: the inner undo entries lie above the outer
// mark and are undone first.
[[fluxion::checkpoint]] double inner(double x, double *acc) {
  *acc += x * x;
  return std::exp(0.5 * x) * *acc;
}
[[fluxion::checkpoint]] double outer(double x, double *acc) {
  double y = inner(x, acc);
  *acc = *acc * y;
  return inner(y * 0.1, acc) + y;
}
[[fluxion::grad("x")]] double nested(double x) {
  double acc = 0.5;
  double a = outer(x, &acc);
  double b = outer(a * 0.3, &acc);
  return a * b + acc;
}

// Second order ignores the checkpoint and differentiates the body.
[[fluxion::hessian, fluxion::grad]] double curvature(double x, double y) {
  double w[4] = {x, y, x * y, 1.0};
  return heavy(x + y, w) * y;
}

} // namespace ckpt

namespace {

using nt::ld;

TEST(Checkpoint, ChainGivesTheRecordedGradientWithATenthOfTheMemory) {
  const double w[4] = {0.9, 1.3, 0.7, 1.1};
  double dsCk = 0, dwCk[4] = {}, dsRec = 0, dwRec[4] = {};

  fluxion::reset_memory_peaks();
  double vCk = ckpt::chain_grad(0.8, w, &dsCk, dwCk);
  fluxion::MemoryStats ck = fluxion::memory_stats();
  fluxion::reset_memory_peaks();
  double vRec = ckpt::chainRecorded_grad(0.8, w, &dsRec, dwRec);
  fluxion::MemoryStats rec = fluxion::memory_stats();

  EXPECT_EQ(vCk, vRec);
  NT_EXPECT_CLOSE(dsCk, dsRec, 1e-14, 0);
  for (int i = 0; i < 4; ++i)
    NT_EXPECT_CLOSE(dwCk[i], dwRec[i], 1e-14, 0) << "d_w[" << i << "]";
  // The recorded chain keeps 100 callee tapes of about a thousand values;
  // the checkpointed one keeps one mark per call plus one callee tape while
  // it is reversed.
  EXPECT_GT(rec.tapeBytesPeak, 100u * 250u * sizeof(double));
  EXPECT_GE(rec.totalPeak(), 10 * ck.totalPeak())
      << "recorded " << rec.totalPeak() << " bytes, checkpointed "
      << ck.totalPeak();

  std::vector<double> x = {0.8, w[0], w[1], w[2], w[3]};
  auto f = [](const double *v) { return ckpt::chain(v[0], v + 1); };
  auto g = [](const double *v, double *d) {
    return ckpt::chain_grad(v[0], v + 1, d, d + 1);
  };
  nt::check_gradient<double>(f, g, x);
}

TEST(Checkpoint, CalleeThatOverwritesTheCallersState) {
  const int n = 24;
  std::vector<double> x(n + 1);
  for (int i = 0; i < n; ++i)
    x[i] = std::sin(0.4 * i) + 0.1 * i;
  x[n] = 0.21; // nu
  auto f = [&](const double *v) {
    std::vector<double> u(v, v + n);
    return ckpt::evolve(u.data(), n, v[n]);
  };
  auto g = [&](const double *v, double *d) {
    // u is also an output, whose d_u on entry seeds it (zero here); the
    // gradient is then added into d as check_gradient expects.
    std::vector<double> u(v, v + n), du(n, 0.0);
    double dnu = 0;
    double value = ckpt::evolve_grad(u.data(), n, v[n], du.data(), &dnu);
    for (int i = 0; i < n; ++i)
      d[i] += du[i];
    d[n] += dnu;
    return value;
  };
  nt::check_gradient<double>(f, g, x);
  EXPECT_EQ(fluxion::checkpoint_mark(), 0u) << "every undo entry consumed";
}

TEST(Checkpoint, NestedCheckpointedCallees) {
  for (double x : {-0.7, 0.3, 1.1}) {
    auto f = [](double v) { return ckpt::nested(v); };
    auto g = [](double v, double *d) { return ckpt::nested_grad(v, d); };
    nt::check_gradient1<double>(f, g, x);
  }
  EXPECT_EQ(fluxion::checkpoint_mark(), 0u);
}

TEST(Checkpoint, HessianDifferentiatesTheBody) {
  const double x = 0.6, y = -0.4;
  double H[4];
  ckpt::curvature_hessian(x, y, H);
  auto grad = [](double a, double b, double out[2]) {
    out[0] = out[1] = 0;
    ckpt::curvature_grad(a, b, &out[0], &out[1]);
  };
  const double h = 1e-5;
  double gp[2], gm[2];
  grad(x + h, y, gp);
  grad(x - h, y, gm);
  NT_EXPECT_CLOSE(H[0], (gp[0] - gm[0]) / (2 * h), 1e-6, 1e-8);
  NT_EXPECT_CLOSE(H[2], (gp[1] - gm[1]) / (2 * h), 1e-6, 1e-8);
  grad(x, y + h, gp);
  grad(x, y - h, gm);
  NT_EXPECT_CLOSE(H[1], (gp[0] - gm[0]) / (2 * h), 1e-6, 1e-8);
  NT_EXPECT_CLOSE(H[3], (gp[1] - gm[1]) / (2 * h), 1e-6, 1e-8);
}

} // namespace
