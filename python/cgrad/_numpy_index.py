"""NumPy's index tricks and iteration helpers for cgrad arrays: `mgrid`, `ogrid` (grids from
slices), `r_`, `c_` (concatenation from slice notation), `s_`, `index_exp` (keys built with
brackets), `ndindex`, `ndenumerate` and `broadcast` (Python iteration over shapes and values).
The grids and the concatenations are lazy cgrad arrays; the iterators evaluate an array once and
yield Python scalars. Slices with a float in them give cgrad's default float (float32), as
`cgrad.arange` does, where NumPy gives float64 (docs/python.md, "NumPy's index tricks")."""
import builtins as _builtins
import itertools as _itertools
import math as _math

from . import _api
from . import _dtypes as _dt
from ._cgrad import Array as _Array

__all__ = ["mgrid", "ogrid", "r_", "c_", "s_", "index_exp", "ndindex", "ndenumerate", "broadcast"]


def _slice_parts(s):
    """(start, stop, step, count, scale) of a grid slice: NumPy's rule, a complex step is the number
    of points with the stop included (`0:1:5j`), a real one the step of `arange`."""
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex):
        count = int(abs(step))
        return start, s.stop, step, count, (s.stop - start) / float(count - 1) if count != 1 else 1
    if s.stop is None:
        raise ValueError("a grid slice needs a stop (mgrid[0:n], not mgrid[0:])")
    return start, s.stop, step, _builtins.max(0, int(_math.ceil((s.stop - start) / step))), step


def _grid_dtype(parts):
    """Integer slices give int64, slices with a float (or a count, `5j`) cgrad's default float."""
    inexact = any(isinstance(v, (float, complex)) for p in parts for v in p[:3])
    return _dt.float32 if inexact else _dt.int64


