#!/usr/bin/env python3
"""Random lazy graphs evaluated by cgrad and by NumPy, compared value by value.

Each seed builds a small graph of views (slices with steps, transposes, broadcasts, reshapes,
flips), element-wise functions, reductions over random axes, scans, matmuls and joins over random
shapes (odd sizes, ones, empty axes), evaluates some intermediate nodes early (so later kernels read
realized buffers as well as fused producers) and checks every output against NumPy computed in
float64 (floats) or the same dtype (integers, bools). A mismatch prints the seed and the expression.

    python tools/fuzz_numpy.py [--seeds N] [--start S] [--verbose]

Run with CGRAD_BACKEND=interpreter to fuzz the interpreter, CGRAD_NUM_THREADS=1 for one thread,
--device cuda for the CUDA backend.
"""
import argparse
import sys

import numpy as np

import cgrad as cg

DEVICE = None  # --device: where leaves live (cgrad's default, the CPU, when None)


def _as(a):
    return cg.asarray(a, device=DEVICE)


SIZES = [1, 2, 3, 5, 7, 8, 16, 17, 31, 33, 64, 100, 129, 257]
FLOAT = ["float32", "float64", "float32", "float64", "float16"]  # f16 a fifth of the time
COMPLEX = ["complex64", "complex128"]
INT = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


TOL = {np.dtype("float16"): 2e-2, np.dtype("float32"): 2e-3, np.dtype("float64"): 1e-9,
       np.dtype("complex64"): 2e-3, np.dtype("complex128"): 1e-9}


class Node:
    """A cgrad array, NumPy's value for it, and its expression. `tol`: the relative error its
    value may carry, the loosest of its own dtype's and its operands' (f32 cast to f64 keeps f32's)."""

    def __init__(self, c, n, text, *parents):
        self.c, self.n, self.text = c, n, text
        self.tol = max([TOL.get(n.dtype, 0.0)] + [p.tol for p in parents])
        # f16 in or above: NumPy rounds every f16 result, a fused cgrad kernel only what it stores,
        # so values differ within tol, and a function with jumps (floor, //, a comparison) can
        # differ by a step: those take no rough operands
        self.rough = n.dtype == np.float16 or any(p.rough for p in parents)

    def inexact(self, name):
        """This node, rough when function `name` of its single-precision value is (INEXACT)."""
        if name in INEXACT and self.n.dtype in (np.float32, np.complex64):
            self.rough = True
        return self

    @property
    def kind(self):
        if self.n.dtype == np.bool_:
            return "bool"
        return {"f": "float", "c": "complex"}.get(self.n.dtype.kind, "int")


SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-310, 1.0, -1.0, 0.5])


def leaf(rng, shape, dtype, special=False):
    """Random values of `dtype`; with `special`, a float leaf has a tenth of its elements (sometimes
    all) drawn from NaN, +-inf, +-0, subnormals and exact halves and ones."""
    if dtype == "bool":
        a = rng.random(shape) < 0.5
    elif dtype in INT:
        a = rng.integers(-20, 20, size=shape).astype(dtype)
    elif dtype in COMPLEX:
        a = (rng.random(shape) * 4 - 2 + 1j * (rng.random(shape) * 4 - 2)).astype(dtype)
    else:
        a = (rng.random(shape) * 4 - 2).astype(dtype)
        if special and a.size and rng.random() < 0.6:
            a = np.array(a)  # a 0-d leaf's values are a NumPy scalar
            pick = rng.random(shape) < (1.0 if rng.random() < 0.1 else 0.1)
            with np.errstate(all="ignore"):
                a[pick] = rng.choice(SPECIAL, size=int(pick.sum())).astype(dtype)
    return Node(_as(a), a, f"leaf{list(shape)}:{dtype}{'*' if special else ''}")


def rand_shape(rng, ndim=None):
    ndim = int(rng.integers(1, 4)) if ndim is None else ndim
    if rng.random() < 0.03:
        return tuple(int(rng.choice(SIZES)) if i else 0 for i in range(ndim))
    return tuple(int(rng.choice(SIZES[: 8 if ndim == 3 else 12])) for _ in range(ndim))


