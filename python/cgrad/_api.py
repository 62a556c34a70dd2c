"""The Array API functions that take the standard's signatures (keyword arguments, dtype and
device arguments, axis tuples) and call the C++ functions. Functions the C++ core lacks are
not defined here: docs/python.md lists them, and the conformance run's xfails file names them."""
import builtins
import collections
import functools
import math
import operator

from . import _cgrad
from . import _dtypes as dt
from ._array import Array, Device, _vjp_sum, _writes_out
from ._array import _reduce_in as _array_reduce_in
from ._array import _check_host_indices_of_axis, _mean, _numeric_stat

_cpu = Device.cpu()


def _dev(device):
    if device is None or device == "cpu":
        return _cpu
    if isinstance(device, Device):
        return device
    if isinstance(device, str) and device.startswith("cuda"):
        return Device.cuda(int(device.split(":")[1]) if ":" in device else 0)
    raise ValueError(f"cgrad: unknown device {device!r}")


def _shape(shape):
    if isinstance(shape, int):
        return [shape]
    return [int(s) for s in shape]


def _default_dtype(dtype, fallback=None):
    return dt.as_dtype(dtype) if dtype is not None else (fallback or dt.float32)


# ---- creation ----
class _NumpyValues(Exception):
    """Raised by _infer at a NumPy scalar: NumPy's own conversion keeps its dtype."""


def _numpy_scalar(o):
    # np.float64 is a Python float and np.int64 may pass for an int: a value of a NumPy dtype keeps
    # it (np.float64(0.1) stays f64, as in NumPy), so NumPy scalars go through NumPy.
    return type(o).__module__ == "numpy" and hasattr(o, "dtype")


def _infer(obj):
    """(flat values, shape, dtype) of nested Python sequences of bools/ints/floats."""
    shape = []
    o = obj
    while isinstance(o, (list, tuple)):
        shape.append(len(o))
        if not o:
            break
        o = o[0]
    flat = []
    kinds = set()

    def walk(o, d):
        if d == len(shape):
            if isinstance(o, (list, tuple)):
                raise ValueError("asarray: ragged nested sequences")
            if isinstance(o, Array):
                o = o.item()
            if _numpy_scalar(o):
                raise _NumpyValues
            if not isinstance(o, (builtins.bool, int, float, complex)):
                raise TypeError(f"asarray: cgrad has no dtype for {type(o).__name__} values")
            kinds.add(builtins.bool if isinstance(o, builtins.bool) else int if isinstance(o, int)
                      else complex if isinstance(o, complex) else float)
            flat.append(o)
            return
        if not isinstance(o, (list, tuple)) or len(o) != shape[d]:
            raise ValueError("asarray: ragged nested sequences")
        for e in o:
            walk(e, d + 1)

    walk(obj, 0)
    if complex in kinds:
        d = dt.complex64  # the default complex dtype (the default real one is float32)
    elif float in kinds:
        d = dt.float32
    elif int in kinds:
        d = dt.int64
    elif builtins.bool in kinds:
        d = dt.bool
    else:
        d = dt.float32
    return flat, shape, d


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """An Array from an Array, a DLPack-capable object (zero-copy: NumPy, PyTorch...), a Python
    scalar or nested sequences. `copy=True` always copies; `copy=False` never does."""
    want = dt.as_dtype(dtype) if dtype is not None else None
    if isinstance(obj, Array):
        return _finish(obj, want, device, copy)
    if _numpy_scalar(obj) and copy is not False:
        import numpy as np

        obj = np.asarray(obj)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, (builtins.bool, int, float)):
        try:
            x = from_dlpack(obj)
        except (TypeError, BufferError, ValueError):
            if copy is False:
                raise
            import numpy as np

            x = from_dlpack(_native(np.asarray(obj)))
        return _finish(x, want, device, copy)  # (the device was ignored here until 2026-12-05)
    if copy is False:
        raise ValueError("asarray: copy=False needs an object that shares memory (an Array or DLPack)")
    if isinstance(obj, range):
        obj = list(obj)
    if isinstance(obj, (list, tuple)) and _holds_array(obj):  # [x, y]: stacked (NumPy, JAX), promoted as by stack
        return stack([asarray(e, dtype=dtype, device=device) for e in obj])
    if isinstance(obj, complex):
        flat, shape, d = [obj], [], dt.complex64
    elif isinstance(obj, (builtins.bool, int, float)):
        flat, shape, d = [obj], [], dt.bool if isinstance(obj, builtins.bool) else dt.int64 if isinstance(obj, int) else dt.float32
    else:
        try:
            flat, shape, d = _infer(obj)
        except (ValueError, TypeError):
            raise
        except Exception:  # _NumpyValues, or a sequence type _infer does not walk
            import numpy as np

            return asarray(np.asarray(obj), dtype=dtype, device=device)
    d = want or d
    if d in dt.INTEGRAL:
        info = dt.iinfo(d)
        for v in flat:
            if isinstance(v, int) and not info.min <= v <= info.max:
                raise OverflowError(f"asarray: {v} does not fit in {d.name}")
    if d not in dt.COMPLEX and builtins.any(isinstance(v, complex) for v in flat):
        raise TypeError(f"asarray: complex values need a complex dtype, not {d.name}")
    if d is dt.bool:  # NumPy's truth of each value (0.5 is True)
        flat = [builtins.bool(v) for v in flat]
    elif d not in dt.FLOATING + dt.COMPLEX and builtins.any(isinstance(v, float) for v in flat):
        flat = [int(v) for v in flat]
    return _cgrad._from_flat_list(flat, shape, d._c, _dev(device))


def _as_array_arg(x):
    """x itself when it is an Array, else asarray(x): how functions beyond the standard take
    NumPy arrays, lists and scalars; lists and tuples as NumPy reads them (_as_numpy_reads)."""
    if isinstance(x, Array):
        return x
    return _as_numpy_reads(x) if isinstance(x, (list, tuple)) else asarray(x)


def _as_numpy_reads(obj, device=None):
    """A list or tuple as an array of the dtype NumPy reads it in: Python floats as float64 and
    complex numbers as complex128 (asarray's defaults are float32 and complex64), ints as int64.
    So a list beside a float64 array, in an operator (`x + [0.1]`) or a function (`quantile(x,
    [0.2, 0.7])`), keeps its values (until 2026-12-07 they were rounded to float32 there). Lists
    of Arrays stack as asarray's do."""
    if not isinstance(obj, (list, tuple)) or _holds_array(obj):
        return asarray(obj, device=device)
    try:
        import numpy as np
    except ImportError:  # cgrad's own walk of the items, widened to NumPy's dtypes
        _, _, d = _infer(obj)
        wide = {dt.float32: dt.float64, dt.complex64: dt.complex128}
        return asarray(obj, dtype=wide.get(d, d), device=device)
    a = np.asarray(obj)  # NumPy's reading itself (`x + [1.0] * 10` took 25 us through the walk, 7 so)
    if a.dtype.kind not in "biufc":
        raise TypeError(f"cgrad has no dtype for {a.dtype.name} values")
    return asarray(a, device=device)


