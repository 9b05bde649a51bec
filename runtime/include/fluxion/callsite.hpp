// The call-site form of the annotations, as in JAX and Clad:
//
//   auto df = fluxion::grad(f);          // like [[fluxion::grad]] on f
//   double y = df(x, w, n, d_x, d_w);    // calls the generated f_grad
//   auto dfx = fluxion::vjp(f, "x");     // names restrict, as in annotations
//
// fluxion::grad, vjp, jvp, hvp, hessian and jacobian take a function (a
// named function, a static member function, an instance of a function
// template) or a lambda (differentiated with respect to its parameters; what
// it captures by copy is constant) and up to four parameter names. The
// result is a small object whose call operator has the calling convention of
// the generated function f_grad, f_vjp, f_jvp, f_hvp, f_hessian or
// f_jacobian. The Fluxion plugin (or fluxion-gen, in the source it writes)
// generates that function, exactly as an annotation would (an annotation of
// the same kind and names and the call-site form share one generated
// function), and passes its address as the hidden last argument. The plugin
// makes each call of the object a call of the generated function with its
// own parameter types (arguments convert as in a direct call, or a located
// error says which do not); in fluxion-gen's output the object holds the
// function with its type. Compiled without either, the object is empty and
// calling it stops the program with a message.
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

namespace detail {
/// A lambda (or another object with one non-template const operator()).
template <class C> struct lambda {};
} // namespace detail

/// The derivative of F that calls the generated function through G: its
/// own type where that is known when the object is made (in fluxion-gen's
/// output), generated_fn where the plugin fills it in. Names is how many
/// parameter names the form was given: derivatives of one function for
/// different parameters are objects of different types.
template <mode M, class F, class G = detail::generated_fn, int Names = 0>
class derivative_fn {
  // F is neither a function nor a lambda Fluxion can differentiate.
  static_assert(std::is_pointer_v<F> &&
                    std::is_function_v<std::remove_pointer_t<F>>,
                "fluxion::grad (vjp, jvp, ...) takes a function (a named "
                "function, a static member function or an instance of a "
                "function template) or a lambda whose parameters are not "
                "'auto' and that is not 'mutable'");
};

/// Made by the plugin: its call operator takes f's parameters, then what
/// the generated function adds (a seed, adjoints, tangents, the Hessian or
/// Jacobian to fill), in the contract's order.
template <mode M, class R, class... P, int Names>
class derivative_fn<M, R (*)(P...), detail::generated_fn, Names> {
public:
  using result_type = detail::derivative_result_t<M, R>;

  constexpr derivative_fn(R (*)(P...), detail::generated_fn Generated) noexcept
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

  constexpr derivative_fn(R (*)(P...), GR (*Generated)(GP...)) noexcept
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
/// Made by the plugin from a lambda: the generated function takes the
/// closure (its captures are constants) and then the lambda's parameters.
template <mode M, class C, class Call> class lambda_derivative;
template <mode M, class C, class R, class... P>
class lambda_derivative<M, C, R (C::*)(P...) const> {
public:
  using result_type = derivative_result_t<M, R>;

  lambda_derivative(const C &Self, generated_fn Generated)
      : Self(Self), Generated(Generated) {}

  generated_fn address() const noexcept { return Generated; }

  template <class... Extra>
  result_type operator()(P... p, Extra &&...extra) const {
    using target = result_type (*)(const C &, P..., passed_t<Extra>...);
    if (!Generated)
      not_generated();
    // Made to call through the generated function's own type, as for
    // functions.
    return reinterpret_cast<target>(Generated)(
        Self, static_cast<P &&>(p)..., static_cast<Extra &&>(extra)...);
  }

private:
  C Self;
  generated_fn Generated;
};
} // namespace detail

template <mode M, class C, int Names>
class derivative_fn<M, detail::lambda<C>, detail::generated_fn, Names>
    : public detail::lambda_derivative<M, C, decltype(&C::operator())> {
public:
  derivative_fn(const C &Self, detail::generated_fn Generated)
      : detail::lambda_derivative<M, C, decltype(&C::operator())>(Self,
                                                                  Generated) {}
  derivative_fn(const derivative_fn &) = default;
  derivative_fn &operator=(const derivative_fn &) = delete;
};

namespace detail {
/// What a form's derivative is of: a function (noexcept or not: the same
/// derivative), or a lambda.
template <class F, class = void> struct form_target { using type = F; };
template <class R, class... P> struct form_target<R (*)(P...) noexcept> {
  using type = R (*)(P...);
};
template <class C>
struct form_target<C, std::enable_if_t<std::is_class_v<C>>> {
  using type = lambda<C>;
};
template <class F> using form_target_t = typename form_target<F>::type;
} // namespace detail

// One overload per number of parameter names: the hidden last argument
// follows them.
#define FLUXION_CALLSITE_FORM(NAME, NAMES, ...)                                \
  template <class F, class G = detail::generated_fn>                           \
  derivative_fn<mode::NAME, detail::form_target_t<F>, G, NAMES> NAME(          \
      F f, __VA_ARGS__ G generated = nullptr) {                                \
    return derivative_fn<mode::NAME, detail::form_target_t<F>, G, NAMES>(      \
        f, generated);                                                         \
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
