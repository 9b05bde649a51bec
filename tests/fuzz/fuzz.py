#!/usr/bin/env python3
"""Differential fuzzer for Fluxion: random programs, every derivative mode
checked against the others and against finite differences, through the
plugin and through fluxion-gen + g++.

  tests/fuzz/fuzz.py --seeds 0:1000 -j 2          run 1000 programs
  tests/fuzz/fuzz.py --seed 17                    re-run one, verbosely
  tests/fuzz/fuzz.py --seed 17 --show             print its program

See docs/fuzzing.md. Python 3 standard library only.
"""

import argparse
import concurrent.futures
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generator  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
# Eigen's headers (Debian's libeigen3-dev); the eigen feature is off without.
EIGEN_INCLUDE = os.environ.get('FLUXION_EIGEN_INCLUDE', '/usr/include/eigen3')

# Tolerances, by the lowest-precision floating type a program uses anywhere
# (its "precision class"): relative to max(|reference|, 1).
FD_RTOL = {'f': 5e-3, 'd': 1e-6, 'l': 1e-9}      # a derivative vs finite differences
CROSS_RTOL = {'f': 1e-3, 'd': 1e-9, 'l': 1e-12}  # one mode vs another
SAME_RTOL = {'f': 1e-5, 'd': 1e-12, 'l': 1e-15}  # values that the same code computes
FD_HREL = {'f': 1e-5, 'd': 1e-6, 'l': 1e-6}      # finite-difference step (relative)
PRIMAL_RTOL = {'f': 1e-4, 'd': 1e-10, 'l': 1e-14}  # program vs its long double clone
# Kink detection: a smooth function's one-sided differences differ by about
# h f'' (halving with h) and its central differences at h and h/2 agree to
# O(h^2); at a kink the one-sided ones differ by the jump whatever h is.
KINK_ABS = 1e-6
KINK_RATIO = 0.75
# Beyond this magnitude of a result, finite differences of size h lose the
# inputs' contributions to rounding (x + 1e18 absorbs a step of 1e-6 even in
# long double): such programs are compared across modes only.
HUGE = 1e12
# Rounding in the clone's finite differences: a result of magnitude |y|
# carries an error of some ulps of long double (accumulated over the
# program), which the quotient divides by the step h.
FD_ROUNDING_ULPS = 1e3
LD_EPS = 1.0842021724855044e-19
# f_jacobian and f_hessian buffers are filled with this before the call.
UNWRITTEN = 123456789.0
# Round trip: plugin build vs fluxion-gen + g++ build.
RT_RTOL = {'f': 1e-5, 'd': 1e-11, 'l': 1e-14}
RT_FD_RTOL = 1e-9

LOCK = threading.Lock()


# ---------------------------------------------------------------------------
# Rendering a translation unit
# ---------------------------------------------------------------------------

def ld(x):
    return repr(float(x)) + 'L'


def ctype_own(t):
    return {'f': 'float', 'd': 'double', 'l': 'long double', 'i': 'int'}[t]


def struct_fill(q, obj, clone, value):
    """Assignments of the struct q's floating members of object obj, in
    the order of its flattened values (value(k) gives entry k); its int
    member gets a constant."""
    lines, k = [], 0
    for m in q.members:
        T = 'long double' if clone and m.t != 'i' else ctype_own(m.t)
        if m.t == 'i':
            lines.append('%s.%s = 3;' % (obj, m.name))
        elif m.length is None:
            lines.append('%s.%s = (%s)%s;' % (obj, m.name, T, value(k)))
            k += 1
        else:
            for i in range(m.length):
                lines.append('%s.%s[%d] = (%s)%s;' % (obj, m.name, i, T, value(k)))
                k += 1
    return lines


def struct_zeroed(q, ns, obj):
    """The declaration of an S object obj with every member zero: `= {}`
    leaves an Eigen member's coefficients uninitialised (its default
    constructor runs), so those are zeroed after."""
    return ['%s::S %s = {};' % (ns, obj)] + [
        '%s.%s.setZero();' % (obj, m.name) for m in q.members
        if getattr(m, 'eigen', False)]


def struct_entries(q, obj):
    """The floating members of object obj of struct q, flattened."""
    out = []
    for m in q.members:
        if m.t == 'i':
            continue
        if m.length is None:
            out.append('%s.%s' % (obj, m.name))
        else:
            out += ['%s.%s[%d]' % (obj, m.name, i) for i in range(m.length)]
    return out


def param_setup(p, clone, xname='X', ns=None):
    """Declarations of the program's arguments from the flattened inputs,
    and the argument list. ns: the namespace whose struct S the arguments
    are (the program's, its clone's or its path copy's)."""
    if ns is None:
        ns = p.ns + ('_ref' if clone else '')
    lines, k = [], 0
    for q in p.params:
        T = 'long double' if clone and q.t != 'i' else ctype_own(q.t)
        if q.kind == 'ST':
            lines += struct_zeroed(q, ns, q.name)
            if q.active:
                lines += struct_fill(q, q.name, clone,
                                     lambda i, k=k: '%s[%d]' % (xname, k + i))
                k += q.length
            else:
                lines += struct_fill(q, q.name, clone, lambda i: ld(q.value[i]))
        elif q.kind == 'I':
            lines.append('int %s = %d;' % (q.name, q.value))
        elif q.kind == 'S':
            if q.active:
                lines.append('%s %s = (%s)%s[%d];' % (T, q.name, T, xname, k))
                k += 1
            else:
                lines.append('%s %s = (%s)%s;' % (T, q.name, T, ld(q.value)))
        elif q.is_input:
            if getattr(q, 'vec', False):
                lines.append('%s %s(%d);' % (vec_of(q, T), q.name, q.length))
            else:
                lines.append('%s %s[%d];' % (T, q.name, q.length))
            for i in range(q.length):
                if q.active:
                    lines.append('%s[%d] = (%s)%s[%d];' % (q.name, i, T, xname, k))
                    k += 1
                else:
                    lines.append('%s[%d] = (%s)%s;' % (q.name, i, T, ld(q.value[i])))
        elif getattr(q, 'vec', False):
            lines.append('%s %s(%d);' % (vec_of(q, T), q.name, q.length))
            if getattr(q, 'eigen', False):
                lines.append('%s.setZero();' % q.name)
        else:
            lines.append('%s %s[%d] = {};' % (T, q.name, q.length))
    return lines, [q.name for q in p.params]


