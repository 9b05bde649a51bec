// Quick regression test (registered with ctest): on small ADBench-shaped
// problems, the gradients that Fluxion generates must match the
// hand-written adjoints, central finite differences and (when built with
// it) ADOL-C. Exits non-zero on the first problem with a mismatch.
#include "checks.hpp"

#include <cstdio>

using namespace adbench;

int main() {
  bool ok = true;
  std::printf("GMM\n");
  ok &= check_gmm("gmm d2 K5 n20", gmm_make_input(2, 5, 20, 11), true);
  ok &= check_gmm("gmm d5 K3 n10", gmm_make_input(5, 3, 10, 12), true);
  ok &= check_gmm("gmm d10 K4 n8", gmm_make_input(10, 4, 8, 13), true);
  std::printf("Bundle adjustment\n");
  ok &= check_ba("ba n3 m5 p12", ba_make_input(3, 5, 12, 21), 12);
  ok &= check_ba("ba n4 m7 p30", ba_make_input(4, 7, 30, 22), 30);
  std::printf("LSTM\n");
  ok &= check_lstm("lstm l1 c4 b3", lstm_make_input(1, 4, 3, 31), true);
  ok &= check_lstm("lstm l2 c8 b5", lstm_make_input(2, 8, 5, 32), true);
  std::printf("Burgers\n");
  ok &= check_burgers("burgers n16 s30", burgers_make_input(16, 30, 41), true);
  if (!ok) {
    std::printf("FAILED: derivatives disagree (see the FAIL lines)\n");
    return 1;
  }
  std::printf("all derivatives agree\n");
  return 0;
}
