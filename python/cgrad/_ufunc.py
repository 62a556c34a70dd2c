"""NumPy's ufunc objects over cgrad's element-wise functions (docs/python.md, "ufuncs"). `cgrad.add`,
`cgrad.exp`, `cgrad.fmod`... are instances of `cgrad.ufunc`: called, each is the function it wraps
(the `__call__` of a subclass of its own, so a call costs what it did before, the nanobind function
itself), and each has NumPy's attributes (`nin nout nargs identity signature`) and methods (`reduce
accumulate reduceat outer at`), which NumPy's own ufuncs reach too for cgrad arrays (NEP 13,
_array._array_ufunc). A reduction is cgrad's native one where it has it (`sum prod max min all any
nanmax nanmin`), a tree over halves for NumPy's other reorderable ufuncs (log2(n) lazy steps), and
NumPy's left fold for the rest, evaluated every _CHUNK steps so that a long axis neither grows one
unbounded graph nor compiles a kernel per step."""
import inspect
import math
import operator

from . import _api
from . import _cgrad
from . import _dtypes as dt
from . import _numpy
from ._array import _KIND_ORDER, Array, _to_out, _ufunc_at

_C_FUNCTION = type(_cgrad.exp)  # a function of the extension (nanobind's)
_NO_VALUE = object()  # `initial` not given: the identity starts the reduction (initial=None: nothing does)

# NumPy's ufuncs that cgrad has, by NumPy's name (their __name__): the binary ones with NumPy's
# identity (None: it has none), the unary ones, and those of two outputs with their number of inputs
_BINARY = {"add": 0, "subtract": None, "multiply": 1, "divide": None, "power": None, "maximum": None,
           "minimum": None, "fmax": None, "fmin": None, "floor_divide": None, "remainder": None, "fmod": None,
           "logical_and": True, "logical_or": False, "logical_xor": False, "bitwise_and": -1, "bitwise_or": 0,
           "bitwise_xor": 0, "left_shift": None, "right_shift": None, "arctan2": None, "hypot": 0,
           "copysign": None, "logaddexp": -math.inf, "logaddexp2": -math.inf, "nextafter": None, "equal": None,
           "not_equal": None, "less": None, "less_equal": None, "greater": None, "greater_equal": None, "gcd": 0,
           "lcm": None, "heaviside": None, "ldexp": None, "float_power": None}
_UNARY = ("absolute", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "bitwise_count", "cbrt", "ceil",
          "conjugate", "cos", "cosh", "deg2rad", "degrees", "exp", "exp2", "expm1", "fabs", "floor", "invert",
          "isfinite", "isinf", "isnan", "log", "log10", "log1p", "log2", "logical_not", "negative", "positive",
          "rad2deg", "radians", "reciprocal", "rint", "sign", "signbit", "sin", "sinh", "spacing", "sqrt", "square",
          "tan", "tanh", "trunc")
_TWO_OUTPUTS = {"divmod": 2, "frexp": 1, "modf": 1}
# NumPy's other names of the same ufuncs (np.abs is np.absolute, np.pow np.power)
_ALIASES = {"abs": "absolute", "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
            "atan": "arctan", "atanh": "arctanh", "atan2": "arctan2", "bitwise_invert": "invert",
            "bitwise_not": "invert", "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift",
            "conj": "conjugate", "mod": "remainder", "pow": "power", "true_divide": "divide"}
# reduce and accumulate as cgrad's own reductions and scans
_REDUCE = {"add": _api.sum, "multiply": _api.prod, "maximum": _api.max, "minimum": _api.min, "logical_and": _api.all,
           "logical_or": _api.any, "fmax": _numpy.nanmax, "fmin": _numpy.nanmin}