def copy_outputs(p, yname='Y'):
    lines, k = [], (1 if p.ret else 0)
    for q in p.outputs:
        for i in range(q.length):
            lines.append('%s[%d] = %s[%d];' % (yname, k, q.name, i))
            k += 1
    return lines


def diff_params(p):
    """Parameters that get a d_/t_/v_/hv_ argument, in order."""
    return [q for q in p.params if q.kind != 'I' and q.active]


def driver(p):
    """The wrappers run_program calls, for program p."""
    ns, R = p.ns, (ctype_own(p.ret) if p.ret else None)
    out = ['namespace %s_drv {' % ns, 'using fuzz::LD;', 'using fuzz::UNWRITTEN;']
    vec = lambda name, xs: 'static const LD %s[%d] = {%s};' % (
        name, max(len(xs), 1), ', '.join(ld(x) for x in xs) or '0')
    out += [vec('X0', p.X0), vec('V', p.V), vec('W', p.W)]

    def fn(sig, body):
        out.append('void %s {' % sig)
        out.extend('  ' + l for l in body)
        out.append('}')

    def call(name, extra, clone=False):
        setup, args = param_setup(p, clone)
        return setup, '%s%s::%s(%s)' % (ns, '_ref' if clone else '', name,
                                        ', '.join(args + extra))

    for clone in (False, True):
        setup, c = call('f', [], clone)
        body = setup + [('Y[0] = %s;' % c) if p.ret else c + ';'] + copy_outputs(p)
        fn('eval_%s(const LD *X, LD *Y)' % ('ref' if clone else 'own'), body)
    # The path copy's hash at X.
    setup, args = param_setup(p, True, ns=ns + '_path')
    out.append('unsigned long long path(const LD *X) {')
    out.extend('  ' + l for l in setup)
    out += ['  fuzz::path_hash() = 0;', '  %s_path::f(%s);' % (ns, ', '.join(args)),
            '  return fuzz::path_hash();', '}']
    dps = diff_params(p)

    def adjoints(T_of, prefix, seeds, sns=ns):
        """Declarations of d_ (or hv_) buffers and their arguments; output
        buffers hold seeds from W when seeds is set."""
        decl, args, k = [], [], (1 if p.ret else 0)
        for q in dps:
            T = T_of(q)
            nm = prefix + q.name
            if q.kind == 'ST':
                decl += struct_zeroed(q, sns, nm)
                args.append('&' + nm)
            elif q.kind == 'S':
                decl.append('%s %s = 0;' % (T, nm))
                args.append('&' + nm)
            else:
                if getattr(q, 'vec', False):
                    # A container's adjoint: a container of the same size.
                    decl.append('%s %s(%d);' % (vec_of(q, T), nm, q.length))
                    if getattr(q, 'eigen', False):
                        decl.append('%s.setZero();' % nm)
                    args.append('&' + nm)
                else:
                    decl.append('%s %s[%d] = {};' % (T, nm, q.length))
                    args.append(nm)
                if q.is_output and seeds:
                    for i in range(q.length):
                        decl.append('%s[%d] = (%s)W[%d];' % (nm, i, T, k + i))
            if q.is_output:
                k += q.length
        return decl, args

    def gather(prefix):
        """Input adjoints into G, in the order of X."""
        lines, k = [], 0
        for q in p.inputs:
            if q.kind == 'S':
                lines.append('G[%d] = %s%s;' % (k, prefix, q.name))
                k += 1
            elif q.kind == 'ST':
                for e in struct_entries(q, prefix + q.name):
                    lines.append('G[%d] = %s;' % (k, e))
                    k += 1
                # Derivative code never writes an int member.
                lines.append('std::printf("IX 0 %%d\\n", %s%s.k);' % (prefix, q.name))
            else:
                for i in range(q.length):
                    lines.append('G[%d] = %s%s[%d];' % (k, prefix, q.name, i))
                    k += 1
        return lines

    def tangents(src, pre='t_'):
        """Tangent (or v_) arguments from src (V), output buffers."""
        decl, args, k = [], [], 0
        for q in dps:
            T = ctype_own(q.t)
            if q.kind == 'ST':
                decl += struct_zeroed(q, ns, pre + q.name)
                decl += struct_fill(q, pre + q.name, False,
                                    lambda i, k=k: '%s[%d]' % (src, k + i))
                decl.append('%s%s.k = 0;' % (pre, q.name))
                args.append('&%s%s' % (pre, q.name))
                k += q.length
            elif q.kind == 'S':
                args.append('(%s)%s[%d]' % (T, src, k))
                k += 1
            elif q.is_input:
                vec = getattr(q, 'vec', False)
                decl.append(('%s %s%s(%d);' % (vec_of(q, T), pre, q.name, q.length))
                            if vec else
                            '%s %s%s[%d];' % (T, pre, q.name, q.length))
                for i in range(q.length):
                    decl.append('%s%s[%d] = (%s)%s[%d];' % (pre, q.name, i, T, src, k))
                    k += 1
                args.append(('&' if vec else '') + pre + q.name)
            elif getattr(q, 'vec', False):
                decl.append('%s %s%s(%d);' % (vec_of(q, T), pre, q.name, q.length))
                if getattr(q, 'eigen', False):
                    decl.append('%s%s.setZero();' % (pre, q.name))
                args.append('&' + pre + q.name)
            else:
                decl.append('%s %s%s[%d] = {};' % (T, pre, q.name, q.length))
                args.append(pre + q.name)
        return decl, args

    def shaped(buf, T, n, name, args, dst):
        """Calls name with a buffer of n entries, with room behind it: a
        matrix of another shape than expected is reported, not a crash."""
        cap = 4 * n + 64
        return ['%s %s[%d];' % (T, buf, cap),
                'for (int i = 0; i < %d; ++i) %s[i] = (%s)UNWRITTEN;' % (cap, buf, T),
                '%s::%s(%s);' % (ns, name, ', '.join(args + [buf])),
                'for (int i = 0; i < %d; ++i) %s[i] = %s[i];' % (n, dst, buf),
                'int beyond = 0;',
                'for (int i = %d; i < %d; ++i) beyond += %s[i] != (%s)UNWRITTEN;' % (
                    n, cap, buf, T),
                'std::printf("%sX 0 %%d\\n", beyond);' % dst]

    own_T = lambda q: ctype_own(q.t)
    has = {m: m in p.modes for m in ('grad', 'jvp', 'hessian', 'jacobian')}
    if p.ret:
        # The clone's gradient (long double throughout).
        setup, args = param_setup(p, True)
        decl, dargs = adjoints(lambda q: 'long double', 'd_', False, ns + '_ref')
        fn('grad_ref(const LD *X, LD *G)',
           setup + decl + ['%s_ref::f_grad(%s);' % (ns, ', '.join(args + dargs))]
           + gather('d_'))
        setup, args = param_setup(p, False)
        decl, dargs = adjoints(own_T, 'd_', False)
        fn('grad_own(const LD *X, LD *G, LD *Y)',
           setup + decl + ['Y[0] = %s::f_grad(%s);' % (ns, ', '.join(args + dargs))]
           + gather('d_') + copy_outputs(p))
    setup, args = param_setup(p, False)
    decl, dargs = adjoints(own_T, 'd_', True)
    seed = ['(%s)W[0]' % R] if p.ret else []
    # The call-site form names the parameters the annotation names: one
    # generated function serves both.
    names = ''.join(', "%s"' % n for n in (p.restricted or []))
    def call(mode, fargs):
        if getattr(p, 'callsite', False):
            return 'fluxion::%s(&%s::f%s)(%s)' % (mode, ns, names, ', '.join(fargs))
        return '%s::f_%s(%s)' % (ns, mode, ', '.join(fargs))
    c = call('vjp', args + seed + dargs)
    fn('vjp_own(const LD *X, const LD *W, LD *G, LD *Y)',
       setup + decl + [('Y[0] = %s;' % c) if p.ret else c + ';'] + gather('d_')
       + copy_outputs(p))
    if has['jvp']:
        setup, args = param_setup(p, False)
        decl, targs = tangents('V')
        c = call('jvp', args + targs)
        body = setup + decl + [('T[0] = %s;' % c) if p.ret else c + ';']
        k = 1 if p.ret else 0
        for q in p.outputs:
            for i in range(q.length):
                body.append('T[%d] = t_%s[%d];' % (k, q.name, i))
                k += 1
        fn('jvp_own(const LD *X, const LD *V, LD *T, LD *Y)', body + copy_outputs(p))
    dense = all(q.kind in ('S', 'CA') for q in dps)
    if has['hessian']:
        setup, args = param_setup(p, False)
        decl, vargs = tangents('V', 'v_')
        hdecl, hargs = adjoints(own_T, 'hv_', False)
        fn('hvp_own(const LD *X, const LD *V, LD *G)',
           setup + decl + hdecl + ['%s::f_hvp(%s);' % (ns, ', '.join(args + vargs + hargs))]
           + gather('hv_'))
        if dense:
            setup, args = param_setup(p, False)
            fn('hess_own(const LD *X, LD *H)',
               setup + ['using HT = fuzz::LastPointee<decltype(&%s::f_hessian%s)>::type;' % (ns, p.targs)]
               + shaped('h', 'HT', p.N * p.N, 'f_hessian', args, 'H'))
    if has['jacobian']:
        setup, args = param_setup(p, False)
        fn('jac_own(const LD *X, LD *J)',
           setup + ['using JT = fuzz::LastPointee<decltype(&%s::f_jacobian%s)>::type;' % (ns, p.targs)]
           + shaped('j', 'JT', p.M * p.N, 'f_jacobian', args, 'J'))
    nul = 'nullptr'
    out.append('static const fuzz::Prog prog = {%d, %d, %d, X0, V, W, %sL, eval_own, '
               'eval_ref, path, %s, %s, vjp_own, %s, %s, %s, %s};' % (
                   p.seed, p.N, p.M, FD_HREL[p.prec],
                   'grad_ref' if p.ret else nul, 'grad_own' if p.ret else nul,
                   'jvp_own' if has['jvp'] else nul,
                   'hvp_own' if has['hessian'] else nul,
                   'hess_own' if has['hessian'] and dense else nul,
                   'jac_own' if has['jacobian'] else nul))
    out.append('} // namespace %s_drv' % ns)
    return '\n'.join(out) + '\n'


