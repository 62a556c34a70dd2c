"""NumPy's array creation, query, joining, selection and bit functions beyond the standard
(docs/python.md, "Beyond the standard"), composed of cgrad's ops as python/cgrad/_numpy.py's are:
lazy, fused and differentiable where their parts are. The in-place functions (`put`, `place`,
`putmask`, `copyto`, `fill_diagonal`, `put_along_axis`) assign the new value to the array, as
`x[key] = v` does, so every handle on it sees the change; they check their arguments first and
leave the array unchanged when they raise. A check that needs the data (`choose`'s and `put`'s
bounds, `asarray_chkfinite`) or a result whose length depends on it (`compress`, `extract`)
evaluates what it needs, a synchronisation point."""
import builtins
import itertools
import math
import numbers
import operator

from . import _api
from . import _cgrad
from . import _dtypes as dt
from ._array import _writes_out
from ._cgrad import Array
from ._numpy import _arr, atleast_1d, diag, indices, ravel, split, tril_indices, triu_indices, vstack

__all__ = ["array", "copy", "asanyarray", "ascontiguousarray", "asarray_chkfinite", "fromfunction", "fromiter",
           "frombuffer", "diagflat", "diag_indices", "diag_indices_from", "tril_indices_from", "triu_indices_from",
           "mask_indices", "shape", "size", "ndim", "isscalar", "iterable", "may_share_memory", "shares_memory",
           "promote_types", "issubdtype", "common_type", "min_scalar_type", "block", "hsplit", "vsplit", "dsplit",
           "row_stack", "rollaxis", "resize", "diagonal", "trace", "choose", "compress", "extract", "piecewise",
           "put_along_axis", "put", "place", "putmask", "copyto", "fill_diagonal", "apply_along_axis",
           "apply_over_axes", "matvec", "vecmat", "packbits", "unpackbits"]


def _dtype_of(x):
    """A cgrad dtype from an array or from what `as_dtype` takes (a dtype, a name, a Python type)."""
    if isinstance(x, Array):
        return x.dtype
    if hasattr(x, "dtype") and not isinstance(x, (type, dt.dtype)):  # a NumPy array or scalar
        x = x.dtype
    return dt.as_dtype(x)


def _call(func, x, name, value):
    """func(x, value), NumPy's positional call, or func(x, name=value) for cgrad's functions that take
    it by keyword only (cg.triu's k, cg.sum's axis)."""
    try:
        return func(x, value)
    except TypeError:
        return func(x, **{name: value})


def _inplace_target(a, fn):
    if not isinstance(a, Array):
        raise TypeError(f"{fn}: the array written in place must be a cgrad array, not {type(a).__name__}")
    return a


def _as(v, dtype):
    """v (an array or Python values) as an array of dtype (Python ints out of its range raise
    OverflowError, as NumPy's; bools take any number)."""
    if isinstance(v, Array):
        return v.astype(dtype)
    return _api.asarray(v).astype(dtype) if dtype is dt.bool else _api.asarray(v, dtype=dtype)


def _cyclic(values, index, dtype):
    """values (flattened, cast to dtype) read at index modulo their count: NumPy's repetition of
    a short value array."""
    v = ravel(_as(values, dtype))
    return _api.take(v, index % v.shape[0], axis=0)


# ---- creation and conversion ----
def array(object, dtype=None, copy=True, ndmin=0):  # noqa: A002 (NumPy's names)
    """A new array from `object` (NumPy's copy semantics: copy=None copies only where needed, copy=False
    never), with at least `ndmin` dims (ones prepended)."""
    x = _api.asarray(object, dtype=dtype, copy=copy)
    return x._reshape([1] * (ndmin - x.ndim) + list(x.shape)) if x.ndim < ndmin else x


def copy(a, order="K", subok=False):
    """A new array with a's values (writes to it leave `a` as it was); NumPy's order and subok
    change nothing (cgrad arrays have no memory order and no subclasses)."""
    return array(a, copy=True)


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None):
    """asarray (cgrad has no array subclasses)."""
    return _api.asarray(a, dtype=dtype, device=device, copy=copy)


