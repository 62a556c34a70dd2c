"""NumPy functions beyond the Array API standard (docs/python.md, "Beyond the standard"), each
composed of cgrad's own ops: lazy, fused and differentiable where their parts are. A function
whose result's shape depends on the data (`bincount`, `histogram` with a number of bins and no
range, `digitize`'s monotonicity check, `tril_indices`/`triu_indices`) evaluates what it needs
first, a synchronisation point, as `nonzero` does. Arguments follow NumPy's names and defaults."""
import builtins
import functools
import math
import operator
import struct

from . import _api
from . import _cgrad
from . import _dtypes as dt
from . import linalg as _linalg
from ._array import _host_outside, _to_out, _writes_out
from ._cgrad import Array

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "average", "bincount", "column_stack", "convolve", "corrcoef",
           "cov", "cumprod", "cumsum", "diag", "digitize", "dot", "dstack", "fliplr", "flipud", "geomspace",
           "histogram", "hstack", "identity", "inner", "interp", "kron", "logspace", "logsumexp", "median", "nan_to_num",
           "nanmax", "nanmean", "nanmin", "nansum", "outer", "pad", "percentile", "ptp", "quantile", "ravel", "rot90",
           "split", "array_split", "swapaxes", "trapezoid", "tril_indices", "triu_indices", "unravel_index", "vdot",
           "vstack"]


_arr = _api._as_array_arg


def _float(x):
    """x itself when floating or complex, else as float64 (NumPy's rule for statistics of integers)."""
    return x if x.dtype in dt.FLOATING + dt.COMPLEX else x.astype(dt.float64)


def _float16_in_float32(fn):
    """fn of float16 arrays computed in float32, its result rounded once to float16 (NumPy's float16
    loops do the same). A composite's steps in float16 each round to 11 bits: until 2026-12-07
    `logaddexp2` gave 8263 of the 63488 finite float16 pairs tried a unit or more off, `sinc` 1450
    of 2000 values of a normal sample times 3."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        floats = [a for a in args if isinstance(a, Array) and a.dtype in dt.FLOATING + dt.COMPLEX]
        if not floats or builtins.any(a.dtype != dt.float16 for a in floats):
            return fn(*args, **kwargs)
        r = fn(*(a.astype(dt.float32) if isinstance(a, Array) and a.dtype == dt.float16 else a for a in args),
               **kwargs)
        return r.astype(dt.float16) if r.dtype == dt.float32 else r
    return wrapped


def _is_count(v):
    """An int, a NumPy integer or a 0-d integer array (not a bool): one number where NumPy takes a
    number or a sequence (split's sections, histogramdd's bins, unravel_index's shape)."""
    return getattr(v, "ndim", 0) == 0 and hasattr(v, "__index__") and not isinstance(v, builtins.bool)


def _along(x, axis, sl):
    """x[..., sl, ...] with the slice at `axis`."""
    axis = operator.index(axis) % x.ndim
    return x[(slice(None),) * axis + (sl,)]


# ---- NumPy's names and shapes for the standard's functions ----
def cumsum(a, axis=None, dtype=None):
    """Cumulative sum along `axis`; without one, of the flattened array (NumPy's rule)."""
    a = _arr(a)
    return _api.cumulative_sum(ravel(a) if axis is None else a, axis=0 if axis is None else axis, dtype=dtype)


def cumprod(a, axis=None, dtype=None):
    a = _arr(a)
    return _api.cumulative_prod(ravel(a) if axis is None else a, axis=0 if axis is None else axis, dtype=dtype)


def ravel(a, order="C"):
    """order: NumPy's ("F": the first index fastest; "A" and "K" are "C": cgrad arrays have no
    memory order)."""
    return _api.reshape(_arr(a), (-1,), order="C" if order in ("A", "K", None) else order)


def swapaxes(a, axis1, axis2):
    a = _arr(a)
    perm = list(range(a.ndim))
    i, j = operator.index(axis1) % a.ndim, operator.index(axis2) % a.ndim
    perm[i], perm[j] = perm[j], perm[i]
    return _api.permute_dims(a, perm)


def identity(n, dtype=None, device=None):
    return _api.eye(n, dtype=dtype, device=device)


def _atleast(n, arrays):
    out = []
    for a in arrays:
        a = _arr(a)
        if a.ndim < n:
            if a.ndim == 0:
                shape = [1] * n
            elif a.ndim == 1:  # n is 2 or 3: (1, k) or (1, k, 1)
                shape = [1, a.shape[0]] + [1] * (n - 2)
            else:  # (m, k) -> (m, k, 1)
                shape = list(a.shape) + [1]
            a = _api.reshape(a, tuple(shape))
        out.append(a)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arrays):
    return _atleast(1, arrays)


def atleast_2d(*arrays):
    return _atleast(2, arrays)


def atleast_3d(*arrays):
    return _atleast(3, arrays)


def vstack(tup, *, dtype=None, casting="same_kind"):
    return _api.concat([atleast_2d(a) for a in tup], axis=0, dtype=dtype, casting=casting)


def hstack(tup, *, dtype=None, casting="same_kind"):
    arrays = [atleast_1d(a) for a in tup]
    return _api.concat(arrays, axis=0 if arrays and arrays[0].ndim == 1 else 1, dtype=dtype, casting=casting)


def dstack(tup):
    return _api.concat([atleast_3d(a) for a in tup], axis=2)


def column_stack(tup):
    cols = []
    for a in tup:
        a = _arr(a)
        cols.append(_api.reshape(a, (-1, 1)) if a.ndim < 2 else a)  # 1-D: a column; 0-d: 1 x 1
    return _api.concat(cols, axis=1)