def vec_of(q, T):
    """The vector type of container parameter q with elements T."""
    return generator.vec_type(T, getattr(q, 'eigen', False))


def render_tu(progs):
    """The translation unit's text and, per seed, its range of lines."""
    support = open(os.path.join(HERE, 'fuzz_support.hpp')).read()
    parts = ['// Generated by tests/fuzz/fuzz.py (seeds %s).' %
             ', '.join(str(p.seed) for p in progs),
             '#include <fluxion/fluxion.hpp>', '#include <algorithm>',
             '#include <cmath>', '#include <numeric>', '#include <vector>', '',
             support]
    if any('Eigen::' in p.source() for p in progs):
        parts.insert(1, '#include <Eigen/Dense>')
    text = '\n'.join(parts) + '\n'
    ranges = {}
    for p in progs:
        start = text.count('\n') + 1
        text += p.source() + p.source(clone=True) + p.path_source() + driver(p)
        ranges[p.seed] = (start, text.count('\n'))
    text += 'static const fuzz::Prog programs[] = {%s};\n' % ', '.join(
        '%s_drv::prog' % p.ns for p in progs)
    text += ('int main(int argc, char **argv) {\n  return fuzz::main_(programs, %d, '
             'argc, argv);\n}\n' % len(progs))
    return text, ranges


