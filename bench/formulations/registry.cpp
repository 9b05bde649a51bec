// The cross-check shared by every program, and the problem dispatcher.
#include "registry.hpp"

#include "common.hpp" // bench/adbench: compare, check, central_differences

#include <cmath>
#include <cstdio>

namespace formulations {

namespace {
/// AD methods of one formulation compute the same numbers up to rounding;
/// two formulations compute them in other orders (and the long time loops
/// carry the rounding along); central differences carry truncation and
/// cancellation errors.
constexpr double AdTol = 1e-10;
constexpr double CrossTol = 1e-8;
constexpr double FdTol = 1e-5;
} // namespace

const Method *Formulation::find(const std::string &method) const {
  for (const Method &M : methods)
    if (M.name == method)
      return &M;
  return nullptr;
}

std::vector<Instance> instances(const std::string &problem, bool check) {
  if (problem == "burgers")
    return burgers_instances(check);
  if (problem == "gmm")
    return gmm_instances(check);
  if (problem == "lstm")
    return lstm_instances(check);
  if (problem == "ba")
    return ba_instances(check);
  return {};
}

bool cross_check(const Instance &inst) {
  using adbench::check;
  bool ok = true;
  const std::string where = inst.problem + " " + inst.size;
  std::vector<double> reference;
  double referenceValue = 0;
  for (const Formulation &F : inst.formulations) {
    const std::string what = where + " " + F.name;
    std::vector<double> manual;
    double manualValue = 0;
    for (const Method &M : F.methods) {
      std::vector<double> out(inst.outputs, 0.0);
      std::size_t bytes = 0;
      const double value = M.run(out.data(), &bytes);
      if (M.name == "manual") {
        manual = out;
        manualValue = value;
        continue;
      }
      ok &= check(what + " value", {value}, M.name.c_str(), {manualValue},
                  "manual", 1e-12);
      ok &= check(what, out, M.name.c_str(), manual, "manual", AdTol);
    }
    if (F.primal) {
      std::vector<double> p = inst.params;
      ok &= check(what + " value", {F.primal(p)}, "primal", {manualValue},
                  "manual", 1e-12);
      if (inst.fd)
        ok &= check(what, adbench::central_differences(F.primal, p), "fd",
                    manual, "manual", FdTol);
    }
    if (F.jacobianFd && inst.fd) {
      std::vector<double> fd = F.jacobianFd();
      std::vector<double> head(manual.begin(), manual.begin() + fd.size());
      ok &= check(what + " head", fd, "fd", head, "manual", FdTol);
    }
    if (reference.empty()) {
      reference = manual;
      referenceValue = manualValue;
    } else {
      const std::string first = inst.formulations.front().name;
      ok &= check(what + " value", {manualValue}, "manual", {referenceValue},
                  first.c_str(), 1e-11);
      ok &= check(what, manual, "manual", reference, first.c_str(), CrossTol);
    }
  }
  return ok;
}

} // namespace formulations
