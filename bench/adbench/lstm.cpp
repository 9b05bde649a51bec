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

// Runs the layers of LSTM cells on one input, updating the state s in
// place; the prediction goes to x2. The cell update is written inline:
// ADBench's separate helper, called here as
//   lstm_model(b, w + .., w + .., s + 2 * layer * b, s + (2 * layer + 1) * b,
//   x2)
// and updating hidden and cell through its pointer parameters, is rejected:
// "cannot differentiate call to 'lstm_model': it overwrites memory of 's'
// whose earlier values the derivative still needs; pass a local copy".
static void lstm_predict(int l, int b, const double *w, const double *w2,
                         double *s, const double *x, double *x2) {
  for (int i = 0; i < b; ++i)
    x2[i] = x[i] * w2[i];
  for (int layer = 0; layer < l; ++layer) {
    const int wo = 2 * layer * 4 * b;       // this layer's weights
    const int bo = (2 * layer + 1) * 4 * b; // and biases
    const int ho = 2 * layer * b;           // hidden state in s
    const int co = (2 * layer + 1) * b;     // cell state in s
    for (int i = 0; i < b; ++i) {
      double forget = sigmoid(x2[i] * w[wo + i] + w[bo + i]);
      double ingate = sigmoid(s[ho + i] * w[wo + b + i] + w[bo + b + i]);
      double outgate = sigmoid(x2[i] * w[wo + 2 * b + i] + w[bo + 2 * b + i]);
      double change =
          std::tanh(s[ho + i] * w[wo + 3 * b + i] + w[bo + 3 * b + i]);
      s[co + i] = s[co + i] * forget + ingate * change;
      s[ho + i] = outgate * std::tanh(s[co + i]);
    }
    for (int i = 0; i < b; ++i) // the next layer's input: this hidden state
      x2[i] = s[ho + i];
  }
  for (int i = 0; i < b; ++i)
    x2[i] = x2[i] * w2[b + i] + w2[2 * b + i];
}

[[fluxion::grad("main_params", "extra_params")]] double
lstm_objective(int l, int c, int b, const double *main_params,
               const double *extra_params, const double *state,
               const double *sequence) {
  // The state, which evolves along the sequence, and then the prediction,
  // in one local array. With two arrays (double s[..], ypred[..]) passed to
  // the same call in the loop, the generated code records both before the
  // call but restores them after it in the same order instead of the
  // reverse one, and the gradient is wrong.
  constexpr int ypred = 2 * LstmMaxL * LstmMaxB;
  double s[2 * LstmMaxL * LstmMaxB + LstmMaxB];
  for (int i = 0; i < 2 * l * b; ++i)
    s[i] = state[i];
  double total = 0;
  int count = 0;
  for (int t = 0; t < c - 1; ++t) {
    lstm_predict(l, b, main_params, extra_params, s, sequence + t * b,
                 s + ypred);
    double lse = logsumexp(b, s + ypred);
    for (int i = 0; i < b; ++i) // ygold . (ypred - lse)
      total += sequence[(t + 1) * b + i] * (s[ypred + i] - lse);
    count += b;
  }
  return -total / count;
}