UNARY_F = {
    "exp": (lambda c: cg.exp(c), lambda n: np.exp(n)),
    "tanh": (cg.tanh, np.tanh),
    "sin": (cg.sin, np.sin),
    "abs": (cg.abs, np.abs),
    "neg": (lambda c: -c, lambda n: -n),
    "sqrt_abs": (lambda c: cg.sqrt(cg.abs(c)), lambda n: np.sqrt(np.abs(n))),
    "log1p_abs": (lambda c: cg.log1p(cg.abs(c)), lambda n: np.log1p(np.abs(n))),
    "square": (cg.square, np.square),
    "sigmoid": (cg.sigmoid, lambda n: 1 / (1 + np.exp(-n))),
    "floor": (cg.floor, np.floor),
    "relu": (cg.relu, lambda n: np.maximum(n, 0)),
    "cos": (cg.cos, np.cos),
    "tan": (cg.tan, np.tan),
    "log": (cg.log, np.log),
    "log2": (cg.log2, np.log2),
    "log10": (cg.log10, np.log10),
    "expm1": (cg.expm1, np.expm1),
    "asin": (cg.asin, np.arcsin),
    "acos": (cg.acos, np.arccos),
    "atan": (cg.atan, np.arctan),
    "asinh": (cg.asinh, np.arcsinh),
    "acosh": (cg.acosh, np.arccosh),
    "atanh": (cg.atanh, np.arctanh),
    "sinh": (cg.sinh, np.sinh),
    "cosh": (cg.cosh, np.cosh),
    "ceil": (cg.ceil, np.ceil),
    "trunc": (cg.trunc, np.trunc),
    "round": (cg.round, np.round),
    "sign": (cg.sign, np.sign),
    "reciprocal": (cg.reciprocal, np.reciprocal),
    "rsqrt": (cg.rsqrt, lambda n: 1 / np.sqrt(n)),
    "isnan": (cg.isnan, np.isnan),
    "isinf": (cg.isinf, np.isinf),
    "isfinite": (cg.isfinite, np.isfinite),
    # a NaN's sign bit depends on how it was made (0 * inf gives -NaN on x86): numbers only
    "signbit": (lambda c: cg.signbit(c) & ~cg.isnan(c), lambda n: np.signbit(n) & ~np.isnan(n)),
}
GROWS = ("exp", "expm1", "square", "sigmoid", "sin", "cos", "tan", "sinh", "cosh")  # inputs below 30 only
UNARY_C = {
    "exp": (cg.exp, np.exp),
    "neg": (lambda c: -c, lambda n: -n),
    "square": (cg.square, np.square),
    "conj": (cg.conj, np.conj),
    "abs": (cg.abs, np.abs),
    "real": (cg.real, np.real),
    "sin": (cg.sin, np.sin),
}
# functions with jumps or poles: a rough operand (below) may land on the other side (a pole: where
# a rough operand is near zero, the quotient's relative error is past any tolerance; so is a log's
# absolute error: seed 321055, log10 of an f16 variance of 9.5e-7 that the fused kernel, reading
# its operands unrounded, computed as 6.5e-7, within the tolerance's absolute floor)
# atan2 near the origin likewise (seed 330293: f16 operands near 0, -0.756 against -0.796), and
# asin, acos and atanh at +-1, whose slope is infinite there (seed 357147: atanh of an f16 atan
# near 1, -3.91 against -3.81, and NaN against inf where NumPy's rounded atan is exactly 1)
JUMPS = {"floor", "ceil", "trunc", "round", "sign", "floordiv", "rem", "isnan", "isinf", "isfinite", "signbit",
         "tan", "reciprocal", "rsqrt", "div", "log", "log2", "log10", "atan2", "asin", "acos", "atanh"}
# in gradient modes, functions whose derivative is infinite at +-1: an operand there exactly (the
# max of a row divided by itself) gives inf * 0 = NaN by the chain rule where the composite's own
# derivative is finite (seed 357123: acos(max(x) / x)); PyTorch's is NaN too
EDGE_SLOPE = {"asin", "acos", "atanh"}
# f32 and complex64 functions that NumPy and cgrad may round differently (cgrad's within 1 ulp,
# NumPy's SVML loops within 4: docs/semantics.md): their results are rough. floor(x - exp(x)) of
# f32 x = 3.7562073e-4 is -1 from NumPy and -2 from cgrad; x - exp(x) is -1.00000007 exactly.
INEXACT = {"exp", "expm1", "log", "log2", "log10", "log1p_abs", "sigmoid", "rsqrt", "sin", "cos", "tan", "asin",
           "acos", "atan", "asinh", "acosh", "atanh", "sinh", "cosh", "atan2", "hypot", "logaddexp", "pow"}
