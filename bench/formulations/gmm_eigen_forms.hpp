// The Eigen GMM formulation (gmm_eigen.cpp) and its hand-written adjoint
// (gmm_eigen_manual.cpp). Layout: means d x K, icf d(d+1)/2 x K (one column
// per component: ADBench's arrays, column-major), X d x n.
#ifndef FLUXION_FORMULATIONS_GMM_EIGEN_FORMS_HPP
#define FLUXION_FORMULATIONS_GMM_EIGEN_FORMS_HPP

#include <Eigen/Dense>

#include <cstddef>

double gmm_eigen(const Eigen::VectorXd &alphas, const Eigen::MatrixXd &means,
                 const Eigen::MatrixXd &icf, const Eigen::MatrixXd &X,
                 double gamma, int m);
double gmm_eigen_grad(const Eigen::VectorXd &alphas,
                      const Eigen::MatrixXd &means, const Eigen::MatrixXd &icf,
                      const Eigen::MatrixXd &X, double gamma, int m,
                      Eigen::VectorXd *d_alphas, Eigen::MatrixXd *d_means,
                      Eigen::MatrixXd *d_icf);

/// The same objective written compactly (gmm_eigen_compact.cpp).
double gmm_eigen_compact(const Eigen::VectorXd &alphas,
                         const Eigen::MatrixXd &means,
                         const Eigen::MatrixXd &icf, const Eigen::MatrixXd &X,
                         double gamma, int m);
double gmm_eigen_compact_grad(const Eigen::VectorXd &alphas,
                              const Eigen::MatrixXd &means,
                              const Eigen::MatrixXd &icf,
                              const Eigen::MatrixXd &X, double gamma, int m,
                              Eigen::VectorXd *d_alphas,
                              Eigen::MatrixXd *d_means,
                              Eigen::MatrixXd *d_icf);

namespace formulations {
/// Hand-written adjoint, with Eigen: returns the objective, ADDS the
/// gradient, reports the bytes it kept for the reverse sweep.
double gmm_eigen_manual(const Eigen::VectorXd &alphas,
                        const Eigen::MatrixXd &means,
                        const Eigen::MatrixXd &icf, const Eigen::MatrixXd &X,
                        double gamma, int m, Eigen::VectorXd *d_alphas,
                        Eigen::MatrixXd *d_means, Eigen::MatrixXd *d_icf,
                        std::size_t *bytes);
} // namespace formulations

#endif // FLUXION_FORMULATIONS_GMM_EIGEN_FORMS_HPP
