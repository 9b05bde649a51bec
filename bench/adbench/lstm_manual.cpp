// LSTM: inputs, and the hand-written adjoint (reverse mode by hand).
//
// The forward sweep stores the trajectory (hidden and cell states of every
// layer at every step, the four gates, the softmax of each prediction); the
// reverse sweep walks the steps backwards, carrying the adjoints of the
// hidden and cell states from one step to the previous one.
#include "common.hpp"
#include "lstm.hpp"

#include <cmath>
#include <vector>

namespace adbench {

std::vector<double> LstmInput::params() const {
  std::vector<double> P(main_params);
  P.insert(P.end(), extra_params.begin(), extra_params.end());
  return P;
}

void LstmInput::setParams(const std::vector<double> &P) {
  main_params.assign(P.begin(), P.begin() + main_params.size());
  extra_params.assign(P.begin() + main_params.size(), P.end());
}

LstmInput lstm_make_input(int l, int c, int b, std::uint64_t seed) {
  LstmInput In;
  In.l = l;
  In.c = c;
  In.b = b;
  Rng R(seed);
  In.main_params.resize(2 * l * 4 * b);
  for (double &W : In.main_params)
    W = R.uniform(-1, 1);
  In.extra_params.resize(3 * b);
  for (double &W : In.extra_params)
    W = R.uniform(-1, 1);
  In.state.resize(2 * l * b);
  for (double &S : In.state)
    S = R.uniform(-1, 1);
  // A sequence of one-hot-like characters with some noise, as in text.
  In.sequence.resize(c * b);
  for (int t = 0; t < c; ++t) {
    int hot = R.index(b);
    for (int i = 0; i < b; ++i)
      In.sequence[t * b + i] = (i == hot ? 1.0 : 0.0) + R.uniform(0, 0.1);
  }
  return In;
}

static double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

double lstm_manual_grad(int l, int c, int b, const double *main_params,
                        const double *extra_params, const double *state,
                        const double *sequence, double *d_main_params,
                        double *d_extra_params) {
  const int steps = c - 1;
  const int lb = l * b;
  // H[t][layer] / C[t][layer]: states before step t (t = 0: the initial
  // state), after step t - 1. G[t][layer][gate]: forget, input, output
  // gates and the cell change. P[t]: softmax of the prediction of step t.
  std::vector<double> H((steps + 1) * lb), C((steps + 1) * lb),
      G(steps * lb * 4), P(steps * b), Hlast(b), x0(b);
  for (int layer = 0; layer < l; ++layer)
    for (int i = 0; i < b; ++i) {
      H[layer * b + i] = state[2 * layer * b + i];
      C[layer * b + i] = state[(2 * layer + 1) * b + i];
    }
  const double *w2in = extra_params, *w2out = extra_params + b,
               *w2bias = extra_params + 2 * b;

  double total = 0;
  for (int t = 0; t < steps; ++t) {
    const double *x = sequence + t * b;
    for (int i = 0; i < b; ++i)
      x0[i] = x[i] * w2in[i];
    for (int layer = 0; layer < l; ++layer) {
      const double *W = main_params + 2 * layer * 4 * b;
      const double *Bias = W + 4 * b;
      const double *inp =
          layer == 0 ? x0.data() : &H[(t + 1) * lb + (layer - 1) * b];
      const double *h = &H[t * lb + layer * b];
      const double *cl = &C[t * lb + layer * b];
      double *hn = &H[(t + 1) * lb + layer * b];
      double *cn = &C[(t + 1) * lb + layer * b];
      double *g = &G[(t * l + layer) * 4 * b];
      for (int i = 0; i < b; ++i) {
        double f = sigmoid(inp[i] * W[i] + Bias[i]);
        double ig = sigmoid(h[i] * W[b + i] + Bias[b + i]);
        double o = sigmoid(inp[i] * W[2 * b + i] + Bias[2 * b + i]);
        double ch = std::tanh(h[i] * W[3 * b + i] + Bias[3 * b + i]);
        g[i] = f;
        g[b + i] = ig;
        g[2 * b + i] = o;
        g[3 * b + i] = ch;
        cn[i] = cl[i] * f + ig * ch;
        hn[i] = o * std::tanh(cn[i]);
      }
    }
    const double *hl = &H[(t + 1) * lb + (l - 1) * b];
    double *y = &P[t * b];
    double mx = -INFINITY;
    for (int i = 0; i < b; ++i) {
      y[i] = hl[i] * w2out[i] + w2bias[i];
      mx = y[i] > mx ? y[i] : mx;
    }
    double se = 0;
    for (int i = 0; i < b; ++i)
      se += std::exp(y[i] - mx);
    double lse = std::log(se) + mx;
    const double *gold = sequence + (t + 1) * b;
    for (int i = 0; i < b; ++i) {
      total += gold[i] * (y[i] - lse);
      y[i] = std::exp(y[i] - lse); // keep the softmax for the reverse sweep
    }
  }
  const int count = steps * b;
  const double loss = -total / count;

  // Reverse sweep. dH / dC: adjoints of the states carried to step t - 1.
  const double dtotal = -1.0 / count;
  std::vector<double> dH(lb, 0.0), dC(lb, 0.0), dinp(b), dhn(b);
  for (int t = steps - 1; t >= 0; --t) {
    const double *gold = sequence + (t + 1) * b;
    const double *sm = &P[t * b];
    double gsum = 0;
    for (int i = 0; i < b; ++i)
      gsum += gold[i];
    const double *hl = &H[(t + 1) * lb + (l - 1) * b];
    // total += gold . (y - lse(y)): dy_i = dtotal (gold_i - softmax_i
    // sum(gold))
    for (int i = 0; i < b; ++i) {
      double dy = dtotal * (gold[i] - sm[i] * gsum);
      d_extra_params[b + i] += dy * hl[i];
      d_extra_params[2 * b + i] += dy;
      dhn[i] = dy * w2out[i];
    }
    for (int layer = l - 1; layer >= 0; --layer) {
      const double *W = main_params + 2 * layer * 4 * b;
      double *dW = d_main_params + 2 * layer * 4 * b;
      double *dBias = dW + 4 * b;
      const double *x = sequence + t * b;
      const double *h = &H[t * lb + layer * b];
      const double *cl = &C[t * lb + layer * b];
      const double *cn = &C[(t + 1) * lb + layer * b];
      const double *g = &G[(t * l + layer) * 4 * b];
      double *dh = &dH[layer * b], *dc = &dC[layer * b];
      for (int i = 0; i < b; ++i) {
        double inp = layer == 0 ? x[i] * extra_params[i]
                                : H[(t + 1) * lb + (layer - 1) * b + i];
        double f = g[i], ig = g[b + i], o = g[2 * b + i], ch = g[3 * b + i];
        double tc = std::tanh(cn[i]);
        double dhni = dhn[i] + dh[i]; // from the output and from step t + 1
        double dcn = dc[i] + dhni * o * (1 - tc * tc);
        double da_o = dhni * tc * o * (1 - o);
        double da_f = dcn * cl[i] * f * (1 - f);
        double da_i = dcn * ch * ig * (1 - ig);
        double da_c = dcn * ig * (1 - ch * ch);
        dc[i] = dcn * f; // to the cell state of step t - 1
        dW[i] += da_f * inp;
        dBias[i] += da_f;
        dW[b + i] += da_i * h[i];
        dBias[b + i] += da_i;
        dW[2 * b + i] += da_o * inp;
        dBias[2 * b + i] += da_o;
        dW[3 * b + i] += da_c * h[i];
        dBias[3 * b + i] += da_c;
        dh[i] = da_i * W[b + i] + da_c * W[3 * b + i]; // to step t - 1
        dinp[i] = da_f * W[i] + da_o * W[2 * b + i];
      }
      if (layer > 0)
        for (int i = 0; i < b; ++i)
          dhn[i] = dinp[i]; // the input was the previous layer's output
      else
        for (int i = 0; i < b; ++i)
          d_extra_params[i] += dinp[i] * x[i];
    }
  }
  return loss;
}

} // namespace adbench
