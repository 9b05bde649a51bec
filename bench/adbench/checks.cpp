#include "checks.hpp"
#include "common.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

namespace adbench {

static bool check_value(const std::string &what, double a, const char *na,
                        double b, const char *nb) {
  return check(what + " value", {a}, na, {b}, nb, 1e-12);
}

std::vector<double> gmm_fd_gradient(const GmmInput &in,
                                    std::vector<double> &params) {
  const int k = in.k, d = in.d;
  return central_differences(
      [&](const std::vector<double> &p) {
        return gmm_objective(d, k, in.n, p.data(), p.data() + k,
                             p.data() + k + k * d, in.x.data(), in.gamma, in.m);
      },
      params);
}

bool check_gmm(const std::string &name, const GmmInput &in, bool fd) {
  const int k = in.k, d = in.d, n = in.n;
  std::vector<double> p = in.params();
  const std::size_t np = p.size();
  const double *alphas = p.data(), *means = alphas + k, *icf = means + k * d;
  std::vector<double> gf(np, 0.0), gm(np, 0.0);
  double vp =
      gmm_objective(d, k, n, alphas, means, icf, in.x.data(), in.gamma, in.m);
  double vf =
      gmm_objective_grad(d, k, n, alphas, means, icf, in.x.data(), in.gamma,
                         in.m, gf.data(), gf.data() + k, gf.data() + k + k * d);
  double vm =
      gmm_manual_grad(d, k, n, alphas, means, icf, in.x.data(), in.gamma, in.m,
                      gm.data(), gm.data() + k, gm.data() + k + k * d);
  bool ok = check_value(name, vf, "fluxion", vp, "primal");
  ok &= check_value(name, vm, "manual", vp, "primal");
  ok &= check(name, gf, "fluxion", gm, "manual", AdTol);
  // The std::vector formulation: same value, same gradient.
  std::vector<double> xa(in.alphas.size()), xm(in.means.size()),
      xq(in.icf.size());
  double vv = gmm_objective_vector_grad(d, k, n, in.alphas, in.means, in.icf,
                                        in.x, in.gamma, in.m, &xa, &xm, &xq);
  std::vector<double> gv = xa;
  gv.insert(gv.end(), xm.begin(), xm.end());
  gv.insert(gv.end(), xq.begin(), xq.end());
  ok &= check_value(name, vv, "fluxion-vector", vp, "primal");
  ok &= check(name, gv, "fluxion-vector", gm, "manual", AdTol);
  // The struct formulation: components pointing into the parameters, their
  // adjoints into the gradient (the weights' adjoints in the components).
  {
    std::vector<double> gs(np, 0.0);
    auto comps = gmm_components(d, k, alphas, means, icf);
    auto dcomps = gmm_components(d, k, gs.data(), gs.data() + k,
                                 gs.data() + k + k * d);
    for (auto &c : dcomps)
      c.alpha = 0;
    GmmData data{d, n, in.x.data()};
    GmmWishart prior{in.gamma, in.m};
    double vs = gmm_objective_struct_grad(data, comps.data(), k, prior,
                                          dcomps.data());
    for (int ik = 0; ik < k; ++ik)
      gs[ik] = dcomps[ik].alpha;
    ok &= check_value(name, vs, "fluxion-struct", vp, "primal");
    ok &= check_value(name, gmm_objective_struct(data, comps.data(), k, prior),
                      "struct", vp, "primal");
    ok &= check(name, gs, "fluxion-struct", gm, "manual", AdTol);
  }
  // The one-function formulation with inline loops: same again.
  std::vector<double> gi(np, 0.0);
  double vi = gmm_objective_inline_grad(d, k, n, alphas, means, icf,
                                        in.x.data(), in.gamma, in.m,
                                        gi.data(), gi.data() + k,
                                        gi.data() + k + k * d);
  ok &= check_value(name, vi, "fluxion-inline", vp, "primal");
  ok &= check_value(name,
                    gmm_objective_inline(d, k, n, alphas, means, icf,
                                         in.x.data(), in.gamma, in.m),
                    "inline", vp, "primal");
  ok &= check(name, gi, "fluxion-inline", gm, "manual", AdTol);
#ifdef FLUXION_ADBENCH_ADOLC
  std::vector<double> ga(np), gr(np);
  double va = gmm_adolc_tape_and_gradient(in, GmmTag, ga.data());
  gmm_adolc_gradient(GmmTag, p, gr.data());
  ok &= check_value(name, va, "adolc", vp, "primal");
  ok &= check(name, ga, "adolc", gm, "manual", AdTol);
  ok &= check(name, gr, "adolc-tape", gm, "manual", AdTol);
#endif
  if (fd)
    ok &= check(name, gmm_fd_gradient(in, p), "fd", gm, "manual", FdTol);
  return ok;
}

void ba_fd_block(const BaInput &in, int i, double *block) {
  double x[BaBlockCols];
  const double *cam = &in.cams[BaCamSize * in.obs[2 * i]];
  const double *X = &in.X[3 * in.obs[2 * i + 1]];
  for (int j = 0; j < BaCamSize; ++j)
    x[j] = cam[j];
  for (int j = 0; j < 3; ++j)
    x[BaCamSize + j] = X[j];
  x[BaCamSize + 3] = in.w[i];
  const double *feat = &in.feats[2 * i];
  for (int j = 0; j < BaBlockCols; ++j) {
    double xj = x[j], h = 1e-6 * std::fmax(1.0, std::fabs(xj)), up[2], dn[2];
    x[j] = xj + h;
    ba_residual(x, x + BaCamSize, x[BaCamSize + 3], feat, up);
    x[j] = xj - h;
    ba_residual(x, x + BaCamSize, x[BaCamSize + 3], feat, dn);
    x[j] = xj;
    block[j] = (up[0] - dn[0]) / (2 * h);
    block[BaBlockCols + j] = (up[1] - dn[1]) / (2 * h);
  }
}

bool check_ba(const std::string &name, const BaInput &in, int fd_observations) {
  const int p = in.p;
  std::vector<double> e0(2 * p), w0(p), ef(2 * p), wf(p), em(2 * p), wm(p);
  BaJacobian Jf, Jm;
  Jf.resize(p);
  Jm.resize(p);
  ba_objective(in, e0.data(), w0.data());
  ba_fluxion_jacobian(in, ef.data(), wf.data(), Jf);
  ba_manual_jacobian(in, em.data(), wm.data(), Jm);
  bool ok = check(name + " residuals", ef, "fluxion", e0, "primal", 1e-14);
  ok &= check(name + " residuals", em, "manual", e0, "primal", 1e-14);
  ok &= check(name + " weight res.", wf, "fluxion", w0, "primal", 1e-14);
  ok &= check(name + " weight res.", wm, "manual", w0, "primal", 1e-14);
  ok &= check(name + " Jacobian", Jf.flat(), "fluxion", Jm.flat(), "manual",
              AdTol);
  std::vector<double> eS(2 * p), wS(p);
  BaJacobian JS;
  JS.resize(p);
  ba_fluxion_struct_jacobian(ba_make_model(in), eS.data(), wS.data(), JS);
  ok &= check(name + " residuals", eS, "fluxion_struct", e0, "primal", 1e-14);
  ok &= check(name + " Jacobian", JS.flat(), "fluxion_struct", Jm.flat(),
              "manual", AdTol);
#ifdef FLUXION_ADBENCH_EIGEN
  std::vector<double> eE(2 * p), wE(p);
  BaJacobian JE;
  JE.resize(p);
  ba_fluxion_eigen_jacobian(in, eE.data(), wE.data(), JE);
  ok &= check(name + " residuals", eE, "fluxion_eigen", e0, "primal", 1e-14);
  ok &= check(name + " Jacobian", JE.flat(), "fluxion_eigen", Jm.flat(),
              "manual", AdTol);
#endif
#ifdef FLUXION_ADBENCH_ADOLC
  std::vector<double> ea(2 * p), wa(p);
  BaJacobian Ja;
  Ja.resize(p);
  ba_adolc_jacobian(in, ea.data(), wa.data(), Ja);
  ok &= check(name + " residuals", ea, "adolc", e0, "primal", 1e-14);
  ok &=
      check(name + " Jacobian", Ja.flat(), "adolc", Jm.flat(), "manual", AdTol);
#endif
  if (fd_observations > 0) {
    const int nobs = fd_observations < p ? fd_observations : p;
    std::vector<double> fdJ(2 * BaBlockCols * nobs), mJ(2 * BaBlockCols * nobs),
        fdW(nobs), mW(nobs);
    for (int i = 0; i < nobs; ++i) {
      ba_fd_block(in, i, &fdJ[2 * BaBlockCols * i]);
      for (int j = 0; j < 2 * BaBlockCols; ++j)
        mJ[2 * BaBlockCols * i + j] = Jm.reproj[2 * BaBlockCols * i + j];
      double h = 1e-6 * std::fmax(1.0, std::fabs(in.w[i]));
      fdW[i] = ((1 - (in.w[i] + h) * (in.w[i] + h)) -
                (1 - (in.w[i] - h) * (in.w[i] - h))) /
               (2 * h);
      mW[i] = Jm.weight[i];
    }
    ok &= check(name + " Jacobian", fdJ, "fd", mJ, "manual", FdTol);
    ok &= check(name + " weight Jac.", fdW, "fd", mW, "manual", FdTol);
  }
  return ok;
}

std::vector<double> lstm_fd_gradient(const LstmInput &in,
                                     std::vector<double> &params) {
  const std::size_t nm = in.main_params.size();
  return central_differences(
      [&](const std::vector<double> &p) {
        return lstm_objective(in.l, in.c, in.b, p.data(), p.data() + nm,
                              in.state.data(), in.sequence.data());
      },
      params);
}

bool check_lstm(const std::string &name, const LstmInput &in, bool fd) {
  std::vector<double> p = in.params();
  const std::size_t np = p.size(), nm = in.main_params.size();
  std::vector<double> gf(np, 0.0), gm(np, 0.0);
  double vp = lstm_objective(in.l, in.c, in.b, p.data(), p.data() + nm,
                             in.state.data(), in.sequence.data());
  double vf = lstm_objective_grad(in.l, in.c, in.b, p.data(), p.data() + nm,
                                  in.state.data(), in.sequence.data(),
                                  gf.data(), gf.data() + nm);
  double vm = lstm_manual_grad(in.l, in.c, in.b, p.data(), p.data() + nm,
                               in.state.data(), in.sequence.data(), gm.data(),
                               gm.data() + nm);
  bool ok = check_value(name, vf, "fluxion", vp, "primal");
  ok &= check_value(name, vm, "manual", vp, "primal");
  ok &= check(name, gf, "fluxion", gm, "manual", AdTol);
  // The std::vector formulation: same value, same gradient.
  std::vector<double> vmain(nm), vextra(np - nm);
  double vv = lstm_objective_vector_grad(in.l, in.c, in.b, in.main_params,
                                         in.extra_params, in.state,
                                         in.sequence, &vmain, &vextra);
  std::vector<double> gv = vmain;
  gv.insert(gv.end(), vextra.begin(), vextra.end());
  ok &= check_value(name, vv, "fluxion-vector", vp, "primal");
  ok &= check_value(name,
                    lstm_objective_vector(in.l, in.c, in.b, in.main_params,
                                          in.extra_params, in.state,
                                          in.sequence),
                    "vector", vp, "primal");
  ok &= check(name, gv, "fluxion-vector", gm, "manual", AdTol);
#ifdef FLUXION_ADBENCH_ADOLC
  std::vector<double> ga(np), gr(np);
  double va = lstm_adolc_tape_and_gradient(in, LstmTag, ga.data());
  lstm_adolc_gradient(LstmTag, p, gr.data());
  ok &= check_value(name, va, "adolc", vp, "primal");
  ok &= check(name, ga, "adolc", gm, "manual", AdTol);
  ok &= check(name, gr, "adolc-tape", gm, "manual", AdTol);
#endif
  if (fd)
    ok &= check(name, lstm_fd_gradient(in, p), "fd", gm, "manual", FdTol);
  return ok;
}

std::vector<double> burgers_fd_gradient(const BurgersInput &in,
                                        std::vector<double> &params) {
  return central_differences(
      [&](const std::vector<double> &p) {
        return burgers_loss(p.data(), in.n, in.steps, p[in.n], in.dt, in.dx);
      },
      params);
}

bool check_burgers(const std::string &name, const BurgersInput &in, bool fd) {
  const int n = in.n;
  std::vector<double> gf(n + 1, 0.0), gm(n + 1, 0.0);
  std::size_t stored = 0;
  double vp = burgers_loss(in.u0.data(), n, in.steps, in.nu, in.dt, in.dx);
  double vf = burgers_loss_grad(in.u0.data(), n, in.steps, in.nu, in.dt, in.dx,
                                gf.data(), &gf[n]);
  double vm = burgers_manual_grad(in.u0.data(), n, in.steps, in.nu, in.dt,
                                  in.dx, gm.data(), &gm[n], &stored);
  bool ok = check_value(name, vf, "fluxion", vp, "primal");
  ok &= check_value(name, vm, "manual", vp, "primal");
  ok &= check(name, gf, "fluxion", gm, "manual", AdTol);
#ifdef FLUXION_ADBENCH_ADOLC
  std::vector<double> ga(n + 1);
  double va =
      burgers_adolc_tape_and_gradient(in, BurgersTag, ga.data(), &stored);
  ok &= check_value(name, va, "adolc", vp, "primal");
  ok &= check(name, ga, "adolc", gm, "manual", AdTol);
#endif
  if (fd) {
    std::vector<double> p(in.u0);
    p.push_back(in.nu);
    ok &= check(name, burgers_fd_gradient(in, p), "fd", gm, "manual", FdTol);
  }
  return ok;
}

} // namespace adbench
