"""Random C++ programs for Fluxion's differential fuzzer.

One *program* is a handful of helper functions and one annotated function,
all drawn from a seed (random.Random(seed)); the same seed and the same
feature set always give the same program. The program text is written with
type placeholders so that it can be rendered twice:

  * the program itself, mixing float, double, long double and int, compiled
    with every annotation the function supports;
  * its *reference clone*, the same text with every floating type (and every
    literal suffix) replaced by long double and only [[fluxion::grad]] on the
    function: finite differences of the clone are the reference the
    derivatives are checked against, and the clone's gradient is the one
    whose finite differences check f_hvp.

Values are kept bounded by construction (squashing functions around
exponentials and products, safe denominators, positive arguments for log and
sqrt) so that every program evaluates to finite numbers; kinks (fabs at 0,
ties in fmin/fmax, fmax(sqrt(x), eps) at x = 0) are placed on purpose at the
evaluation point.
"""

import random
import re

# Features a class of programs can be switched off by (--no-FEATURE).
FEATURES = {
    'float': 'float values, parameters and helpers',
    'double': 'double values, parameters and helpers',
    'longdouble': 'long double values, parameters and helpers',
    'int': 'int parameters, locals and int/floating mixing',
    'casts': 'explicit casts (static_cast, C-style, functional)',
    'helpers': 'calls to helper functions with their own parameter/return types',
    'nested': 'helper calls nested in helper arguments and helper bodies',
    'voidhelpers': 'void helpers writing through a pointer parameter',
    'loops': 'for loops',
    'while': 'while loops',
    'breakcont': 'break and continue',
    'branches': 'if/else on data',
    'ternary': 'the ?: operator',
    'earlyreturn': 'return inside branches and loops',
    'cmath': '<cmath> calls (sin cos exp log sqrt tanh pow fmin fmax fabs)',
    'kinks': 'fabs at 0, ties in fmin/fmax, fmax(sqrt(x), eps) at x = 0',
    'ptrin': 'const T* input parameters (runtime length n)',
    'ptrout': 'T* output parameters (runtime length n)',
    'arrin': 'const T a[N] input parameters',
    'arrout': 'T a[N] output parameters',
    'rwarray': 'non-const T a[N] parameters that are only read',
    'localarrays': 'local fixed-size arrays',
    'constarrays': 'const local arrays with literal initializers',
    'custom': 'helpers with custom derivative rules (fluxion::custom::g_vjp/g_jvp)',
    'restrict': 'restricted annotations [[fluxion::grad("x", ...)]]',
    'jvp': '[[fluxion::jvp]] (f_jvp)',
    'hessian': '[[fluxion::hessian]] (f_hvp, f_hessian)',
    'jacobian': '[[fluxion::jacobian]] (f_jacobian)',
    'mixedhessian': '[[fluxion::hessian]] on functions mixing floating types',
    'refs': 'references: const T& parameters (of f and of helpers), void helpers '
            'writing through a T& (called on array elements)',
    'structs': 'a struct of reals (scalar and array members of mixed types, an int '
               'member) passed to f and to helpers as const S& or by value, read as '
               's.m and s.a[i], copied into locals whose members are written, and '
               'given braced objects that read the members they replace, and '
               'named by structured bindings (auto &[b1, b2] = c) written through',
    'methods': "the struct's methods: a const one read in expressions (s.get(v)), one "
               'that writes a member of a local copy (c.put(v), returning *this), a '
               'constructor from two reals',
    'aliases': 'local references and pointers that stay put: T &r = a[i] (read and '
               'written), T *w = a (written through), const S &r = s',
    'lambdas': 'lambdas defined in f and in helpers ([&] reading the scope, [=] '
               'copying the scalars it reads), some taking a const T* that a call '
               'gives an array variable, and called in expressions, directly or '
               'through a template taking the lambda (fuzz::call_with(f, e))',
    'templates': 'f as a function template (a scalar parameter of type T, deduced; '
                 '&f_hessian<> names its instance), helpers as templates '
                 'template <int K> called as h<1>, h<2>, ... in one function',
    'minmax': 'std::min, std::max (deduced, or std::max<T> with converted arguments), '
              'std::clamp with ordered ends and std::abs on floating operands',
    'containers': 'std::vector parameters: some runtime-length inputs and outputs '
                  'are const std::vector<T>& / std::vector<T>& or std::vector<T> by '
                  'value that f changes (indexed, passed to '
                  'helpers as .data(), walked by range-based for); local arrays at '
                  'the top of f and of helpers spelled std::vector<T> a(L) or = {...}',
    'iterators': 'with containers: loops over a std::vector by iterator (auto it = '
                 'v.begin(); it != v.end(); ++it) reading *it, it[0] and it - '
                 'v.begin() or writing *it; std::transform with a [&] lambda, '
                 'std::accumulate (plain or with a lambda), std::inner_product, '
                 '*std::max_element / *std::min_element (plain or with a lambda), '
                 '*std::find_if / find_if_not, std::sort of a local vector, '
                 'std::copy / copy_n / fill / fill_n into a vector',
    'eigen': 'with containers: some of the std::vector parameters and sized local '
             'containers are Eigen vectors instead, Eigen::Matrix<T, Eigen::Dynamic, 1> '
             '(indexed, passed to helpers as .data(), walked by range-based for, '
             'reduced whole: sum, squaredNorm, dot, mean of them, of '
             'coefficient-wise expressions over them and of auto locals '
             'holding such expressions; arithmetic in place on them as arrays: '
             'a.array() += s, *=, /=, -= by array expressions); with structs, the struct\'s array '
             'member is sometimes an Eigen::Matrix<T, L, 1>',
    'rangefor': 'range-based for over arrays of known size (local arrays, struct '
                'member arrays, local arrays of S): by value, by const reference, '
                'by reference writing the elements',
    'loopshapes': 'for loops whose bounds follow the enclosing counter (triangular '
                  'i + 1 .. n, 0 ..= i, growing and shrinking ranges) and inclusive '
                  'bounds <= n - 1',
    'walk': 'pointers that walk and side effects inside expressions: local '
            'pointers moved with ++p, p++, --p, p += d, p = x + k inside their '
            'array, read as *p, p[j], *p++, *--p, compared with an end pointer, '
            'differences p - x, written through; helpers whose pointer '
            'parameters walk (while (n--) s += *x++ * *y++; x += 1); y[k++] = e, '
            'x[k++], while (++j < k), for (size_t i = n; i-- > 0;), a = b = e, '
            'if ((t = e) > c && ++k > 0), ++i, --m in a for increment, old = c++',
    'sizes': 'with containers: size changes of local std::vectors in f: a '
             'vector declared inside a loop (sized, filled, braced, or '
             'returned by fuzz::smoothed, a function returning a vector), and '
             'vectors of f resized shorter and back (resize(k), resize(L, e)), '
             'cleared and refilled by push_back, assigned (assign(L, e), = '
             'another vector, = {...}), popped and pushed again, an element '
             'erased and one inserted (at begin() + k), a range erased and as '
             'many values inserted (one by one at end(), as a run insert(p, m, '
             'v), or a range of another vector insert(p, b, e)); with structs, '
             'a local std::vector<S> of copies of the struct in scope, whose '
             'elements\' members are read and written',
    'stencil': 'sweeps over a writable array of known length whose iterations '
               'read the neighbours (periodic indices fixed up by ifs) and the '
               'element into const locals, then overwrite the element; some also '
               'overwrite a neighbour afterwards, or carry the old value to the '
               'next iteration in a local (t = old)',
    'arrayresults': 'calls of fuzz::turned<T>(a, b, k)[j], a function '
                    'returning a std::array (braced, and built by assigning '
                    'a callee\'s std::array result in a loop), in expressions',
    'callsite': 'the driver calls f_vjp and f_jvp through the call-site form '
                'fluxion::vjp(&f, names...)(...) and fluxion::jvp(&f, names...)(...), '
                'which share the annotation\'s functions',
}

FLOAT_TYPES = ['f', 'd', 'l']
RANK = {'i': 0, 'f': 1, 'd': 2, 'l': 3}
CTYPE = {'f': '%F%', 'd': '%D%', 'l': '%L%', 'i': 'int'}
LITERALS = ['0.5', '0.25', '1.5', '2.0', '0.75', '1.25', '3.0', '0.125', '1.0']

# How the placeholders render.
# %BR(%...%BR)% marks a branch condition and %PI(%...%PI)% a conversion to
# int: nothing in the program and its clone (the text stays as it would be
# without them: an added pair of parentheses can turn `(int(double(x)))`
# into a function type), and recorded by the path copy (see PATH).
ORIG = {'%FNF%': 'float', '%FND%': 'double', '%FNI%': 'int',
        '%F%': 'float', '%D%': 'double', '%L%': 'long double',
        '%sf%': 'f', '%sd%': '', '%sl%': 'L', '%R%': '', '%BR(%': '', '%BR)%': '',
        '%PI(%': '', '%PI)%': ''}
CLONE = {'%FNF%': 'static_cast<long double>', '%FND%': 'static_cast<long double>',
         '%FNI%': 'int', '%F%': 'long double', '%D%': 'long double', '%L%': 'long double',
         '%sf%': 'L', '%sd%': 'L', '%sl%': 'L', '%R%': 'r', '%BR(%': '', '%BR)%': '',
         '%PI(%': '', '%PI)%': ''}
# The *path copy*: the clone without annotations, whose every branch
# condition, conversion to int and fabs/fmin/fmax selection adds to a hash
# of the path taken (fuzz_support.hpp). Finite differences whose points take
# another path than the evaluation point are not a reference for the
# derivative of the path AD differentiates (a tie in a condition, fabs at 0).
PATH = dict(CLONE, **{'%R%': 'p', '%BR(%': 'fuzz::br(', '%BR)%': ')',
                      '%PI(%': 'fuzz::pint(', '%PI)%': ')',
                      'std::fabs(': 'fuzz::pfabs(', 'std::fmin(': 'fuzz::pfmin(',
                      'std::fmax(': 'fuzz::pfmax(',
                      'std::max(': 'path_max(', 'std::max<': 'path_max<',
                      'std::min(': 'path_min(', 'std::min<': 'path_min<',
                      'std::clamp(': 'path_clamp(', 'std::abs(': 'path_abs('})
# The path copy's std::max, std::min, std::clamp and std::abs, defined in
# the path copy's namespace of a program that calls them (fuzz_support.hpp's
# path_add and cmp3 record the selection).
PATH_SELECT = '''template <class T> const T &path_max(const T &a, const T &b) {
  fuzz::path_add(80 + fuzz::cmp3(a, b));
  return std::max(a, b);
}
template <class T> const T &path_min(const T &a, const T &b) {
  fuzz::path_add(96 + fuzz::cmp3(a, b));
  return std::min(a, b);
}
template <class T> const T &path_clamp(const T &v, const T &lo, const T &hi) {
  fuzz::path_add(112 + 3 * fuzz::cmp3(v, lo) + fuzz::cmp3(v, hi));
  return std::clamp(v, lo, hi);
}
template <class T> T path_abs(T x) {
  fuzz::path_add(128 + fuzz::cmp3(x, 0));
  return std::abs(x);
}
'''
# Ends of std::clamp and constant arguments of std::min/std::max: odd
# multiples of 1/256, exact in float, which inputs (multiples of 1/64) and
# the generator's literals never equal (no ties on purpose).
LITERAL = re.compile(r'^-?[0-9.]+(%s[fdl]%)?$')
SELECT_LITERALS = ['-1.00390625', '-0.62109375', '-0.37890625', '-0.12109375',
                   '0.12890625', '0.37109375', '0.62890625', '1.12890625']


def render(text, table):
    for k, v in table.items():
        text = text.replace(k, v)
    return text


def promote(a, b):
    """Usual arithmetic conversions on our type letters."""
    return a if RANK[a] >= RANK[b] else b


def math_result(*ts):
    """<cmath>'s result type for these argument types (ints -> double)."""
    fl = [t for t in ts if t != 'i']
    if len(fl) < len(ts):
        fl.append('d')
    r = fl[0]
    for t in fl[1:]:
        r = promote(r, t)
    return r


def dyadic(rng, lo=-1.5, hi=1.5):
    """A value exactly representable in float (multiples of 1/64)."""
    return round(rng.uniform(lo, hi) * 64) / 64.0


class Member:
    """A data member of the program's struct: a scalar (length None) or a
    fixed-size array of type t."""
    def __init__(self, name, t, length=None, eigen=False):
        self.name, self.t, self.length = name, t, length
        self.eigen = eigen  # an Eigen vector of fixed size instead

    def decl(self):
        if self.length is None:
            return '%s %s;' % (CTYPE[self.t], self.name)
        if self.eigen:
            return 'Eigen::Matrix<%s, %d, 1> %s;' % (CTYPE[self.t], self.length,
                                                     self.name)
        return '%s %s[%d];' % (CTYPE[self.t], self.name, self.length)


class Param:
    # kind: S scalar, I int, CP const T*, OP T* output, CA const T a[L],
    #       OA T a[L] output, RA non-const T a[L] that is only read,
    #       ST const S& (the program's struct, see Member).
    def __init__(self, name, kind, t, length=1):
        self.name, self.kind, self.t, self.length = name, kind, t, length
        self.active = kind != 'I'
        self.value = None  # float (S), int (I) or list (arrays, ST: flattened)
        self.ref = False   # S: passed as const T&
        self.vec = False   # CP, OP: spelled as a std::vector of length L
        self.eigen = False  # vec: an Eigen vector instead (vec_type)
        self.members = []  # ST: the struct's members
        self.tparam = False  # S: of f's template parameter type T
        self.copy = False  # CP vec: a std::vector taken by value, changed in f

    @property
    def is_input(self):
        return self.kind in ('S', 'CP', 'CA', 'RA', 'ST')

    @property
    def is_output(self):
        return self.kind in ('OP', 'OA')

    @property
    def is_array(self):
        return self.kind in ('CP', 'OP', 'CA', 'OA', 'RA')

    def decl(self):
        if self.kind == 'ST':
            return ('const S &%s' if self.ref else 'S %s') % self.name
        T = 'T' if self.tparam else CTYPE[self.t]
        if self.kind == 'S' and self.ref:
            return 'const %s &%s' % (T, self.name)
        if self.kind in ('S', 'I'):
            return '%s %s' % (T, self.name)
        if self.kind == 'CP':
            if self.vec and self.copy:
                return '%s %s' % (vec_type(T, self.eigen), self.name)
            if self.vec:
                return 'const %s &%s' % (vec_type(T, self.eigen), self.name)
            return 'const %s *%s' % (T, self.name)
        if self.kind == 'OP':
            if self.vec:
                return '%s &%s' % (vec_type(T, self.eigen), self.name)
            return '%s *%s' % (T, self.name)
        if self.kind == 'CA':
            return 'const %s %s[%d]' % (T, self.name, self.length)
        return '%s %s[%d]' % (T, self.name, self.length)  # OA, RA


def vec_type(T, eigen):
    """A runtime-length vector of T: std::vector or an Eigen vector."""
    if eigen:
        return 'Eigen::Matrix<%s, Eigen::Dynamic, 1>' % T
    return 'std::vector<%s>' % T


class Var:
    def __init__(self, name, t, assignable=True, value=None):
        self.name, self.t, self.assignable, self.value = name, t, assignable, value


class Arr:
    def __init__(self, name, t, length, readable, writable, fixed=False,
                 vec=False, eigen=False, resizable=False):
        self.name, self.t, self.length = name, t, length
        self.readable, self.writable = readable, writable
        # A local std::vector of f (not of a helper, whose split pair f_hvp
        # could not follow): its size may change (feature sizes).
        self.resizable = resizable
        # An array of known size (a local array, a member array, a
        # std::vector parameter): a range for can walk it. Array parameters
        # are pointers, as are aliases.
        self.fixed = fixed
        # A std::vector: passed on as a pointer through .data(), and no
        # local pointer or reference aliases it.
        self.vec = vec
        # An Eigen vector: also read whole, by reductions (eigen_atom).
        self.eigen = eigen

    @property
    def ptr(self):
        return self.name + '.data()' if self.vec else self.name