_ACCUMULATE = {"add": _api.cumulative_sum, "multiply": _api.cumulative_prod}
# NumPy's other reorderable ufuncs (several axes at once; each has an identity): associative and
# commutative, reduced over halves and scanned by doubling (exact for the integer and logical ones;
# hypot and logaddexp round differently from NumPy's sequential loop, within a few units)
_ASSOCIATIVE = ("logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "hypot", "logaddexp", "logaddexp2")
_LOGICAL = ("logical_and", "logical_or", "logical_xor")  # NumPy's loops of these take bools: the input is cast
_WIDENING = ("add", "multiply")  # NumPy's reductions of these widen bools and small integers to 64 bits (sum's rule)
_CHUNK = 32  # steps of a left fold per evaluation: one kernel, compiled once and reused by every chunk
_CHUNK_COMPOSITE = 4  # for a ufunc composed in Python (lcm's unrolled Euclid: ~200 ops a step)


class _Signature:
    """inspect.signature(cgrad.add): the wrapped function's, read when asked (a nanobind
    function's from its signature text); None on the class itself."""

    def __get__(self, u, cls=None):
        if u is None:
            return None
        fn = u._fn
        if type(fn) is _C_FUNCTION:
            return _nb_signature(fn)
        sig = inspect.signature(fn)
        if "out" in sig.parameters:
            return sig
        out = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)  # _with_out's
        return sig.replace(parameters=[*sig.parameters.values(), out])


