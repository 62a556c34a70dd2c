"""NumPy's ndarray methods and attributes that python/cgrad/_numpy.py's list leaves out
(docs/python.md, "Beyond the standard"): the selection methods call the module functions
(`partition`, `choose`, `compress`, `put`, `searchsorted`...); the in-place ones assign, as
`x[key] = v` does, so every handle on the array sees the change, and leave it unchanged when they
raise. The memory-layout ones (`strides`, `flags`, `data`, `view(dtype)`, `byteswap`,
`getfield`/`setfield`) read the evaluated value through NumPy: they evaluate (a synchronisation
point), and a reinterpreted result is a new array (cgrad has no bitcast op and no shared-memory
views). `tobytes`/`tofile`/`dump` are _numpy_io.py's."""
import builtins
import operator

from . import _api
from ._numpy_io import _to_np
from . import _cgrad
from . import _dtypes as dt
from ._array import _to_out
from ._cgrad import Array
from ._numpy import _arr, argpartition, partition, ravel
from ._numpy_arrays import _check_bounds, _dtype_of, choose, compress, put

_handle = Array.to_device  # x.to_device(x.device): another handle on the same array


def _np_dtype(dtype, fn):
    """A NumPy dtype for a cgrad dtype, a NumPy dtype or a name (bfloat16 has none)."""
    import numpy as np

    d = _dtype_of(dtype)
    if d is dt.bfloat16:
        raise TypeError(f"{fn}: bfloat16 has no NumPy counterpart")
    return np.dtype(d.name)




def _back(a, like):
    """A NumPy result as a new cgrad array on like's device (a copy: it owns its memory)."""
    import numpy as np

    return _api.asarray(np.array(a, copy=True), device=like.device)


# ---- selection ----
def _partition_method(self, kth, axis=-1, kind="introselect", order=None):
    """x.partition(kth, axis=-1) in place (NumPy's); here x sorted along axis, a valid partition."""
    if axis is None:
        raise TypeError("'NoneType' object cannot be interpreted as an integer")
    self.assign(partition(self, kth, axis, kind, order))


def _argpartition_method(self, kth, axis=-1, kind="introselect", order=None):
    """The indices that partition x around kth along axis (None: the flattened x)."""
    return argpartition(self, kth, axis, kind, order)


def _choose_method(self, choices, out=None, mode="raise"):
    """choose(x, choices, mode): choices[x[i]][i]."""
    return _to_out(out, choose(self, choices, mode=mode), "choose")


def _compress_method(self, condition, axis=None, out=None):
    """compress(condition, x, axis): the slices where condition holds (evaluates it)."""
    return _to_out(out, compress(condition, self, axis), "compress")


def _put_method(self, indices, values, mode="raise"):
    """put(x, indices, values, mode): x.flat[indices] = values in place."""
    put(self, indices, values, mode)


def _searchsorted_method(self, v, side="left", sorter=None):
    """Where v's elements would be inserted in the sorted 1-D x to keep it sorted."""
    if self.ndim != 1:
        raise ValueError("object too deep for desired array" if self.ndim > 1 else
                         "object of too small depth for desired array")
    if side not in ("left", "right"):
        raise ValueError(f"search side must be 'left' or 'right' (got {side!r})")
    if sorter is not None:
        sorter = _arr(sorter)
        if sorter.ndim != 1 or sorter.shape[0] != self.shape[0]:
            raise ValueError("sorter.size must equal a.size")
        if sorter.dtype not in dt.INTEGRAL or sorter.dtype is dt.bool:
            raise TypeError(f"sorter must be an integer array, not {sorter.dtype}")
        if sorter.size and builtins.bool(_api.any(_cgrad.logical_or(sorter < 0, sorter >= self.shape[0]))):
            raise ValueError("Sorter index out of range.")  # NumPy's (which checks only the positions it visits)
        sorter = sorter.astype(dt.int64)
    if not isinstance(v, (Array, builtins.bool, int, float, complex)):
        v = _arr(v)
    return _api.searchsorted(self, v, side=side, sorter=sorter)


def _resize_method(self, *new_shape, refcheck=True):
    """NumPy's x.resize(new_shape) (zero-padded, in place): only the same shape is accepted; a
    new shape would change the shape every handle sees, which cgrad's assign does not do."""
    if not new_shape or new_shape == (None,):  # x.resize(): NumPy's no-op
        return
    if len(new_shape) == 1 and not isinstance(new_shape[0], int) and not hasattr(new_shape[0], "__index__"):
        new_shape = new_shape[0]
    shape = tuple(operator.index(s) for s in new_shape)
    if builtins.any(s < 0 for s in shape):
        raise ValueError("negative dimensions not allowed")
    if shape != tuple(self.shape):
        raise NotImplementedError(
            f"cgrad: x.resize{shape} cannot change the shape of an array in place (every handle keeps its "
            f"shape {tuple(self.shape)}); use x = cg.resize(x, shape) (repeats) or cg.pad(x.ravel(), "
            f"(0, n - x.size)).reshape(shape) (NumPy's zero padding) for a new array")


