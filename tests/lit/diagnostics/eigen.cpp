// Eigen Matrix and Array variables are differentiated as storage plus a
// shape, expressions over them as coefficient loops, solves by rules.
// Views assigned what reads their variable, other decompositions, solves in loops and
// second derivatives through them, resizing, aliasing products, dynamic-size
// locals in loops, views returned by annotated functions, views held by classes,
// copies of classes holding dynamic-size objects, strided views and Map/Ref
// locals are located errors naming the operation in the user's words
// (nothing from inside Eigen's headers).
// REQUIRES: eigen
// RUN: not %clangxx %fluxion %eigen -fsyntax-only -ferror-limit=0 %s 2>&1 | %FileCheck %s --implicit-check-not=error:
#include <Eigen/Dense>
#include <fluxion/fluxion.hpp>

using namespace Eigen;

[[fluxion::grad]] double damped(const MatrixXd &A, double l) {
  MatrixXd H = A;
  H.diagonal().array() += l;
  // CHECK: eigen.cpp:[[@LINE+1]]:16: error: fluxion: assigning to a view of 'H' an expression that reads 'H' is not supported in a differentiated function; assign the expression to a local first, then the local to the view
  H.diagonal() = H.col(0);
  return H.sum();
}

[[fluxion::grad]] double mismatched(const Matrix3d &A, const Vector2d &x) {
  // CHECK: eigen.cpp:[[@LINE+1]]:31: error: fluxion: a matrix product whose inner extents differ is not supported in a differentiated function; give the operands matching shapes
  return (A.block(0, 0, 3, 3) * x).sum();
}

[[fluxion::grad]] void in_place(const MatrixXd &A, VectorXd &x) {
  // CHECK: eigen.cpp:[[@LINE+1]]:5: error: fluxion: assigning to 'x' an expression that reads other coefficients of 'x' than the one it computes (a product, a transpose, a cross product, a norm) is not supported in a differentiated function; assign it to another variable (a local), then copy that
  x = A * x;
}

[[fluxion::grad]] void shifted(VectorXd &v) {
  // CHECK: eigen.cpp:[[@LINE+1]]:19: error: fluxion: assigning to a view of 'v' an expression that reads 'v' is not supported in a differentiated function; assign the expression to a local first, then the local to the view
  v.segment(1, 2) = v.segment(0, 2);
}

[[fluxion::grad]] double pivoted(const Matrix3d &A, const Vector3d &b) {
  // CHECK: eigen.cpp:[[@LINE+1]]:24: error: fluxion: a linear solve with 'fullPivLu()' is not supported in a differentiated function; solve with llt(), ldlt(), partialPivLu(), householderQr() or a triangularView<Lower>, <Upper>, <UnitLower> or <UnitUpper>
  return A.fullPivLu().solve(b).sum();
}

[[fluxion::grad]] double looped(const Matrix3d &A, const Vector3d &b) {
  double s = 0;
  for (int k = 0; k < 3; ++k)
    // CHECK: eigen.cpp:[[@LINE+1]]:28: error: fluxion: a linear solve ('llt().solve') inside a loop is not supported in a differentiated function; compute it before the loop, or in a function of its own called in the loop
    s += k * b.dot(A.llt().solve(b));
  return s;
}

[[fluxion::hessian]] double second(const Matrix3d &A, const Vector3d &b) {
  // CHECK: eigen.cpp:[[@LINE+1]]:25: error: fluxion: a second derivative (f_hvp, f_hessian) through an Eigen solve, inverse or determinant is not supported in a differentiated function; differentiate the function once (f_grad, f_vjp, f_jvp, f_jacobian)
  return b.dot(A.ldlt().solve(b));
}

[[fluxion::grad]] double resized(const VectorXd &x) {
  VectorXd y = x;
  // CHECK: eigen.cpp:[[@LINE+1]]:5: error: fluxion: 'resize' giving 'y' (a 'VectorXd') a size after it has one is not supported in a differentiated function; size a local once, where it is declared ('VectorXd y(n);') or by the first resize, fill or assignment after an empty declaration in the same block; use another local for another size
  y.resize(4);
  return y(0);
}

