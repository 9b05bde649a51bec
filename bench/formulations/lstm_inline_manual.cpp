// Hand-written adjoint of the inline LSTM formulation (lstm_inline.cpp),
// one function like it. The forward sweep keeps what the reverse sweep
// cannot get back cheaply: the hidden and cell states of every layer before
// every step (the new ones are the next step's), the four squashed gates
// and the softmax of each prediction: 6 l b + b doubles per step. The
// reverse sweep carries the adjoints of the states from one step to the
// previous one.
#include "lstm_forms.hpp"

#include <cmath>
#include <vector>

namespace formulations {

double lstm_inline_manual(int l, int c, int b, const double *main_params,
                          const double *extra_params, const double *state,
                          const double *sequence, double *d_main_params,
                          double *d_extra_params, std::size_t *bytes) {
  const int steps = c - 1, lb = l * b;
  // H[t], C[t]: states of all layers before step t; G[t]: gates of all
  // layers at step t; S[t]: softmax of the prediction of step t.
  std::vector<double> H((steps + 1) * lb), C((steps + 1) * lb),
      G(steps * 4 * lb), S(steps * b), input(b);
  for (int layer = 0; layer < l; ++layer)
    for (int i = 0; i < b; ++i) {
      H[layer * b + i] = state[2 * layer * b + i];
      C[layer * b + i] = state[(2 * layer + 1) * b + i];
    }
  double loss = 0;
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < b; ++i)
      input[i] = sequence[t * b + i] * extra_params[i];
    for (int layer = 0; layer < l; ++layer) {
      const double *w = main_params + 8 * layer * b, *bias = w + 4 * b;
      const double *h = &H[t * lb + layer * b], *cl = &C[t * lb + layer * b];
      double *hn = &H[(t + 1) * lb + layer * b];
      double *cn = &C[(t + 1) * lb + layer * b];
      double *g = &G[(t * l + layer) * 4 * b];
      for (int gate = 0; gate < 4; ++gate)
        for (int i = 0; i < b; ++i) {
          const double src = gate % 2 == 0 ? input[i] : h[i];
          g[gate * b + i] = src * w[gate * b + i] + bias[gate * b + i];
        }
      for (int i = 0; i < 3 * b; ++i)
        g[i] = 1 / (1 + std::exp(-g[i]));
      for (int i = 3 * b; i < 4 * b; ++i)
        g[i] = std::tanh(g[i]);
      for (int i = 0; i < b; ++i) {
        cn[i] = cl[i] * g[i] + g[b + i] * g[3 * b + i];
        hn[i] = g[2 * b + i] * std::tanh(cn[i]);
        input[i] = hn[i];
      }
    }
    double *s = &S[t * b];
    for (int i = 0; i < b; ++i)
      s[i] = input[i] * extra_params[b + i] + extra_params[2 * b + i];
    double mx = s[0];
    for (int i = 1; i < b; ++i)
      if (s[i] > mx)
        mx = s[i];
    double se = 0;
    for (int i = 0; i < b; ++i)
      se += std::exp(s[i] - mx);
    const double lse = mx + std::log(se);
    for (int i = 0; i < b; ++i) {
      loss -= sequence[(t + 1) * b + i] * (s[i] - lse);
      s[i] = std::exp(s[i] - lse);
    }
  }
  const double count = double(steps) * b;

  // Reverse. dH, dC: adjoints of the states before step t + 1.
  std::vector<double> dH(lb, 0.0), dC(lb, 0.0), dinput(b);
  const double dloss = 1 / count;
  for (int t = steps - 1; t >= 0; --t) {
    const double *gold = sequence + (t + 1) * b, *s = &S[t * b];
    const double *hl = &H[(t + 1) * lb + (l - 1) * b];
    double gsum = 0;
    for (int i = 0; i < b; ++i)
      gsum += gold[i];
    for (int i = 0; i < b; ++i) {
      // loss -= gold . (y - lse(y)): dy = dloss (softmax sum(gold) - gold)
      const double dy = dloss * (s[i] * gsum - gold[i]);
      d_extra_params[b + i] += dy * hl[i];
      d_extra_params[2 * b + i] += dy;
      dinput[i] = dy * extra_params[b + i];
    }
    for (int layer = l - 1; layer >= 0; --layer) {
      const double *w = main_params + 8 * layer * b;
      double *dw = d_main_params + 8 * layer * b, *dbias = dw + 4 * b;
      const double *h = &H[t * lb + layer * b], *cl = &C[t * lb + layer * b];
      const double *cn = &C[(t + 1) * lb + layer * b];
      const double *g = &G[(t * l + layer) * 4 * b];
      double *dh = &dH[layer * b], *dc = &dC[layer * b];
      for (int i = 0; i < b; ++i) {
        const double in = layer == 0 ? sequence[t * b + i] * extra_params[i]
                                     : H[(t + 1) * lb + (layer - 1) * b + i];
        const double f = g[i], ig = g[b + i], o = g[2 * b + i],
                     ch = g[3 * b + i];
        const double tc = std::tanh(cn[i]);
        const double dhn = dinput[i] + dh[i];
        const double dcn = dc[i] + dhn * o * (1 - tc * tc);
        const double da[4] = {dcn * cl[i] * f * (1 - f),
                              dcn * ch * ig * (1 - ig), dhn * tc * o * (1 - o),
                              dcn * ig * (1 - ch * ch)};
        dc[i] = dcn * f;
        dh[i] = da[1] * w[b + i] + da[3] * w[3 * b + i];
        for (int gate = 0; gate < 4; ++gate) {
          dw[gate * b + i] += da[gate] * (gate % 2 == 0 ? in : h[i]);
          dbias[gate * b + i] += da[gate];
        }
        dinput[i] = da[0] * w[i] + da[2] * w[2 * b + i];
      }
      if (layer == 0)
        for (int i = 0; i < b; ++i)
          d_extra_params[i] += dinput[i] * sequence[t * b + i];
    }
  }
  *bytes =
      (H.size() - lb + C.size() - lb + G.size() + S.size()) * sizeof(double);
  return loss / count;
}

} // namespace formulations
