"""The Python half of cgrad.Array: indexing, conversions, repr, DLPack and NumPy hooks. The
operators and the C++ calls are bound in the extension (python/src/module.cpp); this module
adds the methods that are easier to write in Python to the same class."""
import builtins
import math
import operator
import threading

from . import _cgrad
from . import _dtypes as dt

Array = _cgrad.Array
Device = _cgrad.Device
_c_str = Array.__str__  # the C++ rendering, the fallback without NumPy


def _dtype(self):
    return dt.from_c(self._dtype)


def _T(self):
    if self.ndim != 2:
        raise ValueError(f"x.T needs a 2-D array (use x.mT or permute_dims), got {self.ndim}-D")
    return self._permute([1, 0])


# ---- indexing ----
_BASIC_KEYS = frozenset((int, slice, type(None), type(Ellipsis), Array))


def _arrays_in_key(self, key):
    """NumPy arrays and lists in an index (`x[np.array([0, 2])]`, `x[[0, 2]]`, `x[[True, False]]`)
    as cgrad arrays on x's device, as NumPy reads them (until 2026-12-05 they raised IndexError).
    Ints, slices, None, ... and Arrays pass by a type check (the common case, every x[key])."""
    if type(key) is tuple:
        for k in key:
            if type(k) not in _BASIC_KEYS:
                _check_host_indices(self, key)
                return tuple(_array_in_key(self, k) for k in key)
        return key
    if type(key) in _BASIC_KEYS:
        return key
    _check_host_indices(self, (key,))
    return _array_in_key(self, key)


def _check_host_indices(self, key):
    """NumPy's IndexError for an integer list or NumPy array in `key` with a value outside its
    axis: its values are on the host, so the check costs no evaluation. (A cgrad index array stays
    lazy: out of range it reads 0 and writes nothing, take's fill mode. Until 2026-12-07 host
    indices did too: `x[[0, 5]]` of 3 rows gave a row of zeros.)"""
    host = [isinstance(k, list) or (not isinstance(k, Array) and hasattr(k, "__array__") and getattr(k, "ndim", 0) > 0)
            for k in key]
    if not builtins.any(host):
        return
    try:
        import numpy as np
    except ImportError:  # a list without NumPy: left to take's rule
        return
    values = [np.asarray(k) if h else None for k, h in zip(key, host)]
    # the axes each element stands for (a cgrad mask counted one until 2026-12-07: `x[m2d, [2]]`
    # checked 2 against axis 1)
    width = [_key_width(k, v) for k, v in zip(key, values)]
    axis = 0
    for k, v, w in zip(key, values, width):
        if k is Ellipsis:
            axis += self.ndim - builtins.sum(width)
            continue
        if v is not None and v.dtype.kind in "iu" and axis < self.ndim:
            _check_host_indices_of_axis(v, self.shape[axis], axis)
        axis += w


def _host_outside(v, lo, hi):
    """The first of the host-known integers `v` (an int, a list, a NumPy array) outside [lo, hi), or
    None (none is; `v` is a lazy cgrad array, or not integers; no NumPy to read a list with)."""
    if isinstance(v, Array):
        return None
    try:
        import numpy as np
    except ImportError:
        return None
    v = np.asarray(v)
    if v.dtype.kind not in "iu" or not v.size:
        return None
    bad = (v < lo) | (v >= hi)
    return int(v.reshape(-1)[np.flatnonzero(bad)[0]]) if bad.any() else None


def _check_host_indices_of_axis(v, n, axis=0):
    """NumPy's IndexError where host integers `v` (a list, a NumPy array) hold one outside [-n, n)."""
    i = _host_outside(v, -n, n)
    if i is not None:
        raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")


def _no_numbers(v):
    return isinstance(v, list) and builtins.all(_no_numbers(e) for e in v)


def _array_in_key(self, k):
    if not isinstance(k, (Array, list)) and getattr(k, "ndim", None) == 0 and hasattr(k, "__index__"):
        return operator.index(k)  # a 0-d NumPy integer array indexes as an int (NumPy's rule)
    if isinstance(k, list) or (not isinstance(k, (Array, int, slice, builtins.bool)) and k is not None
                               and k is not Ellipsis and hasattr(k, "__array__") and getattr(k, "ndim", 0) > 0):
        from . import _api

        # a list with no numbers ([], [[], []]) indexes with no positions (NumPy's intp), not an
        # empty float array (nested ones raised until 2026-12-07)
        return _api.asarray(k, dtype=dt.int64 if isinstance(k, list) and _no_numbers(k) else None,
                            device=self.device)
    return k


def _is_array_key(key):
    """A boolean mask, or a tuple of ints and integer arrays with at least one array."""
    if isinstance(key, Array):
        return True
    return (isinstance(key, tuple) and builtins.any(isinstance(k, Array) for k in key)
            and builtins.all(isinstance(k, Array) or (not isinstance(k, (slice, bool)) and k is not None
                                                      and k is not Ellipsis) for k in key))


def _mask_key(self, key):
    if key.ndim > self.ndim or not builtins.all(k in (n, 0) for n, k in zip(self.shape, key.shape)):
        raise IndexError(f"boolean index of shape {key.shape} does not match the array's shape {self.shape}")