def ascontiguousarray(a, dtype=None):
    """asarray with at least one dim (cgrad's results are laid out by the library)."""
    return atleast_1d(_api.asarray(a, dtype=dtype))


def asarray_chkfinite(a, dtype=None, order=None):
    """asarray, raising ValueError when a holds NaN or inf (evaluates the check)."""
    x = _api.asarray(a, dtype=dtype)
    if x.dtype in dt.FLOATING + dt.COMPLEX and x.size and not builtins.bool(_api.all(_cgrad.isfinite(x))):
        raise ValueError("array must not contain infs or NaNs")
    return x


def fromfunction(function, shape, *, dtype=None, **kwargs):
    """function(*indices(shape, dtype), **kwargs): the coordinate grids go in whole (lazy); dtype
    defaults to cgrad's float32 (NumPy: float64)."""
    return function(*indices(tuple(shape), dtype=dt.float32 if dtype is None else _dtype_of(dtype)), **kwargs)


def fromiter(iter, dtype, count=-1):  # noqa: A002 (NumPy's name)
    """A 1-D array of the first `count` items of an iterable (all of them with count=-1)."""
    items = list(iter if count < 0 else itertools.islice(iter, count))
    if 0 <= count != len(items):
        raise ValueError(f"iterator too short: Expected {count} but iterator had only {len(items)} items.")
    d = _dtype_of(dtype)
    return _as(items, d) if items else _api.zeros((0,), dtype=d)


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """The bytes of `buffer` read as a 1-D array of `dtype` (NumPy's frombuffer, then copied: cgrad
    never reads memory its producer may change)."""
    import numpy as np

    d = _dtype_of(dtype)
    if d is dt.bfloat16:
        raise TypeError("frombuffer: bfloat16 has no NumPy counterpart")
    return _api.asarray(np.frombuffer(buffer, dtype=np.dtype(d.name), count=count, offset=offset).copy())


def diagflat(v, k=0):
    """The flattened v on the k-th diagonal of a square matrix."""
    return diag(ravel(v), k)


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an n x ... x n array: `ndim` copies of arange(n)."""
    return (_api.arange(n, dtype=dt.int64),) * ndim


def diag_indices_from(arr):
    """diag_indices of arr's size and ndim (all its dims equal)."""
    arr = _arr(arr)
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def _matrix(arr):
    arr = _arr(arr)
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return arr


def tril_indices_from(arr, k=0):
    """tril_indices of arr's shape (evaluated: nonzero)."""
    arr = _matrix(arr)
    return tril_indices(arr.shape[0], k=k, m=arr.shape[1])


def triu_indices_from(arr, k=0):
    """triu_indices of arr's shape (evaluated: nonzero)."""
    arr = _matrix(arr)
    return triu_indices(arr.shape[0], k=k, m=arr.shape[1])


def mask_indices(n, mask_func, k=0):
    """The indices where mask_func(ones((n, n)), k) is nonzero (evaluated: nonzero)."""
    m = _arr(_call(mask_func, _api.ones((n, n), dtype=dt.int64), "k", k))
    return _api.nonzero(m != 0)


# ---- shapes and queries ----
def shape(a):
    """a's shape as a tuple (a sequence is converted first)."""
    return tuple(a.shape) if isinstance(a, Array) or hasattr(a, "shape") else tuple(_arr(a).shape)


def size(a, axis=None):
    """The number of elements, or of those along `axis` (an int or a tuple)."""
    s = shape(a)
    if axis is None:
        return math.prod(s)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    for ax in axes:
        if not -len(s) <= ax < len(s):
            raise _cgrad.InvalidArgumentError(f"size: axis {ax} out of range for shape {s}")
    return math.prod(s[ax] for ax in axes)


def ndim(a):
    """a's number of dims."""
    return len(shape(a))


def isscalar(element):
    """True for Python and NumPy scalars (numbers, str, bytes); arrays (0-d included) are not."""
    if isinstance(element, (numbers.Number, str, bytes)):
        return True
    return type(element).__module__ == "numpy" and hasattr(element, "dtype") and not hasattr(element, "__len__")