class ufunc:  # noqa: N801 (NumPy's name)
    """NumPy's ufunc over one of cgrad's element-wise functions: `cgrad.add(x, y)` is the function,
    and `cgrad.add.reduce/accumulate/reduceat/outer/at` are NumPy's methods (python/cgrad/_ufunc.py).
    Instances are made by cgrad only, one subclass each (its `__call__` is the function)."""

    __module__ = "cgrad"  # cgrad.ufunc, as NumPy's is numpy.ufunc
    __signature__ = _Signature()

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'cgrad.ufunc' instances")

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"

    def __reduce__(self):
        return self.__name__  # pickled by name, as a module global (cgrad.absolute for cgrad.abs)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
        """NumPy's ufunc.reduce: the ufunc folded over `axis` (None: all; a tuple: several, for
        NumPy's reorderable ufuncs), starting from `initial` (default: the identity; None: nothing),
        skipping the elements where `where` is False. Empty axes give the start or raise ValueError."""
        self._binary("reduce")
        x, d = self._cast(_api._as_array_arg(array), dtype, out, "reduce")
        axes = self._axes(x, axis)
        start = self.identity if initial is _NO_VALUE else initial
        mask = None if where is True else _api.broadcast_to(_api.asarray(where, dtype=dt.bool, device=x.device),
                                                            tuple(x.shape))
        if mask is not None and start is None:
            raise ValueError(f"reduction operation '{self.__name__}' does not have an identity, so to use a where "
                             "mask one has to specify 'initial'")
        shape = x.shape
        rest = tuple([s for i, s in enumerate(shape) if i not in axes])
        n = math.prod([shape[a] for a in axes])
        # NumPy starts from the identity too (hypot.reduce([-3.]) is 3); native reductions do already
        apply_start = initial is not _NO_VALUE or self.__name__ not in _REDUCE
        if start is not None and (n == 0 or apply_start or mask is not None):
            start = self._start(start, d, x.device, initial is _NO_VALUE)
        if n == 0:
            if start is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} which has no identity")
            r = _api.broadcast_to(start, rest)
        else:
            r = self._reduce_axis0(_leading(x, axes, n, rest), None if mask is None else _leading(mask, axes, n, rest),
                                   start, apply_start)
        if keepdims:
            r = _api.reshape(r, tuple([1 if i in axes else s for i, s in enumerate(shape)]))
        return _to_out(out, r, f"{self.__name__}.reduce")

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """NumPy's ufunc.accumulate: every prefix of the fold along one axis (add: cumulative_sum,
        multiply: cumulative_prod; reorderable ufuncs by doubling, the others a left fold)."""
        self._binary("accumulate")
        x = _api._as_array_arg(array)
        if x.ndim == 0:
            raise TypeError("cannot accumulate on a scalar")
        axis = self._one_axis(x, axis, "accumulate")
        x, d = self._cast(x, dtype, out, "accumulate")
        if self.__name__ in _ACCUMULATE:
            r = _ACCUMULATE[self.__name__](x, axis=axis, dtype=d)
        elif x.shape[axis] == 0:
            r = x
        else:
            x0 = _api.moveaxis(x, axis, 0)
            r = _scan(self._fn, x0) if self._reorderable else _fold(self._fn, x0, prefixes=True)
            r = _api.moveaxis(r, 0, axis)
        return _to_out(out, r, f"{self.__name__}.accumulate")

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        """NumPy's ufunc.reduceat: the reductions of x[indices[i]:indices[i+1]] along `axis` (the
        last to the end; x[indices[i]] alone where indices[i] >= indices[i+1]), in NumPy's order."""
        self._binary("reduceat")
        x = _api._as_array_arg(array)
        if x.ndim == 0:
            raise TypeError("cannot reduceat on a scalar")
        axis = self._one_axis(x, axis, "reduceat")
        starts = _segment_starts(indices, x.shape[axis], f"{self.__name__}.reduceat")
        x, d = self._cast(x, dtype, out, "reduceat")
        ends = starts[1:] + [x.shape[axis]]
        lengths = [e - s if e > s else 1 for s, e in zip(starts, ends)]
        r = _api.moveaxis(self._segments(_api.moveaxis(x, axis, 0), starts, lengths), 0, axis)
        return _to_out(out, r, f"{self.__name__}.reduceat")

    def outer(self, A, B, /, **kwargs):
        """NumPy's ufunc.outer: the ufunc of every element of A with every element of B (shape
        A.shape + B.shape); `out=` as a call's."""
        if self.nin != 2:
            raise ValueError("outer product only supported for binary functions")
        out = kwargs.pop("out", None)
        if kwargs:
            raise TypeError(f"{self.__name__}.outer: cgrad's takes out= only, not {', '.join(sorted(kwargs))}")
        a, b = _api._as_array_arg(A), _api._as_array_arg(B)
        return _write_out(out, self._fn(_api.reshape(a, tuple(a.shape) + (1,) * b.ndim), b), self.__name__)

    def at(self, a, indices, b=None, /):
        """NumPy's ufunc.at: a[indices] = ufunc(a[indices], b) once per index, repeats included;
        `a` (a cgrad Array) takes the result (_array._ufunc_at). Returns None."""
        if self.nout != 1:
            raise ValueError("Only single output ufuncs supported at this time")
        if self.nin == 2 and b is None:
            raise ValueError("second operand needed for ufunc")
        if self.nin == 1 and b is not None:
            raise ValueError("second operand provided when ufunc is unary")
        if not isinstance(a, Array):
            raise TypeError(f"{self.__name__}.at: a must be a cgrad Array (it is written in place), got "
                            f"{type(a).__name__}")
        return _ufunc_at(self.__name__, a, indices, b)

    # ---- helpers ----
    @property
    def _reorderable(self):
        return self.__name__ in _REDUCE or self.__name__ in _ASSOCIATIVE

    def _binary(self, method):
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary functions")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def _axes(self, x, axis):
        """reduce's axes of x as a sorted list; a 0-d x reduces over none (axis 0, -1 or None, as NumPy)."""
        if x.ndim == 0:
            if axis not in (None, (), 0, -1, (0,), (-1,)):
                raise _cgrad.InvalidArgumentError(f"{self.__name__}.reduce: axis {axis} out of range for shape ()")
            return []
        if isinstance(axis, int) and -x.ndim <= axis < x.ndim:  # the common case, checked as _axes_in does
            return [axis % x.ndim]
        axis = range(x.ndim) if axis is None else axis if isinstance(axis, tuple) else operator.index(axis)
        axes = sorted(_api._axes_in(x, axis, f"{self.__name__}.reduce"))
        if len(axes) > 1 and not self._reorderable:
            raise ValueError(f"reduction operation '{self.__name__}' is not reorderable, so at most one axis may be "
                             "specified")
        return axes

    def _one_axis(self, x, axis, method):
        if axis is None or (isinstance(axis, tuple) and len(axis) != 1):
            if x.ndim != 1 or axis is not None:
                raise ValueError(f"{method} does not allow multiple axes")
            return 0
        return _api._axes_in(x, operator.index(axis[0] if isinstance(axis, tuple) else axis),
                             f"{self.__name__}.{method}")[0]

    def _closed(self, d):
        """The dtype of the ufunc of two `d` arrays (bool for the logical ones, whose NumPy loops
        take bools); the ufunc's own TypeError where it refuses d."""
        if self.__name__ in _LOGICAL:
            return dt.bool
        return self._probe(d, "closed", lambda one: self._fn(one, one))

    def _probe(self, d, kind, f):
        """f(a one-element array of dtype d).dtype, kept per ufunc: the dtype rules are cgrad's own."""
        loops = self.__dict__.setdefault("_loops", {})
        if (kind, d) not in loops:
            loops[kind, d] = f(_api.zeros((1,), dtype=d)).dtype
        return loops[kind, d]

    def _cast(self, x, dtype, out, method):
        """x cast to the dtype NumPy's reduction computes in, and that dtype: `dtype` (the ufunc of
        two such arrays must give it: TypeError otherwise, as NumPy's), else out's where it keeps
        it, else the ufunc's result on x's dtype (add, multiply: sum's, ints widened to 64 bits);
        TypeError where that is a lower kind (equal of integers: NumPy finds no loop either)."""
        name, xd = self.__name__, x.dtype
        if dtype is None and out is None:  # the common case, its answer kept per input dtype
            d = self._probe(xd, "default", lambda one: self._cast(one, None, (), method)[0])
            return (x if xd is d else x.astype(d)), d
        if dtype is not None:
            d = dt.as_dtype(dtype)
            if self._closed(d) != d:
                raise TypeError(f"No loop matching the specified signature and casting was found for ufunc {name} "
                                f"({name} of {d.name} arrays is {self._closed(d).name}, not {d.name})")
        else:
            o = out[0] if isinstance(out, tuple) and len(out) == 1 else out
            d = o.dtype if isinstance(o, Array) and self._closed_or_none(o.dtype) == o.dtype else None
            if d is None:
                d = self._probe(xd, "sum", _api.sum) if name in _WIDENING else self._closed(xd)
                if name not in _LOGICAL and _KIND_ORDER[d.kind] < _KIND_ORDER[xd.kind] or self._closed(d) != d:
                    raise TypeError(f"No loop matching the specified signature and casting was found for ufunc "
                                    f"{name} ({name}.{method} of {xd.name}: {name} gives {d.name})")
        return (x if xd is d else x.astype(d)), d

    def _closed_or_none(self, d):
        try:
            return self._closed(d)
        except TypeError:
            return None

    def _start(self, v, d, device, identity):
        """The reduction's start `v` as a 0-d array of the loop dtype d: NumPy's identity (-1 of
        bitwise_and wraps to all ones in unsigned dtypes) or the caller's `initial`."""
        if identity:
            return _api.asarray(v, device=device).astype(d)
        s = _api.asarray(v, dtype=d, device=device)
        if s.ndim:
            raise ValueError(f"{self.__name__}.reduce: initial must be a scalar, got shape {tuple(s.shape)}")
        return s

    def _reduce_axis0(self, x, mask, start, apply_start):
        """The reduction over axis 0 of x (length >= 1, the loop dtype) with a `mask` (None or
        broadcastable to x) of the elements taken and a `start` (None or broadcastable to x[0]):
        the start is combined where apply_start (native reductions start from the identity already)."""
        fn, name = self._fn, self.__name__
        if name in _REDUCE or name in _ASSOCIATIVE:
            if mask is not None:  # a skipped element is the identity (max, min: the start, equally idempotent)
                fill = start if self.identity is None else _api.asarray(self.identity, device=x.device).astype(x.dtype)
                x = _api.where(mask, x, fill)
            if name in _REDUCE:  # (x is in the loop dtype: sum and prod keep an int8 one if asked for it)
                keep = name in _WIDENING and self._probe(x.dtype, "sum", _api.sum) != x.dtype
                r = _REDUCE[name](x, axis=0, **({"dtype": x.dtype} if keep else {}))
            else:
                r = _tree(fn, x)
            if start is None or not apply_start:
                return r
            r = fn(start, r)
            # nothing taken: the start itself, as NumPy gives (gcd(-4, 0) and hypot(-4, 0) are 4)
            return r if mask is None or name in _REDUCE else _api.where(_api.any(mask, axis=0), r, start)
        return _fold(fn, x, mask, start)

    def _segments(self, x, starts, lengths):
        """reduceat along axis 0 of x: the segments in buckets of lengths up to a power of two P,
        each gathered as a (P, segments, ...) array reduced over axis 0 from its first row (the
        rows past a segment's length masked), so the gathered elements number at most twice the
        segments' total length; then put back in the segments' order."""
        if not starts:
            return x[:0]
        buckets = {}
        for i, n in enumerate(lengths):
            buckets.setdefault(1 if n == 1 else 1 << (n - 1).bit_length(), []).append(i)
        pieces, order = [], []
        for p, members in sorted(buckets.items()):
            s = _api.asarray([starts[i] for i in members], dtype=dt.int64, device=x.device)
            if p == 1:
                pieces.append(_api.take(x, s, axis=0))
            else:
                n = _api.asarray([lengths[i] for i in members], dtype=dt.int64, device=x.device)
                step = _api.arange(p, dtype=dt.int64, device=x.device)[:, None]
                valid = step < n[None, :]  # (p, segments)
                pos = _api.where(valid, s[None, :] + step, s[None, :])
                g = _api.reshape(_api.take(x, _api.reshape(pos, (-1,)), axis=0), (p, len(members)) + tuple(x.shape[1:]))
                mask = _api.reshape(valid, (p, len(members)) + (1,) * (x.ndim - 1))
                pieces.append(self._reduce_axis0(g[1:], mask[1:], g[0], True))
            order += members
        r = pieces[0] if len(pieces) == 1 else _api.concat(pieces, axis=0)
        if order == sorted(order):
            return r
        inverse = [0] * len(order)
        for k, i in enumerate(order):
            inverse[i] = k
        return _api.take(r, _api.asarray(inverse, dtype=dt.int64, device=x.device), axis=0)


