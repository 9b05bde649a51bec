// f_jacobian: against closed-form Jacobians, against columns built from
// f_jvp with unit tangents and rows built from f_vjp with unit seeds, and
// against central differences. Shapes: square, wide (reverse sweeps are
// fewer), tall (forward sweeps are fewer), a single row, float.
#include <fluxion/fluxion.hpp>

#include "so_common.hpp"

#include <cmath>
#include <vector>

namespace jc {

// 3 rows (result, out[0], out[1]) x 2 columns (x, y).
[[fluxion::jacobian]] [[fluxion::grad]] [[fluxion::jvp]] double
sq(double x, double y, double out[2]) {
  out[0] = x * y;
  out[1] = std::sin(x) + y * y;
  return x * x * std::exp(y);
}

// Wide: 2 rows x 5 columns, a loop and a branch.
[[fluxion::jacobian]] [[fluxion::grad]] [[fluxion::jvp]] void
wide(const double x[5], double y[2]) {
  y[0] = 0;
  y[1] = 1;
  for (int i = 0; i < 5; ++i) {
    y[0] += x[i] * x[i] * (i + 1);
    if (x[i] > 0)
      y[1] *= 1 + x[i];
    else
      y[1] += std::exp(x[i]);
  }
}

// Tall: 1 + 6 rows x 2 columns, with a pass-through integer.
[[fluxion::jacobian]] [[fluxion::grad]] [[fluxion::jvp]] double
tall(double a, double b, double y[6], int k) {
  for (int i = 0; i < 6; ++i)
    y[i] = std::pow(a, i) * b + k * std::cos(b * i);
  return a * b;
}

// One row: a gradient as a 1 x 4 Jacobian (scalar and array inputs).
[[fluxion::jacobian]] [[fluxion::grad]] [[fluxion::jvp]] double
row(const double x[3], double s) {
  return s * (x[0] * x[1] + x[1] * x[2]) + std::log(1 + s * s) * x[0];
}

// float.
[[fluxion::jacobian]] [[fluxion::grad]] [[fluxion::jvp]] void
fl(const float x[2], float y[3]) {
  y[0] = x[0] * x[1];
  y[1] = std::exp(x[0]) - x[1];
  y[2] = x[1] * x[1] * x[1];
}

// Only [[fluxion::jacobian]], nothing stacked: 2 rows x 2 columns.
[[fluxion::jacobian]] double alone(double x, double y, double out[1]) {
  out[0] = x / (1 + y * y);
  return x * y * y;
}

// A list of names picks the inputs (the columns); the outputs (the result,
// then the elements of fixed-size output arrays) are the rows whether they
// are named or not. Each function comes twice: with its output left out of
// the list, and named in it.

// Bundle adjustment's reprojection error (bench/adbench/ba.cpp):
// 2 rows x (11 + 3 + 1) columns, reverse sweeps; `feat` is not differentiated.
inline void reprojBody(const double cam[11], const double X[3], double w,
                       const double feat[2], double err[2]) {
  double p[3];
  for (int i = 0; i < 3; ++i)
    p[i] = X[i] - cam[3 + i];
  // A first-order rotation by the angle-axis cam[0..2]: p + cam x p.
  double q0 = p[0] + cam[1] * p[2] - cam[2] * p[1];
  double q1 = p[1] + cam[2] * p[0] - cam[0] * p[2];
  double q2 = p[2] + cam[0] * p[1] - cam[1] * p[0];
  double u = q0 / q2, v = q1 / q2;
  double r2 = u * u + v * v;
  double L = 1 + cam[9] * r2 + cam[10] * r2 * r2;
  err[0] = w * (cam[6] * u * L + cam[7] - feat[0]);
  err[1] = w * (cam[6] * v * L + cam[8] - feat[1]);
}

[[fluxion::jacobian("cam", "X", "w")]] void
reproj(const double cam[11], const double X[3], double w, const double feat[2],
       double err[2]) {
  reprojBody(cam, X, w, feat, err);
}

[[fluxion::jacobian("cam", "X", "w", "err")]] void
reprojNamed(const double cam[11], const double X[3], double w,
            const double feat[2], double err[2]) {
  reprojBody(cam, X, w, feat, err);
}

// A result and an output array, forward sweeps: 1 + 3 rows x 2 columns
// (a, s); `b` is not differentiated.
[[fluxion::jacobian("a", "s")]] double
mixFwd(double a, const double b[2], double s, double out[3]) {
  out[0] = a * b[0] + s;
  out[1] = std::sin(a * s) * b[1];
  out[2] = a * a * s;
  return std::exp(a) * b[0] - s * s * b[1];
}

[[fluxion::jacobian("a", "out", "s")]] double
mixFwdNamed(double a, const double b[2], double s, double out[3]) {
  out[0] = a * b[0] + s;
  out[1] = std::sin(a * s) * b[1];
  out[2] = a * a * s;
  return std::exp(a) * b[0] - s * s * b[1];
}

// A result and an output array that is updated in place, reverse sweeps:
// 1 + 2 rows x 4 columns (x); `s` is not differentiated. The entry values
// of `out` are not columns, named or not: they are held fixed.
[[fluxion::jacobian("x")]] double mixRev(double out[2], const double x[4],
                                         double s) {
  out[0] = out[0] * x[0] + s * x[1] * x[2];
  out[1] = std::sin(x[3]) * x[0];
  return s * out[0] * x[3] + x[1] * out[1];
}

[[fluxion::jacobian("out", "x")]] double mixRevNamed(double out[2],
                                                     const double x[4],
                                                     double s) {
  out[0] = out[0] * x[0] + s * x[1] * x[2];
  out[1] = std::sin(x[3]) * x[0];
  return s * out[0] * x[3] + x[1] * out[1];
}

// An output updated in place, forward sweeps (3 rows x 2 columns): f runs
// once per column, and each run must start from the entry values.
[[fluxion::jacobian]] void inPlaceFwd(double a, double b, double out[3]) {
  out[0] = out[0] * a;
  out[1] = a * b + out[1];
  out[2] = out[2] * out[2] * b;
}

// The same through a checkpointed callee, which rules out replaying one
// reverse sweep per row over one forward sweep: each row runs f_vjp.
[[fluxion::checkpoint]] static void relax(double *o, const double *x) {
  o[0] = o[0] * x[0] + 0.5 * x[1] * x[2];
  o[1] = std::sin(x[3]) * x[0] + o[1] * o[0];
}
[[fluxion::jacobian("x")]] double mixCheckpointed(double out[2],
                                                  const double x[4], double s) {
  relax(out, x);
  return s * out[0] * x[3] + x[1] * out[1];
}

// Scratch memory of unknown length that f writes and its reverse sweeps
// read (no derivatives flow through it): it cannot be put back between
// rows, so each row runs f_vjp.
[[fluxion::jacobian("x")]] void withScratch(const double x[3], double *work,
                                            double y[2]) {
  work[0] = work[1] * 2 + 1;
  y[0] = work[0] * x[1] * x[0] + x[2];
  y[1] = work[0] * x[0] * x[2];
}

} // namespace jc