# ---------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------

class Tools:
    def __init__(self, args):
        cfg = args.fluxion_config or os.path.join(ROOT, 'build', 'bin', 'fluxion-config')

        def q(flag):
            return subprocess.run([cfg, flag], capture_output=True, text=True,
                                  check=True).stdout.strip()
        self.plugin = args.plugin or q('--plugin')
        self.cxxflags = shlex.split(args.include and '-I' + args.include or q('--cxxflags'))
        # Eigen's headers (Debian's libeigen3-dev), for the eigen feature.
        if os.path.isdir(EIGEN_INCLUDE):
            self.cxxflags += ['-isystem', EIGEN_INCLUDE]
        self.gen = args.fluxion_gen or os.path.join(os.path.dirname(cfg), 'fluxion-gen')
        self.clang = args.clang
        self.gxx = args.gxx
        self.opt = args.opt


def run(cmd, timeout, cwd=None):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           cwd=cwd, errors='replace')
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors='replace') if isinstance(e.stdout, bytes) else (e.stdout or '')
        return 'timeout', out, ''


def first_errors(stderr, n=3):
    lines = [l for l in stderr.splitlines() if ' error: ' in l or 'internal error' in l
             or 'PLEASE submit' in l or 'Assertion' in l]
    return ' | '.join(lines[:n]) if lines else stderr.strip().splitlines()[-1:] and \
        stderr.strip().splitlines()[-1] or '(no message)'


def blame(stderr, ranges, fname, src_lines):
    """Seeds whose lines the errors point into, with their messages (and
    the source line each points to)."""
    seeds = {}
    pat = re.compile(r'^(?:.*/)?%s:(\d+):\d+: (?:fatal )?error: (.*)$' % re.escape(fname))
    for line in stderr.splitlines():
        m = pat.match(line)
        if not m:
            continue
        ln = int(m.group(1))
        for s, (a, b) in ranges.items():
            if a <= ln <= b:
                code = src_lines[ln - 1].strip() if ln <= len(src_lines) else ''
                seeds.setdefault(s, []).append('%s [at: %s]' % (m.group(2), code[:160]))
                break
        else:
            seeds.setdefault(None, []).append(line)
    return seeds


# ---------------------------------------------------------------------------
# Checking a program's numbers
# ---------------------------------------------------------------------------

def parse_output(text):
    """{seed: {tag: {key tuple: values}}} for the programs that finished."""
    res, cur = {}, None
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == 'BEGIN':
            cur = {}
            cur_seed = int(f[1])
        elif f[0] == 'END':
            if cur is not None:
                res[cur_seed] = cur
            cur = None
        elif cur is not None:
            tag = f[0]
            try:
                if tag in ('FDC',):
                    key, vals = (int(f[1]), int(f[2])), f[3:]
                elif tag in ('FDV', 'FDG') or len(f) == 3:
                    key, vals = (int(f[1]),), f[2:]
                else:
                    key, vals = (int(f[1]), int(f[2])), f[3:]
                vals = [float(v) for v in vals]
            except (IndexError, ValueError):
                # A line cut short (the program crashed while printing, or
                # printed something of its own): its block is incomplete.
                cur = None
                continue
            cur.setdefault(tag, {})[key] = vals
    return res


def finite(*xs):
    return all(math.isfinite(x) for x in xs)


