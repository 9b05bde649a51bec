// Fluxion runtime: a gradient checker for users (torch.autograd.gradcheck,
// tf.test.compute_gradient).
//
//   #include <fluxion/check.hpp>
//   auto R = fluxion::check_gradient(f, f_grad, fluxion::span(x, n), w, n);
//   EXPECT_TRUE(R.ok()) << R;
//
// check_gradient, check_vjp, check_jvp, check_hvp and check_jacobian call
// the primal f and a derivative of it with the calling convention of the
// generated functions (contract, "C++ types"), create and zero the adjoint,
// tangent, seed and matrix arguments themselves, and compare every entry of
// the derivative with
// central finite differences of f. An entry where finite differences at two
// step sizes (or forward and backward differences) disagree is a kink: it is
// listed, not counted as a failure. The report prints the worst entries as a
// table. Standard C++17 only; Eigen's Matrix and Array are supported (with
// <Eigen/Core> included before or after this header).
#ifndef FLUXION_CHECK_HPP
#define FLUXION_CHECK_HPP

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// As Eigen declares it (Eigen/src/Core/util/ForwardDeclarations.h).
namespace Eigen {
template <typename Derived> class PlainObjectBase;
} // namespace Eigen

namespace fluxion {

//===----------------------------------------------------------------------===//
// Argument wrappers
//===----------------------------------------------------------------------===//

/// A pointer argument with its extent: f receives the pointer, the
/// derivative a shadow array of N elements.
template <class T> struct span_t {
  T *Data;
  std::size_t Size;
};
template <class T> span_t<T> span(T *Data, std::size_t Size) {
  return {Data, Size};
}

/// An argument the derivative has no adjoint (or tangent) for: passed to f
/// and to the derivative unchanged and never perturbed, like a parameter an
/// annotation's name list leaves out (`[[fluxion::grad("x")]]`).
template <class T> struct constant_t { T Value; };
template <class T> constant_t<std::decay_t<T>> constant(T &&Value) {
  return {std::forward<T>(Value)};
}

//===----------------------------------------------------------------------===//
// Options and report
//===----------------------------------------------------------------------===//

struct check_options {
  /// Finite-difference step. 0: cbrt(eps) * max(1, |x|) for each entry
  /// (eps^(1/4) for check_hvp), eps of the least precise floating type the
  /// check involves. check_jvp steps along a tangent whose entries have size
  /// about max(1, |x_i|), so the step is relative there too.
  long double step = 0;
  /// An entry passes if |AD - FD| <= atol + rtol * max(|AD|, |FD|) + the
  /// rounding error of the finite difference (a few eps * |f| / step).
  /// 0: defaults for the least precise type (float 1e-3 and 1e-5, double
  /// 1e-6 and 1e-10, long double 1e-8 and 1e-13; check_hvp 10 * rtol and
  /// sqrt(atol)).
  long double rtol = 0;
  long double atol = 0;
  /// Seed of the random seeds (check_vjp), tangents (check_jvp) and
  /// directions (check_hvp).
  std::uint64_t seed = 42;
  /// Parameter names for the report, in f's parameter order; unnamed ones
  /// print as "arg <index>".
  std::vector<std::string> names;
  /// How many of the worst entries (and of the kinks) the report prints.
  std::size_t rows = 8;
};

/// One compared number.
struct check_entry {
  enum class status { pass, fail, kink };
  std::string param;   ///< parameter name, "arg <i>", or "result"
  /// check_jacobian: the output (row) the entry is the derivative of:
  /// "result", or an output argument's name and element ("y[1]"). Empty
  /// for the other checks.
  std::string output;
  std::string element; ///< position inside it: "[2]", "[1].0.2", "" for scalars
  long double ad = 0;  ///< the derivative's value
  long double fd = 0;  ///< central difference at step h
  long double fd_half = 0;               ///< central difference at h / 2
  long double forward = 0, backward = 0; ///< one-sided differences at h / 2
  long double rel_error = 0;             ///< |ad - fd| / max(|ad|, |fd|)
  long double score = 0; ///< |ad - fd| / allowed difference (> 1: fail)
  status state = status::pass;
};

class check_report {
public:
  check_report(std::string Title, long double RTol, long double ATol,
               std::size_t Rows)
      : Title(std::move(Title)), RTol(RTol), ATol(ATol), MaxRows(Rows) {}

  /// True when no entry failed (kinks do not fail).
  bool ok() const { return failures() == 0; }
  std::size_t failures() const { return count(check_entry::status::fail); }
  std::size_t kinks() const { return count(check_entry::status::kink); }
  /// Every compared number, in argument order; the first is the returned
  /// value where there is one.
  const std::vector<check_entry> &entries() const { return Entries; }
  long double rtol() const { return RTol; }
  long double atol() const { return ATol; }
  /// The table that operator<< prints.
  std::string str() const;

  void add(check_entry E) { Entries.push_back(std::move(E)); }

private:
  std::string Title;
  long double RTol, ATol;
  std::size_t MaxRows;
  std::vector<check_entry> Entries;

