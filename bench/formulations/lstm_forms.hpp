// LSTM loss (ADBench; see bench/adbench/lstm.hpp for the parameters)
// written two ways: bench/adbench/lstm.cpp (helpers lstm_model,
// lstm_predict, logsumexp, state updated in place through pointers) and
// lstm_inline.cpp (one function, inline loops, two-dimensional state arrays
// and a gate array squashed in place). Each has its hand-written adjoint
// (bench/adbench/lstm_manual.cpp, lstm_inline_manual.cpp).
#ifndef FLUXION_FORMULATIONS_LSTM_FORMS_HPP
#define FLUXION_FORMULATIONS_LSTM_FORMS_HPP

#include <cstddef>

namespace formulations {
/// Largest sizes lstm_inline's local arrays hold.
constexpr int LstmInlineMaxL = 4;
constexpr int LstmInlineMaxB = 16;

/// Hand-written adjoint of lstm_inline: returns the loss, ADDS the gradient,
/// reports the bytes it kept for the reverse sweep.
double lstm_inline_manual(int l, int c, int b, const double *main_params,
                          const double *extra_params, const double *state,
                          const double *sequence, double *d_main_params,
                          double *d_extra_params, std::size_t *bytes);
} // namespace formulations

double lstm_inline(int l, int c, int b, const double *main_params,
                   const double *extra_params, const double *state,
                   const double *sequence);
double lstm_inline_grad(int l, int c, int b, const double *main_params,
                        const double *extra_params, const double *state,
                        const double *sequence, double *d_main_params,
                        double *d_extra_params);

#endif // FLUXION_FORMULATIONS_LSTM_FORMS_HPP
