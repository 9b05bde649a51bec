// Code with effects that carry no derivative: assert (with and without
// NDEBUG), printing, calls to functions that only log, (void) casts. They
// run in the forward sweep once, as in the primal, and nothing flows back
// through them; the derivatives are those of the code around them.
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

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

// Counters and flags at namespace scope, written by the annotated function
// and by a callee: each write runs once per forward sweep, as in the
// primal, and is never undone; a value read from one after it changed is
// the value the derivative uses (the reverse sweep does not read the
// global again).
namespace effects {
int evaluations = 0;
static unsigned long steps = 0;
bool clipped = false;
enum class Phase { Start, Running, Done } phase = Phase::Start;

// Counts through a reference: reads of the counter after it must not see
// a later value in the reverse sweep.
void count(int &n) { n += 1; }

double clip(double v) {
  count(evaluations);
  if (v > 2) {
    clipped = true;
    return 2 + 0.1 * (v - 2);
  }
  return v;
}

[[fluxion::grad]] [[fluxion::jvp]] [[fluxion::hessian]] double
counted(double x, double y) {
  phase = Phase::Running;
  double s = x * evaluations; // read before the callee changes it
  s += clip(x * y);
  for (int i = 0; i < 3; ++i) {
    steps += 2;
    s += std::sin(y * i) * evaluations; // read after
  }
  ++evaluations;
  phase = Phase::Done;
  return s * y + x * steps;
}
} // namespace effects

TEST(SideEffects, CountersAndFlagsRunOncePerSweep) {
  using namespace effects;
  auto primal = [](double x, double y, int &n, unsigned long &st) {
    evaluations = 1;
    steps = 0;
    double v = counted(x, y);
    n = evaluations;
    st = steps;
    return v;
  };
  for (auto xy : {std::pair{0.7, 1.2}, {1.9, 1.3}, {-0.4, 0.8}}) {
    double x = xy.first, y = xy.second;
    int n0;
    unsigned long s0;
    double v0 = primal(x, y, n0, s0);
    EXPECT_EQ(phase, Phase::Done);
    // Central differences of the primal, each run from the same counters.
    int n;
    unsigned long st;
    auto fx = [&](double v) { return primal(v, y, n, st); };
    auto fy = [&](double v) { return primal(x, v, n, st); };
    double gx = static_cast<double>(nt::central_diff(fx, x));
    double gy = static_cast<double>(nt::central_diff(fy, y));
    evaluations = 1;
    steps = 0;
    clipped = false;
    phase = Phase::Start;
    double dx = 0, dy = 0;
    EXPECT_DOUBLE_EQ(counted_grad(x, y, &dx, &dy), v0);
    EXPECT_EQ(evaluations, n0); // once per forward sweep, never undone
    EXPECT_EQ(steps, s0);
    EXPECT_EQ(phase, Phase::Done);
    EXPECT_EQ(clipped, x * y > 2);
    NT_EXPECT_CLOSE(dx, gx, 1e-6L, 1e-6L);
    NT_EXPECT_CLOSE(dy, gy, 1e-6L, 1e-6L);
    evaluations = 1;
    steps = 0;
    NT_EXPECT_CLOSE(counted_jvp(x, y, 0.5, -1.5), 0.5 * dx - 1.5 * dy, 1e-12L,
                    1e-12L);
    EXPECT_EQ(evaluations, n0);
    // f_hvp against differences of f_grad.
    evaluations = 1;
    steps = 0;
    double hx = 0, hy = 0;
    counted_hvp(x, y, 1.0, 0.0, &hx, &hy);
    EXPECT_EQ(evaluations, n0);
    auto gradx = [&](double v) {
      evaluations = 1;
      steps = 0;
      double a = 0, b = 0;
      counted_grad(v, y, &a, &b);
      return a;
    };
    NT_EXPECT_CLOSE(hx, static_cast<double>(nt::central_diff(gradx, x)), 1e-6L,
                    1e-6L);
  }
}

// Printing to a stream and throwing on a bad argument, as the primal does,
// in the forward sweep only.
namespace effects {
std::ostringstream journal;

[[fluxion::grad]] [[fluxion::jvp]] double journaled(double x, int n) {
  if (n <= 0)
    throw std::invalid_argument("n must be positive");
  if (n > 100)
    throw n;
  double s = 0;
  for (int i = 1; i <= n; ++i) {
    s += std::cos(x * i) / i;
    journal << "step " << i << ": " << s << '\n';
  }
  return s * s;
}
} // namespace effects

TEST(SideEffects, StreamsAndThrows) {
  using namespace effects;
  journal.str("");
  double v = journaled(0.4, 3);
  std::string primal = journal.str();
  EXPECT_NE(primal.find("step 3: "), std::string::npos);
  journal.str("");
  double d = 0;
  EXPECT_DOUBLE_EQ(journaled_grad(0.4, 3, &d), v);
  EXPECT_EQ(journal.str(), primal); // printed once, the same values
  journal.str("");
  auto g = nt::check_gradient1<double>(
      [](double x) { return journaled(x, 3); },
      [](double x, double *dx) { return journaled_grad(x, 3, dx); }, 0.4);
  (void)g;
  journal.str("");
  NT_EXPECT_CLOSE(journaled_jvp(0.4, 3, 2.0), 2 * d, 1e-12L, 1e-12L);
  EXPECT_EQ(journal.str(), primal);
  EXPECT_THROW(journaled_grad(0.4, 0, &d), std::invalid_argument);
  EXPECT_THROW(journaled_jvp(0.4, 0, 1.0), std::invalid_argument);
  EXPECT_THROW(journaled_grad(0.4, 101, &d), int);
  // A later call is not disturbed by the sweep a throw left unfinished.
  double d2 = 0;
  EXPECT_DOUBLE_EQ(journaled_grad(0.4, 3, &d2), v);
  EXPECT_DOUBLE_EQ(d2, d);
}

// A counter written only through a reference a callee takes: its reads
// before and after the call see different values, and the reverse sweep
// must use the ones read.
namespace effects {
int visits = 1;
void visit(int &v) { v += 2; }
[[fluxion::grad]] double visited(double x) {
  double y = x * visits;
  visit(visits);
  return y * x * visits;
}
} // namespace effects

TEST(SideEffects, CounterWrittenThroughAReference) {
  using namespace effects;
  for (double x : {0.7, -1.3}) {
    visits = 1;
    double d = 0;
    visited_grad(x, &d);
    EXPECT_EQ(visits, 3);
    auto f = [](double v) {
      visits = 1;
      return visited(v);
    };
    NT_EXPECT_CLOSE(d, static_cast<double>(nt::central_diff(f, x)), 1e-7L,
                    1e-7L);
    NT_EXPECT_CLOSE(d, 6 * x, 1e-12L, 1e-12L);
  }
}