[[fluxion::grad]] double sized_in_loop(const VectorXd &x) {
  VectorXd y;
  for (int k = 0; k < 2; ++k)
    // CHECK: eigen.cpp:[[@LINE+1]]:7: error: fluxion: giving the Eigen local 'y', declared empty, its size inside a loop or a nested block is not supported in a differentiated function; size it where it is declared ('VectorXd y(n);') or right after, in the same block
    y = k * x;
  return y.sum();
}

// A dynamic-size local declared in a loop is sized once, before the loop:
// its size must be known there.
[[fluxion::grad]] double dynamic_local(const VectorXd &x) {
  double s = 0;
  for (int k = 0; k < 2; ++k) {
    // CHECK: eigen.cpp:[[@LINE+1]]:14: error: fluxion: a local 'MatrixXd' ('M') declared inside a loop with a size computed in the loop is not supported in a differentiated function; declare it before the loop, or size it by what is known before the loop (the size of a parameter, or an integer declared before the loop that nothing changes)
    MatrixXd M(k + 1, 3);
    M(0, 0) = x(k);
    s += M(0, 0);
    VectorXd h;
    // CHECK: eigen.cpp:[[@LINE+1]]:7: error: fluxion: sizing the local 'h', declared inside a loop, by what the loop computes is not supported in a differentiated function; declare it before the loop, or size it by what is known before the loop (the size of a parameter, or an integer declared before the loop that nothing changes)
    h = x.head(k + 1);
    s += h.sum();
    int n = 2;
    n += k;
    // CHECK: eigen.cpp:[[@LINE+1]]:14: error: fluxion: a local 'VectorXd' ('t') declared inside a loop with a size computed in the loop
    VectorXd t = VectorXd::Zero(n);
    s += t.sum();
  }
  int m = 3;
  for (int k = 0; k < 2; ++k) {
    // CHECK: eigen.cpp:[[@LINE+1]]:14: error: fluxion: a local 'VectorXd' ('u') declared inside a loop with a size computed in the loop
    VectorXd u = VectorXd::Ones(m);
    s += u.sum();
    m = 2;
  }
  return s;
}

[[fluxion::grad]] double triangular(const MatrixXd &A, const VectorXd &b) {
  // CHECK: eigen.cpp:[[@LINE+1]]:50: error: fluxion: a linear solve with 'triangularView()' of a strictly triangular (singular) matrix is not supported in a differentiated function; solve with llt(), ldlt(), partialPivLu(), householderQr() or a triangularView<Lower>, <Upper>, <UnitLower> or <UnitUpper>
  VectorXd x = A.triangularView<StrictlyLower>().solve(b);
  MatrixXd C = A;
  // CHECK: eigen.cpp:[[@LINE+1]]:29: error: fluxion: the Eigen operator '=' on whole objects
  C.triangularView<Upper>() = A.transpose();
  return x.sum() + C.sum();
}

[[fluxion::grad]] double comma_count(double a) {
  Vector3d v;
  // CHECK: eigen.cpp:[[@LINE+1]]:5: error: fluxion: comma initialisation with 2 values of an object of 3 coefficients
  v << a, a;
  return v(0);
}

// A callee returning a dynamic-size object is differentiated in place: one
// return, at its end.
VectorXd twice(const VectorXd &x) {
  // CHECK: eigen.cpp:[[@LINE+1]]:3: error: fluxion: a 'return' before the end of a function returning a container is not supported in a differentiated function; compute the result into a variable and return it at the end
  if (x.size() > 3)
    return x;
  return 2 * x;
}
[[fluxion::grad]] double through_callee(const VectorXd &x) {
  VectorXd y = twice(x);
  return y.sum();
}

// An annotated function returns Eigen objects of any size, and a view of
// none.
[[fluxion::grad]] VectorXd scaled(const VectorXd &x) { return 3 * x; }
// CHECK: eigen.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'viewing': it returns 'Map<VectorXd>', a view of memory it does not own; an annotated function returns a container only of fixed size and of real numbers ('Eigen::Vector3d', 'std::array<double, 3>') or an Eigen object of real numbers ('Eigen::VectorXd'); write the result into an output parameter ('Eigen::VectorXd &out')
[[fluxion::grad]] Map<VectorXd> viewing(double *p) { return Map<VectorXd>(p, 2); }

