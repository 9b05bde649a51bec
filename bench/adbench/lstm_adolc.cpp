// LSTM with ADOL-C: the loss templated on the scalar type (same algorithm as
// lstm.cpp), recorded with adouble and reversed with ADOL-C's drivers.
#include "lstm.hpp"

#include <adolc/adolc.h>

#include <cmath>
#include <vector>

namespace adbench {
namespace {

template <class T> T sigmoid(const T &x) { return 1 / (1 + exp(-x)); }

template <class T>
T objective(int l, int c, int b, const T *w, const T *w2, const double *state,
            const double *sequence) {
  std::vector<T> s(state, state + 2 * l * b), x2(b);
  T total = 0;
  for (int t = 0; t < c - 1; ++t) {
    const double *x = sequence + t * b;
    for (int i = 0; i < b; ++i)
      x2[i] = x[i] * w2[i];
    for (int layer = 0; layer < l; ++layer) {
      const T *W = w + 2 * layer * 4 * b, *Bias = W + 4 * b;
      T *h = &s[2 * layer * b], *cl = &s[(2 * layer + 1) * b];
      for (int i = 0; i < b; ++i) {
        T forget = sigmoid(x2[i] * W[i] + Bias[i]);
        T ingate = sigmoid(h[i] * W[b + i] + Bias[b + i]);
        T outgate = sigmoid(x2[i] * W[2 * b + i] + Bias[2 * b + i]);
        T change = tanh(h[i] * W[3 * b + i] + Bias[3 * b + i]);
        cl[i] = cl[i] * forget + ingate * change;
        h[i] = outgate * tanh(cl[i]);
      }
      for (int i = 0; i < b; ++i)
        x2[i] = h[i];
    }
    for (int i = 0; i < b; ++i)
      x2[i] = x2[i] * w2[b + i] + w2[2 * b + i];
    T mx = x2[0];
    for (int i = 1; i < b; ++i)
      if (x2[i] > mx)
        mx = x2[i];
    T se = 0;
    for (int i = 0; i < b; ++i)
      se += exp(x2[i] - mx);
    T lse = log(se) + mx;
    for (int i = 0; i < b; ++i)
      total += sequence[(t + 1) * b + i] * (x2[i] - lse);
  }
  return -total / ((c - 1) * b);
}

} // namespace

double lstm_adolc_tape_and_gradient(const LstmInput &in, short tag,
                                    double *grad) {
  std::vector<double> p = in.params();
  const int np = static_cast<int>(p.size());
  std::vector<adouble> ap(np);
  double value = 0;
  trace_on(tag, 1); // keep the forward values for the reverse sweep
  for (int i = 0; i < np; ++i)
    ap[i] <<= p[i];
  adouble f = objective<adouble>(in.l, in.c, in.b, ap.data(),
                                 ap.data() + in.main_params.size(),
                                 in.state.data(), in.sequence.data());
  f >>= value;
  trace_off();
  double seed = 1.0;
  fos_reverse(tag, 1, np, &seed, grad);
  return value;
}

void lstm_adolc_gradient(short tag, const std::vector<double> &params,
                         double *grad) {
  gradient(tag, static_cast<int>(params.size()), params.data(), grad);
}

} // namespace adbench
