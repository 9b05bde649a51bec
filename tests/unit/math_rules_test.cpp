// Unit tests of the derivative rules of <cmath> (runtime/include/fluxion/math.hpp).
//
// Every rule is checked against a finite difference of the function itself,
// taken in long double with a fourth-order stencil (so the reference is far
// more accurate than the float and double rules under test), at the argument
// rounded to the type under test.

#include <fluxion/math.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace fc = fluxion::custom;

namespace {

using FloatTypes = ::testing::Types<float, double, long double>;

/// Fourth-order central difference of F at X.
template <class F> long double finiteDifference(F Fn, long double X) {
  long double H = 1e-4L * (1 + std::fabs(X));
  return (8 * (Fn(X + H) - Fn(X - H)) - (Fn(X + 2 * H) - Fn(X - 2 * H))) /
         (12 * H);
}

/// Relative tolerance of a derivative in T against the finite difference.
template <class T> long double fdTolerance() {
  if (std::is_same_v<T, float>)
    return 2e-5L;
  return 1e-9L;
}

/// A few units in the last place of T, for results computed two ways in T.
template <class T> long double ulps() {
  return 16 * static_cast<long double>(std::numeric_limits<T>::epsilon());
}

::testing::AssertionResult close(long double Actual, long double Expected,
                                 long double RelTol) {
  long double Scale = std::max(1.0L, std::fabs(Expected));
  if (std::fabs(Actual - Expected) <= RelTol * Scale)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got " << static_cast<double>(Actual) << ", expected "
         << static_cast<double>(Expected) << " (tolerance "
         << static_cast<double>(RelTol * Scale) << ")";
}

//===----------------------------------------------------------------------===//
// One argument
//===----------------------------------------------------------------------===//

template <class T> struct UnaryRule {
  const char *Name;
  long double (*Reference)(long double);
  T (*Primal)(T);
  T (*Vjp)(T, T, T *);
  T (*Jvp)(T, T);
  std::vector<double> Points;
};

#define UNARY(NAME, ...)                                                       \
  UnaryRule<T> {                                                               \
    #NAME, [](long double X) { return std::NAME(X); },                         \
        [](T X) -> T { return std::NAME(X); }, &fc::NAME##_vjp<T>,             \
        &fc::NAME##_jvp<T>, __VA_ARGS__                                        \
  }

template <class T> std::vector<UnaryRule<T>> unaryRules() {
  return {
      UNARY(sin, {-2.5, -0.4, 0.3, 1.2, 3.0}),
      UNARY(cos, {-2.5, -0.4, 0.3, 1.2, 3.0}),
      UNARY(tan, {-1.2, -0.3, 0.5, 1.0}),
      UNARY(asin, {-0.9, -0.3, 0.2, 0.8}),
      UNARY(acos, {-0.9, -0.3, 0.2, 0.8}),
      UNARY(atan, {-3.0, -0.5, 0.4, 2.0}),
      UNARY(sinh, {-2.0, -0.5, 0.3, 1.5}),
      UNARY(cosh, {-2.0, -0.5, 0.3, 1.5}),
      UNARY(tanh, {-2.0, -0.5, 0.3, 1.5}),
      UNARY(asinh, {-3.0, -0.2, 0.7, 4.0}),
      UNARY(acosh, {1.2, 2.0, 5.0}),
      UNARY(atanh, {-0.8, -0.1, 0.4, 0.9}),
      UNARY(exp, {-3.0, -0.5, 0.2, 2.5}),
      UNARY(exp2, {-3.0, -0.5, 0.2, 2.5}),
      UNARY(expm1, {-3.0, -0.5, 0.2, 2.5}),
      UNARY(log, {0.1, 0.7, 1.5, 8.0}),
      UNARY(log2, {0.1, 0.7, 1.5, 8.0}),
      UNARY(log10, {0.1, 0.7, 1.5, 8.0}),
      UNARY(log1p, {-0.7, -0.1, 0.5, 4.0}),
      UNARY(sqrt, {0.05, 0.8, 2.0, 9.0}),
      UNARY(cbrt, {-8.0, -0.3, 0.2, 5.0}),
      UNARY(fabs, {-2.0, -0.3, 0.4, 3.0}),
      UNARY(abs, {-2.0, -0.3, 0.4, 3.0}),
      UNARY(erf, {-2.0, -0.5, 0.1, 1.3}),
      UNARY(erfc, {-2.0, -0.5, 0.1, 1.3}),
      UNARY(floor, {-2.3, -0.7, 0.4, 1.6}),
      UNARY(ceil, {-2.3, -0.7, 0.4, 1.6}),
      UNARY(round, {-2.3, -0.7, 0.4, 1.6}),
      UNARY(trunc, {-2.3, -0.7, 0.4, 1.6}),
      UNARY(rint, {-2.3, -0.7, 0.4, 1.6}),
      UNARY(nearbyint, {-2.3, -0.7, 0.4, 1.6}),
  };
}

#undef UNARY

template <class T> class UnaryRules : public ::testing::Test {};
TYPED_TEST_SUITE(UnaryRules, FloatTypes);

TYPED_TEST(UnaryRules, VjpMatchesFiniteDifference) {
  using T = TypeParam;
  for (const UnaryRule<T> &R : unaryRules<T>())
    for (double P : R.Points) {
      SCOPED_TRACE(std::string(R.Name) + " at " + std::to_string(P));
      T X = static_cast<T>(P);
      T Seed = T(-1.25);
      T D = 0;
      R.Vjp(X, Seed, &D);
      long double Expected = Seed * finiteDifference(R.Reference, X);
      EXPECT_TRUE(close(D, Expected, fdTolerance<T>()));
    }
}

TYPED_TEST(UnaryRules, VjpReturnsThePrimalValue) {
  using T = TypeParam;
  for (const UnaryRule<T> &R : unaryRules<T>())
    for (double P : R.Points) {
      SCOPED_TRACE(std::string(R.Name) + " at " + std::to_string(P));
      T X = static_cast<T>(P);
      T D = 0;
      EXPECT_EQ(R.Vjp(X, T(0.5), &D), R.Primal(X));
    }
}

TYPED_TEST(UnaryRules, VjpAddsIntoTheAdjoint) {
  using T = TypeParam;
  for (const UnaryRule<T> &R : unaryRules<T>())
    for (double P : R.Points) {
      SCOPED_TRACE(std::string(R.Name) + " at " + std::to_string(P));
      T X = static_cast<T>(P);
      T Once = 0;
      R.Vjp(X, T(0.75), &Once);
      T Twice = T(3);
      R.Vjp(X, T(0.75), &Twice);
      R.Vjp(X, T(0.75), &Twice);
      EXPECT_TRUE(close(Twice, 3 + 2 * static_cast<long double>(Once),
                        ulps<T>()));
    }
}

TYPED_TEST(UnaryRules, JvpIsTheDirectionalDerivative) {
  using T = TypeParam;
  for (const UnaryRule<T> &R : unaryRules<T>())
    for (double P : R.Points) {
      SCOPED_TRACE(std::string(R.Name) + " at " + std::to_string(P));
      T X = static_cast<T>(P);
      T Grad = 0;
      R.Vjp(X, T(1), &Grad);
      for (T Tangent : {T(1), T(-0.5), T(2.25), T(0)})
        EXPECT_TRUE(close(R.Jvp(X, Tangent),
                          static_cast<long double>(Grad) * Tangent, ulps<T>()));
    }
}

// The overloads resolve from the argument types alone, as the differentiator
// calls them, and return the callee's type.
TYPED_TEST(UnaryRules, ResolveByArgumentTypes) {
  using T = TypeParam;
  T X = T(0.5), D = 0;
  static_assert(std::is_same_v<decltype(fc::sin_vjp(X, X, &D)),
                               decltype(std::sin(X))>);
  static_assert(std::is_same_v<decltype(fc::exp_jvp(X, X)),
                               decltype(std::exp(X))>);
  static_assert(std::is_same_v<decltype(fc::abs_vjp(X, X, &D)),
                               decltype(std::abs(X))>);
  EXPECT_EQ(fc::sqrt_vjp(X, T(1), &D), std::sqrt(X));
  EXPECT_EQ(D, fc::sqrt_jvp(X, T(1)));
}

// sinf/sinl and the other C spellings agree with the generic rules.
TEST(CSpellings, AgreeWithTheGenericRules) {
#define CHECK_C_SPELLING_1(NAME, X)                                            \
  {                                                                            \
    SCOPED_TRACE(#NAME);                                                       \
    float DF = 0, DFg = 0;                                                     \
    EXPECT_EQ(fc::NAME##f_vjp(X##f, 2.f, &DF), fc::NAME##_vjp(X##f, 2.f, &DFg)); \
    EXPECT_EQ(DF, DFg);                                                        \
    EXPECT_EQ(fc::NAME##f_jvp(X##f, 3.f), fc::NAME##_jvp(X##f, 3.f));          \
    long double DL = 0, DLg = 0;                                               \
    EXPECT_EQ(fc::NAME##l_vjp(X##L, 2.L, &DL), fc::NAME##_vjp(X##L, 2.L, &DLg)); \
    EXPECT_EQ(DL, DLg);                                                        \
    EXPECT_EQ(fc::NAME##l_jvp(X##L, 3.L), fc::NAME##_jvp(X##L, 3.L));          \
  }
  CHECK_C_SPELLING_1(sin, 0.7)
  CHECK_C_SPELLING_1(cos, 0.7)
  CHECK_C_SPELLING_1(tan, 0.7)
  CHECK_C_SPELLING_1(asin, 0.7)
  CHECK_C_SPELLING_1(acos, 0.7)
  CHECK_C_SPELLING_1(atan, 0.7)
  CHECK_C_SPELLING_1(sinh, 0.7)
  CHECK_C_SPELLING_1(cosh, 0.7)
  CHECK_C_SPELLING_1(tanh, 0.7)
  CHECK_C_SPELLING_1(asinh, 0.7)
  CHECK_C_SPELLING_1(acosh, 1.7)
  CHECK_C_SPELLING_1(atanh, 0.7)
  CHECK_C_SPELLING_1(exp, 0.7)
  CHECK_C_SPELLING_1(exp2, 0.7)
  CHECK_C_SPELLING_1(expm1, 0.7)
  CHECK_C_SPELLING_1(log, 0.7)
  CHECK_C_SPELLING_1(log2, 0.7)
  CHECK_C_SPELLING_1(log10, 0.7)
  CHECK_C_SPELLING_1(log1p, 0.7)
  CHECK_C_SPELLING_1(sqrt, 0.7)
  CHECK_C_SPELLING_1(cbrt, 0.7)
  CHECK_C_SPELLING_1(fabs, -0.7)
  CHECK_C_SPELLING_1(erf, 0.7)
  CHECK_C_SPELLING_1(erfc, 0.7)
  CHECK_C_SPELLING_1(floor, 0.7)
  CHECK_C_SPELLING_1(ceil, 0.7)
  CHECK_C_SPELLING_1(round, 0.7)
  CHECK_C_SPELLING_1(trunc, 0.7)
  CHECK_C_SPELLING_1(rint, 0.7)
  CHECK_C_SPELLING_1(nearbyint, 0.7)
#undef CHECK_C_SPELLING_1

#define CHECK_C_SPELLING_2(NAME, X, Y)                                         \
  {                                                                            \
    SCOPED_TRACE(#NAME);                                                       \
    float DXF = 0, DYF = 0, DXFg = 0, DYFg = 0;                                \
    EXPECT_EQ(fc::NAME##f_vjp(X##f, Y##f, 2.f, &DXF, &DYF),                    \
              fc::NAME##_vjp(X##f, Y##f, 2.f, &DXFg, &DYFg));                  \
    EXPECT_EQ(DXF, DXFg);                                                      \
    EXPECT_EQ(DYF, DYFg);                                                      \
    EXPECT_EQ(fc::NAME##f_jvp(X##f, Y##f, 3.f, -1.f),                          \
              fc::NAME##_jvp(X##f, Y##f, 3.f, -1.f));                          \
    long double DXL = 0, DYL = 0, DXLg = 0, DYLg = 0;                          \
    EXPECT_EQ(fc::NAME##l_vjp(X##L, Y##L, 2.L, &DXL, &DYL),                    \
              fc::NAME##_vjp(X##L, Y##L, 2.L, &DXLg, &DYLg));                  \
    EXPECT_EQ(DXL, DXLg);                                                      \
    EXPECT_EQ(DYL, DYLg);                                                      \
    EXPECT_EQ(fc::NAME##l_jvp(X##L, Y##L, 3.L, -1.L),                          \
              fc::NAME##_jvp(X##L, Y##L, 3.L, -1.L));                          \
  }
  CHECK_C_SPELLING_2(atan2, 0.7, 1.3)
  CHECK_C_SPELLING_2(hypot, 0.7, 1.3)
  CHECK_C_SPELLING_2(pow, 0.7, 1.3)
  CHECK_C_SPELLING_2(fmin, 0.7, 1.3)
  CHECK_C_SPELLING_2(fmax, 0.7, 1.3)
  CHECK_C_SPELLING_2(fmod, 1.7, 0.3)
  CHECK_C_SPELLING_2(copysign, 0.7, -1.3)
#undef CHECK_C_SPELLING_2

  float DF = 0;
  EXPECT_EQ(fc::ldexpf_vjp(1.5f, 3, 1.f, &DF), 12.f);
  EXPECT_EQ(DF, 8.f);
  EXPECT_EQ(fc::scalbnf_jvp(1.5f, -2, 1.f), 0.25f);
  long double DL = 0;
  EXPECT_EQ(fc::ldexpl_vjp(1.5L, 3, 1.L, &DL), 12.L);
  EXPECT_EQ(DL, 8.L);
  EXPECT_EQ(fc::scalbnl_jvp(1.5L, -2, 1.L), 0.25L);

  float FX = 0, FY = 0, FZ = 0;
  EXPECT_EQ(fc::fmaf_vjp(2.f, 3.f, 4.f, 1.f, &FX, &FY, &FZ), 10.f);
  EXPECT_EQ(FX, 3.f);
  EXPECT_EQ(FY, 2.f);
  EXPECT_EQ(FZ, 1.f);
  EXPECT_EQ(fc::fmaf_jvp(2.f, 3.f, 4.f, 1.f, 1.f, 1.f), 6.f);
  long double LX = 0, LY = 0, LZ = 0;
  EXPECT_EQ(fc::fmal_vjp(2.L, 3.L, 4.L, 1.L, &LX, &LY, &LZ), 10.L);
  EXPECT_EQ(LX, 3.L);
  EXPECT_EQ(LY, 2.L);
  EXPECT_EQ(LZ, 1.L);
  EXPECT_EQ(fc::fmal_jvp(2.L, 3.L, 4.L, 1.L, 1.L, 1.L), 6.L);
}

//===----------------------------------------------------------------------===//
// Two floating arguments, every mix of float, double and long double
//===----------------------------------------------------------------------===//

template <class X, class Y> struct BinaryRule {
  using R = fc::detail::Promoted<X, Y>;
  const char *Name;
  long double (*Reference)(long double, long double);
  R (*Primal)(X, Y);
  R (*Vjp)(X, Y, R, X *, Y *);
  R (*Jvp)(X, Y, X, Y);
  std::vector<std::pair<double, double>> Points;
};

// The function-pointer conversions check, at compile time, that each rule's
// result and seed have exactly the type of <cmath>'s own overload.
#define BINARY(NAME, ...)                                                      \
  BinaryRule<X, Y> {                                                           \
    #NAME,                                                                     \
        [](long double A, long double B) { return std::NAME(A, B); },          \
        [](X A, Y B) { return std::NAME(A, B); }, &fc::NAME##_vjp<X, Y>,       \
        &fc::NAME##_jvp<X, Y>, __VA_ARGS__                                     \
  }

template <class X, class Y> std::vector<BinaryRule<X, Y>> binaryRules() {
  return {
      BINARY(atan2, {{0.5, 1.5}, {-1.2, 0.4}, {2.0, -3.0}, {-0.3, -0.8}}),
      BINARY(hypot, {{0.5, 1.5}, {-1.2, 0.4}, {2.0, -3.0}, {3.0, 0.25}}),
      BINARY(pow, {{0.5, 1.5}, {1.7, -2.3}, {2.5, 3.0}, {3.0, 0.25}}),
      BINARY(fmin, {{0.5, 1.5}, {-1.2, 0.4}, {2.0, -3.0}, {-0.3, -0.8}}),
      BINARY(fmax, {{0.5, 1.5}, {-1.2, 0.4}, {2.0, -3.0}, {-0.3, -0.8}}),
      BINARY(fmod, {{5.3, 1.5}, {-4.1, 1.3}, {2.2, -0.7}, {0.3, 2.0}}),
      BINARY(copysign, {{1.5, 2.0}, {1.5, -2.0}, {-0.7, 3.0}, {-0.7, -0.5}}),
  };
}

#undef BINARY

template <class P> class BinaryRules : public ::testing::Test {};
using TypePairs = ::testing::Types<
    std::pair<float, float>, std::pair<float, double>,
    std::pair<float, long double>, std::pair<double, float>,
    std::pair<double, double>, std::pair<double, long double>,
    std::pair<long double, float>, std::pair<long double, double>,
    std::pair<long double, long double>>;
TYPED_TEST_SUITE(BinaryRules, TypePairs);

template <class X, class Y> long double pairTolerance() {
  return std::max(fdTolerance<X>(), fdTolerance<Y>());
}
template <class X, class Y> long double pairUlps() {
  return std::max(ulps<X>(), ulps<Y>());
}

TYPED_TEST(BinaryRules, VjpMatchesFiniteDifference) {
  using X = typename TypeParam::first_type;
  using Y = typename TypeParam::second_type;
  using R = fc::detail::Promoted<X, Y>;
  for (const BinaryRule<X, Y> &Rule : binaryRules<X, Y>())
    for (auto [PX, PY] : Rule.Points) {
      SCOPED_TRACE(std::string(Rule.Name) + " at " + std::to_string(PX) +
                   ", " + std::to_string(PY));
      X A = static_cast<X>(PX);
      Y B = static_cast<Y>(PY);
      R Seed = R(-1.25);
      X DA = 0;
      Y DB = 0;
      Rule.Vjp(A, B, Seed, &DA, &DB);
      auto F = Rule.Reference;
      long double LA = A, LB = B;
      long double DFA =
          finiteDifference([&](long double T) { return F(T, LB); }, LA);
      long double DFB =
          finiteDifference([&](long double T) { return F(LA, T); }, LB);
      EXPECT_TRUE(close(DA, Seed * DFA, pairTolerance<X, Y>())) << "d/dx";
      EXPECT_TRUE(close(DB, Seed * DFB, pairTolerance<X, Y>())) << "d/dy";
    }
}

TYPED_TEST(BinaryRules, VjpReturnsThePrimalValueAndAdds) {
  using X = typename TypeParam::first_type;
  using Y = typename TypeParam::second_type;
  using R = fc::detail::Promoted<X, Y>;
  for (const BinaryRule<X, Y> &Rule : binaryRules<X, Y>())
    for (auto [PX, PY] : Rule.Points) {
      SCOPED_TRACE(std::string(Rule.Name) + " at " + std::to_string(PX) +
                   ", " + std::to_string(PY));
      X A = static_cast<X>(PX);
      Y B = static_cast<Y>(PY);
      X DA1 = 0;
      Y DB1 = 0;
      EXPECT_EQ(Rule.Vjp(A, B, R(0.75), &DA1, &DB1), Rule.Primal(A, B));
      X DA2 = X(3);
      Y DB2 = Y(-2);
      Rule.Vjp(A, B, R(0.75), &DA2, &DB2);
      Rule.Vjp(A, B, R(0.75), &DA2, &DB2);
      EXPECT_TRUE(close(DA2, 3 + 2 * static_cast<long double>(DA1),
                        pairUlps<X, Y>()));
      EXPECT_TRUE(close(DB2, -2 + 2 * static_cast<long double>(DB1),
                        pairUlps<X, Y>()));
    }
}

TYPED_TEST(BinaryRules, JvpIsTheDirectionalDerivative) {
  using X = typename TypeParam::first_type;
  using Y = typename TypeParam::second_type;
  using R = fc::detail::Promoted<X, Y>;
  for (const BinaryRule<X, Y> &Rule : binaryRules<X, Y>())
    for (auto [PX, PY] : Rule.Points) {
      SCOPED_TRACE(std::string(Rule.Name) + " at " + std::to_string(PX) +
                   ", " + std::to_string(PY));
      X A = static_cast<X>(PX);
      Y B = static_cast<Y>(PY);
      X DA = 0;
      Y DB = 0;
      Rule.Vjp(A, B, R(1), &DA, &DB);
      for (auto [TA, TB] : {std::pair<double, double>{1, 0}, {0, 1},
                            {0.5, -2}, {-1.5, 0.25}}) {
        long double Expected = static_cast<long double>(DA) * TA +
                               static_cast<long double>(DB) * TB;
        EXPECT_TRUE(close(Rule.Jvp(A, B, X(TA), Y(TB)), Expected,
                          pairUlps<X, Y>()));
      }
    }
}

// The differentiator calls the rules by overload resolution with arguments of
// the callee's parameter types and a seed of its return type.
TYPED_TEST(BinaryRules, ResolveByArgumentTypes) {
  using X = typename TypeParam::first_type;
  using Y = typename TypeParam::second_type;
  X A = X(0.5);
  Y B = Y(1.5);
#define CHECK_RESOLVES(NAME)                                                   \
  {                                                                            \
    using R = decltype(std::NAME(A, B));                                       \
    X DA = 0;                                                                  \
    Y DB = 0;                                                                  \
    static_assert(                                                             \
        std::is_same_v<decltype(fc::NAME##_vjp(A, B, R(1), &DA, &DB)), R>);    \
    static_assert(std::is_same_v<decltype(fc::NAME##_jvp(A, B, A, B)), R>);    \
    EXPECT_EQ(fc::NAME##_vjp(A, B, R(1), &DA, &DB), std::NAME(A, B)) << #NAME; \
    EXPECT_TRUE(close(fc::NAME##_jvp(A, B, X(1), Y(0)), DA, ulps<X>()))        \
        << #NAME;                                                              \
  }
  CHECK_RESOLVES(atan2)
  CHECK_RESOLVES(hypot)
  CHECK_RESOLVES(pow)
  CHECK_RESOLVES(fmin)
  CHECK_RESOLVES(fmax)
  CHECK_RESOLVES(fmod)
  CHECK_RESOLVES(copysign)
#undef CHECK_RESOLVES
}

//===----------------------------------------------------------------------===//
// A floating argument with an integer one: pow(x, 3), pow(2, y), fmax(x, 0)
//===----------------------------------------------------------------------===//

template <class T> class MixedIntegerRules : public ::testing::Test {};
TYPED_TEST_SUITE(MixedIntegerRules, FloatTypes);

template <class T, class I> void checkPowIntegerExponent() {
  using R = decltype(std::pow(T(), I()));
  static_assert(std::is_same_v<R, fc::detail::Promoted<T, I>>);
  for (double P : {-1.7, -0.4, 0.6, 2.5})
    for (int N : {-3, -1, 0, 1, 2, 3, 5}) {
      if (std::is_unsigned_v<I> && N < 0)
        continue;
      SCOPED_TRACE("pow(" + std::to_string(P) + ", " + std::to_string(N) +
                   ")");
      T X = static_cast<T>(P);
      I E = static_cast<I>(N);
      T D = 0;
      static_assert(std::is_same_v<decltype(fc::pow_vjp(X, E, R(1), &D)), R>);
      EXPECT_EQ(fc::pow_vjp(X, E, R(-1.25), &D), std::pow(X, E));
      long double LX = X;
      long double Expected =
          -1.25L * finiteDifference(
                       [&](long double V) { return std::pow(V, N); }, LX);
      EXPECT_TRUE(close(D, Expected, fdTolerance<T>()));
      EXPECT_TRUE(close(fc::pow_jvp(X, E, T(2)), -1.6L * D, ulps<T>()));
    }
}

TYPED_TEST(MixedIntegerRules, PowWithIntegerExponent) {
  using T = TypeParam;
  checkPowIntegerExponent<T, int>();
  checkPowIntegerExponent<T, long>();
  checkPowIntegerExponent<T, long long>();
  checkPowIntegerExponent<T, short>();
  checkPowIntegerExponent<T, unsigned>();
}

TYPED_TEST(MixedIntegerRules, PowWithIntegerBase) {
  using T = TypeParam;
  using R = decltype(std::pow(2, T()));
  for (int Base : {2, 3, 10})
    for (double P : {-1.5, 0.25, 2.0}) {
      T Y = static_cast<T>(P);
      T D = 0;
      EXPECT_EQ(fc::pow_vjp(Base, Y, R(1), &D), std::pow(Base, Y));
      long double Expected = std::pow(static_cast<long double>(Base), Y) *
                             std::log(static_cast<long double>(Base));
      EXPECT_TRUE(close(D, Expected, fdTolerance<T>()));
      EXPECT_TRUE(close(fc::pow_jvp(Base, Y, T(3)), 3.0L * D, ulps<T>()));
    }
}

// Every two-argument rule takes an integer on either side.
TYPED_TEST(MixedIntegerRules, OtherRulesWithAnIntegerArgument) {
  using T = TypeParam;
  T X = T(-1.5);
#define CHECK_INTEGER_SIDES(NAME, N)                                           \
  {                                                                            \
    SCOPED_TRACE(#NAME);                                                       \
    using R = decltype(std::NAME(X, N));                                       \
    long double LX = X;                                                        \
    T D = 0;                                                                   \
    EXPECT_EQ(fc::NAME##_vjp(X, N, R(1), &D), std::NAME(X, N));                \
    EXPECT_TRUE(close(                                                         \
        D,                                                                     \
        finiteDifference([](long double V) { return std::NAME(V, N##.0L); },   \
                         LX),                                                  \
        fdTolerance<T>()));                                                    \
    EXPECT_TRUE(close(fc::NAME##_jvp(X, N, T(2)), 2.0L * D, ulps<T>()));       \
    D = 0;                                                                     \
    EXPECT_EQ(fc::NAME##_vjp(N, X, R(1), &D), std::NAME(N, X));                \
    EXPECT_TRUE(close(                                                         \
        D,                                                                     \
        finiteDifference([](long double V) { return std::NAME(N##.0L, V); },   \
                         LX),                                                  \
        fdTolerance<T>()));                                                    \
    EXPECT_TRUE(close(fc::NAME##_jvp(N, X, T(2)), 2.0L * D, ulps<T>()));       \
  }
  CHECK_INTEGER_SIDES(atan2, 2)
  CHECK_INTEGER_SIDES(hypot, 3)
  CHECK_INTEGER_SIDES(fmin, 0)
  CHECK_INTEGER_SIDES(fmax, 0)
  CHECK_INTEGER_SIDES(fmod, 7)
  CHECK_INTEGER_SIDES(copysign, 3)
#undef CHECK_INTEGER_SIDES
}

TYPED_TEST(MixedIntegerRules, LdexpAndScalbn) {
  using T = TypeParam;
  for (int N : {-3, 0, 4}) {
    T X = T(1.75);
    T D = T(1);
    EXPECT_EQ(fc::ldexp_vjp(X, N, T(3), &D), std::ldexp(X, N));
    EXPECT_EQ(D, 1 + 3 * std::ldexp(T(1), N));
    EXPECT_EQ(fc::ldexp_jvp(X, N, T(3)), 3 * std::ldexp(T(1), N));
    D = T(1);
    EXPECT_EQ(fc::scalbn_vjp(X, N, T(3), &D), std::scalbn(X, N));
    EXPECT_EQ(D, 1 + 3 * std::scalbn(T(1), N));
    EXPECT_EQ(fc::scalbn_jvp(X, N, T(3)), 3 * std::scalbn(T(1), N));
  }
}

//===----------------------------------------------------------------------===//
// fma: three arguments
//===----------------------------------------------------------------------===//

template <class X, class Y, class Z> void checkFma() {
  using R = decltype(std::fma(X(), Y(), Z()));
  static_assert(std::is_same_v<R, fc::detail::Promoted<X, Y, Z>>);
  X A = X(1.5);
  Y B = Y(-2.25);
  Z C = Z(0.5);
  X DA = X(1);
  Y DB = Y(1);
  Z DC = Z(1);
  static_assert(std::is_same_v<decltype(fc::fma_vjp(A, B, C, R(1), &DA, &DB,
                                                    &DC)),
                               R>);
  EXPECT_EQ(fc::fma_vjp(A, B, C, R(2), &DA, &DB, &DC), std::fma(A, B, C));
  EXPECT_EQ(DA, X(1 + 2 * -2.25));
  EXPECT_EQ(DB, Y(1 + 2 * 1.5));
  EXPECT_EQ(DC, Z(1 + 2));
  EXPECT_EQ(fc::fma_jvp(A, B, C, X(1), Y(2), Z(3)), R(-2.25 + 2 * 1.5 + 3));
}

TEST(FmaRule, EveryMixOfFloatingTypes) {
  checkFma<float, float, float>();
  checkFma<double, double, double>();
  checkFma<long double, long double, long double>();
  checkFma<float, double, long double>();
  checkFma<double, float, float>();
  checkFma<long double, float, double>();
  checkFma<float, float, double>();
}

//===----------------------------------------------------------------------===//
// Non-differentiable points: the values JAX uses
//===----------------------------------------------------------------------===//

template <class T> class NonDifferentiablePoints : public ::testing::Test {};
TYPED_TEST_SUITE(NonDifferentiablePoints, FloatTypes);

TYPED_TEST(NonDifferentiablePoints, AbsoluteValueAtZeroIsZero) {
  using T = TypeParam;
  for (T Z : {T(0), -T(0)}) {
    T D = T(1);
    EXPECT_EQ(fc::fabs_vjp(Z, T(5), &D), T(0));
    EXPECT_EQ(D, T(1));
    EXPECT_EQ(fc::fabs_jvp(Z, T(5)), T(0));
    D = T(1);
    EXPECT_EQ(fc::abs_vjp(Z, T(5), &D), T(0));
    EXPECT_EQ(D, T(1));
    EXPECT_EQ(fc::abs_jvp(Z, T(5)), T(0));
  }
}

TYPED_TEST(NonDifferentiablePoints, SqrtAndCbrtAtZeroAreInfinite) {
  using T = TypeParam;
  const T Inf = std::numeric_limits<T>::infinity();
  T D = 0;
  EXPECT_EQ(fc::sqrt_vjp(T(0), T(1), &D), T(0));
  EXPECT_EQ(D, Inf);
  EXPECT_EQ(fc::sqrt_jvp(T(0), T(1)), Inf);
  D = 0;
  EXPECT_EQ(fc::cbrt_vjp(T(0), T(1), &D), T(0));
  EXPECT_EQ(D, Inf);
  EXPECT_EQ(fc::cbrt_jvp(T(0), T(1)), Inf);
}

TYPED_TEST(NonDifferentiablePoints, RoundingIsFlatAtItsJumps) {
  using T = TypeParam;
  for (T X : {T(2), T(-3), T(0.5), T(-1.5)}) {
    T D = T(1);
    fc::floor_vjp(X, T(1), &D);
    fc::ceil_vjp(X, T(1), &D);
    fc::round_vjp(X, T(1), &D);
    fc::trunc_vjp(X, T(1), &D);
    fc::rint_vjp(X, T(1), &D);
    fc::nearbyint_vjp(X, T(1), &D);
    EXPECT_EQ(D, T(1));
    EXPECT_EQ(fc::floor_jvp(X, T(1)), T(0));
    EXPECT_EQ(fc::round_jvp(X, T(1)), T(0));
  }
}

TYPED_TEST(NonDifferentiablePoints, FminFmaxGiveTiesToTheFirstArgument) {
  using T = TypeParam;
  T DX = 0, DY = 0;
  EXPECT_EQ(fc::fmax_vjp(T(2), T(2), T(1), &DX, &DY), T(2));
  EXPECT_EQ(DX, T(1));
  EXPECT_EQ(DY, T(0));
  EXPECT_EQ(fc::fmax_jvp(T(2), T(2), T(3), T(5)), T(3));
  DX = DY = 0;
  EXPECT_EQ(fc::fmin_vjp(T(2), T(2), T(1), &DX, &DY), T(2));
  EXPECT_EQ(DX, T(1));
  EXPECT_EQ(DY, T(0));
  EXPECT_EQ(fc::fmin_jvp(T(2), T(2), T(3), T(5)), T(3));
  // +0 and -0 compare equal: a tie.
  DX = DY = 0;
  fc::fmax_vjp(-T(0), T(0), T(1), &DX, &DY);
  EXPECT_EQ(DX, T(1));
  EXPECT_EQ(DY, T(0));
}

TYPED_TEST(NonDifferentiablePoints, FminFmaxFollowTheArgumentReturnedPastNaN) {
  using T = TypeParam;
  const T NaN = std::numeric_limits<T>::quiet_NaN();
  T DX = 0, DY = 0;
  EXPECT_EQ(fc::fmax_vjp(NaN, T(1), T(1), &DX, &DY), T(1));
  EXPECT_EQ(DX, T(0));
  EXPECT_EQ(DY, T(1));
  DX = DY = 0;
  EXPECT_EQ(fc::fmax_vjp(T(1), NaN, T(1), &DX, &DY), T(1));
  EXPECT_EQ(DX, T(1));
  EXPECT_EQ(DY, T(0));
  DX = DY = 0;
  EXPECT_EQ(fc::fmin_vjp(NaN, T(1), T(1), &DX, &DY), T(1));
  EXPECT_EQ(DX, T(0));
  EXPECT_EQ(DY, T(1));
  DX = DY = 0;
  EXPECT_EQ(fc::fmin_vjp(T(1), NaN, T(1), &DX, &DY), T(1));
  EXPECT_EQ(DX, T(1));
  EXPECT_EQ(DY, T(0));
}

TYPED_TEST(NonDifferentiablePoints, PowAtZero) {
  using T = TypeParam;
  const T Inf = std::numeric_limits<T>::infinity();
  struct Case {
    long double X, Y, DX, DY;
  };
  // d/dy is 0 at x == 0 (not log(0) * 0 = NaN); d/dx is 0 for y == 0.
  for (Case C : {Case{0, 2, 0, 0}, Case{0, 1, 1, 0}, Case{0, 0, 0, 0},
                 Case{0, 3.5, 0, 0}, Case{3, 0, 0, std::log(3.0L)}}) {
    SCOPED_TRACE("pow(" + std::to_string(static_cast<double>(C.X)) + ", " +
                 std::to_string(static_cast<double>(C.Y)) + ")");
    T DX = 0, DY = 0;
    EXPECT_EQ(fc::pow_vjp(T(C.X), T(C.Y), T(1), &DX, &DY),
              std::pow(T(C.X), T(C.Y)));
    EXPECT_EQ(DX, T(C.DX));
    EXPECT_TRUE(close(DY, C.DY, ulps<T>()));
    EXPECT_TRUE(close(fc::pow_jvp(T(C.X), T(C.Y), T(1), T(1)), C.DX + C.DY,
                      ulps<T>()));
  }
  T DX = 0, DY = 0;
  fc::pow_vjp(T(0), T(0.5), T(1), &DX, &DY);
  EXPECT_EQ(DX, Inf); // 0.5 * 0^-0.5, as sqrt'(0)
  EXPECT_EQ(DY, T(0));
  // An integer exponent: n x^(n-1), and 0 for n == 0.
  for (auto [N, Expected] : {std::pair<int, double>{0, 0}, {1, 1}, {2, 0},
                             {3, 0}}) {
    T D = 0;
    EXPECT_EQ(fc::pow_vjp(T(0), N, T(1), &D), std::pow(T(0), N));
    EXPECT_EQ(D, Expected) << "n = " << N;
    EXPECT_EQ(fc::pow_jvp(T(0), N, T(1)), Expected) << "n = " << N;
  }
  T D = 0;
  fc::pow_vjp(T(5), 0, T(1), &D);
  EXPECT_EQ(D, T(0));
  // An integer base 0: nothing flows to the exponent.
  D = 0;
  EXPECT_EQ(fc::pow_vjp(0, T(2), 1.0, &D), 0.0);
  EXPECT_EQ(D, T(0));
  // A negative base with an integral exponent: d/dx stays finite.
  DX = DY = 0;
  fc::pow_vjp(T(-2), T(3), T(1), &DX, &DY);
  EXPECT_EQ(DX, T(12));
}

TYPED_TEST(NonDifferentiablePoints, HypotAtTheOriginIsZero) {
  using T = TypeParam;
  T DX = 1, DY = 1;
  EXPECT_EQ(fc::hypot_vjp(T(0), T(0), T(1), &DX, &DY), T(0));
  EXPECT_EQ(DX, T(1));
  EXPECT_EQ(DY, T(1));
  EXPECT_EQ(fc::hypot_jvp(T(0), T(0), T(1), T(1)), T(0));
}

// JAX's atan2 rule gives 0/0 at the origin; so does ours.
TYPED_TEST(NonDifferentiablePoints, Atan2AtTheOriginIsNaN) {
  using T = TypeParam;
  T DX = 0, DY = 0;
  EXPECT_EQ(fc::atan2_vjp(T(0), T(0), T(1), &DX, &DY), T(0));
  EXPECT_TRUE(std::isnan(DX));
  EXPECT_TRUE(std::isnan(DY));
}

TYPED_TEST(NonDifferentiablePoints, CopysignFollowsSignAgreement) {
  using T = TypeParam;
  struct Case {
    T X, Y, DX;
  };
  for (Case C : {Case{T(2), T(1), T(1)}, Case{T(2), T(-1), T(-1)},
                 Case{T(-2), T(-1), T(1)}, Case{T(-2), T(1), T(-1)},
                 Case{T(2), -T(0), T(-1)}, Case{T(0), T(-1), T(0)},
                 Case{-T(0), T(1), T(0)}}) {
    T DX = 0, DY = 0;
    EXPECT_EQ(fc::copysign_vjp(C.X, C.Y, T(1), &DX, &DY),
              std::copysign(C.X, C.Y));
    EXPECT_EQ(DX, C.DX);
    EXPECT_EQ(DY, T(0));
    EXPECT_EQ(fc::copysign_jvp(C.X, C.Y, T(1), T(1)), C.DX);
  }
}

TYPED_TEST(NonDifferentiablePoints, FmodDerivatives) {
  using T = TypeParam;
  T DX = 0, DY = 0;
  EXPECT_EQ(fc::fmod_vjp(T(7), T(2), T(1), &DX, &DY), T(1));
  EXPECT_EQ(DX, T(1));
  EXPECT_EQ(DY, T(-3));
  DX = DY = 0;
  fc::fmod_vjp(T(-7.5), T(2), T(1), &DX, &DY);
  EXPECT_EQ(DX, T(1));
  EXPECT_EQ(DY, T(3));
}

} // namespace
