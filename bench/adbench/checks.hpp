// Cross-checks of every method's derivatives, run before any timing
// (adbench_main.cpp) and as the quick regression test (check_main.cpp).
// Each prints one line per comparison and returns false on a mismatch.
#ifndef FLUXION_ADBENCH_CHECKS_HPP
#define FLUXION_ADBENCH_CHECKS_HPP

#include "ba.hpp"
#include "burgers.hpp"
#include "gmm.hpp"
#include "lstm.hpp"

#include <string>

namespace adbench {

/// Relative tolerances (norm-wise, see compare()): the AD methods compute
/// the same numbers up to rounding; central differences carry a truncation
/// and a cancellation error.
constexpr double AdTol = 1e-10;
constexpr double FdTol = 1e-5;

// ADOL-C tape numbers (ba_adolc.cpp uses 11 to 13).
constexpr short GmmTag = 1, LstmTag = 3, BurgersTag = 5;

/// Fluxion and ADOL-C against the hand-written adjoint; also central
/// differences when `fd` is set. Objective values must agree too.
bool check_gmm(const std::string &name, const GmmInput &in, bool fd);
/// Central differences on the first `fd_observations` observations.
bool check_ba(const std::string &name, const BaInput &in, int fd_observations);
bool check_lstm(const std::string &name, const LstmInput &in, bool fd);
bool check_burgers(const std::string &name, const BurgersInput &in, bool fd);

/// Central-difference gradients, also timed by the benchmarks.
std::vector<double> gmm_fd_gradient(const GmmInput &in,
                                    std::vector<double> &params);
std::vector<double> lstm_fd_gradient(const LstmInput &in,
                                     std::vector<double> &params);
std::vector<double> burgers_fd_gradient(const BurgersInput &in,
                                        std::vector<double> &params);
/// The 2 x 15 block of observation i by central differences.
void ba_fd_block(const BaInput &in, int i, double *block);

} // namespace adbench

#endif // FLUXION_ADBENCH_CHECKS_HPP