def _array_key(self, key):
    """An integer-array key (a tuple of ints and integer arrays, broadcast together; ints count as
    0-d arrays) as (flat, nk): the flat position in x's first nk dims, an int64 array of the
    indices' shape. A position outside some dim's range (after one wrap of negatives) is made
    prod(shape[:nk]), outside the flattened range too, so it reads 0 (take's fill mode) and writes
    nothing rather than landing on another row."""
    from . import _api

    if not isinstance(key, tuple):
        key = (key,)
    if len(key) > self.ndim:
        raise IndexError(f"too many indices: array is {self.ndim}-D, index has {len(key)}")
    shapes = [tuple(k.shape) for k in key if isinstance(k, Array)]
    try:  # NumPy's and PyTorch's IndexError (cgrad's broadcast raised ShapeError until 2026-12-07)
        if len(shapes) > 1:
            _api.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with shapes "
                         + " ".join(str(sh) for sh in shapes)) from None
    flat, valid = 0, None
    for d, k in enumerate(key):
        n = self.shape[d]
        if isinstance(k, Array):
            if k.dtype not in dt.INTEGRAL or k.dtype == dt.bool:
                raise IndexError(f"cgrad: index arrays must have an integer or boolean dtype, got {k.dtype}")
            k = k.astype(dt.int64)
            ok = _cgrad.logical_and(k >= -n, k < n)
            valid = ok if valid is None else _cgrad.logical_and(valid, ok)
            k = _cgrad._where(k < 0, k + n, k)
        else:
            k = operator.index(k)
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {d} with size {n}")
            k %= n
        stride = math.prod(self.shape[d + 1:len(key)])
        flat = flat + k * stride
    if not isinstance(flat, Array):
        flat = _api.asarray(flat, dtype=dt.int64, device=self.device)
    if valid is not None and len(key) > 1:
        flat = _cgrad._where(valid, flat, math.prod(self.shape[:len(key)]))
    return flat, len(key)


def _gather(self, key):
    """x[key] for integer arrays or one boolean mask: the flat position in the indexed dims, then
    one take along the flattened dims. A mask goes through nonzero, which evaluates it (a
    synchronisation point)."""
    from . import _api

    if isinstance(key, Array) and key.dtype == dt.bool:
        _mask_key(self, key)
        if key.ndim == 0:
            if builtins.bool(key):
                return self._reshape([1, *self.shape])
            return _api.zeros((0, *self.shape), dtype=self.dtype, device=self.device)
        key = tuple(_cgrad._nonzero(key))
    flat, nk = _array_key(self, key)
    x = self._reshape([math.prod(self.shape[:nk]), *self.shape[nk:]])
    return _cgrad._take(x, flat, 0)


def _scatter_set(self, key, value):
    """x[int arrays] = v: where an index repeats, its last value wins (as NumPy's loop leaves it).
    The indices are sorted (stable), the last of each run of equal ones keeps its value and the
    others add -0 (x + -0 is x for every x), one scatter_add of the values and one of the hits, and
    a where keeps x where nothing landed. Out-of-range indices write nothing (take's fill mode)."""
    from . import _api

    flat, nk = _array_key(self, key)
    rest = list(self.shape[nk:])
    target = tuple(flat.shape) + tuple(rest)
    v = _fit_value(value.astype(self.dtype), target, False)
    count = math.prod(flat.shape)
    if count == 0:
        return
    rows = math.prod(self.shape[:nk])
    work = dt.uint8 if self.dtype == dt.bool else self.dtype  # scatter_add takes no bools
    f = flat._reshape([count])
    order = _api.argsort(f, stable=True)
    fs = _cgrad._take(f, order, 0)
    vs = _cgrad._take(v._reshape([count, *rest]).astype(work), order, 0)
    if count > 1:
        last = _api.concat([fs[:-1] != fs[1:], _api.ones((1,), dtype=dt.bool, device=self.device)])
    else:
        last = _api.ones((1,), dtype=dt.bool, device=self.device)
    last_rows = last._reshape([count] + [1] * len(rest))

    def scatter(part):  # a real dtype's values to their rows: -0 elsewhere and from the others
        zero = -0.0 if part.dtype in dt.FLOATING else 0
        base = _api.full((rows, *rest), zero, dtype=part.dtype, device=self.device)
        return _cgrad._scatter_add(base, fs, _cgrad._where(last_rows, part, zero), 0)

    if work in dt.COMPLEX:  # scatter_add takes real dtypes: each part on its own
        vals = _cgrad._complex(scatter(_cgrad.real(vs)), scatter(_cgrad.imag(vs)))
    else:
        vals = scatter(vs)
    hits = _cgrad._scatter_add(_api.zeros((rows,), dtype=dt.int32, device=self.device), fs,
                               last.astype(dt.int32), 0)
    hit_rows = (hits > 0)._reshape([rows] + [1] * len(rest))
    out = _cgrad._where(hit_rows, vals.astype(self.dtype), self._reshape([rows, *rest]))
    self.assign(out._reshape(list(self.shape)))


def _fit_value(v, target, element):
    """v broadcast to the shape it is assigned to; NumPy drops v's leading ones, except where the
    key selects one element (ints alone)."""
    from . import _api

    while len(target) < v.ndim and not element and v.shape[0] == 1:
        v = v._reshape(list(v.shape[1:]))
    return _api.broadcast_to(v, tuple(target))


def _masks_as_arrays(self, key):
    """A key tuple with each boolean array among other entries replaced by the integer arrays of
    its nonzero positions (NumPy's rule: a k-dim mask indexes k dims). nonzero evaluates the mask
    (a synchronisation point)."""
    if not builtins.any(isinstance(k, Array) and k.dtype == dt.bool for k in key):
        return key
    n_ell = builtins.sum(1 for k in key if k is Ellipsis)
    used = builtins.sum(k.ndim if isinstance(k, Array) and k.dtype == dt.bool else 1
                        for k in key if k is not None and k is not Ellipsis)
    out, dim = [], 0
    for k in key:
        if k is Ellipsis and n_ell == 1:
            dim += builtins.max(self.ndim - used, 0)
        elif isinstance(k, Array) and k.dtype == dt.bool:
            if k.ndim == 0:
                raise IndexError("cgrad: a 0-d boolean index beside other indices is not supported")
            covered = tuple(self.shape[dim:dim + k.ndim])
            if tuple(k.shape) != covered:
                raise IndexError(f"boolean index of shape {tuple(k.shape)} does not match the indexed dims "
                                 f"{covered} of the array's shape {tuple(self.shape)}")
            out.extend(_cgrad._nonzero(k))
            dim += k.ndim
            continue
        elif k is not None:
            dim += 1
        out.append(k)
    return tuple(out)


