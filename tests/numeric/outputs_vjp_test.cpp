// Output parameters and f_vjp: non-const pointer parameters are outputs
// whose d_ holds the seed on entry; the vjp adds seed^T J into the inputs'
// d_. The reference is seed^T J with J from central differences of every
// output.
#include <fluxion/fluxion.hpp>

#include "numeric_check.hpp"

namespace outv {

// y = (A x + b)^2 elementwise, A m x n row-major.
[[fluxion::grad]] void affine_sq(const double *A, const double *x,
                                 const double *b, double *y, int m, int n) {
  for (int i = 0; i < m; ++i) {
    y[i] = b[i];
    for (int j = 0; j < n; ++j)
      y[i] += A[i * n + j] * x[j];
    y[i] = y[i] * y[i];
  }
}

// Returns |x|^2 and writes x / (1 + |x|^2) into out.
[[fluxion::grad]] double shrink(const double *x, double *out, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  for (int i = 0; i < n; ++i)
    out[i] = x[i] / (1 + s);
  return s;
}

// Two scalar outputs through pointers: a rotation by (c, s).
[[fluxion::grad]] void rotate(double c, double s, double x, double y,
                              double *ox, double *oy) {
  *ox = c * x - s * y;
  *oy = s * x + c * y;
}

// Outputs re-read while they are written: a running sum of squares.
[[fluxion::grad]] void cumsq(const double *x, double *y, int n) {
  y[0] = x[0] * x[0];
  for (int i = 1; i < n; ++i)
    y[i] = y[i - 1] + x[i] * x[i];
}

// A fixed-size output array.
[[fluxion::grad]] void outer2(double u[2], double v[2], double out[4]) {
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      out[i * 2 + j] = u[i] * v[j];
}

// An array updated in place: both an input and an output.
[[fluxion::grad]] void square_inplace(double *x, int n, double w) {
  for (int i = 0; i < n; ++i)
    x[i] = w * x[i] * x[i];
}

} // namespace outv

using nt::ld;

namespace {

void expect_vjp(const std::vector<ld> &got, const std::vector<ld> &J,
                const std::vector<ld> &seed, std::size_t n, ld scale = 1) {
  std::vector<ld> ref = nt::seed_times(J, seed, n);
  ASSERT_EQ(got.size(), n);
  for (std::size_t k = 0; k < n; ++k)
    EXPECT_TRUE(nt::close(got[k], ref[k], nt::Tol<double>::fd_rtol,
                          nt::Tol<double>::fd_atol * scale))
        << "input " << k;
}

} // namespace

TEST(OutputsVjp, OutputArrayWithSeeds) {
  const int m = 3, n = 4;
  nt::Rng rng(21);
  // Flattened inputs: A (m n), x (n), b (m).
  std::vector<double> in = rng.vec<double>(m * n + n + m, -1, 1);
  auto P = [&](const double *v, double *y) {
    outv::affine_sq(v, v + m * n, v + m * n + n, y, m, n);
  };
  std::vector<ld> J = nt::fd_jacobian<double>(P, in, m);
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<double> seed = rng.vec<double>(m, -2, 2);
    std::vector<double> d(in.size(), 0), y(m, 0), dy = seed;
    outv::affine_sq_vjp(in.data(), in.data() + m * n, in.data() + m * n + n,
                        y.data(), m, n, d.data(), d.data() + m * n,
                        d.data() + m * n + n, dy.data());
    expect_vjp(std::vector<ld>(d.begin(), d.end()), J,
               std::vector<ld>(seed.begin(), seed.end()), in.size(), 10);
    // Closed form: with z = A x + b, dz_i = 2 z_i seed_i.
    for (int i = 0; i < m; ++i) {
      ld z = in[m * n + n + i];
      for (int j = 0; j < n; ++j)
        z += (ld)in[i * n + j] * in[m * n + j];
      ld dz = 2 * z * seed[i];
      NT_EXPECT_EXACT(double, d[m * n + n + i], dz);
      for (int j = 0; j < n; ++j)
        NT_EXPECT_EXACT(double, d[i * n + j], dz * in[m * n + j]);
    }
  }
}