class Helper:
    def __init__(self, name, ret, params, text, arr_param=None, void=False):
        self.name, self.ret, self.params, self.text = name, ret, params, text
        self.arr_param = arr_param  # element type of a leading pointer param
        self.void = void
        self.custom = False
        self.ref_out = False  # a void helper writing through T &o
        self.takes_struct = False  # a leading const S &q, before the others
        self.tmpl = False  # template <int K>, called as name<k>


class Scope:
    def __init__(self):
        self.vars = []     # floating scalars
        self.ints = []     # int names
        self.arrays = []
        self.loops = []    # loop counters usable as indices (0 <= i < L)
        self.struct = None # the name of a const S& in scope, if any
        self.objects = []  # (name, writable) of every S object in scope
        self.lambdas = []  # (name, result type) of the lambdas in scope
        self.rdepth = 0    # range-based for loops around (they count as loops)
        self.autos = []    # `auto` locals holding Eigen expressions (Arr)

    def copy(self):
        s = Scope()
        s.rdepth = self.rdepth
        s.lambdas = list(self.lambdas)
        s.vars, s.ints = list(self.vars), list(self.ints)
        s.arrays, s.loops = list(self.arrays), list(self.loops)
        s.struct = self.struct
        s.objects = list(self.objects)
        s.autos = list(self.autos)
        return s

    def add_members(self, members, spell, writable):
        """Makes the members of an S object usable, each spelled spell(m)
        (s.m0, this->m0), assignable when writable."""
        for m in members:
            name = spell(m)
            if m.t == 'i':
                self.ints.append(name)
            elif m.length is None:
                self.vars.append(Var(name, m.t, assignable=writable))
            else:
                self.arrays.append(Arr(name, m.t, m.length, True, writable,
                                       fixed=True, vec=m.eigen,
                                       eigen=m.eigen))

    def add_object(self, name, members, writable=False):
        """An S object `name` in scope: its methods callable, its members
        usable."""
        self.objects.append((name, writable))
        self.add_members(members, lambda m: '%s.%s' % (name, m.name), writable)

    def add_struct(self, name, members):
        """Makes the const S& `name` the struct in scope."""
        self.struct = name
        self.add_object(name, members)