namespace {

using so::Rng;
using Vec = std::vector<double>;

void expectMatrixClose(const Vec &A, const Vec &B, double tol) {
  ASSERT_EQ(A.size(), B.size());
  for (std::size_t i = 0; i < A.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "entry " << i);
    SO_EXPECT_CLOSE(A[i], B[i], tol);
  }
}

TEST(Jacobian, SquareClosedFormJvpColumnsVjpRows) {
  Rng rng(201);
  for (int t = 0; t < 15; ++t) {
    double x = rng.uniform(-1.5, 1.5), y = rng.uniform(-1.5, 1.5);
    Vec J(6, -7.0);
    double out[2];
    jc::sq_jacobian(x, y, out, J.data());
    double e = std::exp(y);
    Vec ref = {2 * x * e, x * x * e, y, x, std::cos(x), 2 * y};
    expectMatrixClose(J, ref, 1e-13);
    // Columns from f_jvp.
    for (int j = 0; j < 2; ++j) {
      double o[2], to[2] = {0, 0};
      double r0 = jc::sq_jvp(x, y, o, j == 0, j == 1, to);
      SO_EXPECT_CLOSE(J[0 * 2 + j], r0, 1e-13);
      SO_EXPECT_CLOSE(J[1 * 2 + j], to[0], 1e-13);
      SO_EXPECT_CLOSE(J[2 * 2 + j], to[1], 1e-13);
    }
    // Rows from f_vjp.
    for (int i = 0; i < 3; ++i) {
      double o[2], dout[2] = {i == 1 ? 1.0 : 0.0, i == 2 ? 1.0 : 0.0};
      double dx = 0, dy = 0;
      jc::sq_vjp(x, y, o, i == 0 ? 1.0 : 0.0, &dx, &dy, dout);
      SO_EXPECT_CLOSE(J[i * 2 + 0], dx, 1e-13);
      SO_EXPECT_CLOSE(J[i * 2 + 1], dy, 1e-13);
    }
  }
}

