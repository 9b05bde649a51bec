// With LLVM's libc++ instead of libstdc++: the plugin follows libc++'s
// iterators, algorithms and <cmath>, and fluxion-gen's output (made against
// libc++) names no library internals, so clang++ -stdlib=libc++ compiles
// it and it computes what the plugin build computes.
// REQUIRES: libcxx
// RUN: %clangxx -stdlib=libc++ %fluxion %s -o %t.plugin
// RUN: %t.plugin > %t.plugin.out
// RUN: %fluxion-gen %s -o %t.cpp -- -std=c++17 -stdlib=libc++ -I%fluxion-include
// RUN: grep -v '^ *//' %t.cpp | not grep -nE 'std::__|__gnu_cxx|__wrap_iter'
// RUN: %clangxx -stdlib=libc++ -Wall -Werror %t.cpp -o %t.gen
// RUN: %t.gen > %t.gen.out
// RUN: diff %t.plugin.out %t.gen.out
// RUN: %FileCheck %s < %t.gen.out
#include <fluxion/fluxion.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

[[fluxion::grad]] [[fluxion::jvp]] double
model(const std::vector<double> &x, double k) {
  std::vector<double> y(x.size());
  std::transform(x.begin(), x.end(), y.begin(),
                 [k](double v) { return std::tanh(k * v); });
  double s = 0;
  for (auto it = y.begin(); it != y.end(); ++it)
    s += *it * double(it - y.begin() + 1);
  std::sort(y.begin(), y.end());
  s += std::accumulate(y.begin(), y.end(), 0.0) * std::max({y[0], k, 0.5});
  s += std::hypot(x[0], x[1], k) + std::lgamma(2 + x[2] * x[2]);
  return s + *std::max_element(x.begin(), x.end());
}

int main() {
  std::vector<double> x = {0.3, -1.2, 0.8}, dx(3);
  double dk = 0;
  double f = model_grad(x, 0.7, &dx, &dk);
  std::vector<double> tx = {1, 0, 0};
  double t = model_jvp(x, 0.7, &tx, 0.0);
  // CHECK: f=[[F:[-0-9.]+]] dx=[[DX0:[-0-9.]+]] [[DX1:[-0-9.]+]] [[DX2:[-0-9.]+]] dk=[[DK:[-0-9.]+]]
  std::printf("f=%.12f dx=%.12f %.12f %.12f dk=%.12f\n", f, dx[0], dx[1],
              dx[2], dk);
  // CHECK: jvp=[[DX0]]
  std::printf("jvp=%.12f\n", t);
  // Central differences agree to 1e-6.
  double h = 1e-6;
  std::vector<double> xp = x, xm = x;
  xp[0] += h, xm[0] -= h;
  // CHECK: fd=ok
  std::printf("fd=%s\n",
              std::fabs((model(xp, 0.7) - model(xm, 0.7)) / (2 * h) - dx[0]) <
                      1e-6
                  ? "ok"
                  : "off");
}