def _take_in_basic(self, key):
    """x[..., i, ..., j, ...]: integer arrays among slices, ints, None and ... (NumPy's rules: the
    arrays, and the ints beside them, broadcast together; the broadcast shape replaces their dims
    where they are adjacent in the key, and comes first where a slice, None or ... separates
    them; until 2026-12-06 one array only). The basic part is indexed first with full slices at
    the arrays, the arrays' axes are moved to the front and flattened, and one `take` reads the
    flat positions (_array_key's: a position outside its axis reads 0, as for every array index
    here)."""
    n_real = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > self.ndim:
        raise IndexError(f"too many indices: array is {self.ndim}-D, index has {n_real}")
    y = _getitem(self, tuple(slice(None) if isinstance(k, Array) else k for k in key))
    axes, adv, at = [], [], 0  # the arrays' axes in y; the key positions of arrays and ints
    for pos, k in enumerate(key):
        if k is Ellipsis:
            at += self.ndim - n_real
        elif k is None or isinstance(k, slice):
            at += 1
        elif isinstance(k, Array):
            axes.append(at)
            adv.append(pos)
            at += 1
        else:  # an int: its dim is gone from y
            adv.append(pos)
    m = len(axes)
    yt = _cgrad._moveaxis(y, axes, list(range(m)))
    flat, _ = _array_key(yt, tuple(k for k in key if isinstance(k, Array)))
    rest = list(yt.shape[m:])
    out = _cgrad._take(yt._reshape([math.prod(yt.shape[:m]), *rest]), flat, 0)
    nb = flat.ndim
    if adv[-1] - adv[0] + 1 == len(adv) and axes[0] and nb:  # adjacent: where the first one was
        out = _cgrad._moveaxis(out, list(range(nb)), list(range(axes[0], axes[0] + nb)))
    return out


def _normalize_key(self, key):
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if isinstance(k, Array) or (hasattr(k, "__len__") and not isinstance(k, (str, bytes))):
            raise IndexError(
                "cgrad: an index mixing arrays with slices, None or ... is not supported yet; arrays "
                "index as a tuple of ints and integer arrays (a gather), or as one boolean mask"
            )
    n_ell = builtins.sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_real = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > self.ndim:
        raise IndexError(f"too many indices: array is {self.ndim}-D, index has {n_real}")
    if n_ell == 0:
        key = key + (Ellipsis,)
    out = []
    for k in key:
        if k is Ellipsis:
            out.extend([slice(None)] * (self.ndim - n_real))
        else:
            out.append(k)
    return out


def _is_bool_scalar(k):
    t = type(k)
    if t is bool:
        return True
    if t is int or t is slice or k is None or k is Ellipsis:
        return False
    if isinstance(k, Array):
        return k.ndim == 0 and k.dtype == dt.bool
    return getattr(k, "ndim", None) == 0 and getattr(getattr(k, "dtype", None), "kind", None) == "b"


def _key_width(k, v=None):
    """The dims of x an element of a key stands for: None and ... none, a mask (host or cgrad) its
    ndim, others one (a 0-d boolean: its new axis, _bool_scalars). `v`: a host k as a NumPy
    array, where the caller has made it."""
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, Array):
        return k.ndim if k.dtype == dt.bool and k.ndim else 1
    if v is None and (isinstance(k, list) or getattr(k, "ndim", 0)):
        import numpy as np

        v = np.asarray(k)
    return v.ndim if v is not None and v.dtype.kind == "b" and v.ndim else 1


def _bool_scalars(self, key):
    """NumPy's 0-d boolean indices beside others or alone as Python/NumPy bools (`x[True]`,
    `x[0, False]`, `np.True_`): each is a new axis of length 1 (True) or 0 (False), read by the
    index [0] or []. Returns (x with the new axes where the key puts them, the key with those
    integer arrays), so NumPy's placement rules of advanced indices apply; None without such an
    index. Until 2026-12-07 a bool was the int 1 or 0: x[True] read x[1], x[False] = v wrote x[0]."""
    t = type(key)
    if t is int or t is slice or isinstance(key, Array):  # the common keys, at the cost of one test
        return None
    keys = key if t is tuple else (key,)
    for k in keys:
        tk = type(k)
        if tk is int or tk is slice or k is None or k is Ellipsis:
            continue
        if _is_bool_scalar(k):
            break
    else:
        return None
    widths = [_key_width(k) for k in keys]
    ell = next((i for i, k in enumerate(keys) if k is Ellipsis), None)
    n = self.ndim + builtins.sum(1 for k in keys if _is_bool_scalar(k))
    shape = list(self.shape)
    for i, k in enumerate(keys):  # in increasing order of the new axes' positions
        if _is_bool_scalar(k):
            d = builtins.sum(widths[:i]) if ell is None or i < ell else n - builtins.sum(widths[i:])
            shape.insert(d, 1)
    new = tuple(([0] if bool(k) else []) if _is_bool_scalar(k) else k for k in keys)
    return self._reshape(shape), new


