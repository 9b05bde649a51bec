// A one-hidden-layer network written as modern C++ code is: parameters,
// data and the hidden layer in std::vector, a template activation, a lambda,
// std::max, range-based for loops. Fluxion differentiates the mean loss over a mini-batch with
// respect to every weight (the adjoint of a std::vector is a std::vector of
// the same size), a few steps of gradient descent run on it, and the
// gradient is checked against finite differences with
// fluxion::check_gradient. Exits non-zero if the check fails or the loss
// does not drop.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

template <class T> T softplus(T z) {
  // log(1 + e^z), without overflow for large z.
  return std::max(z, T(0)) + std::log1p(std::exp(-std::abs(z)));
}

// Mean squared error of y_s = v . h(x_s) + c over the batch, plus a little
// weight decay.
[[fluxion::grad("W", "b", "v", "c")]] double
batch_loss(const std::vector<double> &W, const std::vector<double> &b,
           const std::vector<double> &v, double c,
           const std::vector<double> &X, const std::vector<double> &y) {
  std::size_t n = X.size() / y.size();
  std::vector<double> h(b.size()); // the hidden layer, reused per sample
  double loss = 0;
  auto squared = [](double r) { return r * r; };
  for (std::size_t s = 0; s < y.size(); ++s) {
    for (std::size_t j = 0; j < h.size(); ++j) {
      double z = b[j];
      for (std::size_t k = 0; k < n; ++k)
        z += W[j * n + k] * X[s * n + k];
      h[j] = softplus(z);
    }
    double out = c;
    for (std::size_t j = 0; j < h.size(); ++j)
      out += v[j] * h[j];
    loss += squared(out - y[s]);
  }
  double decay = 0;
  for (double w : W)
    decay += w * w;
  return loss / double(y.size()) + 1e-3 * decay;
}

int main() {
  const int n = 2, width = 4, batch = 16;
  std::vector<double> X, y;
  for (int s = 0; s < batch; ++s) {
    double a = -1 + 2.0 * s / (batch - 1), t = std::sin(3.0 * s);
    X.push_back(a);
    X.push_back(t);
    y.push_back(a * a - 0.5 * t);
  }
  std::vector<double> W(n * width), b(width, 0.1), v(width);
  for (std::size_t i = 0; i < W.size(); ++i)
    W[i] = 0.5 * std::cos(1.7 * double(i));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = 0.3 * std::sin(2.3 * double(i) + 1);
  double c = 0;

  auto Report = fluxion::check_gradient(batch_loss, batch_loss_grad, W, b, v,
                                        c, fluxion::constant(X),
                                        fluxion::constant(y));
  std::cout << Report;
  if (!Report.ok())
    return 1;

  double first = batch_loss(W, b, v, c, X, y), last = first;
  for (int step = 0; step < 200; ++step) {
    std::vector<double> dW(W.size()), db(b.size()), dv(v.size());
    double dc = 0;
    last = batch_loss_grad(W, b, v, c, X, y, &dW, &db, &dv, &dc);
    for (std::size_t i = 0; i < W.size(); ++i)
      W[i] -= 0.1 * dW[i];
    for (std::size_t i = 0; i < b.size(); ++i)
      b[i] -= 0.1 * db[i];
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] -= 0.1 * dv[i];
    c -= 0.1 * dc;
  }
  std::printf("loss %.5f -> %.5f after 200 steps\n", first, last);
  return last < 0.5 * first ? 0 : 1;
}