def _finish(x, want, device, copy):
    """x (an Array) with asarray's dtype, device and copy arguments applied."""
    moves = _moves(x, device, copy)
    if want is not None and want is not x.dtype:
        if copy is False:
            raise ValueError("asarray: a dtype change needs a copy and copy=False")
        x = x.astype(want)
    elif copy and not moves:
        x = _copy(x)
    return _to(x, device)


def _holds_array(obj):
    """Whether a nested list or tuple has Arrays among its items: checked at each level along the
    first items only (O(depth x width), not a walk of every element: a 1000 x 1000 list of floats
    took 40% longer to convert with the full walk). A 0-d Array elsewhere still converts, by value."""
    while isinstance(obj, (list, tuple)) and obj:
        if builtins.any(isinstance(e, Array) for e in obj):
            return True
        obj = obj[0]
    return False


def _native(a):
    """A NumPy array DLPack can export: contiguous, in the machine's byte order (a big-endian
    array, '>f4', is converted, as jax.numpy.asarray does); a dtype cgrad has no counterpart for
    (object, datetime, structured, longdouble) raises TypeError."""
    import numpy as np

    if a.dtype.kind not in "biufc" or a.dtype.itemsize > 16 or (a.dtype.kind == "f" and a.dtype.itemsize > 8):
        raise TypeError(f"asarray: NumPy dtype {a.dtype} has no cgrad counterpart")
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return np.ascontiguousarray(a)


def _moves(x, device, copy):
    """Whether asarray's `device` is another than x's; with copy=False that is an error."""
    moves = device is not None and _dev(device) != x.device
    if moves and copy is False:
        raise ValueError(f"asarray: moving the data to {device} needs a copy and copy=False")
    return moves


def _to(x, device):
    return x if device is None or _dev(device) == x.device else x.to_device(_dev(device))


def _copy(x):
    return x._clone()


def from_dlpack(x, /, *, device=None, copy=None):
    """Imports `x` (an object with __dlpack__, or a DLPack capsule) without copying: the result
    reads the producer's memory, and the producer's deleter runs when cgrad drops it."""
    if isinstance(x, Array):
        return _copy(x) if copy else x
    if hasattr(x, "__dlpack__"):
        kw = {}
        if copy is not None:
            kw["copy"] = copy
        try:
            cap = x.__dlpack__(max_version=(1, 0), **kw)
        except TypeError:
            cap = x.__dlpack__(**kw)
    else:
        cap = x
    out = _cgrad._from_capsule(cap)
    return out if device is None else out.to_device(_dev(device))


def zeros(shape, *, dtype=None, device=None):
    return _cgrad._full(_shape(shape), 0.0, _default_dtype(dtype)._c, _dev(device))


def ones(shape, *, dtype=None, device=None):
    return _cgrad._full(_shape(shape), 1.0, _default_dtype(dtype)._c, _dev(device))


empty = zeros


def full(shape, fill_value, *, dtype=None, device=None):
    if dtype is None:
        dtype = (dt.bool if isinstance(fill_value, builtins.bool) else dt.int64 if isinstance(fill_value, int)
                 else dt.complex64 if isinstance(fill_value, complex) else dt.float32)
    d = dt.as_dtype(dtype)
    if d in dt.COMPLEX:  # cplxfn: its two parts as constants, joined by complex()
        z = complex(fill_value)
        r = dt._real_of(d)._c
        return _cgrad._complex(_cgrad._full(_shape(shape), z.real, r, _dev(device)),
                               _cgrad._full(_shape(shape), z.imag, r, _dev(device)))
    if isinstance(fill_value, complex):
        raise TypeError(f"full: a complex fill value needs a complex dtype, not {d.name}")
    if d in dt.INTEGRAL and not dt.iinfo(d).min <= fill_value <= dt.iinfo(d).max:
        raise OverflowError(f"full: {fill_value} does not fit in {d.name}")
    return _cgrad._full(_shape(shape), float(fill_value), d._c, _dev(device))


def zeros_like(x, /, *, dtype=None, device=None):
    return zeros(x.shape, dtype=dtype or x.dtype, device=device or x.device)


def ones_like(x, /, *, dtype=None, device=None):
    return ones(x.shape, dtype=dtype or x.dtype, device=device or x.device)


empty_like = zeros_like


def full_like(x, /, fill_value, *, dtype=None, device=None):
    return full(x.shape, fill_value, dtype=dtype or x.dtype, device=device or x.device)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = dt.float32 if builtins.any(isinstance(v, float) for v in (start, stop, step)) else dt.int64
    d = dt.as_dtype(dtype)
    n = builtins.max(0, math.ceil((stop - start) / step))
    r = _cgrad._arange(n, d._c, _dev(device))
    if step != 1:
        r = r * step
    if start != 0:
        r = r + start
    return r


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    n_cols = n_rows if n_cols is None else n_cols
    i = _cgrad._arange(n_rows, dt.int64._c, _dev(device))._reshape([n_rows, 1])
    j = _cgrad._arange(n_cols, dt.int64._c, _dev(device))._reshape([1, n_cols])
    return (j - i == k).astype(_default_dtype(dtype))


def linspace(start, stop, /, num=50, *, dtype=None, device=None, endpoint=True, retstep=False, axis=0):
    """retstep and axis: NumPy's ((samples, step); the one axis of scalar endpoints, 0 or -1).
    Array endpoints (NumPy's, since 2026-12-07; a one-element array was read as a number before,
    dropping its dims): the samples of each pair of broadcast endpoints along a new `axis`."""
    if _is_array_like(start) or _is_array_like(stop):
        return _linspace_arrays(start, stop, num, dtype, device, endpoint, retstep, axis)
    if axis not in (0, -1):
        raise ValueError(f"linspace: axis must be 0 or -1 for scalar endpoints, got {axis}")
    r = _linspace(start, stop, num, dtype, device, endpoint)
    if not retstep:
        return r
    div = (num - 1) if endpoint else num
    return r, ((stop - start) / div if div > 0 else float("nan"))


def _is_array_like(v):
    """An endpoint with dims: an Array, a NumPy array or a sequence (not a number, 0-d or not)."""
    return isinstance(v, (list, tuple)) or getattr(v, "ndim", 0) > 0