// Reference Jacobian of `wide` by central differences.
Vec wideFD(const Vec &x) {
  Vec J(10);
  for (int j = 0; j < 5; ++j) {
    Vec xp = x, xm = x;
    double h = 1e-6;
    xp[j] += h;
    xm[j] -= h;
    double yp[2], ym[2];
    jc::wide(xp.data(), yp);
    jc::wide(xm.data(), ym);
    for (int i = 0; i < 2; ++i)
      J[i * 5 + j] = (yp[i] - ym[i]) / (2 * h);
  }
  return J;
}

TEST(Jacobian, WideAgainstVjpRowsJvpColumnsAndFD) {
  Rng rng(202);
  for (int t = 0; t < 15; ++t) {
    Vec x = rng.vec(5, -1, 1), J(10, -7.0);
    double y[2];
    jc::wide_jacobian(x.data(), y, J.data());
    for (int i = 0; i < 2; ++i) {
      Vec dx(5, 0.0);
      double yy[2], dy[2] = {double(i == 0), double(i == 1)};
      jc::wide_vjp(x.data(), yy, dx.data(), dy);
      for (int j = 0; j < 5; ++j)
        SO_EXPECT_CLOSE(J[i * 5 + j], dx[j], 1e-13);
    }
    for (int j = 0; j < 5; ++j) {
      Vec tx = so::unit(5, j);
      double yy[2], ty[2] = {0, 0};
      jc::wide_jvp(x.data(), yy, tx.data(), ty);
      SO_EXPECT_CLOSE(J[0 * 5 + j], ty[0], 1e-13);
      SO_EXPECT_CLOSE(J[1 * 5 + j], ty[1], 1e-13);
    }
    expectMatrixClose(J, wideFD(x), 1e-7);
    // Row 0 closed form: 2 (j+1) x_j.
    for (int j = 0; j < 5; ++j)
      SO_EXPECT_CLOSE(J[j], 2 * (j + 1) * x[j], 1e-13);
  }
}

TEST(Jacobian, TallClosedFormAndJvpColumns) {
  Rng rng(203);
  for (int k = 0; k < 3; ++k)
    for (int t = 0; t < 10; ++t) {
      double a = rng.uniform(0.2, 1.5), b = rng.uniform(-1.5, 1.5);
      Vec J(14, -7.0);
      double y[6];
      jc::tall_jacobian(a, b, y, k, J.data());
      // row 0: d(ab) = (b, a); row 1+i: (i a^{i-1} b, a^i - k i sin(b i)).
      SO_EXPECT_CLOSE(J[0], b, 1e-13);
      SO_EXPECT_CLOSE(J[1], a, 1e-13);
      for (int i = 0; i < 6; ++i) {
        double da = i == 0 ? 0.0 : i * std::pow(a, i - 1) * b;
        double db = std::pow(a, i) - k * i * std::sin(b * i);
        SO_EXPECT_CLOSE(J[(1 + i) * 2 + 0], da, 1e-12);
        SO_EXPECT_CLOSE(J[(1 + i) * 2 + 1], db, 1e-12);
      }
      for (int j = 0; j < 2; ++j) {
        double yy[6], ty[6] = {};
        double r0 = jc::tall_jvp(a, b, yy, k, j == 0, j == 1, ty);
        SO_EXPECT_CLOSE(J[j], r0, 1e-13);
        for (int i = 0; i < 6; ++i)
          SO_EXPECT_CLOSE(J[(1 + i) * 2 + j], ty[i], 1e-13);
      }
      for (int i = 0; i < 7; ++i) {
        double yy[6], dy[6] = {};
        if (i > 0)
          dy[i - 1] = 1;
        double da = 0, db = 0;
        jc::tall_vjp(a, b, yy, k, i == 0 ? 1.0 : 0.0, &da, &db, dy);
        SO_EXPECT_CLOSE(J[i * 2 + 0], da, 1e-13);
        SO_EXPECT_CLOSE(J[i * 2 + 1], db, 1e-13);
      }
    }
}