UNARY_I = {
    "abs": (cg.abs, np.abs),
    "neg": (lambda c: -c, lambda n: -n),
    "square": (cg.square, np.square),
}
BINARY = {  # every numeric kind
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
}
BINARY_REAL = {  # floats and integers
    # of +0 and -0, cgrad gives the first operand and NumPy the second (the standard leaves it to the
    # library): the reference takes cgrad's rule, which atan2(0, min(0, -0)) reads (seed 351342)
    "max": (cg.maximum, lambda a, b: np.where(a == b, a, np.maximum(a, b))),
    "min": (cg.minimum, lambda a, b: np.where(a == b, a, np.minimum(a, b))),
}
BINARY_F = {
    "div": (lambda a, b: a / b, lambda a, b: a / b),
    "atan2": (cg.atan2, np.arctan2),
    "hypot": (cg.hypot, np.hypot),
    "logaddexp": (cg.logaddexp, np.logaddexp),
    "nextafter": (cg.nextafter, np.nextafter),
    # NumPy takes sqrt for a 0-d exponent of 0.5 (seed 365112): -inf ** 0.5 is NaN and -0 ** 0.5
    # is -0 there, +inf and +0 in C99's pow and the standard
    "pow": (cg.pow, lambda a, b: np.where((b == 0.5) & ((a == 0) | np.isinf(a)), np.abs(a), np.power(a, b))),
    # copysign from a NaN: its sign bit depends on how it was made
    "copysign": (lambda a, b: cg.copysign(a, cg.where(cg.isnan(b), 1.0, b)),
                 lambda a, b: np.copysign(a, np.where(np.isnan(b), 1.0, b))),
    # floor_divide of and by +-inf and remainder by +-inf follow the standard's main text, not NumPy
    # (docs/semantics.md): finite operands here
    "floordiv": (lambda a, b: cg.where(cg.isinf(a), 1.0, a) // cg.where(cg.isinf(b), 1.0, b),
                 lambda a, b: np.where(np.isinf(a), 1.0, a) // np.where(np.isinf(b), 1.0, b)),
    "rem": (lambda a, b: a % cg.where(cg.isinf(b), 1.0, b), lambda a, b: a % np.where(np.isinf(b), 1.0, b)),
}
BINARY_I = {
    "and": (cg.bitwise_and, np.bitwise_and),
    "or": (cg.bitwise_or, np.bitwise_or),
    "xor": (cg.bitwise_xor, np.bitwise_xor),
    "floordiv": (lambda a, b: a // b, lambda a, b: a // b),  # by 0: 0 in both
    "rem": (lambda a, b: a % b, lambda a, b: a % b),
}


def below(n, bound):
    """Every finite value of n's array under `bound` in magnitude (NaN and inf pass)."""
    with np.errstate(all="ignore"):
        return bool(np.all(~np.isfinite(n.n) | (np.abs(n.n) < bound)))


def near_equal(a, b):
    """Whether computed float values a and b come close somewhere (1e-9 relative, 1e-5 where either
    is f32): a comparison the last bits decide, which the oracle cannot (seed 352664: x against
    asinh(sinh(x)) in f64; 352162: x against tanh(x) in f32)."""
    if "float" not in (a.kind, b.kind) or (a.text.startswith("leaf") and b.text.startswith("leaf")):
        return False
    rel = 1e-5 if np.float32 in (a.n.dtype, b.n.dtype) else 1e-9
    with np.errstate(all="ignore"):
        x, y = np.asarray(a.n, np.float64), np.asarray(b.n, np.float64)
        return bool(np.any(np.abs(x - y) <= rel * np.maximum(np.abs(x), np.abs(y))))


def near_tie(a, axis, largest):
    """Whether some element along `axis` comes within 1e-9 (relative) of the extreme without being
    it: values computed alike but rounded apart, whose order the oracle cannot decide
    (softmax(sign(x)) along another axis: equal rows summed in other orders)."""
    with np.errstate(all="ignore"):
        b = np.sort(np.where(np.isnan(a), -np.inf if largest else np.inf, a), axis=axis)
        if a.shape[axis] < 2 or np.any(np.isnan(a)):
            return False
        top, second = (np.take(b, [-1], axis), np.take(b, [-2], axis)) if largest else \
            (np.take(b, [0], axis), np.take(b, [1], axis))
        return bool(np.any(np.abs(top - second) <= 1e-9 * np.maximum(np.abs(top), 1e-300)))


def bounded(n):
    """Keep values in range so exp, square and products stay finite and comparable."""
    return n.kind not in ("float", "complex") or below(n, 1e3)


class Fuzz:
    """One seed's graph. With `grad`, float leaves are f64 and require gradients, and `shift`
    moves the k-th one by shift * d_k (d_k from its own generator) for finite differences."""

    def __init__(self, seed, grad=False, shift=0.0, inputs=None, vary=False, traced=False, special=False):
        self.rng = np.random.default_rng(seed)
        self.special = special and not grad
        self.seed, self.grad, self.shift = seed, grad, shift
        self.nodes, self.leaves = [], []
        # compile mode (check_compile): `inputs`, the traced function's arguments, stand for the
        # leaves in order; `vary` moves float leaves' values (another call's inputs); no setitem
        self.inputs, self.vary, self.traced, self.values = inputs, vary, traced or inputs is not None, []

    def leaf(self, shape, dtype):
        if self.grad and dtype in FLOAT:
            dtype = "float64"
        x = leaf(self.rng, shape, dtype, self.special and dtype in FLOAT)
        if self.vary and x.kind in ("float", "complex"):
            x.n = (x.n * 0.9 + 0.05).astype(x.n.dtype)
            x.c = _as(x.n)
        if self.inputs is not None:
            x.c = self.inputs[len(self.values)]
        self.values.append(x.n)
        if self.grad and dtype == "float64":
            d = np.random.default_rng((self.seed, len(self.leaves))).standard_normal(shape)
            x.n = x.n + self.shift * d
            x.c = _as(x.n)
            x.c.requires_grad_()
            self.leaves.append((x, d))
        return x

    def pick(self, pred=lambda n: True):
        cands = [n for n in self.nodes if pred(n)]
        return cands[int(self.rng.integers(len(cands)))] if cands else None

    def add(self, node):
        if node is not None and node.n.size <= 1 << 18:
            self.nodes.append(node)

    def fresh(self):
        r = self.rng.random()
        dt = "bool" if r < 0.05 else self.rng.choice(INT) if r < 0.25 else self.rng.choice(COMPLEX) \
            if r < 0.35 and not self.grad else self.rng.choice(FLOAT)
        self.add(self.leaf(rand_shape(self.rng), str(dt)))

    def view(self, x):
        rng, s = self.rng, x.n.shape
        r = rng.random()
        if r < 0.25 and x.n.ndim >= 2:
            perm = tuple(int(p) for p in rng.permutation(x.n.ndim))
            return Node(cg.permute_dims(x.c, perm), np.transpose(x.n, perm), f"perm{perm}({x.text})", x)
        if r < 0.5 and x.n.ndim >= 1:
            key = []
            for d in s:
                if d <= 1:
                    key.append(slice(None))
                    continue
                step = int(rng.choice([1, 1, 2, 3, -1, -2]))
                a, b = sorted(int(v) for v in rng.integers(0, d + 1, size=2))
                if a == b:
                    b = min(d, a + 1)
                key.append(slice(a, b, step) if step > 0 else slice(b - 1, (a - 1 if a > 0 else None), step))
            key = tuple(key)
            return Node(x.c[key], x.n[key], f"({x.text})[{key}]", x)
        if r < 0.65:
            ax = int(rng.integers(0, x.n.ndim + 1))
            if x.n.ndim >= 3:
                return None
            return Node(cg.expand_dims(x.c, axis=ax), np.expand_dims(x.n, ax), f"expand({x.text},{ax})", x)
        if r < 0.8 and x.n.ndim >= 1:
            ax = int(rng.integers(0, x.n.ndim))
            return Node(cg.flip(x.c, axis=ax), np.flip(x.n, ax), f"flip({x.text},{ax})", x)
        if x.n.size > 0:
            shape = (-1,) if rng.random() < 0.5 or x.n.size % 2 else (2, -1)
            return Node(cg.reshape(x.c, shape), np.reshape(x.n, shape), f"reshape({x.text},{shape})", x)
        return None

    def unary(self, x):
        table = {"float": UNARY_F, "int": UNARY_I, "complex": UNARY_C}.get(x.kind)
        if table is None:
            return Node(cg.logical_not(x.c), np.logical_not(x.n), f"not({x.text})", x)
        name = list(table)[int(self.rng.integers(len(table)))]
        fc, fn = table[name]
        if name in JUMPS and x.rough:
            return None
        if name in GROWS and not below(x, 30):
            return None
        if self.grad and name in EDGE_SLOPE and np.any(np.abs(np.abs(x.n) - 1) < 1e-6):
            return None
        with np.errstate(all="ignore"):
            return Node(fc(x.c), fn(x.n), f"{name}({x.text})", x).inexact(name)

    def binary(self, a):
        # a partner that broadcasts with a: same shape, a trailing slice of it, or a fresh one
        rng = self.rng
        r = rng.random()
        if r < 0.4:
            b = self.pick(lambda n: n is not a and n.kind == a.kind and n.n.shape == a.n.shape)
        elif r < 0.7 and a.n.ndim >= 1:
            k = int(rng.integers(0, a.n.ndim + 1))
            shape = tuple(1 if rng.random() < 0.3 else d for d in a.n.shape[k:])
            dt = a.n.dtype.name if a.kind != "bool" else "bool"
            b = self.leaf(shape, dt)
        else:
            b = None
        if b is None:
            return None
        if a.kind == "bool":
            return Node(cg.logical_xor(a.c, b.c), np.logical_xor(a.n, b.n), f"xor({a.text},{b.text})", a, b)
        kinds = {a.kind, b.kind}
        table = dict(BINARY)
        if "complex" not in kinds:
            table.update(BINARY_REAL)
            table.update(BINARY_F if "float" in kinds else BINARY_I)
        name = list(table)[int(rng.integers(len(table)))]
        fc, fn = table[name]
        if name in JUMPS and (a.rough or b.rough):
            return None
        if rng.random() < 0.5:
            a, b = b, a
        try:
            with np.errstate(all="ignore"):
                nres = fn(a.n, b.n)
        except (ValueError, TypeError):  # shapes that do not broadcast; u64 with a signed dtype
            return None
        if self.grad and nres.dtype.kind == "f" and not np.all(np.isfinite(nres)):
            return None  # where(c, NaN, a) has a NaN derivative (as in PyTorch and JAX)
        if self.grad and name in ("rem", "floordiv") and nres.dtype.kind == "f":
            # the quotient a / b moves by |a| h |d| / b^2 under a finite-difference step h d: past
            # about 0.1 the steps cross the jumps, as many per step as the step's length, which the
            # steps' agreement cannot see (seed 350650: a / b = 2590, b = -6e-4, 8, 4 and 2 jumps at
            # 1e-6, 5e-7 and 2.5e-7, the same difference quotient)
            with np.errstate(all="ignore"):
                fast = np.abs(a.n) / np.square(b.n) * 3e-6
            if not np.all(fast < 0.1):
                return None
        if rng.random() < 0.15 and "complex" not in (a.kind, b.kind) and not (a.rough or b.rough) \
                and not near_equal(a, b):
            # where(a > b, ...): a fused condition
            cond_c, cond_n = a.c > b.c, a.n > b.n
            return Node(cg.where(cond_c, fc(a.c, b.c), a.c), np.where(cond_n, nres, a.n),
                        f"where({a.text}>{b.text},{name}(..),a)", a, b).inexact(name)
        return Node(fc(a.c, b.c), nres, f"{name}({a.text},{b.text})", a, b).inexact(name)

    def reduce(self, x):
        rng = self.rng
        if x.n.ndim == 0:
            return None
        naxes = int(rng.integers(1, x.n.ndim + 1))
        axes = tuple(sorted(int(v) for v in rng.choice(x.n.ndim, naxes, replace=False)))
        keep = bool(rng.random() < 0.3)
        if x.kind == "bool":
            name = ["any", "all", "count_nonzero"][int(rng.integers(3))]
            return Node(getattr(cg, name)(x.c, axis=axes, keepdims=keep),
                        getattr(np, name)(x.n, axis=axes, keepdims=keep), f"{name}({x.text},{axes})", x)
        names = ["sum", "max", "min", "mean", "prod", "argmax", "argmin", "var", "std"]
        name = names[int(rng.integers(len(names)))]
        if x.kind == "int" and name in ("mean", "var", "std"):
            name = "sum"
        if x.kind == "complex" and name not in ("sum", "mean", "prod"):
            name = "sum"
        if name in ("max", "min", "argmax", "argmin") and any(x.n.shape[a] == 0 for a in axes):
            return None
        if name == "prod" and (x.kind == "int" or not below(x, 2)):
            return None
        with np.errstate(all="ignore"):
            if name == "prod" and np.any(np.isinf(x.n)) and np.any(np.abs(x.n) < 1e-30):
                return None  # inf times a product that underflows to 0 or not: NaN or inf by the order
        if name in ("argmax", "argmin"):
            if x.rough:
                return None
            ax = axes[0]
            if x.kind == "float" and not x.text.startswith("leaf") and near_tie(x.n, ax, name == "argmax"):
                return None  # computed values that tie within rounding: either index is right (seed 351441)
            return Node(getattr(cg, name)(x.c, axis=ax, keepdims=keep), getattr(np, name)(x.n, axis=ax, keepdims=keep),
                        f"{name}({x.text},{ax})", x)
        fc, fn = getattr(cg, name), getattr(np, name)
        if x.n.size == 0 and name in ("mean", "var", "std"):
            return None
        wide = {"float": np.float64, "complex": np.complex128}.get(x.kind)
        with np.errstate(all="ignore"):
            nres = fn(x.n.astype(wide) if wide else x.n, axis=axes, keepdims=keep)
        if wide:
            nres = nres.astype(x.n.dtype)
        return Node(fc(x.c, axis=axes, keepdims=keep), nres, f"{name}({x.text},{axes},keep={keep})", x)

    def scan(self, x):
        if x.n.ndim == 0 or x.kind == "bool":
            return None
        ax = int(self.rng.integers(x.n.ndim))
        # cgrad accumulates float scans in f64 and rounds each element once (NumPy: in the dtype);
        # its running sum starts from +0, so a prefix of -0s sums to +0 (NumPy copies the first: -0)
        wide = x.n.astype(np.float64) if x.kind == "float" else x.n
        with np.errstate(all="ignore"):
            if self.rng.random() < 0.3 and x.kind == "float" and below(x, 2):
                want, name, fc = np.cumprod(wide, axis=ax), "cumprod", cg.cumulative_prod
            else:
                want, name, fc = np.cumsum(wide, axis=ax) + 0, "cumsum", cg.cumulative_sum
        if x.kind == "float":
            want = want.astype(x.n.dtype)
        node = Node(fc(x.c, axis=ax), want, f"{name}({x.text},{ax})", x)
        if x.rough:  # each term's error adds up along the axis (seed 331238: a cumsum of f16 cumsums)
            node.tol *= max(1, x.n.shape[ax])
        return node

    def matmul(self, a):
        if a.kind not in ("float", "complex") or a.n.ndim < 1 or a.n.ndim > 2:
            return None
        k = a.n.shape[-1]
        shape = (k,) if self.rng.random() < 0.3 else (k, int(self.rng.choice(SIZES[:10])))
        b = self.leaf(shape, a.n.dtype.name)
        if self.rng.random() < 0.3 and len(shape) == 2:  # a transposed right operand
            bt = self.leaf(shape[::-1], a.n.dtype.name)
            b = Node(cg.matrix_transpose(bt.c), bt.n.T, f"T({bt.text})")
        wide = np.float64 if a.kind == "float" else np.complex128
        with np.errstate(all="ignore"):
            want = (a.n.astype(wide) @ b.n.astype(wide)).astype(a.n.dtype)
        return Node(a.c @ b.c, want, f"matmul({a.text},{b.text})", a)

    def join(self, a):
        if a.n.ndim == 0:
            return None
        b = self.pick(lambda n: n is not a and n.n.dtype == a.n.dtype and n.n.ndim == a.n.ndim
                      and n.n.shape[1:] == a.n.shape[1:])
        if b is None:
            return None
        return Node(cg.concat([a.c, b.c], axis=0), np.concatenate([a.n, b.n], axis=0),
                    f"concat({a.text},{b.text})", a, b)

    def cast(self, x):
        to = str(self.rng.choice(["float32", "float64", "int32", "int64", "bool", "float16", "complex64"]))
        if x.kind == "complex" and to != "complex64":
            return None  # cgrad refuses to drop an imaginary part (real(), imag() or abs() do)
        if to == "complex64" and x.kind != "float":
            return None
        if self.grad and to in ("float32", "float16"):
            return None
        if to == "float16" and (x.kind != "float" or not below(x, 1000)):
            return None
        if to in INT and x.kind == "float" and not np.all(np.abs(x.n.astype(np.float64)) < 1e6):
            return None
        if to in INT + ["bool"] and x.rough:
            return None
        with np.errstate(all="ignore"):
            return Node(cg.astype(x.c, getattr(cg, to)), x.n.astype(to), f"astype({x.text},{to})", x)

    def compare_op(self, x):
        if x.kind in ("bool", "complex") or x.rough:
            return None
        t = float(np.round(self.rng.random() * 2 - 1, 1)) if x.kind == "float" else \
            int(self.rng.choice([-3, -2, -1, 0, 1, 2, -129, 128, 256, -(2**40), 2**70]))
        ops = [("lt", lambda a: a < t), ("ge", lambda a: a >= t), ("eq", lambda a: a == t),
               ("ne", lambda a: a != t)]
        name, f = ops[int(self.rng.integers(len(ops)))]
        return Node(f(x.c), f(x.n), f"{name}({x.text},{t})", x)

    def int_arith(self, x):
        if x.kind != "int":
            return None
        d = int(self.rng.choice([-3, -2, 2, 3, 5, 7]))
        ops = [("floordiv", lambda a: a // d), ("rem", lambda a: a % d), ("shl", lambda a: a * d)]
        name, f = ops[int(self.rng.integers(len(ops)))]
        try:
            want = f(x.n)
        except OverflowError:  # NumPy 2 refuses a Python int the dtype cannot hold: so must cgrad
            try:
                f(x.c)
            except OverflowError:
                return None
            raise AssertionError(f"{name}({x.text},{d}): no OverflowError") from None
        return Node(f(x.c), want, f"{name}({x.text},{d})", x)

    def scalar_arith(self, x):
        if x.kind not in ("float", "complex"):
            return None
        t = float(np.round(self.rng.random() * 4 - 2, 2))
        ops = [("radd", lambda a: t + a), ("rsub", lambda a: t - a), ("div", lambda a: a / (abs(t) + 0.5)),
               ("pow2", lambda a: a ** 2), ("clip", None)]
        name, f = ops[int(self.rng.integers(len(ops)))]
        if name in ("clip", "pow2") and x.kind == "complex":
            return None
        if name == "clip":
            return Node(cg.clip(x.c, -0.5, 0.7), np.clip(x.n, -0.5, 0.7).astype(x.n.dtype), f"clip({x.text})", x)
        return Node(f(x.c), f(x.n).astype(x.n.dtype), f"{name}({x.text},{t})", x)

    def rowop(self, x):
        if x.n.ndim == 0 or x.n.size == 0:
            return None
        ax = int(self.rng.integers(x.n.ndim))
        r = self.rng.random()
        if r < 0.2 and x.kind not in ("bool", "complex"):
            return Node(cg.sort(x.c, axis=ax), np.sort(x.n, axis=ax, kind="stable"), f"sort({x.text},{ax})", x)
        if r < 0.3 and x.kind != "complex" and not x.rough:
            return Node(cg.argsort(x.c, axis=ax), np.argsort(x.n, axis=ax, kind="stable"), f"argsort({x.text},{ax})", x)
        if r < 0.35 and x.kind not in ("bool", "complex") and not x.rough:
            # where each element of a fresh leaf falls in x's sorted flattening (NaN sorts last)
            srt = np.sort(x.n.reshape(-1), kind="stable")
            v = self.leaf(rand_shape(self.rng), x.n.dtype.name)
            side = ["left", "right"][int(self.rng.integers(2))]
            return Node(cg.searchsorted(cg.sort(cg.reshape(x.c, (-1,))), v.c, side=side),
                        np.searchsorted(srt, v.n, side=side), f"searchsorted(sort({x.text}),{v.text},{side})", x, v)
        if r < 0.45:
            return self.shape_op(x, ax)
        if r < 0.5:
            sh = int(self.rng.integers(-5, 6))
            return Node(cg.roll(x.c, sh, axis=ax), np.roll(x.n, sh, axis=ax), f"roll({x.text},{sh},{ax})", x)
        if r < 0.75:
            idx = self.rng.integers(0, x.n.shape[ax], size=int(self.rng.integers(1, 9)))
            return Node(cg.take(x.c, _as(idx), axis=ax), np.take(x.n, idx, axis=ax),
                        f"take({x.text},{list(idx)},{ax})", x)
        if x.kind == "float":
            n64 = x.n.astype(np.float64)
            with np.errstate(all="ignore"):
                e = np.exp(n64 - n64.max(axis=ax, keepdims=True))
                want = (e / e.sum(axis=ax, keepdims=True)).astype(x.n.dtype)
            return Node(cg.softmax(x.c, axis=ax), want, f"softmax({x.text},{ax})", x)
        return None

    def shape_op(self, x, ax):
        """tril, triu, diff, repeat, tile, stack: NumPy's functions of the same names."""
        r = self.rng.random()
        if r < 0.25 and x.n.ndim >= 2:
            k = int(self.rng.integers(-3, 4))
            name = ["tril", "triu"][int(self.rng.integers(2))]
            return Node(getattr(cg, name)(x.c, k=k), getattr(np, name)(x.n, k=k), f"{name}({x.text},{k})", x)
        if r < 0.5 and x.kind != "bool":
            n = int(self.rng.integers(1, 3))
            with np.errstate(all="ignore"):
                return Node(cg.diff(x.c, axis=ax, n=n), np.diff(x.n, axis=ax, n=n), f"diff({x.text},{ax},{n})", x)
        if r < 0.7 and x.n.size <= 4096:
            k = int(self.rng.integers(0, 4))
            return Node(cg.repeat(x.c, k, axis=ax), np.repeat(x.n, k, axis=ax), f"repeat({x.text},{k},{ax})", x)
        if r < 0.85 and x.n.size <= 4096:
            reps = tuple(int(v) for v in self.rng.integers(1, 3, size=int(self.rng.integers(1, 4))))
            return Node(cg.tile(x.c, reps), np.tile(x.n, reps), f"tile({x.text},{reps})", x)
        b = self.pick(lambda n: n is not x and n.n.dtype == x.n.dtype and n.n.shape == x.n.shape)
        if b is None:
            return None
        ax = int(self.rng.integers(x.n.ndim + 1))
        return Node(cg.stack([x.c, b.c], axis=ax), np.stack([x.n, b.n], axis=ax), f"stack({x.text},{b.text},{ax})", x, b)

    def setitem(self, x):
        """x[key] = v on x's own handle: x takes the new value, nodes derived from it keep theirs."""
        if self.grad or self.traced or x.n.ndim == 0:
            return None
        key = []
        for n in x.n.shape:
            if n and self.rng.random() < 0.2:
                key.append(int(self.rng.integers(-n, n)))
            else:
                b, e = (int(v) for v in self.rng.integers(-n - 1, n + 2, size=2))
                key.append(slice(b, e, int(self.rng.choice([1, 2, 3, -1, -2]))))
        key = tuple(key)
        target = x.n[key].shape
        v = self.leaf(tuple(1 if self.rng.random() < 0.3 else d for d in target[int(self.rng.integers(len(target) + 1)):]),
                      "bool" if x.kind == "bool" else x.n.dtype.name)
        x.c[key] = v.c
        n = x.n.copy()
        n[key] = v.n
        x.n, x.text = n, f"set({x.text},{key},{v.text})"
        return None

    def step(self):
        r = self.rng.random()
        x = self.pick()
        if x is None or r < 0.1:
            self.fresh()
            return
        ops = [(0.2, self.view), (0.33, self.unary), (0.5, self.binary), (0.6, self.reduce),
               (0.65, self.scan), (0.7, self.matmul), (0.74, self.join), (0.8, self.cast),
               (0.85, self.compare_op), (0.89, self.int_arith), (0.93, self.scalar_arith),
               (0.97, self.rowop), (1.0, self.setitem)]
        for p, op in ops:
            if r < p:
                break
        node = op(x)
        if node is not None and self.grad and node.kind == "float" and not np.all(np.isfinite(node.n)):
            return  # a NaN or inf, even one `where` or `max` drops later, makes a derivative NaN
        if node is not None and bounded(node):
            if self.rng.random() < 0.1:
                node.c.eval() if hasattr(node.c, "eval") else cg.eval(node.c)
            self.add(node)


def compare(node, got=None):
    got = np.asarray(node.c if got is None else got)
    want = node.n
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} != {want.dtype}"
    if node.kind not in ("float", "complex"):
        bad = got != want
    else:
        wide = np.complex128 if node.kind == "complex" else np.float64
        with np.errstate(all="ignore"):
            scale = np.maximum(np.abs(want.astype(wide)), 1.0)
            close = np.abs(got.astype(wide) - want) <= node.tol * scale
        bad = ~(close | (got == want) | (np.isnan(got) & np.isnan(want)))
    if np.any(bad):
        i = np.argwhere(bad)[0]
        return f"{int(bad.sum())} of {bad.size} differ; first at {tuple(i)}: {got[tuple(i)]} vs {want[tuple(i)]}"
    return None


def build(seed, grad=False, shift=0.0, inputs=None, vary=False, traced=False, special=False):
    f = Fuzz(seed, grad, shift, inputs, vary, traced, special)
    for _ in range(3):
        f.fresh()
    for _ in range(int(f.rng.integers(8, 30))):
        f.step()
    return f


def check_grad(seed, verbose, second=False):
    """<d L/d x, d> from cgrad.grad against NumPy's (L(x + h d) - L(x - h d)) / 2h, where L =
    sum(out * W) for the graph's last f64 output of nonzero size."""
    f = build(seed, grad=True)
    outs = [i for i, n in enumerate(f.nodes) if n.n.dtype == np.float64 and n.n.size and n.c.requires_grad]
    if not outs or not f.leaves:
        return 0
    i = outs[-1]
    out = f.nodes[i]
    w = np.random.default_rng((seed, 9999)).standard_normal(out.n.shape)
    loss = cg.sum(out.c * _as(w))
    gs = cg.grad(loss, [x.c for x, _ in f.leaves], create_graph=False)
    got = sum(float(np.sum(np.asarray(g) * d)) for g, (_, d) in zip(gs, f.leaves) if g is not None)
    wants = []
    # three steps: where they disagree, a jump (floor, remainder) is near. Two could agree across
    # jumps: seed 320204 crossed two of floordiv's within 1e-6 and one within 5e-7 (the same ratio)
    for h in (1e-6, 5e-7, 2.5e-7):
        ends = [build(seed, grad=True, shift=s) for s in (h, -h)]
        if any(len(e.nodes) <= i or e.nodes[i].text != out.text for e in ends):
            return 0  # the shifted values changed a decision: another graph
        lp, lm = (float(np.sum(e.nodes[i].n * w)) for e in ends)
        wants.append((lp - lm) / (2 * h))
    want = wants[-1]
    scale = max(1.0, abs(want), float(np.sum(np.abs(out.n * w))))
    if not all(abs(v - want) <= 1e-5 * scale for v in wants):
        return 0
    if not abs(got - want) <= 1e-5 * scale:
        print(f"seed {seed}: gradient {got} vs finite difference {want}\n  {out.text}", flush=True)
        return 1
    if verbose:
        print(f"seed {seed}: grad ok {got:.6g} {out.text[:120]}")
    return check_grad2(seed, f, i, w, out.text) if second else 0


def directional(f, i, w, create_graph):
    """(sum over leaves of <d L/d x_k, d_k>, the gradients), L = sum(out * W), by cgrad.grad."""
    loss = cg.sum(f.nodes[i].c * _as(w))
    gs = cg.grad(loss, [x.c for x, _ in f.leaves], create_graph=create_graph)
    terms = [cg.sum(g * _as(d)) for g, (_, d) in zip(gs, f.leaves) if g is not None]
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return total


def check_grad2(seed, f, i, w, text):
    """Second order: <H d, d> from grad of the first directional derivative (create_graph=True)
    against a central difference of cgrad's first-order one (checked above) at x +- h d."""
    s = directional(f, i, w, True)
    if not s.requires_grad:
        got = 0.0  # the first derivative does not depend on x: a linear graph
    else:
        hs = cg.grad(s, [x.c for x, _ in f.leaves], create_graph=False)
        got = sum(float(np.sum(np.asarray(g) * d)) for g, (_, d) in zip(hs, f.leaves) if g is not None)
    wants = []
    for h in (1e-4, 5e-5):  # two steps: where they disagree the difference is no oracle (x near a pole)
        ends = [build(seed, grad=True, shift=sh) for sh in (h, -h)]
        if any(len(e.nodes) <= i or e.nodes[i].text != text for e in ends):
            return 0
        sp, sm = (float(directional(e, i, w, False)) for e in ends)
        wants.append((sp - sm) / (2 * h))
    want, tol = wants[1], 1e-4 * max(1.0, abs(wants[1]), abs(sp), abs(sm))
    if abs(wants[0] - wants[1]) > tol:
        return 0
    if not abs(got - want) <= tol:
        print(f"seed {seed}: second derivative {got} vs finite difference {want}\n  {text}", flush=True)
        return 1
    return 0


def check_compile(seed, verbose, special=False):
    """The graph as a cg.compile'd function of its leaves: traced on one set of values, replayed on
    another (float leaves moved) and on the first again, each output against NumPy's."""
    plain = build(seed, traced=True, special=special)  # traced: no setitem (it would assign the inputs)
    other = build(seed, traced=True, vary=True, special=special)
    if [n.text for n in plain.nodes] != [n.text for n in other.nodes]:
        return 0  # the moved values changed a decision: another graph

    def fn(*xs):
        return tuple(n.c for n in build(seed, inputs=list(xs), special=special).nodes[-4:])

    cf = cg.compile(fn)
    fails = 0
    for ref in (plain, other, plain):
        outs = cf(*[_as(v) for v in ref.values])
        for node, got in zip(ref.nodes[-4:], outs):
            err = compare(node, got)
            if err:
                fails += 1
                print(f"seed {seed} (compiled, {'moved' if ref is other else 'first'} values): {err}\n  {node.text}",
                      flush=True)
    if verbose and not fails:
        print(f"seed {seed}: compiled ok, {len(plain.values)} inputs, traces {cf.signatures}")
    return fails


def run(seed, verbose, special=False):
    f = build(seed, special=special)
    fails = 0
    outs = f.nodes[-4:]
    for node in outs:
        err = compare(node)
        if err:
            fails += 1
            print(f"seed {seed}: {err}\n  {node.text}", flush=True)
        elif verbose:
            print(f"seed {seed}: ok {node.n.shape} {node.n.dtype} {node.text[:120]}")
    return fails


def check_gemm_views(seed, verbose):
    """Chains of matmuls whose results (intermediates: only the last node is evaluated) are read
    in order and through views in one kernel (x - x.T, a flip, a broadcast row) and fed to more
    matmuls: the memory planner's in-place writes must not overwrite what a view still reads
    (until 2026-12-07 they did: a quarter of these graphs came out wrong)."""
    r0 = np.random.default_rng((seed, 4242))
    n = int(r0.choice([2, 3, 4, 6]))
    leaves = [r0.standard_normal((n, n)) for _ in range(3)]

    def build(mod):
        t = cg.matrix_transpose if mod is cg else np.transpose
        mm = cg.matmul if mod is cg else np.matmul
        flip = cg.flip if mod is cg else np.flip
        r = np.random.default_rng((seed, 4243))
        live = [_as(v) if mod is cg else v for v in leaves]
        text = []
        for _ in range(int(r.integers(3, 9))):
            a, b = live[int(r.integers(len(live)))], live[int(r.integers(len(live)))]
            k = int(r.integers(0, 8))
            j = mm(a, b)
            v = [lambda: j - t(j), lambda: t(j) * 2 - j, lambda: j + flip(j, axis=int(k % 2)),
                 lambda: j - j[0:1], lambda: mm(a, t(j)) + mm(a, j - t(j)), lambda: j * t(j),
                 lambda: flip(t(j), axis=0) - j, lambda: t(j) + t(b)][k]()
            text.append(str(k))
            v = mm(v, a) if r.random() < 0.6 else v
            live = [v] + live[1:] if r.random() < 0.5 else live + [v]
        return (live[-1] if len(live) > 3 else live[0]), ",".join(text)

    (got, text), (want, _) = build(cg), build(np)
    got = np.asarray(got)
    scale = max(1.0, float(np.max(np.abs(want))))
    if not np.allclose(got, want, rtol=1e-9, atol=1e-9 * scale):
        print(f"seed {seed} (gemm views {text}): off by {np.max(np.abs(got - want)) / scale:.3g} relative",
              flush=True)
        return 1
    if verbose:
        print(f"seed {seed}: gemm views ok {text}")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--grad", action="store_true", help="check gradients against finite differences")
    ap.add_argument("--grad2", action="store_true", help="and second derivatives (create_graph=True)")
    ap.add_argument("--compile", action="store_true", help="as cg.compile'd functions, replayed on new inputs")
    ap.add_argument("--special", action="store_true", help="float leaves hold NaN, +-inf, +-0 and subnormals")
    ap.add_argument("--gemm-views", action="store_true",
                    help="chains of matmuls whose intermediates are read through views (the memory planner)")
    ap.add_argument("--device", default=None, help='"cuda" (with the emulator: docs/cuda.md) for the CUDA backend')
    args = ap.parse_args()
    global DEVICE
    DEVICE = args.device
    bad = 0
    for seed in range(args.start, args.start + args.seeds):
        try:
            if args.gemm_views:
                bad += check_gemm_views(seed, args.verbose) > 0
            elif args.compile:
                bad += check_compile(seed, args.verbose, args.special) > 0
            elif args.grad or args.grad2:
                bad += check_grad(seed, args.verbose, args.grad2) > 0
            else:
                bad += run(seed, args.verbose, args.special) > 0
        except Exception as e:  # a cgrad error where NumPy gave a result is a failure too
            bad += 1
            print(f"seed {seed}: {type(e).__name__}: {e}", flush=True)
    print(f"{bad} of {args.seeds} seeds failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