// Eigen objects inside classes are the class's numbers; a view there is not
// followed, and an object holding one of dynamic size is read in place.
struct Viewed {
  Eigen::Map<const Vector3d> p;
  double m;
};
// CHECK: eigen.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'viewed': parameter 'b' of type 'const Viewed &' cannot be differentiated yet (member 'p' is a 'Eigen::Map<const Eigen::Matrix<double, 3, 1>>': Eigen views inside classes are not followed yet); hold an Eigen Matrix or Array in the class, or pass the view as a parameter of its own
[[fluxion::grad]] double viewed(const Viewed &b) { return b.p(2) * b.m; }

// A member assigned a product that reads it (other members may be read).
struct Pose {
  Matrix3d R;
  Vector3d t;
};
[[fluxion::grad]] double rotated(Pose &p) {
  // CHECK: eigen.cpp:[[@LINE+1]]:7: error: fluxion: assigning to 't' an expression that reads other coefficients of 't' than the one it computes (a product, a transpose, a cross product, a norm) is not supported in a differentiated function; assign it to another variable (a local), then copy that
  p.t = p.R * p.t;
  return p.t.sum();
}

struct Cloud {
  VectorXd w;
  double s;
};
[[fluxion::grad]] double copied(const Cloud &c) {
  // CHECK: eigen.cpp:[[@LINE+1]]:9: error: fluxion: making or copying an object of class 'Cloud', which holds a container ('w') is not supported in a differentiated function; read and write the original through a reference ('const Cloud &' or 'Cloud &'), or pass the container as a parameter of its own
  Cloud d = c;
  return d.w(0) * d.s;
}

// CHECK: eigen.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'strided': parameter 'A' of type 'const Ref<const MatrixXd> &' cannot be differentiated yet ('Eigen::Ref<const Eigen::Matrix<double, -1, -1>>' is an Eigen view or expression; of Eigen's types only Matrix and Array objects, Maps with the default stride and Refs of vectors are followed yet)
[[fluxion::grad]] double strided(const Ref<const MatrixXd> &A) { return A(0, 0); }

[[fluxion::grad]] double map_local(const double *x) {
  // CHECK: eigen.cpp:[[@LINE+1]]:23: error: fluxion: a local Eigen view 'Map<const Vector3d>' ('p') is not supported in a differentiated function; copy the values into a local object ('Eigen::Vector3d p(x[0], x[1], x[2]);'), or take the view as a parameter
  Map<const Vector3d> p(x);
  return p.sum();
}

// What is differentiated compiles.
[[fluxion::grad]] [[fluxion::jvp]] double fine(const Matrix3d &R,
                                               const VectorXd &x,
                                               const MatrixXd &A,
                                               VectorXd &y) {
  Vector3d v;
  v << x(0), x(1), 1.0;
  double s = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      s += R(i, j) * v(j) * v.x();
  y.noalias() = A * x;
  y = y + x;
  VectorXd r = A.transpose() * y - x;
  Vector3d z = (R.transpose() * R + Matrix3d::Identity()).llt().solve(v);
  s += z.dot(v) + A.householderQr().solve(y).sum();
  return s + x.squaredNorm() + x.norm() + x.dot(x) + v.maxCoeff() +
         (R * v - v).norm() + r.sum();
}

