// LSTM formulation "inline": the ADBench LSTM loss of
// bench/adbench/lstm.cpp written as one function with inline loops, the way
// a recurrent network is often written without helpers: the hidden and cell
// states of every layer in two-dimensional local arrays overwritten at each
// step, the four gates' pre-activations computed into one local array by a
// loop over the gates and then squashed in place, each layer's hidden state
// copied into the next layer's input as it is computed, and the
// log-softmax and cross-entropy written out. Compiled with the Fluxion
// plugin.
#include "lstm_forms.hpp"

#include <fluxion/fluxion.hpp>

#include <cmath>

using formulations::LstmInlineMaxB;
using formulations::LstmInlineMaxL;

[[fluxion::grad("main_params", "extra_params")]] double
lstm_inline(int l, int c, int b, const double *main_params,
            const double *extra_params, const double *state,
            const double *sequence) {
  double hidden[LstmInlineMaxL][LstmInlineMaxB];
  double cell[LstmInlineMaxL][LstmInlineMaxB];
  double input[LstmInlineMaxB], gates[4 * LstmInlineMaxB];
  for (int layer = 0; layer < l; ++layer)
    for (int i = 0; i < b; ++i) {
      hidden[layer][i] = state[2 * layer * b + i];
      cell[layer][i] = state[(2 * layer + 1) * b + i];
    }

  double loss = 0;
  for (int t = 0; t + 1 < c; ++t) {
    for (int i = 0; i < b; ++i)
      input[i] = sequence[t * b + i] * extra_params[i];
    for (int layer = 0; layer < l; ++layer) {
      const double *w = main_params + 8 * layer * b;
      const double *bias = w + 4 * b;
      // Gates 0 (forget) and 2 (output) read the input, 1 (input gate) and
      // 3 (cell change) the hidden state.
      for (int g = 0; g < 4; ++g)
        for (int i = 0; i < b; ++i) {
          const double src = g % 2 == 0 ? input[i] : hidden[layer][i];
          gates[g * b + i] = src * w[g * b + i] + bias[g * b + i];
        }
      for (int i = 0; i < 3 * b; ++i)
        gates[i] = 1 / (1 + std::exp(-gates[i]));
      for (int i = 3 * b; i < 4 * b; ++i)
        gates[i] = std::tanh(gates[i]);
      for (int i = 0; i < b; ++i) {
        cell[layer][i] =
            cell[layer][i] * gates[i] + gates[b + i] * gates[3 * b + i];
        hidden[layer][i] = gates[2 * b + i] * std::tanh(cell[layer][i]);
        input[i] = hidden[layer][i];
      }
    }
    for (int i = 0; i < b; ++i)
      input[i] = input[i] * extra_params[b + i] + extra_params[2 * b + i];
    double mx = input[0];
    for (int i = 1; i < b; ++i)
      if (input[i] > mx)
        mx = input[i];
    double se = 0;
    for (int i = 0; i < b; ++i)
      se += std::exp(input[i] - mx);
    const double lse = mx + std::log(se);
    for (int i = 0; i < b; ++i)
      loss -= sequence[(t + 1) * b + i] * (input[i] - lse);
  }
  return loss / ((c - 1) * b);
}
