"""The argument and result structures of `cgrad.compile` (docs/python.md, "compile").

A call with Arrays by position goes straight to the C++ plan cache. Any other call comes here:
the Arrays anywhere in its tuples, lists and dicts (NumPy arrays and other DLPack producers too,
taken by `asarray`) are the plan's inputs, and everything else (numbers, strings, None, dtypes,
any hashable value) is part of the signature, so each distinct value traces once, as
`jax.jit`'s static arguments do. A function may return Arrays in tuples, lists, dicts and named
tuples, with None among them."""
from . import _cgrad
from ._array import Array

try:  # NumPy is optional: without it there are no NumPy arrays or scalars to meet
    import numpy as np

    _NP_ARRAY, _NP_FLOAT, _NP_COMPLEX = np.ndarray, np.floating, np.complexfloating
except ImportError:
    _NP_ARRAY = _NP_FLOAT = _NP_COMPLEX = ()

_LEAF = object()  # an Array's place in a structure
_PLAIN = (int, bool, str, type(None))  # their own keys, with their type (2 == 2.0 == True)


def _flatten(x, leaves, result=False):
    """x's structure as a hashable tree, its Arrays appended to `leaves`: _LEAF for an Array,
    ("seq", type, children) for tuples and lists (named tuples too), ("dict", keys, children),
    ("val", key) for any other value. In arguments NumPy arrays and DLPack producers are Arrays
    too, and other values are part of the signature (_static_key); in a `result` only None is
    (TypeError for others)."""
    t = type(x)
    if t is Array:
        leaves.append(x)
        return _LEAF
    if t in _PLAIN and (not result or x is None):
        return ("val", (t, x))
    if t is tuple or t is list or isinstance(x, (tuple, list)):
        return ("seq", t, tuple([_flatten(v, leaves, result) for v in x]))
    if isinstance(x, dict):
        return ("dict", tuple(x), tuple([_flatten(v, leaves, result) for v in x.values()]))
    if isinstance(x, Array):
        leaves.append(x)
        return _LEAF
    if result:
        kind = type(x).__name__
        raise TypeError(
            "cgrad.compile: the function must return a cgrad.Array, or Arrays in tuples, lists and dicts, got "
            + kind + (" (a NumPy function that cgrad does not run lazily gives one)" if kind == "ndarray" else ""))
    if isinstance(x, _NP_ARRAY) or (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")):
        from ._api import asarray  # NumPy, PyTorch, JAX...: an input (a DLPack view), not a key

        leaves.append(asarray(x))
        return _LEAF
    return ("val", _static_key(x))


def _static_key(x):
    """A value's key: its type and the value, a float's bits (0.0 == -0.0 and NaN != NaN; NumPy's
    scalars too)."""
    t = type(x)
    if isinstance(x, (float, _NP_FLOAT)):
        return (t, float(x).hex())
    if isinstance(x, (complex, _NP_COMPLEX)):
        return (t, float(x.real).hex(), float(x.imag).hex())
    return (t, x)


def _static_value(key):
    t = key[0]
    if issubclass(t, (float, _NP_FLOAT)):
        return t(float.fromhex(key[1]))
    if issubclass(t, (complex, _NP_COMPLEX)):
        return t(complex(float.fromhex(key[1]), float.fromhex(key[2])))
    return key[1]


def _unflatten(tree, it):
    """The structure `tree` (_flatten's) with its Arrays taken from the iterator `it`."""
    if tree is _LEAF:
        return next(it)
    tag = tree[0]
    if tag == "seq":
        kind, items = tree[1], [_unflatten(c, it) for c in tree[2]]
        return kind(*items) if hasattr(kind, "_fields") else kind(items)  # a named tuple: by position
    if tag == "dict":
        return dict(zip(tree[1], (_unflatten(c, it) for c in tree[2])))
    return _static_value(tree[1])


MAX_KEYS = 64  # signature keys kept per function, least recently used dropped past it


class General:
    """The calls of one compiled function that are not Arrays by position: one C++ compiled
    function per signature key (the values that are not Arrays), called with the Arrays. At most
    MAX_KEYS keys are kept: a value that changes at every call (a learning rate) would trace at
    every call and keep every plan; past the bound the oldest go, with one warning."""

    def __init__(self, fn):
        self.fn = fn
        self.plans = {}  # key -> C++ compiled function, least recently used first
        self.warned = False

    @property
    def signatures(self):
        return sum(c.signatures for c in self.plans.values())

    def __call__(self, *args, **kwargs):
        leaves = []
        key = (_flatten(args, leaves), _flatten(kwargs, leaves) if kwargs else None)
        try:
            c = self.plans.get(key)
        except TypeError:
            bad = _unhashable(args, kwargs)
            raise TypeError(
                f"cgrad.compile: an argument of type {type(bad).__name__} is neither an Array nor hashable "
                "(values other than Arrays are part of the signature: pass them as Arrays or hashable values)"
            ) from None
        if c is None:
            fn = self.fn

            def traced(*xs):
                it = iter(xs)
                a = _unflatten(key[0], it)
                k = _unflatten(key[1], it) if key[1] is not None else {}
                return fn(*a, **k)

            c = self.plans[key] = _cgrad._compile(traced)
            if len(self.plans) > MAX_KEYS:
                del self.plans[next(iter(self.plans))]
                if not self.warned:
                    self.warned = True
                    import warnings

                    warnings.warn(f"cgrad.compile: {getattr(self.fn, '__name__', 'a function')} was traced for more "
                                  f"than {MAX_KEYS} values of its arguments that are not Arrays (the oldest plans "
                                  "are dropped); pass values that change at every call as 0-d Arrays",
                                  RuntimeWarning, stacklevel=3)
        elif len(self.plans) > 1:
            self.plans[key] = self.plans.pop(key)  # most recently used last
        return c(*leaves)


def _unhashable(args, kwargs):
    for v in list(args) + list(kwargs.values()):
        if isinstance(v, (tuple, list)):
            inner = _unhashable(v, {})
            if inner is not None:
                return inner
        elif isinstance(v, dict):
            inner = _unhashable((), v)
            if inner is not None:
                return inner
        elif not isinstance(v, (Array, _NP_ARRAY)):
            try:
                hash(v)
            except TypeError:
                return v
    return None


def flatten_out(r):
    """A traced function's result as (its Arrays, its structure); TypeError for a value that is
    not an Array, None, or a tuple, list or dict of them."""
    leaves = []
    return leaves, _flatten(r, leaves, result=True)


def unflatten_out(tree, xs):
    return _unflatten(tree, iter(xs))