class Checker:
    """Compares one program's numbers; collects failures and skip counts."""

    def __init__(self, prog, data, verbose=False):
        self.p, self.d, self.verbose = prog, data, verbose
        self.fail = []
        self.skips = {}
        self.kinky = False
        self.huge = False
        self.ymax = 1.0
        self.prec = prog.prec

    def log(self, msg):
        if self.verbose:
            print('  ' + msg)

    def skip(self, why):
        self.skips[why] = self.skips.get(why, 0) + 1

    def vals(self, tag, n):
        t = self.d.get(tag, {})
        return [t[(i,)][0] for i in range(n)] if len(t) >= n else None

    def kink(self, c1, c2, d1, d2):
        s = max(abs(c2), 1.0)
        if abs(c1 - c2) > KINK_ABS * s:
            return True
        return abs(d1) > KINK_ABS * s and abs(d2) > KINK_RATIO * abs(d1)

    def vs_fd(self, what, ad, fdv, primal_ok, divergent, moved=False):
        """ad against finite differences fdv; moved: a point of them takes
        another path than the evaluation point."""
        c1, c2, d1, d2 = fdv
        if not finite(c1, c2, d1, d2):
            self.skip('non-finite finite difference')
            self.log('%-28s ad=%-24.17g fd not finite: skipped' % (what, ad))
            return
        if not math.isfinite(ad):
            if primal_ok:
                self.fail.append('%s: %r where finite differences give %.17g '
                                 '(finite primal)' % (what, ad, c2))
                self.log('%-28s ad=%r fd=%.17g  FAIL (non-finite)' % (what, ad, c2))
            return
        if self.huge:
            self.skip('values beyond %g (finite differences lose the step)' % HUGE)
            return
        if moved:
            self.skip('path changes within the step')
            self.log('%-28s ad=%-24.17g fd=%.17g: the path changes within the step, '
                     'skipped' % (what, ad, c2))
            return
        if self.kink(c1, c2, d1, d2):
            self.kinky = True
            self.skip('kink')
            self.log('%-28s ad=%-24.17g fd=%.17g (h: %.17g, one-sided diff %.3g/%.3g): kink, '
                     'skipped' % (what, ad, c2, c1, d1, d2))
            return
        if divergent:
            self.skip('branch divergence (program vs clone)')
            return
        # The finite difference's own error is about |c1 - c2| (a second
        # derivative that jumps makes it O(h), which the kink test lets by).
        tol = FD_RTOL[self.prec] * max(abs(c2), 1.0) + 2 * abs(c1 - c2) + \
            FD_ROUNDING_ULPS * LD_EPS * self.ymax / FD_HREL[self.p.prec]
        ok = abs(ad - c2) <= tol
        self.log('%-28s ad=%-24.17g fd=%-24.17g %s' % (what, ad, c2, 'ok' if ok else 'FAIL'))
        if not ok:
            self.fail.append('%s = %.17g, finite differences %.17g (tolerance %.2g)' %
                             (what, ad, c2, tol))

    def same(self, what, a, b, rtol, scale=None):
        """Two numbers two modes (or the same code twice) must agree on."""
        if a == UNWRITTEN:
            self.fail.append('%s: entry left unwritten (expected %.17g)' % (what, b))
            self.log('%-28s unwritten FAIL' % what)
            return
        if not finite(a) or not finite(b):
            if finite(a) != finite(b) or (math.isnan(a) != math.isnan(b)):
                self.fail.append('%s: %r vs %r' % (what, a, b))
                self.log('%-28s %r vs %r FAIL' % (what, a, b))
            return
        s = max(abs(a), abs(b), 1.0, scale or 0.0)
        ok = abs(a - b) <= rtol * s
        self.log('%-28s %-24.17g vs %-24.17g %s' % (what, a, b, 'ok' if ok else 'FAIL'))
        if not ok:
            self.fail.append('%s: %.17g vs %.17g' % (what, a, b))

    def run(self):
        p, d = self.p, self.d
        N, M = p.N, p.M
        Y, YR = self.vals('Y', M), self.vals('YR', M)
        if Y is None or YR is None:
            self.fail.append('incomplete output')
            return
        primal_ok = finite(*Y)
        if not primal_ok:
            self.skip('degenerate program (non-finite primal)')
            self.degenerate = True
            return
        self.huge = any(abs(v) > HUGE for v in Y + YR)
        self.ymax = max([abs(v) for v in Y + YR] + [1.0])
        divergent = any(abs(a - b) > PRIMAL_RTOL[self.prec] * max(abs(b), 1.0)
                        for a, b in zip(Y, YR))
        if divergent:
            self.log('program and its long double clone differ: %s vs %s' % (Y, YR))
        fdc = d.get('FDC', {})

        def moved(tag, col):
            return d.get(tag, {}).get((col,), [0.0])[0] != 0.0
        rows = range(1 if p.ret else 0, M)
        # Primal values returned/written by the derivatives.
        for tag in ('GY', 'VJY', 'JVY'):
            vs = self.vals(tag, M)
            if vs is None:
                continue
            for j in range(M):
                if tag == 'GY' and j > 0:
                    continue
                if tag == 'VJY' and j >= (1 if p.ret else 0) and vs[j] == 0.0:
                    # f_vjp restores an output the function reads back after
                    # writing it to its entry values (README), here zeros.
                    continue
                self.same('%s primal output %d' % ({'GY': 'f_grad', 'VJY': 'f_vjp',
                                                    'JVY': 'f_jvp'}[tag], j),
                          vs[j], Y[j], SAME_RTOL[self.prec])
        # f_grad vs finite differences.
        G = self.vals('G', N)
        if G is not None:
            for i in range(N):
                self.vs_fd('f_grad d/dx[%d]' % i, G[i], fdc[(i, 0)], primal_ok, divergent,
                           moved('FDCP', i))
        # f_vjp vs finite differences of <W, Y>.
        VJ = self.vals('VJ', N)
        if VJ is not None:
            for i in range(N):
                comb = [sum(p.W[j] * fdc[(i, j)][k] for j in range(M)) for k in range(4)]
                self.vs_fd('f_vjp(w)[%d]' % i, VJ[i], comb, primal_ok, divergent,
                           moved('FDCP', i))
        # f_jvp vs finite differences along V.
        JV = self.vals('JV', M)
        fdv = d.get('FDV', {})
        if JV is not None:
            for j in range(M):
                self.vs_fd('f_jvp(v) output %d' % j, JV[j], fdv[(j,)], primal_ok, divergent,
                           moved('FDVP', 0))
        # Reference gradient of the clone (long double) vs its finite differences.
        RG = self.vals('RG', N)
        if RG is not None:
            saved = self.prec
            self.prec = 'l'
            for i in range(N):
                self.vs_fd('clone f_grad d/dx[%d]' % i, RG[i], fdc[(i, 0)], primal_ok, False,
                           moved('FDCP', i))
            self.prec = saved
        # Cross-mode checks are skipped where a finite difference saw a kink:
        # modes may pick different one-sided derivatives there.
        if not self.kinky:
            for (i, j), v in fdc.items():
                if finite(*v) and self.kink(*v):
                    self.kinky = True
            for v in fdv.values():
                if finite(*v) and self.kink(*v):
                    self.kinky = True
        # f_hvp vs finite differences of the (clone's) gradient along V,
        # where f is smooth: at a kink of f its Hessian means nothing, even
        # where the gradient AD computes happens to be continuous.
        HV = self.vals('HV', N)
        fdg = d.get('FDG', {})
        if HV is not None and fdg:
            for i in range(N):
                if self.kinky and math.isfinite(HV[i]):
                    self.skip('f_hvp at a kink of f')
                    continue
                self.vs_fd('f_hvp(v)[%d]' % i, HV[i], fdg[(i,)], primal_ok, divergent,
                           moved('FDGP', 0))
        cross = CROSS_RTOL[self.prec]

        def cross_check(what, a, b, scale=None):
            if self.kinky and finite(a) and finite(b):
                self.skip('cross-mode check at a kink')
                return
            self.same(what, a, b, cross, scale)
        if JV is not None and VJ is not None:
            lhs = sum(JV[j] * p.W[j] for j in range(M))
            rhs = sum(p.V[i] * VJ[i] for i in range(N))
            scale = sum(abs(JV[j] * p.W[j]) for j in range(M)) + \
                sum(abs(p.V[i] * VJ[i]) for i in range(N))
            cross_check('dot test <jvp(v),w> vs <v,vjp(w)>', lhs, rhs, scale)
        if G is not None and VJ is not None and not p.outputs:
            # Without outputs, vjp(w) = w * grad.
            for i in range(N):
                cross_check('f_vjp vs w*f_grad [%d]' % i, VJ[i], p.W[0] * G[i])
        H, HC = d.get('H'), d.get('HC')
        if H:
            for (i, c), v in sorted(H.items()):
                cross_check('f_hessian[%d][%d] vs f_hvp(e%d)' % (i, c, c), v[0],
                            HC[(i, c)][0])
        written = self.vals('IX', 1)
        if written and written[0] != 0:
            self.fail.append("an adjoint struct's int member was written (%d)"
                             % written[0])
        for tag, what in (('JX', 'f_jacobian'), ('HX', 'f_hessian')):
            beyond = self.vals(tag, 1)
            if beyond and beyond[0] > 0:
                self.fail.append('%s writes %d entries beyond the expected %d x %d '
                                 '(a matrix of another shape)' % (
                                     what, beyond[0], M if tag == 'JX' else N, N))
        J = d.get('J')
        if J:
            JC, JR = d.get('JC', {}), d.get('JR', {})
            for (r, c), v in sorted(J.items()):
                if (r, c) in JC:
                    cross_check('f_jacobian[%d][%d] vs f_jvp(e%d)' % (r, c, c), v[0],
                                JC[(r, c)][0])
                if (r, c) in JR:
                    cross_check('f_jacobian[%d][%d] vs f_vjp(e%d)' % (r, c, r), v[0],
                                JR[(r, c)][0])
        elif 'jacobian' in p.modes:
            self.fail.append('no f_jacobian output')