def _getitem(self, key):
    b = _bool_scalars(self, key)
    if b is not None:
        return _getitem(*b)
    key = _arrays_in_key(self, key)
    arrays = type(key) is tuple and builtins.any(isinstance(k, Array) for k in key)
    if arrays:
        key = _masks_as_arrays(self, key)
    if _is_array_key(key):
        return _gather(self, key)
    if arrays:
        return _take_in_basic(self, key)
    key = _normalize_key(self, key)
    x = self
    shape = []  # the result's shape, after ints drop and Nones insert dims
    dim = 0
    for k in key:
        if k is None:
            shape.append(1)
            continue
        n = self.shape[dim]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            if step < 0:  # the same elements, read from the flipped axis with a positive step
                x = _cgrad._flip(x, [dim])  # x keeps self's dims until the final reshape
                start, stop, step = n - 1 - start, n - 1 - stop, -step
            stop = builtins.max(stop, start)
            count = (stop - start + step - 1) // step
            if (start, stop, step) != (0, n, 1):
                x = x._slice(dim, start, stop, step)
            shape.append(count)
        else:
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError(f"cgrad: unsupported index {k!r} (ints, slices, None and ... are)") from None
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")
            i %= n
            x = x._slice(dim, i, i + 1, 1)
        dim += 1
    if x is self:  # x[...], x[:]: a new array all the same (an assignment to it leaves self as it was)
        return x._reshape(list(shape))
    return x if x.shape == shape else x._reshape(list(shape))


def _setitem(self, key, value):
    """x[key] = value as x.assign(new value): every handle copied from x sees it."""
    from . import _api

    value = value if isinstance(value, Array) else _api.asarray(value, dtype=self.dtype, device=self.device)
    b = _bool_scalars(self, key)
    if b is not None:  # x[True] = v: set through the view with the new axes
        x, key = b
        _setitem(x, key, value)
        self.assign(x._reshape(list(self.shape)))
        return
    key = _arrays_in_key(self, key)
    if isinstance(key, Array) and key.dtype == dt.bool and _mask_set(self, key, value):
        return
    if isinstance(key, Array) and key.dtype == dt.bool:
        key = (key,)
    if type(key) is tuple and builtins.any(isinstance(k, Array) for k in key):
        key = _masks_as_arrays(self, key)
    if _is_array_key(key):
        _scatter_set(self, key, value)
    elif type(key) is tuple and builtins.any(isinstance(k, Array) for k in key):
        _positions_set(self, key, value)
    else:
        _box_set(self, key, value)


def _mask_set(self, mask, value):
    """x[mask] = v where v is the same for every selected position (no dim of v runs along the
    selection: v broadcasts to the dims after the mask's), or v has x's own shape: one where, lazy,
    no synchronisation. Returns False for a v with a dim along the selection, which takes the
    mask's nonzero positions (NumPy's rule: the k-th value to the k-th True)."""
    from . import _api

    _mask_key(self, mask)
    rest = tuple(self.shape[mask.ndim:])
    v = value.astype(self.dtype)
    while v.ndim > len(rest) and v.shape[0] == 1:
        v = v._reshape(list(v.shape[1:]))
    if v.ndim > len(rest) and tuple(v.shape) != tuple(self.shape):
        return False
    if tuple(v.shape) != tuple(self.shape):
        v = _api.broadcast_to(v, rest)  # raises where v does not fit the dims after the mask's
    m = _api.broadcast_to(mask._reshape([*mask.shape] + [1] * len(rest)), self.shape)
    self.assign(_cgrad._where(m, _api.broadcast_to(v, self.shape), self))
    return True


def _positions_set(self, key, value):
    """x[key] = v for a key mixing integer arrays with slices, ints, None or ...: the flat
    positions the key selects (x's positions, indexed by the same key) and one scatter of v to
    them, with _scatter_set's rules (the last of repeated positions wins; a position outside its
    axis writes nothing)."""
    n = math.prod(self.shape)
    pos = (_cgrad._arange(n, dt.int64._c, self.device) + 1)._reshape(list(self.shape))
    sel = _getitem(pos, key) - 1  # an index outside its axis reads 0 there: -1 here
    flat = self._reshape([n])
    _scatter_set(flat, (_cgrad._where(sel < 0, n, sel),), value)
    self.assign(flat._reshape(list(self.shape)))


