// The first call of a gradient in a process against a warm one.
//
//   fluxion_first_call <problem> <method>
//     problem: gmm (d = 64, K = 25, n = 1000), gmm_vector (the same through
//              std::vector parameters), gmm_inline (the same as one function
//              with inline loops, gmm_inline.cpp), lstm (l = 4, c = 4096, b = 14),
//              burgers (n = 256, 10^4 steps)
//     method:  fluxion (the generated gradient) or manual (the hand-written
//              adjoint)
//
// Prints one line: `<problem> <method> first_s=<s> warm_s=<s>` where warm_s
// is the median of 9 calls after the first. A scientific code that takes
// one gradient per process pays first_s: the tape's memory is fresh there,
// and a warm call reuses it. bench/first_call.sh runs this program in fresh
// processes and writes the table of bench/RESULTS.md. Inputs and outputs
// are allocated and written before the first call, so it times the
// derivative alone. Derivatives are cross-checked by fluxion_adbench_check,
// not here.
#include "burgers.hpp"
#include "gmm.hpp"
#include "lstm.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace adbench;

namespace {

volatile double Sink;

/// A gradient call; `zero` clears its outputs (not timed).
struct Call {
  std::function<void()> zero;
  std::function<double()> run;
};

Call gmmCall(const GmmInput &in, bool fluxion, bool vector, bool inl) {
  auto a = std::make_shared<std::vector<double>>(in.alphas.size());
  auto m = std::make_shared<std::vector<double>>(in.means.size());
  auto q = std::make_shared<std::vector<double>>(in.icf.size());
  Call c;
  c.zero = [=] {
    std::fill(a->begin(), a->end(), 0.0);
    std::fill(m->begin(), m->end(), 0.0);
    std::fill(q->begin(), q->end(), 0.0);
  };
  if (vector)
    c.run = [=, &in] {
      return gmm_objective_vector_grad(in.d, in.k, in.n, in.alphas, in.means,
                                       in.icf, in.x, in.gamma, in.m, a.get(),
                                       m.get(), q.get());
    };
  else
    c.run = [=, &in] {
      auto grad = inl       ? gmm_objective_inline_grad
                  : fluxion ? gmm_objective_grad
                            : gmm_manual_grad;
      return grad(in.d, in.k, in.n, in.alphas.data(), in.means.data(),
                  in.icf.data(), in.x.data(), in.gamma, in.m, a->data(),
                  m->data(), q->data());
    };
  return c;
}

Call lstmCall(const LstmInput &in, bool fluxion) {
  auto dm = std::make_shared<std::vector<double>>(in.main_params.size());
  auto de = std::make_shared<std::vector<double>>(in.extra_params.size());
  Call c;
  c.zero = [=] {
    std::fill(dm->begin(), dm->end(), 0.0);
    std::fill(de->begin(), de->end(), 0.0);
  };
  c.run = [=, &in] {
    auto grad = fluxion ? lstm_objective_grad : lstm_manual_grad;
    return grad(in.l, in.c, in.b, in.main_params.data(),
                in.extra_params.data(), in.state.data(), in.sequence.data(),
                dm->data(), de->data());
  };
  return c;
}

Call burgersCall(const BurgersInput &in, bool fluxion) {
  auto g = std::make_shared<std::vector<double>>(in.n + 1);
  Call c;
  c.zero = [=] { std::fill(g->begin(), g->end(), 0.0); };
  c.run = [=, &in] {
    double *d = g->data();
    if (fluxion)
      return burgers_loss_grad(in.u0.data(), in.n, in.steps, in.nu, in.dt,
                               in.dx, d, d + in.n);
    std::size_t stored = 0;
    return burgers_manual_grad(in.u0.data(), in.n, in.steps, in.nu, in.dt,
                               in.dx, d, d + in.n, &stored);
  };
  return c;
}

double seconds(const Call &c) {
  c.zero();
  auto t0 = std::chrono::steady_clock::now();
  Sink = c.run();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3 || (std::strcmp(argv[2], "fluxion") != 0 &&
                    std::strcmp(argv[2], "manual") != 0)) {
    std::fprintf(stderr, "usage: %s gmm|gmm_vector|gmm_inline|lstm|burgers "
                         "fluxion|manual\n", argv[0]);
    return 1;
  }
  const std::string problem = argv[1];
  const bool fluxion = std::strcmp(argv[2], "fluxion") == 0;
  // Inputs live for the whole run; the calls refer to them.
  GmmInput gmm;
  LstmInput lstm;
  BurgersInput burgers;
  Call call;
  if (problem == "gmm" || problem == "gmm_vector" ||
      problem == "gmm_inline") {
    if (problem != "gmm" && !fluxion) {
      std::fprintf(stderr, "%s has no hand-written adjoint of its own: "
                           "compare it with gmm manual\n", problem.c_str());
      return 1;
    }
    gmm = gmm_make_input(64, 25, 1000, 1000 + 64 * 100 + 25);
    call = gmmCall(gmm, fluxion, problem == "gmm_vector",
                   problem == "gmm_inline");
  } else if (problem == "lstm") {
    lstm = lstm_make_input(4, 4096, 14, 3000 + 10 * 4 + 4096);
    call = lstmCall(lstm, fluxion);
  } else if (problem == "burgers") {
    burgers = burgers_make_input(256, 10000, 4000 + 10000);
    call = burgersCall(burgers, fluxion);
  } else {
    std::fprintf(stderr, "unknown problem '%s'\n", problem.c_str());
    return 1;
  }
  const double first = seconds(call);
  std::vector<double> warm;
  for (int i = 0; i < 9; ++i)
    warm.push_back(seconds(call));
  std::nth_element(warm.begin(), warm.begin() + 4, warm.end());
  std::printf("%s %s first_s=%.6f warm_s=%.6f\n", problem.c_str(), argv[2],
              first, warm[4]);
  return 0;
}