def _write_out(out, r, name):
    """A call's `out=` (None, an Array, or a tuple of one per result) written by _to_out under
    NumPy's ufunc rules (broadcast to out, 'same_kind' casting); the result, or the out arrays."""
    if out is None:
        return r
    if not isinstance(r, tuple):
        return _to_out(out, r, name, ufunc=True)
    if not isinstance(out, tuple) or len(out) != len(r):
        raise ValueError(f"{name}: out must be a tuple of {len(r)} arrays")
    return tuple(v if o is None else _to_out(o, v, name, ufunc=True) for o, v in zip(out, r))


def _with_out(fn, name):
    """fn, a ufunc composed in Python without NumPy's `out=`, taking it as the C++ functions do
    (a call with out= raised TypeError before 2026-12-08, so np.fmod(a, b, out=c) did not port)."""
    def call(*args, out=None, **kwargs):
        return _write_out(out, fn(*args, **kwargs), name)
    call.__name__, call.__qualname__, call.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    return call


def _leading(x, axes, n, rest):
    """x with `axes` moved to the front and flattened into one of length n (none: length 1)."""
    if axes == [0]:
        return x
    if axes:
        x = _api.moveaxis(x, tuple(axes), tuple(range(len(axes))))
    return _api.reshape(x, (n,) + rest)