def compare_roundtrip(prog, a, b):
    """Plugin build (a) vs fluxion-gen + g++ build (b): the same numbers."""
    bad = []

    def path_moved(tag, k):
        # Whether either build saw the primal's path change within the
        # finite-difference step of this column: the two compilers' last
        # bits may put a branch on either side of it, so the differences
        # (and the flag itself) are the primal's, not Fluxion's, and each
        # build skips them when it checks derivatives.
        flags = tag + 'P'
        col = (k[0],) if tag == 'FDC' else (0,)
        return any(d.get(flags, {}).get(col, [0.0])[0] != 0.0 for d in (a, b))
    for tag in sorted(set(a) | set(b)):
        ta, tb = a.get(tag, {}), b.get(tag, {})
        if set(ta) != set(tb):
            bad.append('%s: different entries' % tag)
            continue
        if tag.startswith('FD') and tag.endswith('P'):
            continue  # path flags: see path_moved
        fd = tag.startswith('FD') or tag in ('YR', 'RG')
        rtol = RT_FD_RTOL if fd else RT_RTOL[prog.prec]
        for k in sorted(ta):
            if tag.startswith('FD') and path_moved(tag, k):
                continue
            for x, y in zip(ta[k], tb[k]):
                if math.isnan(x) and math.isnan(y):
                    continue
                if x == y:
                    continue
                if not finite(x, y) or abs(x - y) > rtol * max(abs(x), abs(y), 1.0):
                    bad.append('%s %s: plugin %.17g, fluxion-gen+g++ %.17g' %
                               (tag, ' '.join(map(str, k)), x, y))
    return bad


# ---------------------------------------------------------------------------
# One batch (translation unit)
# ---------------------------------------------------------------------------

class Result:
    def __init__(self):
        self.failures = {}   # seed -> [(class, message)]
        self.passed = set()
        self.skips = {}
        self.degenerate = set()

    def add(self, seed, cls, msg):
        self.failures.setdefault(seed, []).append((cls, msg))


def compile_plugin(tools, src, exe, timeout):
    cmd = [tools.clang, '-std=c++17', tools.opt] + tools.cxxflags + \
        ['-fplugin=' + tools.plugin, '-w', '-ferror-limit=0', src, '-o', exe]
    return run(cmd, timeout)


# g++ 12.2 (Debian 12) miscompiles, at -O1 and above, a call to a function
# that adds std::cos of long doubles into an array through a computed index:
# it deletes the call (seed 5596; a twelve-line program without Fluxion in
# docs/fuzzing.md). Its IPA side-effect analyses are what go wrong, so the
# round trip turns them off rather than report g++'s bug as ours.
GXX_WORKAROUND = ['-fno-ipa-modref', '-fno-ipa-pure-const']


def compile_gxx(tools, src, exe, timeout):
    cmd = [tools.gxx, '-std=c++17', tools.opt] + GXX_WORKAROUND + \
        tools.cxxflags + ['-w', '-fmax-errors=0', src, '-o', exe]
    return run(cmd, timeout)


def fluxion_gen(tools, src, out, timeout):
    cmd = [tools.gen, src, '-o', out, '--'] + ['-std=c++17'] + tools.cxxflags
    return run(cmd, timeout)