def _linspace_arrays(start, stop, num, dtype, device, endpoint, retstep, axis):
    """linspace of array endpoints: start + i * step along a new leading axis (the last sample
    `stop`), moved to `axis`; in the endpoints' floating dtype (float64 for integers, as NumPy)."""
    s, e = _as_array_arg(start), _as_array_arg(stop)
    device = device if device is not None else s.device
    d = dt.as_dtype(dtype) if dtype is not None else dt.result_type(s.dtype, e.dtype)
    if dtype is None and d not in dt.FLOATING + dt.COMPLEX:
        d = dt.float64
    work = d if d in dt.FLOATING + dt.COMPLEX else dt.float64
    if work in dt.HALF:
        work = dt.float32
    s, e = s.astype(work), e.astype(work)
    div = (num - 1) if endpoint else num
    step = (e - s) / div if div > 0 else e * float("nan")
    shape = broadcast_shapes(tuple(s.shape), tuple(e.shape))
    i = _cgrad._arange(num, dt.int64._c, _dev(device))._reshape([num] + [1] * len(shape))
    r = i.astype(work) * (step if div > 0 else zeros_like(step)) + s
    if endpoint and num > 1:
        r = _cgrad._where(i == num - 1, broadcast_to(e, shape), r)
    r = moveaxis(r.astype(d), 0, axis)
    return (r, step) if retstep else r


def _linspace(start, stop, num, dtype, device, endpoint):
    cplx = isinstance(start, complex) or isinstance(stop, complex)  # cplxfn: computed in complex128
    d = _default_dtype(dtype, dt.complex64 if cplx else None)
    cplx = cplx or d in dt.COMPLEX
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    r = _cgrad._arange(num, dt.float64._c, _dev(device))
    if cplx:
        r = r.astype(dt.complex128)
    r = r * (complex(step) if cplx else step) + (complex(start) if cplx else start)
    if endpoint and num > 1:
        r = _cgrad._where(_cgrad._arange(num, dt.int64._c, _dev(device)) == num - 1,
                          complex(stop) if cplx else float(stop), r)
    return r.astype(d)


def rand(*shape, dtype=None, device=None):
    """Uniform in [0, 1) (deterministic for a given manual_seed and call order)."""
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    return _cgrad._rand(_shape(shape), _default_dtype(dtype)._c, _dev(device))


def randn(*shape, dtype=None, device=None):
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    return _cgrad._randn(_shape(shape), _default_dtype(dtype)._c, _dev(device))


# ---- element-wise composites of C++ ops ----
def clip(x, /, min=None, max=None):
    if x.dtype in dt.INTEGRAL:  # a Python int bound past the dtype's range on its own side clips nothing
        info = dt.iinfo(x.dtype)
        if isinstance(min, int) and not isinstance(min, bool) and min < info.min:
            min = None
        if isinstance(max, int) and not isinstance(max, bool) and max > info.max:
            max = None
    if min is not None:
        x = _cgrad.maximum(x, min if isinstance(min, Array) else _scalar_as(min, x))
    if max is not None:
        x = _cgrad.minimum(x, max if isinstance(max, Array) else _scalar_as(max, x))
    elif min is None:
        x = x._cast(x.dtype._c)  # a new array: an assignment to it leaves the argument as it was
    return x


def _scalar_as(v, x):
    return float(v) if x.dtype in dt.FLOATING else v


def where(condition, x1=None, x2=None, /):
    """The standard's where(condition, x1, x2); NumPy's where(condition) alone is nonzero(condition)
    (since 2026-12-07)."""
    if x1 is None and x2 is None:
        return nonzero(asarray(condition))
    if x1 is None or x2 is None:
        raise ValueError("where: either both or neither of x1 and x2 should be given")
    return _cgrad._where(condition, x1, x2)


def astype(x, dtype, /, *, copy=True, device=None):
    """device: where the result lives (the standard's; ignored until 2026-12-07)."""
    d = dt.as_dtype(dtype)
    if d is x.dtype and not copy and (device is None or _dev(device) == x.device):
        return x
    return _to(x._cast(d._c), device)


# ---- reductions (Array API signatures) ----
def _reduce(name, x, axis, keepdims):
    return getattr(_cgrad, "_" + name)(x, axis, keepdims)


def _reduce_in(name, x, axis, keepdims, dtype):
    """sum and prod with a `dtype` (_array._reduce_in); not an array: _reduce's TypeError."""
    fn = getattr(_cgrad, "_" + name)
    return _array_reduce_in(fn, x, axis, keepdims, dtype if isinstance(x, Array) else None)


def _with_initial(reduce, x, axis, keepdims, initial, combine):
    """reduce() with NumPy's `initial` combined into each result (sum: added, prod: multiplied,
    max/min: the larger/smaller); max and min over an empty axis (no identity) give it alone."""
    if initial is None:
        return reduce()
    axes = builtins.range(x.ndim) if axis is None else (axis if isinstance(axis, (tuple, list)) else (axis,))
    if combine in (_cgrad.maximum, _cgrad.minimum) and builtins.any(
            x.shape[operator.index(a) % x.ndim] == 0 for a in axes):
        shape = _cgrad._sum(zeros(x.shape, dtype=dt.int8, device=x.device), axis, keepdims).shape
        return full(tuple(shape), initial, dtype=x.dtype, device=x.device)
    r = reduce()
    return combine(r, asarray(initial, dtype=r.dtype, device=r.device))


def _where_mask(x, where, fn):
    """NumPy's `where=` of a reduction: None for True (every element), else a bool array of x's
    shape (broadcast to it; NumPy's TypeError for a mask that is not bool). The reductions take the
    masked-out elements as their identity (sum 0, prod 1, any False, all True, max/min `initial`),
    mean, var and std count the elements kept (since 2026-12-08; TypeError before). The callers
    test `where is not True` first, so the default costs one comparison."""
    if where is True:
        return None
    m = where if isinstance(where, Array) else asarray(where, device=x.device)
    if m.dtype is not dt.bool:
        raise TypeError(f"{fn}: where= must be a bool array, got {m.dtype}")
    return broadcast_to(m, tuple(x.shape))


def _masked(x, m, fill):
    """x where m holds, fill elsewhere (x's dtype)."""
    return _cgrad._where(m, x, full_like(x, fill))


def sum(x, /, *, axis=None, dtype=None, keepdims=False, initial=None, where=True):
    """initial: NumPy's, added to each sum; where: NumPy's (_where_mask)."""
    if where is not True:
        x = _masked(x, _where_mask(x, where, "sum"), 0)
    return _with_initial(lambda: _reduce_in("sum", x, axis, keepdims, dtype), x, axis, keepdims, initial,
                         _cgrad.add)