def _segment_starts(indices, n, label):
    """reduceat's indices as a list of ints, each in [0, n) (IndexError otherwise, NumPy's)."""
    idx = _api._as_array_arg(indices)
    if idx.ndim != 1:
        raise ValueError(f"{label}: indices must be 1-D, got {idx.ndim}-D")
    if idx.shape[0] and (idx.dtype not in dt.INTEGRAL):
        raise TypeError(f"{label}: indices must be integers, got {idx.dtype}")
    starts = idx.tolist()
    for i in starts:
        if not 0 <= i < n:
            raise IndexError(f"index {i} out-of-bounds in {label} [0, {n})")
    return starts


def _tree(fn, x):
    """fn over axis 0 of x by halves (fn associative and commutative): log2(n) lazy steps, the odd
    rows left over at each level combined at the end. Each level's halves are read through a
    reshape to (2, h, ...), which the scheduler does not fold into index math (docs/fusion.md,
    rule 3): the level before is stored once. Read as two slices it fused into the next level,
    and the last kernel spelled out all n leaves (hypot of 20000: a compile past 120 s)."""
    odd = []
    while x.shape[0] > 1:
        h = x.shape[0] // 2
        if x.shape[0] % 2:
            odd.append(x[2 * h])
        pair = _api.reshape(x[:2 * h], (2, h) + tuple(x.shape[1:]))
        x = fn(pair[0], pair[1])
    r = x[0]
    for v in odd:
        r = fn(r, v)
    return r


def _scan(fn, x):
    """Every prefix of fn over axis 0 of x by doubling (Hillis and Steele; fn associative): after
    the step of k, row i combines rows i-2k+1..i, earlier rows on the left."""
    n, k = x.shape[0], 1
    while k < n:
        x = _api.concat([x[:k], fn(x[:n - k], x[k:])], axis=0)
        k *= 2
    return x