def build_with_blame(progs, workdir, name, build, res, cls, fname_of, timeout):
    """Builds the TU of progs (build(src, exe) -> (rc, out, err)); programs
    the errors point into fail with class cls and are left out, and the
    rest is built again. Returns (programs that built, exe path, ranges)."""
    progs = list(progs)
    for attempt in range(6):
        if not progs:
            return [], None, {}
        text, ranges = render_tu(progs)
        src = os.path.join(workdir, name + '.cpp')
        exe = os.path.join(workdir, name)
        with open(src, 'w') as f:
            f.write(text)
        rc, out, err = build(src, exe)
        internal = 'internal error' in err
        if rc == 0 and not internal:
            return progs, exe, ranges
        if rc == 0 and internal:
            # Compiled, yet the plugin said "internal error": blame by lines.
            pass
        blamed = blame(err, ranges, os.path.basename(fname_of(src)), text.splitlines())
        named = {s: m for s, m in blamed.items() if s is not None}
        if not named or rc == 'timeout':
            break
        for s, msgs in named.items():
            kind = cls + (' (internal error)' if any('internal error' in m for m in msgs) else '')
            res.add(s, kind, ' | '.join(msgs[:3]))
        progs = [p for p in progs if p.seed not in named]
        if rc == 0:
            return progs, exe, ranges
    # Attribute by building the programs one at a time.
    good = []
    for p in progs:
        text, ranges = render_tu([p])
        src = os.path.join(workdir, '%s_s%d.cpp' % (name, p.seed))
        exe = os.path.join(workdir, '%s_s%d' % (name, p.seed))
        with open(src, 'w') as f:
            f.write(text)
        rc, out, err = build(src, exe)
        if rc == 0 and 'internal error' not in err:
            good.append(p)
        else:
            msgs = blame(err, ranges, os.path.basename(src), text.splitlines()).get(p.seed)
            why = 'timeout' if rc == 'timeout' else (
                ' | '.join(msgs[:3]) if msgs else first_errors(err))
            internal = 'internal error' in err
            res.add(p.seed, cls + (' (internal error)' if internal else ''), why)
    if not good:
        return [], None, {}
    text, ranges = render_tu(good)
    src = os.path.join(workdir, name + '.cpp')
    exe = os.path.join(workdir, name)
    with open(src, 'w') as f:
        f.write(text)
    rc, out, err = build(src, exe)
    if rc != 0:
        for p in good:
            res.add(p.seed, cls, 'builds alone but not with the others: ' + first_errors(err))
        return [], None, {}
    return good, exe, ranges


def run_exe(exe, progs, res, cls, timeout):
    """Runs exe; returns {seed: data}. Crashes are attributed by running the
    programs one at a time."""
    rc, out, err = run([exe], timeout)
    data = parse_output(out)
    missing = [p for p in progs if p.seed not in data]
    if rc != 0 or missing:
        for p in missing if missing else progs:
            if p.seed in data:
                continue
            rc1, out1, err1 = run([exe, str(p.seed)], timeout)
            d1 = parse_output(out1)
            if p.seed in d1:
                data[p.seed] = d1[p.seed]
            else:
                what = 'timeout' if rc1 == 'timeout' else 'exit status %s' % rc1
                res.add(p.seed, cls, 'program crashed or hung (%s) %s' % (
                    what, err1.strip()[-300:]))
    return data


def run_batch(progs, tools, args, verbose=False):
    res = Result()
    keep = args.keep
    workdir = tempfile.mkdtemp(prefix='fluxion-fuzz-') if not keep else keep
    os.makedirs(workdir, exist_ok=True)
    name = 'tu_%d' % progs[0].seed
    T = args.timeout
    try:
        ok, exe, ranges = build_with_blame(
            progs, workdir, name, lambda s, e: compile_plugin(tools, s, e, T), res,
            'compile error (plugin)', lambda s: s, T)
        if not ok:
            return res
        data = run_exe(exe, ok, res, 'crash (plugin build)', T)
        with open(os.path.join(workdir, name + '.out'), 'w') as f:
            f.write('\n'.join('%s' % s for s in sorted(data)))
        for p in ok:
            if p.seed not in data:
                continue
            c = Checker(p, data[p.seed], verbose)
            c.run()
            for why, n in c.skips.items():
                res.skips[why] = res.skips.get(why, 0) + n
            if getattr(c, 'degenerate', False):
                res.degenerate.add(p.seed)
            for m in c.fail:
                res.add(p.seed, 'wrong derivative', m)
        # fluxion-gen round trip.
        if not args.no_roundtrip:
            def gen_build(src, exe):
                gen = src[:-4] + '.gen.cpp'
                rc, out, err = fluxion_gen(tools, src, gen, T)
                if rc != 0:
                    return rc, out, 'fluxion-gen: ' + err
                rc, out, err2 = compile_gxx(tools, gen, exe, T)
                if rc != 0:
                    return rc, out, 'g++: ' + err2
                return rc, out, err
            ok2, exe2, _ = build_with_blame(
                ok, workdir, name + '_rt', gen_build, res, 'round trip build (fluxion-gen/g++)',
                lambda s: s, T)
            if ok2:
                data2 = run_exe(exe2, ok2, res, 'crash (fluxion-gen + g++ build)', T)
                for p in ok2:
                    if p.seed in data and p.seed in data2:
                        bad = compare_roundtrip(p, data[p.seed], data2[p.seed])
                        if verbose:
                            print('  round trip: %s' % ('same numbers' if not bad else
                                                        '%d differences' % len(bad)))
                        for m in bad[:3]:
                            res.add(p.seed, 'round trip mismatch', m)
        for p in progs:
            if p.seed not in res.failures:
                res.passed.add(p.seed)
        return res
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


PREFLIGHT = '''#include <fluxion/fluxion.hpp>
#include <cmath>
#include <vector>
#include <cstdio>
[[fluxion::grad]] double sq(double x) { return x * std::sin(x); }
int main() { double d = 0; sq_grad(2.0, &d); std::printf("%.6f\\n", d); }
'''


def preflight(tools, args):
    """Why the tools cannot differentiate a trivial program, or None."""
    d = tempfile.mkdtemp(prefix='fluxion-fuzz-preflight-')
    try:
        src = os.path.join(d, 'p.cpp')
        with open(src, 'w') as f:
            f.write(PREFLIGHT)
        rc, out, err = compile_plugin(tools, src, os.path.join(d, 'p'), args.timeout)
        if rc != 0:
            return 'plugin build: ' + err[-2000:]
        rc, out, err = run([os.path.join(d, 'p')], 60)
        if rc != 0 or not out.startswith('0.077'):
            return 'plugin-built program printed %r (expected 0.077...)' % out
        if args.no_roundtrip:
            return None
        rc, out, err = fluxion_gen(tools, src, os.path.join(d, 'g.cpp'), args.timeout)
        if rc != 0 or 'PLEASE submit' in err:
            return 'fluxion-gen: ' + err[-2000:]
        rc, out, err = compile_gxx(tools, os.path.join(d, 'g.cpp'), os.path.join(d, 'g'),
                                   args.timeout)
        if rc != 0:
            return 'g++ on fluxion-gen output: ' + err[-2000:]
        return None
    finally:
        shutil.rmtree(d, ignore_errors=True)


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

