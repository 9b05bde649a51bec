// The corpus as data: for each problem and size, its formulations, and for
// each formulation the methods that differentiate it (the generated
// gradient, the formulation's hand-written adjoint, ADOL-C where built).
// The cross-check (check_main.cpp), the benchmark (bench_main.cpp) and the
// first-call program (first_call_main.cpp) all walk these tables.
#ifndef FLUXION_FORMULATIONS_REGISTRY_HPP
#define FLUXION_FORMULATIONS_REGISTRY_HPP

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace formulations {

/// One way of computing a formulation's derivative.
struct Method {
  std::string name; ///< "fluxion", "manual" or "adolc"
  /// Computes the derivative into `out` (zeroed by the caller, flat: the
  /// problem's parameters in order, or a Jacobian's nonzeros) and returns
  /// the objective (the sum of the residuals for a Jacobian). When `bytes`
  /// is given, it receives what the method kept for its reverse sweep:
  /// Fluxion's tape peak (fluxion::memory_stats), the hand-written
  /// adjoint's stored arrays, ADOL-C's tape; a method that cannot say
  /// leaves it alone.
  std::function<double(double *out, std::size_t *bytes)> run;
};

struct Formulation {
  std::string name;    ///< "swap", "inline", ...
  std::string summary; ///< one line for the report
  /// Source files (relative to the repository root) of the plugin-compiled
  /// formulation and of its hand-written adjoint, for compile times.
  std::string fluxionSource, manualSource;
  std::vector<Method> methods; ///< "manual" first: the reference
  /// The formulation's own objective as a function of the parameters, for
  /// central differences; empty for a Jacobian.
  std::function<double(const std::vector<double> &)> primal;
  /// For a Jacobian: central differences of the formulation's residual,
  /// the entries in the order of `out` over the first observations (the
  /// returned vector's length says how many entries).
  std::function<std::vector<double>()> jacobianFd;
  const Method *find(const std::string &method) const;
};

/// One problem at one size.
struct Instance {
  std::string problem;     ///< "burgers", "gmm", "lstm", "ba"
  std::string size;        ///< "n1000_steps100", ...
  std::size_t outputs = 0; ///< length of a derivative
  /// What bytes are reported per: time steps, points, observations.
  double units = 1;
  std::string unitName;
  std::vector<double> params; ///< where the derivatives are taken
  /// Whether the cross-check at this size also compares with central
  /// differences (they cost two objectives per parameter).
  bool fd = false;
  /// The closures hold their inputs and buffers (shared).
  std::vector<Formulation> formulations;
};

/// Benchmark sizes of each problem ("full"), or the small ones of the
/// quick ctest check ("check"). ADOL-C is registered where its tape stays
/// small enough to be practical.
std::vector<Instance> burgers_instances(bool check);
std::vector<Instance> gmm_instances(bool check);
std::vector<Instance> lstm_instances(bool check);
std::vector<Instance> ba_instances(bool check);
std::vector<Instance> instances(const std::string &problem, bool check);

/// Compares every method of each formulation with its hand-written adjoint
/// (AD methods agree to rounding), every hand-written adjoint with the
/// first formulation's (the formulations compute the same function, in
/// other orders), and, where the instance asks for it, each hand-written
/// adjoint with central differences of its formulation's own objective.
/// Objective values must agree too. Prints a line per comparison.
bool cross_check(const Instance &inst);

} // namespace formulations

#endif // FLUXION_FORMULATIONS_REGISTRY_HPP