# ---- flat ----
class flatiter:
    """x.flat: x read and written as if flattened (NumPy's flatiter). Reads are lazy (an integer
    index array is checked, evaluating it, as NumPy's IndexError needs); writes assign to x (every
    handle sees them), the values repeated as often as needed, as NumPy's."""

    __slots__ = ("base",)

    def __init__(self, base):
        self.base = base

    def __len__(self):
        return self.base.size

    def __iter__(self):
        flat = ravel(self.base)
        return (flat[i] for i in range(flat.shape[0]))

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        a = np.asarray(ravel(self.base))
        a = a if dtype is None else a.astype(dtype)
        return a.copy() if copy else a

    def __repr__(self):
        return f"cgrad.flatiter({self.base!r})"

    def copy(self):
        """The flattened array (a new one)."""
        return ravel(self.base)

    def _positions(self, key):
        """The flat positions key selects, as an int64 array (an index array checked in range)."""
        n = self.base.size
        pos = _api.arange(n, dtype=dt.int64, device=self.base.device)
        if isinstance(key, tuple):
            if len(key) != 1:
                raise IndexError("unsupported iterator index")
            key = key[0]
        if isinstance(key, (list, Array)) or (hasattr(key, "__array__") and getattr(key, "ndim", 0) > 0):
            k = _api.asarray(key, dtype=dt.int64, device=self.base.device) if isinstance(key, list) and not key \
                else _api.asarray(key, device=self.base.device)
            if k.dtype is dt.bool:
                if tuple(k.shape) != (n,):
                    raise IndexError(f"boolean index of shape {tuple(k.shape)} does not match the flat size {n}")
                return pos[k]
            if k.dtype not in dt.INTEGRAL:
                raise IndexError("unsupported iterator index")
            _check_bounds(k, n, "flat")
            return pos[k]
        if not isinstance(key, slice) and key is not Ellipsis:
            try:
                i = operator.index(key)
            except TypeError:
                raise IndexError("unsupported iterator index") from None
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for size {n}")
            return pos[i]
        return pos[key]

    def __getitem__(self, key):
        """x.flat[key]: the flattened x indexed by an int, a slice, an integer or boolean array."""
        return _api.take(ravel(self.base), self._positions(key), axis=0)

    def __setitem__(self, key, value):
        """x.flat[key] = value, in place (value repeated to the selection's size)."""
        pos = self._positions(key)
        put(self.base, pos, value, mode="wrap")


def _flat_get(self):
    """x.flat: a flatiter (x read and written flattened)."""
    return flatiter(self)


def _flat_set(self, value):
    """x.flat = value: every element, value repeated as needed (in place)."""
    flatiter(self)[:] = value


# ---- layout and bytes (these evaluate) ----
class flagsobj:
    """x.flags: NumPy's flags, read-only. The contiguity flags describe the evaluated value's layout
    (evaluating x); writeable is True (assignment works), owndata True and base None (no cgrad
    array shares another's writes), aligned True, writebackifcopy False."""

    _NAMES = {"C": "c_contiguous", "CONTIGUOUS": "c_contiguous", "C_CONTIGUOUS": "c_contiguous",
              "F": "f_contiguous", "FORTRAN": "f_contiguous", "F_CONTIGUOUS": "f_contiguous", "W": "writeable",
              "WRITEABLE": "writeable", "A": "aligned", "ALIGNED": "aligned", "O": "owndata", "OWNDATA": "owndata",
              "X": "writebackifcopy", "WRITEBACKIFCOPY": "writebackifcopy", "B": "behaved", "BEHAVED": "behaved",
              "CA": "carray", "CARRAY": "carray", "FA": "farray", "FARRAY": "farray", "FNC": "fnc", "FORC": "forc"}
    __slots__ = ("_x",)

    def __init__(self, x):
        object.__setattr__(self, "_x", x)

    def __setattr__(self, name, value):
        raise AttributeError("cgrad: x.flags is read-only (x.setflags changes what cgrad allows)")

    def _layout(self):
        f = _to_np(self._x, "flags").flags
        return f.c_contiguous, f.f_contiguous

    c_contiguous = contiguous = property(lambda self: self._layout()[0])
    f_contiguous = fortran = property(lambda self: self._layout()[1])
    writeable = aligned = owndata = behaved = property(lambda self: True)
    writebackifcopy = property(lambda self: False)
    carray = property(lambda self: self._layout()[0])
    farray = property(lambda self: (lambda c, f: f and not c)(*self._layout()))
    fnc = farray
    forc = property(lambda self: builtins.any(self._layout()))

    def __getitem__(self, key):
        if key not in self._NAMES:
            raise KeyError(f"Unknown flag {key!r}")
        return getattr(self, self._NAMES[key])

    def __repr__(self):
        c, f = self._layout()
        return "\n".join(f"  {k} : {v}" for k, v in (("C_CONTIGUOUS", c), ("F_CONTIGUOUS", f), ("OWNDATA", True),
                                                       ("WRITEABLE", True), ("ALIGNED", True),
                                                       ("WRITEBACKIFCOPY", False))) + "\n"