def array_split(ary, indices_or_sections, axis=0):
    """Views of ary along `axis`: at the given indices (Python's slice bounds: negative ones count
    from the end, as NumPy's; they gave empty parts until 2026-12-07), or in that many parts (the
    first n % k one longer)."""
    a = _arr(ary)
    n = a.shape[operator.index(axis) % a.ndim]
    if _is_count(indices_or_sections):
        k = operator.index(indices_or_sections)
        if k <= 0:
            raise ValueError("array_split: the number of sections must be larger than 0")
        sizes = [n // k + 1] * (n % k) + [n // k] * (k - n % k)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    else:
        bounds = [0] + [operator.index(i) for i in indices_or_sections] + [n]
    return [_along(a, axis, slice(b, e)) for b, e in zip(bounds[:-1], bounds[1:])]


def split(ary, indices_or_sections, axis=0):
    a = _arr(ary)
    if _is_count(indices_or_sections) and a.shape[operator.index(axis) % a.ndim] % operator.index(indices_or_sections):
        raise ValueError("split: array split does not result in an equal division (array_split allows it)")
    return array_split(a, indices_or_sections, axis)


def fliplr(m):
    m = _arr(m)
    if m.ndim < 2:
        raise ValueError("fliplr: needs an array of 2 or more dims")
    return _api.flip(m, axis=1)


def flipud(m):
    m = _arr(m)
    if m.ndim < 1:
        raise ValueError("flipud: needs an array of 1 or more dims")
    return _api.flip(m, axis=0)


def rot90(m, k=1, axes=(0, 1)):
    """m rotated by 90 degrees k times in the plane of `axes`, from the first towards the second."""
    m = _arr(m)
    a0, a1 = (operator.index(a) % m.ndim for a in axes)
    if a0 == a1 or len(axes) != 2:
        raise ValueError("rot90: axes must be two different axes")
    k = operator.index(k) % 4
    if k == 0:
        return m[...]
    if k == 2:
        return _api.flip(m, axis=(a0, a1))
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return _api.permute_dims(_api.flip(m, axis=a1), perm)
    return _api.flip(_api.permute_dims(m, perm), axis=a1)


def diag(v, k=0):
    """A 1-D v on the k-th diagonal of a square matrix; a 2-D v's k-th diagonal."""
    v = _arr(v)
    k = operator.index(k)
    if v.ndim == 2:
        return _linalg.diagonal(v, offset=k)
    if v.ndim != 1:
        raise ValueError("diag: the input must be 1-D or 2-D")
    n = v.shape[0] + builtins.abs(k)
    r = _api.arange(n, device=v.device)._reshape([n, 1])
    c = _api.arange(n, device=v.device)._reshape([1, n])
    at = r if k >= 0 else c  # the element of v on row r (k >= 0) or column c
    vals = _api.take(v, _api.clip(at, 0, builtins.max(v.shape[0] - 1, 0)), axis=0) if v.shape[0] else _api.zeros((n, n), dtype=v.dtype, device=v.device)
    return _api.where(c - r == k, vals, _api.zeros((), dtype=v.dtype, device=v.device))


# ---- products ----
@_writes_out
def outer(a, b, out=None):
    a, b = ravel(a), ravel(b)
    return a._reshape([a.shape[0], 1]) * b._reshape([1, b.shape[0]])


def inner(a, b):
    """The sum over the last axes of a and b (a.shape[:-1] + b.shape[:-1]); 0-d operands multiply."""
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return _api.tensordot(a, b, axes=([-1], [-1]))


@_writes_out
def dot(a, b, out=None):
    """NumPy's dot: 0-d operands multiply, 1-D and 2-D ones are matmul, otherwise the sum over the
    last axis of a and the second-to-last of b."""
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.ndim <= 2 and b.ndim <= 2:
        return _api.matmul(a, b)
    return _api.tensordot(a, b, axes=([-1], [-1 if b.ndim == 1 else -2]))


def vdot(a, b):
    """sum(conj(a) * b) over the flattened arrays."""
    return _api.sum(_cgrad.conj(ravel(a)) * ravel(b))


def kron(a, b):
    a, b = _arr(a), _arr(b)
    nd = builtins.max(a.ndim, b.ndim)
    sa, sb = [1] * (nd - a.ndim) + list(a.shape), [1] * (nd - b.ndim) + list(b.shape)
    x = a._reshape([d for s in sa for d in (s, 1)])
    y = b._reshape([d for s in sb for d in (1, s)])
    return (x * y)._reshape([p * q for p, q in zip(sa, sb)])


# ---- creation ----
def _space_ends(start, stop):
    """logspace's and geomspace's endpoints as float64 arrays and the default dtype of the result:
    cgrad's float32 for numbers, the endpoints' floating dtype (float64 for integers, as NumPy's)
    for arrays (NumPy's array endpoints, since 2026-12-07: a one-element array was read as a number,
    dropping its dims)."""
    arrays = _api._is_array_like(start) or _api._is_array_like(stop)
    s, e = (_arr(v) if arrays else _api.asarray(float(v), dtype=dt.float64) for v in (start, stop))
    d = dt.result_type(s.dtype, e.dtype) if arrays else dt.float32
    d = d if d in dt.FLOATING + dt.COMPLEX else dt.float64
    return s.astype(dt.float64), e.astype(dt.float64), d


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop): scalar or (NumPy's) array endpoints, samples along `axis`."""
    s, e, d = _space_ends(start, stop)
    y = _api.linspace(s, e, num, endpoint=endpoint, dtype=dt.float64, axis=axis) if s.ndim or e.ndim else \
        _api.moveaxis(_api.linspace(float(s), float(e), num, endpoint=endpoint, dtype=dt.float64), 0, axis)
    r = _api.asarray(float(base), dtype=dt.float64) ** y
    return r.astype(dtype if dtype is not None else d)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """A geometric sequence from start to stop (both nonzero, of one sign; NumPy's array endpoints
    too, samples along `axis`); the ends are exact."""
    s, e, d = _space_ends(start, stop)
    if not builtins.bool(_api.all(s != 0)) or not builtins.bool(_api.all(e != 0)):
        raise ValueError("geomspace: geometric sequence cannot include zero")
    if builtins.bool(_api.any((s < 0) != (e < 0))):
        raise ValueError("geomspace: start and stop must have the same sign")
    sign = _api.where(s < 0, -1.0, 1.0)
    y = _api.linspace(_cgrad.log(_cgrad.abs(s)), _cgrad.log(_cgrad.abs(e)), num, endpoint=endpoint,
                      dtype=dt.float64)
    r = _cgrad.exp(y) * sign
    shape = tuple(r.shape[1:])
    i = _api.arange(num, dtype=dt.int64, device=r.device)._reshape([num] + [1] * len(shape))
    r = _api.where(i == 0, _api.broadcast_to(s, shape), r)
    if endpoint and num > 1:
        r = _api.where(i == num - 1, _api.broadcast_to(e, shape), r)
    return _api.moveaxis(r.astype(dtype if dtype is not None else d), 0, axis)


def tril_indices(n, k=0, m=None):
    """The row and column indices of the lower triangle of an n x m matrix (evaluated: nonzero)."""
    return tuple(_api.nonzero(_api.tril(_api.ones((n, n if m is None else m), dtype=dt.bool), k=k)))


def triu_indices(n, k=0, m=None):
    return tuple(_api.nonzero(_api.triu(_api.ones((n, n if m is None else m), dtype=dt.bool), k=k)))


def unravel_index(indices, shape, order="C"):
    """The coordinates in an array of `shape` of flat indices, one array per dim (row-major, or
    column-major with order="F"). Host-known indices (ints, lists, NumPy arrays) outside the size
    raise NumPy's ValueError (they wrapped silently until 2026-12-07); a lazy cgrad array's are not
    checked: its coordinates are those of the index modulo the size."""
    shape = (operator.index(shape),) if _is_count(shape) else tuple(operator.index(d) for d in shape)
    if order not in ("C", "F"):
        raise ValueError("unravel_index: order must be 'C' or 'F'")
    size = math.prod(shape)
    if _host_outside(indices, 0, size) is not None:
        raise ValueError(f"unravel_index: an index is out of bounds for array with size {size}")
    if order == "F":
        return tuple(reversed(unravel_index(indices, tuple(reversed(shape)))))
    idx = _arr(indices).astype(dt.int64)
    out, stride = [], size
    for d in shape:
        stride //= d
        out.append((idx // stride) % d if d else idx * 0)
    return tuple(out)


# ---- statistics ----
@_writes_out
def ptp(a, axis=None, out=None, keepdims=False):
    a = _arr(a)
    return _api.max(a, axis=axis, keepdims=keepdims) - _api.min(a, axis=axis, keepdims=keepdims)


@_api._half_in_f32
def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The mean, or the weighted mean sum(a w) / sum(w); 1-D weights lie along `axis`."""
    a = _float(_arr(a))
    if weights is None:
        avg = _api.mean(a, axis=axis, keepdims=keepdims)
        count = _api.asarray(a.size / builtins.max(avg.size, 1), dtype=avg.dtype, device=avg.device)
        return (avg, _api.broadcast_to(count, avg.shape)) if returned else avg
    w = _arr(weights).astype(a.dtype)
    if w.shape != a.shape:
        if axis is None or w.ndim != 1:
            raise TypeError("average: weights of another shape than a need an axis and one dim")
        shape = [1] * a.ndim
        shape[operator.index(axis) % a.ndim] = w.shape[0]
        w = w._reshape(shape)
    wsum = _api.sum(_api.broadcast_to(w, a.shape), axis=axis, keepdims=keepdims)
    avg = _api.sum(a * w, axis=axis, keepdims=keepdims) / wsum
    return (avg, wsum) if returned else avg


def _nan_where(a, fill):
    return _api.where(_cgrad.isnan(a), fill, a) if a.dtype in dt.FLOATING + dt.COMPLEX else a


@_writes_out
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """The sum with NaNs as 0; initial: NumPy's, added to each sum; where: sum's."""
    return _api.sum(_nan_where(_arr(a), 0.0), axis=axis, keepdims=keepdims, dtype=dtype, initial=initial, where=where)


@_writes_out
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """dtype (NumPy's): the dtype computed in, and the result's; where: the elements kept (with the
    non-NaN ones)."""
    a = _arr(a)
    return _nanmean(a if dtype is None else a.astype(dtype), axis=axis, keepdims=keepdims, where=where)


@_api._half_in_f32
def _nanmean(a, axis=None, keepdims=False, where=True):
    a = _float(_arr(a))
    count = _api.sum((~_cgrad.isnan(a)).astype(a.dtype), axis=axis, keepdims=keepdims, where=where)
    return nansum(a, axis=axis, keepdims=keepdims, where=where) / count  # all NaN: 0 / 0 = NaN, as NumPy's


def _nan_extreme(a, axis, keepdims, initial, reduce, fill, where):
    """nanmax/nanmin: NaNs as `fill` (the reduction's identity); an all-NaN slice gives NaN (NumPy
    warns), or `initial` where that is given (NumPy's fmax.reduce); where: max's (initial needed)."""
    a = _arr(a)
    if a.dtype not in dt.FLOATING or initial is not None:
        return reduce(_nan_where(a, fill), axis=axis, keepdims=keepdims, initial=initial, where=where)
    r = reduce(_nan_where(a, fill), axis=axis, keepdims=keepdims, where=where)
    every = _api.all(_cgrad.isnan(a), axis=axis, keepdims=keepdims)
    return _api.where(every, float("nan"), r)


@_writes_out
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    return _nan_extreme(a, axis, keepdims, initial, _api.max, float("-inf"), where)


@_writes_out
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    return _nan_extreme(a, axis, keepdims, initial, _api.min, float("inf"), where)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced (by 0 and the dtype's largest and smallest finite values by
    default); complex: each part."""
    x = _arr(x)
    if x.dtype in dt.COMPLEX:
        return _cgrad._complex(nan_to_num(_cgrad.real(x), nan=nan, posinf=posinf, neginf=neginf),
                               nan_to_num(_cgrad.imag(x), nan=nan, posinf=posinf, neginf=neginf))
    if x.dtype not in dt.FLOATING:
        return x[...]
    info = dt.finfo(x.dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    y = _api.where(_cgrad.isnan(x), nan, x)
    y = _api.where(y == float("inf"), big, y)
    return _api.where(y == float("-inf"), small, y)


@_api._half_in_f32
def logsumexp(a, axis=None, keepdims=False):
    """log(sum(exp(a))) without overflow: the largest element is taken out first."""
    a = _float(_arr(a))
    m = _api.max(a, axis=axis, keepdims=True)
    m = _api.where(_cgrad.isfinite(m), m, 0.0)
    r = _cgrad.log(_api.sum(_cgrad.exp(a - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        r = _api.squeeze(r, axis=tuple(range(a.ndim)) if axis is None else axis)
    return r


# NumPy's thirteen quantile methods (Hyndman and Fan's nine and NumPy's own four), computed as
# NumPy computes them: the q-th quantile's virtual index among n sorted values, then either one
# element (the discrete methods: the data's dtype is kept) or the two around the index and the
# fraction gamma between them.
_DISCRETE = ("inverted_cdf", "closest_observation", "lower", "higher", "nearest")
_HF = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
       "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}
_METHODS = ("linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
            "closest_observation") + tuple(_HF)


def _quantile_rule(method, n, q, ops):
    """(index, None) for a discrete method, else (virtual index, gamma): the position of the q-th
    quantile (q a number) among n sorted values, n a number or (nanquantile) an array of counts.
    ops: (floor, where, round half to even) of numbers or of arrays. The product n q is never
    summed with anything before its floor is taken: a kernel contracts n q - 1 into one rounding
    where NumPy rounds n q first, which moved a pick at an exact boundary (nanquantile of 5 values
    at q = 0.3 with "closest_observation": 5 * 0.3 - 1 - 0.5 is 0 in NumPy, -5.6e-17 contracted)."""
    floor, where, rint = ops
    if method in ("lower", "higher", "nearest"):
        m = (n - 1) * q
        return {"lower": floor(m), "higher": -floor(-m), "nearest": rint(m)}[method], None
    if method in ("inverted_cdf", "averaged_inverted_cdf", "closest_observation"):
        p = n * q  # NumPy's virtual index: p - 1 (p - 1.5 for closest_observation)
        fl = floor(p)
        if method == "averaged_inverted_cdf":  # the mean of v and v + 1 where v is an integer, else v + 1
            return fl - 1, where(p == fl, 0.5, 1.0)
        if method == "inverted_cdf":  # v itself where an integer, else floor(v) + 1
            i = where(p == fl, fl - 1, fl)
        else:  # closest_observation: the odd one of v and v + 1 where v is an integer, else floor(v) + 1
            k = floor(p + p)
            v = (k - 3) / 2
            i = where((p + p == k) & (k % 2 == 1), where(v % 2 == 1, v, v + 1), floor((k - 1) / 2))
        return where(i < 0, 0 * i, i), None  # (an index below 0 is 0, as NumPy's)
    if method in _HF:
        alpha, beta = _HF[method]
        v = n * q + (alpha + q * (1 - alpha - beta)) - 1
    elif method == "midpoint":
        v = 0.5 * (floor((n - 1) * q) - floor(-(n - 1) * q))
    else:  # linear
        v = (n - 1) * q
    g = v - floor(v)
    return v, (where(g == 0, 0.0, 0.5) if method == "midpoint" else g)


_NUMBER_OPS = (math.floor, lambda c, a, b: a if c else b, round)  # _quantile_rule's ops on numbers


def _lerp(a0, a1, t):
    """NumPy's lerp a0 + (a1 - a0) t, from the nearer end (t = 0 and 1 give a0 and a1 themselves); t
    a number or an array. Equal ends give that value, and an infinite end the formula's limit (that end where
    the other is finite and t moves toward it): the median of [-inf] is -inf and of [1, inf] inf,
    as NumPy's median says, where the formula (and NumPy's quantile) gives inf - inf = NaN."""
    if isinstance(t, Array):  # (t = 0 and t = 1 give the ends themselves, infinite ones too)
        r = _api.where(t < 0.5, a0 + (a1 - a0) * t, a1 - (a1 - a0) * (1 - t))
        r = _api.where(t == 0, a0, _api.where(t == 1, a1, r))
        toward1, toward0 = t > 0, t < 1
    elif t == 0 or t == 1:
        return a0 if t == 0 else a1
    else:
        r = a0 + (a1 - a0) * t if t < 0.5 else a1 - (a1 - a0) * (1 - t)
        toward1, toward0 = True, t < 1
    inf0, inf1 = _cgrad.isinf(a0), _cgrad.isinf(a1)
    r = _api.where(inf1 & ~inf0 & toward1, a1, _api.where(inf0 & ~inf1 & toward0, a0, r))
    return _api.where(a0 == a1, a0, r)


def _quantiles(a, q, axis, method, keepdims, fn, picker):
    """The frame of quantile and nanquantile: q (a number or an array in [0, 1]) and method
    checked, the slices along `axis` (the flattened a without one) sorted, and for each q value
    picker(sorted, axis, q) -> that quantile with the axis kept; q's dims come first. The result's
    dtype is NumPy's: a's for the discrete methods, else a's floating dtype (float64 for integers),
    promoted with q's where q is an array (a float32 a with q a float64 array gives float64)."""
    if method not in _METHODS:
        raise ValueError(f"{fn}: method must be one of {_METHODS}, got {method!r}")
    qa, qs = _q_values(q, fn)
    if method not in _DISCRETE:
        a = _float(a)
        if qa is not None and qa.dtype in dt.FLOATING:
            a = a.astype(dt.result_type(a, qa))
    # the axes reduced (all for None; a tuple as NumPy's, since 2026-12-07: moved last and merged
    # into one; an axis out of range raises, where before it wrapped)
    axes = list(range(a.ndim)) if axis is None else _api._axes_in(a, axis, fn)
    x, ax = a, axes[0] if len(axes) == 1 else a.ndim - len(axes)
    if len(axes) != 1:
        rest = [d for d in range(a.ndim) if d not in axes]
        x = _api.reshape(_api.permute_dims(a, rest + sorted(axes)), tuple(a.shape[d] for d in rest) + (-1,))
    kept = tuple(1 if d in axes else n for d, n in enumerate(a.shape))
    s = _api.sort(x, axis=ax)
    outs = []
    for v in qs:
        r = picker(s, ax, v)
        outs.append(_api.reshape(r, kept) if keepdims else _api.squeeze(r, axis=ax))
    return _stacked_q(outs, qa)


def _q_values(q, fn):
    """q (a number or an array in [0, 1]) as (the array or None, its values as Python floats)."""
    qa = _arr(q) if not isinstance(q, (int, float)) else None
    qs = [float(q)] if qa is None else [float(v) for v in _api.unstack(_api.reshape(qa.astype(dt.float64), (-1,)))]
    if builtins.any(not 0 <= v <= 1 for v in qs):
        raise ValueError(f"{fn}: q must be in [0, 1]")
    return qa, qs


def _stacked_q(outs, qa):
    """One quantile per q value, q's dims first (a number q: its one quantile)."""
    if qa is None:
        return outs[0]
    return _api.reshape(_api.stack(outs), tuple(qa.shape) + tuple(outs[0].shape))


def _weighted_quantiles(a, q, axis, method, keepdims, weights, fn, skip_nan):
    """NumPy's weighted quantiles (method "inverted_cdf" only): along each slice, sorted, the first
    value whose share of the total weight, summed from the smallest, reaches q. `weights` has a's
    shape, or (with an int axis) the axis' length; none may be negative (evaluated to check). With
    skip_nan (nanquantile) NaNs weigh 0; otherwise a NaN in a slice makes its quantiles NaN. Weights
    that are NaN or inf, or all zero in a slice, raise (NumPy's rule)."""
    if method != "inverted_cdf":
        raise ValueError(f"{fn}: only method 'inverted_cdf' supports weights, got {method!r}")
    w = _arr(weights)
    if tuple(w.shape) != tuple(a.shape):
        if not (isinstance(axis, int) and w.ndim == 1 and a.ndim and w.shape[0] == a.shape[axis % a.ndim]):
            raise ValueError(f"{fn}: weights of shape {tuple(w.shape)} need a's shape {tuple(a.shape)}, "
                             "or an int axis and that axis' length")
        w = w._reshape([w.shape[0] if d == axis % a.ndim else 1 for d in range(a.ndim)])
    if w.dtype in dt.COMPLEX:
        raise TypeError(f"{fn}: weights must be real")
    w = _api.broadcast_to(w.astype(dt.float64), tuple(a.shape))

    def merged(v):  # the reduced axes last, as one
        axes = list(range(v.ndim)) if axis is None else _api._axes_in(v, axis, fn)
        rest = [d for d in range(v.ndim) if d not in axes]
        return _api.reshape(_api.permute_dims(v, rest + axes), tuple(v.shape[d] for d in rest) + (-1,)), axes

    x, axes = merged(a)
    wx, _ = merged(w)
    n = x.shape[-1]
    if n == 0:
        raise ValueError(f"{fn}: an empty slice has no quantiles")
    kept = tuple(1 if d in axes else k for d, k in enumerate(a.shape))
    order = _api.argsort(x, axis=-1, stable=True)
    xs = _api.take_along_axis(x, order, axis=-1)
    ws = _api.take_along_axis(wx, order, axis=-1)
    nan_last = _cgrad.isnan(xs[..., -1:]) if x.dtype in dt.FLOATING else None
    if skip_nan and nan_last is not None:
        ws = _api.where(_cgrad.isnan(xs), 0.0, ws)
    cdf = _api.cumulative_sum(ws, axis=-1)
    total = cdf[..., -1:]
    negative, unusable = _api.stack(  # one evaluation for both checks
        [_api.any(ws < 0), _api.any(_cgrad.logical_not(_cgrad.isfinite(total)) | (total == 0))]).tolist()
    if negative:
        raise ValueError(f"{fn}: weights must be non-negative")
    if unusable:
        raise ValueError(f"{fn}: weights included NaN or inf, or were all zero in a slice")
    cdf = cdf / total
    cdf = _api.where(cdf == 0, -1.0, cdf)  # leading zero weights: q = 0 picks the first weighted value
    qa, qs = _q_values(q, fn)
    outs = []
    for v in qs:  # the count of cdf values below q: NumPy's searchsorted(cdf, q, side="left")
        i = _cgrad.minimum(_api.sum(cdf < v, axis=-1, keepdims=True), n - 1)
        r = _api.take_along_axis(xs, i, axis=-1)
        if nan_last is not None and not skip_nan:
            r = _api.where(nan_last, float("nan"), r)
        outs.append(_api.reshape(r, kept) if keepdims else r[..., 0])
    return _stacked_q(outs, qa)


@_writes_out
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None,
             _empty_nan=False):
    """The q-th quantiles (q in [0, 1], a number or an array) along `axis` (all axes by default):
    the sorted values picked or interpolated as NumPy's `method` says (its thirteen: "linear",
    "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
    "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
    "normal_unbiased"). q's dims come first. A NaN in a slice makes its quantiles NaN. An empty
    slice raises (NumPy's quantile raises too); median's is NaN (NumPy's, with a warning).
    NumPy's `weights` (since 2026-12-07) with "inverted_cdf"; overwrite_input is moot."""
    a = _arr(a)
    if weights is not None:
        return _weighted_quantiles(a, q, axis, method, keepdims, weights, "quantile", False)

    def pick(s, ax, v):
        n = s.shape[ax]
        if n == 0 and _empty_nan:
            return _api.full(tuple(1 if d == ax else k for d, k in enumerate(s.shape)), float("nan"),
                             dtype=_float(s).dtype)
        if n == 0:
            raise ValueError("quantile: an empty slice has no quantiles")
        pos, gamma = _quantile_rule(method, n, v, _NUMBER_OPS)
        if gamma is None:
            r = _along(s, ax, slice(int(pos), int(pos) + 1))
        else:
            # past the last value: the last; below the first: the first (NumPy's bounds)
            lo = n - 1 if pos >= n - 1 else builtins.max(math.floor(pos), 0)
            hi = lo + 1 if 0 <= pos < n - 1 else lo
            r = _lerp(_along(s, ax, slice(lo, lo + 1)), _along(s, ax, slice(hi, hi + 1)), gamma)
        if s.dtype in dt.FLOATING:  # the sort puts NaNs last: the last element says whether there is one
            r = _api.where(_cgrad.isnan(_along(s, ax, slice(n - 1, n))), float("nan"), r)
        return r

    return _quantiles(a, q, axis, method, keepdims, "quantile", pick)


def _fraction(q):
    """percentile's q / 100: a number, or an array in its floating dtype (float64 for integers), as
    NumPy's true_divide gives it (a float32 q was float64 until 2026-12-07, and so the result)."""
    if isinstance(q, (int, float)):
        return q / 100
    q = _arr(q)
    return _float(q) / 100


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    return quantile(a, _fraction(q), axis=axis, out=out, method=method, keepdims=keepdims, weights=weights)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return quantile(a, 0.5, axis=axis, out=out, keepdims=keepdims, _empty_nan=True)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """The covariance matrix of the variables in m's rows (columns with rowvar=False), divided by
    N - 1 (N with bias, N - ddof with ddof); one variable gives a 0-d array. NumPy's weights of
    the observations: fweights (integer repeat counts) and aweights (relative importances), with
    NumPy's normalisation; dtype: the dtype computed in, by default NumPy's float64 (complex128
    for complex data; until 2026-12-07 float32 data gave float32, f16 f16)."""
    m, y = _arr(m), None if y is None else _arr(y)
    if dtype is None:
        dtype = dt.complex128 if m.dtype in dt.COMPLEX or (y is not None and y.dtype in dt.COMPLEX) else dt.float64
    x = atleast_2d(m).astype(dtype)
    if not rowvar and x.shape[0] != 1:
        x = x.mT
    if y is not None:
        yy = atleast_2d(y).astype(dtype)  # (its own floating dtype before 2026-12-07: float64 beside dtype=float32)
        if not rowvar and yy.shape[0] != 1:
            yy = yy.mT
        x = _api.concat([x, yy], axis=0)
    n = x.shape[1]
    ddof = ddof if ddof is not None else (0 if bias else 1)
    w = None
    for wt, name in ((fweights, "fweights"), (aweights, "aweights")):
        if wt is not None:
            wt = _arr(wt)
            if wt.ndim != 1 or wt.shape[0] != n:
                raise ValueError(f"cov: {name} must be 1-D of the number of observations ({n})")
            if name == "fweights" and wt.dtype not in dt.INTEGRAL:
                raise TypeError("cov: fweights must be integers")
            if builtins.bool(_api.any(wt < 0)):
                raise ValueError(f"cov: {name} cannot be negative")
            w = wt.astype(x.dtype if x.dtype in dt.FLOATING else dt.float64) if w is None else w * wt
    # degrees of freedom at or below 0 divide by 0 (inf and NaN), as NumPy's (which warns); a
    # negative count divided before 2026-12-07 (cov of 1 observation with ddof=2 was -0)
    if w is None:
        dof = builtins.max(n - ddof, 0)
        xc = x - _api.mean(x, axis=1, keepdims=True)
        c = (xc @ _cgrad.conj(xc).mT) / dof
    else:
        w_sum = _api.sum(w)
        avg = _api.sum(x * w, axis=1, keepdims=True) / w_sum
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * _api.sum(w * _arr(aweights)) / w_sum
        xc = x - avg
        c = ((xc * w) @ _cgrad.conj(xc).mT) / _api.where(fact > 0, fact, 0.0)
    return _api.squeeze(c, axis=(0, 1)) if c.shape == (1, 1) else c


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """The correlation coefficients of cov's variables (in [-1, 1]); dtype: cov's."""
    c = cov(x, y, rowvar=rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = _cgrad.real(_linalg.diagonal(c))
    s = _cgrad.sqrt(d)
    r = c / s._reshape([-1, 1]) / s._reshape([1, -1])
    if r.dtype in dt.COMPLEX:
        return _cgrad._complex(_api.clip(_cgrad.real(r), -1, 1), _api.clip(_cgrad.imag(r), -1, 1))
    return _api.clip(r, -1, 1)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of y along `axis` by the trapezoidal rule, at points x (or spacing dx)."""
    y = _float(_arr(y))
    mid = (_along(y, axis, slice(1, None)) + _along(y, axis, slice(None, -1))) / 2
    if x is None:
        return _api.sum(mid, axis=axis) * dx
    x = _arr(x)
    d = _api.diff(x) if x.ndim == 1 else _api.diff(x, axis=axis)
    if x.ndim == 1:
        shape = [1] * y.ndim
        shape[operator.index(axis) % y.ndim] = d.shape[0]
        d = d._reshape(shape)
    return _api.sum(mid * d, axis=axis)


# ---- counting, binning, interpolation ----
def bincount(x, weights=None, minlength=0):
    """How often each value 0, 1, ..., max(x) occurs in the 1-D non-negative integer x (the sum
    of the weights at its positions). The length depends on max(x): x is evaluated."""
    x = _arr(x)
    x = x.astype(dt.int64) if x.dtype == dt.bool else x  # NumPy casts bools safely
    if x.ndim != 1 or x.dtype not in dt.INTEGRAL:
        raise TypeError("bincount: needs a 1-D array of integers")
    lo = int(_api.min(x)) if x.size else 0
    if lo < 0:
        raise ValueError("bincount: x must be non-negative")
    length = builtins.max(int(_api.max(x)) + 1 if x.size else 0, operator.index(minlength))
    if weights is None:
        vals, dtype = _api.ones(x.shape, dtype=dt.int64, device=x.device), dt.int64
    else:
        vals, dtype = _arr(weights).astype(dt.float64), dt.float64
    return _api.scatter_add(_api.zeros((length,), dtype=dtype, device=x.device), x, vals)


def digitize(x, bins, right=False):
    """The index of the bin each x falls in (bins monotonic, 1-D): NumPy's searchsorted rule."""
    x, b = _arr(x), _arr(bins)
    if b.ndim != 1:
        raise ValueError("digitize: bins must be 1-D")
    side = "left" if right else "right"
    if b.shape[0] > 1 and bool(b[0] > b[-1]):  # decreasing: search the reversed bins
        return b.shape[0] - _api.searchsorted(_api.flip(b), x, side=side)
    return _api.searchsorted(b, x, side=side)


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of the points (xp, fp) (xp increasing) at x; fp[0] (or left)
    below xp[0], fp[-1] (or right) above xp[-1]. With a period, x and xp are taken modulo it
    (xp need not be sorted; left and right are ignored), as NumPy's."""
    x, xp, fp = _arr(x), _arr(xp), _arr(fp)
    if xp.ndim != 1 or fp.ndim != 1 or xp.shape != fp.shape or xp.shape[0] == 0:
        raise ValueError("interp: xp and fp must be 1-D of one nonzero length")
    x = _float(x)
    if period is not None:
        if period == 0:
            raise ValueError("interp: period must be a non-zero value")
        period, left, right = abs(float(period)), None, None
        x, xp = x % period, _float(xp) % period
        order = _api.argsort(xp)
        xp, fp = _api.take(xp, order), _api.take(fp, order)
        xp = _api.concat([xp[-1:] - period, xp, xp[:1] + period])
        fp = _api.concat([fp[-1:], fp, fp[:1]])
    n = xp.shape[0]
    lval = fp[0] if left is None else left
    rval = fp[-1] if right is None else right
    if n == 1:
        y = _api.broadcast_to(fp[0].astype(dt.result_type(x, fp)), x.shape)
    else:
        i = _api.clip(_api.searchsorted(xp, x, side="right") - 1, 0, n - 2)
        x0, x1 = _api.take(xp, i), _api.take(xp, i + 1)
        y0, y1 = _api.take(fp, i), _api.take(fp, i + 1)
        # NumPy's: slope (x - x0) + y0; where that is NaN (an infinite fp), from the other end;
        # then y0 if the ends are equal; a point of xp gives its fp (until 2026-12-07 an infinite
        # fp made its whole segment NaN)
        slope = (y1 - y0) / (x1 - x0)
        y = slope * (x - x0) + y0
        y = _api.where(_cgrad.isnan(y), slope * (x - x1) + y1, y)
        y = _api.where(_cgrad.isnan(y) & (y0 == y1), y0, y)
        y = _api.where(x == xp[-1], fp[-1], _api.where(x == x0, y0, y))
    y = _api.where(x < xp[0], lval, y)
    y = _api.where(x > xp[-1], rval, y)
    # a NaN x gives NaN, as NumPy's (which gives fp[0] where xp has one point; with a period, whose
    # xp has three or more, a NaN or infinite x gave y0 before 2026-12-07)
    return _api.where(_cgrad.isnan(x), x, y) if n > 1 else y


def _bin_edges(a, bins, range, fn):  # noqa: A002 (NumPy's name)
    """(edges, lo, hi) of the flattened floating a: `bins` equal bins over `range` (default the
    data's min and max: evaluated; lo and hi the range), or the given edges as float64 (lo, hi
    None). Equal bins are NumPy's linspace bit for bit, in its dtype: a's for a data range of f16,
    f32 or f64 data, else float64 (a range of Python floats); histogram casts them to a's dtype."""
    if isinstance(bins, str):
        raise ValueError(f"{fn}: bin estimators ({bins!r}) are not supported; give a number of bins or edges")
    if not isinstance(bins, int):
        edges = _float(_arr(bins)).astype(dt.float64)
        if edges.ndim != 1 or edges.shape[0] < 2:
            raise ValueError(f"{fn}: bins must be a positive integer or a 1-D array of two or more edges")
        return edges, None, None
    if bins < 1:
        raise ValueError(f"{fn}: the number of bins must be positive")
    ct = dt.float64
    if range is None:
        lo, hi = (float(_api.min(a)), float(_api.max(a))) if a.size else (0.0, 1.0)
        if a.size and a.dtype in (dt.float16, dt.float32):
            ct = a.dtype
    else:
        lo, hi = (float(v) for v in range)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"{fn}: the range [{lo}, {hi}] is not finite")
    if lo > hi:
        raise ValueError(f"{fn}: max must be larger than min in range")
    rnd = _rounding(ct)
    if lo == hi:
        lo, hi = rnd(lo - 0.5), rnd(hi + 0.5)
    return _linspace_exact(lo, hi, bins + 1, ct, a.device), lo, hi


def _rounding(d):
    """x -> x rounded to float d (f16, f32; else x itself): a Python float operation then rounded
    is d's operation, correctly rounded (double has more than twice their digits)."""
    fmt = {dt.float16: "e", dt.float32: "f"}.get(d)
    if fmt is None:
        return lambda x: x

    def rnd(x):
        try:
            return struct.unpack(fmt, struct.pack(fmt, x))[0]
        except OverflowError:  # past the dtype's largest finite value
            return math.copysign(math.inf, x)
    return rnd


def _linspace_exact(lo, hi, num, d, device):
    """NumPy's linspace(lo, hi, num) (num >= 2) bit for bit, computed in float dtype d: i * step +
    lo, each operation rounded to d, the last exactly hi. A histogram's edges decide which bin a
    value on an edge falls in, and cgrad's linspace is a kernel whose contracted multiply-add rounds
    once: an ulp off NumPy's edge (-9 + 5 * 1.6 is -1.0 there, -0.9999999999999996 in the kernel).
    Computed on the host: bins are few."""
    rnd = _rounding(d)
    div = num - 1
    delta = rnd(hi - lo)
    step = rnd(delta / div)
    vals = [rnd(rnd(rnd(i / div) * delta) + lo) if step == 0 else rnd(rnd(i * step) + lo)
            for i in builtins.range(num)]
    vals[-1] = hi
    return _api.asarray(vals, dtype=d, device=device)


def histogram(a, bins=10, range=None, density=False, weights=None):  # noqa: A002 (NumPy's name and order)
    """(counts, bin edges) of the flattened a: `bins` equal bins over `range` (default the data's
    min and max: evaluated) or the given edges; the last bin includes its right edge."""
    a = _float(ravel(a))
    edges, lo, hi = _bin_edges(a, bins, range, "histogram")
    nb = edges.shape[0] - 1
    if lo is not None:
        # NumPy's edges are in a's floating dtype (float64 for integers), and so are the comparisons
        # that place a value on an edge
        edges = edges.astype(a.dtype if a.dtype in (dt.float32, dt.float16, dt.bfloat16) else dt.float64)
        given = edges
        idx = _cgrad.floor((a.astype(dt.float64) - lo) * (nb / (hi - lo))).astype(dt.int64)
        idx = _api.clip(idx, 0, nb)
        idx = _api.where(idx == nb, nb - 1, idx)  # the range's maximum: in the last bin
        # NumPy's corrections where rounding put a value in the next or previous bin
        e_lo = _api.take(edges, idx)
        idx = _api.where(_cgrad.logical_and(a < e_lo, idx > 0), idx - 1, idx)
        e_hi = _api.take(edges, _api.clip(idx + 1, 0, nb))
        idx = _api.where(_cgrad.logical_and(a >= e_hi, idx < nb - 1), idx + 1, idx)
        inside = _cgrad.logical_and(a >= edges[0], a <= edges[-1])
    else:
        given = _arr(bins)[...]  # returned in their own dtype, as NumPy's
        idx = _api.searchsorted(edges, a.astype(dt.float64), side="right") - 1
        idx = _api.where(a == edges[-1], nb - 1, idx)
        inside = _cgrad.logical_and(a >= edges[0], a <= edges[-1])
    idx = _api.where(inside, idx, nb)  # outside the range: past the last bin, added nowhere
    if weights is None:
        vals, dtype = _api.ones(a.shape, dtype=dt.int64, device=a.device), dt.int64
    else:
        vals = _float(ravel(weights))
        dtype = vals.dtype
    hist = _api.scatter_add(_api.zeros((nb,), dtype=dtype, device=a.device), idx, vals.astype(dtype))
    if density:
        hist = hist.astype(dt.float64) / _api.sum(hist).astype(dt.float64) / _api.diff(edges).astype(dt.float64)
    return hist, given


def histogramdd(sample, bins=10, range=None, density=False, weights=None):  # noqa: A002 (NumPy's name)
    """(counts, [edges per dimension]) of N points in D dimensions: sample (N, D) or D arrays of N
    (a 1-D array: N points in one dimension, as NumPy reads it).
    Per dimension `bins` is a count of equal bins over `range` (default the data's min and max:
    evaluated) or the edges; a value on a last edge counts in the last bin; counts are float64, as
    NumPy's."""
    if isinstance(sample, (list, tuple)):  # NumPy's atleast_2d(sample).T: D rows of N, or N points
        x = _arr(sample)
        cols = [_float(ravel(c)) for c in (x._reshape([1, -1]) if x.ndim < 2 else x)]
    else:
        x = _float(_arr(sample))
        x = _api.reshape(x, (-1, 1)) if x.ndim == 1 else x
        if x.ndim != 2:
            raise ValueError("histogramdd: sample must be (N, D) or a sequence of D arrays")
        cols = [x[:, d] for d in builtins.range(x.shape[1])]
    ndim = len(cols)
    # one entry per dimension (a sequence or an array of them: NumPy's; its NumPy integers were
    # taken for edges until 2026-12-07), or one count for every dimension
    bins = [bins] * ndim if _is_count(bins) else list(bins)
    bins = [operator.index(b) if _is_count(b) else b for b in bins]
    ranges = list(range) if range is not None else [None] * ndim
    if len(bins) != ndim or len(ranges) != ndim:
        raise ValueError(f"histogramdd: bins and range need one entry for each of {ndim} dimensions")
    flat, edges, sizes = None, [], []
    outside = None
    for c, b, r in zip(cols, bins, ranges):
        # the edges NumPy returns: equal bins in NumPy's linspace dtype, given edges as given
        given, _, _ = _bin_edges(c, b, r, "histogramdd") if isinstance(b, int) else (_arr(b)[...], 0, 0)
        e, c = given.astype(dt.float64), c.astype(dt.float64)
        nb = e.shape[0] - 1
        idx = _api.searchsorted(e, c, side="right") - 1
        idx = _api.where(c == e[-1], nb - 1, idx)
        out = _cgrad.logical_or(c < e[0], c > e[-1])
        outside = out if outside is None else _cgrad.logical_or(outside, out)
        idx = _api.clip(idx, 0, nb - 1)
        flat = idx if flat is None else flat * nb + idx
        edges.append(given)
        sizes.append(nb)
    total = math.prod(sizes)
    flat = _api.where(outside, total, flat)  # past the last cell: added nowhere
    vals = _api.ones(flat.shape, dtype=dt.float64, device=flat.device) if weights is None else \
        _float(ravel(weights)).astype(dt.float64)
    hist = _api.scatter_add(_api.zeros((total,), dtype=dt.float64, device=flat.device), flat, vals)
    hist = _api.reshape(hist, tuple(sizes))
    if density:
        volume = None
        for d, e in enumerate(edges):
            shape = [1] * ndim
            shape[d] = sizes[d]
            w = _api.reshape(_api.diff(e), tuple(shape))
            volume = w if volume is None else volume * w
        hist = hist / _api.sum(hist) / volume
    return hist, edges


def histogram2d(x, y, bins=10, range=None, density=False, weights=None):  # noqa: A002 (NumPy's name)
    """(counts, x edges, y edges): histogramdd of the points (x[i], y[i])."""
    n = len(bins) if hasattr(bins, "__len__") and getattr(bins, "ndim", 1) else 1
    if n not in (1, 2):  # one array of edges: for both (NumPy's rule)
        bins = [bins, bins]
    h, (ex, ey) = histogramdd([x, y], bins=bins, range=range, density=density, weights=weights)
    return h, ex, ey


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-D arrays ("full", "same" or "valid"): a gather of
    the sliding windows times the reversed kernel, summed over the positions inside `a` (the
    padding takes no product, as NumPy's loop: inf * 0 made the ends NaN until 2026-12-07)."""
    a, v = _arr(a), _arr(v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("convolve: a and v must be 1-D")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError("convolve: a and v cannot be empty")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    if mode == "full":
        start, length = 0, n + m - 1
    elif mode == "same":
        start, length = (m - 1) // 2, n
    elif mode == "valid":
        start, length = m - 1, n - m + 1
    else:
        raise ValueError(f"convolve: mode must be 'full', 'same' or 'valid', got {mode!r}")
    dtype = dt.result_type(a, v)
    zeros = _api.zeros((m - 1,), dtype=dtype, device=a.device)
    padded = _api.concat([zeros, a.astype(dtype), zeros])  # out[k] = sum_j padded[k + j] v[m - 1 - j]
    pos = _api.arange(start, start + length, dtype=dt.int64, device=a.device)._reshape([length, 1]) + \
        _api.arange(m, dtype=dt.int64, device=a.device)._reshape([1, m])
    terms = _api.take(padded, _api.reshape(pos, (-1,)))._reshape([length, m]) * _api.flip(v.astype(dtype))
    inside = (pos >= m - 1) & (pos < m - 1 + n)
    return _api.sum(_api.where(inside, terms, _api.zeros((), dtype=dtype, device=a.device)), axis=1)


# ---- padding ----
_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "maximum", "minimum", "mean", "median",
              "linear_ramp", "empty")
_PAD_STATS = {"maximum": "max", "minimum": "min", "mean": "mean", "median": "median"}


def _per_axis(spec, ndim, what):
    """NumPy's (before, after) per axis: one value, one (before, after) pair, or a pair per axis."""
    if not isinstance(spec, (list, tuple)):
        return [(spec, spec)] * ndim
    spec = list(spec)
    if len(spec) == 2 and not builtins.any(isinstance(p, (list, tuple)) for p in spec):
        return [tuple(spec)] * ndim
    pairs = [tuple(p) if isinstance(p, (list, tuple)) else (p, p) for p in spec]
    if len(pairs) == 1:
        pairs = pairs * ndim
    if len(pairs) != ndim or builtins.any(len(p) != 2 for p in pairs):
        raise ValueError(f"pad: {what} does not give (before, after) for each of {ndim} axes")
    return pairs


def _pad_widths(pad_width, ndim):
    widths = [(operator.index(b), operator.index(e)) for b, e in _per_axis(pad_width, ndim, "pad_width")]
    if builtins.any(b < 0 or e < 0 for b, e in widths):
        raise ValueError("pad: widths cannot be negative")
    return widths


def pad(array, pad_width, mode="constant", constant_values=0, stat_length=None, end_values=0, reflect_type="even"):
    """NumPy's pad, every mode: "constant" (constant_values: one number or per-axis (before, after)
    pairs), "edge", "reflect", "symmetric", "wrap", the statistics "maximum", "minimum", "mean" and
    "median" of the stat_length elements nearest each side (all by default; rounded for integers,
    as NumPy), "linear_ramp" from end_values to the edge, and "empty" (zeros here). The mirror
    modes take reflect_type "odd" too (since 2026-12-07): the values mirrored through the edge value,
    2 edge - x. Each axis in turn, a `cat` of slices (taken for the mirror modes), statistics or
    constants and the array."""
    x = _arr(array)
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be one of {_PAD_MODES}, got {mode!r}")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    widths = _pad_widths(pad_width, x.ndim)
    for ax, (b, e) in enumerate(widths):
        if b == 0 and e == 0:
            continue
        n = x.shape[ax]
        if n == 0 and mode not in ("constant", "empty"):
            raise ValueError(f"pad: can't extend an empty axis with mode {mode!r}")
        if mode in ("constant", "empty"):
            cb, ce = _per_axis(constant_values if mode == "constant" else 0, x.ndim, "constant_values")[ax]

            def fill(width, value):
                shape = list(x.shape)
                shape[ax] = width
                return _api.full(tuple(shape), value, dtype=x.dtype, device=x.device)

            parts = [fill(b, cb), x, fill(e, ce)]
        elif mode in _PAD_STATS:
            lb, le = _per_axis(stat_length, x.ndim, "stat_length")[ax]
            parts = [_pad_stat(x, ax, b, n, mode, lb, True), x, _pad_stat(x, ax, e, n, mode, le, False)]
        elif mode == "linear_ramp":
            vb, ve = _per_axis(end_values, x.ndim, "end_values")[ax]
            parts = [_pad_ramp(x, ax, b, n, vb, True), x, _pad_ramp(x, ax, e, n, ve, False)]
        else:
            odd = reflect_type == "odd" and mode in ("reflect", "symmetric")
            parts = [_pad_side(x, ax, b, n, mode, True, odd), x, _pad_side(x, ax, e, n, mode, False, odd)]
        x = _api.concat([p for p in parts if p.shape[ax]], axis=ax)
    return x if x is not array else x[...]


def _widened(part, ax, width):
    """part (length 1 along ax) repeated `width` times along ax."""
    shape = list(part.shape)
    shape[ax] = width
    return _api.broadcast_to(part, tuple(shape))


def _pad_stat(x, ax, width, n, mode, length, before):
    """The statistic of the `length` elements of axis `ax` nearest one side (all for None), repeated
    `width` times; integers get the statistic rounded half to even, as NumPy's."""
    if width == 0:
        return _along(x, ax, slice(0, 0))
    length = n if length is None else builtins.min(operator.index(length), n)
    if length <= 0:
        raise ValueError(f"pad: stat_length of {length} gives no value for mode {mode!r}")
    part = _along(x, ax, slice(0, length) if before else slice(n - length, n))
    stat = _PAD_STATS[mode]
    if stat in ("max", "min"):
        v = getattr(_api, stat)(part, axis=ax, keepdims=True)
    else:
        v = (_api.mean if stat == "mean" else median)(_float(part), axis=ax, keepdims=True)
        if x.dtype not in dt.FLOATING + dt.COMPLEX:
            v = _api.astype(_cgrad.round(v), x.dtype)
        elif v.dtype != x.dtype:
            v = _api.astype(v, x.dtype)
    return _widened(v, ax, width)


def _pad_ramp(x, ax, width, n, end, before):
    """`width` values from `end` (the outer one) towards the edge element, the edge excluded: step i
    of `width` is end + i (edge - end) / width (NumPy's linspace with endpoint=False), exact for
    integers (then floored, as NumPy's integer linspace floors)."""
    if width == 0:
        return _along(x, ax, slice(0, 0))
    edge = _along(x, ax, slice(0, 1) if before else slice(n - 1, n))
    steps = list(builtins.range(width) if before else builtins.range(width - 1, -1, -1))
    shape = [1] * x.ndim
    shape[ax] = width
    exact = x.dtype not in dt.FLOATING + dt.COMPLEX and isinstance(end, int)
    if not exact:
        edge = _float(edge)
    i = _api.reshape(_api.asarray(steps, dtype=dt.int64 if exact else edge.dtype, device=x.device), tuple(shape))
    if exact:  # floor(end + i d / w) = end + (i d) // w for integers
        ramp = end + _cgrad.floor_divide((_api.astype(edge, dt.int64) - end) * i, width)
    else:
        ramp = end + i * ((edge - end) / width)
        if x.dtype not in dt.FLOATING + dt.COMPLEX:
            ramp = _cgrad.floor(ramp)
    return _api.astype(ramp, x.dtype)


def _pad_side(x, ax, width, n, mode, before, odd=False):
    """The `width` elements that pad one side of axis `ax` (length n) in a non-constant mode. `odd`
    mirrors through the edge values: NumPy pads chunk by chunk, each 2 edge - chunk with the edge of
    the array padded so far, whose closed form is the even mirror image, flipped (2 last - x) in the
    second half of each period, plus q (last - first) * 2 for the q-th period (q < 0 before)."""
    if width == 0:
        return _along(x, ax, slice(0, 0))
    if mode == "edge":
        edge = _along(x, ax, slice(0, 1) if before else slice(n - 1, n))
        shape = list(x.shape)
        shape[ax] = width
        return _api.broadcast_to(edge, tuple(shape))
    # the index of each padded element in the original axis, periodic as NumPy's modes extend
    if before:
        offsets = list(builtins.range(-width, 0))
    else:
        offsets = list(builtins.range(n, n + width))
    if mode == "wrap":
        src = [o % n for o in offsets]
    else:  # reflect (edge not repeated) or symmetric (edge repeated)
        period = 2 * (n - 1) if mode == "reflect" else 2 * n
        src, flipped, q = [], [], []
        for o in offsets:
            if mode == "reflect" and n == 1:  # NumPy's legacy rule: the edge, odd or not
                src.append(0)
                flipped.append(False)
                q.append(0)
                continue
            r = o % period
            src.append(r if r < n else period - r - (1 if mode == "symmetric" else 0))
            flipped.append(r >= n)
            q.append(o // period)
    vals = _api.take(x, _api.asarray(src, dtype=dt.int64, device=x.device), axis=ax)
    if mode == "wrap" or not odd:
        return vals
    along = [width if d == ax else 1 for d in range(x.ndim)]
    first, last = _along(x, ax, slice(0, 1)), _along(x, ax, slice(n - 1, n))
    flip = _api.asarray(flipped, dtype=dt.bool, device=x.device)._reshape(along)
    periods = _api.asarray(q, dtype=x.dtype, device=x.device)._reshape(along)
    return _api.where(flip, 2 * last - vals, vals) + periods * (2 * (last - first))


# ---- more of NumPy's: differences, polynomials, sorting helpers, selection ----
def gradient(f, *varargs, axis=None, edge_order=1):
    """NumPy's gradient: second-order central differences inside, one-sided differences of
    `edge_order` (1 or 2) at the ends; spacing per axis a scalar (uniform) or the coordinates.
    One array per axis, or one array for one axis."""
    f = _float(_arr(f))
    axes = list(range(f.ndim)) if axis is None else [operator.index(a) % f.ndim for a in (
        axis if isinstance(axis, (list, tuple)) else (axis,))]
    if edge_order not in (1, 2):
        raise ValueError("gradient: edge_order must be 1 or 2")
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and len(axes) > 1 and not isinstance(varargs[0], Array) and \
            not hasattr(varargs[0], "__len__"):
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError(f"gradient: {len(varargs)} spacings for {len(axes)} axes")
    out = []
    for ax, h in zip(axes, spacing):
        n = f.shape[ax]
        if n < edge_order + 1:
            raise ValueError(f"gradient: an axis of length {n} needs at least edge_order + 1 = {edge_order + 1} points")
        sl = lambda s: _along(f, ax, s)  # noqa: E731
        if isinstance(h, (int, float)):
            h = float(h)
            mid = (sl(slice(2, None)) - sl(slice(None, -2))) / (2 * h)
            if edge_order == 1:
                first = (sl(slice(1, 2)) - sl(slice(0, 1))) / h
                last = (sl(slice(n - 1, n)) - sl(slice(n - 2, n - 1))) / h
            else:
                first = (-1.5 * sl(slice(0, 1)) + 2 * sl(slice(1, 2)) - 0.5 * sl(slice(2, 3))) / h
                last = (0.5 * sl(slice(n - 3, n - 2)) - 2 * sl(slice(n - 2, n - 1)) + 1.5 * sl(slice(n - 1, n))) / h
        else:
            x = _float(_arr(h))
            if x.ndim != 1 or x.shape[0] != n:
                raise ValueError("gradient: coordinates must be 1-D of the axis' length")
            d = _api.diff(x)
            shape = [1] * f.ndim
            shape[ax] = n - 2
            hd, hs = d[:-1]._reshape(shape), d[1:]._reshape(shape)  # the steps before and after
            mid = (hd * hd * sl(slice(2, None)) + (hs * hs - hd * hd) * sl(slice(1, -1))
                   - hs * hs * sl(slice(None, -2))) / (hd * hs * (hd + hs))
            if edge_order == 1:
                first = (sl(slice(1, 2)) - sl(slice(0, 1))) / d[0]
                last = (sl(slice(n - 1, n)) - sl(slice(n - 2, n - 1))) / d[-1]
            else:  # the second-order one-sided differences over uneven steps (NumPy's weights)
                d1, d2 = d[0], d[1]
                first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * sl(slice(0, 1)) + (d1 + d2) / (d1 * d2) * sl(slice(1, 2))
                         - d1 / (d2 * (d1 + d2)) * sl(slice(2, 3)))
                d1, d2 = d[-2], d[-1]
                last = (d2 / (d1 * (d1 + d2)) * sl(slice(n - 3, n - 2)) - (d2 + d1) / (d1 * d2) * sl(slice(n - 2, n - 1))
                        + (2 * d2 + d1) / (d2 * (d1 + d2)) * sl(slice(n - 1, n)))
        out.append(_api.concat([first, mid, last], axis=ax))
    return out[0] if len(out) == 1 else tuple(out)


def correlate(a, v, mode="valid"):
    """c[k] = sum_n a[n + k] conj(v[n]) ("valid" by default, "same", "full"), as NumPy's."""
    a, v = _arr(a), _arr(v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("correlate: a and v must be 1-D")
    if v.shape[0] > a.shape[0]:  # c_av[k] = conj(c_va[-k])
        return _cgrad.conj(_api.flip(correlate(v, a, mode)))
    return convolve(a, _cgrad.conj(_api.flip(v)), mode)


def polyval(p, x):
    """p[0] x^(n-1) + ... + p[n-1] by Horner's rule."""
    p, x = _arr(p), _arr(x)
    if p.ndim != 1:
        raise ValueError("polyval: p must be 1-D")
    r = _api.zeros_like(x) + p[0] if p.shape[0] else _api.zeros_like(x)
    for i in range(1, p.shape[0]):
        r = r * x + p[i]
    return r


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial of degree `deg` through (x, y) (y one column per fit), highest
    power first, as NumPy's: the Vandermonde matrix's rows weighted by w, its columns scaled to unit
    norm, lstsq with rcond (default len(x) eps). full: (coefficients, residuals, rank, singular
    values, rcond); cov: (coefficients, their covariance matrix, scaled by the residuals per degree
    of freedom unless cov="unscaled")."""
    x, y = _float(_arr(x)), _float(_arr(y))
    order = operator.index(deg) + 1
    if order < 1:
        raise ValueError("polyfit: expected deg >= 0")
    if x.ndim != 1 or x.shape[0] == 0 or y.ndim not in (1, 2) or y.shape[0] != x.shape[0]:
        raise ValueError("polyfit: x must be 1-D and non-empty, y 1-D or 2-D of x's length")
    n = x.shape[0]
    rcond = n * dt.finfo(x.dtype).eps if rcond is None else rcond
    lhs, rhs = _api.stack([x ** (order - 1 - i) for i in range(order)], axis=1), y
    if w is not None:
        w = _float(_arr(w))
        if w.ndim != 1 or w.shape[0] != n:
            raise ValueError("polyfit: w must be 1-D of x's length")
        lhs = lhs * w._reshape([n, 1])
        rhs = rhs * (w._reshape([n, 1]) if rhs.ndim == 2 else w)
    scale = _cgrad.sqrt(_api.sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    c, resids, rank, sv = _linalg.lstsq(lhs, rhs, rcond)
    c = (c.mT / scale).mT if c.ndim == 2 else c / scale
    if full:
        return c, resids, rank, sv, rcond
    if not cov:
        return c
    vbase = _linalg.inv(lhs.mT @ lhs) / outer(scale, scale)
    if cov == "unscaled":
        fac = 1.0
    else:
        if n <= order:
            raise ValueError("polyfit: the number of data points must exceed order to scale the covariance matrix")
        fac = resids / (n - order)
    return c, (vbase * fac if y.ndim == 1 else vbase._reshape([order, order, 1]) * fac)



def roots(p):
    """The roots of p[0] x^(n-1) + ... + p[n-1]: the eigenvalues of its companion matrix, as NumPy
    computes them, always complex (NumPy gives a real array when every root is real). Leading zeros
    are dropped and trailing ones give roots at 0, so p is read first (the result's length depends
    on its values)."""
    c = _float(_arr(p))
    if c.ndim != 1:
        raise ValueError("roots: p must be 1-D")
    cdt = dt.complex64 if c.dtype in (dt.float32, dt.complex64) else dt.complex128
    nz = _api.nonzero(c != 0)[0]  # evaluates
    if nz.shape[0] == 0:
        return _api.zeros((0,), dtype=cdt)
    first, last = builtins.int(nz[0]), builtins.int(nz[-1])
    trailing = c.shape[0] - 1 - last
    c = c[first:last + 1]
    n = c.shape[0] - 1
    r = _api.zeros((0,), dtype=cdt)
    if n > 0:  # the first row -c[1:] / c[0], the identity below it, shifted right by one
        comp = _api.concat([_api.reshape(-c[1:] / c[0], (1, n)), _api.eye(n - 1, n, dtype=c.dtype)], axis=0)
        r = _linalg.eigvals(comp)
    return _api.concat([r, _api.zeros((trailing,), dtype=cdt)]) if trailing else r


def _partition_args(a, kth, axis, kind, order, fn):
    """a (flattened for axis=None) and its axis, with NumPy's checks of kth, kind and order."""
    a = _arr(a)
    if kind != "introselect":
        raise ValueError(f"{fn}: kind must be 'introselect', got {kind!r}")
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if axis is None:
        a, axis = ravel(a), 0
    if a.ndim == 0:
        raise _cgrad.InvalidArgumentError(f"{fn}: axis {axis} is out of bounds for array of dimension 0")
    (axis,) = _api._axes_in(a, axis, fn)
    ks = _arr(kth)  # an int, a sequence or an array of ints
    if ks.ndim > 1:
        raise ValueError("object too deep for desired array")
    if ks.dtype == dt.bool:
        raise ValueError("Booleans unacceptable as partition index")
    if ks.dtype not in dt.INTEGRAL:
        raise TypeError("Partition index must be integer")
    n = a.shape[axis]
    for k in ks.tolist() if ks.ndim else [ks.item()]:
        if not -n <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")
    return a, axis


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A partition of a around kth: here fully sorted along `axis` (a valid partition; None: the
    flattened a)."""
    a, axis = _partition_args(a, kth, axis, kind, order, "partition")
    return _api.sort(a, axis=axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition a around kth: here the stable argsort (a valid partition)."""
    a, axis = _partition_args(a, kth, axis, kind, order, "argpartition")
    return _api.argsort(a, axis=axis)


def lexsort(keys, axis=-1):
    """The stable order along `axis` that sorts by the last key, then the one before, ...: keys of
    one shape, with at least one dim (a sequence, or the rows of an array: a 1-D array is a sequence
    of 0-d keys, which raises, where NumPy returns 0). N-D keys and `axis` since 2026-12-07."""
    keys = [_arr(k) for k in keys]
    if not keys or keys[0].ndim == 0 or builtins.any(k.shape != keys[0].shape for k in keys):
        raise ValueError("lexsort: needs one or more keys of one shape, with at least one dim")
    order = _api.argsort(keys[0], axis=axis, stable=True)
    for k in keys[1:]:
        order = _api.take_along_axis(order, _api.argsort(_api.take_along_axis(k, order, axis=axis), axis=axis,
                                                         stable=True), axis=axis)
    return order


def select(condlist, choicelist, default=0):
    """The choice of the first true condition, element by element; `default` where none is."""
    if len(condlist) != len(choicelist):
        raise ValueError("select: condlist and choicelist must have the same length")
    choices = [_arr(c) for c in choicelist]
    out = default
    for cond, choice in zip(reversed(condlist), reversed(choices)):
        out = _api.where(_arr(cond), choice, out)
    return out if isinstance(out, Array) else _api.asarray(out)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """NumPy's cross product of 3-vectors along the given axes (the 2-vectors NumPy 2 deprecates
    are refused, as linalg.cross refuses them)."""
    a, b = _arr(a), _arr(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    r = _linalg.cross(_api.moveaxis(a, axisa, -1), _api.moveaxis(b, axisb, -1))
    return _api.moveaxis(r, -1, axisc)


__all__ += ["histogramdd", "histogram2d", "gradient", "correlate", "polyval", "polyfit", "roots", "partition", "argpartition", "lexsort", "select", "cross"]


# ---- sets, searching and editing ----
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of `element` is among test_elements (any shape; NaN never is): a
    binary search of the sorted test elements, lazy. NumPy's assume_unique and kind change
    nothing here (one method serves all)."""
    e, t = _arr(element), ravel(test_elements)
    if t.shape[0] == 0:
        r = _api.zeros(e.shape, dtype=dt.bool, device=e.device)
    elif e.dtype in dt.COMPLEX or t.dtype in dt.COMPLEX:
        # the sort takes no complex values: each value's group number among both (unique_all, which
        # evaluates them; each NaN its own group), then isin of the numbers
        c = dt.result_type(e, t)
        ids = _api.unique_all(_api.concat([ravel(e).astype(c), t.astype(c)])).inverse_indices
        n = builtins.int(e.size)
        r = isin(ids[:n]._reshape(list(e.shape)), ids[n:])
    else:
        s = _api.sort(t)
        i = _cgrad.minimum(_api.searchsorted(s, e), t.shape[0] - 1)
        r = _api.take(s, _api.reshape(i, (-1,)))._reshape(list(e.shape)) == e
    return ~r if invert else r


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):  # noqa: A002 (NumPy's name)
    """NumPy's unique (`sorted=False` allows any order: the values come sorted all the same): of
    the flattened array, the sorted distinct values and, as asked, the first
    positions, the inverse (of ar's shape) and the counts; with `axis`, the distinct slices along
    it (the inverse 1-D). Evaluates ar (a data-dependent shape). With `equal_nan` (NumPy's
    default) the NaNs are one value, last, at the first NaN's position; without it each NaN is
    distinct (the standard's unique_all). Until 2026-12-07 equal_nan was ignored (always distinct)."""
    if axis is not None:
        return _unique_along(_arr(ar), axis, return_index, return_inverse, return_counts)
    u = _api.unique_all(_arr(ar))
    values, index, inverse, counts = u.values, u.indices, u.inverse_indices, u.counts
    if equal_nan and values.dtype in dt.FLOATING + dt.COMPLEX:
        k = int(_api.sum(~_cgrad.isnan(values)))  # the numbers; the NaNs follow in input order
        if values.shape[0] - k > 1:
            values, index = values[:k + 1], index[:k + 1]
            counts = _api.concat([counts[:k], _api.sum(counts[k:], keepdims=True)])
            inverse = _cgrad.minimum(inverse, k)
    extra = [r for r, want in ((index, return_index), (inverse, return_inverse), (counts, return_counts)) if want]
    return values if not extra else (values, *extra)


def _unique_along(a, axis, return_index, return_inverse, return_counts):
    """unique(a, axis=...): the distinct slices along `axis`, sorted lexicographically (the first
    element of a slice the most significant, as NumPy), by stable sorts from the last element to
    the first; the first positions, the inverse (1-D) and the counts as asked."""
    axis = operator.index(axis)
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"unique: axis {axis} is out of bounds for an array of {a.ndim} dims")
    axis %= a.ndim
    moved = _api.moveaxis(a, axis, 0)
    n = moved.shape[0]
    rows = _api.reshape(moved, (n, math.prod(moved.shape[1:])))
    perm = _api.arange(n, dtype=dt.int64)
    for col in builtins.range(rows.shape[1] - 1, -1, -1):
        perm = _api.take(perm, _api.argsort(_api.take(rows[:, col], perm), stable=True))
    srt = _api.take(rows, perm, axis=0)
    first = _api.concat([_api.ones((builtins.min(n, 1),), dtype=dt.bool),
                         _api.any(srt[1:] != srt[:-1], axis=1)]) if rows.shape[1] else \
        _api.arange(n) == 0
    keep = _api.nonzero(first)[0]  # evaluates: the number of distinct slices
    k = keep.shape[0]
    values = _api.moveaxis(_api.reshape(_api.take(srt, keep, axis=0), (k,) + moved.shape[1:]), 0, axis)
    extra = []
    if return_index:
        extra.append(_api.take(perm, keep))
    if return_inverse:
        group = _api.cumulative_sum(_api.astype(first, dt.int64)) - 1
        extra.append(_api.take(group, _api.argsort(perm)))
    if return_counts:
        extra.append(_api.diff(_api.concat([keep, _api.asarray([n], dtype=keep.dtype)])))
    return values if not extra else (values, *extra)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted distinct values in both (evaluated: a data-dependent length; NaN is in none), in
    the dtype both promote to (NumPy's). assume_unique changes nothing (the same values when the
    inputs are unique). return_indices (NumPy's, since 2026-12-07): also the positions in the
    flattened ar1 and ar2 of each common value's first occurrence."""
    if not return_indices:
        u, t = unique(ar1), _arr(ar2)
        r = u[isin(u, t)]
        c = dt.result_type(r, t)
        return r if r.dtype == c else r.astype(c)
    u1, i1 = unique(ar1, return_index=True)
    u2, i2 = unique(ar2, return_index=True)
    in1, in2 = isin(u1, u2), isin(u2, u1)  # the common values, in the same sorted order in both
    r = u1[in1]
    c = dt.result_type(r, u2)
    return (r if r.dtype == c else r.astype(c)), i1[in1], i2[in2]


def union1d(ar1, ar2):
    """The sorted distinct values in either, NaNs as one (NumPy's unique)."""
    return unique(_api.concat([ravel(ar1), ravel(ar2)]))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted distinct values of ar1 not in ar2, NaNs as one (NumPy's unique); with
    assume_unique (NumPy's), ar1's values not in ar2 in ar1's order, unsorted."""
    u = ravel(ar1) if assume_unique else unique(ar1)
    return u[isin(u, ar2, invert=True)]


def argwhere(a):
    """The indices of the nonzero elements, one row each (evaluated)."""
    a = _arr(a)
    if a.ndim == 0:
        raise ValueError("argwhere: a 0-d array has no index rows (use atleast_1d)")
    return _api.stack(_api.nonzero(a), axis=1)


def flatnonzero(a):
    return _api.nonzero(ravel(a))[0]


def array_equal(a1, a2, equal_nan=False):
    """True when both have one shape and equal elements (NaN equal to NaN with equal_nan)."""
    a1, a2 = _arr(a1), _arr(a2)
    if a1.shape != a2.shape:
        return False
    eq = a1 == a2
    if equal_nan and a1.dtype in dt.FLOATING + dt.COMPLEX:
        eq = _cgrad.logical_or(eq, _cgrad.logical_and(_cgrad.isnan(a1), _cgrad.isnan(a2)))
    return builtins.bool(_api.all(eq))


def append(arr, values, axis=None):
    if axis is None:
        return _api.concat([ravel(arr), ravel(values)])
    return _api.concat([_arr(arr), _arr(values)], axis=axis)


def delete(arr, obj, axis=None):
    """arr without the elements (axis None: of the flattened array) or slices at obj (an int, a
    slice, a sequence of ints, or a boolean mask of the axis's length, NumPy's: True deletes; until
    2026-12-07 a mask's values were read as the indices 0 and 1): a take of the positions kept."""
    a = _arr(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = operator.index(axis) % a.ndim
    n = a.shape[axis]
    values = None if isinstance(obj, (int, slice)) else obj.tolist() if hasattr(obj, "tolist") else list(obj)
    mask = getattr(obj, "dtype", None) in (dt.bool, "bool") or (
        isinstance(values, list) and values and builtins.all(isinstance(v, builtins.bool) for v in values))
    if mask:
        if not isinstance(values, list) or len(values) != n or builtins.any(isinstance(v, list) for v in values):
            raise ValueError(f"delete: a boolean obj must be one dimensional and match the axis length of {n}")
        drop = {i for i, v in enumerate(values) if v}
    elif isinstance(obj, slice):
        drop = set(builtins.range(*obj.indices(n)))
    else:
        items = [obj] if isinstance(obj, int) else [operator.index(i) for i in values]
        for i in items:
            if not -n <= i < n:
                raise IndexError(f"delete: index {i} is out of bounds for axis {axis} with size {n}")
        drop = {i % n for i in items}
    keep = [i for i in builtins.range(n) if i not in drop]
    return _api.take(a, _api.asarray(keep, dtype=dt.int64, device=a.device), axis=axis)


__all__ += ["isin", "unique", "intersect1d", "union1d", "setdiff1d", "argwhere", "flatnonzero", "array_equal",
            "append", "delete"]


# ---- NumPy's names for the standard's functions, and functions close to them ----
@_writes_out
def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    """concat; axis=None concatenates the flattened arrays (NumPy's rule); dtype: each array cast
    to it first, under NumPy's casting rule."""
    arrays = [ravel(a) for a in arrays] if axis is None else [_arr(a) for a in arrays]
    return _api.concat(arrays, axis=0 if axis is None else axis, dtype=dtype, casting=casting)


def transpose(a, axes=None):
    """permute_dims; without axes, the dims reversed."""
    a = _arr(a)
    return _api.permute_dims(a, tuple(reversed(range(a.ndim))) if axes is None else tuple(axes))


def around(a, decimals=0):
    """Rounded to `decimals` places (half to even), as NumPy's: round(a 10^d) / 10^d."""
    a = _arr(a)
    decimals = operator.index(decimals)
    if decimals == 0:
        return _cgrad.round(a)
    if a.dtype in dt.COMPLEX:  # each part on its own, as NumPy's (a complex product made inf * 0 = NaN)
        return _cgrad._complex(around(_cgrad.real(a), decimals), around(_cgrad.imag(a), decimals))
    if a.dtype in dt.INTEGRAL:
        if decimals > 0:
            return a[...]
        scale = 10 ** -decimals
        return (_cgrad.round(a.astype(dt.float64) / scale) * scale).astype(a.dtype)
    scale = 10.0 ** decimals
    return _cgrad.round(a * scale) / scale


round_ = around


def round(x, /, decimals=0):  # noqa: A001 (the standard's name)
    """The standard's `round` (half to even), with NumPy's `decimals` (`around`'s; before
    2026-12-07 `round(x, 2)` raised TypeError)."""
    return _cgrad.round(x) if isinstance(x, Array) and decimals == 0 else around(x, decimals)


def _times_constant(x, k):
    """x * k rounded once: float16 and float32 multiply in the next wider dtype (a float16 constant
    put 12170 of the 63488 finite float16 values of `deg2rad` one unit off, until 2026-12-07)."""
    x = _float(_arr(x))
    wide = {dt.float16: dt.float32, dt.float32: dt.float64}.get(x.dtype)
    return x * k if wide is None else (x.astype(wide) * k).astype(x.dtype)


def deg2rad(x):
    return _times_constant(x, math.pi / 180)


def rad2deg(x):
    return _times_constant(x, 180 / math.pi)


radians, degrees = deg2rad, rad2deg


@_float16_in_float32
def sinc(x):
    """sin(pi x) / (pi x), 1 at 0. sin(pi x) is taken of x reduced exactly to [-1/2, 1/2] (x - 2
    round(x / 2), then +-1 - r past +-1/2), so it has its own dtype's relative accuracy near every
    zero: sin of a rounded pi x had none there (sinc(1000.5) was off in the ninth digit in float64;
    until 2026-12-07), and integers past 2^53 give 0."""
    x = _float(_arr(x))
    zero = x == 0
    r = x - 2.0 * _cgrad.round(x * 0.5)  # in [-1, 1]; sin(pi r) = sin(pi (+-1 - r)), each step of slope +-1
    t = _api.where(r > 0.5, 1.0 - r, _api.where(r < -0.5, -1.0 - r, r))
    sin_pix = _cgrad.sin(math.pi * t)
    return _api.where(zero, 1.0, sin_pix / (math.pi * _api.where(zero, 1.0, x)))


def heaviside(x1, x2):
    """0 below zero, x2 at zero, 1 above (NaN stays NaN)."""
    x1 = _float(_arr(x1))
    r = _api.where(x1 < 0, 0.0, _api.where(x1 > 0, 1.0, x2))
    return _api.where(_cgrad.isnan(x1), x1, r)


def cbrt(x):
    """The real cube root: |x|^(1/3) with x's sign, one Newton step to the nearest value."""
    x = _float(_arr(x))
    y = _cgrad.sign(x) * _cgrad.abs(x) ** (1.0 / 3.0)
    ok = _cgrad.logical_and(y != 0, _cgrad.isfinite(y))
    ys = _api.where(ok, y, 1.0)
    return _api.where(ok, ys - (ys * ys * ys - x) / (3.0 * ys * ys), y)


def exp2(x):
    """2^x; of complex x, exp of x's parts each times log 2 (2.0 ** x multiplied x by the complex
    log 2 + 0j, so 0 * inf made exp2(inf + 0j) inf + nanj until 2026-12-07)."""
    x = _float(_arr(x))
    if x.dtype in dt.COMPLEX:
        return _cgrad.exp(_cgrad._complex(_cgrad.real(x) * math.log(2), _cgrad.imag(x) * math.log(2)))
    return 2.0 ** x


@_float16_in_float32
def logaddexp2(x1, x2):
    """log2(2^x1 + 2^x2) without overflow."""
    x1, x2 = _float(_arr(x1)), _float(_arr(x2))
    m = _cgrad.maximum(x1, x2)
    d = _cgrad.abs(x1 - x2)
    r = m + _cgrad.log1p(2.0 ** -_api.where(_cgrad.isnan(d), 0.0, d)) / math.log(2)
    return _api.where(x1 == x2, x1 + 1.0, _api.where(_cgrad.isnan(d), x1 + x2, r))


def float_power(x1, x2):
    """x1 ** x2 in float64 (complex128 for complex operands)."""
    x1 = _arr(x1)
    return x1.astype(dt.complex128 if x1.dtype in dt.COMPLEX else dt.float64) ** x2


def fmax(x1, x2):
    """maximum ignoring NaN: the other operand where one is NaN."""
    x1, x2 = _arr(x1), _arr(x2)
    return _api.where(_cgrad.isnan(x1), x2, _api.where(_cgrad.isnan(x2), x1, _cgrad.maximum(x1, x2)))


def fmin(x1, x2):
    x1, x2 = _arr(x1), _arr(x2)
    return _api.where(_cgrad.isnan(x1), x2, _api.where(_cgrad.isnan(x2), x1, _cgrad.minimum(x1, x2)))


def divmod(x1, x2):  # noqa: A001 (NumPy's name)
    return _cgrad.floor_divide(x1, x2), _cgrad.remainder(x1, x2)


power = _cgrad.pow
absolute = _cgrad.abs
arccos, arcsin, arctan = _cgrad.acos, _cgrad.asin, _cgrad.atan
arccosh, arcsinh, arctanh = _cgrad.acosh, _cgrad.asinh, _cgrad.atanh
invert, left_shift, right_shift = _cgrad.bitwise_invert, _cgrad.bitwise_left_shift, _cgrad.bitwise_right_shift
conjugate, true_divide, mod = _cgrad.conj, _cgrad.divide, _cgrad.remainder
amax, amin = _api.max, _api.min
rint, fix = _cgrad.round, _cgrad.trunc

__all__ += ["concatenate", "transpose", "around", "round", "round_", "deg2rad", "rad2deg", "radians", "degrees", "sinc",
            "heaviside", "cbrt", "exp2", "logaddexp2", "float_power", "fmax", "fmin", "divmod", "power", "absolute",
            "arccos", "arcsin", "arctan", "arccosh", "arcsinh", "arctanh", "invert", "left_shift", "right_shift",
            "conjugate", "true_divide", "mod", "amax", "amin", "rint", "fix"]


# ---- NumPy's ndarray methods on cgrad arrays ----
def _diagonal(a, offset=0, axis1=0, axis2=1):
    """NumPy's diagonal: over axis1 and axis2 (default the first two), the result's last dim."""
    a = _arr(a)
    return _linalg.diagonal(_api.moveaxis(a, (axis1, axis2), (-2, -1)), offset=offset)


def _install_methods():
    A = Array
    A.transpose = lambda self, *axes: transpose(
        self, axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else (axes or None))
    A.flatten = A.ravel = lambda self, order="C": ravel(self, order)
    A.copy = lambda self, order="C": self._clone()  # evaluates: a buffer of its own, as NumPy's copy
    # NumPy's method signatures, positional order included (until 2026-12-07 x.max(1, None, True) took
    # True for out=, the methods' order being sum's; x.any(0, None, True) and x.clip(1, 5, None) raised)
    A.argmax = lambda self, axis=None, out=None, *, keepdims=False: _to_out(out, _api.argmax(
        self, axis=axis, keepdims=keepdims), "argmax")
    A.argmin = lambda self, axis=None, out=None, *, keepdims=False: _to_out(out, _api.argmin(
        self, axis=axis, keepdims=keepdims), "argmin")
    A.cumsum = lambda self, axis=None, dtype=None, out=None: _to_out(out, cumsum(self, axis, dtype), "cumsum")
    A.cumprod = lambda self, axis=None, dtype=None, out=None: _to_out(out, cumprod(self, axis, dtype), "cumprod")

    def spread(fn):
        """NumPy's x.var(axis, dtype, out, ddof, keepdims, *, where, mean, correction) and x.std."""
        def method(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None,
                   correction=0):
            return _to_out(out, fn(self, axis=axis, correction=correction, ddof=ddof, keepdims=keepdims, dtype=dtype,
                                   mean=mean, where=where), fn.__name__)
        return method

    A.std, A.var = spread(_api.std), spread(_api.var)

    def reduction(fn):
        """NumPy's x.sum(axis, dtype, out, keepdims, initial, where) and x.prod."""
        def method(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
            return _to_out(out, fn(self, axis=axis, keepdims=keepdims, initial=initial, dtype=dtype, where=where),
                           fn.__name__)
        return method

    def extremum(fn):
        """NumPy's x.max(axis, out, keepdims, initial, where) and x.min: no dtype."""
        def method(self, axis=None, out=None, keepdims=False, initial=None, where=True):
            return _to_out(out, fn(self, axis=axis, keepdims=keepdims, initial=initial, where=where), fn.__name__)
        return method

    def logical(fn):
        """NumPy's x.any(axis, out, keepdims, *, where) and x.all."""
        def method(self, axis=None, out=None, keepdims=False, *, where=True):
            return _to_out(out, fn(self, axis=axis, keepdims=keepdims, where=where), fn.__name__)
        return method

    # NumPy's x.mean(axis, dtype, out, keepdims, *, where); np.mean(x) calls it with keywords
    A.mean = lambda self, axis=None, dtype=None, out=None, keepdims=False, *, where=True: _to_out(
        out, _api.mean(self, axis=axis, keepdims=keepdims, dtype=dtype, where=where), "mean")

    A.sum, A.prod = reduction(_api.sum), reduction(_api.prod)
    A.max, A.min = extremum(_api.max), extremum(_api.min)
    A.any, A.all = logical(_api.any), logical(_api.all)
    A.clip = lambda self, min=None, max=None, out=None: _to_out(  # noqa: A002
        out, _api.clip(self, min, max), "clip", ufunc=True)
    A.round = lambda self, decimals=0, out=None: _to_out(out, around(self, decimals), "round")
    A.dot = lambda self, b, out=None: dot(self, b, out)
    A.squeeze = lambda self, axis=None: _api.squeeze(self, axis)
    A.conj = A.conjugate = lambda self: _cgrad.conj(self)
    A.real = property(lambda self: _cgrad.real(self))
    A.imag = property(lambda self: _cgrad.imag(self))
    A.itemsize = property(lambda self: self.dtype.itemsize)
    A.nbytes = property(lambda self: self.size * self.dtype.itemsize)
    A.argsort = lambda self, axis=-1, kind=None, order=None, *, stable=None: _api.argsort(
        self, axis=axis, stable=True, kind=kind, order=order)  # every order cgrad gives is stable
    A.nonzero = lambda self: tuple(_api.nonzero(self))
    A.swapaxes = lambda self, axis1, axis2: swapaxes(self, axis1, axis2)
    A.repeat = lambda self, repeats, axis=None: _api.repeat(self, repeats, axis=axis)
    A.take = lambda self, indices, axis=None, out=None, mode=None: _to_out(out, _api.take(
        ravel(self) if axis is None else self, indices, axis=0 if axis is None else axis, mode=mode), "take")
    A.diagonal = lambda self, offset=0, axis1=0, axis2=1: _diagonal(self, offset, axis1, axis2)
    A.trace = lambda self, offset=0, axis1=0, axis2=1, dtype=None, out=None: _to_out(out, _api.sum(
        _diagonal(self, offset, axis1, axis2), axis=-1, dtype=dtype), "trace")

    def sort(self, axis=-1, kind=None, order=None, *, stable=None):  # in place, as NumPy's (every handle sees it)
        self.assign(_api.sort(self, axis=axis, kind=kind, order=order))

    def fill(self, value):  # in place
        self.assign(_api.full_like(self, value))

    def zero_(self):  # PyTorch's, in place (`w.grad.zero_()` resets the accumulated gradient)
        fill(self, 0)
        return self

    A.sort, A.fill, A.zero_ = sort, fill, zero_


_install_methods()


# ---- index helpers and constructors ----
def indices(dimensions, dtype=None, sparse=False):
    """The coordinate grids of an array of shape `dimensions`: (ndim, *dimensions), or with sparse
    one broadcastable array per dim."""
    d = dt.int64 if dtype is None else dt.as_dtype(dtype)
    grids = []
    for i, n in enumerate(dimensions):
        shape = [1] * len(dimensions)
        shape[i] = n
        grids.append(_api.arange(n, dtype=d)._reshape(shape))
    if sparse:
        return tuple(grids)
    return _api.stack([_api.broadcast_to(g, tuple(dimensions)) for g in grids]) if grids else \
        _api.zeros((0,), dtype=d)


def ix_(*args):
    """Open-mesh index arrays: the k-th 1-D argument shaped to broadcast along dim k (boolean
    arguments become their nonzero positions)."""
    out = []
    for k, a in enumerate(args):
        a = _arr(a)
        if a.ndim != 1:
            raise ValueError("ix_: cross index must be 1 dimensional")
        if a.dtype == dt.bool:
            a = _api.nonzero(a)[0]
        shape = [1] * len(args)
        shape[k] = a.shape[0]
        out.append(a._reshape(shape))
    return tuple(out)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat positions (row-major, or column-major with order="F") of coordinate arrays in an
    array of shape `dims`. `mode` is NumPy's for a coordinate out of range: "raise" (ValueError,
    for host-known coordinates: ints, lists, NumPy arrays; until 2026-12-07 they gave other
    positions silently; a lazy cgrad array's are not checked), "wrap" (modulo the dim) or "clip";
    one mode or one per dim."""
    dims = tuple(operator.index(d) for d in dims)
    if len(multi_index) != len(dims):
        raise ValueError("ravel_multi_index: one index array per dim")
    modes = [mode] * len(dims) if isinstance(mode, str) else list(mode)
    if order not in ("C", "F") or len(modes) != len(dims) or builtins.any(m not in ("raise", "wrap", "clip")
                                                                          for m in modes):
        raise ValueError("ravel_multi_index: order must be 'C' or 'F', and mode 'raise', 'wrap' or 'clip'")
    idx = []
    for i, n, m in zip(multi_index, dims, modes):
        if m == "raise" and _host_outside(i, 0, n) is not None:
            raise ValueError("ravel_multi_index: invalid entry in coordinates array")
        v = _arr(i).astype(dt.int64)
        idx.append(v % n if m == "wrap" else _api.clip(v, 0, n - 1) if m == "clip" else v)
    if order == "F":
        idx, dims = idx[::-1], dims[::-1]
    flat, stride = 0, 1
    for i, n in zip(reversed(idx), reversed(dims)):
        flat = flat + i * stride
        stride *= n
    return flat


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D x: columns x^(N-1), ..., x^0 (reversed with increasing).
    Integers and bools in int64 (uint64 in float64), as NumPy's promotion with int (int16 powers
    overflowed in int16 until 2026-12-07); floats keep their dtype (NumPy: float64 for float32)."""
    x = _arr(x)
    if x.ndim != 1:
        raise ValueError("vander: x must be 1-D")
    x = x.astype(dt.result_type(x.dtype, dt.int64))
    n = x.shape[0] if N is None else operator.index(N)
    powers = range(n) if increasing else range(n - 1, -1, -1)
    if n == 0:
        return _api.zeros((x.shape[0], 0), dtype=x.dtype, device=x.device)
    return _api.stack([x ** p if p else _api.ones_like(x) for p in powers], axis=1)


def tri(N, M=None, k=0, dtype=None):
    """Ones on and below the k-th diagonal of an N x M matrix, zeros above."""
    d = dt.float32 if dtype is None else dt.as_dtype(dtype)
    return _api.tril(_api.ones((N, N if M is None else M), dtype=d), k=k)


def insert(arr, obj, values, axis=None):
    """arr with `values` inserted before position obj (an int: values broadcast to one slice, or
    a sequence of ints: one slice each) along axis (None: the flattened array)."""
    a = _arr(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = operator.index(axis) % a.ndim
    n = a.shape[axis]
    vals = _arr(values).astype(a.dtype)
    if isinstance(obj, int):
        i = obj + n if obj < 0 else obj
        if not 0 <= i <= n:
            raise IndexError(f"insert: index {obj} is out of bounds for axis {axis} with size {n}")
        shape = list(a.shape)
        if vals.ndim == a.ndim and vals.shape[axis] != 1 and vals.ndim:
            shape[axis] = vals.shape[axis]  # a block of slices
        else:
            shape[axis] = 1
            if vals.ndim == a.ndim - 1 or vals.ndim == 0:
                vals = _api.expand_dims(vals, axis=axis) if vals.ndim else vals
        block = _api.broadcast_to(vals, tuple(shape))
        return _api.concat([_along(a, axis, slice(0, i)), block, _along(a, axis, slice(i, n))], axis=axis)
    positions = [operator.index(p) for p in obj]
    positions = [p + n if p < 0 else p for p in positions]
    if builtins.any(not 0 <= p <= n for p in positions):
        raise IndexError(f"insert: an index of {list(obj)} is out of bounds for axis {axis} with size {n}")
    shape = list(a.shape)
    shape[axis] = len(positions)
    if vals.ndim == 1 and a.ndim > 1:  # one value per inserted slice, along the axis
        vals = vals._reshape([len(positions) if d == axis else 1 for d in range(a.ndim)])
    block = _api.broadcast_to(vals, tuple(shape))
    order = sorted(range(len(positions)), key=lambda j: positions[j])  # stable: NumPy's order
    parts, prev = [], 0
    for j in order:
        p = positions[j]
        parts += [_along(a, axis, slice(prev, p)), _along(block, axis, slice(j, j + 1))]
        prev = p
    parts.append(_along(a, axis, slice(prev, n)))
    return _api.concat([q for q in parts if q.shape[axis]], axis=axis)


__all__ += ["indices", "ix_", "ravel_multi_index", "vander", "tri", "insert"]
