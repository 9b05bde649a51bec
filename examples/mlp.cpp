// A two-layer perceptron in plain C++: `struct Layer { int in, out; ... }`
// with a forward() method, a network of two layers, and the mean squared
// error over a mini-batch. Fluxion differentiates the loss with respect to
// every weight and bias (the adjoint of a Net is a Net), a few steps of
// gradient descent run on it, and the gradient is checked against finite
// differences with fluxion::check_gradient.
#include <fluxion/check.hpp>
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

constexpr int kMaxWidth = 8;

struct Layer {
  int in, out;
  double w[kMaxWidth][kMaxWidth];
  double b[kMaxWidth];

  // y = tanh(W x + b), or W x + b for the output layer.
  void forward(const double *x, double *y, bool activate) const {
    for (int i = 0; i < out; ++i) {
      double s = b[i];
      for (int j = 0; j < in; ++j)
        s += w[i][j] * x[j];
      y[i] = activate ? std::tanh(s) : s;
    }
  }
};

struct Net {
  Layer hidden, output;
};

// Mean squared error of the network on `batch` samples of 3 inputs, one
// target each.
[[fluxion::grad("net")]] double loss(const Net &net, const double *xs,
                                     const double *ys, int batch) {
  double total = 0;
  for (int s = 0; s < batch; ++s) {
    double h[kMaxWidth], y[kMaxWidth];
    net.hidden.forward(xs + 3 * s, h, true);
    net.output.forward(h, y, false);
    double r = y[0] - ys[s];
    total += r * r;
  }
  return total / batch;
}

int main() {
  Net net{};
  net.hidden.in = 3;
  net.hidden.out = 5;
  net.output.in = 5;
  net.output.out = 1;
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 3; ++j)
      net.hidden.w[i][j] = 0.3 * std::sin(1.7 * i + 0.9 * j + 0.2);
    net.hidden.b[i] = 0.05 * i;
    net.output.w[0][i] = 0.4 * std::cos(0.8 * i);
  }
  const int batch = 6;
  double xs[3 * batch], ys[batch];
  for (int s = 0; s < batch; ++s) {
    for (int j = 0; j < 3; ++j)
      xs[3 * s + j] = std::sin(0.5 * s + j);
    ys[s] = xs[3 * s] * xs[3 * s + 1] - 0.5 * xs[3 * s + 2];
  }

  // A few steps of plain gradient descent on every weight and bias.
  for (int step = 0; step < 5; ++step) {
    Net d{}; // the adjoint of a Net is a Net, zeroed by the caller
    double l = loss_grad(net, xs, ys, batch, &d);
    std::printf("step %d: loss %.6f\n", step, l);
    for (Layer *layer : {&net.hidden, &net.output})
      for (int i = 0; i < layer->out; ++i) {
        Layer &g = layer == &net.hidden ? d.hidden : d.output;
        layer->b[i] -= 0.5 * g.b[i];
        for (int j = 0; j < layer->in; ++j)
          layer->w[i][j] -= 0.5 * g.w[i][j];
      }
  }

  auto report = fluxion::check_gradient(loss, loss_grad, net,
                                        fluxion::constant(xs),
                                        fluxion::constant(ys), batch);
  std::cout << report;
  std::printf("%s\n", report.ok() ? "gradient matches finite differences"
                                  : "MISMATCH");
  return report.ok() ? 0 : 1;
}
