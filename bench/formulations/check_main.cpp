// Quick regression test (registered with ctest): on small instances of
// every problem, each formulation's generated derivative must match its
// hand-written adjoint (and ADOL-C where built), every hand-written adjoint
// the first formulation's, and each one central differences of its own
// formulation. Exits non-zero on any mismatch.
#include "registry.hpp"

#include <cstdio>

int main() {
  bool ok = true;
  for (const char *problem : {"burgers", "gmm", "lstm", "ba"}) {
    std::printf("%s\n", problem);
    for (const auto &inst : formulations::instances(problem, true))
      ok &= formulations::cross_check(inst);
  }
  if (!ok) {
    std::printf("FAILED: derivatives disagree (see the FAIL lines)\n");
    return 1;
  }
  std::printf("all derivatives agree\n");
  return 0;
}
