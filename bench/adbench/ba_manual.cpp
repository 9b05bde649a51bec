// Bundle adjustment: inputs, and the hand-written Jacobian (reverse mode by
// hand). Per observation one forward sweep keeps the intermediates, then two
// reverse sweeps (one per residual) write the two rows of the 2 x 15 block.
#include "ba.hpp"
#include "common.hpp"

#include <cmath>

namespace adbench {

BaInput ba_make_input(int n, int m, int p, std::uint64_t seed) {
  BaInput In;
  In.n = n;
  In.m = m;
  In.p = p;
  Rng R(seed);
  In.cams.resize(BaCamSize * n);
  for (int c = 0; c < n; ++c) {
    double *cam = &In.cams[BaCamSize * c];
    for (int i = 0; i < 3; ++i)
      cam[i] = c == 0 ? 0.0 : R.uniform(-0.2, 0.2); // rotation
    for (int i = 3; i < 6; ++i)
      cam[i] = R.uniform(-0.5, 0.5); // centre
    cam[6] = R.uniform(0.8, 1.2);    // focal length
    cam[7] = R.uniform(-0.1, 0.1);   // principal point
    cam[8] = R.uniform(-0.1, 0.1);
    cam[9] = R.uniform(-0.1, 0.1); // radial distortion
    cam[10] = R.uniform(-0.05, 0.05);
  }
  // Points in front of every camera (depth 4 to 6, rotations below 0.35 rad).
  In.X.resize(3 * m);
  for (int j = 0; j < m; ++j) {
    In.X[3 * j] = R.uniform(-1, 1);
    In.X[3 * j + 1] = R.uniform(-1, 1);
    In.X[3 * j + 2] = R.uniform(4, 6);
  }
  In.w.resize(p);
  for (double &W : In.w)
    W = R.uniform(0.5, 1.5);
  In.feats.resize(2 * p);
  for (double &F : In.feats)
    F = R.uniform(-0.3, 0.3);
  In.obs.resize(2 * p);
  for (int i = 0; i < p; ++i) { // ADBench's observation pattern
    In.obs[2 * i] = i % n;
    In.obs[2 * i + 1] = i % m;
  }
  return In;
}

namespace {

// Forward intermediates of one observation.
struct Forward {
  double Xo[3];             // X - C
  bool rotated;             // |r| != 0
  double theta, c, s, w[3]; // angle, cos, sin, axis
  double wxX[3], wdotX, t;  // w x Xo, w . Xo, (w . Xo)(1 - cos)
  double Xcam[3];
  double p[2];   // Xcam[0:2] / Xcam[2]
  double rsq, L; // radial distortion
  double d[2];   // p * L
  double proj[2];
};

void forward(const double *cam, const double *X, double w, const double *feat,
             Forward &F, double *err) {
  for (int i = 0; i < 3; ++i)
    F.Xo[i] = X[i] - cam[3 + i];
  const double *r = cam;
  double sq = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  F.rotated = sq != 0;
  if (F.rotated) {
    F.theta = std::sqrt(sq);
    F.c = std::cos(F.theta);
    F.s = std::sin(F.theta);
    for (int i = 0; i < 3; ++i)
      F.w[i] = r[i] / F.theta;
    F.wxX[0] = F.w[1] * F.Xo[2] - F.w[2] * F.Xo[1];
    F.wxX[1] = F.w[2] * F.Xo[0] - F.w[0] * F.Xo[2];
    F.wxX[2] = F.w[0] * F.Xo[1] - F.w[1] * F.Xo[0];
    F.wdotX = F.w[0] * F.Xo[0] + F.w[1] * F.Xo[1] + F.w[2] * F.Xo[2];
    F.t = F.wdotX * (1 - F.c);
    for (int i = 0; i < 3; ++i)
      F.Xcam[i] = F.Xo[i] * F.c + F.wxX[i] * F.s + F.w[i] * F.t;
  } else {
    F.wxX[0] = r[1] * F.Xo[2] - r[2] * F.Xo[1];
    F.wxX[1] = r[2] * F.Xo[0] - r[0] * F.Xo[2];
    F.wxX[2] = r[0] * F.Xo[1] - r[1] * F.Xo[0];
    for (int i = 0; i < 3; ++i)
      F.Xcam[i] = F.Xo[i] + F.wxX[i];
  }
  F.p[0] = F.Xcam[0] / F.Xcam[2];
  F.p[1] = F.Xcam[1] / F.Xcam[2];
  F.rsq = F.p[0] * F.p[0] + F.p[1] * F.p[1];
  F.L = 1 + cam[9] * F.rsq + cam[10] * F.rsq * F.rsq;
  for (int i = 0; i < 2; ++i) {
    F.d[i] = F.p[i] * F.L;
    F.proj[i] = F.d[i] * cam[6] + cam[7 + i];
    err[i] = w * (F.proj[i] - feat[i]);
  }
}

// One row of the block: the adjoint of (cam, X, w) for the seed e on err.
void reverse(const double *cam, double w, const double *feat, const Forward &F,
             const double e[2], double *row) {
  double *dcam = row, *dX = row + BaCamSize, &dw = row[BaCamSize + 3];
  for (int i = 0; i < BaBlockCols; ++i)
    row[i] = 0;
  // err = w (proj - feat)
  double dproj[2] = {w * e[0], w * e[1]};
  dw = e[0] * (F.proj[0] - feat[0]) + e[1] * (F.proj[1] - feat[1]);
  // proj = d f + x0
  dcam[6] = dproj[0] * F.d[0] + dproj[1] * F.d[1];
  dcam[7] = dproj[0];
  dcam[8] = dproj[1];
  double dd[2] = {dproj[0] * cam[6], dproj[1] * cam[6]};
  // d = p L, L = 1 + k1 rsq + k2 rsq^2, rsq = |p|^2
  double dL = dd[0] * F.p[0] + dd[1] * F.p[1];
  dcam[9] = dL * F.rsq;
  dcam[10] = dL * F.rsq * F.rsq;
  double drsq = dL * (cam[9] + 2 * cam[10] * F.rsq);
  double dp[2] = {dd[0] * F.L + 2 * drsq * F.p[0],
                  dd[1] * F.L + 2 * drsq * F.p[1]};
  // p = Xcam[0:2] / Xcam[2]
  double z = F.Xcam[2];
  double dXcam[3] = {dp[0] / z, dp[1] / z,
                     -(dp[0] * F.p[0] + dp[1] * F.p[1]) / z};
  double dXo[3], dr[3];
  const double *Xo = F.Xo;
  if (F.rotated) {
    // Xcam = Xo c + (w x Xo) s + w t, t = (w . Xo)(1 - c)
    double dc = dXcam[0] * Xo[0] + dXcam[1] * Xo[1] + dXcam[2] * Xo[2];
    double ds = dXcam[0] * F.wxX[0] + dXcam[1] * F.wxX[1] + dXcam[2] * F.wxX[2];
    double dt = dXcam[0] * F.w[0] + dXcam[1] * F.w[1] + dXcam[2] * F.w[2];
    // a . (w x Xo) = Xo . (a x w) = w . (Xo x a), with a = s dXcam
    double dwv[3], dwdotX = dt * (1 - F.c);
    dc -= dt * F.wdotX;
    dXo[0] = F.c * dXcam[0] + F.s * (dXcam[1] * F.w[2] - dXcam[2] * F.w[1]);
    dXo[1] = F.c * dXcam[1] + F.s * (dXcam[2] * F.w[0] - dXcam[0] * F.w[2]);
    dXo[2] = F.c * dXcam[2] + F.s * (dXcam[0] * F.w[1] - dXcam[1] * F.w[0]);
    dwv[0] = F.s * (Xo[1] * dXcam[2] - Xo[2] * dXcam[1]);
    dwv[1] = F.s * (Xo[2] * dXcam[0] - Xo[0] * dXcam[2]);
    dwv[2] = F.s * (Xo[0] * dXcam[1] - Xo[1] * dXcam[0]);
    for (int i = 0; i < 3; ++i) {
      dwv[i] += F.t * dXcam[i] + dwdotX * Xo[i];
      dXo[i] += dwdotX * F.w[i];
    }
    // c = cos theta, s = sin theta; w = r / theta, so d w_i / d theta =
    // -w_i / theta; theta = |r|, so d theta / d r = w.
    double dtheta = -F.s * dc + F.c * ds;
    double wdotdw = F.w[0] * dwv[0] + F.w[1] * dwv[1] + F.w[2] * dwv[2];
    dtheta -= wdotdw / F.theta;
    for (int i = 0; i < 3; ++i)
      dr[i] = dwv[i] / F.theta + dtheta * F.w[i];
  } else {
    // Xcam = Xo + r x Xo
    dXo[0] = dXcam[0] + (dXcam[1] * cam[2] - dXcam[2] * cam[1]);
    dXo[1] = dXcam[1] + (dXcam[2] * cam[0] - dXcam[0] * cam[2]);
    dXo[2] = dXcam[2] + (dXcam[0] * cam[1] - dXcam[1] * cam[0]);
    dr[0] = Xo[1] * dXcam[2] - Xo[2] * dXcam[1];
    dr[1] = Xo[2] * dXcam[0] - Xo[0] * dXcam[2];
    dr[2] = Xo[0] * dXcam[1] - Xo[1] * dXcam[0];
  }
  for (int i = 0; i < 3; ++i) {
    dcam[i] = dr[i];
    dcam[3 + i] = -dXo[i]; // Xo = X - C
    dX[i] = dXo[i];
  }
}

} // namespace

void ba_manual_jacobian(const BaInput &in, double *reproj_err, double *w_err,
                        BaJacobian &J) {
  static const double e0[2] = {1, 0}, e1[2] = {0, 1};
  for (int i = 0; i < in.p; ++i) {
    const double *cam = &in.cams[BaCamSize * in.obs[2 * i]];
    const double *X = &in.X[3 * in.obs[2 * i + 1]];
    const double *feat = &in.feats[2 * i];
    Forward F;
    forward(cam, X, in.w[i], feat, F, reproj_err + 2 * i);
    double *block = &J.reproj[2 * BaBlockCols * i];
    reverse(cam, in.w[i], feat, F, e0, block);
    reverse(cam, in.w[i], feat, F, e1, block + BaBlockCols);
  }
  for (int i = 0; i < in.p; ++i) {
    w_err[i] = 1 - in.w[i] * in.w[i];
    J.weight[i] = -2 * in.w[i];
  }
}

} // namespace adbench