def iterable(y):
    """Whether iter(y) works (a 0-d array is not iterable)."""
    if isinstance(y, Array):
        return y.ndim > 0
    try:
        iter(y)
    except TypeError:
        return False
    return True


def _memory_view(x):
    """x as NumPy reads it without evaluating: a zero-copy view of an evaluated CPU array, None for
    a lazy one (its value has no memory yet)."""
    if not isinstance(x, Array):
        return x
    return x.__array__() if x.is_evaluated() and x.device == _api._cpu else None


def may_share_memory(a, b, /, max_work=None):
    """Whether a write to one may change the other. Two cgrad arrays: only handles of one array see
    each other's writes (an assignment rebinds every handle; no buffer is written in place), and
    handles of one array agree in shape, dtype, device, evaluation and (evaluated) buffer: False
    where these differ, True otherwise (Python cannot tell such handles from equal arrays). With a
    NumPy array: whether an evaluated array's memory overlaps it; True for a lazy one (it may read
    it when evaluated)."""
    import numpy as np

    if not builtins.all(isinstance(x, Array) or hasattr(x, "__array__") for x in (a, b)):
        return False  # a list or a scalar: NumPy converts it to new memory
    if size(a) == 0 or size(b) == 0:
        return False
    if isinstance(a, Array) and isinstance(b, Array) and (a is not b) and (
            (a.shape, a.dtype, a.device, a.is_evaluated()) != (b.shape, b.dtype, b.device, b.is_evaluated())):
        return False
    va, vb = _memory_view(a), _memory_view(b)
    return True if va is None or vb is None else builtins.bool(np.may_share_memory(va, vb))


def shares_memory(a, b, /, max_work=None):
    """Whether a write to one changes the other. Two cgrad arrays: whether they are the same array
    object (handles of it made by asarray(x) or x.to_device(x.device) are other objects: see
    may_share_memory); with a NumPy array, whether the cgrad array's memory (evaluated: a
    synchronisation point) overlaps it."""
    import numpy as np

    if isinstance(a, Array) and isinstance(b, Array):
        return a is b and a.size > 0
    va, vb = (x.eval().__array__() if isinstance(x, Array) and x.device == _api._cpu else
              _memory_view(x) for x in (a, b))
    return builtins.bool(np.shares_memory(va, vb)) if va is not None and vb is not None else False


def promote_types(type1, type2):
    """The dtype both promote to, by cgrad's rules (result_type's: int64 with float32 is float32;
    NumPy: float64)."""
    return dt._promote(_dtype_of(type1), _dtype_of(type2))


def issubdtype(arg1, arg2):
    """Whether dtype arg1 is arg2 or under it: arg2 a dtype, one of the abstract scalar types
    (cgrad.floating, cgrad.integer..., or NumPy's) or one of the standard's kinds ("real
    floating"...). arg1 may be an abstract type too (`issubdtype(cgrad.floating, cgrad.inexact)`)."""
    if isinstance(arg2, str) and (" " in arg2 or arg2 in ("bool", "integral", "numeric")):
        return dt.isdtype(_dtype_of(arg1), arg2)
    a1, a2 = dt.abstract_type(arg1), dt.abstract_type(arg2)
    if a1 is not None:  # an abstract type is under an abstract type only, NumPy's rule
        return a2 is not None and issubclass(a1, a2)
    d1 = _dtype_of(arg1)
    return d1 in a2._dtypes if a2 is not None else d1 is _dtype_of(arg2)


def common_type(*arrays):
    """The inexact dtype of the arrays' values together (integers count as float64); bool raises."""
    out = None
    for a in arrays:
        d = _dtype_of(a)
        if d is dt.bool:
            raise TypeError("can't get common type for non-numeric array")
        d = dt.float64 if d in dt.INTEGRAL else d
        out = d if out is None else dt._promote(out, d)
    return dt.float16 if out is None else out