def mean(x, /, *, axis=None, keepdims=False, dtype=None, where=True):
    """Integers and bools give float64 (NumPy's; the standard defines floating input only); dtype
    (NumPy's) casts first and is the result's; where: NumPy's, the mean of the elements kept (NaN
    where none is)."""
    if where is not True:
        m = _where_mask(x, where, "mean")
        return _masked_mean(x if dtype is None else x.astype(dtype), m, axis, keepdims)
    return _mean(x, axis, keepdims) if dtype is None else _array_reduce_in(_mean, x, axis, keepdims, dtype)


def _extreme_mask(x, where, initial, fn):
    """x with the elements where= leaves out set to `initial`, which NumPy requires then (max and
    min have no identity)."""
    m = _where_mask(x, where, fn)
    if initial is None:
        raise ValueError(f"reduction operation '{fn}imum' does not have an identity, so to use a where mask one has "
                         "to specify 'initial'")
    return _masked(x, m, initial)


def max(x, /, *, axis=None, keepdims=False, initial=None, where=True):
    """initial: NumPy's, the result's floor (and the result over an empty axis); where: NumPy's
    (initial required with it)."""
    if where is not True:
        x = _extreme_mask(x, where, initial, "max")
    return _with_initial(lambda: _reduce("max", x, axis, keepdims), x, axis, keepdims, initial, _cgrad.maximum)


def min(x, /, *, axis=None, keepdims=False, initial=None, where=True):
    """initial: NumPy's, the result's ceiling (and the result over an empty axis); where: NumPy's
    (initial required with it)."""
    if where is not True:
        x = _extreme_mask(x, where, initial, "min")
    return _with_initial(lambda: _reduce("min", x, axis, keepdims), x, axis, keepdims, initial, _cgrad.minimum)


def prod(x, /, *, axis=None, dtype=None, keepdims=False, initial=None, where=True):
    """initial: NumPy's, multiplying each product; where: NumPy's (_where_mask)."""
    if where is not True:
        x = _masked(x, _where_mask(x, where, "prod"), 1)
    return _with_initial(lambda: _reduce_in("prod", x, axis, keepdims, dtype), x, axis, keepdims, initial,
                         _cgrad.multiply)


def var(x, /, *, axis=None, correction=0.0, keepdims=False, ddof=None, dtype=None, mean=None, where=True):
    """ddof: NumPy's name for `correction` (either may be given). Beyond the standard's floating
    input, NumPy's: integers and bools in float64, complex values as the mean squared modulus of
    the deviations (the real parts' variance plus the imaginary parts'), of the real dtype; dtype
    (NumPy's) the dtype computed in; mean (NumPy's, since 2026-12-07): the mean, with the reduced
    axes kept, not computed again (the squared deviations from it summed, divided by N - ddof);
    where: NumPy's, the variance of the elements kept (N their count)."""
    x = x.astype(dtype) if dtype is not None and isinstance(x, Array) else x
    x, c = _numeric_stat(x), _correction(correction, ddof)
    if where is not True:
        m = _where_mask(x, where, "var")
        sq = _squared_modulus(_masked(x - (_masked_mean(x, m, axis, True) if mean is None else mean), m, 0))
        count = _reduce("sum", m.astype(sq.dtype), axis, keepdims)
        return _reduce("sum", sq, axis, keepdims) / _cgrad.maximum(count - c, 0.0)
    if mean is not None:
        sq = _squared_modulus(x - mean)
        axes = builtins.range(x.ndim) if axis is None else _axes_in(x, axis, "var")
        n = math.prod(x.shape[a] for a in axes)
        return sum(sq, axis=axis, keepdims=keepdims) / builtins.max(n - c, 0)
    if isinstance(x, Array) and x.dtype in dt.COMPLEX:
        return _cgrad._var(_cgrad.real(x), axis, c, keepdims) + _cgrad._var(_cgrad.imag(x), axis, c, keepdims)
    return _cgrad._var(x, axis, c, keepdims)


def _squared_modulus(d):
    """|d|^2 of the deviations: real, the parts' squares summed for complex d."""
    return _cgrad.real(d) ** 2 + _cgrad.imag(d) ** 2 if d.dtype in dt.COMPLEX else d * d


def std(x, /, *, axis=None, correction=0.0, keepdims=False, ddof=None, dtype=None, mean=None, where=True):
    """var's square root (var's dtypes, `mean` and `where`); gradient 0 where the data are constant, as the core's."""
    x = _numeric_stat(x.astype(dtype) if dtype is not None and isinstance(x, Array) else x)
    if mean is not None or where is not True or (isinstance(x, Array) and x.dtype in dt.COMPLEX):
        return _sqrt_of_variance(var(x, axis=axis, correction=correction, keepdims=keepdims, ddof=ddof, mean=mean,
                                     where=where))
    return _cgrad._std(x, axis, _correction(correction, ddof), keepdims)


def _correction(correction, ddof):
    """The degrees of freedom removed, from the standard's `correction` or NumPy's `ddof`: one may
    be given, or both where one is 0 (NumPy's rule; until 2026-12-07 `ddof=0, correction=1` took
    the 0)."""
    if ddof is not None and ddof != 0 and correction != 0:
        raise ValueError("ddof and correction can't be provided simultaneously")
    return float(ddof if ddof else correction)