def _box_set(self, key, value):
    """x[key] = v for ints, slices of any step, None and ...: along each dim the value's rows are
    gathered to the positions they land on (a take by an index computed from arange), and a mask
    keeps x elsewhere."""
    from . import _api

    # x[i, j] = v (ints alone) writes one element: no leading ones of v are dropped there (NumPy 2)
    keys = key if isinstance(key, tuple) else (key,)
    element = len(keys) == self.ndim and builtins.all(
        not isinstance(k, slice) and k is not None and k is not Ellipsis for k in keys)
    key = _normalize_key(self, key)
    sel = []  # per dim of x: (first position, step, count)
    target = []  # the shape the value broadcasts to: the selection's, ints dropped
    dim = 0
    for k in key:
        if k is None:
            target.append(1)
            continue
        n = self.shape[dim]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            count = len(range(start, stop, step))
            sel.append((start, step, count))
            target.append(count)
        else:
            i = operator.index(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")
            sel.append((i % n, 1, 1))
        dim += 1
    box = [count for _, _, count in sel]
    v = _fit_value(value.astype(self.dtype), target, element)._reshape(box)
    if 0 in box:
        return  # nothing selected (the value was checked to broadcast to the empty selection)
    mask = None
    for d, (start, step, count) in enumerate(sel):
        n = self.shape[d]
        if (start, step, count) == (0, 1, n):
            continue
        along = [n if e == d else 1 for e in range(self.ndim)]
        p = _api.arange(n, dtype=dt.int64, device=self.device)
        off = p - start if step > 0 else start - p  # where position p falls in the selection
        s = builtins.abs(step)
        m = _cgrad.logical_and(off >= 0, off < count * s)
        if s > 1:
            m = _cgrad.logical_and(m, off % s == 0)
        if count > 1:
            v = _cgrad._take(v, _api.clip(off // s, 0, count - 1), d)
        mask = m._reshape(along) if mask is None else _cgrad.logical_and(mask, m._reshape(along))
    v = _api.broadcast_to(v, self.shape)
    self.assign(v if mask is None else _cgrad._where(_api.broadcast_to(mask, self.shape), v, self))


# ---- conversions (these evaluate) ----
def _bool(self):
    if self.size != 1:
        raise ValueError(f"the truth value of an array with {self.size} elements is ambiguous")
    return builtins.bool(self.item())


def _contains(self, value):
    """`value in x`: whether any element equals it, NumPy's `(x == value).any()` (raised before
    2026-12-07, as Python iterated x and asked bool() of each row)."""
    eq = self == value
    return builtins.bool(_cgrad._any(eq, None, False).item() if isinstance(eq, Array) else eq)


_c_item = Array.item  # the C++ item(): the value of a one-element array


def _item(self, *args):
    """x.item(): the one element as a Python scalar; NumPy's x.item(i) (the i-th element of the
    flattened array) and x.item(i, j, ...) / x.item((i, j, ...)) (since 2026-12-07)."""
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if not args:
        return _c_item(self)
    if len(args) == 1:
        i, n = operator.index(args[0]), self.size
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of bounds for size {n}")
        return _c_item(self._reshape([n])[i % n])
    if len(args) != self.ndim:
        raise ValueError("incorrect number of indices for array")
    return _c_item(self[tuple(operator.index(a) for a in args)])


def _astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True, device=None):
    """NumPy's x.astype(dtype, order, casting, subok, copy) and the standard's device: `casting`
    ("no", "equiv", "safe", "same_kind", "unsafe": NumPy's rules) refuses other casts with
    TypeError; order and subok change nothing (since 2026-12-07: they raised TypeError)."""
    from . import _api

    d = dt.as_dtype(dtype)
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError("astype: casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe'")
    if not _api._numpy_can_cast(self.dtype, d, casting):
        raise TypeError(f"Cannot cast array data from {self.dtype} to {d} according to the rule {casting!r}")
    return _api.astype(self, d, copy=copy, device=device)


def _int(self):
    return int(self.item())


def _float(self):
    return float(self.item())


def _index(self):
    if self.dtype not in dt.INTEGRAL:
        raise TypeError(f"only integer arrays can be used as an index, not {self.dtype}")
    return int(self.item())


def _tolist(self):
    flat = self._flat_list()
    shape = self.shape

    def nest(off, d):
        if d == len(shape):
            return flat[off]
        stride = 1
        for s in shape[d + 1:]:
            stride *= s
        return [nest(off + i * stride, d + 1) for i in range(shape[d])]

    return nest(0, 0)


def _host(self):
    """NumPy's view of the values for printing: bfloat16, which NumPy lacks, as float32 (exact;
    np.asarray of a bfloat16 array raised "Unsupported dtype in DLTensor", and so did print, until
    2026-12-06)."""
    import numpy as np

    return np.asarray(self.astype(dt.float32) if self.dtype == dt.bfloat16 else self)


def _repr(self, max_line_width=None, precision=None, suppress_small=None):
    """NumPy's array_repr with cgrad's prefix, `Array([...], dtype=float32)`, under NumPy's print
    options (cgrad.set_printoptions sets them): the dtype always (NumPy leaves out float64, int64
    and bool), the device where it is not the CPU, the shape where the array is empty and not 1-D or
    summarised (NumPy's rules), on a new line where the last one would pass the line width."""
    try:
        import numpy as np
    except ImportError:
        return "cgrad." + str(self)
    opts = np.get_printoptions()
    a = _host(self)
    body = np.array2string(a, max_line_width, precision, suppress_small, separator=", ", prefix="Array(",
                           suffix=")")
    extras = []
    if (a.size == 0 and a.shape != (0,)) or a.size > opts["threshold"]:
        extras.append(f"shape={a.shape}")
    extras.append(f"dtype={self.dtype.name}")
    if self.device != _cpu_device:
        extras.append(f"device={self.device}")  # as PyTorch shows it
    head = "Array(" + body + ","
    extra = ", ".join(extras) + ")"
    width = opts["linewidth"] if max_line_width is None else max_line_width
    spacer = " "
    if len(head) - (head.rfind("\n") + 1) + len(extra) + 1 > width:
        spacer = "\n" + " " * len("Array(")
    return head + spacer + extra


def _str(self, max_line_width=None, precision=None, suppress_small=None):
    """NumPy's array_str of the values, under NumPy's print options."""
    try:
        import numpy as np
    except ImportError:
        return _c_str(self)
    return np.array_str(_host(self), max_line_width, precision, suppress_small)


# ---- NumPy and DLPack ----
_c_to_device = Array.to_device
_cpu_device = Device.cpu()


def _to_device(self, device, /, *, stream=None):
    """A Device or a name: "cpu", "cuda", "cuda:1" (as asarray's `device`)."""
    from . import _api

    return _c_to_device(self, _api._dev(device), stream=stream)


_KIND_ORDER = {"bool": 0, "unsigned integer": 1, "signed integer": 2, "real floating": 3, "complex floating": 4}


def _to_out(out, r, fn="cgrad", ufunc=False):
    """NumPy's `out=` (since 2026-12-07; it raised TypeError before): `out[...] = r`, and `out`
    returned, so every name bound to that Array sees the result, as after `x += 1`. A reduction's
    (and any other function's) result must have out's shape and is cast to its dtype; an
    element-wise function's (`ufunc`) broadcasts to out's shape under NumPy's 'same_kind' rule (no
    float into an integer out, no signed into unsigned). `out` may be a tuple of one Array."""
    if out is None:
        return r
    from . import _api

    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"{fn}: out must be one array, got a tuple of {len(out)}")
        out = out[0]
    if not isinstance(out, Array):
        raise TypeError(f"{fn}: out must be a cgrad Array, got {type(out).__name__}")
    if not isinstance(r, Array):
        r = _api.asarray(r, device=out.device)
    if ufunc:
        if _KIND_ORDER[r.dtype.kind] > _KIND_ORDER[out.dtype.kind]:
            raise TypeError(f"Cannot cast ufunc '{fn}' output from {r.dtype.name} to {out.dtype.name} with casting "
                            "rule 'same_kind'")
        try:
            fits = _api.broadcast_shapes(tuple(r.shape), tuple(out.shape)) == tuple(out.shape)
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"{fn}: non-broadcastable output operand with shape {tuple(out.shape)} doesn't match "
                             f"the broadcast shape {tuple(r.shape)}")
    elif tuple(r.shape) != tuple(out.shape):
        raise ValueError(f"{fn}: out has shape {tuple(out.shape)}, the result {tuple(r.shape)}")
    out[...] = r
    return out


