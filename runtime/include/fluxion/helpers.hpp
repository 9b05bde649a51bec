// Fluxion runtime helpers that user code calls inside differentiated
// functions. Their meaning to the differentiator is fixed by name; their
// bodies here give the primal value.
#ifndef FLUXION_HELPERS_HPP
#define FLUXION_HELPERS_HPP

#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace fluxion {

/// Returns X; no derivative flows back through it (TensorFlow's
/// stop_gradient, JAX's lax.stop_gradient).
template <class T> inline T stop_gradient(T X) { return X; }

/// The tangent parameter of f_jvp for an input of type T when an annotated
/// template's parameter type depends on its template arguments: the value
/// for a number, the address of an object of the same type otherwise
/// (CONTRACT.md, "C++ types").
template <class T>
using tangent_arg_t =
    std::conditional_t<std::is_class_v<T> || std::is_union_v<T>, const T *, T>;

/// Returns Fn(X); its derivative is the identity (TensorFlow's
/// grad_pass_through, the straight-through estimator).
template <class F, class T> inline T pass_through(F Fn, T X) {
  return static_cast<T>(Fn(X));
}

/// An object of the struct of reals T with every member zero, whatever T's
/// constructors do (or whether it has a default one): generated code starts
/// adjoints and tangents of such classes from it.
template <class T> inline T zero_object() {
  if constexpr (std::is_trivially_copyable<T>::value) {
    struct Bytes {
      alignas(T) unsigned char B[sizeof(T)];
    } Zero{};
    return __builtin_bit_cast(T, Zero);
  } else {
    // A class holding fixed-size Eigen objects (the only other kind
    // generated code asks for): their coefficients are stored in the
    // object, so zero bytes are zero coefficients, and the copy out is
    // the class's own member-wise copy.
    union Storage {
      unsigned char B[sizeof(T)];
      T Object;
      Storage() : B{} {}
      ~Storage() {}
    } Zero;
    return Zero.Object;
  }
}

/// Every element of the array A (of objects of such a class, or arrays of
/// them) set to zero_object: generated code starts an array of adjoint
/// objects that no initialiser can zero from it.
template <class A> inline void zero_objects(A &Array) {
  for (auto &Element : Array) {
    if constexpr (std::is_array<std::remove_reference_t<decltype(Element)>>::value)
      zero_objects(Element);
    else
      Element = zero_object<std::remove_reference_t<decltype(Element)>>();
  }
}

/// `Stream << Args...`: what generated code prints where the function
/// printed to a stream (`std::cout << "r = " << r`), in its forward sweep.
template <class S, class... A> inline void stream_out(S &Stream, const A &...Args) {
  (Stream << ... << Args);
}

/// `throw E(Args...)`: what generated code raises where the function threw
/// (`throw std::invalid_argument("n must be positive")`), in its forward
/// sweep.
template <class E, class... A> [[noreturn]] inline void raise(A... Args) {
  throw E(Args...);
}

/// Lane l of an object's adjoints in a reverse sweep run for several seeds
/// at once (a dense Jacobian's rows): the lanes are Stride bytes apart, so
/// that a member of each lane (`&d_cam->rot`) is passed on with the same
/// stride as the whole object.
template <class T> inline T *lane(T *Base, long L, long Stride) {
  using Byte = std::conditional_t<std::is_const<T>::value, const char, char>;
  return reinterpret_cast<T *>(reinterpret_cast<Byte *>(Base) + L * Stride);
}

namespace detail {
/// A dense Eigen object whose size the type fixes (Vector3d, Matrix3d).
template <class T, class = void> struct fixed_size_dense : std::false_type {};
template <class T>
struct fixed_size_dense<T, std::void_t<decltype(T::SizeAtCompileTime),
                                       decltype(T::Zero())>>
    : std::bool_constant<(T::SizeAtCompileTime > 0)> {};
} // namespace detail

/// The starting value of a local container of derivative code: zeros for
/// a fixed-size Eigen object (its default constructor leaves coefficients
/// uninitialised), otherwise T{} (an empty std::vector or dynamic Eigen
/// object, sized where its primal is; a std::array of zeros).
template <class T> inline T zero_container() {
  if constexpr (detail::fixed_size_dense<T>::value)
    return T::Zero();
  else
    return T{};
}

/// Derivative code of an assignment of an Eigen expression of dynamic size
/// needs the destination to have the expression's size already (Eigen's
/// own assignment would resize it): stop with a message otherwise.
/// The reverse sweep of a function that changes the size of a
/// std::vector parameter starts from the seeds of that output: its adjoint
/// must have the size the output has after the call.
inline void seed_size(long size, long seed_size) {
  if (size == seed_size)
    return;
  std::fprintf(stderr,
               "fluxion: the adjoint (seed) of a container output has %ld "
               "elements, and the output %ld after the call; size the "
               "adjoint as the output is after the call\n",
               seed_size, size);
  std::abort();
}

inline void eigen_same_size(long rows, long cols, long expr_rows,
                            long expr_cols) {
  if (rows == expr_rows && cols == expr_cols)
    return;
  std::fprintf(stderr,
               "fluxion: derivative code assigns a %ldx%ld Eigen expression "
               "to an object of %ldx%ld; give the object its size before "
               "the assignment\n",
               expr_rows, expr_cols, rows, cols);
  std::abort();
}

/// Comma initialisation (`m << a, b, c;`) of a dynamic-size Eigen object
/// gives one value per coefficient.
inline void eigen_comma_count(long coefficients, long values) {
  if (coefficients == values)
    return;
  std::fprintf(stderr,
               "fluxion: comma initialisation gives %ld values to an Eigen "
               "object of %ld coefficients; size it before ('MatrixXd "
               "m(r, c);') and give one value per coefficient\n",
               values, coefficients);
  std::abort();
}

/// Derivative code of an Eigen expression whose operands' extents are
/// known at run time only checks that they agree, as Eigen's debug build
/// does (What: 0 a product's inner extents, 1 rows, 2 columns, 3 a
/// solved matrix's rows and columns, 4 the rows of a solve's matrix and
/// right-hand side).
inline void eigen_same_extent(long a, long b, int what) {
  if (a == b)
    return;
  static const char *const Names[] = {"a matrix product's inner extents",
                                      "the rows of a sum's operands",
                                      "the columns of a sum's operands",
                                      "the rows and columns of a matrix "
                                      "solved with",
                                      "the rows of a solve's matrix and "
                                      "right-hand side",
                                      "the sizes of a dot product's vectors"};
  std::fprintf(stderr, "fluxion: %s differ (%ld and %ld) in an Eigen "
               "expression\n", Names[what < 0 || what > 5 ? 0 : what], a, b);
  std::abort();
}

namespace detail {
/// `#pragma fluxion revolve(s) state(p, n)` becomes a call of this no-op in
/// front of the loop it marks; the plugin reads its arguments.
template <class... A> inline void revolve_loop(A...) {}
} // namespace detail

namespace custom {

// pass_through's derivative is the identity in X, whatever Fn does: these
// are its rules, written like any user's custom derivative.
template <class F, class T>
inline T pass_through_vjp(F Fn, T X, T Seed, T *DX) {
  *DX += Seed;
  return fluxion::pass_through(Fn, X);
}

template <class F, class T> inline T pass_through_jvp(F, T, T TX) {
  return TX;
}

} // namespace custom
} // namespace fluxion

#endif // FLUXION_HELPERS_HPP
