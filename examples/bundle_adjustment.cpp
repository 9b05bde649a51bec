// Camera refinement by Gauss-Newton, the inner step of bundle adjustment.
// The reprojection residual is written as a Ceres cost function would be:
// raw parameter blocks in, Eigen's fixed-size types inside (the rotation
// matrix from angle-axis by Rodrigues' formula, written out with a Matrix3d;
// a pinhole projection; two-coefficient radial distortion). Fluxion generates its Jacobian with
// respect to the camera (f_jacobian: 2 rows, 9 columns); Gauss-Newton
// accumulates J^T J and J^T r with Eigen and solves the normal equations.
// The Jacobian is checked against finite differences, and the fit must
// recover the camera the observations were made with.
#include <Eigen/Dense>

#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

using Eigen::Matrix;
using Eigen::Matrix3d;
using Eigen::Vector2d;
using Eigen::Vector3d;

// cam: angle-axis rotation (3), translation (3), focal length, k1, k2.
[[fluxion::jacobian("cam")]] void reprojection(const double cam[9],
                                               const double X[3],
                                               const double observed[2],
                                               double residual[2]) {
  Vector3d w(cam[0], cam[1], cam[2]), t(cam[3], cam[4], cam[5]);
  Vector3d P(X[0], X[1], X[2]);
  // Rodrigues' formula: R = cos I + sin [k]x + (1 - cos) k k^T.
  double theta = w.norm();
  Vector3d k = w.normalized();
  Matrix3d K;
  K << 0, -k.z(), k.y(), k.z(), 0, -k.x(), -k.y(), k.x(), 0;
  Matrix3d R = std::cos(theta) * Matrix3d::Identity() + std::sin(theta) * K +
               (1 - std::cos(theta)) * k * k.transpose();
  Vector3d p = R * P + t;
  Vector2d uv(-p.x() / p.z(), -p.y() / p.z());
  double r2 = uv.squaredNorm();
  double distortion = 1 + cam[7] * r2 + cam[8] * r2 * r2;
  residual[0] = cam[6] * distortion * uv.x() - observed[0];
  residual[1] = cam[6] * distortion * uv.y() - observed[1];
}

int main() {
  const int N = 40;
  double True[9] = {0.12, -0.25, 0.08, 0.3, -0.2, -6.0, 520.0, 2e-2, -1e-3};
  double Points[N][3], Observed[N][2];
  for (int i = 0; i < N; ++i) {
    Points[i][0] = 1.5 * std::sin(1.3 * i);
    Points[i][1] = 1.2 * std::cos(0.7 * i + 0.4);
    Points[i][2] = 0.8 * std::sin(2.1 * i + 1.0);
    double Zero[2] = {0, 0};
    reprojection(True, Points[i], Zero, Observed[i]);
  }

  // Start from a perturbed camera.
  double Cam[9] = {0.10, -0.22, 0.05, 0.25, -0.1, -5.7, 500.0, 0, 0};
  auto Cost = [&] {
    double C = 0, R[2];
    for (int i = 0; i < N; ++i) {
      reprojection(Cam, Points[i], Observed[i], R);
      C += 0.5 * (R[0] * R[0] + R[1] * R[1]);
    }
    return C;
  };
  double Initial = Cost();
  std::printf("iteration 0: cost %.6e\n", Initial);
  for (int It = 1; It <= 10; ++It) {
    Matrix<double, 9, 9> JtJ = Matrix<double, 9, 9>::Zero();
    Matrix<double, 9, 1> Jtr = Matrix<double, 9, 1>::Zero();
    for (int i = 0; i < N; ++i) {
      double J[2 * 9], R[2];
      reprojection_jacobian(Cam, Points[i], Observed[i], R, J);
      Eigen::Map<Matrix<double, 2, 9, Eigen::RowMajor>> Ji(J);
      JtJ += Ji.transpose() * Ji;
      Jtr += Ji.transpose() * Vector2d(R[0], R[1]);
    }
    // Levenberg's damping keeps the step defined when J^T J is nearly
    // singular (focal length and distortion are correlated).
    JtJ.diagonal() *= 1 + 1e-6;
    Matrix<double, 9, 1> Step = JtJ.ldlt().solve(-Jtr);
    for (int k = 0; k < 9; ++k)
      Cam[k] += Step(k);
    std::printf("iteration %d: cost %.6e\n", It, Cost());
  }
  double Final = Cost();

  double Residual[2];
  auto report = fluxion::check_jacobian(
      reprojection, reprojection_jacobian, Cam, fluxion::constant(Points[3]),
      fluxion::constant(Observed[3]), Residual);
  std::cout << report;
  bool Converged = Final < 1e-12 * Initial;
  std::printf("camera: f %.4f, k1 %.5f, k2 %.5f (true %.4f, %.5f, %.5f)\n",
              Cam[6], Cam[7], Cam[8], True[6], True[7], True[8]);
  std::printf("%s\n", report.ok() && Converged
                          ? "Jacobian matches finite differences; converged"
                          : "MISMATCH");
  return report.ok() && Converged ? 0 : 1;
}