def _setflags(self, write=None, align=None, uic=None):
    """NumPy's setflags: write=True and align=True are already so; write=False (a read-only
    array) and uic=True are refused (ValueError, as NumPy's for flags it cannot set)."""
    if write is not None and not write:
        raise ValueError("cgrad: arrays cannot be made read-only (x[key] = v always assigns)")
    if align is not None and not align:
        raise ValueError("cgrad: arrays are always aligned")
    if uic:
        raise ValueError("cannot set WRITEBACKIFCOPY flag to True")


def _strides(self):
    """x.strides: the byte steps of the evaluated value's layout (np.asarray(x).strides; evaluates)."""
    return _to_np(self, "strides").strides


def _data(self):
    """x.data: a read-only memoryview of the evaluated value (a snapshot: an assignment to x rebinds
    it to new memory)."""
    return memoryview(_to_np(self, "data"))


def _ctypes(self):
    raise AttributeError("cgrad: Array has no ctypes (a raw pointer into a buffer cgrad may rebind); use "
                         "np.asarray(x).ctypes on the evaluated value or x.__dlpack__()")


def _view(self, dtype=None, type=None):  # noqa: A002 (NumPy's names)
    """x.view(): another handle on the same array (writes through either are seen by both, as a
    NumPy view's); x.view(dtype) of another dtype: the evaluated bytes reinterpreted by NumPy, a
    new array (writes to it do not reach x)."""
    if type is not None or (isinstance(dtype, builtins.type) and not _is_dtype_like(dtype)):
        raise TypeError("cgrad: view(type=...) is not supported (cgrad has no array subclasses)")
    if dtype is None or _dtype_of(dtype) is self.dtype:
        return _handle(self, self.device)
    np_dtype = _np_dtype(dtype, "view")
    return _back(_to_np(self, "view").view(np_dtype), self)


def _is_dtype_like(t):
    try:
        _dtype_of(t)
        return True
    except (TypeError, ValueError, KeyError):
        return False


def _byteswap(self, inplace=False):
    """The array with each element's bytes reversed (evaluates, through NumPy); inplace=True
    assigns it to x (every handle sees it) and returns x."""
    swapped = _back(_to_np(self, "byteswap").byteswap(), self)
    if inplace:
        self.assign(swapped)
        return self
    return swapped


def _getfield(self, dtype, offset=0):
    """The bytes at `offset` of each element read as `dtype` (evaluates, through NumPy; a new array)."""
    return _back(_to_np(self, "getfield").getfield(_np_dtype(dtype, "getfield"), offset), self)


def _setfield(self, val, dtype, offset=0):
    """The bytes at `offset` of each element written with val as `dtype`, in place (evaluates,
    through NumPy; every handle sees it)."""
    import numpy as np

    a = np.array(_to_np(self, "setfield"), copy=True)
    a.setfield(np.asarray(val), _np_dtype(dtype, "setfield"), offset)
    self.assign(_back(a, self))


def _install():
    A = Array
    A.partition = _partition_method
    A.argpartition = _argpartition_method
    A.choose = _choose_method
    A.compress = _compress_method
    A.put = _put_method
    A.searchsorted = _searchsorted_method
    A.resize = _resize_method
    A.flat = property(_flat_get, _flat_set)
    A.flags = property(lambda self: flagsobj(self))
    A.setflags = _setflags
    A.strides = property(_strides)
    A.base = property(lambda self: None)
    A.data = property(_data)
    A.ctypes = property(_ctypes)
    A.view = _view
    A.byteswap = _byteswap
    A.getfield = _getfield
    A.setfield = _setfield


_install()