TEST(Jacobian, SingleRowIsTheGradient) {
  Rng rng(204);
  for (int t = 0; t < 15; ++t) {
    Vec x = rng.vec(3, -1, 1);
    double s = rng.uniform(-1, 1);
    Vec J(4, -7.0);
    jc::row_jacobian(x.data(), s, J.data());
    double L = std::log(1 + s * s);
    Vec ref = {s * x[1] + L, s * (x[0] + x[2]), s * x[1],
               x[0] * x[1] + x[1] * x[2] + 2 * s / (1 + s * s) * x[0]};
    expectMatrixClose(J, ref, 1e-13);
    Vec g(3, 0.0);
    double gs = 0;
    jc::row_grad(x.data(), s, g.data(), &gs);
    for (int j = 0; j < 3; ++j)
      SO_EXPECT_CLOSE(J[j], g[j], 1e-13);
    SO_EXPECT_CLOSE(J[3], gs, 1e-13);
  }
}

TEST(Jacobian, AloneWithoutOtherAnnotations) {
  Rng rng(206);
  for (int t = 0; t < 10; ++t) {
    double x = rng.uniform(-1, 1), y = rng.uniform(-1, 1), out[1], J[4];
    jc::alone_jacobian(x, y, out, J);
    double q = 1 + y * y;
    SO_EXPECT_CLOSE(out[0], x / q, 1e-15);
    SO_EXPECT_CLOSE(J[0], y * y, 1e-13);
    SO_EXPECT_CLOSE(J[1], 2 * x * y, 1e-13);
    SO_EXPECT_CLOSE(J[2], 1 / q, 1e-13);
    SO_EXPECT_CLOSE(J[3], -2 * x * y / (q * q), 1e-13);
  }
}

TEST(Jacobian, Float) {
  Rng rng(205);
  for (int t = 0; t < 10; ++t) {
    float x[2] = {float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))};
    float y[3], J[6];
    jc::fl_jacobian(x, y, J);
    float ref[6] = {x[1], x[0], std::exp(x[0]), -1, 0, 3 * x[1] * x[1]};
    for (int i = 0; i < 6; ++i)
      SO_EXPECT_CLOSE(J[i], ref[i], 1e-6);
    for (int j = 0; j < 2; ++j) {
      float tx[2] = {float(j == 0), float(j == 1)}, yy[3], ty[3] = {};
      jc::fl_jvp(x, yy, tx, ty);
      for (int i = 0; i < 3; ++i)
        SO_EXPECT_CLOSE(J[i * 2 + j], ty[i], 1e-6);
    }
  }
}

// Central differences of a function of the flattened inputs x returning
// the flattened outputs: J[i * n + j] = d out_i / d x_j.
template <class F> Vec jacobianFD(F f, const Vec &x, double h = 1e-6) {
  std::size_t n = x.size();
  Vec J;
  for (std::size_t j = 0; j < n; ++j) {
    Vec xp = x, xm = x;
    xp[j] += h;
    xm[j] -= h;
    Vec fp = f(xp), fm = f(xm);
    if (J.empty())
      J.assign(fp.size() * n, 0.0);
    for (std::size_t i = 0; i < fp.size(); ++i)
      J[i * n + j] = (fp[i] - fm[i]) / (2 * h);
  }
  return J;
}

// J has exactly Rows x Cols entries: the one after them is left alone.
constexpr double Untouched = -7.0;