  std::size_t count(check_entry::status S) const {
    return std::size_t(
        std::count_if(Entries.begin(), Entries.end(),
                      [S](const check_entry &E) { return E.state == S; }));
  }
};

inline std::ostream &operator<<(std::ostream &OS, const check_report &R) {
  return OS << R.str();
}

namespace detail {

//===----------------------------------------------------------------------===//
// Type traits
//===----------------------------------------------------------------------===//

template <class T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;

template <class T> struct is_std_array : std::false_type {};
template <class T, std::size_t N>
struct is_std_array<std::array<T, N>> : std::true_type {};
template <class T> struct is_std_vector : std::false_type {};
template <class T, class A>
struct is_std_vector<std::vector<T, A>> : std::true_type {};
template <class T> struct is_span : std::false_type {};
template <class T> struct is_span<span_t<T>> : std::true_type {};
template <class T> struct is_constant : std::false_type {};
template <class T> struct is_constant<constant_t<T>> : std::true_type {};

// Eigen's plain objects (Matrix, Array), whether <Eigen/Core> comes before
// or after this header: asked when a check is instantiated, when the
// argument's type is complete.
template <class T>
constexpr bool is_eigen_plain = std::is_base_of_v<Eigen::PlainObjectBase<T>, T>;

//===----------------------------------------------------------------------===//
// Aggregate fields
//
// The number of fields of an aggregate is the largest N for which
// T{{a1}, ..., {aN}} compiles, where each ai converts to anything. Bracing
// each initializer keeps brace elision from spreading an array member or a
// nested struct over several initializers, so arrays and nested structs
// count as one field each. The fields are then reached by a structured
// binding of that many names.
//===----------------------------------------------------------------------===//

struct any_field {
  template <class U> operator U() const; // never defined: unevaluated only
};
template <std::size_t> using any_field_at = any_field;

template <class T, class Seq, class = void>
struct brace_initializable : std::false_type {};
template <class T, std::size_t... I>
struct brace_initializable<T, std::index_sequence<I...>,
                           std::void_t<decltype(T{{any_field_at<I>{}}...})>>
    : std::true_type {};

constexpr std::size_t MaxFields = 24;

/// T{{}, ..., {}} with N empty lists compiles: the same count for members
/// that take no single converted value but have a default constructor (an
/// Eigen matrix, whose explicit template constructor would take the
/// any_field itself).
template <class T, std::size_t N, class = void>
struct empty_initializable : std::false_type {};
// clang-format off
#define FLUXION_CHECK_EMPTIES(K, ...)                                          \
  template <class T>                                                           \
  struct empty_initializable<T, K, std::void_t<decltype(T{__VA_ARGS__})>>      \
      : std::true_type {};
FLUXION_CHECK_EMPTIES(1, {})
FLUXION_CHECK_EMPTIES(2, {}, {})
FLUXION_CHECK_EMPTIES(3, {}, {}, {})
FLUXION_CHECK_EMPTIES(4, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(5, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(6, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(7, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(8, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(9, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(10, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(11, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(12, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(13, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(14, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(15, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(16, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(17, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(18, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(19, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(20, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(21, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(22, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(23, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(24, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
FLUXION_CHECK_EMPTIES(25, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
#undef FLUXION_CHECK_EMPTIES
// clang-format on

/// Counts up to MaxFields + 1, so that a larger struct is reported rather
/// than bound with too few names.
template <class T, std::size_t N = MaxFields + 1>
constexpr std::size_t field_count() {
  if constexpr (N == 0)
    return 0;
  else if constexpr (brace_initializable<T, std::make_index_sequence<N>>::value ||
                     empty_initializable<T, N>::value)
    return N;
  else
    return field_count<T, N - 1>();
}

template <class T>
constexpr bool is_record =
    std::is_class_v<T> &&std::is_aggregate_v<T> && !is_std_array<T>::value;

/// The fields of aggregate Obj as a tuple of references.
template <class T> auto fields(T &Obj) {
  constexpr std::size_t N = field_count<T>();
  static_assert(N <= MaxFields,
                "fluxion::check: a struct has more than 24 fields");
  // clang-format off
#define FLUXION_CHECK_FIELDS(K, ...)                                           \
  if constexpr (N == K) {                                                      \
    auto &[__VA_ARGS__] = Obj;                                                 \
    return std::tie(__VA_ARGS__);                                              \
  } else
  if constexpr (N == 0) {
    return std::tuple<>();
  } else
  FLUXION_CHECK_FIELDS(1, a)
  FLUXION_CHECK_FIELDS(2, a, b)
  FLUXION_CHECK_FIELDS(3, a, b, c)
  FLUXION_CHECK_FIELDS(4, a, b, c, d)
  FLUXION_CHECK_FIELDS(5, a, b, c, d, e)
  FLUXION_CHECK_FIELDS(6, a, b, c, d, e, f)
  FLUXION_CHECK_FIELDS(7, a, b, c, d, e, f, g)
  FLUXION_CHECK_FIELDS(8, a, b, c, d, e, f, g, h)
  FLUXION_CHECK_FIELDS(9, a, b, c, d, e, f, g, h, i)
  FLUXION_CHECK_FIELDS(10, a, b, c, d, e, f, g, h, i, j)
  FLUXION_CHECK_FIELDS(11, a, b, c, d, e, f, g, h, i, j, k)
  FLUXION_CHECK_FIELDS(12, a, b, c, d, e, f, g, h, i, j, k, l)
  FLUXION_CHECK_FIELDS(13, a, b, c, d, e, f, g, h, i, j, k, l, m)
  FLUXION_CHECK_FIELDS(14, a, b, c, d, e, f, g, h, i, j, k, l, m, n)
  FLUXION_CHECK_FIELDS(15, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o)
  FLUXION_CHECK_FIELDS(16, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p)
  FLUXION_CHECK_FIELDS(17, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q)
  FLUXION_CHECK_FIELDS(18, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r)
  FLUXION_CHECK_FIELDS(19, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r,
                       s)
  FLUXION_CHECK_FIELDS(20, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r,
                       s, t)
  FLUXION_CHECK_FIELDS(21, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r,
                       s, t, u)
  FLUXION_CHECK_FIELDS(22, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r,
                       s, t, u, v)
  FLUXION_CHECK_FIELDS(23, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r,
                       s, t, u, v, w)
  FLUXION_CHECK_FIELDS(24, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r,
                       s, t, u, v, w, x)
  return std::tuple<>();
#undef FLUXION_CHECK_FIELDS
  // clang-format on
}

/// Whether T holds floating-point numbers the checker perturbs: floats,
/// arrays, std::array, std::vector and aggregates of them (recursively),
/// Eigen's plain objects. Integers, bools, enums and pointers do not.
template <class T> constexpr bool has_reals();

template <class Tuple, std::size_t... I>
constexpr bool any_has_reals(std::index_sequence<I...>) {
  return (false || ... ||
          has_reals<remove_cvref_t<std::tuple_element_t<I, Tuple>>>());
}

template <class T> constexpr bool has_reals() {
  if constexpr (std::is_floating_point_v<T>)
    return true;
  else if constexpr (std::is_array_v<T>)
    return has_reals<std::remove_extent_t<T>>();
  else if constexpr (is_std_array<T>::value || is_std_vector<T>::value)
    return has_reals<typename T::value_type>();
  else if constexpr (is_eigen_plain<T>)
    return std::is_floating_point_v<typename T::Scalar>;
  else if constexpr (is_record<T>) {
    using Tuple = decltype(fields(std::declval<T &>()));
    return any_has_reals<Tuple>(
        std::make_index_sequence<std::tuple_size_v<Tuple>>());
  } else
    return false;
}

//===----------------------------------------------------------------------===//
// Real numbers, type-erased
//===----------------------------------------------------------------------===//

/// A float, double or long double somewhere in an argument.
class real_ref {
public:
  real_ref(float *P) : Ptr(P), Kind(0) {}
  real_ref(double *P) : Ptr(P), Kind(1) {}
  real_ref(long double *P) : Ptr(P), Kind(2) {}

  long double get() const {
    switch (Kind) {
    case 0:
      return *static_cast<float *>(Ptr);
    case 1:
      return *static_cast<double *>(Ptr);
    default:
      return *static_cast<long double *>(Ptr);
    }
  }
  /// Stores V rounded to the number's type; returns what was stored.
  long double set(long double V) const {
    switch (Kind) {
    case 0:
      return *static_cast<float *>(Ptr) = static_cast<float>(V);
    case 1:
      return *static_cast<double *>(Ptr) = static_cast<double>(V);
    default:
      return *static_cast<long double *>(Ptr) = V;
    }
  }
  long double epsilon() const { return epsilon_of(Kind); }
  static long double epsilon_of(int Kind) {
    switch (Kind) {
    case 0:
      return std::numeric_limits<float>::epsilon();
    case 1:
      return std::numeric_limits<double>::epsilon();
    default:
      return std::numeric_limits<long double>::epsilon();
    }
  }

private:
  void *Ptr;
  int Kind;
};

/// A real number of an argument and where it is, for the report.
struct real_leaf {
  real_ref Ref;
  std::string Element;
};

/// Appends the reals of Obj in a fixed order (the order is the same for an
/// object and its adjoint, which have the same type and shape). Paths are
/// built only when Out is a real_leaf vector.
template <class T, class Out>
void collect(T &Obj, const std::string &Path, std::vector<Out> &Leaves) {
  constexpr bool Named = std::is_same_v<Out, real_leaf>;
  auto Sub = [&](std::size_t I) {
    return Named ? Path + "[" + std::to_string(I) + "]" : std::string();
  };
  if constexpr (std::is_floating_point_v<T>) {
    if constexpr (Named)
      Leaves.push_back({real_ref(&Obj), Path});
    else
      Leaves.push_back(real_ref(&Obj));
  } else if constexpr (!has_reals<T>()) {
    // Integers, enums, pointers, empty structs: never perturbed.
  } else if constexpr (std::is_array_v<T> || is_std_array<T>::value ||
                       is_std_vector<T>::value) {
    std::size_t I = 0;
    for (auto &Element : Obj)
      collect(Element, Sub(I++), Leaves);
  } else if constexpr (is_eigen_plain<T>) {
    // Coefficients in storage order, named (row,col) for matrices.
    for (std::ptrdiff_t I = 0; I < Obj.size(); ++I) {
      std::string Name;
      if (Named) {
        std::ptrdiff_t Inner = T::IsRowMajor ? Obj.cols() : Obj.rows();
        std::ptrdiff_t R = T::IsRowMajor ? I / Inner : I % Inner;
        std::ptrdiff_t C = T::IsRowMajor ? I % Inner : I / Inner;
        Name = Obj.cols() == 1 || Obj.rows() == 1
                   ? Path + "[" + std::to_string(I) + "]"
                   : Path + "(" + std::to_string(R) + "," + std::to_string(C) +
                         ")";
      }
      collect(Obj.data()[I], Name, Leaves);
    }
  } else {
    auto Fields = fields(Obj);
    std::size_t K = 0;
    std::apply(
        [&](auto &...Field) {
          ((collect(Field,
                    Named ? Path + "." + std::to_string(K) : std::string(),
                    Leaves),
            ++K),
           ...);
        },
        Fields);
  }
}

/// Copies Src into Dst, element-wise for C arrays (which do not assign).
template <class T> void copy_into(T &Dst, const T &Src) {
  if constexpr (std::is_array_v<T>) {
    for (std::size_t I = 0; I < std::extent_v<T>; ++I)
      copy_into(Dst[I], Src[I]);
  } else {
    Dst = Src;
  }
}

//===----------------------------------------------------------------------===//
// Arguments
//
// A holder owns what one argument needs: the value f sees (a copy of the
// user's value, or of the memory a span covers), a saved copy to restore
// before every evaluation, and two shadows of the same type and shape
// (adjoint, tangent or direction; hv for check_hvp). Output is whether f may
// write the argument: a non-const pointer or lvalue-reference parameter.
//===----------------------------------------------------------------------===//

template <class V, bool Active, bool Output> class value_holder {
public:
  template <class A> explicit value_holder(A &&Arg) {
    if constexpr (std::is_array_v<V>)
      copy_into(Value, Arg);
    else
      Value = V(std::forward<A>(Arg));
    copy_into(Saved, Value);
    copy_into(Shadow, Value);
    copy_into(Shadow2, Value);
  }
  static constexpr bool active = Active && has_reals<V>();
  static constexpr bool output = Output;

  auto primal_arg() { return std::tuple<V &>(Value); }
  /// The adjoint argument: V* (`T* d_x`, `S* d_s`), or the shadow array
  /// itself, which decays to T*.
  auto adjoint_arg() { return shadow_arg(Shadow); }
  /// The tangent argument: a value for a scalar input, else as the adjoint.
  auto tangent_arg() {
    if constexpr (active && std::is_floating_point_v<V> && !Output)
      return std::tuple<V>(Shadow);
    else
      return adjoint_arg();
  }
  /// A second adjoint-like argument (hv_ of f_hvp).
  auto second_arg() { return shadow_arg(Shadow2); }
  void restore() { copy_into(Value, Saved); }
  void leaves(std::vector<real_leaf> &Out) { collect(Value, "", Out); }
  void shadow_leaves(std::vector<real_ref> &Out, bool Second) {
    collect(Second ? Shadow2 : Shadow, "", Out);
  }

private:
  auto shadow_arg(V &S) {
    if constexpr (!active)
      return std::tuple<>();
    else if constexpr (std::is_array_v<V>)
      return std::tuple<V &>(S);
    else
      return std::tuple<V *>(&S);
  }
  V Value, Saved, Shadow, Shadow2;
};

/// A span: f works on a copy of the user's memory (which may be read-only),
/// so the user's values are untouched by the check.
template <class T, bool Active, bool Output> class span_holder {
  using U = std::remove_cv_t<T>;

public:
  explicit span_holder(span_t<T> S)
      : Value(S.Data, S.Data + S.Size), Saved(Value), Shadow(Value),
        Shadow2(Value) {}
  static constexpr bool active = Active && has_reals<U>();
  static constexpr bool output = Output && !std::is_const_v<T>;

  auto primal_arg() { return std::tuple<T *>(Value.data()); }
  auto adjoint_arg() { return shadow_arg(Shadow); }
  auto tangent_arg() { return adjoint_arg(); }
  auto second_arg() { return shadow_arg(Shadow2); }
  void restore() { Value = Saved; }
  void leaves(std::vector<real_leaf> &Out) {
    for (std::size_t I = 0; I < Value.size(); ++I)
      collect(Value[I], "[" + std::to_string(I) + "]", Out);
  }
  void shadow_leaves(std::vector<real_ref> &Out, bool Second) {
    for (auto &E : Second ? Shadow2 : Shadow)
      collect(E, "", Out);
  }

private:
  auto shadow_arg(std::vector<U> &S) {
    if constexpr (active)
      return std::tuple<U *>(S.data());
    else
      return std::tuple<>();
  }
  // Same sizes throughout: restoring never reallocates, so the leaves that
  // point into Value stay valid.
  std::vector<U> Value, Saved, Shadow, Shadow2;
};

/// Whether a parameter of type P lets f write its argument.
template <class P>
constexpr bool is_output_param =
    (std::is_lvalue_reference_v<P> &&
     !std::is_const_v<std::remove_reference_t<P>>) ||
    (std::is_pointer_v<P> && !std::is_const_v<std::remove_pointer_t<P>>);

/// The parameter types of f when they can be known: a function, a function
/// pointer, or a class with one non-template operator() (a lambda).
template <class F, class = void> struct params_of {
  static constexpr bool known = false;
};
template <class R, class... P> struct params_of<R (*)(P...)> {
  static constexpr bool known = true;
  using type = std::tuple<P...>;
};
template <class R, class... P>
struct params_of<R (*)(P...) noexcept> : params_of<R (*)(P...)> {};
template <class C, class R, class... P>
struct params_of<R (C::*)(P...) const> : params_of<R (*)(P...)> {};
template <class C, class R, class... P>
struct params_of<R (C::*)(P...)> : params_of<R (*)(P...)> {};
template <class C, class R, class... P>
struct params_of<R (C::*)(P...) const noexcept> : params_of<R (*)(P...)> {};
template <class C, class R, class... P>
struct params_of<R (C::*)(P...) noexcept> : params_of<R (*)(P...)> {};
template <class F>
struct params_of<F, std::enable_if_t<std::is_class_v<F>,
                                     std::void_t<decltype(&F::operator())>>>
    : params_of<decltype(&F::operator())> {};

struct unknown_param {};

template <class F, std::size_t I, std::size_t N> auto param_at() {
  using Params = params_of<std::decay_t<F>>;
  if constexpr (Params::known) {
    static_assert(std::tuple_size_v<typename Params::type> == N,
                  "fluxion::check: the number of arguments differs from the "
                  "number of parameters of f");
    return std::tuple_element<I, typename Params::type>();
  } else {
    return std::tuple_element<0, std::tuple<unknown_param>>();
  }
}

/// The holder for argument A of parameter P (unknown_param when f's
/// parameters cannot be seen).
template <class A, class P, bool Active = true> auto holder_type() {
  using Arg = remove_cvref_t<A>;
  constexpr bool Known = !std::is_same_v<P, unknown_param>;
  if constexpr (is_constant<Arg>::value) {
    return holder_type<decltype(std::declval<Arg>().Value), P, false>();
  } else if constexpr (is_span<Arg>::value) {
    using T = std::remove_pointer_t<decltype(Arg::Data)>;
    constexpr bool Output = Known ? is_output_param<P> : !std::is_const_v<T>;
    return std::common_type<span_holder<T, Active, Output>>();
  } else {
    // An arithmetic argument takes the type of its parameter: 2 passed to a
    // double is a real, 2.0 passed to an int is not.
    using V = std::conditional_t<Known && std::is_arithmetic_v<Arg> &&
                                     std::is_arithmetic_v<remove_cvref_t<P>>,
                                 remove_cvref_t<P>, Arg>;
    static_assert(!(Active && std::is_pointer_v<V> &&
                    has_reals<std::remove_cv_t<std::remove_pointer_t<V>>>()),
                  "fluxion::check: a pointer to reals has no known extent: "
                  "pass fluxion::span(p, n), or fluxion::constant(p) if the "
                  "derivative has no adjoint for it");
    constexpr bool Output = Known && is_output_param<P>;
    return std::common_type<value_holder<V, Active, Output>>();
  }
}

template <class F, class... A, std::size_t... I>
auto holders_type(std::index_sequence<I...>) {
  return std::common_type<std::tuple<
      typename decltype(holder_type<
                        A, typename decltype(param_at<F, I, sizeof...(A)>())::
                               type>())::type...>>();
}
template <class F, class... A>
using holders_t = typename decltype(holders_type<F, A...>(
    std::index_sequence_for<A...>()))::type;

/// The argument a span or constant wrapper was built from, for holders'
/// constructors.
template <class A> decltype(auto) unwrap(A &&Arg) {
  if constexpr (is_constant<remove_cvref_t<A>>::value)
    return unwrap(std::forward<A>(Arg).Value);
  else
    return std::forward<A>(Arg);
}

template <class Fn, class Hs> decltype(auto) call_primal(Fn &F, Hs &H) {
  return std::apply(
      [&](auto &...X) -> decltype(auto) {
        return std::apply(F, std::tuple_cat(X.primal_arg()...));
      },
      H);
}

enum class shadow_kind { adjoint, tangent };

/// Calls G(primal args..., Middle..., shadows of the active arguments...).
template <shadow_kind K, class Fn, class Hs, class Middle>
decltype(auto) call_derivative(Fn &G, Hs &H, Middle &&Mid) {
  return std::apply(
      [&](auto &...X) -> decltype(auto) {
        if constexpr (K == shadow_kind::adjoint)
          return std::apply(
              G, std::tuple_cat(X.primal_arg()..., Mid, X.adjoint_arg()...));
        else
          return std::apply(
              G, std::tuple_cat(X.primal_arg()..., Mid, X.tangent_arg()...));
      },
      H);
}

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

/// The reals of the active arguments, of their shadows, and which of them
/// f may write.
struct layout {
  struct input {
    real_ref X, Shadow, Shadow2;
    std::string Param, Element;
    bool Output;
    std::size_t Arg; // the argument it belongs to
  };
  std::vector<input> Inputs;
  long double Eps = 0; // of the least precise type involved
};

template <class Hs> layout make_layout(Hs &H, const check_options &Opts) {
  layout L;
  std::size_t Index = 0;
  std::apply(
      [&](auto &...X) {
        auto Add = [&](auto &Holder) {
          using HT = std::decay_t<decltype(Holder)>;
          std::size_t Arg = Index++;
          std::string Name = Arg < Opts.names.size()
                                 ? Opts.names[Arg]
                                 : "arg " + std::to_string(Arg);
          if constexpr (HT::active) {
            std::vector<real_leaf> Leaves;
            std::vector<real_ref> Shadows, Shadows2;
            Holder.leaves(Leaves);
            Holder.shadow_leaves(Shadows, false);
            Holder.shadow_leaves(Shadows2, true);
            for (std::size_t I = 0; I < Leaves.size(); ++I) {
              L.Inputs.push_back({Leaves[I].Ref, Shadows[I], Shadows2[I], Name,
                                  Leaves[I].Element, HT::output, Arg});
              L.Eps = std::max(L.Eps, Leaves[I].Ref.epsilon());
            }
          }
        };
        (Add(X), ...);
      },
      H);
  return L;
}

template <class Hs> void restore_all(Hs &H) {
  std::apply([](auto &...X) { (X.restore(), ...); }, H);
}

/// Deterministic numbers in +-[0.5, 1.5): away from 0, so that no entry of a
/// seed or tangent hides a wrong derivative.
class random_signed {
public:
  explicit random_signed(std::uint64_t Seed) : State(Seed) {}
  long double next() {
    // splitmix64: the same numbers on every platform.
    std::uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
    Z ^= Z >> 31;
    long double U = (long double)(Z >> 11) / 9007199254740992.0L; // [0, 1)
    return (Z & 1 ? -1 : 1) * (0.5L + U);
  }

private:
  std::uint64_t State;
};

/// An empty report with the user's tolerances, or the defaults for the
/// least precise type (by its epsilon). Second differences (check_hvp) keep
/// about half the digits first differences keep.
inline check_report make_report(const char *Title, const check_options &Opts,
                                long double Eps, bool Second = false) {
  long double RTol, ATol;
  if (Eps >= std::numeric_limits<float>::epsilon()) {
    RTol = 1e-3L;
    ATol = 1e-5L;
  } else if (Eps >= std::numeric_limits<double>::epsilon()) {
    RTol = 1e-6L;
    ATol = 1e-10L;
  } else {
    RTol = 1e-8L;
    ATol = 1e-13L;
  }
  if (Second) {
    RTol *= 10;
    ATol = std::sqrt(ATol);
  }
  return check_report(Title, Opts.rtol > 0 ? Opts.rtol : RTol,
                      Opts.atol > 0 ? Opts.atol : ATol, Opts.rows);
}

/// Finite differences of one observed quantity. F0 is its value at the
/// point, FP1/FM1 at offsets SP1 > 0 > SM1 (about +-h), FP2/FM2 at SP2/SM2
/// (about +-h/2).
struct differences {
  long double D1, D2, Fwd, Bwd, Jump, Noise;
};
inline differences difference(long double F0, long double FP1, long double FM1,
                              long double FP2, long double FM2, long double SP1,
                              long double SM1, long double SP2, long double SM2,
                              long double Eps) {
  differences D;
  D.D1 = (FP1 - FM1) / (SP1 - SM1);
  D.D2 = (FP2 - FM2) / (SP2 - SM2);
  long double Fwd1 = (FP1 - F0) / SP1, Bwd1 = (F0 - FM1) / -SM1;
  D.Fwd = (FP2 - F0) / SP2;
  D.Bwd = (F0 - FM2) / -SM2;
  // Forward minus backward difference is f'' h for smooth f and the jump
  // of the slope at a kink; 2 K(h/2) - K(h) cancels the f'' h part.
  D.Jump = 2 * (D.Fwd - D.Bwd) - (Fwd1 - Bwd1);
  long double M = std::max({std::fabs(F0), std::fabs(FP1), std::fabs(FM1),
                            std::fabs(FP2), std::fabs(FM2)});
  // Rounding error of a difference quotient at the smaller step.
  D.Noise = Eps * M / std::min(SP2, -SM2);
  return D;
}

/// Classifies one entry: AD against the central difference at step h.
inline check_entry judge(std::string Param, std::string Element, long double AD,
                         const differences &D, long double RTol,
                         long double ATol, bool DetectOneSidedKinks = true) {
  check_entry E;
  E.param = std::move(Param);
  E.element = std::move(Element);
  E.ad = AD;
  E.fd = D.D1;
  E.fd_half = D.D2;
  E.forward = D.Fwd;
  E.backward = D.Bwd;
  auto Allowed = [&](long double A, long double B, long double Noise) {
    return ATol + RTol * std::max(std::fabs(A), std::fabs(B)) + Noise;
  };
  long double Diff = std::fabs(AD - D.D1);
  long double Scale = std::max(std::fabs(AD), std::fabs(D.D1));
  E.rel_error = Scale > 0 ? Diff / Scale : Diff;
  E.score = Diff / Allowed(AD, D.D1, 16 * D.Noise);
  bool Converged = std::fabs(D.D1 - D.D2) <= Allowed(D.D1, D.D2, 16 * D.Noise);
  bool OneSidedAgree = !DetectOneSidedKinks ||
                       std::fabs(D.Jump) <= Allowed(D.Fwd, D.Bwd, 64 * D.Noise);
  if (std::isnan(AD) || std::isnan(E.score))
    E.state = check_entry::status::fail;
  else if (!Converged || !OneSidedAgree)
    E.state = check_entry::status::kink;
  else
    E.state =
        E.score <= 1 ? check_entry::status::pass : check_entry::status::fail;
  if (E.state == check_entry::status::fail && std::isnan(E.score))
    E.score = std::numeric_limits<long double>::infinity();
  return E;
}

/// The entry comparing the value a derivative returns with f's.
inline check_entry judge_value(long double Got, long double Want,
                               long double Eps) {
  check_entry E;
  E.param = "return value";
  E.ad = Got;
  E.fd = E.fd_half = Want;
  long double Diff = std::fabs(Got - Want);
  long double Scale = std::max(std::fabs(Got), std::fabs(Want));
  E.rel_error = Scale > 0 ? Diff / Scale : Diff;
  // Generated code evaluates the primal in the same order; allow a few ulps.
  E.score = Diff / (64 * Eps * std::max<long double>(Scale, 1));
  E.state =
      E.score <= 1 ? check_entry::status::pass : check_entry::status::fail;
  return E;
}

template <class R> constexpr bool is_real_result = std::is_floating_point_v<R>;

template <class Hs, class F> auto result_of_primal() {
  return std::common_type<remove_cvref_t<decltype(call_primal(
      std::declval<F &>(), std::declval<Hs &>()))>>();
}

/// check_gradient (Seeded = false) and check_vjp (Seeded = true): each
/// active input is perturbed in turn and the central difference of
/// phi = seed * f + sum of output seeds * outputs is compared with its
/// adjoint.
template <bool Seeded, class F, class G, class Hs>
check_report reverse_check(const check_options &Opts, F &Fn, G &Gn, Hs &H,
                           const char *Title) {
  using R = typename decltype(result_of_primal<Hs, F>())::type;
  static_assert(is_real_result<R> || (Seeded && std::is_void_v<R>),
                "fluxion::check_gradient: f must return a floating-point "
                "number (use check_vjp for functions returning void)");
  layout L = make_layout(H, Opts);
  long double Eps = L.Eps;
  if constexpr (is_real_result<R>)
    Eps = std::max<long double>(Eps, std::numeric_limits<R>::epsilon());
  check_report Rep = make_report(Title, Opts, Eps);

  random_signed Rand(Opts.seed);
  long double ResultSeed = Seeded ? Rand.next() : 1;
  std::vector<long double> OutputSeeds;
  for (const auto &In : L.Inputs)
    OutputSeeds.push_back(Seeded && In.Output ? Rand.next() : 0);

  // phi at the current (restored and possibly perturbed) arguments.
  auto Phi = [&]() -> long double {
    long double Sum = 0;
    if constexpr (is_real_result<R>)
      Sum = ResultSeed * static_cast<long double>(call_primal(Fn, H));
    else
      call_primal(Fn, H);
    for (std::size_t I = 0; I < L.Inputs.size(); ++I)
      if (OutputSeeds[I] != 0)
        Sum += OutputSeeds[I] * L.Inputs[I].X.get();
    return Sum;
  };

  // The derivative, with the seeds in place.
  restore_all(H);
  for (std::size_t I = 0; I < L.Inputs.size(); ++I)
    L.Inputs[I].Shadow.set(OutputSeeds[I]);
  [[maybe_unused]] long double Returned = 0;
  if constexpr (Seeded && is_real_result<R>)
    Returned = call_derivative<shadow_kind::adjoint>(
        Gn, H, std::tuple<R>(static_cast<R>(ResultSeed)));
  else if constexpr (is_real_result<R>)
    Returned = call_derivative<shadow_kind::adjoint>(Gn, H, std::tuple<>());
  else
    call_derivative<shadow_kind::adjoint>(Gn, H, std::tuple<>());
  std::vector<long double> Adjoints;
  for (const auto &In : L.Inputs)
    Adjoints.push_back(In.Shadow.get());

  restore_all(H);
  long double Phi0 = Phi();
  if constexpr (is_real_result<R>) {
    restore_all(H);
    Rep.add(judge_value(Returned, static_cast<long double>(call_primal(Fn, H)),
                        Eps));
  }
  for (std::size_t I = 0; I < L.Inputs.size(); ++I) {
    const real_ref &X = L.Inputs[I].X;
    restore_all(H);
    long double X0 = X.get();
    long double Step =
        Opts.step > 0
            ? Opts.step
            : std::cbrt(Eps) * std::max<long double>(1, std::fabs(X0));
    auto At = [&](long double Offset, long double &Actual) {
      restore_all(H);
      Actual = X.set(X0 + Offset) - X0;
      return Phi();
    };
    long double SP1, SM1, SP2, SM2;
    long double FP1 = At(Step, SP1), FM1 = At(-Step, SM1);
    long double FP2 = At(Step / 2, SP2), FM2 = At(-Step / 2, SM2);
    differences D =
        difference(Phi0, FP1, FM1, FP2, FM2, SP1, SM1, SP2, SM2, Eps);
    Rep.add(judge(L.Inputs[I].Param, L.Inputs[I].Element, Adjoints[I], D,
                  Rep.rtol(), Rep.atol()));
  }
  restore_all(H);
  return Rep;
}

/// check_jvp: one random tangent for all active inputs; the tangent of the
/// result and of every output is compared with the central difference
/// along it.
template <class F, class G, class Hs>
check_report forward_check(const check_options &Opts, F &Fn, G &Gn, Hs &H) {
  using R = typename decltype(result_of_primal<Hs, F>())::type;
  static_assert(is_real_result<R> || std::is_void_v<R>,
                "fluxion::check_jvp: f must return a floating-point number or "
                "void");
  layout L = make_layout(H, Opts);
  long double Eps = L.Eps;
  if constexpr (is_real_result<R>)
    Eps = std::max<long double>(Eps, std::numeric_limits<R>::epsilon());
  check_report Rep = make_report("check_jvp", Opts, Eps);

  restore_all(H);
  random_signed Rand(Opts.seed);
  std::vector<long double> X0, Tangent;
  for (const auto &In : L.Inputs) {
    X0.push_back(In.X.get());
    // Of the size of the entry, so that one step suits every entry.
    Tangent.push_back(In.Shadow.set(
        Rand.next() * std::max<long double>(1, std::fabs(X0.back()))));
  }

  // The observed quantities: the result, then every output's reals.
  auto Observe = [&]() {
    std::vector<long double> Obs;
    if constexpr (is_real_result<R>)
      Obs.push_back(static_cast<long double>(call_primal(Fn, H)));
    else
      call_primal(Fn, H);
    for (const auto &In : L.Inputs)
      if (In.Output)
        Obs.push_back(In.X.get());
    return Obs;
  };

  std::vector<long double> AD;
  if constexpr (is_real_result<R>)
    AD.push_back(static_cast<long double>(
        call_derivative<shadow_kind::tangent>(Gn, H, std::tuple<>())));
  else
    call_derivative<shadow_kind::tangent>(Gn, H, std::tuple<>());
  for (const auto &In : L.Inputs)
    if (In.Output)
      AD.push_back(In.Shadow.get());

  restore_all(H);
  std::vector<long double> Obs0 = Observe();
  long double Step = Opts.step > 0 ? Opts.step : std::cbrt(Eps);
  auto At = [&](long double S) {
    restore_all(H);
    for (std::size_t I = 0; I < L.Inputs.size(); ++I)
      L.Inputs[I].X.set(X0[I] + S * Tangent[I]);
    return Observe();
  };
  std::vector<long double> FP1 = At(Step), FM1 = At(-Step), FP2 = At(Step / 2),
                           FM2 = At(-Step / 2);
  std::size_t K = 0;
  auto Add = [&](std::string Param, std::string Element) {
    differences D = difference(Obs0[K], FP1[K], FM1[K], FP2[K], FM2[K], Step,
                               -Step, Step / 2, -Step / 2, Eps);
    Rep.add(judge(std::move(Param), std::move(Element), AD[K], D, Rep.rtol(),
                  Rep.atol()));
    ++K;
  };
  if constexpr (is_real_result<R>)
    Add("result", "");
  for (const auto &In : L.Inputs)
    if (In.Output)
      Add(In.Param, In.Element);
  restore_all(H);
  return Rep;
}

/// check_hvp: for a random direction v, entry i of H v is compared with the
/// mixed second difference of f in x_i and along v.
template <class F, class G, class Hs>
check_report hessian_check(const check_options &Opts, F &Fn, G &Gn, Hs &H) {
  using R = typename decltype(result_of_primal<Hs, F>())::type;
  static_assert(is_real_result<R>,
                "fluxion::check_hvp: f must return a floating-point number");
  layout L = make_layout(H, Opts);
  long double Eps =
      std::max<long double>(L.Eps, std::numeric_limits<R>::epsilon());
  check_report Rep = make_report("check_hvp", Opts, Eps, true);

  // The shadows hold the direction v, the second shadows receive H v.
  restore_all(H);
  random_signed Rand(Opts.seed);
  std::vector<long double> X0, V;
  for (const auto &In : L.Inputs) {
    X0.push_back(In.X.get());
    V.push_back(In.Shadow.set(Rand.next() *
                              std::max<long double>(1, std::fabs(X0.back()))));
  }
  for (const auto &In : L.Inputs)
    In.Shadow2.set(0);
  std::apply(
      [&](auto &...X) {
        std::apply(Gn, std::tuple_cat(X.primal_arg()..., X.tangent_arg()...,
                                      X.second_arg()...));
      },
      H);
  std::vector<long double> HVs;
  for (const auto &In : L.Inputs)
    HVs.push_back(In.Shadow2.get());

  long double Root = std::sqrt(std::sqrt(Eps));
  long double K = Opts.step > 0 ? Opts.step : Root;
  auto Eval = [&](std::size_t I, long double A, long double B) {
    restore_all(H);
    for (std::size_t J = 0; J < L.Inputs.size(); ++J)
      L.Inputs[J].X.set(X0[J] + B * V[J]);
    L.Inputs[I].X.set(L.Inputs[I].X.get() + A);
    return static_cast<long double>(call_primal(Fn, H));
  };
  for (std::size_t I = 0; I < L.Inputs.size(); ++I) {
    long double Hh = Opts.step > 0
                         ? Opts.step
                         : Root * std::max<long double>(1, std::fabs(X0[I]));
    auto Mixed = [&](long double A, long double B, long double &M) {
      long double PP = Eval(I, A, B), PM = Eval(I, A, -B), MP = Eval(I, -A, B),
                  MM = Eval(I, -A, -B);
      M = std::max(
          {M, std::fabs(PP), std::fabs(PM), std::fabs(MP), std::fabs(MM)});
      return (PP - PM - MP + MM) / (4 * A * B);
    };
    long double M = 0;
    differences D{};
    D.D1 = Mixed(Hh, K, M);
    D.D2 = Mixed(Hh / 2, K / 2, M);
    D.Noise = Eps * M / (Hh * K / 4);
    Rep.add(judge(L.Inputs[I].Param, L.Inputs[I].Element, HVs[I], D, Rep.rtol(),
                  Rep.atol(), false));
  }
  restore_all(H);
  return Rep;
}

/// The types of the primal arguments, to find J's element type.
template <class... X>
auto primal_args_of(std::tuple<X...> &)
    -> decltype(std::tuple_cat(std::declval<X &>().primal_arg()...));

template <class G, class Args, class T>
struct takes_matrix : std::false_type {};
template <class G, class... A, class T>
struct takes_matrix<G, std::tuple<A...>, T>
    : std::is_invocable<G &, A..., T *> {};

template <class> constexpr bool always_false = false;

/// The T of the derivative's `T* J`: f's result type when it takes that
/// (a generic callable), else whichever floating type it accepts.
template <class G, class Hs, class R> auto matrix_element() {
  using Args = decltype(primal_args_of(std::declval<Hs &>()));
  if constexpr (is_real_result<R> && takes_matrix<G, Args, R>::value)
    return std::common_type<R>();
  else if constexpr (takes_matrix<G, Args, double>::value)
    return std::common_type<double>();
  else if constexpr (takes_matrix<G, Args, float>::value)
    return std::common_type<float>();
  else if constexpr (takes_matrix<G, Args, long double>::value)
    return std::common_type<long double>();
  else {
    static_assert(always_false<G>,
                  "fluxion::check_jacobian: the derivative must be callable "
                  "as f_jacobian(args..., T* J), T float, double or long "
                  "double");
    return std::common_type<double>();
  }
}

/// Whether f writes the argument Arg, which its type lets f write. A
/// non-const array that f only reads is an input of f_jacobian (C code
/// often leaves out the const): f is run at the given values and at other
/// ones (so that a write of the value already there is seen too), and the
/// argument is an output if either run changes it.
template <class F, class Hs>
bool writes_argument(F &Fn, Hs &H, const layout &L, std::size_t Arg) {
  bool Changed = false;
  for (int Run = 0; Run < 2 && !Changed; ++Run) {
    restore_all(H);
    std::vector<long double> Before;
    for (const auto &In : L.Inputs)
      if (In.Arg == Arg) {
        long double V = In.X.get();
        Before.push_back(Run == 0 ? V : In.X.set(1.375L * V + 0.625L));
      }
    call_primal(Fn, H);
    std::size_t K = 0;
    for (const auto &In : L.Inputs)
      if (In.Arg == Arg && !(In.X.get() == Before[K++]))
        Changed = true;
  }
  restore_all(H);
  return Changed;
}

/// check_jacobian: J (rows: the result, then every element of the outputs;
/// columns: every element of the inputs) against central differences, one
/// column per perturbed input.
template <class F, class G, class Hs>
check_report jacobian_check(const check_options &Opts, F &Fn, G &Gn, Hs &H) {
  using R = typename decltype(result_of_primal<Hs, F>())::type;
  static_assert(is_real_result<R> || std::is_void_v<R>,
                "fluxion::check_jacobian: f must return a floating-point "
                "number or void");
  using T = typename decltype(matrix_element<G, Hs, R>())::type;
  layout L = make_layout(H, Opts);
  long double Eps =
      std::max<long double>(L.Eps, std::numeric_limits<T>::epsilon());
  if constexpr (is_real_result<R>)
    Eps = std::max<long double>(Eps, std::numeric_limits<R>::epsilon());
  check_report Rep = make_report("check_jacobian", Opts, Eps);

  // Which arguments f writes: as f_jacobian decides from f's body.
  std::vector<bool> Output(L.Inputs.size(), false);
  for (std::size_t I = 0; I < L.Inputs.size(); ++I) {
    if (!L.Inputs[I].Output)
      continue;
    if (I > 0 && L.Inputs[I - 1].Arg == L.Inputs[I].Arg)
      Output[I] = Output[I - 1];
    else
      Output[I] = writes_argument(Fn, H, L, L.Inputs[I].Arg);
  }
  std::vector<std::string> RowNames;
  if constexpr (is_real_result<R>)
    RowNames.push_back("result");
  std::vector<std::size_t> Cols;
  for (std::size_t I = 0; I < L.Inputs.size(); ++I) {
    if (Output[I])
      RowNames.push_back(L.Inputs[I].Param + L.Inputs[I].Element);
    else
      Cols.push_back(I);
  }
  std::size_t NR = RowNames.size(), NC = Cols.size();
  if (NR == 0 || NC == 0) {
    check_entry E;
    E.param = NR == 0 ? "(f has no outputs)" : "(f has no inputs)";
    E.state = check_entry::status::fail;
    E.score = std::numeric_limits<long double>::infinity();
    Rep.add(E);
    return Rep;
  }

  // The derivative. Entries it does not write stay NaN and fail; the
  // space past the NR x NC matrix shows a layout that differs from the
  // contract's instead of corrupting memory.
  std::size_t Guard = NR * NC + 64;
  std::vector<T> J(NR * NC + Guard, std::numeric_limits<T>::quiet_NaN());
  restore_all(H);
  std::apply(
      [&](auto &...X) {
        std::apply(Gn, std::tuple_cat(X.primal_arg()...,
                                      std::tuple<T *>(J.data())));
      },
      H);

  // The observed quantities: the result, then the outputs' reals.
  auto Observe = [&]() {
    std::vector<long double> Obs;
    if constexpr (is_real_result<R>)
      Obs.push_back(static_cast<long double>(call_primal(Fn, H)));
    else
      call_primal(Fn, H);
    for (std::size_t I = 0; I < L.Inputs.size(); ++I)
      if (Output[I])
        Obs.push_back(L.Inputs[I].X.get());
    return Obs;
  };
  restore_all(H);
  std::vector<long double> Obs0 = Observe();
  std::vector<differences> D(NR * NC);
  for (std::size_t C = 0; C < NC; ++C) {
    const real_ref &X = L.Inputs[Cols[C]].X;
    restore_all(H);
    long double X0 = X.get();
    long double Step =
        Opts.step > 0
            ? Opts.step
            : std::cbrt(Eps) * std::max<long double>(1, std::fabs(X0));
    auto At = [&](long double Offset, long double &Actual) {
      restore_all(H);
      Actual = X.set(X0 + Offset) - X0;
      return Observe();
    };
    long double SP1, SM1, SP2, SM2;
    std::vector<long double> FP1 = At(Step, SP1), FM1 = At(-Step, SM1),
                             FP2 = At(Step / 2, SP2), FM2 = At(-Step / 2, SM2);
    for (std::size_t Row = 0; Row < NR; ++Row)
      D[Row * NC + C] = difference(Obs0[Row], FP1[Row], FM1[Row], FP2[Row],
                                   FM2[Row], SP1, SM1, SP2, SM2, Eps);
  }
  restore_all(H);

  // Row-major, as J.
  for (std::size_t Row = 0; Row < NR; ++Row)
    for (std::size_t C = 0; C < NC; ++C) {
      const auto &In = L.Inputs[Cols[C]];
      check_entry E = judge(In.Param, In.Element, J[Row * NC + C],
                            D[Row * NC + C], Rep.rtol(), Rep.atol());
      E.output = RowNames[Row];
      Rep.add(std::move(E));
    }
  for (std::size_t K = NR * NC; K < J.size(); ++K)
    if (!std::isnan(J[K])) {
      check_entry E;
      E.output = "(past the " + std::to_string(NR) + " x " +
                 std::to_string(NC) + " matrix)";
      E.param = "J";
      E.element = "[" + std::to_string(K) + "]";
      E.ad = J[K];
      E.fd = E.fd_half = std::numeric_limits<long double>::quiet_NaN();
      E.rel_error = E.score = std::numeric_limits<long double>::infinity();
      E.state = check_entry::status::fail;
      Rep.add(std::move(E));
      break;
    }
  return Rep;
}

template <class F, class... A> auto make_holders(A &&...Args) {
  return holders_t<F, A...>(unwrap(std::forward<A>(Args))...);
}

} // namespace detail

//===----------------------------------------------------------------------===//
// The checkers
//===----------------------------------------------------------------------===//

/// Compares Grad(args..., d_args...) (the adjoints added into zeroed
/// shadows) with central differences of F(args...), and Grad's returned
/// value with F's.
template <class F, class Grad, class... A>
check_report check_gradient(const check_options &Opts, F &&Fn, Grad &&G,
                            A &&...Args) {
  auto H = detail::make_holders<F>(std::forward<A>(Args)...);
  return detail::reverse_check<false>(Opts, Fn, G, H, "check_gradient");
}
template <class F, class Grad, class... A,
          class = std::enable_if_t<
              !std::is_same_v<detail::remove_cvref_t<F>, check_options>>>
check_report check_gradient(F &&Fn, Grad &&G, A &&...Args) {
  return check_gradient(check_options(), std::forward<F>(Fn),
                        std::forward<Grad>(G), std::forward<A>(Args)...);
}

/// Compares Vjp(args..., seed, d_args...) (seed omitted for void F; the
/// shadows of outputs hold random seeds on entry, the others zero) with
/// central differences of seed * F + sum(output seeds * outputs).
template <class F, class Vjp, class... A>
check_report check_vjp(const check_options &Opts, F &&Fn, Vjp &&G,
                       A &&...Args) {
  auto H = detail::make_holders<F>(std::forward<A>(Args)...);
  return detail::reverse_check<true>(Opts, Fn, G, H, "check_vjp");
}
template <class F, class Vjp, class... A,
          class = std::enable_if_t<
              !std::is_same_v<detail::remove_cvref_t<F>, check_options>>>
check_report check_vjp(F &&Fn, Vjp &&G, A &&...Args) {
  return check_vjp(check_options(), std::forward<F>(Fn), std::forward<Vjp>(G),
                   std::forward<A>(Args)...);
}

/// Compares Jvp(args..., t_args...) (random tangents: a value per scalar
/// input, a pointer otherwise) -- its result and the tangents it leaves in
/// the outputs' t_ -- with central differences along the tangent.
template <class F, class Jvp, class... A>
check_report check_jvp(const check_options &Opts, F &&Fn, Jvp &&G,
                       A &&...Args) {
  auto H = detail::make_holders<F>(std::forward<A>(Args)...);
  return detail::forward_check(Opts, Fn, G, H);
}
template <class F, class Jvp, class... A,
          class = std::enable_if_t<
              !std::is_same_v<detail::remove_cvref_t<F>, check_options>>>
check_report check_jvp(F &&Fn, Jvp &&G, A &&...Args) {
  return check_jvp(check_options(), std::forward<F>(Fn), std::forward<Jvp>(G),
                   std::forward<A>(Args)...);
}

/// Compares Hvp(args..., v_args..., hv_args...) (a random direction v, hv
/// zeroed) with mixed second differences of F.
template <class F, class Hvp, class... A>
check_report check_hvp(const check_options &Opts, F &&Fn, Hvp &&G,
                       A &&...Args) {
  auto H = detail::make_holders<F>(std::forward<A>(Args)...);
  return detail::hessian_check(Opts, Fn, G, H);
}
template <class F, class Hvp, class... A,
          class = std::enable_if_t<
              !std::is_same_v<detail::remove_cvref_t<F>, check_options>>>
check_report check_hvp(F &&Fn, Hvp &&G, A &&...Args) {
  return check_hvp(check_options(), std::forward<F>(Fn), std::forward<Hvp>(G),
                   std::forward<A>(Args)...);
}

/// Compares Jac(args..., J) -- J row-major, one row per output (f's result,
/// then every element of the arguments f writes), one column per element
/// of the other arguments -- with central differences of f in each column's
/// input.
template <class F, class Jac, class... A>
check_report check_jacobian(const check_options &Opts, F &&Fn, Jac &&G,
                            A &&...Args) {
  auto H = detail::make_holders<F>(std::forward<A>(Args)...);
  return detail::jacobian_check(Opts, Fn, G, H);
}
template <class F, class Jac, class... A,
          class = std::enable_if_t<
              !std::is_same_v<detail::remove_cvref_t<F>, check_options>>>
check_report check_jacobian(F &&Fn, Jac &&G, A &&...Args) {
  return check_jacobian(check_options(), std::forward<F>(Fn),
                        std::forward<Jac>(G), std::forward<A>(Args)...);
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

inline std::string check_report::str() const {
  using E = check_entry;
  auto Num = [](long double V, int Digits, bool Scientific = false) {
    std::ostringstream OS;
    if (Scientific)
      OS << std::scientific;
    OS << std::setprecision(Digits) << V;
    return OS.str();
  };
  std::vector<const E *> Compared, Kinks;
  bool Outputs = false; // check_jacobian's entries say which row they are in
  for (const E &X : Entries) {
    (X.state == E::status::kink ? Kinks : Compared).push_back(&X);
    Outputs |= !X.output.empty();
  }
  // The leading cells of a row.
  auto Lead = [&](std::vector<std::string> Cells, const E *X) {
    if (Outputs)
      Cells.insert(Cells.begin(), X ? X->output : "output");
    return Cells;
  };
  // Worst first; entries of equal score keep their order.
  std::sort(Compared.begin(), Compared.end(), [](const E *A, const E *B) {
    return A->score != B->score ? A->score > B->score : A < B;
  });

  std::ostringstream OS;
  OS << "fluxion::" << Title << ": " << (ok() ? "ok" : "FAILED") << ", "
     << failures() << " of " << Compared.size() << " entries wrong";
  if (!Kinks.empty())
    OS << ", " << Kinks.size() << (Kinks.size() == 1 ? " kink" : " kinks");
  OS << " (rtol " << Num(RTol, 2) << ", atol " << Num(ATol, 2) << ")\n";

  // Columns sized to their widest cell.
  auto Table = [&](const std::vector<std::vector<std::string>> &Rows) {
    std::vector<std::size_t> Width;
    for (const auto &Row : Rows)
      for (std::size_t C = 0; C < Row.size(); ++C) {
        Width.resize(std::max(Width.size(), Row.size()));
        Width[C] = std::max(Width[C], Row[C].size());
      }
    for (const auto &Row : Rows) {
      std::string Line;
      for (std::size_t C = 0; C < Row.size(); ++C)
        Line += "  " + Row[C] + std::string(Width[C] - Row[C].size(), ' ');
      while (!Line.empty() && Line.back() == ' ')
        Line.pop_back();
      OS << Line << "\n";
    }
  };
  if (!Compared.empty()) {
    std::vector<std::vector<std::string>> Cells = {
        Lead({"parameter", "element", "AD", "FD", "rel.error", ""}, nullptr)};
    for (std::size_t I = 0; I < Compared.size() && I < MaxRows; ++I) {
      const E &X = *Compared[I];
      Cells.push_back(Lead({X.param, X.element, Num(X.ad, 10), Num(X.fd, 10),
                           Num(X.rel_error, 1, true),
                           X.state == E::status::fail ? "FAIL" : ""},
                          &X));
    }
    Table(Cells);
    if (Compared.size() > MaxRows)
      OS << "  (" << Compared.size() - MaxRows << " more entries)\n";
  }
  if (!Kinks.empty()) {
    OS << "kinks (finite differences at two steps, or forward and backward, "
          "disagree; not compared):\n";
    std::vector<std::vector<std::string>> Cells = {
        Lead({"parameter", "element", "AD", "FD(h)", "FD(h/2)", "forward",
              "backward"},
             nullptr)};
    for (std::size_t I = 0; I < Kinks.size() && I < MaxRows; ++I) {
      const E &X = *Kinks[I];
      Cells.push_back(Lead({X.param, X.element, Num(X.ad, 6), Num(X.fd, 6),
                           Num(X.fd_half, 6), Num(X.forward, 6),
                           Num(X.backward, 6)},
                          &X));
    }
    Table(Cells);
    if (Kinks.size() > MaxRows)
      OS << "  (" << Kinks.size() - MaxRows << " more kinks)\n";
  }
  return OS.str();
}

} // namespace fluxion

#endif // FLUXION_CHECK_HPP