class _Grid:
    """mgrid (dense: one array of shape (len(key), *counts)) and ogrid (open: arrays with one axis
    each, which broadcast to the grid), indexed by slices as NumPy's."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        single = not isinstance(key, tuple)
        keys = (key,) if single else key
        if not all(isinstance(k, slice) for k in keys):
            raise TypeError(f"{'ogrid' if self.sparse else 'mgrid'}[...] takes slices, got {key!r}")
        parts = [_slice_parts(k) for k in keys]
        dtype = _grid_dtype(parts)
        axes = [_api.arange(p[3], dtype=dtype) * p[4] + p[0] for p in parts]
        if single:
            return axes[0]
        shape = tuple(p[3] for p in parts)
        opened = [_api.reshape(a, tuple(n if i == k else 1 for i, n in enumerate(shape))) for k, a in enumerate(axes)]
        if self.sparse:
            return tuple(opened)
        return _api.stack([_api.broadcast_to(a, shape) for a in opened])

    def __len__(self):
        return 0


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


def _ndmin(a, ndmin):
    """a with ones put before its dims up to ndmin (NumPy's `array(a, ndmin=...)`)."""
    return a if a.ndim >= ndmin else _api.reshape(a, (1,) * (ndmin - a.ndim) + tuple(a.shape))


def _directive(item, axis, ndmin, trans1d):
    """The (axis, ndmin, trans1d) a string in front of r_/c_'s items sets: "axis",
    "axis,ndmin" or "axis,ndmin,trans1d"."""
    if item in ("r", "c"):
        raise ValueError(f"r_[{item!r}, ...] makes a NumPy matrix; cgrad has no matrix type (use 2-D arrays)")
    try:
        v = [int(s) for s in item.split(",")]
    except ValueError:
        raise ValueError(f"unknown special directive {item!r}") from None
    if not 1 <= len(v) <= 3:
        raise ValueError(f"unknown special directive {item!r}")
    return tuple(v) + (axis, ndmin, trans1d)[len(v):]


def _lifted(a, item_ndim, ndmin, trans1d):
    """An item of fewer dims than ndmin: its dims moved to start at trans1d (NumPy's rule: c_
    makes a 1-D array a column)."""
    if trans1d == -1 or item_ndim >= ndmin:
        return a
    k2, k1 = ndmin - item_ndim, trans1d
    if k1 < 0:
        k1 += k2 + 1
    order = list(range(ndmin))
    return _api.permute_dims(a, tuple(order[:k1] + order[k2:] + order[k1:k2]))


def _swap(a, i, j):
    order = list(range(a.ndim))
    order[i], order[j] = order[j], order[i]
    return _api.permute_dims(a, tuple(order))


class _Concatenator:
    """r_ and c_: the items of the key (arrays, sequences, scalars, slices as `arange` or, with
    a complex step, `linspace`) joined along `axis` after raising each to `ndmin` dims; a string
    first sets axis, ndmin and trans1d (NumPy's AxisConcatenator)."""

    def __init__(self, axis, ndmin, trans1d):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        objs, kinds = [], []
        for k, item in enumerate(keys):
            if isinstance(item, str):
                if k != 0:
                    raise ValueError("special directives must be the first entry")
                axis, ndmin, trans1d = _directive(item, axis, ndmin, trans1d)
                continue
            if isinstance(item, slice):
                start, stop, step, count, _ = _slice_parts(item)
                a = _api.linspace(start, stop, count) if isinstance(step, complex) else _api.arange(start, stop, step)
                if ndmin > 1:
                    a = _ndmin(a, ndmin)
                    if trans1d != -1:
                        a = _swap(a, -1, trans1d)
                objs.append(a)
                kinds.append(a.dtype)
            elif isinstance(item, (_builtins.bool, int, float, complex)):
                objs.append(item)
                kinds.append(item)
            else:
                a = item if isinstance(item, _Array) else _api.asarray(item)
                objs.append(_lifted(_ndmin(a, ndmin), a.ndim, ndmin, trans1d))
                kinds.append(a.dtype)
        if not objs:
            raise ValueError("need at least one array to concatenate")
        dtypes = [k for k in kinds if isinstance(k, _dt.dtype)]
        scalars = [k for k in kinds if not isinstance(k, _dt.dtype)]
        # NumPy's rule: Python scalars take the arrays' dtype unless their kind is higher
        dtype = _dt.result_type(*dtypes, *scalars) if dtypes else _api.asarray(scalars).dtype
        joined = [_ndmin(o.astype(dtype) if isinstance(o, _Array) else _api.asarray(o, dtype=dtype), ndmin)
                  for o in objs]
        return _api.concat(joined, axis=axis)

    def __len__(self):
        return 0


r_ = _Concatenator(0, 1, -1)
c_ = _Concatenator(-1, 2, 0)


class _IndexExpression:
    """s_ and index_exp: `s_[1:3, ::2]` is the key `(slice(1, 3), slice(None, None, 2))`;
    index_exp makes a single item a one-element tuple."""

    def __init__(self, maketuple):
        self.maketuple = maketuple

    def __getitem__(self, item):
        return (item,) if self.maketuple and not isinstance(item, tuple) else item


s_ = _IndexExpression(maketuple=False)
index_exp = _IndexExpression(maketuple=True)


class ndindex:
    """The indices of an array of `shape`, in C order: `ndindex(2, 3)` or `ndindex((2, 3))` yields
    (0, 0), (0, 1), ... (1, 2); no dims yields one `()`."""

    def __init__(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = tuple(int(n) for n in shape)
        if any(n < 0 for n in shape):
            raise ValueError("negative dimensions are not allowed")
        self._it = _itertools.product(*[range(n) for n in shape])

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)


def _flat_values(a):
    """a's elements in C order as Python scalars (one evaluation)."""
    values = a.tolist()
    for _ in range(a.ndim - 1):
        values = [v for row in values for v in row]
    return [values] if a.ndim == 0 else values


class ndenumerate:
    """(index, value) pairs of an array in C order, as NumPy's; the array is evaluated once, when
    the iterator is made, and the values are Python scalars (NumPy's are NumPy scalars)."""

    def __init__(self, arr):
        a = arr if isinstance(arr, _Array) else _api.asarray(arr)
        self._it = zip(ndindex(tuple(a.shape)), _flat_values(a))

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)


class broadcast:
    """NumPy's broadcast object: the broadcast `shape`, `ndim`/`nd`, `size` and `numiter` of the
    arguments, and iteration over the tuples of their broadcast elements (Python scalars; the
    arrays are evaluated when iteration starts). `index` counts the tuples read; `reset()` starts
    again."""

    def __init__(self, *args):
        if len(args) > 64:
            raise ValueError(f"broadcast takes at most 64 arguments, got {len(args)}")
        self._arrays = [a if isinstance(a, _Array) else _api.asarray(a) for a in args]
        self.shape = _api.broadcast_shapes(*[tuple(a.shape) for a in self._arrays]) if args else ()
        self.ndim = self.nd = len(self.shape)
        self.size = _math.prod(self.shape)
        self.numiter = len(args)
        self.index = 0
        self._values = None

    @property
    def iters(self):
        """One iterator per argument over its broadcast elements, from the current index."""
        return tuple(iter(v[self.index:]) for v in self._columns())

    def _columns(self):
        if self._values is None:
            self._values = [_flat_values(_api.broadcast_to(a, self.shape)) for a in self._arrays]
        return self._values

    def reset(self):
        self.index = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.index >= self.size:
            raise StopIteration
        row = tuple(v[self.index] for v in self._columns())
        self.index += 1
        return row