TEST(Jacobian, NamesPickInputsOutputsAlwaysRowsReverse) {
  Rng rng(207);
  for (int t = 0; t < 10; ++t) {
    Vec cam = rng.vec(11, -0.3, 0.3), X = rng.vec(3, -1, 1);
    cam[6] = rng.uniform(0.5, 2);       // focal length
    X[2] = rng.uniform(3, 5);           // in front of the camera
    double w = rng.uniform(0.5, 1.5);
    double feat[2] = {rng.uniform(-1, 1), rng.uniform(-1, 1)};
    Vec J(2 * 15 + 1, Untouched), JN(2 * 15 + 1, Untouched);
    double err[2] = {}, errN[2] = {}, ref[2];
    jc::reproj_jacobian(cam.data(), X.data(), w, feat, err, J.data());
    jc::reprojNamed_jacobian(cam.data(), X.data(), w, feat, errN, JN.data());
    EXPECT_EQ(J[30], Untouched);
    EXPECT_EQ(JN[30], Untouched);
    // The output keeps the forward sweep's values.
    jc::reproj(cam.data(), X.data(), w, feat, ref);
    SO_EXPECT_CLOSE(err[0], ref[0], 1e-15);
    SO_EXPECT_CLOSE(err[1], ref[1], 1e-15);
    J.pop_back();
    JN.pop_back();
    expectMatrixClose(J, JN, 0);
    // Columns: cam, X, w.
    Vec in = cam;
    in.insert(in.end(), X.begin(), X.end());
    in.push_back(w);
    auto f = [&](const Vec &v) {
      double e[2];
      jc::reproj(v.data(), v.data() + 11, v[14], feat, e);
      return Vec{e[0], e[1]};
    };
    expectMatrixClose(J, jacobianFD(f, in), 1e-7);
  }
}

TEST(Jacobian, NamesPickInputsResultAndOutputArrayForward) {
  Rng rng(208);
  for (int t = 0; t < 10; ++t) {
    double a = rng.uniform(-1, 1), s = rng.uniform(-1, 1);
    double b[2] = {rng.uniform(-1, 1), rng.uniform(-1, 1)};
    Vec J(4 * 2 + 1, Untouched), JN(4 * 2 + 1, Untouched);
    double out[3], outN[3];
    jc::mixFwd_jacobian(a, b, s, out, J.data());
    jc::mixFwdNamed_jacobian(a, b, s, outN, JN.data());
    EXPECT_EQ(J[8], Untouched);
    EXPECT_EQ(JN[8], Untouched);
    J.pop_back();
    JN.pop_back();
    expectMatrixClose(J, JN, 0);
    // Rows: the result, out[0..2]; columns: a, s.
    Vec ref = {std::exp(a) * b[0], -2 * s * b[1],
               b[0], 1,
               s * std::cos(a * s) * b[1], a * std::cos(a * s) * b[1],
               2 * a * s, a * a};
    expectMatrixClose(J, ref, 1e-13);
    auto f = [&](const Vec &v) {
      double o[3];
      double r = jc::mixFwd(v[0], b, v[1], o);
      return Vec{r, o[0], o[1], o[2]};
    };
    expectMatrixClose(J, jacobianFD(f, {a, s}), 1e-7);
  }
}

TEST(Jacobian, NamesPickInputsResultAndInPlaceOutputReverse) {
  Rng rng(209);
  for (int t = 0; t < 10; ++t) {
    Vec x = rng.vec(4, -1, 1);
    double s = rng.uniform(-1, 1);
    double entry[2] = {rng.uniform(-1, 1), rng.uniform(-1, 1)};
    Vec J(3 * 4 + 1, Untouched), JN(3 * 4 + 1, Untouched);
    double out[2] = {entry[0], entry[1]}, outN[2] = {entry[0], entry[1]};
    jc::mixRev_jacobian(out, x.data(), s, J.data());
    jc::mixRevNamed_jacobian(outN, x.data(), s, JN.data());
    EXPECT_EQ(J[12], Untouched);
    EXPECT_EQ(JN[12], Untouched);
    J.pop_back();
    JN.pop_back();
    expectMatrixClose(J, JN, 0);
    // Columns: x only; the entry values of `out` are held fixed.
    auto f = [&](const Vec &v) {
      double o[2] = {entry[0], entry[1]};
      double r = jc::mixRev(o, v.data(), s);
      return Vec{r, o[0], o[1]};
    };
    expectMatrixClose(J, jacobianFD(f, x), 1e-7);
  }
}

