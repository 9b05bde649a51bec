// Bundle-adjustment formulation "inline": ADBench's reprojection residual of
// bench/adbench/ba.cpp written as one function of scalars, without helpers
// or local arrays: the point moved to the camera frame, Rodrigues' rotation
// spelled out component by component, the projection and the radial
// distortion in named locals. Compiled with the Fluxion plugin
// ([[fluxion::jacobian]]: the 2 x 15 block of one observation).
#include "ba_forms.hpp"

#include <fluxion/fluxion.hpp>

#include <cmath>

[[fluxion::jacobian("cam", "X", "w")]] void
ba_inline(const double cam[11], const double X[3], double w,
          const double feat[2], double err[2]) {
  const double px = X[0] - cam[3], py = X[1] - cam[4], pz = X[2] - cam[5];
  const double r0 = cam[0], r1 = cam[1], r2 = cam[2];
  const double theta2 = r0 * r0 + r1 * r1 + r2 * r2;
  double xc, yc, zc;
  if (theta2 != 0) {
    const double theta = std::sqrt(theta2);
    const double ct = std::cos(theta), st = std::sin(theta);
    const double k0 = r0 / theta, k1 = r1 / theta, k2 = r2 / theta;
    const double kp = (k0 * px + k1 * py + k2 * pz) * (1 - ct);
    xc = px * ct + (k1 * pz - k2 * py) * st + k0 * kp;
    yc = py * ct + (k2 * px - k0 * pz) * st + k1 * kp;
    zc = pz * ct + (k0 * py - k1 * px) * st + k2 * kp;
  } else {
    xc = px + (r1 * pz - r2 * py);
    yc = py + (r2 * px - r0 * pz);
    zc = pz + (r0 * py - r1 * px);
  }
  const double u = xc / zc, v = yc / zc;
  const double rsq = u * u + v * v;
  const double distortion = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
  err[0] = w * (u * distortion * cam[6] + cam[7] - feat[0]);
  err[1] = w * (v * distortion * cam[6] + cam[8] - feat[1]);
}
