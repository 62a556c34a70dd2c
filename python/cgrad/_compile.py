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


def _flatten_in(x, leaves):
    """x's structure as a hashable key, its Arrays appended to `leaves`."""
    t = type(x)
    if t is Array:
        leaves.append(x)
        return _LEAF
    if t in _PLAIN:
        return (t, x)
    if t is tuple or t is list:
        return (t, tuple([_flatten_in(v, leaves) for v in x]))
    if isinstance(x, Array):
        leaves.append(x)
        return _LEAF
    if isinstance(x, _NP_ARRAY) or (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")):
        from ._api import asarray  # NumPy, PyTorch, JAX...: an input (a DLPack view), not a key

        leaves.append(asarray(x))
        return _LEAF
    if isinstance(x, (tuple, list)):
        return (t, tuple([_flatten_in(v, leaves) for v in x]))
    if isinstance(x, dict):
        return (dict, tuple(x), tuple([_flatten_in(v, leaves) for v in x.values()]))
    # 0.0 == -0.0 and NaN != NaN: a float's key is its bits (NumPy's scalars too)
    if isinstance(x, (float, _NP_FLOAT)):
        return (t, float(x).hex())
    if isinstance(x, (complex, _NP_COMPLEX)):
        return (t, float(x.real).hex(), float(x.imag).hex())
    return (t, x)


def _rebuild(kind, items):
    if hasattr(kind, "_fields"):  # a named tuple
        return kind(*items)
    return kind(items)


def _unflatten_in(key, leaves):
    if key is _LEAF:
        return next(leaves)
    kind = key[0]
    if kind is dict and len(key) == 3 and isinstance(key[1], tuple):
        return dict(zip(key[1], (_unflatten_in(k, leaves) for k in key[2])))
    if isinstance(kind, type) and issubclass(kind, (tuple, list)) and len(key) == 2 and isinstance(key[1], tuple):
        return _rebuild(kind, [_unflatten_in(k, leaves) for k in key[1]])
    if isinstance(kind, type) and issubclass(kind, (float, _NP_FLOAT)):
        return kind(float.fromhex(key[1]))
    if isinstance(kind, type) and issubclass(kind, (complex, _NP_COMPLEX)):
        return kind(complex(float.fromhex(key[1]), float.fromhex(key[2])))
    return key[1]


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
        key = (_flatten_in(args, leaves), _flatten_in(kwargs, leaves) if kwargs else None)
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
                a = _unflatten_in(key[0], it)
                k = _unflatten_in(key[1], it) if key[1] is not None else {}
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
    return leaves, _out_tree(r, leaves)


def _out_tree(r, leaves):
    if isinstance(r, Array):
        leaves.append(r)
        return _LEAF
    if r is None:
        return None
    if isinstance(r, (tuple, list)):
        return (type(r), tuple(_out_tree(v, leaves) for v in r))
    if isinstance(r, dict):
        return (dict, tuple(r), tuple(_out_tree(v, leaves) for v in r.values()))
    kind = type(r).__name__
    raise TypeError(
        "cgrad.compile: the function must return a cgrad.Array, or Arrays in tuples, lists and dicts, got "
        + kind + (" (a NumPy function that cgrad does not run lazily gives one)" if kind == "ndarray" else ""))


def unflatten_out(tree, xs):
    return _out_rebuild(tree, iter(xs))


def _out_rebuild(tree, it):
    if tree is _LEAF:
        return next(it)
    if tree is None:
        return None
    kind = tree[0]
    if kind is dict:
        return dict(zip(tree[1], (_out_rebuild(t, it) for t in tree[2])))
    return _rebuild(kind, [_out_rebuild(t, it) for t in tree[1]])
