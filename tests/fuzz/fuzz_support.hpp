// Runtime side of Fluxion's differential fuzzer (tests/fuzz/fuzz.py pastes
// this file into every translation unit it generates, so that a kept
// translation unit compiles on its own).
//
// Each generated program comes with wrappers that take its differentiated
// inputs flattened into one long double vector X (scalars, then array
// elements, in parameter order) and give its outputs flattened into Y (the
// result, then the elements of output arrays). run_program evaluates every
// generated derivative at the program's point and the finite differences
// they are checked against, and prints raw numbers; fuzz.py does the
// comparisons. Finite differences are taken of the program's reference
// clone (every floating type replaced by long double), in long double, with
// steps h and h/2, and give for every output
//   c1, c2: central differences with steps h and h/2,
//   d1, d2: forward minus backward one-sided differences (steps h, h/2),
// which tell a kink (d does not shrink with the step, or c1 and c2 differ)
// from a smooth point. The program's *path copy* (the clone without
// annotations, its branch conditions, conversions to int and fabs/fmin/fmax
// selections wrapped in br/pint/pfabs/pfmin/pfmax below) hashes the path it
// takes; each set of differences says whether one of its points took
// another path than the evaluation point (a tie in a condition, fabs at 0):
// there the differences are not a reference for what AD differentiates.
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <type_traits>
#include <vector>

