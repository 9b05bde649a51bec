// Gaussian mixture model objective of ADBench (Srajer, Kukelova, Fitzgibbon
// 2018, section 3.1): the negative log-likelihood of n points in d
// dimensions under K Gaussians, with each inverse covariance parametrised by
// a lower-triangular factor Q whose diagonal is exp'd, plus a Wishart prior.
//
// Parameters (ADBench's layout):
//   alphas[K]               mixture weights, log space (softmax'd)
//   means[K*d]              component means
//   icf[K*d*(d+1)/2]        per component: d log-diagonal entries of Q, then
//                           the strictly lower triangle, column by column
//   x[n*d]                  data points (not differentiated)
//   wishart gamma, m        prior parameters (not differentiated)
#ifndef FLUXION_ADBENCH_GMM_HPP
#define FLUXION_ADBENCH_GMM_HPP

#include <cstdint>
#include <vector>

namespace adbench {

/// Largest sizes the Fluxion version's local arrays hold.
constexpr int GmmMaxD = 64;
constexpr int GmmMaxK = 100;

struct GmmInput {
  int d = 0, k = 0, n = 0;
  std::vector<double> alphas, means, icf, x;
  double gamma = 1.0;
  int m = 0;
  int icfSize() const { return d * (d + 1) / 2; }
  /// Differentiated parameters, concatenated: alphas, means, icf.
  std::vector<double> params() const;
  void setParams(const std::vector<double> &P);
};

GmmInput gmm_make_input(int d, int k, int n, std::uint64_t seed);

/// Hand-written adjoint (gmm_manual.cpp): returns the objective and ADDS its
/// gradient into the three buffers, like a Fluxion f_grad.
double gmm_manual_grad(int d, int k, int n, const double *alphas,
                       const double *means, const double *icf, const double *x,
                       double wishart_gamma, int wishart_m, double *d_alphas,
                       double *d_means, double *d_icf);

#ifdef FLUXION_ADBENCH_ADOLC
/// ADOL-C (gmm_adolc.cpp): records the objective on tape `tag` at the
/// input's parameters, reverses that tape at once, and writes the gradient
/// (alphas, means, icf concatenated) into grad. Returns the objective.
double gmm_adolc_tape_and_gradient(const GmmInput &in, short tag, double *grad);
/// The gradient from the existing tape `tag`, evaluated at `params`
/// (ADOL-C's gradient driver: a zero-order forward and a reverse sweep).
void gmm_adolc_gradient(short tag, const std::vector<double> &params,
                        double *grad);
#endif

} // namespace adbench

// The Fluxion version (gmm.cpp, compiled with the plugin) and the gradient
// the plugin generates for it. They live at global scope, as a user's
// annotated code would.
double gmm_objective(int d, int k, int n, const double *alphas,
                     const double *means, const double *icf, const double *x,
                     double wishart_gamma, int wishart_m);
double gmm_objective_grad(int d, int k, int n, const double *alphas,
                          const double *means, const double *icf,
                          const double *x, double wishart_gamma, int wishart_m,
                          double *d_alphas, double *d_means, double *d_icf);

// The same objective written with std::vector parameters and locals
// (gmm_vector.cpp); the adjoints are vectors of the parameters' sizes.
// The same objective as one function with inline loops (gmm_inline.cpp).
double gmm_objective_inline(int d, int k, int n, const double *alphas,
                            const double *means, const double *icf,
                            const double *x, double wishart_gamma,
                            int wishart_m);
double gmm_objective_inline_grad(int d, int k, int n, const double *alphas,
                                 const double *means, const double *icf,
                                 const double *x, double wishart_gamma,
                                 int wishart_m, double *d_alphas,
                                 double *d_means, double *d_icf);

double gmm_objective_vector(int d, int k, int n,
                            const std::vector<double> &alphas,
                            const std::vector<double> &means,
                            const std::vector<double> &icf,
                            const std::vector<double> &x, double wishart_gamma,
                            int wishart_m);
double gmm_objective_vector_grad(
    int d, int k, int n, const std::vector<double> &alphas,
    const std::vector<double> &means, const std::vector<double> &icf,
    const std::vector<double> &x, double wishart_gamma, int wishart_m,
    std::vector<double> *d_alphas, std::vector<double> *d_means,
    std::vector<double> *d_icf);

// The same objective written with structs and references (gmm_struct.cpp):
// a component points into the parameter arrays; the adjoint of a component
// is a component pointing into the gradient's.
namespace adbench {
struct GmmComponent {
  double alpha;       // log mixture weight
  const double *mean; // d entries
  const double *icf;  // d log-diagonal entries, then the lower triangle
};
struct GmmData {
  int d, n;
  const double *x; // n points of d coordinates
};
struct GmmWishart {
  double gamma;
  int m;
};
/// Components over alphas, means and icf (the primal's or a gradient's).
std::vector<GmmComponent> gmm_components(int d, int k, const double *alphas,
                                         const double *means,
                                         const double *icf);
} // namespace adbench
double gmm_objective_struct(const adbench::GmmData &data,
                            const adbench::GmmComponent *comps, int k,
                            const adbench::GmmWishart &prior);
double gmm_objective_struct_grad(const adbench::GmmData &data,
                                 const adbench::GmmComponent *comps, int k,
                                 const adbench::GmmWishart &prior,
                                 adbench::GmmComponent *d_comps);

#endif // FLUXION_ADBENCH_GMM_HPP