class Generator:
    def __init__(self, seed, features):
        self.seed = seed
        self.rng = random.Random(seed * 7919 + 17)
        # Template choices draw from their own stream: with the feature off,
        # or where it draws no template, a seed's program is unchanged.
        self.trng = random.Random(seed * 7919 + 23)
        self.lrng = random.Random(seed * 7919 + 29)  # likewise for lambdas
        self.mrng = random.Random(seed * 7919 + 31)  # std::min/max/clamp/abs
        self.frng = random.Random(seed * 7919 + 37)  # range-based for
        self.crng = random.Random(seed * 7919 + 41)  # std::vector parameters
        self.srng = random.Random(seed * 7919 + 47)  # loop shapes
        self.erng = random.Random(seed * 7919 + 53)  # Eigen vectors
        self.wrng = random.Random(seed * 7919 + 59)  # walking pointers, side effects
        self.irng = random.Random(seed * 7919 + 61)  # iterators, <algorithm>
        self.vrng = random.Random(seed * 7919 + 83)  # std::vector by value, changed
        self.zrng = random.Random(seed * 7919 + 67)  # size changes of vectors
        self.nrng = random.Random(seed * 7919 + 71)  # stencil sweeps
        self.arng = random.Random(seed * 7919 + 73)  # std::array results
        self.drng = random.Random(seed * 7919 + 79)  # do-while, reset accumulators
        self.walk_helpers = []     # helpers whose pointer parameters walk
        self.walk_params = set()   # f's pointer parameters (a walk moves and restores them)
        self.walk_in_loop = False
        self.walked = set()        # those a walk moved
        self.lambda_text = ''      # what lambdas read and are given, so far
        self.f = set(features)
        self.types = [t for t in FLOAT_TYPES
                      if {'f': 'float', 'd': 'double', 'l': 'longdouble'}[t] in self.f]
        if not self.types:
            self.types = ['d']
        self.used = set()
        self.helpers = []
        self.counter = 0
        self.L = self.rng.choice([2, 3, 4])
        self.bound = str(self.L)   # loop bound text (n when there is one)
        self.kink_params = []      # (name, kind of kink)
        self.in_helper = False
        # At most one const local array in a fifth of the programs.
        self.const_arrays = 1 if self.rng.random() < 0.2 else 0
        self.members = []          # the program's struct S, if it has one
        self.methods = []          # its methods' text
        self.get_t = None          # S::get's result type, if S has methods

    # -- small helpers -------------------------------------------------
    def on(self, feat):
        return feat in self.f

    def chance(self, p):
        return self.rng.random() < p

    def fresh(self, prefix):
        self.counter += 1
        return '%s%d' % (prefix, self.counter)

    def ftype(self):
        t = self.rng.choice(self.types)
        self.used.add(t)
        return t

    def lit(self, t=None):
        t = t or self.ftype()
        self.used.add(t)
        return self.rng.choice(LITERALS) + {'f': '%sf%', 'd': '%sd%', 'l': '%sl%'}[t], t

    def ctype(self, t):
        self.used.add(t)
        return CTYPE[t]

    def cast(self, text, t):
        """An explicit conversion of text to type t, in one of C++'s forms."""
        self.used.add(t)
        T = CTYPE[t]
        form = self.rng.randrange(3)
        if form == 0 or t == 'l' and form == 2:
            c = 'static_cast<%s>(%s)' % (T, text)
        elif form == 1:
            c = '(%s)(%s)' % (T, text)
        else:
            c = '%%FN%s%%(%s)' % (t.upper(), text)
        return '%%PI(%%%s%%PI)%%' % c if t == 'i' else c

    # -- expressions ----------------------------------------------------
    def index(self, sc, arr):
        opts = [str(self.rng.randrange(arr.length))]
        if sc.loops and arr.length == self.L:
            i = self.rng.choice(sc.loops)
            opts += [i, i, '(%s + 1) %% %d' % (i, arr.length),
                     '%d - 1 - %s' % (arr.length, i)]
        data_ints = [k for k in sc.ints if k.startswith('k')]
        if data_ints:
            k = self.rng.choice(data_ints)
            opts.append('((%s %% %d) + %d) %% %d' % (k, arr.length, arr.length,
                                                     arr.length))
        return self.rng.choice(opts)

    def eigen_atom(self, sc):
        """A reduction of an Eigen vector in scope, maybe of an expression
        over it, or None (drawn from the Eigen stream)."""
        vs = [a for a in sc.arrays if a.readable and a.eigen] + sc.autos
        if not vs or self.erng.random() >= 0.15:
            return None
        a = self.erng.choice(vs)
        b = self.erng.choice([v for v in vs if v.t == a.t and v.length == a.length])
        n = a.name
        forms = ['%s.sum()' % n, '%s.squaredNorm()' % n, '%s.dot(%s)' % (n, b.name),
                 '%s.mean()' % n, '(%s.array() * %s.array()).sum()' % (n, b.name),
                 '(%s - 0.5 * %s).squaredNorm()' % (n, b.name),
                 '(%s.array().square() + %s.array()).sum()' % (n, b.name),
                 '%s.cwiseProduct(%s).mean()' % (n, b.name),
                 '%s.cwiseMax(%s).sum()' % (n, b.name),
                 '%s.cwiseMin(%s).dot(%s)' % (n, b.name, n),
                 '%s.normalized().dot(%s)' % (n, b.name)]
        # Products of dynamic-size matrices (outer products of the vectors,
        # then matrix-vector and vector-matrix products, transposed ones):
        # run by Eigen's kernels through fluxion::eigen_product's rules.
        # Scaled by the length so that their values stay of the size of
        # the other atoms'.
        m, L = b.name, a.length
        forms += ['(%s * %s.transpose()).mean()' % (n, m),
                  '(%s * %s.transpose() * %s).mean() / %d' % (n, m, n, L),
                  '(%s.transpose() * (%s * %s.transpose())).mean() / %d'
                  % (m, n, m, L),
                  '((%s * %s.transpose()).transpose() * %s).dot(%s) / %d'
                  % (n, m, n, m, L * L),
                  '(%s.transpose() * %s).mean() / %d' % (n, m, L)]
        # Arrays with numbers, more coefficient-wise functions, diagonals
        # and casts (bounded where the function needs it).
        forms += ['(%s.array() - 0.5).square().sum()' % n,
                  '(1.0 - %s.array() * %s.array()).mean()' % (n, m),
                  '(%s.array().cube() + %s.array()).mean()' % (n, m),
                  '(%s.array().atan() * %s.array()).sum()' % (n, m),
                  '(1.0 / (1.0 + %s.array().square())).sum()' % n,
                  '(%s.array().square() + 1.0).inverse().sum()' % m,
                  '(%s.array().square() + 0.5).pow(0.75).mean()' % n,
                  '(%s.asDiagonal() * %s).dot(%s)' % (n, m, n),
                  '(%s.transpose() * %s.asDiagonal()).sum()' % (m, n),
                  '(%s * %s.transpose()).diagonal().sum()' % (n, m),
                  'static_cast<%s>(%s.cast<long double>().squaredNorm())'
                  % (CTYPE[a.t], n)]
        # Triangular and self-adjoint views of outer products, on either
        # side of a product; a row dotted with a column.
        forms += ['((%s * %s.transpose()).triangularView<Eigen::Lower>() * %s)'
                  '.sum() / %d' % (n, m, n, L),
                  '(%s.transpose() * (%s * %s.transpose())'
                  '.triangularView<Eigen::StrictlyUpper>()).dot(%s) / %d'
                  % (m, n, m, n, L * L),
                  '((%s * %s.transpose()).triangularView<Eigen::UnitUpper>() * %s)'
                  '.mean()' % (n, m, m),
                  'static_cast<%s>(%s.transpose() * (%s * %s.transpose())'
                  '.selfadjointView<Eigen::Lower>() * %s) / %d'
                  % (CTYPE[a.t], n, m, n, m, L * L),
                  '%s.transpose().dot(%s)' % (n, m)]
        return self.erng.choice(forms), a.t

    def eigen_auto(self, sc, pad):
        """`auto eN = <expression over Eigen vectors in scope>;`, which
        later reductions read (eigen_atom) as Eigen does: over the vectors'
        values at each use. None if there is no Eigen vector in scope."""
        vs = [a for a in sc.arrays if a.readable and a.eigen]
        if not vs:
            return None
        a = self.erng.choice(vs)
        b = self.erng.choice([v for v in vs if v.t == a.t and v.length == a.length])
        n, m = a.name, b.name
        forms = ['%s - 0.5 * %s' % (n, m),
                 '%s.cwiseProduct(%s) + %s' % (n, m, n),
                 '(%s.array() * %s.array()).matrix()' % (n, m),
                 '%s * %s.mean() - %s' % (n, m, m),
                 '(%s.array().square() + %s.array()).matrix()' % (n, m),
                 '%s.cwiseMax(%s) + 0.25 * %s' % (n, m, m)]
        name = self.fresh('e')
        sc.autos.append(Arr(name, a.t, a.length, True, False, eigen=True))
        return '%sauto %s = %s;' % (pad, name, self.erng.choice(forms))

    def eigen_inplace(self, sc, pad):
        """Arithmetic in place on an Eigen vector seen as an array
        (`a.array() += s`, `a.array() *= ...`), bounded. None if no Eigen
        vector in scope is written."""
        ws = [a for a in sc.arrays if a.readable and a.writable and a.eigen]
        if not ws:
            return None
        a = self.erng.choice(ws)
        b = self.erng.choice([v for v in sc.arrays if v.readable and v.eigen and
                              v.t == a.t and v.length == a.length])
        T = self.ctype(a.t)
        n, m = a.name, b.name
        form = self.erng.randrange(4)
        if form == 0:
            sq, _ = self.squash(sc, 1)
            return '%s%s.array() += %s;' % (pad, n, sq)
        if form == 1:
            return ('%s%s.array() *= static_cast<%s>(1) - %s.array() / '
                    '(static_cast<%s>(2) + %s.array().square());' % (pad, n, T, m, T, m))
        if form == 2:
            return '%s%s.array() /= static_cast<%s>(1.5) + %s.array().square();' % (
                pad, n, T, m)
        return '%s%s.array() -= static_cast<%s>(0.5) * %s.array();' % (pad, n, T, m)

    def leaf(self, sc):
        if self.on('eigen'):
            atom = self.eigen_atom(sc)
            if atom is not None:
                return atom
        opts = []
        if sc.vars:
            opts += ['var'] * 4
        if [a for a in sc.arrays if a.readable]:
            opts += ['arr'] * 3
        if self.on('int') and sc.ints:
            opts += ['int']
        opts += ['lit']
        k = self.rng.choice(opts)
        if k == 'var':
            v = self.rng.choice(sc.vars)
            return v.name, v.t
        if k == 'arr':
            a = self.rng.choice([a for a in sc.arrays if a.readable])
            return '%s[%s]' % (a.name, self.index(sc, a)), a.t
        if k == 'int':
            return self.rng.choice(sc.ints), 'i'
        if self.on('int') and self.chance(0.15):
            return str(self.rng.choice([1, 2, 3])), 'i'
        return self.lit()

    def squash(self, sc, depth):
        """A bounded expression of any input (|value| <= ~1.5)."""
        e, t = self.expr(sc, depth)
        if not self.on('cmath'):
            s, ts = self.lit()
            return '(%s / (%s + %s * %s))' % (e, s, e, e), promote(t, ts)
        f = self.rng.choice(['sin', 'cos', 'tanh', 'rat'])
        if f == 'rat' and len(e) < 40:
            c, tc = self.lit()
            return '(%s / (%s + %s * %s))' % (e, c, e, e), promote(t, tc)
        if f == 'rat':
            f = 'tanh'
        return 'std::%s(%s)' % (f, e), math_result(t)

    def positive(self, sc, depth):
        """An expression that is > 0 for every input."""
        e, t = self.expr(sc, depth)
        c, tc = self.lit()
        form = self.rng.randrange(3)
        if (form == 0 and len(e) < 60) or not self.on('cmath'):
            return '(%s * %s + %s)' % (e, e, c), promote(t, tc)
        if form == 0:
            form = 1
        if form == 1:
            return '(std::fabs(%s) + %s)' % (e, c), promote(math_result(t), tc)
        return 'std::exp(std::sin(%s))' % e, math_result(t)

    def cmath(self, sc, depth):
        f = self.rng.choice(['sin', 'cos', 'tanh', 'exp', 'log', 'sqrt', 'pow',
                             'fabs', 'fmin', 'fmax'])
        if f in ('sin', 'cos', 'tanh', 'fabs'):
            e, t = self.expr(sc, depth)
            return 'std::%s(%s)' % (f, e), math_result(t)
        if f == 'exp':
            e, t = self.squash(sc, depth)
            if self.chance(0.3):
                e2, t2 = self.expr(sc, depth)
                return 'std::exp(-(%s * %s))' % (e2, e2), math_result(t2)
            return 'std::exp(%s)' % e, math_result(t)
        if f in ('log', 'sqrt'):
            e, t = self.positive(sc, depth)
            return 'std::%s(%s)' % (f, e), math_result(t)
        if f == 'pow':
            b, tb = self.positive(sc, depth)
            if self.chance(0.5):
                k, tk = self.lit()
                if self.chance(0.3):
                    k, tk = '-' + k, tk
            elif self.on('int') and self.chance(0.3):
                k, tk = str(self.rng.choice([2, 3])), 'i'
            else:
                k, tk = self.squash(sc, depth)
            return 'std::pow(%s, %s)' % (b, k), math_result(tb, tk)
        a, ta = self.expr(sc, depth)
        b, tb = self.expr(sc, depth)
        return 'std::%s(%s, %s)' % (f, a, b), math_result(ta, tb)

    def kink(self, sc):
        """An expression with a kink at the evaluation point, if the
        function has parameters prepared for it."""
        if not self.kink_params:
            return None
        name, kind, t = self.rng.choice(self.kink_params)
        if kind == 'zero':
            eps, te = self.lit()
            form = self.rng.randrange(3)
            if form == 0:
                return 'std::fmax(std::sqrt(%s), %s)' % (name, eps), math_result(t, te)
            if form == 1:
                return 'std::fabs(%s)' % name, math_result(t)
            if form == 2:
                return 'std::fmax(%s, 0%s)' % (name, '%sd%'), math_result(t, 'd')
        a, b = name
        f = self.rng.choice(['fmin', 'fmax'])
        return 'std::%s(%s, %s)' % (f, a, b), math_result(t)

    def method_call(self, sc, depth):
        """A call of S's const method on an object in scope."""
        obj, _ = self.rng.choice(sc.objects)
        e, t = self.expr(sc, max(depth - 1, 0))
        return '%s.get(%s)' % (obj, e), self.get_t

    def call(self, sc, depth):
        if self.get_t and sc.objects and self.chance(0.35):
            return self.method_call(sc, depth)
        cands = [h for h in self.helpers if not h.void and
                 (h.arr_param is None or
                  [a for a in sc.arrays if a.readable and a.t == h.arr_param]) and
                 (not h.takes_struct or sc.struct)]
        if not cands:
            return None
        h = self.rng.choice(cands)
        args = [sc.struct] if h.takes_struct else []
        if h.arr_param is not None:
            a = self.rng.choice([a for a in sc.arrays
                                 if a.readable and a.t == h.arr_param])
            args.append(a.ptr)
        for pt in h.params:
            if self.on('nested') and depth > 0 and self.chance(0.3):
                sub = self.call(sc, depth - 1)
                if sub is not None:
                    e, t = sub
                    args.append(e)
                    continue
            e, t = self.expr(sc, max(depth - 1, 0))
            if self.on('casts') and self.chance(0.25):
                to = pt if pt != 'i' else self.ftype()
                e, t = self.cast(e, to), to
            if pt == 'i' and t != 'i':
                e = '%%PI(%%%s%%PI)%%' % e   # an implicit conversion to int
            args.append(e)
        name = h.name + ('<%d>' % self.trng.randint(1, 3) if h.tmpl else '')
        return '%s(%s)' % (name, ', '.join(args)), h.ret

    def expr(self, sc, depth):
        if depth <= 0 or self.chance(0.25):
            return self.leaf(sc)
        if sc.lambdas and self.lrng.random() < 0.2:
            call = self.lambda_call(sc, depth)
            if call is not None:
                return call
        if self.on('minmax') and self.mrng.random() < 0.06:
            return self.with_rng(self.mrng, lambda: self.minmax(sc, depth))
        if self.on('arrayresults') and self.arng.random() < 0.03:
            return self.with_rng(self.arng, lambda: self.array_result(sc, depth))
        r = self.rng.random()
        if r < 0.30:
            a, ta = self.expr(sc, depth - 1)
            b, tb = self.expr(sc, depth - 1)
            op = self.rng.choice(['+', '-', '*', '+', '-'])
            return '(%s %s %s)' % (a, op, b), promote(ta, tb)
        if r < 0.38:
            a, ta = self.expr(sc, depth - 1)
            if self.chance(0.5):
                c, tc = self.lit()
                return '(%s / %s)' % (a, c), promote(ta, tc)
            b, tb = self.expr(sc, depth - 1)
            c, tc = self.lit()
            return '(%s / (%s + %s * %s))' % (a, c, b, b), \
                promote(promote(ta, tb), tc)
        if r < 0.42:
            a, ta = self.expr(sc, depth - 1)
            return '(-%s)' % a, ta
        if r < 0.62 and self.on('cmath'):
            if self.on('kinks') and self.chance(0.2):
                k = self.kink(sc)
                if k:
                    return k
            return self.cmath(sc, depth - 1)
        if r < 0.77 and self.on('helpers'):
            c = self.call(sc, depth - 1)
            if c:
                return c
        if r < 0.85 and self.on('casts'):
            a, ta = self.expr(sc, depth - 1)
            t = self.ftype() if not (self.on('int') and self.chance(0.1)) else 'i'
            if t == 'i':
                # Truncation to int: piecewise constant, on a bounded value.
                return '(%s * 0.5%s)' % (self.cast(a, 'i'), '%sd%'), 'd'
            return self.cast(a, t), t
        if r < 0.92 and self.on('ternary'):
            c = self.cond(sc, depth - 1)
            a, ta = self.expr(sc, depth - 1)
            b, tb = self.expr(sc, depth - 1)
            return '(%s ? %s : %s)' % (c, a, b), promote(ta, tb)
        return self.leaf(sc)

    def cond(self, sc, depth):
        a, _ = self.expr(sc, depth)
        if self.chance(0.5):
            b, _ = self.expr(sc, depth)
        else:
            b, _ = self.lit()
            if self.chance(0.5):
                b = '-' + b
        op = self.rng.choice(['<', '>', '<=', '>='])
        c = '%s %s %s' % (a, op, b)
        if self.on('int') and sc.ints and self.chance(0.15):
            c = '%s && %s > %d' % (c, self.rng.choice(sc.ints), self.rng.randrange(2))
        return '(%%BR(%%%s%%BR)%%)' % c

    # -- statements -----------------------------------------------------
    def block(self, sc, budget, indent, in_loop, ret_t, share=False):
        lines = []
        if not share:
            sc = sc.copy()
        while budget > 0:
            budget -= 1
            lines += self.stmt(sc, indent, in_loop, ret_t, budget)
        return lines

    def with_rng(self, rng, fn):
        """fn() drawing from rng instead of the program's main stream."""
        saved, self.rng = self.rng, rng
        try:
            return fn()
        finally:
            self.rng = saved

    def lambda_def(self, sc, pad):
        """`auto lamN = [&](T a) { return e; };` (or [=], reading only
        plain scalar variables, which it copies)."""
        def gen():
            name = self.fresh('lam')
            t = self.ftype()
            by_copy = self.chance(0.4)
            if by_copy:
                inner = Scope()
                inner.vars = [Var(v.name, v.t, assignable=False)
                              for v in sc.vars if v.name.isidentifier()]
                inner.ints = [i for i in sc.ints if i.isidentifier()]
            else:
                inner = sc.copy()
                # Parameters a walk moved (feature walk) are left out.
                inner.arrays = [a for a in inner.arrays if a.name not in self.walked]
            inner.vars.append(Var(name + '_a', t, assignable=False))
            # Sometimes a leading `const T *lamN_p` too, read at [0]: a call
            # passes an array variable of that type.
            ptr_t = self.ftype() if self.chance(0.3) else None
            if ptr_t:
                inner.arrays.append(Arr(name + '_p', ptr_t, 1, True, False))
            e, te = self.expr(inner, 2)
            sc.lambdas.append((name, te, ptr_t))  # it returns what e is
            params = '%s %s_a' % (CTYPE[t], name)
            if ptr_t:
                params = 'const %s *%s_p, %s' % (CTYPE[ptr_t], name, params)
            line = '%sauto %s = [%s](%s) { return %s; };' % (
                pad, name, '=' if by_copy else '&', params, e)
            self.lambda_text += line + '\n'
            return [line]
        return self.with_rng(self.lrng, gen)

    def lambda_arrays(self, sc, ptr_t):
        """Arrays a lambda's `const T *` parameter can be given: variables
        (a lambda's pointer parameter stands for its argument variable),
        but no parameter a walk moved (feature walk)."""
        return [a for a in sc.arrays if a.readable and a.t == ptr_t and
                not a.vec and a.name.isidentifier() and a.name not in self.walked]

    def lambda_call(self, sc, depth):
        def gen():
            usable = [l for l in sc.lambdas
                      if l[2] is None or self.lambda_arrays(sc, l[2])]
            if not usable:
                return None
            name, t, ptr_t = self.rng.choice(usable)
            e, _ = self.expr(sc, depth - 1)
            if ptr_t:
                a = self.rng.choice(self.lambda_arrays(sc, ptr_t))
                self.lambda_text += a.name + '\n'
                return '%s(%s, %s)' % (name, a.name, e), t
            # Or given to a template that calls it (fuzz_support.hpp).
            if self.chance(0.3):
                return 'fuzz::call_with(%s, %s)' % (name, e), t
            return '%s(%s)' % (name, e), t
        return self.with_rng(self.lrng, gen)

    def array_result(self, sc, depth):
        """fuzz::turned<T>(a, b, k)[j] (feature arrayresults, drawn from
        self.arng): an element of a std::array a call returns."""
        t = self.ftype()
        self.used.add(t)
        a, _ = self.expr(sc, depth - 1)
        b, _ = self.expr(sc, depth - 1)
        k, _ = self.expr(sc, depth - 1)
        return 'fuzz::turned<%s>(%s, %s, %s)[%d]' % (
            CTYPE[t], a, b, k, self.rng.randrange(2)), t

    def minmax(self, sc, depth):
        """std::min, std::max, std::clamp or std::abs (feature minmax, drawn
        from self.mrng). Arguments of one floating type T: converted
        explicitly where they differ, or by std::max<T>; never the same
        text twice (a tie on purpose); clamp's ends ordered by construction."""
        t = self.ftype()
        T = CTYPE[t]

        def conv(e, te):
            # A double of ints alone (std::sin(n)) stays double in the
            # clone, where every other floating value is long double.
            return e if te == t and t != 'd' else self.cast(e, t)

        def sel_lit():
            return self.rng.choice(SELECT_LITERALS) + \
                {'f': '%sf%', 'd': '%sd%', 'l': '%sl%'}[t]

        f = self.rng.choice(['max', 'min', 'max', 'min', 'clamp', 'abs'])
        if f == 'abs':
            e, te = self.expr(sc, depth - 1)
            if te == 'i':
                e, te = self.cast(e, t), t
            return 'std::abs(%s)' % e, te
        if f == 'clamp':
            x, tx = self.expr(sc, depth - 1)
            form = self.rng.randrange(3)
            if form == 0:
                lo, hi = sorted(self.rng.sample(SELECT_LITERALS, 2), key=float)
                suf = {'f': '%sf%', 'd': '%sd%', 'l': '%sl%'}[t]
                lo, hi = lo + suf, hi + suf
            elif form == 1:
                # -p1 < 0 < p2.
                p1, t1 = self.positive(sc, max(depth - 2, 0))
                p2, t2 = self.positive(sc, max(depth - 2, 0))
                lo, hi = '-' + conv(p1, t1), conv(p2, t2)
            else:
                # e - c1 < e + c2 (rounded to T, still in order).
                e, te = self.expr(sc, max(depth - 2, 0))
                c1, tc1 = self.lit()
                c2, tc2 = self.lit()
                lo = conv('(%s - %s)' % (e, c1), promote(te, tc1))
                hi = conv('(%s + %s)' % (e, c2), promote(te, tc2))
            return 'std::clamp(%s, %s, %s)' % (conv(x, tx), lo, hi), t
        a, ta = self.expr(sc, depth - 1)
        if self.chance(0.3):
            b, tb = sel_lit(), t
        else:
            b, tb = self.expr(sc, depth - 1)
        # A constant argument is one that no input equals.
        if LITERAL.match(a):
            a, ta = sel_lit(), t
        if LITERAL.match(b):
            b, tb = sel_lit(), t
        if a == b:
            b, tb = '(%s + %s)' % (b, sel_lit()), promote(tb, t)
        if self.chance(0.5):
            a, b = b, a
            ta, tb = tb, ta
        if self.chance(0.3):
            # Explicit template argument: the arguments convert to T.
            return 'std::%s<%s>(%s, %s)' % (f, T, a, b), t
        return 'std::%s(%s, %s)' % (f, conv(a, ta), conv(b, tb)), t

    def accumulator(self, sc, lines, pad, targets):
        """Where a range-for body accumulates: one of targets, or a new
        local declared before the loop (appended to lines)."""
        if targets and self.chance(0.6):
            return self.rng.choice(targets)
        acc = self.fresh('v')
        at = self.ftype()
        lines.append('%s%s %s = 0;' % (pad, self.ctype(at), acc))
        sc.vars.append(Var(acc, at))
        return acc

    def range_for(self, sc, indent, ret_t):
        """A range-based for over an array of known size (feature rangefor,
        drawn from self.frng): its elements read by value or by const
        reference and accumulated into a variable or an output element, or
        written through a reference; or a local array of S filled and read.
        The range is a name (or a member array of one): nothing it reads
        changes in the body."""
        pad = '  ' * indent
        forms = ['read'] * 3 + ['write'] * 2
        if self.members and sc.objects:
            forms += ['structs'] * 2
        form = self.rng.choice(forms)
        if form == 'structs':
            return self.range_structs(sc, indent, ret_t)
        lines = []
        pool = [a for a in sc.arrays if a.fixed and a.readable and
                (a.writable or form == 'read')]
        if not pool or self.chance(0.25):
            # A local array for the loop, from a brace initializer.
            t = self.ftype()
            name = self.fresh('a')
            els = []
            for _ in range(self.L):
                e, _ = self.expr(sc, 1)
                els.append('static_cast<%s>(%s)' % (CTYPE[t], e))
            lines.append('%s%s %s[%d] = {%s};' % (pad, self.ctype(t), name, self.L,
                                                  ', '.join(els)))
            arr = Arr(name, t, self.L, True, True, fixed=True)
            sc.arrays.append(arr)
        else:
            arr = self.rng.choice(pool)
        v = self.fresh('e')
        inner = sc.copy()
        inner.rdepth += 1
        AT = self.ctype(arr.t)
        if form == 'write':
            decl = ('auto &' if self.chance(0.3) else AT + ' &') + v
            inner.vars.append(Var(v, arr.t))
            op = self.rng.choice(['=', '+=', '-=', '*='])
            e, _ = self.squash(inner, 2)
            forced = '%s  %s %s %s;' % (pad, v, op, e)
        else:
            kind = self.rng.choice(['val', 'cref', 'auto', 'cauto'])
            t = arr.t
            if kind in ('val', 'cref') and self.chance(0.3):
                t = self.ftype()  # a converted copy (a temporary for cref)
            decl = {'val': self.ctype(t) + ' ', 'cref': 'const %s &' % self.ctype(t),
                    'auto': 'auto ', 'cauto': 'const auto &'}[kind] + v
            # A copy may be changed in the body; a const reference not.
            inner.vars.append(Var(v, t, assignable=kind in ('val', 'auto')))
            sq, _ = self.squash(inner, 1)
            term = '(%s %s %s)' % (v, self.rng.choice(['*', '+', '-']), sq)
            targets = [x.name for x in sc.vars if x.assignable]
            targets += ['%s[%d]' % (a.name, self.rng.randrange(a.length))
                        for a in sc.arrays if a.writable and a.readable]
            acc = self.accumulator(sc, lines, pad, targets)
            forced = '%s  %s %s %s;' % (pad, acc, self.rng.choice(['+=', '-=', '+=']),
                                        term)
        body = self.block(inner, self.rng.randint(0, 2), indent + 1, True, ret_t)
        if self.chance(0.5):
            body = [forced] + body
        else:
            body = body + [forced]
        lines.append('%sfor (%s : %s) {' % (pad, decl, arr.name))
        lines += body
        lines.append('%s}' % pad)
        return lines

    def iterators(self, sc, indent, ret_t):
        """A statement over a std::vector in scope through iterators or a
        standard algorithm (feature iterators, drawn from self.irng); none
        when no std::vector is in scope."""
        pad = '  ' * indent
        vecs = [a for a in sc.arrays if a.vec and not a.eigen]
        readable = [a for a in vecs if a.readable]
        writable = [a for a in vecs if a.writable and a.readable]
        if not readable:
            return None
        forms = ['loop'] * 3 + ['accumulate', 'inner', 'extreme']
        if writable:
            forms += ['write'] * 2 + ['transform'] * 2 + ['copy']
        if [a for a in writable if a.fixed and not a.name.startswith('y')]:
            forms += ['sort']
        form = self.rng.choice(forms)
        lines = []
        targets = [x.name for x in sc.vars if x.assignable]
        targets += ['%s[%d]' % (a.name, self.rng.randrange(a.length))
                    for a in sc.arrays if a.writable and a.readable]
        a = self.rng.choice(readable)
        T = self.ctype(a.t)
        if form in ('loop', 'write'):
            arr = self.rng.choice(writable) if form == 'write' else a
            it = self.fresh('it')
            inner = sc.copy()
            inner.rdepth += 1
            e = self.fresh('e')
            at = arr.t
            inner.vars.append(Var(e, at, assignable=False))
            head = '%sfor (auto %s = %s.begin(); %s != %s.end(); ++%s) {' % (
                pad, it, arr.name, it, arr.name, it)
            read = self.rng.choice(['*%s' % it, '%s[0]' % it])
            pos = 'static_cast<%s>(%s - %s.begin())' % (self.ctype(at), it, arr.name)
            body = ['%s  const %s %s = %s;' % (pad, self.ctype(at), e, read)]
            if form == 'write':
                sq, _ = self.squash(inner, 1)
                op = self.rng.choice(['=', '+=', '*='])
                body.append('%s  *%s %s %s;' % (pad, it, op, sq))
            else:
                acc = self.accumulator(sc, lines, pad, targets)
                sq, _ = self.squash(inner, 1)
                term = self.rng.choice(['(%s * %s)' % (e, sq), '(%s + %s)' % (e, sq),
                                        '(%s * %s * %s)' % (e, pos, self.lit()[0])])
                body.append('%s  %s %s %s;' % (pad, acc, self.rng.choice(['+=', '-=']),
                                               term))
            return lines + [head] + body + ['%s}' % pad]
        if form == 'transform':
            out = self.rng.choice(writable)
            inner = sc.copy()
            # Its [&] lambda leaves out parameters a walk moved, as
            # lambda_def does (a lambda may not capture a moved pointer).
            inner.arrays = [x for x in inner.arrays if x.name not in self.walked]
            v = self.fresh('v')
            inner.vars.append(Var(v, a.t, assignable=False))
            sq, _ = self.squash(inner, 1)
            lam = '[&](%s %s) { return static_cast<%s>(%s %s %s); }' % (
                T, v, self.ctype(out.t), v, self.rng.choice(['*', '+', '-']), sq)
            return ['%sstd::transform(%s.begin(), %s.end(), %s.begin(), %s);' % (
                pad, a.name, a.name, out.name, lam)]
        if form == 'copy':
            # std::copy / copy_n / fill / fill_n: loops in place.
            out = self.rng.choice(writable)
            k = 'std::min(%s.size(), %s.size())' % (a.name, out.name)
            kind = self.rng.randrange(4)
            if kind == 0 and a.fixed and out.fixed and a.length == out.length:
                return ['%sstd::copy(%s.begin(), %s.end(), %s.begin());' % (
                    pad, a.name, a.name, out.name)]
            if kind <= 1:
                return ['%sstd::copy_n(%s.begin(), %s, %s.begin());' % (
                    pad, a.name, k, out.name)]
            sq, _ = self.squash(sc, 1)
            if kind == 2:
                return ['%sstd::fill(%s.begin(), %s.end(), %s);' % (
                    pad, out.name, out.name, sq)]
            return ['%sstd::fill_n(%s.begin(), %s.size() / 2, %s);' % (
                pad, out.name, out.name, sq)]
        if form == 'sort':
            arr = self.rng.choice([x for x in writable if x.fixed and
                                   not x.name.startswith('y')])
            return ['%sstd::sort(%s.begin(), %s.end());' % (pad, arr.name, arr.name)]
        acc = self.accumulator(sc, lines, pad, targets)
        if form == 'accumulate':
            if self.chance(0.5):
                call = 'std::accumulate(%s.begin(), %s.end(), static_cast<%s>(%s))' % (
                    a.name, a.name, T, self.lit()[0])
            else:
                call = ('std::accumulate(%s.begin(), %s.end(), static_cast<%s>(0), '
                        '[](%s s, %s v) { return s + v * v; })' % (a.name, a.name, T, T, T))
        elif form == 'inner':
            b = self.rng.choice([x for x in readable if x.t == a.t] or [a])
            call = ('std::inner_product(%s.begin(), %s.end(), %s.begin(), '
                    'static_cast<%s>(0))' % (a.name, a.name, b.name, T))
        else:
            kind = self.rng.randrange(4)
            which = self.rng.choice(['max_element', 'min_element'])
            if kind < 2:
                call = '*std::%s(%s.begin(), %s.end())' % (which, a.name, a.name)
            elif kind == 2:
                # A comparison of the user's: a loop in place keeping the index.
                cmp = self.rng.choice(['std::abs(p) < std::abs(q)',
                                       'p * p < q * q', 'p > q'])
                call = '*std::%s(%s.begin(), %s.end(), [](%s p, %s q) { return %s; })' % (
                    which, a.name, a.name, T, T, cmp)
            else:
                # A test of the user's, over all but the last element: the
                # last is the answer when none passes (never end()).
                test = self.rng.choice(['find_if', 'find_if_not'])
                call = ('*std::%s(%s.begin(), %s.end() - 1, [](%s v) { return v %s '
                        'static_cast<%s>(%s); })' % (
                            test, a.name, a.name, T, self.rng.choice(['>', '<']), T,
                            self.lit()[0]))
        return lines + ['%s%s %s %s;' % (pad, acc, self.rng.choice(['+=', '-=']),
                                         self.squash_text(call))]

    def squash_text(self, e):
        """e bounded (|value| <= 1), for sums of whole vectors."""
        return '(%s / (2.0 + %s * %s))' % (e, e, e)

    def range_structs(self, sc, indent, ret_t):
        """A local array of S, copies of objects in scope, changed member by
        member through `auto &p` (or given by a brace initializer), then
        read through `const auto &p`, `const S &p` or a copy `S p`."""
        pad = '  ' * indent
        objs = [o for o, _ in sc.objects]
        name = self.fresh('ps')
        n = self.L
        lines = []
        reals = [m for m in self.members if m.t != 'i']

        def member_of(p):
            m = self.rng.choice(reals)
            if m.length is None:
                return '%s.%s' % (p, m.name), m.t
            return '%s.%s[%d]' % (p, m.name, self.rng.randrange(m.length)), m.t

        braced = self.chance(0.4)
        if braced:
            lines.append('%sS %s[%d] = {%s};' % (
                pad, name, n, ', '.join(self.rng.choice(objs) for _ in range(n))))
        else:
            lines.append('%sS %s[%d];' % (pad, name, n))
        if not braced or self.chance(0.7):
            p = self.fresh('p')
            inner = sc.copy()
            inner.rdepth += 1
            inner.add_object(p, self.members, writable=True)
            body = []
            if not braced:
                body.append('%s  %s = %s;' % (pad, p, self.rng.choice(objs)))
            target, _ = member_of(p)
            e, _ = self.squash(inner, 2)
            body.append('%s  %s %s %s;' % (pad, target,
                                           self.rng.choice(['=', '+=', '*=']), e))
            if self.get_t and self.chance(0.3):
                e, _ = self.expr(inner, 1)
                body.append('%s  %s.put(%s);' % (pad, p, e))
            lines.append('%sfor (%s &%s : %s) {' % (pad, self.rng.choice(['auto', 'S']),
                                                    p, name))
            lines += body
            lines.append('%s}' % pad)
        # Read.
        p = self.fresh('p')
        inner = sc.copy()
        inner.rdepth += 1
        kind = self.rng.choice(['const auto &', 'const S &', 'S ', 'auto '])
        inner.add_object(p, self.members, writable=not kind.startswith('const'))
        if self.get_t and self.chance(0.3):
            e, _ = self.expr(inner, 1)
            first = '%s.get(%s)' % (p, e)
        else:
            first, _ = member_of(p)
        sq, _ = self.squash(inner, 1)
        term = '(%s %s %s)' % (first, self.rng.choice(['*', '+', '-']), sq)
        targets = [x.name for x in sc.vars if x.assignable]
        acc = self.accumulator(sc, lines, pad, targets)
        forced = '%s  %s += %s;' % (pad, acc, term)
        body = self.block(inner, self.rng.randint(0, 2), indent + 1, True, ret_t)
        body = [forced] + body if self.chance(0.5) else body + [forced]
        lines.append('%sfor (%s%s : %s) {' % (pad, kind, p, name))
        lines += body
        lines.append('%s}' % pad)
        return lines

    # -- pointers that walk, side effects in expressions (feature walk) ---
    def walk_arrays(self, sc, write=False):
        """Arrays a pointer can walk: of the program's length L (the value
        of the bound text at run time), readable, and writable to be
        written through."""
        return [a for a in sc.arrays if a.readable and a.length == self.L and
                (a.writable or not write)]

    def walk_at(self, arr, k):
        """A pointer to element k (0 <= k <= L) of arr, in one of the
        spellings a walking pointer starts or is set from."""
        A = arr.ptr
        if k == self.L and self.chance(0.5):
            return '%s + %s' % (A, self.bound)
        if k == self.L - 1 and self.chance(0.3):
            return '%s + %s - 1' % (A, self.bound)
        if k < self.L and not arr.vec and self.chance(0.25):
            return '&%s[%d]' % (arr.name, k)
        return A if k == 0 else '%s + %d' % (A, k)

    def walk_term(self, sc, x):
        """x combined with a bounded expression of the scope."""
        sq, _ = self.squash(sc, 1)
        return '(%s %s %s)' % (x, self.rng.choice(['*', '+', '-', '*']), sq)

    def walk_acc(self, sc, lines, pad):
        targets = [x.name for x in sc.vars if x.assignable]
        targets += ['%s[%d]' % (a.name, self.rng.randrange(a.length))
                    for a in sc.arrays if a.writable and a.readable]
        return self.accumulator(sc, lines, pad, targets)

    def walk_loop_body(self, inner, indent, ret_t, forced, first=False):
        """A loop body: the forced statements and a few others (first: the
        forced ones, which move the pointer, come before any continue)."""
        body = self.block(inner, self.rng.randint(0, 2), indent + 1, True, ret_t)
        if first or self.chance(0.5):
            return forced + body
        return body + forced

    def sizes(self, sc, indent, ret_t):
        """Size changes of f's local std::vectors (feature sizes, drawn from
        self.zrng): each group of statements leaves the vector at its length
        L again, and no value read while it is shorter is out of range; or a
        loop whose body declares a vector of length L, which the body then
        reads and writes."""
        pad = '  ' * indent
        if sc.struct and self.on('structs') and indent == 1 \
                and self.rng.random() < 0.25:
            return self.object_vector(sc, pad)
        vecs = [a for a in sc.arrays if a.resizable and a.readable and a.writable]
        if not vecs or self.rng.random() < 0.35:
            if len(sc.loops) + sc.rdepth >= 2:
                return []
            i = self.fresh('i')
            t = self.ftype()
            T = self.ctype(t)
            name = self.fresh('t')
            L = self.L
            inner = sc.copy()
            inner.loops.append(i)
            inner.ints.append(i)
            form = self.rng.randrange(4)
            # A vector of f of known length, for fuzz::smoothed: the new
            # vector takes its type and length.
            srcs = [a for a in sc.arrays if a.vec and a.readable and
                    not a.eigen and isinstance(a.length, int) and a.length >= 1]
            if form == 3 and srcs:
                src = self.rng.choice(srcs)
                t, L = src.t, src.length
                T = self.ctype(t)
                e, _ = self.expr(inner, 1)
                decl = '%sstd::vector<%s> %s = fuzz::smoothed(%s, static_cast<%s>(%s));' % (
                    pad + '  ', T, name, src.name, T, e)
            elif form in (0, 3):
                decl = '%sstd::vector<%s> %s(%d);' % (pad + '  ', T, name, L)
            elif form == 1:
                e, _ = self.expr(inner, 1)
                decl = '%sstd::vector<%s> %s(%d, static_cast<%s>(%s));' % (
                    pad + '  ', T, name, L, T, e)
            else:
                els = ['static_cast<%s>(%s)' % (T, self.expr(inner, 1)[0])
                       for _ in range(L)]
                decl = '%sstd::vector<%s> %s = {%s};' % (pad + '  ', T, name,
                                                         ', '.join(els))
            inner.arrays.append(Arr(name, t, L, True, True, fixed=True,
                                    vec=True, resizable=True))
            lines = ['%sfor (%s) {' % (pad, self.loop_header(sc, i)), decl]
            lines += self.block(inner, self.rng.randint(1, 3), indent + 1, True,
                                ret_t)
            lines.append('%s}' % pad)
            return lines
        a = self.rng.choice(vecs)
        T = self.ctype(a.t)
        L = a.length
        # Values for a's elements read no element of a (a value given by
        # reference to a resize or assign must not alias the vector).
        others = sc.copy()
        others.arrays = [x for x in others.arrays if x is not a]

        def value(scope):
            return 'static_cast<%s>(%s)' % (T, self.expr(scope, 1)[0])
        forms = ['shrink', 'clear', 'assign', 'pop', 'list', 'erase', 'gap']
        peers = [b for b in vecs if b is not a and b.t == a.t and b.length == L]
        if peers:
            forms += ['copy'] * 2
        form = self.rng.choice(forms)
        if form == 'shrink':
            k = self.rng.randint(1, L - 1) if L > 1 else 1
            lines = ['%s%s.resize(%d);' % (pad, a.name, k)]
            if self.chance(0.6):
                v = self.fresh('v')
                lines.append('%s%s %s = %s[%d] * %s;' % (
                    pad, T, v, a.name, k - 1, value(others)))
                sc.vars.append(Var(v, a.t))
                others.vars.append(Var(v, a.t))
            lines.append('%s%s.resize(%d, %s);' % (pad, a.name, L, value(others)))
            return lines
        if form == 'clear':
            j = self.fresh('j')
            inner = others.copy()
            inner.loops.append(j)
            inner.ints.append(j)
            return ['%s%s.clear();' % (pad, a.name),
                    '%sfor (int %s = 0; %s < %d; ++%s)' % (pad, j, j, L, j),
                    '%s  %s.push_back(%s);' % (pad, a.name, value(inner))]
        if form == 'assign':
            return ['%s%s.assign(%d, %s);' % (pad, a.name, L, value(others))]
        if form == 'pop':
            return ['%s%s.pop_back();' % (pad, a.name),
                    '%s%s.push_back(%s);' % (pad, a.name, value(others))]
        if form == 'list':
            return ['%s%s = {%s};' % (pad, a.name,
                                      ', '.join(value(others) for _ in range(L)))]
        if form == 'erase':
            # One element out at k, one in at j (before or after the move).
            k, j = self.rng.randrange(L), self.rng.randrange(L)
            return ['%s%s.erase(%s.begin() + %d);' % (pad, a.name, a.name, k),
                    '%s%s.insert(%s.begin() + %d, %s);' % (
                        pad, a.name, a.name, j, value(others))]
        if form == 'gap':
            # A range out, then as many values in at the end.
            k = self.rng.randrange(L)
            m = self.rng.randint(1, L - k)
            lines = ['%s%s.erase(%s.begin() + %d, %s.begin() + %d);' % (
                pad, a.name, a.name, k, a.name, k + m)]
            refill = self.rng.randrange(3)
            j = self.rng.randint(0, L - m)
            if refill == 1:
                # A run of one value, anywhere.
                lines.append('%s%s.insert(%s.begin() + %d, %d, %s);' % (
                    pad, a.name, a.name, j, m, value(others)))
                return lines
            if refill == 2 and peers:
                # A range of another vector.
                b = self.rng.choice(peers)
                f = self.rng.randint(0, L - m)
                lines.append('%s%s.insert(%s.begin() + %d, %s.begin() + %d, '
                             '%s.begin() + %d);' % (pad, a.name, a.name, j,
                                                    b.name, f, b.name, f + m))
                return lines
            for _ in range(m):
                lines.append('%s%s.insert(%s.end(), %s);' % (
                    pad, a.name, a.name, value(others)))
            return lines
        b = self.rng.choice(peers)
        return ['%s%s = %s;' % (pad, a.name, b.name)]

    def object_vector(self, sc, pad):
        """A local std::vector of S objects (outside loops), copies of the
        struct in scope made by a size and a value, a braced list or
        push_back, grown by one more push_back; its first and last elements
        are objects whose members the rest of the block reads and writes."""
        name = self.fresh('ps')
        q = sc.struct
        form = self.rng.randrange(3)
        if form == 0:
            lines = ['%sstd::vector<S> %s(2, %s);' % (pad, name, q)]
        elif form == 1:
            lines = ['%sstd::vector<S> %s = {%s, %s};' % (pad, name, q, q)]
        else:
            lines = ['%sstd::vector<S> %s;' % (pad, name),
                     '%s%s.push_back(%s);' % (pad, name, q),
                     '%s%s.emplace_back(%s);' % (pad, name, q)]
        lines.append('%s%s.push_back(%s);' % (pad, name, q))
        for k in (0, 2):
            sc.add_object('%s[%d]' % (name, k), self.members, writable=True)
        return lines

    def stencil(self, sc, indent):
        """A sweep over an array of known length (feature stencil, drawn
        from self.nrng): each iteration reads its periodic neighbours (left
        index fixed up by an if) and its element into const locals, then
        overwrites the element; perhaps a neighbour too, after it (the
        locals then read memory written twice), or the old value is carried
        to the next iteration in a local declared before the loop. A
        contraction whatever the array holds: |new| <= 0.5 |old| + 0.5 +
        0.125 |e| (|l r| / (1 + l l + r r) <= 1/2)."""
        arrs = [a for a in sc.arrays if a.writable and a.readable and a.fixed
                and not a.eigen and isinstance(a.length, int) and a.length >= 1]
        if not arrs:
            return None
        a = self.rng.choice(arrs)
        pad, p1, p2 = ('  ' * indent, '  ' * (indent + 1), '  ' * (indent + 2))
        L, T = a.length, self.ctype(a.t)
        i, l, r = self.fresh('i'), self.fresh('k'), self.fresh('k')
        u, w, o = self.fresh('v'), self.fresh('v'), self.fresh('v')
        form = self.rng.choice(['plain', 'second', 'carry'])
        lines = []
        carry = None
        if form == 'carry':
            carry = self.fresh('v')
            lines.append('%s%s %s = %s[%d];' % (pad, T, carry, a.name, L - 1))
        e, _ = self.squash(sc, 1)
        lines += ['%sfor (int %s = 0; %s < %d; ++%s) {' % (pad, i, i, L, i),
                  '%sint %s = %s - 1, %s = %s + 1;' % (p1, l, i, r, i),
                  '%sif (%s < 0)' % (p1, l), '%s%s += %d;' % (p2, l, L),
                  '%sif (%s == %d)' % (p1, r, L), '%s%s = 0;' % (p2, r),
                  '%sconst %s %s = %s[%s];' % (p1, T, u, a.name, l),
                  '%sconst %s %s = %s[%s];' % (p1, T, w, a.name, r),
                  '%sconst %s %s = %s[%s];' % (p1, T, o, a.name, i)]
        other = carry if carry else u
        lines.append('%s%s[%s] = static_cast<%s>(0.5 * %s + %s * %s / (1 + %s '
                     '* %s + %s * %s) + 0.125 * %s);'
                     % (p1, a.name, i, T, o, other, w, other, other, w, w, e))
        if form == 'second':
            lines.append('%s%s[%s] = static_cast<%s>(0.5 * %s[%s] + %s * %s / '
                         '(1 + %s * %s + %s * %s));'
                         % (p1, a.name, r, T, a.name, r, u, o, u, u, o, o))
        if carry:
            lines.append('%s%s = %s;' % (p1, carry, o))
        lines.append('%s}' % pad)
        if carry:
            sc.vars.append(Var(carry, a.t))
        return lines

    def walk(self, sc, indent, in_loop, ret_t):
        """Pointers that walk and side effects inside expressions (feature
        walk, drawn from self.wrng). Every pointer stays in the array it
        starts in, between its first element and one past its last, and is
        read only inside; no expression modifies what another part of it
        reads or modifies."""
        pad = '  ' * indent
        self.walk_in_loop = in_loop
        can_loop = len(sc.loops) + sc.rdepth < 2
        reads = self.walk_arrays(sc)
        writes = self.walk_arrays(sc, write=True)
        forms = ['chain', 'postinc', 'condassign']
        if reads:
            forms += ['steps'] * 3
            if can_loop:
                forms += ['ploop'] * 3 + ['pack', 'countdown'] * 2 + ['comma', 'idxinc']
            if not self.in_helper:
                forms += ['phelper'] * 3
        if writes:
            forms += ['wsteps'] * 2
            if can_loop:
                forms += ['wloop'] * 2 + ['idxinc']
        if self.param_walkers(reads):
            forms += ['psteps'] * 3
        form = self.rng.choice(forms)
        return getattr(self, 'walk_' + form)(sc, indent, pad, ret_t)

    def param_walkers(self, arrays):
        """f's pointer parameters among arrays that no lambda so far has
        read or been given (a moved parameter that a lambda captures is a
        located error; later lambdas leave the moved ones out)."""
        return [a for a in arrays if a.name in self.walk_params and
                not re.search(r'(?<![.\w])%s\b' % a.name, self.lambda_text)]

    def walk_steps(self, sc, indent, pad, ret_t, write=False, param=None):
        """Straight-line moves of a pointer, whose place the generator
        follows: ++p, p--, p += d, p -= d, p = x + k, and reads (or writes)
        *p, p[j], *p++, *--p, (p - x). With param, the pointer is that
        parameter of f itself, moved and brought back to its entry value;
        nothing else reads it meanwhile."""
        L = self.L
        lines = []
        if param is not None:
            arr = param
            p = arr.name
            pos = 0
            sc = sc.copy()
            sc.arrays = [a for a in sc.arrays if a is not arr]
            sc.lambdas = []   # a [&] lambda may read the parameter
        else:
            arr = self.rng.choice(self.walk_arrays(sc, write))
            p = self.fresh('wp')
            pos = self.rng.randrange(L)
        T = self.ctype(arr.t)
        A = arr.ptr
        acc = None if write else self.walk_acc(sc, lines, pad)
        if param is None:
            lines.append('%s%s%s *%s = %s;' % (pad, '' if write else 'const ', T, p,
                                               self.walk_at(arr, pos)))
        for _ in range(self.rng.randint(2, 5)):
            ops = ['jump']
            if pos < L:
                ops += ['inc', 'read', 'read', 'read', 'readinc']
                if param is None:
                    ops.append('diff')   # (a parameter's own start has no name)
            if pos > 0:
                ops += ['dec', 'decread']
            op = self.rng.choice(ops)
            if op == 'inc':
                lines.append(pad + self.rng.choice(['++%s;', '%s++;']) % p)
                pos += 1
                continue
            if op == 'dec':
                lines.append(pad + self.rng.choice(['--%s;', '%s--;']) % p)
                pos -= 1
                continue
            if op == 'jump':
                to = self.rng.choice([k for k in range(L + 1) if k != pos])
                if param is None and self.chance(0.4):
                    lines.append('%s%s = %s;' % (pad, p, self.walk_at(arr, to)))
                elif to > pos:
                    lines.append('%s%s += %d;' % (pad, p, to - pos))
                else:
                    lines.append('%s%s -= %d;' % (pad, p, pos - to))
                pos = to
                continue
            if op == 'read':
                j = self.rng.randrange(-pos, L - pos)
                x = '*%s' % p if j == 0 and self.chance(0.6) else '%s[%d]' % (p, j)
            elif op == 'readinc':
                x = '*%s++' % p
                pos += 1
            elif op == 'decread':
                x = '*--%s' % p
                pos -= 1
            else:  # diff: the distance from the start weighs the element
                x = '(%s * %s)' % (self.cast('%s - %s' % (p, A), self.ftype())
                                   if self.chance(0.5) else '(%s - %s + 1)' % (p, A),
                                   '*' + p)
            if write:
                if op == 'diff':
                    sq, _ = self.squash(sc, 1)
                    lines.append('%s%s[0] += (%s * %s);' % (
                        pad, p, self.cast('%s - %s' % (p, A), arr.t), sq))
                    continue
                wop = self.rng.choice(['=', '+=', '-=', '*='])
                sq, _ = self.squash(sc, 1)
                lines.append('%s%s %s %s;' % (pad, x, wop, sq))
            else:
                lines.append('%s%s += %s;' % (pad, acc, self.walk_term(sc, x)))
        if param is not None and pos != 0:
            lines.append('%s%s -= %d;' % (pad, p, pos))   # back to its entry value
        return lines

    def walk_wsteps(self, sc, indent, pad, ret_t):
        return self.walk_steps(sc, indent, pad, ret_t, write=True)

    def walk_psteps(self, sc, indent, pad, ret_t):
        arr = self.rng.choice(self.param_walkers(self.walk_arrays(sc)))
        self.walked.add(arr.name)
        return self.walk_steps(sc, indent, pad, ret_t, param=arr)

    def walk_ploop(self, sc, indent, pad, ret_t):
        """A loop of a local pointer over an array: against an end pointer
        or x + n, *p++ under while (m--), backwards with *--p, in pairs."""
        arr = self.rng.choice(self.walk_arrays(sc))
        T = self.ctype(arr.t)
        A, B = arr.ptr, self.bound
        p = self.fresh('wp')
        lines = []
        acc = self.walk_acc(sc, lines, pad)
        inner = sc.copy()
        inner.rdepth += 1
        form = self.rng.choice(['for', 'for', 'while', 'count', 'back', 'pairs',
                                'index'])
        end = '%s + %s' % (A, B)
        if form in ('for', 'while') and self.chance(0.4):
            e = self.fresh('we')
            lines.append('%sconst %s *%s = %s;' % (pad, T, e, end))
            end = e
        first = False
        if form == 'for':
            x = self.rng.choice(['*%s' % p, '%s[0]' % p,
                                 '((%s - %s + 1) * *%s)' % (p, A, p)])
            head = 'for (const %s *%s = %s; %s %s %s; %s)' % (
                T, p, A, p, self.rng.choice(['!=', '<']), end,
                self.rng.choice(['++%s', '%s++', '%s += 1']).replace('%s', p))
        elif form == 'while':
            lines.append('%sconst %s *%s = %s;' % (pad, T, p, A))
            x = '*%s++' % p
            head = 'while (%s %s %s)' % (p, self.rng.choice(['!=', '<']), end)
            first = True
        elif form == 'count':
            m = self.fresh('wn')
            lines += ['%sconst %s *%s = %s;' % (pad, T, p, A),
                      '%sint %s = %s;' % (pad, m, B)]
            x = '*%s++' % p
            head = 'while (%s--)' % m
            first = True
        elif form == 'back':
            lines.append('%sconst %s *%s = %s;' % (pad, T, p, end))
            x = '*--%s' % p
            head = 'while (%s %s %s)' % (p, self.rng.choice(['>', '!=']), A)
            first = True
        elif form == 'pairs':
            # p, p + 2, ...: p + 1 is read while p - x + 1 < n, and p stops
            # at one past the end at most.
            x = '(%s[0] * %s[1])' % (p, p)
            head = 'for (const %s *%s = %s; %s - %s + 1 < %s; %s += 2)' % (
                T, p, A, p, A, B, p)
        else:
            i = self.fresh('i')
            lines.append('%sconst %s *%s = %s;' % (pad, T, p, A))
            x = '*%s' % p
            head = 'for (int %s = 0; %s < %s; ++%s, ++%s)' % (i, i, B, i, p)
            inner.rdepth -= 1
            inner.loops.append(i)
            inner.ints.append(i)
        forced = ['%s  %s += %s;' % (pad, acc, self.walk_term(sc, x))]
        lines.append('%s%s {' % (pad, head))
        lines += self.walk_loop_body(inner, indent, ret_t, forced, first)
        lines.append('%s}' % pad)
        return lines

    def walk_wloop(self, sc, indent, pad, ret_t):
        """A loop writing an array through a local pointer."""
        arr = self.rng.choice(self.walk_arrays(sc, write=True))
        T = self.ctype(arr.t)
        A, B = arr.ptr, self.bound
        q = self.fresh('wp')
        lines = []
        inner = sc.copy()
        inner.rdepth += 1
        form = self.rng.choice(['for', 'count', 'back', 'index'])
        wop = self.rng.choice(['=', '+=', '-=', '*='])
        sq, _ = self.squash(sc, 1)
        first = False
        if form == 'for':
            x = '*' + q
            head = 'for (%s *%s = %s; %s != %s + %s; ++%s)' % (T, q, A, q, A, B, q)
        elif form == 'count':
            m = self.fresh('wn')
            lines += ['%s%s *%s = %s;' % (pad, T, q, A), '%sint %s = %s;' % (pad, m, B)]
            x = '*%s++' % q
            head = 'while (%s--)' % m
            first = True
        elif form == 'back':
            lines.append('%s%s *%s = %s + %s;' % (pad, T, q, A, B))
            x = '*--%s' % q
            head = 'while (%s != %s)' % (q, A)
            first = True
        else:
            i = self.fresh('i')
            lines.append('%s%s *%s = %s;' % (pad, T, q, A))
            x = '*%s++' % q
            head = 'for (int %s = 0; %s < %s; ++%s)' % (i, i, B, i)
            first = True
        if wop == '=' and self.chance(0.5) and x == '*' + q:
            sq = '(*%s * %s)' % (q, sq)
        forced = ['%s  %s %s %s;' % (pad, x, wop, sq)]
        lines.append('%s%s {' % (pad, head))
        lines += self.walk_loop_body(inner, indent, ret_t, forced, first)
        lines.append('%s}' % pad)
        return lines

    def walk_phelper(self, sc, indent, pad, ret_t):
        """A call of a helper whose pointer parameters walk (made for the
        call): while (n--) s += *x++ * g(*y++); x += 1 past a header; a
        backward walk from x + n; a void one writing *y++ += a * *x++."""
        reads = self.walk_arrays(sc)
        outs = [a for a in self.walk_arrays(sc, write=True)
                if a.name[0] != 'r']   # not an alias of another array
        forms = ['dot', 'dot', 'header', 'back']
        if outs:
            forms += ['axpy'] * 2
        form = self.rng.choice(forms)
        name = self.fresh('wh')
        t0 = self.ftype()
        T0 = self.ctype(t0)
        g = self.rng.choice(['sin', 'tanh', 'cos', '']) if self.on('cmath') else ''

        def gf(e):
            return 'std::%s(%s)' % (g, e) if g else e
        shift = self.chance(0.25)   # called on x + 1, y + 1 with n - 1

        def parg(a):
            return '%s + 1' % a.ptr if shift else a.ptr
        count = '%s - 1' % self.bound if shift else self.bound
        if form == 'axpy':
            y = self.rng.choice(outs)
            ins = [a for a in reads if a is not y and a.name[0] != 'r'
                   and a.name != y.name]
            if not ins:
                return []
            x = self.rng.choice(ins)
            text = ('void %s(%s a, const %s *x, %s *y, int n) {\n'
                    '  for (; n > 0; --n)\n'
                    '    *y++ += a * *x++;\n}\n' % (
                        name, T0, self.ctype(x.t), self.ctype(y.t)))
            self.walk_helpers.append(Helper(name, None, [t0], text))
            a, _ = self.squash(sc, 1)
            return ['%s%s(%s, %s, %s, %s);' % (pad, name, a, parg(x), parg(y), count)]
        x = self.rng.choice(reads)
        T1 = self.ctype(x.t)
        if form == 'dot':
            y = self.rng.choice(reads)
            text = ('%s %s(const %s *x, const %s *y, int n) {\n'
                    '  %s s = 0;\n'
                    '  while (n--)\n'
                    '    s += *x++ * %s;\n'
                    '  return s;\n}\n' % (T0, name, T1, self.ctype(y.t), T0,
                                          gf('*y++')))
            args = [parg(x), parg(y), count]
        elif form == 'header':
            text = ('%s %s(const %s *x, int n) {\n'
                    '  %s h = x[0];\n'
                    '  x += 1;\n'
                    '  %s s = 0;\n'
                    '  for (int i = 0; i < n - 1; ++i)\n'
                    '    s += x[i] * %s;\n'
                    '  return h * s;\n}\n' % (T0, name, T1, T0, T0, gf('x[i]')))
            args = [parg(x), count]
        else:
            text = ('%s %s(const %s *x, int n) {\n'
                    '  x += n;\n'
                    '  %s s = 0;\n'
                    '  for (; n > 0; --n)\n'
                    '    s += %s * n;\n'
                    '  return s;\n}\n' % (T0, name, T1, T0, gf('*--x')))
            args = [parg(x), count]
        self.walk_helpers.append(Helper(name, t0, [], text))
        v = self.fresh('v')
        sc.vars.append(Var(v, t0))
        return ['%s%s %s = %s(%s);' % (pad, T0, v, name, ', '.join(args))]

    def walk_pack(self, sc, indent, pad, ret_t):
        """The elements above a threshold packed with buf[k++] = e, then
        neighbours multiplied under while (++j < k)."""
        arr = self.rng.choice(self.walk_arrays(sc))
        t = self.ftype()
        T = self.ctype(t)
        L, B = self.L, self.bound
        buf, k, i, j = self.fresh('a'), self.fresh('k'), self.fresh('i'), self.fresh('j')
        zeroed = self.chance(0.5)
        lines = []
        acc = self.walk_acc(sc, lines, pad)
        c = self.rng.choice(SELECT_LITERALS) + {'f': '%sf%', 'd': '%sd%', 'l': '%sl%'}[t]
        term = self.walk_term(sc, '%s[%s]' % (arr.name, i))
        lines += ['%s%s %s[%d]%s;' % (pad, T, buf, L, ' = {}' if zeroed else ''),
                  '%sint %s = 0;' % (pad, k),
                  '%sfor (int %s = 0; %s < %s; ++%s)' % (pad, i, i, B, i),
                  '%s  if (%%BR(%%%s[%s] %s %s%%BR)%%)' % (
                      pad, arr.name, i, self.rng.choice(['>', '<']), c),
                  '%s    %s[%s++] = %s;' % (pad, buf, k, term),
                  '%sint %s = 0;' % (pad, j),
                  '%swhile (++%s < %s) {' % (pad, j, k)]
        inner = sc.copy()
        inner.rdepth += 1
        forced = ['%s  %s += (%s[%s] * %s[%s - 1]);' % (pad, acc, buf, j, buf, j)]
        lines += self.walk_loop_body(inner, indent, ret_t, forced, True)
        lines.append('%s}' % pad)
        sc.ints.append(k)
        if zeroed:
            sc.arrays.append(Arr(buf, t, L, True, True, fixed=True))
        return lines

    def walk_countdown(self, sc, indent, pad, ret_t):
        """for (std::size_t i = n; i-- > 0;) over an array (read or written)."""
        arr = self.rng.choice(self.walk_arrays(sc))
        i = self.fresh('i')
        inner = sc.copy()
        unsigned = self.chance(0.6)
        if unsigned:
            inner.rdepth += 1   # an unsigned counter stays out of expressions
        else:
            inner.loops.append(i)
            inner.ints.append(i)
        lines = []
        writes = self.walk_arrays(sc, write=True)
        if writes and self.chance(0.3):
            y = self.rng.choice(writes)
            sq, _ = self.squash(sc, 1)
            forced = ['%s  %s[%s] %s %s;' % (pad, y.name, i,
                                            self.rng.choice(['=', '+=', '*=']), sq)]
        else:
            acc = self.walk_acc(sc, lines, pad)
            w = self.cast('%s + 1' % i, self.ftype())
            forced = ['%s  %s += (%s * %s);' % (
                pad, acc, self.walk_term(sc, '%s[%s]' % (arr.name, i)), w)]
        lines.append('%sfor (%s %s = %s; %s-- > 0;) {' % (
            pad, 'std::size_t' if unsigned else 'int', i, self.bound, i))
        lines += self.walk_loop_body(inner, indent, ret_t, forced)
        lines.append('%s}' % pad)
        return lines

    def walk_comma(self, sc, indent, pad, ret_t):
        """for (int i = 0, m = n - 1; i < m; ++i, --m): both ends inward."""
        reads = self.walk_arrays(sc)
        a, b = self.rng.choice(reads), self.rng.choice(reads)
        i, m = self.fresh('i'), self.fresh('wm')
        inner = sc.copy()
        inner.loops += [i, m]
        inner.ints += [i, m]
        lines = []
        acc = self.walk_acc(sc, lines, pad)
        forced = ['%s  %s += %s;' % (pad, acc, self.walk_term(
            sc, '(%s[%s] * %s[%s])' % (a.name, i, b.name, m)))]
        lines.append('%sfor (int %s = 0, %s = %s - 1; %s < %s; %s) {' % (
            pad, i, m, self.bound, i, m,
            self.rng.choice(['++%s, --%s', '%s++, %s--']) % (i, m)))
        lines += self.walk_loop_body(inner, indent, ret_t, forced)
        lines.append('%s}' % pad)
        return lines

    def walk_idxinc(self, sc, indent, pad, ret_t):
        """x[k++] read, or y[k++] written, under while (k < n)."""
        writes = self.walk_arrays(sc, write=True)
        reads = self.walk_arrays(sc)
        k = self.fresh('k')
        lines = ['%sint %s = 0;' % (pad, k)]
        inner = sc.copy()
        inner.rdepth += 1
        if writes and (not reads or self.chance(0.5)):
            y = self.rng.choice(writes)
            sq, _ = self.squash(sc, 1)
            forced = ['%s  %s[%s++] %s %s;' % (pad, y.name, k,
                                              self.rng.choice(['=', '+=', '-=']), sq)]
        else:
            arr = self.rng.choice(reads)
            acc = self.walk_acc(sc, lines, pad)
            forced = ['%s  %s += %s;' % (pad, acc, self.walk_term(
                sc, '%s[%s++]' % (arr.name, k)))]
        lines.append('%swhile (%s < %s) {' % (pad, k, self.bound))
        lines += self.walk_loop_body(inner, indent, ret_t, forced, True)
        lines.append('%s}' % pad)
        sc.ints.append(k)
        return lines

    def walk_chain(self, sc, indent, pad, ret_t):
        """a = b = e, into two scalars in scope or two new ones."""
        targets = [v.name for v in sc.vars if v.assignable]
        targets += ['%s[%s]' % (a.name, self.index(sc, a))
                    for a in sc.arrays if a.writable and a.readable]
        lines = []
        # (e first: it reads no variable declared here, uninitialised)
        e, _ = self.squash(sc, 2) if self.walk_in_loop else self.expr(sc, 2)
        if len(set(targets)) >= 2 and self.chance(0.7):
            a, b = self.rng.sample(sorted(set(targets)), 2)
        else:
            t = self.ftype()
            a, b = self.fresh('v'), self.fresh('v')
            lines.append('%s%s %s, %s;' % (pad, self.ctype(t), a, b))
            sc.vars += [Var(a, t), Var(b, t)]
        lines.append('%s%s = %s = %s;' % (pad, a, b, e))
        return lines

    def walk_postinc(self, sc, indent, pad, ret_t):
        """A floating counter: old = c++ (or c--, ++c), perhaps a comma
        expression (c *= e, c + old)."""
        t = self.ftype()
        T = self.ctype(t)
        lines = []
        own = [v for v in sc.vars if v.assignable]
        if own and self.chance(0.4):
            c = self.rng.choice(own).name
        else:
            c = self.fresh('v')
            e, _ = self.squash(sc, 2)
            lines.append('%s%s %s = %s;' % (pad, T, c, e))
            sc.vars.append(Var(c, t))
        old = self.fresh('v')
        step = self.rng.choice(['%s++', '%s--', '++%s', '--%s']) % c
        lines.append('%s%s %s = %s;' % (pad, self.ctype(t), old, step))
        sc.vars.append(Var(old, t))
        if self.chance(0.3):
            z = self.fresh('v')
            sq, _ = self.squash(sc, 1)
            lines.append('%s%s %s = (%s *= %s, %s + %s);' % (pad, T, z, c, sq, c, old))
            sc.vars.append(Var(z, t))
        return lines

    def walk_condassign(self, sc, indent, pad, ret_t):
        """if ((t = e) > c) ..., perhaps && ++k > 0 on the right."""
        in_loop = self.walk_in_loop
        t = self.ftype()
        T = self.ctype(t)
        v = self.fresh('v')
        e, _ = self.expr(sc, 2)
        c = self.rng.choice(SELECT_LITERALS) + {'f': '%sf%', 'd': '%sd%', 'l': '%sl%'}[t]
        lines = ['%s%s %s%s;' % (pad, T, v, ' = 0' if self.chance(0.3) else '')]
        cond = '(%s = %s) %s %s' % (v, e, self.rng.choice(['>', '<', '>=']), c)
        sc.vars.append(Var(v, t))
        if self.chance(0.4):
            k = self.fresh('k')
            lines.append('%sint %s = 0;' % (pad, k))
            cond = '%s && ++%s > 0' % (cond, k)
            sc.ints.append(k)
        lines.append('%sif ((%%BR(%%%s%%BR)%%)) {' % (pad, cond))
        lines += self.block(sc, self.rng.randint(1, 2), indent + 1,
                            in_loop, ret_t)
        if self.chance(0.5):
            lines.append('%s} else {' % pad)
            lines += self.block(sc, self.rng.randint(1, 2), indent + 1,
                                in_loop, ret_t)
        lines.append('%s}' % pad)
        return lines

    def stmt(self, sc, indent, in_loop, ret_t, budget):
        pad = '  ' * indent
        if self.on('lambdas') and self.lrng.random() < 0.1:
            return self.lambda_def(sc, pad)
        if self.on('rangefor') and indent < 4 and len(sc.loops) + sc.rdepth < 2 \
                and self.frng.random() < 0.08:
            return self.with_rng(self.frng, lambda: self.range_for(sc, indent, ret_t))
        if self.on('iterators') and indent < 4 and len(sc.loops) + sc.rdepth < 2 \
                and any(a.vec and not a.eigen for a in sc.arrays) \
                and self.irng.random() < 0.25:
            lines = self.with_rng(self.irng, lambda: self.iterators(sc, indent, ret_t))
            if lines:
                return lines
        if self.on('sizes') and self.on('containers') and not self.in_helper \
                and indent < 4 and self.zrng.random() < 0.12:
            lines = self.with_rng(self.zrng,
                                  lambda: self.sizes(sc, indent, ret_t))
            if lines:
                return lines
        if self.on('stencil') and indent < 4 and len(sc.loops) + sc.rdepth < 2 \
                and self.nrng.random() < 0.1:
            lines = self.with_rng(self.nrng, lambda: self.stencil(sc, indent))
            if lines:
                return lines
        if self.on('walk') and indent < 4 and self.wrng.random() < 0.1:
            lines = self.with_rng(self.wrng,
                                  lambda: self.walk(sc, indent, in_loop, ret_t))
            if lines:
                return lines
        if self.on('eigen') and self.erng.random() < 0.1:
            line = self.eigen_inplace(sc, pad) if self.erng.random() < 0.3 \
                else self.eigen_auto(sc, pad)
            if line:
                return [line]
        ds = 2
        assignable = [v for v in sc.vars if v.assignable]
        writable = [a for a in sc.arrays if a.writable and a.readable]
        kinds = ['decl'] * (3 if indent <= 1 else 1)
        if assignable:
            kinds += ['assign'] * 4
        if writable:
            kinds += ['aset'] * 2
        if self.on('int'):
            kinds += ['intdecl']
        if self.on('localarrays'):
            kinds += ['localarr']
        if self.on('constarrays') and self.const_arrays > 0:
            kinds += ['constarr'] * 2
        if self.on('branches') and indent < 4:
            kinds += ['if'] * 2
        if self.on('loops') and indent < 4 and len(sc.loops) + sc.rdepth < 2:
            kinds += ['for'] * 2
        if self.on('while') and indent < 4 and len(sc.loops) + sc.rdepth < 2:
            kinds += ['while']
        if self.on('voidhelpers') and any(h.void and not h.custom for h in self.helpers) \
                and writable:
            kinds += ['vcall']
        if sc.struct and self.on('structs'):
            kinds += ['scopy']
        if self.get_t and [o for o in sc.objects if o[1]]:
            kinds += ['mput']
        if self.on('aliases') and (writable or sc.struct):
            kinds += ['alias']
        if in_loop and self.on('breakcont'):
            kinds += ['brk']
        if ret_t is not None and self.on('earlyreturn') and not self.in_helper \
                and self.on('branches'):
            kinds += ['ret']
        k = self.rng.choice(kinds)
        if k == 'decl':
            t = self.ftype()
            e, _ = self.expr(sc, ds)
            name = self.fresh('v')
            sc.vars.append(Var(name, t))
            return ['%s%s %s = %s;' % (pad, self.ctype(t), name, e)]
        if k == 'intdecl':
            name = self.fresh('k')
            e, _ = self.squash(sc, 1)
            line = '%sint %s = %s;' % (pad, name, self.cast('%s * 2.5%s' % (e, '%sd%'), 'i'))
            sc.ints.append(name)
            return [line]
        if k == 'assign':
            v = self.rng.choice(assignable)
            op = self.rng.choice(['=', '+=', '-=', '*=', '/=', '='])
            if op == '*=':
                e, _ = self.squash(sc, ds)
            elif op == '/=':
                b, _ = self.expr(sc, 1)
                c, _ = self.lit()
                e = '(%s + %s * %s)' % (c, b, b)
            elif in_loop:
                # Accumulators stay bounded however often the loop runs.
                e, _ = self.squash(sc, ds)
            else:
                e, _ = self.expr(sc, ds)
            return ['%s%s %s %s;' % (pad, v.name, op, e)]
        if k == 'aset':
            a = self.rng.choice(writable)
            op = self.rng.choice(['=', '+=', '-='])
            e, _ = self.squash(sc, ds) if in_loop else self.expr(sc, ds)
            return ['%s%s[%s] %s %s;' % (pad, a.name, self.index(sc, a), op, e)]
        if k == 'localarr':
            t = self.ftype()
            name = self.fresh('a')
            L = self.L
            if self.chance(0.5):
                els = []
                for _ in range(L):
                    e, _ = self.expr(sc, 1)
                    els.append('static_cast<%s>(%s)' % (CTYPE[t], e))
                lines = ['%s%s %s[%d] = {%s};' % (pad, self.ctype(t), name, L,
                                                  ', '.join(els))]
            else:
                i = self.fresh('i')
                inner = sc.copy()
                inner.loops.append(i)
                inner.ints.append(i)
                e, _ = self.expr(inner, ds)
                lines = ['%s%s %s[%d];' % (pad, self.ctype(t), name, L),
                         '%sfor (int %s = 0; %s < %d; ++%s)' % (pad, i, i, L, i),
                         '%s  %s[%s] = %s;' % (pad, name, i, e)]
            # A std::vector instead, at the top of a body outside loops (in f
            # and in helpers, whose split pairs hand it over on the tape);
            # from its own stream, so programs without containers stay.
            vec = self.on('containers') and indent <= 1 and not sc.loops and \
                self.crng.random() < 0.4
            # An Eigen vector declared inside a loop: sized once, before
            # the outermost loop (own stream).
            in_loop_eigen = not vec and sc.loops and self.on('eigen') and \
                self.erng.random() < 0.3
            if in_loop_eigen:
                decl = '%s%s %s[%d]' % (pad, self.ctype(t), name, L)
                vdecl = '%s%s %s' % (pad, vec_type(self.ctype(t), True), name)
                if lines[0].startswith(decl + ' = {'):
                    lines[0] = lines[0].replace(decl + ' = {', vdecl + '{{', 1)
                    lines[0] = lines[0][:-2] + '}};'
                else:
                    lines[0] = lines[0].replace(decl + ';', '%s(%d);' % (vdecl, L), 1)
                vec = True
            elif vec:
                decl = '%s%s %s[%d]' % (pad, self.ctype(t), name, L)
                vdecl = '%sstd::vector<%s> %s' % (pad, self.ctype(t), name)
                # A sized one may be an Eigen vector (own stream).
                if self.on('eigen') and not lines[0].startswith(decl + ' = {') \
                        and self.erng.random() < 0.5:
                    vdecl = '%s%s %s' % (pad, vec_type(self.ctype(t), True), name)
                lines[0] = lines[0].replace(decl + ' = {', vdecl + ' = {', 1) \
                    if lines[0].startswith(decl + ' = {') else \
                    lines[0].replace(decl + ';', '%s(%d);' % (vdecl, L), 1)
            eigen = vec and 'Eigen::' in lines[0]
            sc.arrays.append(Arr(name, t, L, True, True, fixed=True, vec=vec,
                                 eigen=eigen,
                                 resizable=vec and not eigen and
                                 not self.in_helper))
            return lines
        if k == 'constarr':
            self.const_arrays -= 1
            t = self.ftype()
            name = self.fresh('w')
            vals = [self.rng.choice(LITERALS) + ('f' if t == 'f' else '') for _ in
                    range(self.L)]
            # Literal suffixes are placeholders so that the clone renders them.
            vals = [v.replace('f', '%sf%') if v.endswith('f') else v for v in vals]
            if self.chance(0.3):
                vals = [str(self.rng.choice([1, 2, 3])) for _ in range(self.L)]
            sc.arrays.append(Arr(name, t, self.L, True, False, fixed=True))
            return ['%sconst %s %s[%d] = {%s};' % (pad, self.ctype(t), name, self.L,
                                                   ', '.join(vals))]
        if k == 'if':
            c = self.cond(sc, 1)
            lines = ['%sif %s {' % (pad, c)]
            lines += self.block(sc, self.rng.randint(1, 2), indent + 1, in_loop, ret_t)
            if self.chance(0.6):
                lines.append('%s} else {' % pad)
                lines += self.block(sc, self.rng.randint(1, 2), indent + 1, in_loop, ret_t)
            lines.append('%s}' % pad)
            return lines
        if k == 'for':
            i = self.fresh('i')
            inner = sc.copy()
            inner.loops.append(i)
            inner.ints.append(i)
            lines = []
            acc = None
            if indent < 3 and self.drng.random() < 0.3:
                # An accumulator set to a constant at each iteration and
                # summed into by an inner loop (engine/lib/UnreadValues.cpp).
                acc = Var(self.fresh('acc'), self.ftype())
                lines.append('%s%s %s = 0;' % (pad, self.ctype(acc.t), acc.name))
            lines.append('%sfor (%s) {' % (pad, self.loop_header(sc, i)))
            if acc:
                m = self.fresh('m')
                deeper = inner.copy()
                deeper.loops.append(m)
                deeper.ints.append(m)
                e, _ = self.expr(deeper, 1)
                lines += ['%s  %s = %s;' % (pad, acc.name, self.lit(acc.t)[0]),
                          '%s  for (int %s = 0; %s < %s; ++%s)' % (pad, m, m, self.bound, m),
                          '%s    %s += %s;' % (pad, acc.name, self.cast(e, acc.t))]
                inner.vars.append(Var(acc.name, acc.t, assignable=False))
            lines += self.block(inner, self.rng.randint(1, 3), indent + 1, True, ret_t)
            lines.append('%s}' % pad)
            if acc:
                sc.vars.append(Var(acc.name, acc.t))
            return lines
        if k == 'while':
            j = self.fresh('j')
            inner = sc.copy()
            inner.ints.append(j)
            if self.drng.random() < 0.3:
                # The counter advanced in the condition, after the body; no
                # break or continue of this loop in it.
                lines = ['%sint %s = 0;' % (pad, j), '%sdo {' % pad]
                lines += self.block(inner, self.rng.randint(1, 3), indent + 1, False, ret_t)
                lines.append('%s} while (++%s < %d);' % (pad, j, self.rng.randint(1, 4)))
                return lines
            lines = ['%sint %s = 0;' % (pad, j),
                     '%swhile (%s < %d) {' % (pad, j, self.rng.randint(1, 4)),
                     '%s  ++%s;' % (pad, j)]
            lines += self.block(inner, self.rng.randint(1, 3), indent + 1, True, ret_t)
            lines.append('%s}' % pad)
            return lines
        if k == 'vcall':
            h = self.rng.choice([h for h in self.helpers if h.void and not h.custom])
            arrs = [a for a in writable if a.t == h.arr_param]
            if not arrs:
                return []
            a = self.rng.choice(arrs)
            args = ['%s[%s]' % (a.name, self.index(sc, a)) if h.ref_out else a.ptr]
            for pt in h.params:
                e, _ = self.expr(sc, 1)
                args.append(e)
            return ['%s%s(%s);' % (pad, h.name, ', '.join(args))]
        if k == 'scopy':
            # A local copy of the struct in scope, whose members the rest of
            # the block reads and writes.
            name = self.fresh('c')
            sc.add_object(name, self.members, writable=True)
            if self.get_t and self.chance(0.3):
                # Made by the constructor, then given the values of the
                # struct in scope member by member.
                a, _ = self.expr(sc, 1)
                b, _ = self.expr(sc, 1)
                return ['%sS %s(%s, %s);' % (pad, name, a, b),
                        '%s%s = %s;' % (pad, name, sc.struct)]
            lines = ['%sS %s = %s;' % (pad, name, sc.struct)]
            if not self.get_t and not any(m.eigen for m in self.members) \
                    and self.chance(0.35):
                # Given a braced object that reads the members it replaces
                # (built whole first, as C++ does: `c = {c.m1, c.m0}`).
                reads = []
                for m in self.members:
                    if m.t == 'i':
                        continue
                    if m.length is None:
                        reads.append('%s.%s' % (name, m.name))
                    else:
                        reads += ['%s.%s[%d]' % (name, m.name, j)
                                  for j in range(m.length)]

                def val(m):
                    if m.t == 'i':
                        return '%s.%s' % (name, m.name)
                    return 'static_cast<%s>(0.75 * %s - 0.5 * %s)' % (
                        self.ctype(m.t), self.rng.choice(reads),
                        self.rng.choice(reads))
                parts = []
                for m in self.members:
                    if m.length is None:
                        parts.append(val(m))
                    else:
                        parts.append('{%s}' % ', '.join(val(m) for _ in
                                                        range(m.length)))
                if reads:
                    lines.append('%s%s = {%s};' % (pad, name, ', '.join(parts)))
            if not any(m.eigen for m in self.members) and self.chance(0.3):
                # Its members named by a structured binding, one written
                # through its name.
                names = [self.fresh('b') for _ in self.members]
                lines.append('%sauto &[%s] = %s;' % (pad, ', '.join(names), name))
                scal = [(n, m) for n, m in zip(names, self.members)
                        if m.t != 'i' and m.length is None]
                if scal:
                    n, m = self.rng.choice(scal)
                    e, _ = self.squash(sc, 1)
                    lines.append('%s%s = static_cast<%s>(0.5 * %s + %s);' % (
                        pad, n, self.ctype(m.t), n, e))
            return lines
        if k == 'mput':
            obj = self.rng.choice([o for o in sc.objects if o[1]])[0]
            e, _ = self.expr(sc, ds)
            return ['%s%s.put(%s);' % (pad, obj, e)]
        if k == 'alias':
            return self.alias(sc, pad, writable)
        if k == 'brk':
            c = self.cond(sc, 1)
            return ['%sif %s %s;' % (pad, c, self.rng.choice(['break', 'continue']))]
        if k == 'ret':
            c = self.cond(sc, 1)
            e, _ = self.expr(sc, ds)
            return ['%sif %s' % (pad, c), '%s  return %s;' % (pad, e)]
        return []

    def loop_header(self, sc, i):
        """The header of a for loop over [0, bound): inside another for, its
        range may follow the enclosing counter; it stays inside [0, bound)."""
        B = self.bound
        plain = 'int %s = 0; %s < %s; ++%s' % (i, i, B, i)
        if not self.on('loopshapes') or self.srng.random() < 0.5:
            return plain
        outer = [l for l in sc.loops if l.startswith('i')]
        shapes = ['int %s = 0; %s <= %s - 1; ++%s' % (i, i, B, i)]
        if outer:
            o = self.srng.choice(outer)
            shapes += ['int %s = %s + 1; %s < %s; ++%s' % (i, o, i, B, i),
                       'int %s = 0; %s <= %s; ++%s' % (i, i, o, i),
                       'int %s = %s; %s < %s; ++%s' % (i, o, i, B, i),
                       'int %s = 0; %s < %s; ++%s' % (i, i, o, i)]
        return self.srng.choice(shapes)

    def alias(self, sc, pad, writable):
        """A local reference or pointer that names a place for the rest of
        the block: its index is a constant or a loop counter, which the
        block does not change."""
        form = self.rng.randrange(3)
        if form == 2 and sc.struct:
            name = self.fresh('r')
            sc.add_object(name, self.members)
            return ['%sconst S &%s = %s;' % (pad, name, sc.struct)]
        if not writable:
            return []
        a = self.rng.choice(writable)
        name = self.fresh('r')
        T = self.ctype(a.t)
        if form == 0 or a.length != self.L:
            idx = str(self.rng.randrange(a.length))
            if sc.loops and a.length == self.L and self.chance(0.5):
                idx = self.rng.choice(sc.loops)
            sc.vars.append(Var(name, a.t))
            return ['%s%s &%s = %s[%s];' % (pad, T, name, a.name, idx)]
        sc.arrays.append(Arr(name, a.t, a.length, True, True))
        return ['%s%s *%s = %s;' % (pad, T, name, a.ptr)]

    # -- helpers --------------------------------------------------------
    def gen_helper(self, idx):
        name = 'h%d' % idx
        sc = Scope()
        self.in_helper = True
        void = self.on('voidhelpers') and self.chance(0.25)
        # A void helper writes through T *o, or through T &o (called on an
        # array element; its body does not read o then).
        ref_out = void and self.on('refs') and self.chance(0.5)
        ret = self.ftype()
        if self.on('int') and not void and self.chance(0.1):
            ret = 'i'
        arr_t = None
        decls = []
        if ref_out:
            arr_t = self.ftype()
            decls.append('%s &o' % CTYPE[arr_t])
        elif void or (self.chance(0.2) and self.on('localarrays')):
            arr_t = self.ftype()
            pname = 'o' if void else 'p'
            decls.append('%s%s *%s' % ('' if void else 'const ', CTYPE[arr_t], pname))
            sc.arrays.append(Arr(pname, arr_t, 1, True, void))
        takes_struct = bool(self.members) and not void and self.chance(0.4)
        if takes_struct:
            decls.insert(0, 'const S &q' if self.chance(0.6) else 'S q')
            sc.add_struct('q', self.members)
        params = []
        for j in range(self.rng.randint(1, 3)):
            t = self.ftype()
            if self.on('int') and self.chance(0.2):
                t = 'i'
            pn = 'x%d' % j
            params.append(t)
            # const T& only where no argument can be the memory the call
            # writes (a void helper's o): such calls are refused.
            cref = t != 'i' and not void and self.on('refs') and self.chance(0.3)
            decls.append(('const %s &%s' if cref else '%s %s') % (CTYPE[t], pn))
            if t == 'i':
                sc.ints.append(pn)
            else:
                sc.vars.append(Var(pn, t, assignable=not cref and self.chance(0.5)))
        saved = self.helpers
        if not self.on('nested'):
            self.helpers = []
        body = self.block(sc, self.rng.randint(0, 2), 1, False, None, share=True)
        if void:
            e, _ = self.expr(sc, 2)
            body.append('  %s %s %s;' % ('o' if ref_out else 'o[0]',
                                         self.rng.choice(['=', '+=']), e))
            text = 'void %s(%s) {\n%s\n}\n' % (name, ', '.join(decls), '\n'.join(body))
        else:
            e, _ = self.expr(sc, 2)
            if ret == 'i':
                e = '%%PI(%%static_cast<int>(%s * 2.5)%%PI)%%' % self.squash(sc, 1)[0]
            tmpl = self.on('templates') and self.trng.random() < 0.3
            if tmpl:
                e = 'K * (%s)' % e
            body.append('  return %s;' % e)
            text = '%s%s %s(%s) {\n%s\n}\n' % ('template <int K>\n' if tmpl else '',
                                               CTYPE[ret], name, ', '.join(decls),
                                               '\n'.join(body))
        self.helpers = saved
        self.in_helper = False
        h = Helper(name, ret, params, text, arr_t, void)
        h.tmpl = not void and text.startswith('template')
        h.ref_out = ref_out
        h.takes_struct = takes_struct
        return h

    def gen_custom(self):
        """A helper whose body hides its derivative (stop_gradient) and whose
        custom rules give the right one: if a rule is ignored, the
        derivative is wrong."""
        t = self.ftype()
        T = CTYPE[t]
        name = 's%dc%%R%%' % self.seed
        ns = '%NS%'
        if self.on('voidhelpers') and self.chance(0.5):
            # It overwrites o[0], and is only called on a fresh array of
            # constants: the result is the same whether the engine or the
            # _jvp rule runs the primal update.
            text = ('void %s(%s *o, %s x) {\n  o[0] = fluxion::stop_gradient(x * x);\n}\n'
                    % (name, T, T))
            self.rules = (
                'inline void %s_vjp(%s *o, %s x, %s *d_o, %s *d_x) {\n'
                '  *d_x += 2 * x * d_o[0];\n  %s::%s(o, x);\n}\n'
                'inline void %s_jvp(%s *o, %s x, %s *t_o, %s t_x) {\n'
                '  t_o[0] = 2 * x * t_x;\n  %s::%s(o, x);\n}\n' % (
                    name, T, T, T, T, ns, name, name, T, T, T, T, ns, name))
            h = Helper(name, None, [t], text, t, void=True)
            h.custom = True
            self.helpers.append(h)
        else:
            text = ('%s %s(%s x, %s y) {\n  return fluxion::stop_gradient(x * y) + x;\n}\n'
                    % (T, name, T, T))
            self.rules = (
                'inline %s %s_vjp(%s x, %s y, %s seed, %s *d_x, %s *d_y) {\n'
                '  *d_x += seed * (y + 1);\n  *d_y += seed * x;\n  return %s::%s(x, y);\n}\n'
                'inline %s %s_jvp(%s x, %s y, %s t_x, %s t_y) {\n'
                '  return (y + 1) * t_x + x * t_y;\n}\n' % (
                    T, name, T, T, T, T, T, ns, name, T, name, T, T, T, T))
            self.helpers.append(Helper(name, t, [t, t], text))

    # -- the annotated function ------------------------------------------
    def gen_struct(self):
        """The program's struct: one to three scalars, perhaps an array, and
        an int member that derivatives leave alone."""
        self.members = [Member('m%d' % j, self.ftype())
                        for j in range(self.rng.randint(1, 3))]
        if self.chance(0.5):
            self.members.append(Member('a', self.ftype(), self.L))
            # With eigen, the array member is sometimes an Eigen vector.
            self.members[-1].eigen = self.on('eigen') and \
                self.erng.random() < 0.4
        self.members.append(Member('k', 'i'))
        self.rng.shuffle(self.members)
        if self.on('methods') and self.chance(0.6):
            self.gen_methods()

    def gen_methods(self):
        """S's methods, whose bodies read the members by their names (and
        through this->): get(v) const returns an expression of them and v;
        put(v) updates a floating member and returns *this; S(u, w) sets
        every member (the int one to 3)."""
        sc = Scope()
        reals = [m for m in self.members if m.t != 'i']
        sc.add_members(self.members, lambda m: m.name if self.chance(0.7)
                       else 'this->' + m.name, writable=False)
        t = self.ftype()
        sc.vars.append(Var('v', t, assignable=False))
        saved, self.helpers = self.helpers, []
        self.get_t = self.ftype()
        e, _ = self.expr(sc, 2)
        get = '  %s get(%s v) const { return %s; }' % (
            CTYPE[self.get_t], CTYPE[t], e)
        m = self.rng.choice(reals)
        target = m.name if m.length is None else '%s[%d]' % (
            m.name, self.rng.randrange(m.length))
        e2, _ = self.expr(sc, 2)
        put = '  S &put(%s v) {\n    %s %s %s;\n    return *this;\n  }' % (
            CTYPE[t], target, self.rng.choice(['=', '+=', '*=']), e2)
        inits, body = [], []
        for j, m in enumerate(self.members):
            if m.t == 'i':
                inits.append('%s(3)' % m.name)
            elif m.length is None:
                inits.append('%s(%s)' % (m.name, 'u' if j % 2 else 'w'))
            else:
                body.append('for (int i = 0; i < %d; ++i) %s[i] = u * i + w;' %
                            (m.length, m.name))
        ctor = '  S(%s u, %s w) : %s {%s}' % (
            CTYPE[t], CTYPE[t], ', '.join(inits),
            (' ' + ' '.join(body) + ' ') if body else '')
        self.helpers = saved
        self.methods = ['  S() = default;', ctor, get, put]

    def generate(self):
        rng = self.rng
        if self.on('structs') and self.chance(0.3):
            self.gen_struct()
        if self.on('helpers'):
            for i in range(rng.randint(1, 3)):
                self.helpers.append(self.gen_helper(i))
        self.rules = ''
        if self.on('custom') and self.chance(0.35):
            self.gen_custom()
        params = []
        for j in range(rng.randint(1, 3)):
            params.append(Param('x%d' % j, 'S', self.ftype()))
            params[-1].ref = self.on('refs') and self.chance(0.3)
        kinds = []
        for kind, feat, p in (('CP', 'ptrin', 0.35), ('CA', 'arrin', 0.35),
                              ('OP', 'ptrout', 0.25), ('OA', 'arrout', 0.3),
                              ('RA', 'rwarray', 0.12)):
            if self.on(feat) and self.chance(p):
                kinds.append(kind)
        for j, kind in enumerate(kinds):
            nm = {'CP': 'p', 'CA': 'a', 'OP': 'y', 'OA': 'z', 'RA': 'b'}[kind]
            params.append(Param(nm, kind, self.ftype(), self.L))
            if kind in ('CP', 'OP') and self.on('containers') and \
                    self.crng.random() < 0.4:
                params[-1].vec = True
                params[-1].eigen = self.on('eigen') and self.erng.random() < 0.5
        if self.members:
            st = Param('s', 'ST', self.members[0].t if self.members[0].t != 'i'
                       else self.members[1].t)
            st.members = self.members
            st.ref = self.chance(0.6)  # else by value
            st.length = sum(1 if m.length is None else m.length
                            for m in self.members if m.t != 'i')
            params.append(st)
        if any(p.kind in ('CP', 'OP') for p in params) or (self.on('int') and self.chance(0.3)):
            params.append(Param('n', 'I', 'i'))
            self.bound = 'n'
        rng.shuffle(params)
        # f as a template of one scalar parameter's type, deduced from it.
        tmpl_head = ''
        scalars = [p for p in params if p.kind == 'S']
        if self.on('templates') and scalars and self.trng.random() < 0.3:
            p = self.trng.choice(scalars)
            p.tparam = True
            tmpl_head = 'template <class T = %s>\n' % CTYPE[p.t]
        has_out = any(p.is_output for p in params)
        void = has_out and self.chance(0.3)
        ret = None if void else self.ftype()
        # Values at the evaluation point, kinks placed on purpose.
        for p in params:
            if p.kind == 'S':
                p.value = dyadic(rng)
            elif p.kind == 'I':
                p.value = self.L
            elif p.is_array or p.kind == 'ST':
                p.value = [dyadic(rng) for _ in range(p.length)]
        scal = [p for p in params if p.kind == 'S']
        if self.on('kinks') and self.on('cmath') and scal and self.chance(0.4):
            p = rng.choice(scal)
            p.value = 0.0
            self.kink_params.append((p.name, 'zero', p.t))
            others = [q for q in scal if q is not p]
            if len(others) > 1 and self.chance(0.5):
                a, b = rng.sample(others, 2)
                b.value = a.value
                self.kink_params.append(((a.name, b.name), 'tie', promote(a.t, b.t)))
        # Restricted annotations: outputs are always named.
        inputs = [p for p in params if p.is_input]
        restricted = None
        if self.on('restrict') and len(inputs) > 1 and self.chance(0.3):
            keep = rng.sample(inputs, rng.randint(1, len(inputs) - 1))
            # A non-const array that is only read and left unnamed is a
            # located error for f_jacobian (the Jacobian would have to
            # guess whether it is an output): name it.
            keep += [p for p in inputs if p.kind == 'RA' and p not in keep]
            for p in inputs:
                p.active = p in keep
            restricted = [p.name for p in params if p.active and p.kind != 'I']
        # Body.
        self.walk_params = {p.name for p in params if p.is_array and not p.vec}
        self.lambda_text = ''   # (the helpers' lambdas do not see f's parameters)
        sc = Scope()
        for p in params:
            if p.kind == 'S':
                sc.vars.append(Var(p.name, p.t, assignable=False))
            elif p.kind == 'I':
                sc.ints.append(p.name)
            elif p.kind in ('CP', 'CA', 'RA'):
                # A std::vector taken by value is f's own copy: f may change it.
                p.copy = (p.kind == 'CP' and p.vec and not p.eigen and
                          self.vrng.random() < 0.3)
                sc.arrays.append(Arr(p.name, p.t, p.length, True, p.copy,
                                     fixed=p.vec, vec=p.vec, eigen=p.eigen))
            elif p.kind == 'ST':
                sc.add_struct(p.name, p.members)
        lines = []
        for p in params:
            if p.is_output:
                i = self.fresh('i')
                inner = sc.copy()
                inner.loops.append(i)
                inner.ints.append(i)
                e, _ = self.expr(inner, 2)
                lines += ['  for (int %s = 0; %s < %s; ++%s)' % (i, i, self.bound, i),
                          '    %s[%s] = %s;' % (p.name, i, e)]
                sc.arrays.append(Arr(p.name, p.t, p.length, True, True,
                                     fixed=p.vec, vec=p.vec, eigen=p.eigen))
        forced = []
        for h in self.helpers:
            if '_vjp' not in self.rules or not h.name.startswith('s%dc' % self.seed):
                continue
            # The helper with custom rules is called at least once, and its
            # result reaches the function's outputs.
            v = self.fresh('v')
            e1, _ = self.expr(sc, 2)
            e2, _ = self.expr(sc, 2)
            if h.void:
                a = self.fresh('c')
                T = self.ctype(h.arr_param)
                lines += ['  %s %s[1] = {0};' % (T, a),
                          '  %s(%s, %s);' % (h.name, a, e2),
                          '  %s %s = %s[0];' % (T, v, a)]
                sc.arrays.append(Arr(a, h.arr_param, 1, True, True, fixed=True))
            else:
                T = self.ctype(h.ret)
                lines.append('  %s %s = %s(%s, %s);' % (T, v, h.name, e1, e2))
            forced.append(Var(v, h.ret or h.arr_param))
            sc.vars.append(forced[-1])
        lines += self.block(sc, rng.randint(2, 6), 1, False, ret, share=True)
        # Make the result depend on what the body computed.
        live = [v for v in sc.vars if v.assignable and v not in forced]
        live = forced + rng.sample(live, min(len(live), rng.randint(1, 3)))
        outs = [p for p in params if p.is_output]
        if ret is None:
            for v in live:
                o = rng.choice(outs)
                lines.append('  %s[%d] += %s;' % (o.name, rng.randrange(o.length), v.name))
        if ret is not None:
            top = sc
            e, _ = self.expr(top, 3)
            for v in live:
                c, _ = self.lit()
                e = '%s %s %s * %s' % (e, rng.choice('+-'), c, v.name)
            if self.on('kinks') and self.kink_params and self.chance(0.5):
                k, _ = self.kink(top)
                e = '%s + %s' % (e, k)
            lines.append('  return %s;' % e)
        # Annotations.
        mixed = len({p.t for p in params if p.kind != 'I'} | ({ret} if ret else set())) > 1
        args = '(%s)' % ', '.join('"%s"' % n for n in restricted) if restricted else ''
        modes = ['grad']
        if self.on('jvp'):
            modes.append('jvp')
        no_ptr_outputs = not any(p.kind in ('OP', 'OA', 'RA') for p in params)
        fixed_only = all(p.kind in ('S', 'I', 'CA', 'OA', 'RA') for p in params)
        if self.on('hessian') and ret is not None and no_ptr_outputs and \
                all(p.kind in ('S', 'I', 'CA', 'CP', 'ST') for p in params) and \
                (not mixed or self.on('mixedhessian')) and self.chance(0.5):
            modes.append('hessian')
        if self.on('jacobian') and fixed_only and self.chance(0.6):
            modes.append('jacobian')
        elif self.on('jacobian') and any(p.kind == 'ST' for p in params) and \
                all(p.kind in ('S', 'I', 'CA', 'OA', 'RA', 'ST') for p in params) and \
                random.Random(self.seed * 7919 + 61).random() < 0.6:
            # A const S& gives a column per floating member (its own
            # stream: programs without one are unchanged).
            modes.append('jacobian')
        ann = ' '.join('[[fluxion::%s%s]]' % (m, args) for m in modes)
        sig = '%s f(%s)' % ('void' if ret is None else CTYPE[ret],
                            ', '.join(p.decl() for p in params))
        body = '\n'.join(lines)
        helpers = '\n'.join(h.text for h in self.helpers + self.walk_helpers)
        if self.members:
            helpers = 'struct S {\n%s\n};\n\n' % '\n'.join(
                ['  ' + m.decl() for m in self.members] + self.methods) + helpers
        if self.rules:
            helpers += '} // namespace %NS%\nnamespace fluxion::custom {\n' + self.rules + \
                '} // namespace fluxion::custom\nnamespace %NS% {\n'
        for p in params:
            self.used.add(p.t) if p.t != 'i' else None
            for m in p.members:
                self.used.add(m.t) if m.t != 'i' else None
        if ret:
            self.used.add(ret)
        prec = 'f' if 'f' in self.used else ('d' if 'd' in self.used else 'l')
        prog = Program(self.seed, helpers, ann, sig, body, params, ret, modes,
                       restricted, prec, self.rng)
        prog.tmpl_head = tmpl_head
        prog.targs = '<>' if tmpl_head else ''
        # Its own stream: with the feature off, a seed's program is unchanged.
        prog.callsite = self.on('callsite') and not tmpl_head and \
            len(restricted or []) <= 4 and \
            random.Random(self.seed * 7919 + 43).random() < 0.5
        return prog


