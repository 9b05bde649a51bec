// LSTM loss of ADBench (Srajer, Kukelova, Fitzgibbon 2018, section 3.3): l
// layers of LSTM cells with elementwise ("diagonal") weights over a sequence
// of c characters of dimension b; the prediction is rescaled by extra
// weights, and the loss is the mean cross-entropy of the log-softmax
// prediction against the next character.
//
// Parameters (ADBench's layout):
//   main_params[2 * l * 4b]  per layer: 4b weights, then 4b biases, for the
//                            forget, input, output gates and the cell change
//   extra_params[3b]         input weight, output weight, output bias
//   state[2 * l * b]         per layer: hidden state, then cell state
//                            (initial values; not differentiated)
//   sequence[c * b]          the input sequence (not differentiated)
#ifndef FLUXION_ADBENCH_LSTM_HPP
#define FLUXION_ADBENCH_LSTM_HPP

#include <cstdint>
#include <vector>

namespace adbench {

/// Largest sizes the Fluxion version's local arrays hold.
constexpr int LstmMaxL = 4;
constexpr int LstmMaxB = 16;

struct LstmInput {
  int l = 0, c = 0, b = 0;
  std::vector<double> main_params, extra_params, state, sequence;
  std::vector<double> params() const;
  void setParams(const std::vector<double> &P);
};

LstmInput lstm_make_input(int l, int c, int b, std::uint64_t seed);

/// Hand-written adjoint (lstm_manual.cpp): returns the loss and ADDS its
/// gradient into the two buffers.
double lstm_manual_grad(int l, int c, int b, const double *main_params,
                        const double *extra_params, const double *state,
                        const double *sequence, double *d_main_params,
                        double *d_extra_params);

#ifdef FLUXION_ADBENCH_ADOLC
/// ADOL-C (lstm_adolc.cpp): records the loss on tape `tag`, reverses it at
/// once, writes the gradient (main, extra) into grad; returns the loss.
double lstm_adolc_tape_and_gradient(const LstmInput &in, short tag,
                                    double *grad);
/// The gradient from the existing tape `tag` at `params`.
void lstm_adolc_gradient(short tag, const std::vector<double> &params,
                         double *grad);
#endif

} // namespace adbench

// The Fluxion version (lstm.cpp) and the gradient the plugin generates.
double lstm_objective(int l, int c, int b, const double *main_params,
                      const double *extra_params, const double *state,
                      const double *sequence);
double lstm_objective_grad(int l, int c, int b, const double *main_params,
                           const double *extra_params, const double *state,
                           const double *sequence, double *d_main_params,
                           double *d_extra_params);

// The same loss written with std::vector (lstm_vector.cpp).
double lstm_objective_vector(int l, int c, int b,
                             const std::vector<double> &main_params,
                             const std::vector<double> &extra_params,
                             const std::vector<double> &state,
                             const std::vector<double> &sequence);
double lstm_objective_vector_grad(int l, int c, int b,
                                  const std::vector<double> &main_params,
                                  const std::vector<double> &extra_params,
                                  const std::vector<double> &state,
                                  const std::vector<double> &sequence,
                                  std::vector<double> *d_main_params,
                                  std::vector<double> *d_extra_params);

#endif // FLUXION_ADBENCH_LSTM_HPP
