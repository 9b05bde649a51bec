// Bundle adjustment with ADOL-C. The residual function of one observation
// is taped once per Jacobian evaluation, with its 17 inputs (camera, point,
// weight, and the observed feature, so that one tape serves every
// observation) as independents, then evaluated for each observation:
// zero-order forward, and a reverse sweep with both residuals as seeds. A
// forward sweep that reports a changed branch (zero vs nonzero rotation)
// re-tapes at that observation.
#include "ba.hpp"

#include <adolc/adolc.h>

#include <cmath>

namespace adbench {
namespace {

// Tapes of the residual (rotated and zero-rotation branch) and the weight.
constexpr short ReprojTag[2] = {11, 12};
constexpr short WeightTag = 13;
constexpr int NIn = BaBlockCols + 2;

template <class T> void cross(const T *a, const T *b, T *out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

template <class T>
void rodrigues_rotate_point(const T *rot, const T *X, T *out) {
  T sqtheta = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
  if (sqtheta != 0) {
    T theta = sqrt(sqtheta);
    T costheta = cos(theta), sintheta = sin(theta);
    T theta_inverse = 1.0 / theta;
    T w[3] = {rot[0] * theta_inverse, rot[1] * theta_inverse,
              rot[2] * theta_inverse};
    T w_cross_X[3];
    cross(w, X, w_cross_X);
    T tmp = (w[0] * X[0] + w[1] * X[1] + w[2] * X[2]) * (1 - costheta);
    for (int i = 0; i < 3; ++i)
      out[i] = X[i] * costheta + w_cross_X[i] * sintheta + w[i] * tmp;
  } else {
    T rot_cross_X[3];
    cross(rot, X, rot_cross_X);
    for (int i = 0; i < 3; ++i)
      out[i] = X[i] + rot_cross_X[i];
  }
}

// in: camera (11), point (3), weight, feature (2).
template <class T> void reproj_error(const T *in, T *err) {
  const T *cam = in, *X = in + BaCamSize;
  const T &w = in[BaCamSize + 3];
  const T *feat = in + BaBlockCols;
  T Xo[3], Xcam[3];
  for (int i = 0; i < 3; ++i)
    Xo[i] = X[i] - cam[3 + i];
  rodrigues_rotate_point(cam, Xo, Xcam);
  T p0 = Xcam[0] / Xcam[2], p1 = Xcam[1] / Xcam[2];
  T rsq = p0 * p0 + p1 * p1;
  T L = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
  err[0] = w * (p0 * L * cam[6] + cam[7] - feat[0]);
  err[1] = w * (p1 * L * cam[6] + cam[8] - feat[1]);
}

void tape_reproj(short tag, const double *x) {
  adouble ax[NIn], aerr[2];
  double err[2];
  trace_on(tag);
  for (int i = 0; i < NIn; ++i)
    ax[i] <<= x[i];
  reproj_error(ax, aerr);
  aerr[0] >>= err[0];
  aerr[1] >>= err[1];
  trace_off();
}

void gather(const BaInput &in, int i, double *x) {
  const double *cam = &in.cams[BaCamSize * in.obs[2 * i]];
  const double *X = &in.X[3 * in.obs[2 * i + 1]];
  for (int j = 0; j < BaCamSize; ++j)
    x[j] = cam[j];
  for (int j = 0; j < 3; ++j)
    x[BaCamSize + j] = X[j];
  x[BaCamSize + 3] = in.w[i];
  x[BaBlockCols] = in.feats[2 * i];
  x[BaBlockCols + 1] = in.feats[2 * i + 1];
}

} // namespace

void ba_adolc_jacobian(const BaInput &in, double *reproj_err, double *w_err,
                       BaJacobian &J) {
  double x[NIn];
  bool taped[2] = {false, false};
  double U0[2] = {1, 0}, U1[2] = {0, 1};
  double *U[2] = {U0, U1};
  double Z0[NIn], Z1[NIn];
  double *Z[2] = {Z0, Z1};
  for (int i = 0; i < in.p; ++i) {
    gather(in, i, x);
    const int branch = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] == 0;
    const short tag = ReprojTag[branch];
    if (!taped[branch]) {
      tape_reproj(tag, x);
      taped[branch] = true;
    }
    zos_forward(tag, 2, NIn, 1, x, reproj_err + 2 * i);
    fov_reverse(tag, 2, NIn, 2, U, Z);
    double *block = &J.reproj[2 * BaBlockCols * i];
    for (int j = 0; j < BaBlockCols; ++j) {
      block[j] = Z0[j];
      block[BaBlockCols + j] = Z1[j];
    }
  }

  adouble aw, ae;
  double w0 = in.w[0], e0;
  trace_on(WeightTag);
  aw <<= w0;
  ae = 1 - aw * aw;
  ae >>= e0;
  trace_off();
  for (int i = 0; i < in.p; ++i) {
    zos_forward(WeightTag, 1, 1, 1, &in.w[i], &w_err[i]);
    double one = 1;
    fos_reverse(WeightTag, 1, 1, &one, &J.weight[i]);
  }
}

} // namespace adbench