def _sqrt_of_variance(v):
    """sqrt(v) with gradient 0 where v is 0 (constant data), as the core's std (not sqrt's infinite
    slope times 0): the std of the composites (complex std, nanstd)."""
    flat = v == 0
    return where(flat, 0.0, _cgrad.sqrt(where(flat, 1.0, v)))


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    d = None if dtype is None else dt.as_dtype(dtype)._c
    return _cgrad._cumulative_sum(x, axis, d, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    d = None if dtype is None else dt.as_dtype(dtype)._c
    return _cgrad._cumulative_prod(x, axis, d, include_initial)


def _as_bool(r):
    return r if r.dtype is dt.bool else r.astype(dt.bool)


def _truth(x):
    return x if x.dtype is dt.bool else x != 0


def all(x, /, *, axis=None, keepdims=False, where=True):
    """where: NumPy's, the elements left out count as True."""
    if where is not True:
        x = _cgrad.logical_or(_cgrad.logical_not(_where_mask(x, where, "all")), _truth(x))
    return _as_bool(_reduce("all", x, axis, keepdims))  # axis=(): x itself, as bool


def any(x, /, *, axis=None, keepdims=False, where=True):
    """where: NumPy's, the elements left out count as False."""
    if where is not True:
        x = _cgrad.logical_and(_where_mask(x, where, "any"), _truth(x))
    return _as_bool(_reduce("any", x, axis, keepdims))


def count_nonzero(x, /, *, axis=None, keepdims=False):
    if axis is not None and not isinstance(axis, int) and len(axis) == 0:
        return (x != 0).astype(dt.int64)
    return _reduce("count_nonzero", x, axis, keepdims)


def _arg(fn, x, axis, keepdims):
    if axis is not None:
        return fn(x, axis, keepdims)
    r = fn(x._reshape([-1]), 0, False)  # over the flattened array
    return r._reshape([1] * x.ndim) if keepdims else r


def argmax(x, /, *, axis=None, keepdims=False):
    return _arg(_cgrad._argmax, x, axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    return _arg(_cgrad._argmin, x, axis, keepdims)


# ---- sorting and set functions (group sort) ----
_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _kind(kind, order, fn):
    """NumPy's sort `kind`: every one is cgrad's stable sort (a stable order is one any kind may
    give); `order` (fields of structured arrays, which cgrad has not) must be None, as NumPy's
    error says for arrays without fields."""
    if kind not in _KINDS:
        raise ValueError(f"{fn}: kind must be one of {_KINDS[1:]}, got {kind!r}")
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def sort(x, /, *, axis=-1, descending=False, stable=True, kind=None, order=None):
    _kind(kind, order, "sort")
    return _cgrad._sort(x, axis, descending, stable)


def argsort(x, /, *, axis=-1, descending=False, stable=True, kind=None, order=None):
    _kind(kind, order, "argsort")
    return _cgrad._argsort(x, axis, descending, stable)


UniqueAllResult = collections.namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = collections.namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


# The set functions evaluate x (data-dependent shapes: docs/semantics.md) and return realized arrays.
def unique_all(x, /):
    return UniqueAllResult(*_cgrad._unique_all(x))


def unique_counts(x, /):
    return UniqueCountsResult(*_cgrad._unique_counts(x))


def unique_inverse(x, /):
    return UniqueInverseResult(*_cgrad._unique_inverse(x))


def unique_values(x, /):
    return _cgrad._unique_values(x)


# ---- indexing and searching (issue #15): take is a gather fused into its consumer; nonzero
# evaluates its input (a data-dependent shape, docs/python.md) ----
def take(x, indices, /, *, axis=None, mode=None):
    """The standard's take; an index outside [-n, n) gives 0 (docs/semantics.md). NumPy's `mode`:
    "wrap" takes indices modulo n, "clip" clips them to [0, n - 1], "raise" evaluates them and
    raises IndexError for one outside [-n, n) (NumPy's default; cgrad's stays the lazy fill).
    Indices given on the host (a list, a NumPy array) are checked as "raise" does without a mode
    (NumPy's default, free: their values are known; since 2026-12-07)."""
    ax = 0 if axis is None else operator.index(axis) % builtins.max(x.ndim, 1)
    n = x.shape[ax] if x.ndim else 1
    if not isinstance(indices, Array):
        if mode in (None, "raise") and (axis is not None or x.ndim <= 1):  # (else the core's error: no axis)
            _check_host_indices_of_axis(indices, n, ax)
            mode = None
        indices = asarray(indices, dtype=dt.int64, device=x.device)
    if mode is None:
        return _cgrad._take(x, indices, axis)
    if mode not in ("wrap", "clip", "raise"):
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    if mode == "wrap":
        indices = indices % n if n else indices
    elif mode == "clip":
        indices = clip(indices, 0, builtins.max(n - 1, 0))
    elif indices.size and (int(max(indices)) >= n or int(min(indices)) < -n):
        raise IndexError(f"take: an index is out of bounds for an axis of size {n}")
    return _cgrad._take(x, indices, axis)


def take_along_axis(x, indices, /, *, axis=-1):
    """indices: an integer Array (out of range reads 0, take's fill), or (NumPy's) a NumPy array
    or list, whose values out of range raise IndexError (since 2026-12-07; they raised TypeError)."""
    if not isinstance(indices, Array):
        ax = operator.index(axis) % builtins.max(x.ndim, 1)
        _check_host_indices_of_axis(indices, x.shape[ax] if x.ndim else 1, ax)
        indices = asarray(indices, dtype=dt.int64, device=x.device)
    return _cgrad._take_along_axis(x, indices, axis)


# scatter group (issue #15), beyond the standard: the inverses of take and take_along_axis, a copy
# of x with `values` added at `indices` (repeats accumulate in order; out-of-range ones add nothing)
def scatter_add(x, indices, values, /, *, axis=None):
    if axis is None:
        if x.ndim != 1:
            raise ValueError("scatter_add: axis is required for more than one dimension")
        axis = 0
    return _cgrad._scatter_add(x, indices, values, axis)


def scatter_add_along_axis(x, indices, values, /, *, axis=-1):
    return _cgrad._scatter_add_along_axis(x, indices, values, axis)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """sorter: an integer Array, or (NumPy's) a NumPy array or list, whose values out of range
    raise NumPy's ValueError (since 2026-12-07; they raised TypeError)."""
    if sorter is not None:
        if not isinstance(sorter, Array):
            try:
                _check_host_indices_of_axis(sorter, x1.shape[0] if x1.ndim else 1)
            except IndexError:
                raise ValueError("Sorter index out of range.") from None
            sorter = asarray(sorter, dtype=dt.int64, device=x1.device)
        x1 = _cgrad._take(x1, sorter, 0)
    if not isinstance(x2, Array):  # a Python scalar: of x1's kind, as a binary operator takes it
        x2 = asarray(x2, dtype=x1.dtype if not (isinstance(x2, float) and x1.dtype in dt.INTEGRAL) else None,
                     device=x1.device)
    return _cgrad._searchsorted(x1, x2, side)


def nonzero(x, /):
    return tuple(_cgrad._nonzero(x))


# ---- shapes ----
def reshape(x, /, shape, *, copy=None, order="C"):
    """order: NumPy's; "F" reads and writes the elements with the first index fastest ("A" is "C":
    cgrad arrays have no memory order)."""
    if order == "F":  # the reversed axes reshaped in C order, reversed back
        rev = list(builtins.range(x.ndim))[::-1]
        y = x._permute(rev)._reshape(_shape(shape)[::-1])
        return y._permute(list(builtins.range(y.ndim))[::-1])
    if order not in ("C", "A"):
        raise ValueError(f"reshape: order must be one of 'C', 'F', 'A', got {order!r}")
    return x._reshape(_shape(shape))


def permute_dims(x, /, axes=None):
    """axes: a permutation of x's axes; NumPy's default None reverses them."""
    return x._permute(list(builtins.range(x.ndim))[::-1] if axes is None else list(axes))


def matrix_transpose(x, /):
    return x.mT


def broadcast_to(x, /, shape):
    shape = tuple(_shape(shape))
    if x.ndim < len(shape):
        x = x._reshape([1] * (len(shape) - x.ndim) + list(x.shape))
    return x._expand(list(shape))  # a new array even where the shape is x's (x[...] = v on it leaves x)


def broadcast_arrays(*arrays):
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(broadcast_to(a, shape) for a in arrays)  # (a tuple since the 2025.12 standard, as NumPy 2's)


def broadcast_shapes(*shapes):
    n = builtins.max((len(s) for s in shapes), default=0)
    out = []
    for i in range(n):
        dims = {s[len(s) - n + i] for s in shapes if len(s) - n + i >= 0} - {1}
        if len(dims) > 1:
            raise ValueError(f"shapes {shapes} do not broadcast")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def expand_dims(x, /, axis=0):
    """x with a dim of size 1 at `axis`, or at each axis of a tuple (the standard's 2025.12, NumPy's:
    the axes index the result, whose ndim is x.ndim + len(axis); out of range or repeated: IndexError,
    ValueError)."""
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    n = x.ndim + len(axes)
    normal = []
    for a in axes:
        a = operator.index(a)
        if not -n <= a < n:
            raise IndexError(f"expand_dims: axis {a} out of range for a {n}-D result")
        normal.append(a % n)
    if len(set(normal)) != len(normal):
        raise ValueError(f"expand_dims: repeated axis in {axes}")
    dims = iter(x.shape)
    return x._reshape([1 if d in normal else next(dims) for d in range(n)])


def _axes_in(x, axis, fn):
    """`axis` (an int or a sequence of ints) as a list of axes of x in [0, ndim); an axis out of
    range or named twice raises InvalidArgumentError, as the C++ functions do (NumPy: AxisError)."""
    axes = [operator.index(a) for a in ((axis,) if isinstance(axis, int) else axis)]
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise _cgrad.InvalidArgumentError(f"{fn}: axis {a} out of range for shape {tuple(x.shape)}")
    out = [a % x.ndim for a in axes]
    if len(set(out)) != len(out):
        raise _cgrad.InvalidArgumentError(f"{fn}: repeated axis in {list(axes)} for shape {tuple(x.shape)}")
    return out


def squeeze(x, /, axis=None):
    """axis: an int or a tuple (each of size 1); NumPy's default None removes every axis of size 1."""
    if axis is None:
        axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
    axes = _axes_in(x, axis, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1")
    return x._reshape([s for i, s in enumerate(x.shape) if i not in axes])


def flip(x, /, *, axis=None):
    if axis is None:
        return _cgrad._flip(x, [])  # every axis
    axes = [axis] if isinstance(axis, int) else list(axis)
    return _cgrad._flip(x, axes) if axes else x._reshape(list(x.shape))  # () flips nothing: a new array


def _numpy_safe(f, t):
    """NumPy's "safe" casts: the standard's (within a kind, to a wider dtype), bool to anything, and
    integers to floats whose significand holds them (NumPy counts int64 -> float64 as safe too)."""
    if dt.can_cast(f, t) or f is dt.bool:
        return True
    if f in dt.INTEGRAL and t in dt.FLOATING + dt.COMPLEX:
        r = dt._real_of(t)
        return r is dt.float64 or f.itemsize * 8 <= {dt.float16: 11, dt.bfloat16: 8, dt.float32: 24}.get(r, 0)
    return False


def _numpy_can_cast(f, t, casting):
    """NumPy's can_cast(f, t, casting) over cgrad's dtypes: "same_kind" takes the safe casts and
    those within a kind or to a higher one (float64 -> float32, int64 -> float16), not to a lower
    one (float -> int) nor signed -> unsigned integers (another kind to NumPy)."""
    if casting == "unsafe":
        return True
    if casting in ("no", "equiv"):
        return f is t
    if _numpy_safe(f, t) or casting == "safe":
        return _numpy_safe(f, t)
    return dt._category(f) <= dt._category(t) and not (f.kind == dt.int8.kind and t.kind == dt.uint8.kind)


def _cast_all(arrays, dtype, casting, fn):
    """NumPy's dtype= of the joining functions: each array cast to it first, under NumPy's casting
    rule (default "same_kind"; "unsafe" allows every cast)."""
    arrays = list(arrays)
    if dtype is None:
        return arrays
    d = dt.as_dtype(dtype)
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError(f"{fn}: casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe'")
    for a in arrays:
        if not _numpy_can_cast(a.dtype, d, casting):
            raise TypeError(f"{fn}: cannot cast {a.dtype} to {d} under casting={casting!r}")
    return [astype(a, d) for a in arrays]


def concat(arrays, /, *, axis=0, dtype=None, casting="same_kind"):
    """dtype and casting (NumPy's): each array cast to dtype first."""
    arrays = _cast_all(arrays, dtype, casting, "concat")
    if axis is None:
        arrays = [a._reshape([-1]) for a in arrays]
        axis = 0
    return _cgrad._cat(arrays, axis)


def stack(arrays, /, *, axis=0, dtype=None, casting="same_kind"):
    """dtype and casting (NumPy's): each array cast to dtype first."""
    arrays = _cast_all(arrays, dtype, casting, "stack")
    n = arrays[0].ndim + 1
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis % n)


# ---- manipulation and triangles (manip group, issue #15): C++ composites of fused ops ----
def _axes(a):
    return [int(a)] if isinstance(a, int) else [int(v) for v in a]


@_writes_out
def einsum(*operands, optimize=False, dtype=None, out=None):
    """NumPy's einsum: subscripts ("ij,jk->ik", `...` for broadcast dims, implicit output without
    "->") then the operands, or NumPy's sublist form (op0, [0, 1], op1, [1, 2], [0, 2]). C++
    cgrad::einsum, composed of views, sums and batched matmuls (lazy, fused, differentiable). Pairs
    are contracted in the operands' order; with `optimize` (True, "greedy" or "optimal") three or more
    operands without `...` go in the greedy order instead: at each step the pair whose result is
    smallest. `dtype` casts the operands first. Operands that are not arrays go through asarray.
    NumPy's `out` is written (_array._writes_out)."""
    if not operands:
        raise TypeError("einsum: needs subscripts and operands")
    if isinstance(operands[0], str):
        subscripts, arrays = operands[0], list(operands[1:])
    else:
        subscripts, arrays = _einsum_sublists(operands)
    arrays = [_as_array_arg(o) for o in arrays]
    if dtype is not None:
        arrays = [astype(a, dtype) for a in arrays]
    if optimize not in (False, None, "no") and len(arrays) > 2 and "." not in subscripts:
        return _einsum_greedy(subscripts.replace(" ", ""), arrays)
    return _cgrad._einsum(subscripts, arrays)


def _einsum_letter(k):
    if not isinstance(k, int) or isinstance(k, builtins.bool) or not 0 <= k < 52:
        raise ValueError(f"einsum: a sublist holds integers in [0, 52) or Ellipsis, got {k!r}")
    return chr(ord("a") + k) if k < 26 else chr(ord("A") + k - 26)


def _einsum_sublists(args):
    """NumPy's sublist form (op, sublist, op, sublist, ..., [output sublist]) as subscripts."""
    args = list(args)
    out = args.pop() if len(args) % 2 == 1 else None
    def word(sub):
        return "".join("..." if k is Ellipsis else _einsum_letter(k) for k in sub)
    inputs = [word(args[i + 1]) for i in builtins.range(0, len(args), 2)]
    subscripts = ",".join(inputs) + ("" if out is None else "->" + word(out))
    return subscripts, args[0::2]


def _einsum_greedy(subscripts, arrays):
    """Three or more operands contracted pairwise in _einsum_greedy_path's order."""
    inputs, _, output = subscripts.partition("->")
    words = inputs.split(",")
    if len(words) != len(arrays):
        return _cgrad._einsum(subscripts, arrays)  # the C++ parser says what is wrong
    if "->" not in subscripts:
        output = _einsum_implicit_output(words)
    words, arrays = list(words), list(arrays)
    for i, j, kept in _einsum_greedy_path(words, output, [a.shape for a in arrays]):
        r = _cgrad._einsum(f"{words[i]},{words[j]}->{kept}", [arrays[i], arrays[j]])
        words = [w for k, w in enumerate(words) if k not in (i, j)] + [kept]
        arrays = [a for k, a in enumerate(arrays) if k not in (i, j)] + [r]
    return _cgrad._einsum(f"{words[0]}->{output}", arrays)


def _einsum_implicit_output(words):
    counts = collections.Counter("".join(words))
    return "".join(sorted(c for c, k in counts.items() if k == 1))


def _einsum_greedy_path(words, output, shapes):
    """The greedy order (also einsum_path's): at each step the pair whose result is smallest (the
    letters a pair keeps: those the other operands or the output still need). Steps (i, j, kept):
    positions in the current list, from which i and j go and to whose end their result comes
    (NumPy's path convention)."""
    size = {}
    for w, shape in zip(words, shapes):
        for c, d in zip(w, shape):
            size[c] = builtins.max(size.get(c, 1), d)
    words, steps = list(words), []
    while len(words) > 1:
        best = None
        for i in builtins.range(len(words)):
            for j in builtins.range(i + 1, len(words)):
                others = set(output).union(*(words[k] for k in builtins.range(len(words)) if k not in (i, j)))
                kept = "".join(dict.fromkeys(c for c in words[i] + words[j] if c in others))
                cost = math.prod(size[c] for c in kept)
                if best is None or cost < best[0]:
                    best = (cost, i, j, kept)
        _, i, j, kept = best
        steps.append((i, j, kept))
        words = [w for k, w in enumerate(words) if k not in (i, j)] + [kept]
    return steps


def moveaxis(x, source, destination, /):
    return _cgrad._moveaxis(x, _axes(source), _axes(destination))


def roll(x, /, shift, *, axis=None):
    """The standard's roll, with NumPy's broadcasting of `shift` and `axis`: one shift for every
    axis named (the standard's rule; it raised before 2026-12-07), one axis for every shift, and an
    axis named twice moves by the sum. Shifts are reduced modulo the axis' length (Python ints of any
    size, NumPy integers). Without `axis`, the flattened array moves and reshapes back."""
    shifts = [operator.index(v) for v in (shift if isinstance(shift, (tuple, list)) else (shift,))]
    if axis is None:
        n = math.prod(x.shape)
        return _cgrad._roll(x, [builtins.sum(shifts) % n if n else 0], [])
    axes = [operator.index(a) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    elif len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: shift {tuple(shifts)} and axis {tuple(axes)} do not broadcast together")
    total = {}
    for a, s in zip(axes, shifts):
        if not -x.ndim <= a < x.ndim:
            raise _cgrad.InvalidArgumentError(f"roll: axis {a} out of range for shape {tuple(x.shape)}")
        total[a % x.ndim] = total.get(a % x.ndim, 0) + s
    if not total:
        return x._reshape(list(x.shape))  # no axes and no shifts: nothing moves (a new array)
    axes = list(total)
    return _cgrad._roll(x, [total[a] % x.shape[a] if x.shape[a] else 0 for a in axes], axes)


def tile(x, repetitions, /):
    """repetitions: a tuple of ints, or (NumPy's) one int (it raised TypeError before 2026-12-07)."""
    reps = [repetitions] if getattr(repetitions, "ndim", 0) == 0 and hasattr(repetitions, "__index__") else repetitions
    if not isinstance(reps, (list, tuple)) and getattr(reps, "ndim", 0) != 1:
        raise TypeError(f"tile: repetitions must be an int or a sequence of ints, got {type(repetitions).__name__}")
    return _cgrad._tile(x, [operator.index(r) for r in reps])


def repeat(x, repeats, /, *, axis=None):
    """`repeats` an int or a 1-D integer array; an array is evaluated here (the output's shape
    depends on its values: a synchronisation point)."""
    if not isinstance(repeats, Array) and (isinstance(repeats, (list, tuple)) or getattr(repeats, "ndim", 0)):
        repeats = asarray(repeats, dtype=dt.int64, device=x.device)  # NumPy's list of counts (raised before 2026-12-07)
        if repeats.shape == (1,):  # one count for every element, as NumPy broadcasts it
            repeats = int(repeats[0])
    if isinstance(repeats, Array):
        return _cgrad._repeat_counts(x, repeats, axis)
    return _cgrad._repeat(x, operator.index(repeats), axis)


def unstack(x, /, *, axis=0):
    return tuple(_cgrad._unstack(x, axis))


def meshgrid(*arrays, indexing="xy", sparse=False, copy=True):
    """sparse (NumPy's): each array shaped to broadcast against the others, not broadcast."""
    if not sparse:  # (a tuple since the 2025.12 standard, as NumPy 2's)
        return tuple(_cgrad._meshgrid(list(arrays), indexing))
    out = []
    for i, a in enumerate(arrays):
        d = (1 - i if i < 2 else i) if indexing == "xy" and len(arrays) > 1 else i
        shape = [1] * len(arrays)
        shape[d] = a.shape[0]
        out.append(reshape(a, tuple(shape)))
    return tuple(out)


def tril(x, /, *, k=0):
    return _cgrad._tril(x, k)


def triu(x, /, *, k=0):
    return _cgrad._triu(x, k)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """prepend/append: arrays, or (NumPy's) scalars, broadcast to x's shape with one along axis."""
    def widen(v):
        if v is None or isinstance(v, Array) and v.ndim:
            return v
        shape = list(x.shape)
        shape[operator.index(axis) % x.ndim] = 1
        if isinstance(v, Array):
            return broadcast_to(v, tuple(shape))
        return full(tuple(shape), v, dtype=dt.result_type(x, v), device=x.device)
    if n == 0:  # x as it is, prepend and append left out (NumPy's; they were joined before 2026-12-07)
        prepend = append = None
    return _cgrad._diff(x, axis, n, widen(prepend), widen(append))


def matmul(x1, x2, /):
    return _cgrad.matmul(x1, x2)


def vecdot(x1, x2, /, *, axis=-1):
    n = builtins.max(x1.ndim, x2.ndim)
    s1, s2 = (1,) * (n - x1.ndim) + tuple(x1.shape), (1,) * (n - x2.ndim) + tuple(x2.shape)
    if not -n <= axis < n:
        raise _cgrad.InvalidArgumentError(f"vecdot: axis {axis} out of range for shapes {tuple(x1.shape)} and "
                                          f"{tuple(x2.shape)}")
    if s1[axis] != s2[axis]:  # the contracted axis does not broadcast (the standard; NumPy's vecdot too)
        raise _cgrad.ShapeError(f"vecdot: axis {axis} has sizes {s1[axis]} and {s2[axis]} in shapes "
                                f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    if x1.dtype in dt.COMPLEX:  # the standard: sum over axis of conj(x1_i) * x2_i
        x1 = _cgrad.conj(x1)
    return sum(x1 * x2, axis=axis).astype(dt.result_type(x1, x2))


def tensordot(x1, x2, /, *, axes=2):
    if not isinstance(axes, int):  # (axes of x1, axes of x2): move them to x1's end and x2's front
        ax1, ax2 = _axes_in(x1, axes[0], "tensordot"), _axes_in(x2, axes[1], "tensordot")
        if len(ax1) != len(ax2):
            raise _cgrad.InvalidArgumentError(f"tensordot: {len(ax1)} axes of x1 against {len(ax2)} of x2")
        x1 = x1._permute([d for d in range(x1.ndim) if d not in ax1] + ax1)
        x2 = x2._permute(ax2 + [d for d in range(x2.ndim) if d not in ax2])
        axes = len(ax1)
    if not 0 <= axes <= builtins.min(x1.ndim, x2.ndim):
        raise _cgrad.InvalidArgumentError(f"tensordot: axes={axes} for arrays of {x1.ndim} and {x2.ndim} dims")
    if x1.shape[x1.ndim - axes:] != x2.shape[:axes]:  # equal products are not enough: (2, 3) . (3, 2)
        raise _cgrad.ShapeError(f"tensordot: contracted dims {tuple(x1.shape[x1.ndim - axes:])} of x1 and "
                                f"{tuple(x2.shape[:axes])} of x2 differ")
    a = x1._reshape([math.prod(x1.shape[: x1.ndim - axes]), math.prod(x1.shape[x1.ndim - axes:])])
    b = x2._reshape([math.prod(x2.shape[:axes]), math.prod(x2.shape[axes:])])
    return _cgrad.matmul(a, b)._reshape(list(x1.shape[: x1.ndim - axes] + x2.shape[axes:]))


# ---- autograd, evaluation and compile ----
class no_grad:  # noqa: N801 (PyTorch's name)
    """Ops on this thread record no gradient history while it is entered: a context manager, and
    (PyTorch's, since 2026-12-07) a decorator, `@cgrad.no_grad()` or `@cgrad.no_grad`."""

    def __new__(cls, fn=None):
        self = super().__new__(cls)
        return self(fn) if callable(fn) else self

    def __init__(self, fn=None):
        self._guards = []

    def __enter__(self):
        g = _cgrad.no_grad()  # the C++ NoGradGuard's holder
        g.__enter__()
        self._guards.append(g)
        return self

    def __exit__(self, *exc):
        self._guards.pop().__exit__(*exc)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with no_grad():
                return fn(*args, **kwargs)
        return wrapped


def grad(y, xs, create_graph=True, *, grad_outputs=None):
    """dy/dx for each x of `xs` (a list of Arrays, or one Array: a list of one), y one element, or
    any shape with `grad_outputs` (PyTorch's: the vector of a vector-Jacobian product, y's shape).
    Until 2026-12-07 one Array for `xs` was read as the sequence of its elements, new arrays y does
    not depend on: `grad(loss, x)` returned zeros."""
    xs = [xs] if isinstance(xs, Array) else list(xs)
    if grad_outputs is not None:
        y = _vjp_sum(y, grad_outputs, "grad")
    return _cgrad.grad(y, xs, create_graph)


def to_dot(outs):
    """Graphviz text of the graph behind `outs`, a list of arrays or one array (one array was read
    as the sequence of its elements before 2026-12-07)."""
    return _cgrad.to_dot([outs] if isinstance(outs, Array) else list(outs))


def compile(fn):
    """Decorator: trace `fn` into a plan on its first call per input signature and replay the
    plan on later calls. The signature is the Arrays' shapes, dtypes and devices and the values
    of the other arguments (numbers, strings, None...: each value traces once, as jax.jit's
    static arguments); Arrays may sit in tuples, lists and dicts, in and out (_compile.py)."""
    import functools

    from . import _compile

    c = _cgrad._compile(fn, _compile.General(fn))
    functools.update_wrapper(c, fn, updated=()) if hasattr(c, "__dict__") else None
    return c


def _half_in_f32(fn):
    """fn(a, ...) with an f16/bf16 `a` computed in float32 and its array results rounded back once
    (PyTorch's rule for 16-bit statistics): their sums would round to 16 bits, and f16's overflow
    past 65504, where the mean or the covariance itself is small."""
    @functools.wraps(fn)
    def wrapped(a, *args, **kwargs):
        a = _as_array_arg(a)
        if a.dtype not in dt.HALF:
            return fn(a, *args, **kwargs)
        r = fn(a.astype(dt.float32), *args, **kwargs)
        def back(v):
            return v.astype(a.dtype) if isinstance(v, Array) and v.dtype == dt.float32 else v
        return tuple(back(v) for v in r) if isinstance(r, tuple) else back(r)
    return wrapped


@_half_in_f32
def _masked_mean(x, m, axis, keepdims):
    """mean's `where=`: sum(x where m) / count(m) along axis, in mean's dtype (integers as float64;
    f16 and bf16 in float32, rounded once)."""
    x = _numeric_stat(x)
    count = _reduce("sum", m.astype({dt.complex64: dt.float32, dt.complex128: dt.float64}.get(x.dtype, x.dtype)),
                    axis, keepdims)
    return _reduce("sum", _masked(x, m, 0), axis, keepdims) / count