class Program:
    def __init__(self, seed, helpers, ann, sig, body, params, ret, modes,
                 restricted, prec, rng):
        self.seed, self.helpers, self.ann, self.sig, self.body = seed, helpers, ann, sig, body
        self.params, self.ret, self.modes, self.restricted = params, ret, modes, restricted
        self.prec = prec
        self.ns = 's%d' % seed
        self.inputs = [p for p in params if p.is_input and p.active]
        self.outputs = [p for p in params if p.is_output]
        self.N = sum(p.length for p in self.inputs)
        self.M = (1 if ret else 0) + sum(p.length for p in self.outputs)
        self.X0 = []
        for p in self.inputs:
            self.X0 += [p.value] if p.kind == 'S' else list(p.value)
        self.struct_int = 3  # the value of the struct's int member
        self.tmpl_head = ''  # 'template <...>\n' when f is a template
        self.targs = ''      # '<>' then: &f_hessian<> names its instance
        self.V = [dyadic(rng, -1, 1) for _ in range(self.N)]
        self.W = [dyadic(rng, -1, 1) for _ in range(self.M)]

    def render(self, text, clone):
        table = dict(CLONE if clone else ORIG)
        table['%NS%'] = self.ns + ('_ref' if clone else '')
        return render(text, table)

    def path_source(self):
        """The path copy's namespace (see PATH)."""
        table = dict(PATH)
        table['%NS%'] = self.ns + '_path'
        text = '%s\n%s%s {\n%s\n}\n' % (self.helpers, self.tmpl_head, self.sig,
                                          self.body)
        # (PATH_SELECT itself calls std::max... and is not rendered.)
        sel = PATH_SELECT if any(f in text for f in (
            'std::max', 'std::min', 'std::clamp', 'std::abs')) else ''
        return 'namespace %s_path {\n%s%s} // namespace %s_path\n' % (
            self.ns, sel, render(text, table), self.ns)

    def source(self, clone=False):
        """The program's namespace (the clone's when clone is set)."""
        if clone:
            args = '(%s)' % ', '.join('"%s"' % n for n in self.restricted) \
                if self.restricted else ''
            ann = '[[fluxion::grad%s]]' % args if self.ret else ''
            text = '%s\n%s%s %s {\n%s\n}\n' % (self.helpers, self.tmpl_head, ann,
                                                self.sig, self.body)
            return 'namespace %s_ref {\n%s} // namespace %s_ref\n' % (
                self.ns, self.render(text, True), self.ns)
        text = '%s\n%s%s %s {\n%s\n}\n' % (self.helpers, self.tmpl_head, self.ann,
                                            self.sig, self.body)
        return 'namespace %s {\n%s} // namespace %s\n' % (self.ns, self.render(text, False),
                                                          self.ns)


def generate(seed, features):
    return Generator(seed, features).generate()