TEST(OutputsVjp, VjpAccumulatesIntoInputs) {
  const int m = 2, n = 2;
  std::vector<double> A = {1, 2, 3, 4}, x = {0.5, -0.25}, b = {0.1, 0.2};
  std::vector<double> dA(4, 0), dx(2, 0), db(2, 0), y(2), dy = {1.5, -0.5};
  outv::affine_sq_vjp(A.data(), x.data(), b.data(), y.data(), m, n, dA.data(),
                      dx.data(), db.data(), dy.data());
  std::vector<double> first = dx;
  dy = {1.5, -0.5};
  outv::affine_sq_vjp(A.data(), x.data(), b.data(), y.data(), m, n, dA.data(),
                      dx.data(), db.data(), dy.data());
  for (int j = 0; j < n; ++j)
    NT_EXPECT_EXACT(double, dx[j], 2 * (ld)first[j]);
  // dx = A^T (2 z * seed), z = A x + b
  ld z0 = 1 * 0.5 + 2 * -0.25 + 0.1, z1 = 3 * 0.5 + 4 * -0.25 + 0.2;
  ld g0 = 2 * z0 * 1.5, g1 = 2 * z1 * -0.5;
  NT_EXPECT_EXACT(double, first[0], 1 * g0 + 3 * g1);
  NT_EXPECT_EXACT(double, first[1], 2 * g0 + 4 * g1);
}

TEST(OutputsVjp, ReturnValueAndOutputArray) {
  const int n = 4;
  std::vector<double> x = {0.5, -1.0, 0.75, 2.0};
  // Outputs: the return value (row 0) and out[0..n-1].
  auto P = [&](const double *v, double *y) { y[0] = outv::shrink(v, y + 1, n); };
  std::vector<ld> J = nt::fd_jacobian<double>(P, x, n + 1);
  std::vector<double> seed_out = {0.3, -1.2, 0.8, 2.0};
  double seed_ret = -0.7;
  std::vector<double> dx(n, 0), out(n), dout = seed_out;
  double v = outv::shrink_vjp(x.data(), out.data(), n, seed_ret, dx.data(),
                              dout.data());
  NT_EXPECT_EXACT(double, v, 0.25 + 1 + 0.5625 + 4);
  std::vector<ld> seed = {seed_ret};
  seed.insert(seed.end(), seed_out.begin(), seed_out.end());
  expect_vjp(std::vector<ld>(dx.begin(), dx.end()), J, seed, n);

  // f_grad: seed 1 on the return value, zero seeds on the output array.
  std::vector<double> gx(n, 0), gout(n, 0);
  outv::shrink_grad(x.data(), out.data(), n, gx.data(), gout.data());
  for (int i = 0; i < n; ++i)
    NT_EXPECT_EXACT(double, gx[i], 2 * x[i]);
}

TEST(OutputsVjp, ScalarOutputPointers) {
  nt::Rng rng(22);
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<double> in = rng.vec<double>(4, -2, 2); // c, s, x, y
    auto P = [](const double *v, double *o) {
      outv::rotate(v[0], v[1], v[2], v[3], &o[0], &o[1]);
    };
    std::vector<ld> J = nt::fd_jacobian<double>(P, in, 2);
    double sx = rng.uniform(-1, 1), sy = rng.uniform(-1, 1);
    double dc = 0, ds = 0, dx = 0, dy = 0, ox, oy, dox = sx, doy = sy;
    outv::rotate_vjp(in[0], in[1], in[2], in[3], &ox, &oy, &dc, &ds, &dx, &dy,
                     &dox, &doy);
    expect_vjp({dc, ds, dx, dy}, J, {sx, sy}, 4);
    ld c = in[0], s = in[1], x = in[2], y = in[3];
    NT_EXPECT_EXACT(double, dc, sx * x + sy * y);
    NT_EXPECT_EXACT(double, ds, -sx * y + sy * x);
    NT_EXPECT_EXACT(double, dx, sx * c + sy * s);
    NT_EXPECT_EXACT(double, dy, -sx * s + sy * c);
  }
}