// Containers of Eigen objects: refused where they are declared, with
// advice that compiles (a matrix with a column per point), and nothing
// more about their uses.
[[fluxion::grad]] double spread(
    // CHECK: eigen.cpp:[[@LINE+1]]:41: error: fluxion: a parameter of type 'std::vector<Eigen::Vector3d>' (a container of Eigen objects) is not supported in a differentiated function; hold them as the columns of one Eigen matrix ('Eigen::Matrix<double, 3, Eigen::Dynamic>', element i read as 'm.col(i)'), or their numbers in a std::vector<double>
    const std::vector<Eigen::Vector3d> &pts, const Eigen::Vector3d &c) {
  double s = 0;
  for (std::size_t i = 0; i < pts.size(); ++i)
    s += (pts[i] - c).squaredNorm();
  return s;
}
[[fluxion::grad]] double flattened(const Eigen::Matrix3Xd &pts) {
  // CHECK: eigen.cpp:[[@LINE+1]]:32: error: fluxion: a local variable of type 'std::vector<Eigen::Vector2d>' (a container of Eigen objects) is not supported in a differentiated function; hold them as the columns of one Eigen matrix ('Eigen::Matrix<double, 2, Eigen::Dynamic>', element i read as 'm.col(i)'), or their numbers in a std::vector<double>
  std::vector<Eigen::Vector2d> flat;
  for (Eigen::Index i = 0; i < pts.cols(); ++i)
    flat.push_back(pts.col(i).head<2>());
  double s = 0;
  for (const auto &p : flat)
    s += p.sum();
  return s;
}
[[fluxion::grad]] double spread_columns(const Eigen::Matrix3Xd &pts,
                                        const Eigen::Vector3d &c) {
  double s = 0;
  for (Eigen::Index i = 0; i < pts.cols(); ++i)
    s += (pts.col(i) - c).squaredNorm();
  return s;
}

// A generic helper over Eigen's base classes; its advice (a template
// parameter) differentiates (tests/numeric/eigen_results_test.cpp).
template <class D> double squared(const Eigen::MatrixBase<D> &a) {
  return a.squaredNorm();
}
[[fluxion::grad]] double through_base(const Eigen::Vector3d &p) {
  // CHECK: eigen.cpp:[[@LINE+1]]:18: error: fluxion: passing an Eigen object to 'squared', whose parameter is an Eigen base class ('Eigen::MatrixBase<D>') is not supported in a differentiated function; take the parameter as the type it is given ('const Eigen::Vector3d &', 'const Eigen::VectorXd &') or as a template parameter ('template <class T> ... (const T &a)')
  return squared(p);
}

// A decomposition or a geometry object held in a local, and a callee
// returning a reference to an Eigen object, each named as what it is.
[[fluxion::grad]] double held_factor(const Eigen::MatrixXd &S,
                                     const Eigen::VectorXd &r) {
  // CHECK: eigen.cpp:[[@LINE+1]]:31: error: fluxion: a local variable holding a decomposition (Eigen::LLT) is not supported in a differentiated function; solve where you factor ('A.llt().solve(b)', 'A.ldlt().solve(b)', 'A.partialPivLu().solve(b)'): the derivative reuses the factorisation
  Eigen::LLT<Eigen::MatrixXd> llt(S);
  return r.dot(llt.solve(r));
}
[[fluxion::grad]] double rotated(double w, const Eigen::Vector3d &p) {
  // CHECK: eigen.cpp:[[@LINE+1]]:22: error: fluxion: a local variable of Eigen's geometry type Eigen::Quaternion is not supported in a differentiated function; write the rotation or transform as a matrix ('Eigen::Matrix3d R', built from its formula) and use matrix products
  Eigen::Quaterniond q(w, 0.0, 0.0, 1.0);
  return (q * p).sum();
}
static const Eigen::Vector3d &pick(const Eigen::Vector3d &a,
                                   const Eigen::Vector3d &b, int k) {
  return k ? a : b;
}
[[fluxion::grad]] double picked(const Eigen::Vector3d &a,
                                const Eigen::Vector3d &b) {
  // CHECK: eigen.cpp:[[@LINE+1]]:10: error: fluxion: calling 'pick', which returns a reference to an Eigen object is not supported in a differentiated function; return the object by value, or pass the one it would return to the caller's expression
  return pick(a, b, 1).dot(b);
}

// A dynamic-size Eigen object has no fixed number of columns.
// CHECK: eigen.cpp:[[@LINE+1]]:3: error: fluxion: cannot generate derivatives of 'dynamic': a dense Jacobian needs scalar, fixed-size array and object parameters
[[fluxion::jacobian]] double dynamic(const Eigen::Vector3d &x,
                                     const Eigen::MatrixXd &W) {
  return (W * x).squaredNorm();
}
