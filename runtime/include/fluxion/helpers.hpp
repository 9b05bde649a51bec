// Fluxion runtime helpers that user code calls inside differentiated
// functions. Their meaning to the differentiator is fixed by name; their
// bodies here give the primal value.
#ifndef FLUXION_HELPERS_HPP
#define FLUXION_HELPERS_HPP

namespace fluxion {

/// Returns X; no derivative flows back through it (TensorFlow's
/// stop_gradient, JAX's lax.stop_gradient).
template <class T> inline T stop_gradient(T X) { return X; }

/// Returns Fn(X); its derivative is the identity (TensorFlow's
/// grad_pass_through, the straight-through estimator).
template <class F, class T> inline T pass_through(F Fn, T X) {
  return static_cast<T>(Fn(X));
}

} // namespace fluxion

#endif // FLUXION_HELPERS_HPP