def parse_seeds(s):
    out = []
    for part in s.split(','):
        if ':' in part:
            a, b = part.split(':')
            out += list(range(int(a), int(b)))
        else:
            out.append(int(part))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seeds', default='0:100', help='A:B (B excluded), or a,b,c')
    ap.add_argument('--seed', type=int, help='one program, verbosely')
    ap.add_argument('--show', action='store_true', help='with --seed: print the program')
    ap.add_argument('--show-tu', action='store_true',
                    help='with --seed: print the whole translation unit')
    ap.add_argument('-j', type=int, default=1, help='translation units built in parallel')
    ap.add_argument('--per-tu', type=int, default=25, help='programs per translation unit')
    ap.add_argument('--keep', metavar='DIR', help='keep sources, binaries and outputs in DIR')
    ap.add_argument('--disable', default='', help='comma-separated features to turn off '
                    '(--list-features)')
    ap.add_argument('--list-features', action='store_true')
    ap.add_argument('--no-roundtrip', action='store_true', help='skip fluxion-gen + g++')
    ap.add_argument('--fluxion-config', help='default: build/bin/fluxion-config')
    ap.add_argument('--plugin', help='plugin .so (default: from fluxion-config)')
    ap.add_argument('--fluxion-gen', help='default: next to fluxion-config')
    ap.add_argument('--include', help='runtime include dir (default: from fluxion-config)')
    ap.add_argument('--clang', default='clang++-19')
    ap.add_argument('--gxx', default='g++')
    ap.add_argument('--opt', default='-O1')
    ap.add_argument('--timeout', type=int, default=300, help='seconds per compile or run')
    args = ap.parse_args()

    if args.list_features:
        for k, v in generator.FEATURES.items():
            print('%-14s %s' % (k, v))
        return 0
    disabled = [x for x in args.disable.split(',') if x]
    for x in disabled:
        if x not in generator.FEATURES:
            ap.error('unknown feature %r (--list-features)' % x)
    if not os.path.isdir(EIGEN_INCLUDE):
        disabled.append('eigen')
    features = [k for k in generator.FEATURES if k not in disabled]
    flags = (' --disable ' + ','.join(disabled)) if disabled else ''
    for opt in ('fluxion_config', 'plugin', 'fluxion_gen', 'include'):
        if getattr(args, opt):
            flags += ' --%s %s' % (opt.replace('_', '-'), getattr(args, opt))
    if args.no_roundtrip:
        flags += ' --no-roundtrip'
    me = os.path.relpath(os.path.abspath(__file__), os.getcwd())

    if args.seed is not None and (args.show or args.show_tu):
        p = generator.generate(args.seed, features)
        if args.show_tu:
            print(render_tu([p])[0])
        else:
            print('// seed %d, precision class %s, modes %s' % (p.seed, p.prec,
                                                               ' '.join(p.modes)))
            print('#include <fluxion/fluxion.hpp>\n#include <algorithm>\n#include <cmath>\n'
                  '#include <numeric>\n#include <vector>\n')
            print(p.source())
            vals = ', '.join('%s = %s' % (q.name, q.value) for q in p.params)
            print('// evaluated at: %s' % vals)
        return 0

    tools = Tools(args)
    bad = preflight(tools, args)
    if bad:
        print('fuzz.py: the toolchain fails on a trivial program, so nothing was '
              'fuzzed (a broken build is not a fuzz finding):\n' + bad)
        return 2
    seeds = [args.seed] if args.seed is not None else parse_seeds(args.seeds)
    verbose = args.seed is not None
    progs = [generator.generate(s, features) for s in seeds]
    batches = [progs[i:i + args.per_tu] for i in range(0, len(progs), args.per_tu)]
    total = Result()
    t0 = time.time()

    def report(res):
        with LOCK:
            for s in sorted(res.failures):
                fs = res.failures[s]
                by_cls = {}
                for cls, msg in fs:
                    by_cls.setdefault(cls, []).append(msg)
                for cls, msgs in by_cls.items():
                    more = ' (+%d more)' % (len(msgs) - 1) if len(msgs) > 1 else ''
                    print('FAIL seed %d [%s]: %s%s -- reproduce: %s --seed %d%s' % (
                        s, cls, msgs[0], more, me, s, flags), flush=True)
            total.passed |= res.passed
            for s, f in res.failures.items():
                total.failures.setdefault(s, []).extend(f)
            for k, v in res.skips.items():
                total.skips[k] = total.skips.get(k, 0) + v
            total.degenerate |= res.degenerate

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as ex:
        futs = {ex.submit(run_batch, b, tools, args, verbose): b for b in batches}
        for f in concurrent.futures.as_completed(futs):
            try:
                report(f.result())
            except Exception as e:  # a bug of the fuzzer: its programs fail
                res = Result()
                for p in futs[f]:
                    res.add(p.seed, 'fuzzer error', '%s: %s' % (type(e).__name__, e))
                report(res)
    dt = time.time() - t0
    if total.skips:
        print('skipped comparisons: ' + ', '.join('%s %d' % kv for kv in sorted(total.skips.items())))
    if total.degenerate:
        print('degenerate programs (non-finite primal, not checked): %s' %
              ' '.join(map(str, sorted(total.degenerate))))
    classes = {}
    for s, fs in total.failures.items():
        for cls in {c for c, _ in fs}:
            classes.setdefault(cls, []).append(s)
    for cls, ss in sorted(classes.items()):
        print('failure class %-40s %d programs (seeds %s%s)' % (
            '"%s":' % cls, len(ss), ' '.join(map(str, sorted(ss)[:12])),
            ' ...' if len(ss) > 12 else ''))
    print('%.1f s for %d programs' % (dt, len(progs)))
    print('%d passed, %d failed' % (len(total.passed), len(total.failures)))
    return 1 if total.failures else 0


if __name__ == '__main__':
    sys.exit(main())