def _writes_out(fn):
    """Decorator of a function with NumPy's `out` parameter (by name or by position): fn runs with
    out=None, and its result is written to `out` by _to_out."""
    import functools
    import inspect

    params = inspect.signature(fn).parameters
    pos = list(params).index("out") if params["out"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD else None
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if pos is not None and len(args) > pos:
            out, args = args[pos], args[:pos] + (None,) + args[pos + 1:]
        else:
            out = kwargs.pop("out", None)
        return _to_out(out, fn(*args, **kwargs), name)
    return wrapper


def _numeric_stat(x):
    """NumPy's statistics of integers and bools: in float64 (the C++ core's mean, var and std take
    floating input only, as PyTorch's)."""
    return x.astype(dt.float64) if isinstance(x, Array) and (x.dtype in dt.INTEGRAL or x.dtype is dt.bool) else x


def _mean(x, axis, keepdims):
    return _cgrad._mean(_numeric_stat(x), axis, keepdims)


def _reduce_in(fn, x, axis, keepdims, dtype):
    """fn(x, axis, keepdims) with a `dtype`: x is cast to it first and the result has it (the Array
    API standard: the dtype is there to prevent overflows, so sum(x_f16, dtype=float32) of values
    adding past 65504 is finite and sum(x_f32, dtype=float64) keeps f64's digits)."""
    if dtype is None:
        return fn(x, axis, keepdims)
    d = dt.as_dtype(dtype)
    r = fn(x if x.dtype == d else x.astype(d), axis, keepdims)
    return r if r.dtype == d else r.astype(d)


def _round(self, ndigits=None):
    """round(x): a 0-d array gives a Python number (round(x.item())); other arrays cgrad.round
    (half to even); ndigits is not supported for arrays."""
    if self.ndim == 0:
        return round(self.item(), ndigits) if ndigits is not None else round(self.item())
    if ndigits is not None:
        raise TypeError("cgrad: round(x, ndigits) is not supported for arrays")
    return _cgrad.round(self)


def _format(self, spec):
    """f"{x:.3f}": a 0-d array formats its value; others their str() (spec empty)."""
    if self.ndim == 0:
        return format(self.item(), spec)
    if spec:
        raise TypeError(f"unsupported format string {spec!r} for a {self.ndim}-d cgrad array")
    return str(self)


def _array(self, dtype=None, copy=None):
    """np.asarray(x): a read-only view of a CPU array's memory; a device array is copied to the
    host first (as JAX does; NumPy cannot read device memory: np.asarray, print and tolist of a
    CUDA array raised "Unsupported device in DLTensor" until 2026-12-05)."""
    import numpy as np

    if self.device != _cpu_device:
        self = self.to_device(_cpu_device)
    a = np.from_dlpack(self)
    if dtype is not None:
        a = a.astype(dtype, copy=False)
    return a.copy() if copy else a


# ---- NumPy's dispatch protocols (NEP 13 and NEP 18): NumPy's functions of cgrad arrays ----
_NUMPY_NAMESPACES = {"numpy": None, "numpy.linalg": "linalg", "numpy.fft": "fft"}
_dispatching = threading.local()  # the NumPy functions this thread is inside cgrad's versions of


def _numpy_values(obj, convert=None):
    """obj with every cgrad Array in it (in lists, tuples and dicts too) as a NumPy array:
    `convert` of it (default np.asarray's, _array; cgrad.testing's: _host, bfloat16 as float32)."""
    if isinstance(obj, Array):
        return (convert or _array)(obj)
    if type(obj) in (list, tuple):
        return type(obj)(_numpy_values(v, convert) for v in obj)
    if isinstance(obj, dict):
        return {k: _numpy_values(v, convert) for k, v in obj.items()}
    return obj


# NumPy's functions that call the array's method of their name (NumPy's _wrapreduction): tried as
# the method where cgrad's function refuses the call (`np.sum(x, 0)`: the standard's axis is
# keyword-only)
_BY_METHOD = frozenset(("sum", "prod", "mean", "std", "var", "max", "min", "amax", "amin", "any", "all",
                        "argmax", "argmin", "cumsum", "cumprod", "round", "clip", "trace", "take",
                        "squeeze", "transpose", "diagonal", "repeat", "nonzero", "searchsorted"))


_DECLINED = object()


def _cgrad_version(func, calls):
    """The first of calls() that returns, or _DECLINED where each raises (a keyword cgrad lacks, a
    positional argument it takes by keyword, an argument NumPy allows and cgrad refuses: array
    endpoints of `linspace`, a 1-D `tril`) or cgrad is already inside `func` in this thread (a
    composite that calls NumPy's function of its own values): NumPy then runs on the values, and
    its result or its error is the caller's. (None is a result: np.copyto's.)"""
    busy = getattr(_dispatching, "funcs", None)
    if busy is None:
        busy = _dispatching.funcs = set()
    if func in busy:
        return _DECLINED
    busy.add(func)
    try:
        for call in calls:
            try:
                return call()
            except Exception:  # noqa: BLE001 (NumPy's function decides: see above)
                continue
        return _DECLINED
    finally:
        busy.discard(func)


_C_FUNCTION = type(_cgrad.exp)  # a function of the extension (nanobind's)
_PLAIN_OPERANDS = (Array, builtins.bool, int, float, complex)
# the methods of cgrad.ufunc that NumPy's reach: how many leading operands are arrays (taken onto x's device)
_METHOD_ARRAYS = {"reduce": 1, "accumulate": 1, "reduceat": 1, "outer": 2}


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """NEP 13: `np.exp(x)`, `np.add(x, n)`, `np.maximum(n, x)` of cgrad arrays are cgrad's function
    of the ufunc's name (lazy, on x's device; NumPy operands converted as `asarray` does), for a
    plain call; the methods `reduce`, `accumulate`, `reduceat` and `outer` are those of cgrad's
    ufunc of that name (python/cgrad/_ufunc.py: `np.add.reduce(x)` is `cgrad.add.reduce(x)`, cgrad's
    sum). An `out=` of cgrad arrays is written by cgrad (_to_out: the Array takes the result, since
    2026-12-07; NumPy's "read-only" error before), and so is `ufunc.at` of a cgrad array
    (_ufunc_at). Calls with a NumPy `out`, a call with `where=`, ufuncs cgrad lacks and calls
    cgrad's version refuses run NumPy's on the values, as every ufunc did before 2026-12-07."""
    import cgrad

    name = ufunc.__name__
    fn = getattr(cgrad, name, None)
    if method == "__call__" and not kwargs and type(getattr(fn, "_fn", None)) is _C_FUNCTION and builtins.all(
            isinstance(v, _PLAIN_OPERANDS) for v in inputs):
        try:  # the common case: a C++ function of Arrays and numbers (it cannot re-enter NumPy)
            return fn(*inputs)
        except Exception:  # noqa: BLE001 (NumPy's function decides: _cgrad_version)
            return getattr(ufunc, method)(*_numpy_values(inputs))

    from . import _api
    from ._ufunc import ufunc as cgrad_ufunc

    def operand(v):
        return v if isinstance(v, _PLAIN_OPERANDS) else _api.asarray(v, device=self.device)

    if method == "at" and inputs and isinstance(inputs[0], Array) and not kwargs:
        return _ufunc_at(name, *inputs)
    call = None
    out = kwargs.get("out")
    ours = out is None or builtins.all(isinstance(o, Array) for o in (out if isinstance(out, tuple) else (out,)))
    if not ours:
        pass
    elif method == "__call__" and set(kwargs) <= {"out"} and fn is not None:
        def call():
            return fn(*[operand(v) for v in inputs], **kwargs)
    elif method in _METHOD_ARRAYS and isinstance(fn, cgrad_ufunc):
        def call():
            k = _METHOD_ARRAYS[method]
            return getattr(fn, method)(*[operand(v) for v in inputs[:k]], *inputs[k:], **kwargs)
    if call is not None:
        r = _cgrad_version(ufunc, [call])
        if r is not _DECLINED:
            return r
    return getattr(ufunc, method)(*_numpy_values(inputs), **_numpy_values(kwargs))


def _ufunc_at(name, x, indices, b=None):
    """NumPy's `ufunc.at(x, indices, b)` of the ufunc `name` and a cgrad `x`: x[indices] =
    ufunc(x[indices], b), applied once per index, repeats included (unbuffered), as NumPy's; x
    takes the result (x.assign). Until 2026-12-07 NumPy's own ran on x's memory: NumPy 2.4's `at`
    ignores the read-only flag of the view cgrad exports, so `np.add.at(cg.zeros(5), [0, 0, 2], 1)`
    wrote all five elements (zeros share one element) and corrupted a value every handle of it
    shares. `add` and `subtract` of a real array are one lazy scatter_add (differentiable; a cgrad
    index outside its axis writes nothing, as in x[idx] = v); the other ufuncs run NumPy's on a
    copy of the values. `cgrad.add.at` and NumPy's `np.add.at` both come here."""
    from . import _api

    key = indices if isinstance(indices, tuple) else (indices,)
    if name in ("add", "subtract") and b is not None and (x.dtype in dt.INTEGRAL or x.dtype in dt.FLOATING):
        n = math.prod(x.shape)
        pos = (_cgrad._arange(n, dt.int64._c, x.device) + 1)._reshape(list(x.shape))
        sel = _getitem(pos, key) - 1  # a cgrad index outside its axis reads 0 here: -1
        v = b if isinstance(b, Array) else _api.asarray(b, device=x.device)
        v = _api.broadcast_to(v.astype(x.dtype), tuple(sel.shape))  # NumPy's at casts unsafely
        if name == "subtract":
            v = -v
        m = math.prod(sel.shape)
        flat = _cgrad._scatter_add(x._reshape([n]), _cgrad._where(sel < 0, n, sel)._reshape([m]), v._reshape([m]), 0)
        x.assign(flat._reshape(list(x.shape)))
        return None
    import numpy as np

    host = np.array(_array(x))  # a writable copy
    getattr(np, name).at(host, _numpy_values(key if isinstance(indices, tuple) else indices),
                         *(() if b is None else (_numpy_values(b),)))
    x.assign(_api.asarray(host, dtype=x.dtype, device=x.device))
    return None


def _array_function(self, func, types, args, kwargs):
    """NEP 18: NumPy's functions of cgrad arrays (`np.concatenate`, `np.linalg.norm`, `np.fft.fft`,
    ...) are cgrad's function of that name in the matching namespace, called with the same
    arguments; where cgrad has none or its version raises (_cgrad_version), NumPy's runs on the
    values (a NumPy result). Before 2026-12-07 every NumPy function converted to NumPy (but
    `np.sum`/`mean`/`max`/`min`, which call the methods)."""
    import numpy as np

    import cgrad

    if not builtins.all(issubclass(t, (Array, np.ndarray)) for t in types):
        return NotImplemented
    module, name = func.__module__, func.__name__
    fn = None
    if module in _NUMPY_NAMESPACES:
        sub = _NUMPY_NAMESPACES[module]
        fn = getattr(cgrad if sub is None else getattr(cgrad, sub), name, None)
    calls = [] if fn is None or fn is func else [lambda: fn(*args, **kwargs)]
    if module == "numpy" and name in _BY_METHOD and args and isinstance(args[0], Array) and hasattr(args[0], name):
        # (NumPy's own method route: top-level functions only; np.linalg.trace is not x.trace)
        calls.append(lambda: getattr(args[0], name)(*args[1:], **kwargs))
    r = _cgrad_version(func, calls) if calls else _DECLINED
    return r if r is not _DECLINED else func(*_numpy_values(args), **_numpy_values(kwargs))


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    return _cgrad._dlpack(self, stream, max_version, dl_device, copy)


def _dlpack_device(self):
    return _cgrad._dlpack_device(self)


def _array_namespace(self, *, api_version=None):
    import cgrad

    if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12", "2025.12"):
        raise ValueError(f"cgrad does not provide Array API version {api_version}")
    return cgrad


def _reshape(self, *shape, order="C", copy=None):
    """x.reshape(2, 3), x.reshape((2, 3)); NumPy's order ("F": the first index fastest)."""
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    if order == "C":
        return self._reshape(list(shape))
    from . import _api

    return _api.reshape(self, tuple(shape), order=order)


def _vjp_sum(y, gradient, fn):
    """The one-element array whose gradient is the vector-Jacobian product of y with `gradient` (of
    y's shape; PyTorch's grad_output): sum(gradient * y), sum(real(conj(gradient) y)) for complex y
    (docs/autograd.md's convention); `gradient` is detached."""
    from . import _api

    g = gradient if isinstance(gradient, Array) else _api.asarray(gradient, dtype=y.dtype, device=y.device)
    if tuple(g.shape) != tuple(y.shape):
        raise _cgrad.ShapeError(f"{fn}: gradient of shape {tuple(g.shape)} for an array of shape {tuple(y.shape)}")
    g = g.detach()
    return _api.sum(_cgrad.real(_cgrad.conj(g) * y)) if y.dtype in dt.COMPLEX else _api.sum(g * y)


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """PyTorch's signature (since 2026-12-07 only `y.backward()`): `gradient`, of y's shape, is the
    vector of a vector-Jacobian product, as the gradient of sum(gradient * y) (of
    sum(real(conj(gradient) y)) for complex y, so that it is y's gradient in docs/autograd.md's
    convention); `retain_graph` changes nothing (a graph lives while an array reaches it);
    `create_graph` and `inputs` raise: cgrad.grad(y, xs, create_graph=True) returns gradients
    instead of accumulating them."""
    if create_graph or inputs is not None:
        raise TypeError("backward: create_graph and inputs are not supported; "
                        "use cgrad.grad(y, xs, create_graph=...) for those gradients")
    if gradient is None:
        return _cgrad.Array._backward_core(self)
    return _cgrad.Array._backward_core(_vjp_sum(self, gradient, "backward"))


def _iter(self):
    """The rows, as NumPy's; a 0-d array raises TypeError (NumPy's and PyTorch's). Without it
    Python iterated x[0], x[1]... until IndexError, so `list(x)` of a 0-d array was [] and a
    function taking a list of arrays read a 0-d one as none (until 2026-12-07)."""
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    for i in builtins.range(self.shape[0]):
        yield self[i]


def _install():
    A = Array
    A.dtype = property(_dtype)
    A.T = property(_T)
    A.__getitem__ = _getitem
    A.__setitem__ = _setitem
    A.__bool__ = _bool
    A.__contains__ = _contains
    A.__iter__ = _iter
    A.__int__ = _int
    A.__float__ = _float
    A.__index__ = _index
    A.__complex__ = lambda self: complex(self.item())
    A.tolist = _tolist
    A.__repr__ = _repr
    A.__str__ = _str
    A.__array__ = _array
    A.__array_priority__ = 100
    A.__array_ufunc__ = _array_ufunc
    A.__array_function__ = _array_function
    A.__dlpack__ = _dlpack
    A.__dlpack_device__ = _dlpack_device
    A.__array_namespace__ = _array_namespace
    A.astype = _astype
    A.item = _item
    A.reshape = _reshape
    # (mean, sum, prod, max, min...: NumPy's signatures, _numpy._install_methods)
    A.__round__ = _round
    A.__divmod__ = lambda self, other: (self // other, self % other)
    A.__rdivmod__ = lambda self, other: (other // self, other % self)
    A.__format__ = _format
    A.numpy = lambda self: _array(self, copy=True)
    A.to_device = _to_device
    A._backward_core = A.backward
    A.backward = _backward
    A.permute = lambda self, *dims: self._permute(list(dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims))


_install()