def min_scalar_type(a):
    """The smallest dtype of a's kind that holds a scalar's value (unsigned for a non-negative int;
    float16 for floats in its range); an array with dims keeps its dtype."""
    if getattr(a, "ndim", 0) > 0:
        return _dtype_of(a)
    v = a.item() if hasattr(a, "item") else a
    if isinstance(v, builtins.bool):
        return dt.bool
    if isinstance(v, int):
        for d in ((dt.uint8, dt.uint16, dt.uint32, dt.uint64) if v >= 0 else (dt.int8, dt.int16, dt.int32, dt.int64)):
            if dt.iinfo(d).min <= v <= dt.iinfo(d).max:
                return d
        raise OverflowError(f"min_scalar_type: no cgrad dtype holds {v}")
    z = complex(v)
    fits = [d for d, bound in ((dt.float16, 65000.0), (dt.float32, 3.4e38)) if builtins.all(  # NumPy's bounds
        math.isnan(p) or math.isinf(p) or builtins.abs(p) < bound for p in (z.real, z.imag))]
    if isinstance(v, complex):
        return dt.complex64 if dt.float32 in fits else dt.complex128
    return fits[0] if fits else dt.float64


# ---- joining, splitting, reshaping ----
def _block_depth(arrays, where="arrays"):
    """The list depth of `arrays` (NumPy's rules: lists only, no empty ones, one depth throughout)
    and the largest ndim of its leaves."""
    if isinstance(arrays, tuple):
        raise TypeError(f"{where} is a tuple. Only lists can be used to arrange blocks, and np.block does not "
                        "allow implicit conversion from tuple to ndarray.")
    if not isinstance(arrays, list):
        return 0, _arr(arrays).ndim
    if not arrays:
        raise ValueError(f"List at {where} cannot be empty")
    found = [_block_depth(e, f"{where}[{i}]") for i, e in enumerate(arrays)]
    if len({d for d, _ in found}) > 1:
        raise ValueError(f"List depths are mismatched in {where}")
    return found[0][0] + 1, builtins.max(n for _, n in found)


def block(arrays):
    """An array assembled from nested lists of blocks: the innermost lists join along the last axis,
    the next ones along the one before, ... (blocks get leading ones up to the largest ndim)."""
    depth, nd = _block_depth(arrays)
    nd = builtins.max(nd, depth)

    def join(x, d):
        if d == depth:
            a = _arr(x)
            return a._reshape([1] * (nd - a.ndim) + list(a.shape))
        return _api.concat([join(e, d + 1) for e in x], axis=nd - depth + d)

    out = join(arrays, 0)
    return out[...] if depth == 0 else out


def hsplit(ary, indices_or_sections):
    """split along the second axis (the first for 1-D arrays)."""
    a = _arr(ary)
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(a, indices_or_sections, axis=1 if a.ndim > 1 else 0)


def _split_from(ary, indices_or_sections, axis, least, name):
    a = _arr(ary)
    if a.ndim < least:
        raise ValueError(f"{name} only works on arrays of {least} or more dimensions")
    return split(a, indices_or_sections, axis=axis)


def vsplit(ary, indices_or_sections):
    """split along the first axis (of an array of 2 or more dims)."""
    return _split_from(ary, indices_or_sections, 0, 2, "vsplit")


def dsplit(ary, indices_or_sections):
    """split along the third axis (of an array of 3 or more dims)."""
    return _split_from(ary, indices_or_sections, 2, 3, "dsplit")


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """vstack (NumPy's older name)."""
    return vstack(tup, dtype=dtype, casting=casting)


def rollaxis(a, axis, start=0):
    """`axis` moved to stand before `start` (NumPy's older moveaxis)."""
    a = _arr(a)
    (axis,) = _api._axes_in(a, axis, "rollaxis")
    n = a.ndim
    if not -n <= start <= n:
        raise _cgrad.InvalidArgumentError(f"rollaxis: start {start} out of range for {n} dims")
    start = start + n if start < 0 else start
    start = start - 1 if axis < start else start
    perm = [d for d in range(n) if d != axis]
    perm.insert(start, axis)
    return _api.permute_dims(a, perm) if perm != list(range(n)) else a[...]


