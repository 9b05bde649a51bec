// Bundle adjustment of ADBench (Srajer, Kukelova, Fitzgibbon 2018, section
// 3.2): the reprojection error of p observations of m points by n cameras,
// and a weight error per observation. The Jacobian is sparse: each
// observation's two residuals depend on one camera (11 parameters), one point
// (3) and one weight; each weight residual 1 - w^2 depends on its weight.
//
// Camera layout (ADBench's): rotation r[3] (Rodrigues vector), centre C[3],
// focal length f, principal point x0[2], radial distortion kappa[2].
#ifndef FLUXION_ADBENCH_BA_HPP
#define FLUXION_ADBENCH_BA_HPP

#include <cstdint>
#include <vector>

namespace adbench {

constexpr int BaCamSize = 11;
/// Nonzeros of one observation's two Jacobian rows: camera, point, weight.
constexpr int BaBlockCols = BaCamSize + 3 + 1;

struct BaInput {
  int n = 0, m = 0, p = 0;
  std::vector<double> cams;  // 11 n
  std::vector<double> X;     // 3 m
  std::vector<double> w;     // p
  std::vector<double> feats; // 2 p
  std::vector<int> obs;      // 2 p: camera and point of each observation
};

/// Deterministic input with ADBench's shape: observation i sees camera
/// i mod n and point i mod m. Camera 0 has a zero rotation, so the other
/// branch of the Rodrigues formula is exercised too.
BaInput ba_make_input(int n, int m, int p, std::uint64_t seed);

/// The Jacobian's nonzeros: per observation a 2 x 15 row-major block
/// (columns: camera, point, weight), then one entry per weight residual.
struct BaJacobian {
  std::vector<double> reproj; // 30 p
  std::vector<double> weight; // p
  void resize(int p) {
    reproj.assign(static_cast<std::size_t>(2 * BaBlockCols) * p, 0.0);
    weight.assign(p, 0.0);
  }
  std::vector<double> flat() const {
    std::vector<double> F(reproj);
    F.insert(F.end(), weight.begin(), weight.end());
    return F;
  }
};

/// The residuals, the primal of every method (ba.cpp, plain code).
void ba_objective(const BaInput &in, double *reproj_err, double *w_err);
/// Fluxion (ba.cpp): one generated f_jacobian per observation.
void ba_fluxion_jacobian(const BaInput &in, double *reproj_err, double *w_err,
                         BaJacobian &J);
#ifdef FLUXION_ADBENCH_EIGEN
/// Fluxion on the residual written with Eigen's fixed-size types
/// (ba_eigen.cpp).
void ba_fluxion_eigen_jacobian(const BaInput &in, double *reproj_err,
                               double *w_err, BaJacobian &J);
#endif
/// Hand-written (ba_manual.cpp): one forward sweep and two reverse sweeps
/// per observation.
void ba_manual_jacobian(const BaInput &in, double *reproj_err, double *w_err,
                        BaJacobian &J);
#ifdef FLUXION_ADBENCH_ADOLC
/// ADOL-C (ba_adolc.cpp): the 15 -> 2 residual function and the weight
/// residual are taped once per call, then evaluated per observation with the
/// jacobian driver (re-taping where a branch changes).
void ba_adolc_jacobian(const BaInput &in, double *reproj_err, double *w_err,
                       BaJacobian &J);
#endif

// The same residual written with structs (ba_struct.cpp): a camera and a
// point are objects, passed by const reference; the observation's residual
// is a Vec2 output. The model holds them in std::vectors, built once.
struct BaVec2 {
  double x, y;
};
struct BaVec3 {
  double x, y, z;
};
/// ADBench's camera layout, member by member: f_jacobian's columns follow
/// the members in order, so they are the pointer version's.
struct BaCamera {
  BaVec3 rot;    ///< Rodrigues vector
  BaVec3 center;
  double focal;
  BaVec2 principal;
  BaVec2 radial; ///< distortion coefficients
};
struct BaModel {
  std::vector<BaCamera> cams;
  std::vector<BaVec3> points;
  std::vector<double> w;
  std::vector<BaVec2> feats;
  std::vector<int> obs;
};
BaModel ba_make_model(const BaInput &in);
/// Fluxion (ba_struct.cpp): one generated f_jacobian per observation, on
/// objects.
void ba_fluxion_struct_jacobian(const BaModel &model, double *reproj_err,
                                double *w_err, BaJacobian &J);

/// One observation's residuals as a function of its 15 inputs (camera,
/// point, weight): for the finite-difference check.
void ba_residual(const double *cam, const double *X, double w,
                 const double *feat, double *err);

} // namespace adbench

#endif // FLUXION_ADBENCH_BA_HPP
