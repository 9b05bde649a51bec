// The call-site form of the annotations, as in JAX and Clad:
//
//   auto df = fluxion::grad(f);          // like [[fluxion::grad]] on f
//   double y = df(x, w, n, d_x, d_w);    // calls the generated f_grad
//   auto dfx = fluxion::vjp(f, "x");     // names restrict, as in annotations
//
// fluxion::grad, vjp, jvp, hvp, hessian and jacobian take a function (a
// named function, a static member function, an instance of a function
// template) and up to four parameter names. The result is a small object
// whose call operator has the calling convention of the generated function
// f_grad, f_vjp, f_jvp, f_hvp, f_hessian or f_jacobian; it holds that
// function's address. The Fluxion plugin (or fluxion-gen, in the source it
// writes) generates the function, exactly as an annotation would (an
// annotation of the same kind and names and the call-site form share one
// generated function), and passes its address as the hidden last argument.
// The plugin makes each call of the object a call of the generated function
// with its own parameter types (arguments convert as in a direct call, or a
// located error says which do not); in fluxion-gen's output the object holds
// the function with its type. Compiled without either, the object is empty
// and calling it stops the program with a message.
#ifndef FLUXION_CALLSITE_HPP
#define FLUXION_CALLSITE_HPP

#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace fluxion {

/// Which generated function a call-site derivative calls.
enum class mode { grad, vjp, jvp, hvp, hessian, jacobian };

namespace detail {
using generated_fn = void (*)();

/// What the generated function returns: f's value (grad, vjp) or its
/// tangent (jvp); the second-order and Jacobian functions return nothing.
template <mode M, class R>
using derivative_result_t =
    std::conditional_t<M == mode::grad || M == mode::vjp || M == mode::jvp, R,
                       void>;

/// How an argument after f's own is passed on: pointers and scalars by
/// value, objects (the seed of a function returning a struct) by const
/// reference.
template <class A>
using passed_t = std::conditional_t<std::is_class_v<std::decay_t<A>>,
                                    const std::decay_t<A> &, std::decay_t<A>>;

[[noreturn]] inline void not_generated() {
  std::fputs("fluxion: a derivative made by fluxion::grad (vjp, jvp, ...) was "
             "called in a program compiled without the Fluxion plugin or "
             "fluxion-gen; nothing generated it\n",
             stderr);
  std::abort();
}
} // namespace detail

/// The derivative of F that calls the generated function through G: its
/// own type where that is known when the object is made (in fluxion-gen's
/// output), generated_fn where the plugin fills it in. Names is how many
/// parameter names the form was given: derivatives of one function for
/// different parameters are objects of different types.
template <mode M, class F, class G = detail::generated_fn, int Names = 0>
class derivative_fn {
  // F is not a function: a lambda or another function object.
  static_assert(std::is_pointer_v<F> &&
                    std::is_function_v<std::remove_pointer_t<F>>,
                "fluxion::grad (vjp, jvp, ...) takes a function: a named "
                "function, a static member function or an instance of a "
                "function template; for a lambda, annotate a named function "
                "with [[fluxion::grad]] instead");
};

/// Made by the plugin: its call operator takes f's parameters, then what
/// the generated function adds (a seed, adjoints, tangents, the Hessian or
/// Jacobian to fill), in the contract's order.
template <mode M, class R, class... P, int Names>
class derivative_fn<M, R (*)(P...), detail::generated_fn, Names> {
public:
  using result_type = detail::derivative_result_t<M, R>;

  explicit constexpr derivative_fn(detail::generated_fn Generated) noexcept
      : Generated(Generated) {}
  derivative_fn(const derivative_fn &) = default;
  // Never reassigned: the plugin knows what a variable holds from its
  // initialiser.
  derivative_fn &operator=(const derivative_fn &) = delete;

  /// The generated function, or null in a program compiled without Fluxion.
  detail::generated_fn address() const noexcept { return Generated; }

  template <class... Extra>
  result_type operator()(P... p, Extra &&...extra) const {
    using target = result_type (*)(P..., detail::passed_t<Extra>...);
    if (!Generated)
      detail::not_generated();
    // The plugin makes this call go through the generated function's own
    // type, with the arguments converted as in a direct call, or reports
    // the arguments that do not fit.
    return reinterpret_cast<target>(Generated)(
        static_cast<P &&>(p)..., static_cast<Extra &&>(extra)...);
  }

private:
  detail::generated_fn Generated;
};

/// Made in fluxion-gen's output, which names the generated function: a
/// direct call, checked and converted by any compiler.
template <mode M, class R, class... P, class GR, class... GP, int Names>
class derivative_fn<M, R (*)(P...), GR (*)(GP...), Names> {
public:
  using result_type = GR;

  explicit constexpr derivative_fn(GR (*Generated)(GP...)) noexcept
      : Generated(Generated) {}
  derivative_fn(const derivative_fn &) = default;
  derivative_fn &operator=(const derivative_fn &) = delete;

  GR (*address() const noexcept)(GP...) { return Generated; }

  GR operator()(GP... args) const {
    return Generated(static_cast<GP &&>(args)...);
  }

private:
  GR (*Generated)(GP...);
};

namespace detail {
/// A noexcept function is differentiated like any other.
template <class F> struct plain_fn { using type = F; };
template <class R, class... P> struct plain_fn<R (*)(P...) noexcept> {
  using type = R (*)(P...);
};
template <class F> using plain_fn_t = typename plain_fn<F>::type;
} // namespace detail

// One overload per number of parameter names: the hidden last argument
// follows them.
#define FLUXION_CALLSITE_FORM(NAME, NAMES, ...)                                \
  template <class F, class G = detail::generated_fn>                           \
  derivative_fn<mode::NAME, detail::plain_fn_t<F>, G, NAMES> NAME(             \
      F, __VA_ARGS__ G generated = nullptr) {                                  \
    return derivative_fn<mode::NAME, detail::plain_fn_t<F>, G, NAMES>(         \
        generated);                                                            \
  }
#define FLUXION_CALLSITE_FORMS(NAME)                                           \
  FLUXION_CALLSITE_FORM(NAME, 0, )                                             \
  FLUXION_CALLSITE_FORM(NAME, 1, const char *, )                               \
  FLUXION_CALLSITE_FORM(NAME, 2, const char *, const char *, )                 \
  FLUXION_CALLSITE_FORM(NAME, 3, const char *, const char *, const char *, )   \
  FLUXION_CALLSITE_FORM(NAME, 4, const char *, const char *, const char *,     \
                        const char *, )

FLUXION_CALLSITE_FORMS(grad)
FLUXION_CALLSITE_FORMS(vjp)
FLUXION_CALLSITE_FORMS(jvp)
FLUXION_CALLSITE_FORMS(hvp)
FLUXION_CALLSITE_FORMS(hessian)
FLUXION_CALLSITE_FORMS(jacobian)
#undef FLUXION_CALLSITE_FORMS
#undef FLUXION_CALLSITE_FORM

} // namespace fluxion

#endif // FLUXION_CALLSITE_HPP