TEST(Jacobian, InPlaceOutputForwardStartsEachColumnFromEntryValues) {
  Rng rng(210);
  for (int t = 0; t < 10; ++t) {
    double a = rng.uniform(-1, 1), b = rng.uniform(-1, 1);
    double entry[3] = {rng.uniform(-1, 1), rng.uniform(-1, 1),
                       rng.uniform(-1, 1)};
    double out[3] = {entry[0], entry[1], entry[2]}, J[6];
    jc::inPlaceFwd_jacobian(a, b, out, J);
    Vec ref = {entry[0], 0, b, a, 0, entry[2] * entry[2]};
    expectMatrixClose(Vec(J, J + 6), ref, 1e-13);
    // The output is written as f writes it, once.
    double once[3] = {entry[0], entry[1], entry[2]};
    jc::inPlaceFwd(a, b, once);
    for (int i = 0; i < 3; ++i)
      SO_EXPECT_CLOSE(out[i], once[i], 1e-15);
    auto f = [&](const Vec &v) {
      double o[3] = {entry[0], entry[1], entry[2]};
      jc::inPlaceFwd(v[0], v[1], o);
      return Vec{o[0], o[1], o[2]};
    };
    expectMatrixClose(Vec(J, J + 6), jacobianFD(f, {a, b}), 1e-7);
  }
}

// Both reverse-mode paths leave the outputs with the values f computed
// from their entry values, and agree with finite differences.
TEST(Jacobian, ReverseModeOutputsEndAsFComputesThem) {
  Rng rng(211);
  for (int t = 0; t < 5; ++t) {
    Vec x = rng.vec(4, -1, 1);
    double s = rng.uniform(-1, 1);
    double entry[2] = {rng.uniform(-1, 1), rng.uniform(-1, 1)};
    // Replayed reverse sweeps.
    double out[2] = {entry[0], entry[1]}, ref[2] = {entry[0], entry[1]};
    Vec J(12);
    jc::mixRev_jacobian(out, x.data(), s, J.data());
    jc::mixRev(ref, x.data(), s);
    EXPECT_EQ(out[0], ref[0]);
    EXPECT_EQ(out[1], ref[1]);
    // One f_vjp per row.
    double outC[2] = {entry[0], entry[1]}, refC[2] = {entry[0], entry[1]};
    Vec JC(12);
    jc::mixCheckpointed_jacobian(outC, x.data(), s, JC.data());
    jc::mixCheckpointed(refC, x.data(), s);
    EXPECT_EQ(outC[0], refC[0]);
    EXPECT_EQ(outC[1], refC[1]);
    auto f = [&](const Vec &v) {
      double o[2] = {entry[0], entry[1]};
      double r = jc::mixCheckpointed(o, v.data(), s);
      return Vec{r, o[0], o[1]};
    };
    expectMatrixClose(JC, jacobianFD(f, x), 1e-7);
  }
}

TEST(Jacobian, ScratchPointerRowsAgainstFD) {
  Rng rng(212);
  for (int t = 0; t < 5; ++t) {
    Vec x = rng.vec(3, -1, 1);
    double w1 = rng.uniform(-1, 1);
    double work[2] = {0, w1}, y[2];
    Vec J(6);
    jc::withScratch_jacobian(x.data(), work, y, J.data());
    double refWork[2] = {0, w1}, ref[2];
    jc::withScratch(x.data(), refWork, ref);
    EXPECT_EQ(y[0], ref[0]);
    EXPECT_EQ(y[1], ref[1]);
    auto f = [&](const Vec &v) {
      double wk[2] = {0, w1}, o[2];
      jc::withScratch(v.data(), wk, o);
      return Vec{o[0], o[1]};
    };
    expectMatrixClose(J, jacobianFD(f, x), 1e-7);
  }
}

} // namespace
