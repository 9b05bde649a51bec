// LSTM loss (ADBench), written the way a C++ user writes it: pointers,
// loops, helper functions, and local arrays sized for the largest problem.
// Compiled with the Fluxion plugin, which generates lstm_objective_grad.
#include "lstm.hpp"

#include <fluxion/fluxion.hpp>

#include <cmath>

using adbench::LstmMaxB;
using adbench::LstmMaxL;

static double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

static double logsumexp(int n, const double *v) {
  double mx = v[0];
  for (int i = 1; i < n; ++i)
    if (v[i] > mx)
      mx = v[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::exp(v[i] - mx);
  return std::log(s) + mx;
}

// One LSTM cell layer: updates hidden and cell in place (ADBench's
// lstm_model).
static void lstm_model(int b, const double *weight, const double *bias,
                       double *hidden, double *cell, const double *input) {
  for (int i = 0; i < b; ++i) {
    double forget = sigmoid(input[i] * weight[i] + bias[i]);
    double ingate = sigmoid(hidden[i] * weight[b + i] + bias[b + i]);
    double outgate = sigmoid(input[i] * weight[2 * b + i] + bias[2 * b + i]);
    double change = std::tanh(hidden[i] * weight[3 * b + i] + bias[3 * b + i]);
    cell[i] = cell[i] * forget + ingate * change;
    hidden[i] = outgate * std::tanh(cell[i]);
  }
}

// Runs the layers on one input, updating the state s (hidden and cell of
// each layer) in place; the prediction goes to x2.
static void lstm_predict(int l, int b, const double *w, const double *w2,
                         double *s, const double *x, double *x2) {
  for (int i = 0; i < b; ++i)
    x2[i] = x[i] * w2[i];
  for (int layer = 0; layer < l; ++layer) {
    lstm_model(b, w + 2 * layer * 4 * b, w + (2 * layer + 1) * 4 * b,
               s + 2 * layer * b, s + (2 * layer + 1) * b, x2);
    for (int i = 0; i < b; ++i) // the next layer's input: this hidden state
      x2[i] = s[2 * layer * b + i];
  }
  for (int i = 0; i < b; ++i)
    x2[i] = x2[i] * w2[b + i] + w2[2 * b + i];
}

[[fluxion::grad("main_params", "extra_params")]] double
lstm_objective(int l, int c, int b, const double *main_params,
               const double *extra_params, const double *state,
               const double *sequence) {
  double s[2 * LstmMaxL * LstmMaxB];
  double ypred[LstmMaxB];
  for (int i = 0; i < 2 * l * b; ++i)
    s[i] = state[i];
  double total = 0;
  int count = 0;
  for (int t = 0; t < c - 1; ++t) {
    lstm_predict(l, b, main_params, extra_params, s, sequence + t * b,
                 ypred);
    double lse = logsumexp(b, ypred);
    for (int i = 0; i < b; ++i) // ygold . (ypred - lse)
      total += sequence[(t + 1) * b + i] * (ypred[i] - lse);
    count += b;
  }
  return -total / count;
}