def resize(a, new_shape):
    """An array of new_shape filled with a's flattened values, repeated as often as needed."""
    a = ravel(a)
    new_shape = (new_shape,) if isinstance(new_shape, int) else tuple(operator.index(s) for s in new_shape)
    if builtins.any(s < 0 for s in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    n = math.prod(new_shape)
    if n == 0 or a.size == 0:
        return _api.zeros(new_shape, dtype=a.dtype, device=a.device)
    reps = -(-n // a.size)
    return (_api.tile(a, (reps,)) if reps > 1 else a)[:n]._reshape(list(new_shape))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """x.diagonal(...): over axis1 and axis2 (the first two by default), the result's last dim."""
    a = _arr(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    return a.diagonal(offset, axis1, axis2)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """x.trace(...): the sum of diagonal(a, offset, axis1, axis2)."""
    a = _arr(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    return a.trace(offset, axis1, axis2, dtype)


# ---- selection and indexing ----
def _check_bounds(idx, n, what):
    """Raise IndexError when an index lies outside [-n, n) (evaluates it)."""
    if idx.size and builtins.bool(_api.any(_cgrad.logical_or(idx < -n, idx >= n))):
        raise IndexError(f"{what}: index out of bounds for size {n}")


def _mode_index(idx, n, mode, fn):
    """idx by NumPy's mode: 'raise' checks (evaluating) and wraps negatives, 'wrap' wraps, 'clip' clips."""
    if mode == "raise":
        _check_bounds(idx, n, fn)
        return _api.where(idx < 0, idx + n, idx)
    if mode == "wrap":
        return idx % n
    if mode == "clip":
        return _api.clip(idx, 0, n - 1)
    raise ValueError(f"{fn}: clipmode must be one of 'clip', 'raise', or 'wrap', got {mode!r}")


def _int_index(ind, fn, accept=dt.INTEGRAL + (dt.bool,), error=TypeError):
    """ind as int64 indices; a dtype outside `accept` raises `error` (NumPy: choose casts safely,
    put unsafely, put_along_axis takes integers only)."""
    ind = _api.asarray(ind, dtype=dt.int64) if isinstance(ind, (list, tuple)) and not ind else _arr(ind)
    if ind.dtype not in accept:
        raise error(f"{fn}: cannot take indices of dtype {ind.dtype.name}")
    return ind.astype(dt.int64)


@_writes_out
def choose(a, choices, out=None, mode="raise"):
    """choices[a[i]][i] for each i, all broadcast together; mode 'raise' (checks, evaluating a),
    'wrap' or 'clip' says what an index outside [0, n) does."""
    a = _int_index(a, "choose")
    choices = list(_api.unstack(choices, axis=0)) if isinstance(choices, Array) else [_arr(c) for c in choices]
    n = len(choices)
    if n == 0:
        raise ValueError("choose: choices must not be empty")
    if mode == "raise":
        if a.size and builtins.bool(_api.any(_cgrad.logical_or(a < 0, a >= n))):
            raise ValueError("invalid entry in choice array")
    else:
        a = _mode_index(a, n, mode, "choose")
    shp = _api.broadcast_shapes(a.shape, *(c.shape for c in choices))
    d = dt.result_type(*choices)
    stacked = _api.stack([_api.broadcast_to(c.astype(d), shp) for c in choices])
    return _api.take_along_axis(stacked, _api.broadcast_to(a, shp)._reshape([1, *shp]), axis=0)._reshape(list(shp))


def compress(condition, a, axis=None):
    """The slices of a along axis (the flattened a without one) where condition (1-D) is true
    (evaluated: the length depends on it)."""
    a = _arr(a)
    if axis is None:
        a, axis = ravel(a), 0
    (axis,) = _api._axes_in(a, axis, "compress")
    cond = _arr(condition)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    (idx,) = _api.nonzero(cond)
    if idx.size and int(idx[-1]) >= a.shape[axis]:
        raise IndexError(f"index {int(idx[-1])} is out of bounds for axis {axis} with size {a.shape[axis]}")
    return _api.take(a, idx, axis=axis)


def extract(condition, arr):
    """The elements of the flattened arr where the flattened condition is nonzero (evaluated)."""
    return compress(ravel(condition) != 0, arr)


def piecewise(x, condlist, funclist, *args, **kw):
    """funclist[i] (a function of x, or a value) where condlist[i] holds, the later condition
    winning; one more function than conditions is the default. Each function gets the whole x
    (lazy), not x[condlist[i]]: for element-wise functions the result is NumPy's."""
    x = _arr(x)
    if isinstance(condlist, (Array, builtins.bool)) or (hasattr(condlist, "ndim") and condlist.ndim == x.ndim
                                                          and x.ndim > 0):
        condlist = [condlist]
    conds = [_api.broadcast_to(_arr(c).astype(dt.bool), x.shape) for c in condlist]
    if len(funclist) == len(conds) + 1:
        rest = _cgrad.logical_not(_api.any(_api.stack(conds), axis=0)) if conds else \
            _api.ones(x.shape, dtype=dt.bool)
        conds.append(rest)
    elif len(funclist) != len(conds):
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or {len(conds) + 1} functions are "
                         "expected")
    y = _api.zeros_like(x)
    for c, f in zip(conds, funclist):
        v = f(x, *args, **kw) if callable(f) else f
        y = _api.where(c, _as(v, x.dtype), y)
    return y


def put_along_axis(arr, indices, values, axis):
    """arr[i..., indices[i..., j, k...], k...] = values, in place (the last of repeated indices
    wins); an index outside the axis raises IndexError (evaluating the indices)."""
    _inplace_target(arr, "put_along_axis")
    idx = _int_index(indices, "put_along_axis", dt.INTEGRAL, IndexError)
    target = ravel(arr) if axis is None else arr
    if axis is None:
        axis = 0
        if idx.ndim != 1:
            raise ValueError("put_along_axis: when axis=None, indices must be 1-d")
    (axis,) = _api._axes_in(target, axis, "put_along_axis")
    if idx.ndim != target.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    _check_bounds(idx, target.shape[axis], "put_along_axis")
    key = tuple(idx if d == axis else _api.arange(n, dtype=dt.int64)._reshape(
        [n if e == d else 1 for e in range(target.ndim)]) for d, n in enumerate(target.shape))
    out = target[...]
    out[key] = _as(values, arr.dtype)
    arr.assign(out._reshape(list(arr.shape)))


def put(a, ind, v, mode="raise"):
    """a.flat[ind] = v in place (v repeated to the indices' count; the last of repeated indices
    wins); `mode` as choose's ('raise' evaluates the indices)."""
    _inplace_target(a, "put")
    idx = ravel(_int_index(ind, "put", dt.INTEGRAL + dt.FLOATING + (dt.bool,)))  # floats truncate, as NumPy's
    vals = _arr(v)
    if idx.size == 0 or vals.size == 0:
        return
    if a.size == 0:
        raise IndexError("cannot replace elements of an empty array")
    idx = _mode_index(idx, a.size, mode, "put")
    flat = ravel(a)
    flat[(idx,)] = _cyclic(vals, _api.arange(idx.shape[0], dtype=dt.int64), a.dtype)
    a.assign(flat._reshape(list(a.shape)))


def _flat_mask(a, mask, fn):
    m = ravel(_arr(mask))
    if m.size != a.size:
        raise ValueError(f"{fn}: mask and data must be the same size")
    return m.astype(dt.bool)


def place(arr, mask, vals):
    """arr[mask] = vals in place, the first count(mask) of vals taken in order (repeated if short)."""
    _inplace_target(arr, "place")
    m = _flat_mask(arr, mask, "place")
    vals = _arr(vals)
    if vals.size == 0:
        if m.size and builtins.bool(_api.any(m)):
            raise ValueError("Cannot insert from an empty array!")
        return
    k = _api.cumulative_sum(m.astype(dt.int64)) - 1  # the count of true entries before each
    out = _api.where(m, _cyclic(vals, _cgrad.maximum(k, 0), arr.dtype), ravel(arr))
    arr.assign(out._reshape(list(arr.shape)))


def putmask(a, mask, values):
    """a.flat[i] = values.flat[i % values.size] where mask.flat[i], in place."""
    _inplace_target(a, "putmask")
    m = _flat_mask(a, mask, "putmask")
    if _arr(values).size == 0:
        return
    out = _api.where(m, _cyclic(values, _api.arange(a.size, dtype=dt.int64), a.dtype), ravel(a))
    a.assign(out._reshape(list(a.shape)))


_KIND = {"bool": 0, "signed integer": 1, "unsigned integer": 1, "real floating": 2, "complex floating": 3}


def _can_cast(f, t, casting):
    """NumPy's casting rules between cgrad dtypes (bfloat16 counts as float16)."""
    if casting == "unsafe" or f is t:
        return True
    if casting in ("no", "equiv"):
        return False
    import numpy as np

    name = (lambda d: "float16" if d is dt.bfloat16 else d.name)
    return builtins.bool(np.can_cast(np.dtype(name(f)), np.dtype(name(t)), casting))


def copyto(dst, src, casting="same_kind", where=True):
    """dst[...] = src (broadcast) where `where` holds, in place; `casting` as NumPy's ('no',
    'equiv', 'safe', 'same_kind', 'unsafe'; a Python scalar is checked by its kind only)."""
    _inplace_target(dst, "copyto")
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe', not {casting!r}")
    if isinstance(src, (builtins.bool, int, float, complex)):
        d = dt._PY_TYPES[type(src)]
        if casting != "unsafe" and _KIND[d.kind] > _KIND[dst.dtype.kind]:
            raise TypeError(f"Cannot cast scalar from {d.name} to {dst.dtype.name} according to the rule {casting!r}")
        src = _as(src, dst.dtype) if d.kind != "complex floating" or dst.dtype in dt.COMPLEX else _api.asarray(src)
    src = _arr(src)
    if not _can_cast(src.dtype, dst.dtype, casting):
        raise TypeError(f"Cannot cast array data from {src.dtype.name} to {dst.dtype.name} according to the rule "
                        f"{casting!r}")
    value = _api.broadcast_to(src, dst.shape)
    value = value.astype(dst.dtype) if src.dtype is not dst.dtype else value
    if where is True:
        dst.assign(value[...])
        return
    w = _arr(where)
    if w.dtype is not dt.bool:
        raise TypeError(f"copyto: `where` must be boolean, not {w.dtype}")
    dst.assign(_api.where(_api.broadcast_to(w, dst.shape), value, dst))


def fill_diagonal(a, val, wrap=False):
    """a's main diagonal (a[i, i, ...]) set to val (repeated along it), in place; a tall matrix's
    diagonal restarts below the square part with wrap=True, as NumPy's flat step does."""
    _inplace_target(a, "fill_diagonal")
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim == 2:
        step, end = a.shape[1] + 1, a.size if wrap else a.shape[1] * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step, end = 1 + builtins.sum(math.prod(a.shape[:i]) for i in range(1, a.ndim)), a.size
    if _arr(val).size == 0 or a.size == 0:
        return
    p = _api.arange(a.size, dtype=dt.int64)
    on = _cgrad.logical_and(p % step == 0, p < end)
    out = _api.where(on, _cyclic(val, p // step, a.dtype), ravel(a))
    a.assign(out._reshape(list(a.shape)))


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d of each 1-D slice along axis (a Python loop over the others; lazy), its result's dims
    standing where axis was."""
    a = _arr(arr)
    (axis,) = _api._axes_in(a, axis, "apply_along_axis")
    moved = _api.moveaxis(a, axis, -1)
    outer = tuple(moved.shape[:-1])
    if 0 in outer:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    outs = [_arr(func1d(moved[i], *args, **kwargs)) for i in itertools.product(*(range(n) for n in outer))]
    res = _api.stack(outs)._reshape(list(outer) + list(outs[0].shape))
    k, m = outs[0].ndim, len(outer)
    return _api.permute_dims(res, list(range(axis)) + list(range(m, m + k)) + list(range(axis, m)))


def apply_over_axes(func, a, axes):
    """func(a, axis) for each axis in turn, the result keeping a's ndim (a dim func removed comes
    back as length one)."""
    val = _arr(a)
    for axis in ((axes,) if isinstance(axes, int) else axes):
        axis = axis + val.ndim if axis < 0 else axis
        res = _arr(_call(func, val, "axis", axis))
        if res.ndim != val.ndim:
            res = _api.expand_dims(res, axis=axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


# ---- products and bits ----
def _gufunc_operands(x1, x2, fn, n1, n2):
    x1, x2 = _arr(x1), _arr(x2)
    if x1.ndim < n1 or x2.ndim < n2:
        raise ValueError(f"{fn}: operands need at least {n1} and {n2} dims, got {x1.ndim} and {x2.ndim}")
    return x1, x2


def matvec(x1, x2):
    """The matrix-vector product over the last dims: x1 (..., m, n) by x2 (..., n) is (..., m)."""
    x1, x2 = _gufunc_operands(x1, x2, "matvec", 2, 1)
    return _cgrad.matmul(x1, _api.expand_dims(x2, axis=-1))[..., 0]


def vecmat(x1, x2):
    """The vector-matrix product over the last dims, the vector conjugated: x1 (..., n) by
    x2 (..., n, m) is (..., m)."""
    x1, x2 = _gufunc_operands(x1, x2, "vecmat", 1, 2)
    return _cgrad.matmul(_api.expand_dims(_cgrad.conj(x1), axis=-2), x2)[..., 0, :]


_BIT_ORDERS = ("big", "little")


def _bit_weights(bitorder, dtype):
    if bitorder not in _BIT_ORDERS:
        raise ValueError("'order' must be either 'little' or 'big'")
    w = [7, 6, 5, 4, 3, 2, 1, 0] if bitorder == "big" else list(range(8))
    return _api.asarray(w, dtype=dtype)


def packbits(a, axis=None, bitorder="big"):
    """The nonzero-ness of a's elements along axis (the flattened a without one) packed eight to a
    uint8, the last byte padded with zeros."""
    a = _arr(a)
    if a.dtype not in dt.INTEGRAL + (dt.bool,):
        raise TypeError("Expected an input array of integer or boolean data type")
    shifts = _bit_weights(bitorder, dt.uint8)
    if axis is None:
        a, axis = ravel(a), 0
    (axis,) = _api._axes_in(a, axis, "packbits")
    x = _api.moveaxis((a != 0).astype(dt.uint8), axis, -1)
    n = x.shape[-1]
    pad = -n % 8
    if pad:
        x = _api.concat([x, _api.zeros((*x.shape[:-1], pad), dtype=dt.uint8)], axis=-1)
    x = x._reshape(list(x.shape[:-1]) + [(n + pad) // 8, 8])
    return _api.moveaxis(_api.sum(x << shifts, axis=-1, dtype=dt.uint8), -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """Each uint8 of a as its eight bits along axis (the flattened a without one); count keeps that
    many (zeros past the end; negative: drops as many from the end)."""
    a = _arr(a)
    if a.dtype is not dt.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    shifts = _bit_weights(bitorder, dt.uint8)
    if axis is None:
        a, axis = ravel(a), 0
    (axis,) = _api._axes_in(a, axis, "unpackbits")
    x = _api.moveaxis(a, axis, -1)
    bits = (_api.expand_dims(x, axis=-1) >> shifts) & 1
    bits = bits._reshape(list(x.shape[:-1]) + [x.shape[-1] * 8])
    if count is not None:
        n = bits.shape[-1]
        count = operator.index(count)
        if count < -n:
            raise ValueError("-count larger than number of elements")
        keep = n + count if count < 0 else count
        if keep > n:
            bits = _api.concat([bits, _api.zeros((*bits.shape[:-1], keep - n), dtype=dt.uint8)], axis=-1)
        bits = bits[..., :keep]
    return _api.moveaxis(bits, -1, axis)