def _fold(fn, x, mask=None, start=None, prefixes=False):
    """NumPy's left fold ((start fn x[0]) fn x[1]) ... over axis 0 of x (no start: from x[0]),
    where `mask` (None or broadcastable to x) is True; every prefix, stacked, where `prefixes`.
    Lazy for up to _CHUNK steps; past that x is evaluated once and the fold every _CHUNK steps,
    so the graph stays bounded and each chunk reuses the first chunk's kernel (1000 steps: 0.2 s)."""
    chunk = _CHUNK if type(fn) is _C_FUNCTION else _CHUNK_COMPOSITE
    n = x.shape[0]
    if n > chunk:
        _cgrad.eval(*(x,) if mask is None else (x, mask))
    acc, first = (x[0], 1) if start is None else (start, 0)
    rows, pieces = [acc] if prefixes else [], []
    for i in range(first, n):
        v = fn(acc, x[i])
        acc = v if mask is None else _api.where(mask[i], v, acc)
        if prefixes:
            rows.append(acc)
        if (i + 1 - first) % chunk == 0 and i + 1 < n:
            if prefixes:
                pieces.append(_api.stack(rows))
                _cgrad.eval(pieces[-1])
                acc, rows = pieces[-1][-1], []
            else:
                _cgrad.eval(acc)
    if not prefixes:
        return acc
    pieces.append(_api.stack(rows))
    return pieces[0] if len(pieces) == 1 else _api.concat(pieces, axis=0)


def _split_top(text):
    """text split at the commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for c in text:
        depth += c in "([{" and 1 or c in ")]}" and -1 or 0
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    return parts + ([cur.strip()] if cur.strip() else [])


def _nb_signature(fn):
    """inspect.Signature of a nanobind function from its signature text ('def add(x1: object, x2:
    object, *, out: object | None = \\0) -> object', defaults as \\N into the defaults tuple)."""
    text, _, defaults = fn.__nb_signature__[0]
    depth, head = 0, text.index("(")
    for end in range(head, len(text)):
        depth += text[end] == "(" and 1 or text[end] == ")" and -1 or 0
        if depth == 0:
            break
    P = inspect.Parameter
    params, kind = [], P.POSITIONAL_OR_KEYWORD
    for part in _split_top(text[head + 1:end]):
        if part == "/":
            params = [p.replace(kind=P.POSITIONAL_ONLY) for p in params]
        elif part.startswith("*") and not part.startswith("**"):
            kind = P.KEYWORD_ONLY
            if part != "*":
                params.append(P(part[1:].split(":")[0].strip(), P.VAR_POSITIONAL))
        elif part.startswith("**"):
            params.append(P(part[2:].split(":")[0].strip(), P.VAR_KEYWORD))
        else:
            name, _, default = part.partition("=")
            default = default.strip()
            value = defaults[int(default[1:])] if default.startswith("\\") else P.empty if not default else default
            params.append(P(name.split(":")[0].strip(), kind, default=value))
    return inspect.Signature(params)


def _make(fn, name):
    """The ufunc of NumPy's `name` over fn: an instance of a subclass of its own, whose __call__ is
    fn, so that a call is fn's (a Python __call__ forwarding to fn added 0.1 us to `cgrad.add(x, y)`,
    0.3 us); a composite without `out=` gets it (_with_out)."""
    nin = 2 if name in _BINARY else _TWO_OUTPUTS.get(name, 1)
    doc = fn.__doc__ or f"NumPy's {name}, element-wise (help(cgrad.ufunc): its methods)."
    code = getattr(fn, "__code__", None)
    takes_out = code is None or "out" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    cls = type("ufunc", (ufunc,), {"__call__": staticmethod(fn if takes_out else _with_out(fn, name)), "__doc__": doc,
                                   "__module__": "cgrad", "__qualname__": "ufunc", "__slots__": ()})
    u = object.__new__(cls)
    nout = 2 if name in _TWO_OUTPUTS else 1
    vars(u).update(__name__=name, __qualname__=name, nin=nin, nout=nout, nargs=nin + nout,
                   identity=_BINARY.get(name), signature=None, _fn=fn)
    return u


def wrap(namespace):
    """Replaces each function of `namespace` (cgrad's globals) named as one of NumPy's ufuncs by
    its ufunc; NumPy's aliases of one ufunc bound to one function (abs, absolute) get one ufunc."""
    made = {}
    for name in (*_BINARY, *_UNARY, *_TWO_OUTPUTS, *_ALIASES):
        fn = namespace.get(name)
        if fn is None or isinstance(fn, ufunc):
            continue
        key = (id(fn), _ALIASES.get(name, name))  # degrees and rad2deg: one function, two ufuncs of NumPy's
        if key not in made:
            made[key] = _make(fn, key[1])
        namespace[name] = made[key]