TEST(OutputsVjp, OutputsReadBack) {
  const int n = 5;
  std::vector<double> x = {0.5, -1.0, 1.5, 0.25, -2.0};
  auto P = [&](const double *v, double *y) { outv::cumsq(v, y, n); };
  std::vector<ld> J = nt::fd_jacobian<double>(P, x, n);
  std::vector<double> seed = {1.0, -0.5, 0.25, 2.0, -1.0};
  std::vector<double> dx(n, 0), y(n), dy = seed;
  outv::cumsq_vjp(x.data(), y.data(), n, dx.data(), dy.data());
  expect_vjp(std::vector<ld>(dx.begin(), dx.end()), J,
             std::vector<ld>(seed.begin(), seed.end()), n);
  // y_i = sum_{k<=i} x_k^2: dx_k = 2 x_k sum_{i>=k} seed_i.
  for (int k = 0; k < n; ++k) {
    ld tail = 0;
    for (int i = k; i < n; ++i)
      tail += seed[i];
    NT_EXPECT_EXACT(double, dx[k], 2 * (ld)x[k] * tail);
  }
}

TEST(OutputsVjp, FixedSizeOutputArray) {
  std::vector<double> in = {1.5, -0.5, 2.0, 0.25}; // u, v
  auto P = [](const double *w, double *o) {
    double u[2] = {w[0], w[1]}, v[2] = {w[2], w[3]}, out[4];
    outv::outer2(u, v, out);
    for (int i = 0; i < 4; ++i)
      o[i] = out[i];
  };
  std::vector<ld> J = nt::fd_jacobian<double>(P, in, 4);
  double seed[4] = {1.0, 2.0, -1.0, 0.5};
  double u[2] = {in[0], in[1]}, v[2] = {in[2], in[3]}, out[4];
  double du[2] = {0, 0}, dv[2] = {0, 0};
  double dout[4] = {seed[0], seed[1], seed[2], seed[3]};
  outv::outer2_vjp(u, v, out, du, dv, dout);
  expect_vjp({du[0], du[1], dv[0], dv[1]}, J,
             {seed[0], seed[1], seed[2], seed[3]}, 4);
  NT_EXPECT_EXACT(double, du[0], seed[0] * v[0] + seed[1] * v[1]);
  NT_EXPECT_EXACT(double, dv[1], seed[1] * u[0] + seed[3] * u[1]);
}

TEST(OutputsVjp, InPlaceArray) {
  // x is both input and output: on entry d_x holds the seed of the output
  // x, on exit the adjoint of the input x (seed^T J), as in Tapenade / Clad.
  const int n = 4;
  std::vector<double> x0 = {0.5, -1.5, 2.0, 0.75};
  double w = 1.25;
  std::vector<double> seed = {1.0, -2.0, 0.5, 3.0};
  std::vector<double> x = x0, dx = seed;
  double dw = 0;
  outv::square_inplace_vjp(x.data(), n, w, dx.data(), &dw);
  ld rw = 0;
  for (int i = 0; i < n; ++i) {
    NT_EXPECT_EXACT(double, dx[i], seed[i] * 2 * w * (ld)x0[i]);
    rw += seed[i] * (ld)x0[i] * x0[i];
  }
  NT_EXPECT_EXACT(double, dw, rw);
  // And against FD of each output with respect to (x, w).
  std::vector<double> in = x0;
  in.push_back(w);
  auto P = [&](const double *v, double *y) {
    for (int i = 0; i < n; ++i)
      y[i] = v[i];
    outv::square_inplace(y, n, v[n]);
  };
  std::vector<ld> J = nt::fd_jacobian<double>(P, in, n);
  std::vector<ld> got(dx.begin(), dx.end());
  got.push_back(dw);
  expect_vjp(got, J, std::vector<ld>(seed.begin(), seed.end()), n + 1);
}
