// Code with effects that carry no derivative: assert (with and without
// NDEBUG), printing, calls to functions that only log, (void) casts. They
// run in the forward sweep once, as in the primal, and nothing flows back
// through them; the derivatives are those of the code around them.
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "numeric_check.hpp"

namespace effects {
// Defined in opaque_impl.cpp.
extern int log_count;
extern double log_last;
extern char log_tag[32];
void log_value(const char *tag, double v);
} // namespace effects

#undef NDEBUG
#include <cassert>

namespace effects {

// assert checks an argument; the log sees each step's value once.
[[fluxion::grad]] [[fluxion::jvp]] double checked(double x, int n) {
  assert(n > 0 && "n must be positive");
  double s = 0;
  for (int i = 0; i < n; ++i) {
    s += std::sin(x * (i + 1));
    log_value(__func__, s);
  }
  (void)n;
  return s * x;
}

// A callee that logs and asserts; its derivative is generated on demand.
double scaled(double v, double k) {
  assert(k != 0);
  log_value("scaled", v * k);
  return v * k;
}

[[fluxion::grad]] double uses_scaled(double x) { return scaled(x * x, 3.0) + x; }

// printf of the value being computed (to a buffer: the test reads it back).
char printed[64];
[[fluxion::grad]] double prints(double x) {
  double y = std::exp(x);
  std::snprintf(printed, sizeof printed, "y = %.3f", y);
  return y * y;
}

} // namespace effects

#define NDEBUG
#include <cassert>

namespace effects {
// With NDEBUG, assert expands to a (void) cast of 0.
[[fluxion::grad]] double unchecked(double x) {
  assert(x > 1000);
  return x * x * x;
}
} // namespace effects

TEST(SideEffects, AssertAndLogRunOnceInTheForwardSweep) {
  for (double x : {0.5, -1.25}) {
    effects::log_count = 0;
    double value = effects::checked(x, 3);
    EXPECT_EQ(effects::log_count, 3);
    double last = effects::log_last;
    effects::log_count = 0;
    auto g = nt::check_gradient1<double>(
        [](double v) { return effects::checked(v, 3); },
        [](double v, double *d) { return effects::checked_grad(v, 3, d); }, x);
    // check_gradient1 calls f_grad twice and f three times (its value, two
    // finite differences): 3 entries each, as many as the primal's.
    EXPECT_EQ(effects::log_count, 5 * 3);
    effects::log_count = 0;
    double d = 0;
    EXPECT_DOUBLE_EQ(effects::checked_grad(x, 3, &d), value);
    EXPECT_EQ(effects::log_count, 3);
    EXPECT_DOUBLE_EQ(effects::log_last, last);
    EXPECT_STREQ(effects::log_tag, "checked");
    effects::log_count = 0;
    NT_EXPECT_CLOSE(effects::checked_jvp(x, 3, 0.75), 0.75 * g, 1e-12L, 1e-12L);
    EXPECT_EQ(effects::log_count, 3);
  }
}

TEST(SideEffects, CalleeThatLogsAndAsserts) {
  effects::log_count = 0;
  double d = 0;
  effects::uses_scaled_grad(0.7, &d);
  EXPECT_EQ(effects::log_count, 1);
  EXPECT_DOUBLE_EQ(effects::log_last, 0.7 * 0.7 * 3.0);
  NT_EXPECT_EXACT(double, d, 6 * 0.7 + 1);
}

TEST(SideEffects, PrintingTheValue) {
  double d = 0;
  double r = effects::prints_grad(0.25, &d);
  NT_EXPECT_EXACT(double, r, std::exp(0.5));
  NT_EXPECT_EXACT(double, d, 2 * std::exp(0.5));
  char want[64];
  std::snprintf(want, sizeof want, "y = %.3f", std::exp(0.25));
  EXPECT_STREQ(effects::printed, want);
}

TEST(SideEffects, AssertWithNDEBUG) {
  double d = 0;
  effects::unchecked_grad(2.0, &d); // the assert is gone: no abort
  NT_EXPECT_EXACT(double, d, 12.0);
}