namespace fuzz {

/// A template taking a lambda (the generated programs call lambdas through
/// it too): f(a), with f's own result type.
template <class F, class A> auto call_with(F f, A a) { return f(a); }
/// A function returning a std::vector by value, filled by push_back (the
/// generated programs initialise local vectors from it): bounded whatever
/// v holds.
template <class T> std::vector<T> smoothed(const std::vector<T> &v, T k) {
  std::vector<T> r;
  for (std::size_t i = 0; i < v.size(); ++i)
    r.push_back(std::tanh(k * v[i]) + v[(i + 1) % v.size()] / T(2));
  return r;
}
/// A rotation by k of the point (a, b), returned as a std::array (the
/// generated programs read an element of the result): braced results,
/// and a local assigned a callee's result in a loop.
template <class T>
std::array<T, 2> quarter_turn(const std::array<T, 2> &p, T k) {
  return {p[0] * std::cos(k) - p[1] * std::sin(k),
          p[0] * std::sin(k) + p[1] * std::cos(k)};
}
template <class T> std::array<T, 2> turned(T a, T b, T k) {
  std::array<T, 2> p{a, b};
  for (int i = 0; i < 2; ++i)
    p = quarter_turn(p, T(0.5) * k);
  return p;
}
using LD = long double;
using Vec = std::vector<LD>;
using EvalFn = void (*)(const LD *X, LD *Y);
using PathFn = unsigned long long (*)(const LD *X);

// The path copy's record of the path taken.
inline unsigned long long &path_hash() {
  static unsigned long long h = 0;
  return h;
}
inline void path_add(long long v) {
  unsigned long long &h = path_hash();
  h = (h ^ static_cast<unsigned long long>(v)) * 1099511628211ULL + 0x9e3779b97f4a7c15ULL;
}
template <class A, class B> int cmp3(A a, B b) { return a < b ? 0 : (b < a ? 2 : 1); }
inline bool br(bool c) {
  path_add(c ? 1 : 2);
  return c;
}
template <class T> int pint(T x) {
  int k = static_cast<int>(x);
  path_add(16 + 4LL * k);
  return k;
}
template <class T> auto pfabs(T x) -> decltype(std::fabs(x)) {
  path_add(32 + cmp3(x, 0));
  return std::fabs(x);
}
template <class A, class B> auto pfmin(A a, B b) -> decltype(std::fmin(a, b)) {
  path_add(48 + cmp3(a, b));
  return std::fmin(a, b);
}
template <class A, class B> auto pfmax(A a, B b) -> decltype(std::fmax(a, b)) {
  path_add(64 + cmp3(a, b));
  return std::fmax(a, b);
}
// What f_jacobian's J and f_hessian's H hold before the call.
constexpr LD UNWRITTEN = 123456789.0L;

struct Prog {
  int seed, N, M;
  const LD *X0, *V, *W;
  LD hrel;
  EvalFn eval_own, eval_ref;
  PathFn path;                                      // the path copy's hash
  EvalFn grad_ref;                                  // the clone's f_grad
  void (*grad_own)(const LD *X, LD *G, LD *Y);      // f_grad
  void (*vjp_own)(const LD *X, const LD *W, LD *G, LD *Y);
  void (*jvp_own)(const LD *X, const LD *V, LD *T, LD *Y);
  void (*hvp_own)(const LD *X, const LD *V, LD *HV);
  void (*hess_own)(const LD *X, LD *H);
  void (*jac_own)(const LD *X, LD *J);
};

inline void print_vec(const char *tag, const Vec &v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    std::printf("%s %zu %.21Lg\n", tag, i, v[i]);
}

// Central and one-sided differences of f: R^n -> R^m along d, and whether
// a point of them takes another path than x0 (line "<tag>P col changed").
inline void fd(EvalFn f, PathFn path, int n, int m, const LD *x0, const Vec &d,
               LD h, const char *tag, int col) {
  Vec x(n), f0(m), fp(m), fm(m), fp2(m), fm2(m);
  f(x0, f0.data());
  unsigned long long p0 = path(x0);
  bool changed = false;
  auto at = [&](LD s, Vec &out) {
    for (int i = 0; i < n; ++i)
      x[i] = x0[i] + s * d[i];
    f(x.data(), out.data());
    changed |= path(x.data()) != p0;
  };
  at(h, fp);
  at(-h, fm);
  at(h / 2, fp2);
  at(-h / 2, fm2);
  std::printf("%sP %d %d\n", tag, col < 0 ? 0 : col, changed ? 1 : 0);
  for (int j = 0; j < m; ++j) {
    LD c1 = (fp[j] - fm[j]) / (2 * h), c2 = (fp2[j] - fm2[j]) / h;
    LD d1 = (fp[j] - 2 * f0[j] + fm[j]) / h;
    LD d2 = (fp2[j] - 2 * f0[j] + fm2[j]) / (h / 2);
    if (col >= 0)
      std::printf("%s %d %d %.21Lg %.21Lg %.21Lg %.21Lg\n", tag, col, j, c1, c2,
                  d1, d2);
    else
      std::printf("%s %d %.21Lg %.21Lg %.21Lg %.21Lg\n", tag, j, c1, c2, d1, d2);
  }
}

inline void run_program(const Prog &P) {
  const int N = P.N, M = P.M;
  std::printf("BEGIN %d\n", P.seed);
  std::fflush(stdout);
  Vec Y(M), G(N), T(M), HV(N), e(N), ey(M);
  P.eval_own(P.X0, Y.data());
  print_vec("Y", Y);
  P.eval_ref(P.X0, Y.data());
  print_vec("YR", Y);
  // Columns of the reference Jacobian.
  for (int i = 0; i < N; ++i) {
    Vec d(N, 0);
    d[i] = 1;
    fd(P.eval_ref, P.path, N, M, P.X0, d, P.hrel * std::fmax(1, std::fabs(P.X0[i])),
       "FDC", i);
  }
  // Along V.
  LD xmax = 1, vmax = 0;
  for (int i = 0; i < N; ++i) {
    xmax = std::fmax(xmax, std::fabs(P.X0[i]));
    vmax = std::fmax(vmax, std::fabs(P.V[i]));
  }
  LD hv = P.hrel * xmax / (vmax > 0 ? vmax : 1);
  Vec V(P.V, P.V + N);
  fd(P.eval_ref, P.path, N, M, P.X0, V, hv, "FDV", -1);
  if (P.grad_ref) {
    P.grad_ref(P.X0, G.data());
    print_vec("RG", G);
    fd(P.grad_ref, P.path, N, N, P.X0, V, hv, "FDG", -1);
  }
  if (P.grad_own) {
    G.assign(N, 0);
    P.grad_own(P.X0, G.data(), Y.data());
    print_vec("G", G);
    print_vec("GY", Y);
  }
  G.assign(N, 0);
  P.vjp_own(P.X0, P.W, G.data(), Y.data());
  print_vec("VJ", G);
  print_vec("VJY", Y);
  if (P.jvp_own) {
    P.jvp_own(P.X0, P.V, T.data(), Y.data());
    print_vec("JV", T);
    print_vec("JVY", Y);
  }
  if (P.hvp_own) {
    HV.assign(N, 0);
    P.hvp_own(P.X0, P.V, HV.data());
    print_vec("HV", HV);
  }
  if (P.hess_own) {
    Vec H(N * N);
    P.hess_own(P.X0, H.data());
    for (int i = 0; i < N; ++i)
      for (int c = 0; c < N; ++c)
        std::printf("H %d %d %.21Lg\n", i, c, H[i * N + c]);
    for (int c = 0; c < N; ++c) {
      e.assign(N, 0);
      e[c] = 1;
      HV.assign(N, 0);
      P.hvp_own(P.X0, e.data(), HV.data());
      for (int i = 0; i < N; ++i)
        std::printf("HC %d %d %.21Lg\n", i, c, HV[i]);
    }
  }
  if (P.jac_own) {
    Vec J(M * N);
    P.jac_own(P.X0, J.data());
    for (int r = 0; r < M; ++r)
      for (int c = 0; c < N; ++c)
        std::printf("J %d %d %.21Lg\n", r, c, J[r * N + c]);
    if (P.jvp_own)
      for (int c = 0; c < N; ++c) {
        e.assign(N, 0);
        e[c] = 1;
        P.jvp_own(P.X0, e.data(), T.data(), Y.data());
        for (int r = 0; r < M; ++r)
          std::printf("JC %d %d %.21Lg\n", r, c, T[r]);
      }
    for (int r = 0; r < M; ++r) {
      ey.assign(M, 0);
      ey[r] = 1;
      G.assign(N, 0);
      P.vjp_own(P.X0, ey.data(), G.data(), Y.data());
      for (int c = 0; c < N; ++c)
        std::printf("JR %d %d %.21Lg\n", r, c, G[c]);
    }
  }
  std::printf("END %d\n", P.seed);
  std::fflush(stdout);
}

// The last parameter's pointee type of a generated function (f_jacobian's J,
// f_hessian's H), whatever element type the engine chose for it.
template <class F> struct LastPointee;
template <class R, class... A> struct LastPointee<R (*)(A...)> {
  using Tuple = std::tuple<A...>;
  using type = typename std::remove_pointer<
      typename std::tuple_element<sizeof...(A) - 1, Tuple>::type>::type;
};

inline int main_(const Prog *progs, int n, int argc, char **argv) {
  for (int i = 0; i < n; ++i)
    if (argc < 2 || std::atoi(argv[1]) == progs[i].seed)
      run_program(progs[i]);
  return 0;
}
} // namespace fuzz
