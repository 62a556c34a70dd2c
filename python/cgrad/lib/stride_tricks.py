"""NumPy's numpy.lib.stride_tricks: `sliding_window_view` and `as_strided` as gathers (`take` of
index arrays computed from `arange`): lazy, fused into their consumers and differentiable (the
gradient scatters back to the elements each window read). NumPy's results are views of x's
memory; these are new arrays, so a write to one never reaches x (`writeable=True` in
sliding_window_view is refused), and as_strided refuses strides that read outside x, where NumPy
would read whatever memory lies there."""
import builtins as _builtins
import math as _math
import operator as _operator

from .. import _api
from .. import _dtypes as _dt
from .._numpy import _arr, ravel

__all__ = ["sliding_window_view", "as_strided", "broadcast_to", "broadcast_arrays", "broadcast_shapes"]

broadcast_to = _api.broadcast_to
broadcast_arrays = _api.broadcast_arrays
broadcast_shapes = _api.broadcast_shapes


def _ints(v, what):
    return tuple(_operator.index(s) for s in ((v,) if isinstance(v, int) or getattr(v, "ndim", 1) == 0 else v))


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Every window of shape window_shape over x's axes (all of them for axis=None; an axis may
    repeat): shape x.shape less window - 1 along those axes, then the window's dims appended."""
    x = _arr(x)
    if writeable:
        raise ValueError("cgrad: sliding_window_view(writeable=True) is not supported: the windows are a new "
                         "array (a gather), not a view whose writes reach x")
    window_shape = _ints(window_shape, "window_shape")
    if _builtins.any(w < 0 for w in window_shape):
        raise ValueError("`window_shape` cannot contain negative values")
    if axis is None:
        if len(window_shape) != x.ndim:
            raise ValueError(f"Since axis is `None`, must provide window_shape for all dimensions of `x`; got "
                             f"{len(window_shape)} window_shape elements and `x.ndim` is {x.ndim}.")
        axis = tuple(range(x.ndim))
    else:
        axis = _ints(axis, "axis")
        if len(window_shape) != len(axis):
            raise ValueError(f"Must provide matching length window_shape and axis; got {len(window_shape)} "
                             f"window_shape elements and {len(axis)} axes elements.")
        for a in axis:
            _api._axes_in(x, a, "sliding_window_view")
        axis = tuple(a % x.ndim for a in axis)
    trimmed = list(x.shape)
    for a, w in zip(axis, window_shape):
        if trimmed[a] < w:
            raise ValueError("window shape cannot be larger than input array shape")
        trimmed[a] -= w - 1
    out = x
    for a, w in zip(axis, window_shape):
        n = out.shape[a] - w + 1
        idx = (_api.arange(n, dtype=_dt.int64, device=x.device)._reshape([n, 1])
               + _api.arange(w, dtype=_dt.int64, device=x.device)._reshape([1, w]))
        if n * w == 0:  # an empty window or no window: nothing to read
            shape = list(out.shape[:a]) + [n] + list(out.shape[a + 1:]) + [w]
            out = _api.zeros(tuple(shape), dtype=x.dtype, device=x.device)
            continue
        out = _api.moveaxis(_api.take(out, idx._reshape([n * w]), axis=a)._reshape(
            list(out.shape[:a]) + [n, w] + list(out.shape[a + 1:])), a + 1, -1)
    return out if out is not x else x[...]


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """The elements of x at byte offsets sum(i_k * strides[k]) from its first, read from x's
    C-contiguous layout (by default the C strides of `shape`, as NumPy's for a C-contiguous x): a
    new array. Strides that
    are not multiples of the itemsize, or that reach outside x, raise ValueError."""
    x = _arr(x)
    item = x.dtype.itemsize
    shape = tuple(x.shape) if shape is None else _ints(shape, "shape")
    if _builtins.any(s < 0 for s in shape):
        raise ValueError("negative dimensions are not allowed")
    if strides is None:  # NumPy's: x's strides without a shape, the new shape's C strides with one
        strides = tuple(item * _math.prod(shape[d + 1:]) for d in range(len(shape)))
    strides = _ints(strides, "strides")
    if len(strides) != len(shape):
        raise ValueError("mismatch in length of strides and shape")
    for s in strides:
        if s % item:
            raise ValueError(f"cgrad: as_strided: stride {s} is not a multiple of the itemsize {item} (it would read "
                             "across elements)")
    steps = [s // item for s in strides]
    if _math.prod(shape) == 0:
        return _api.zeros(shape, dtype=x.dtype, device=x.device)
    lo = _builtins.sum(st * (n - 1) for st, n in zip(steps, shape) if st < 0)
    hi = _builtins.sum(st * (n - 1) for st, n in zip(steps, shape) if st > 0)
    if lo < 0 or hi >= x.size:
        raise ValueError(f"cgrad: as_strided: shape {shape} with strides {strides} reads elements {lo} to {hi} of an "
                         f"array of {x.size} (NumPy would read memory outside it)")
    flat = _api.zeros(shape, dtype=_dt.int64, device=x.device)
    for d, (st, n) in enumerate(zip(steps, shape)):
        if st and n > 1:
            flat = flat + _api.arange(n, dtype=_dt.int64, device=x.device)._reshape(
                [n if e == d else 1 for e in range(len(shape))]) * st
    return _api.take(ravel(x), flat._reshape([_math.prod(shape)]), axis=0)._reshape(list(shape))
