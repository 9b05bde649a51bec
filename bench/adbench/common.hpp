// Shared pieces of the ADBench programs: a fixed-seed generator for the
// inputs, gradient comparison, and central finite differences. Nothing here
// is compiled with the Fluxion plugin.
#ifndef FLUXION_ADBENCH_COMMON_HPP
#define FLUXION_ADBENCH_COMMON_HPP

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace adbench {

/// SplitMix64 (Steele, Lea, Flood 2014): small, fast, and the same sequence
/// on every platform and standard library, unlike
/// std::uniform_real_distribution.
class Rng {
public:
  explicit Rng(std::uint64_t Seed) : State(Seed) {}
  std::uint64_t next() {
    std::uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
    return Z ^ (Z >> 31);
  }
  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return (next() >> 11) * 0x1.0p-53; }
  double uniform(double Lo, double Hi) { return Lo + (Hi - Lo) * uniform(); }
  int index(int N) {
    return static_cast<int>(next() % static_cast<std::uint64_t>(N));
  }

private:
  std::uint64_t State;
};

/// Result of comparing two derivative vectors.
struct Mismatch {
  double MaxAbsDiff = 0; ///< max_i |a_i - b_i|
  double Scale = 0;      ///< max_i max(|a_i|, |b_i|)
  std::size_t Where = 0; ///< index of the largest difference
  bool Ok = true;
};

/// Norm-wise relative comparison: max|a - b| <= Tol * max(max|a|, max|b|).
/// A NaN anywhere is a mismatch.
inline Mismatch compare(const std::vector<double> &A,
                        const std::vector<double> &B, double Tol) {
  Mismatch M;
  if (A.size() != B.size()) {
    M.Ok = false;
    return M;
  }
  for (std::size_t I = 0; I < A.size(); ++I) {
    double D = std::fabs(A[I] - B[I]);
    if (!(D == D) || std::isnan(A[I]) || std::isnan(B[I])) {
      M.Ok = false;
      M.Where = I;
      M.MaxAbsDiff = NAN;
      return M;
    }
    if (D > M.MaxAbsDiff) {
      M.MaxAbsDiff = D;
      M.Where = I;
    }
    M.Scale = std::fmax(M.Scale, std::fmax(std::fabs(A[I]), std::fabs(B[I])));
  }
  M.Ok = M.MaxAbsDiff <= Tol * M.Scale;
  return M;
}

/// Compares and prints one line; returns false on a mismatch.
inline bool check(const std::string &What, const std::vector<double> &A,
                  const char *NameA, const std::vector<double> &B,
                  const char *NameB, double Tol) {
  Mismatch M = compare(A, B, Tol);
  double Rel = M.Scale > 0 ? M.MaxAbsDiff / M.Scale : M.MaxAbsDiff;
  if (M.Ok) {
    std::printf("  ok   %-28s %-10s vs %-10s rel. diff %.1e (tol %.0e)\n",
                What.c_str(), NameA, NameB, Rel, Tol);
    return true;
  }
  if (A.size() != B.size()) {
    std::printf("  FAIL %-28s %-10s vs %-10s: %zu vs %zu entries\n",
                What.c_str(), NameA, NameB, A.size(), B.size());
    return false;
  }
  std::printf("  FAIL %-28s %-10s vs %-10s rel. diff %.3e > tol %.0e; "
              "entry %zu: %.17g vs %.17g\n",
              What.c_str(), NameA, NameB, Rel, Tol, M.Where, A[M.Where],
              B[M.Where]);
  return false;
}

/// Central differences of a scalar function of the vector X, in place:
/// G[i] = (F(x + h e_i) - F(x - h e_i)) / 2h, with h scaled to |x_i|.
template <class F>
std::vector<double> central_differences(F &&Fn, std::vector<double> &X) {
  std::vector<double> G(X.size());
  for (std::size_t I = 0; I < X.size(); ++I) {
    double Xi = X[I];
    double H = 1e-6 * std::fmax(1.0, std::fabs(Xi));
    X[I] = Xi + H;
    double Up = Fn(X);
    X[I] = Xi - H;
    double Down = Fn(X);
    X[I] = Xi;
    G[I] = (Up - Down) / (2 * H);
  }
  return G;
}

} // namespace adbench

#endif // FLUXION_ADBENCH_COMMON_HPP
