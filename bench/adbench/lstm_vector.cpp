// The LSTM loss of lstm.cpp written with std::vector, as a C++ programmer
// writes it today: the parameters, state and sequence as const
// std::vector<double>& (the adjoints are vectors of the same size), the
// state copied into a local vector, slices addressed by offsets into the
// packed vectors, and the standard library where it fits (std::copy of a
// layer's hidden state, *std::max_element in logsumexp). Compiled with the
// Fluxion plugin; bench/ times its gradient beside the pointer version's
// ("fluxion_vector").
#include "lstm.hpp"

#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

double logsumexp(const std::vector<double> &v) {
  const double mx = *std::max_element(v.begin(), v.end());
  double s = 0;
  for (double e : v)
    s += std::exp(e - mx);
  return std::log(s) + mx;
}

// One layer of cells: its weights start at w0 and its biases at b0 in
// params, its hidden and cell state at h0 and c0 in state.
void lstm_model(std::size_t b, const std::vector<double> &params,
                std::size_t w0, std::size_t b0, std::vector<double> &state,
                std::size_t h0, std::size_t c0,
                const std::vector<double> &input) {
  for (std::size_t i = 0; i < b; ++i) {
    const double forget = sigmoid(input[i] * params[w0 + i] + params[b0 + i]);
    const double ingate =
        sigmoid(state[h0 + i] * params[w0 + b + i] + params[b0 + b + i]);
    const double outgate =
        sigmoid(input[i] * params[w0 + 2 * b + i] + params[b0 + 2 * b + i]);
    const double change = std::tanh(state[h0 + i] * params[w0 + 3 * b + i] +
                                    params[b0 + 3 * b + i]);
    state[c0 + i] = state[c0 + i] * forget + ingate * change;
    state[h0 + i] = outgate * std::tanh(state[c0 + i]);
  }
}

// The prediction for the input at x0 in the sequence, into x2.
void lstm_predict(std::size_t l, std::size_t b,
                  const std::vector<double> &main_params,
                  const std::vector<double> &extra_params,
                  std::vector<double> &state,
                  const std::vector<double> &sequence, std::size_t x0,
                  std::vector<double> &x2) {
  for (std::size_t i = 0; i < b; ++i)
    x2[i] = sequence[x0 + i] * extra_params[i];
  for (std::size_t layer = 0; layer < l; ++layer) {
    const std::size_t h0 = 2 * layer * b;
    lstm_model(b, main_params, 2 * layer * 4 * b, (2 * layer + 1) * 4 * b,
               state, h0, h0 + b, x2);
    // The next layer's input: this layer's hidden state.
    std::copy(state.begin() + h0, state.begin() + h0 + b, x2.begin());
  }
  for (std::size_t i = 0; i < b; ++i)
    x2[i] = x2[i] * extra_params[b + i] + extra_params[2 * b + i];
}

} // namespace

[[fluxion::grad("main_params", "extra_params")]] double
lstm_objective_vector(int l, int c, int b,
                      const std::vector<double> &main_params,
                      const std::vector<double> &extra_params,
                      const std::vector<double> &state,
                      const std::vector<double> &sequence) {
  const std::size_t nb = static_cast<std::size_t>(b);
  std::vector<double> s = state;
  std::vector<double> ypred(nb);
  double total = 0;
  int count = 0;
  for (int t = 0; t < c - 1; ++t) {
    lstm_predict(static_cast<std::size_t>(l), nb, main_params, extra_params, s,
                 sequence, static_cast<std::size_t>(t) * nb, ypred);
    const double lse = logsumexp(ypred);
    for (std::size_t i = 0; i < nb; ++i) // ygold . (ypred - lse)
      total += sequence[(static_cast<std::size_t>(t) + 1) * nb + i] *
               (ypred[i] - lse);
    count += b;
  }
  return -total / count;
}
