// GMM objective (ADBench; see bench/adbench/gmm.hpp for the parameters)
// written several ways:
//
//   helpers     bench/adbench/gmm.cpp: small helper functions (sqnorm,
//               subtract, qtimesx, logsumexp), point-major loops
//   inline      bench/adbench/gmm_inline.cpp: one function, inline loops,
//               the triangle's index in a `++li` counter, local arrays
//               reused for every point and component
//   components  gmm_components.cpp: std::vector parameters and scratch,
//               structs for the shape and the prior, component-major loops
//               with an n x K matrix of main terms, Q (x - mu) row by row
//               into a scalar accumulator
//   eigen       gmm_eigen.cpp: Eigen matrices and vectors
//
// Each has a hand-written adjoint written for that formulation.
#ifndef FLUXION_FORMULATIONS_GMM_FORMS_HPP
#define FLUXION_FORMULATIONS_GMM_FORMS_HPP

#include <cstddef>
#include <vector>

namespace formulations {
struct GmmShape {
  int d, k, n;
};
struct GmmPrior {
  double gamma;
  int m;
};
} // namespace formulations

double gmm_components(const formulations::GmmShape &shape,
                      const std::vector<double> &alphas,
                      const std::vector<double> &means,
                      const std::vector<double> &icf,
                      const std::vector<double> &x,
                      const formulations::GmmPrior &prior);
double gmm_components_grad(
    const formulations::GmmShape &shape, const std::vector<double> &alphas,
    const std::vector<double> &means, const std::vector<double> &icf,
    const std::vector<double> &x, const formulations::GmmPrior &prior,
    std::vector<double> *d_alphas, std::vector<double> *d_means,
    std::vector<double> *d_icf);

namespace formulations {

/// Hand-written adjoint of the inline formulation
/// (bench/adbench/gmm_inline.cpp): returns the objective, ADDS the gradient;
/// *bytes gets what it keeps for its reverse sweep.
double gmm_inline_manual(int d, int k, int n, const double *alphas,
                         const double *means, const double *icf,
                         const double *x, double wishart_gamma, int wishart_m,
                         double *d_alphas, double *d_means, double *d_icf,
                         std::size_t *bytes);

/// Hand-written adjoint of the components formulation.
double gmm_components_manual(
    const GmmShape &shape, const std::vector<double> &alphas,
    const std::vector<double> &means, const std::vector<double> &icf,
    const std::vector<double> &x, const GmmPrior &prior,
    std::vector<double> *d_alphas, std::vector<double> *d_means,
    std::vector<double> *d_icf, std::size_t *bytes);

} // namespace formulations

#endif // FLUXION_FORMULATIONS_GMM_FORMS_HPP
