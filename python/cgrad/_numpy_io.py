"""NumPy's file I/O, printing, floating-point error state and small utilities for cgrad arrays
(docs/python.md, "Beyond the standard"). The files are read and written by NumPy (its formats,
byte for byte): arrays going out are evaluated and viewed as NumPy arrays, arrays coming in are
imported without a copy where NumPy's memory allows. cgrad holds bool, integers, floats and
complex numbers: strings, structured records, objects and dates raise TypeError, and bfloat16,
which NumPy lacks, raises TypeError where a NumPy format would have to store it (`tobytes`,
`tofile` and pickles write its raw bits). Printing uses NumPy's print options as its one store, so
`set_printoptions` changes `print(x)` and `repr(x)` of cgrad and NumPy arrays alike. The error
state is cgrad's own: its kernels never trap floating-point exceptions, so it records 'ignore',
'warn', 'print' and 'log' and refuses 'raise' and 'call'."""
import builtins
import collections.abc
import contextlib
import contextvars
import math
import os
import pickle
import re

from . import _api
from . import _array
from . import _cgrad
from . import _dtypes as dt
from ._cgrad import Array

__all__ = ["save", "load", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt", "fromfile",
           "fromstring", "fromregex", "NpzFile",
           "array2string", "array_repr", "array_str", "set_printoptions", "get_printoptions", "printoptions",
           "format_float_positional", "format_float_scientific",
           "seterr", "geterr", "errstate", "seterrcall", "geterrcall",
           "array_equiv", "require", "asfortranarray", "isfortran", "base_repr", "binary_repr", "typename",
           "mintypecode", "einsum_path", "show_config", "show_runtime"]


def _np():
    import numpy as np

    return np


# ---- between cgrad and NumPy ----
_NAMES = frozenset(d.name for d in dt.ALL if d is not dt.bfloat16)


def _np_dtype(d):
    """A NumPy dtype from a cgrad dtype (bfloat16: TypeError) or anything NumPy reads (float, "i4")."""
    np = _np()
    if isinstance(d, dt.dtype):
        if d is dt.bfloat16:
            raise TypeError("cgrad: NumPy has no bfloat16 dtype; cast with x.astype(cgrad.float32) first")
        return np.dtype(d.name)
    return d if d is None else np.dtype(d)


def _to_np(x, fn="cgrad"):
    """A NumPy array for NumPy's writers and the methods that read through NumPy: a cgrad array
    evaluated (a view of its memory on the CPU; a device array copied to the host); anything else
    as NumPy reads it. bfloat16 raises TypeError naming `fn`."""
    np = _np()
    if isinstance(x, Array):
        if x.dtype is dt.bfloat16:
            raise TypeError(f"{fn}: NumPy has no bfloat16, so it cannot hold this array; cast with "
                            "x.astype(cgrad.float32) first (exact), or take the raw bits with x.tobytes/x.tofile")
        return np.asarray(x)
    return np.asanyarray(x)


def _check_np_dtype(d, what="array"):
    if d.names is not None or d.kind not in "biufc" or d.name not in _NAMES:
        kind = "structured" if d.names is not None else str(d)
        raise TypeError(f"cgrad: the {what} has dtype {kind}, which cgrad arrays cannot hold (they hold bool, "
                        f"integers, float16/32/64 and complex64/128); use NumPy for it")


def _to_cg(a):
    """A cgrad array from what NumPy read (a NumPy array or scalar): imported without a copy
    where its memory allows (a byte-swapped, read-only or strided one is copied)."""
    np = _np()
    if isinstance(a, np.ma.MaskedArray):
        raise TypeError("cgrad: cgrad has no masked arrays; use usemask=False (missing values are filled)")
    a = np.asarray(a)
    _check_np_dtype(a.dtype)
    return _api.asarray(a)


def _out(x):
    """NumPy's result as cgrad's: arrays converted, tuples and lists of arrays element-wise."""
    np = _np()
    if isinstance(x, (np.ndarray, np.generic)):
        return _to_cg(x)
    if isinstance(x, (tuple, list)):
        return type(x)(_out(e) for e in x)
    return x


# ---- .npy / .npz ----
def save(file, arr, allow_pickle=True):
    """NumPy's save: `arr` (a cgrad array, evaluated, or anything NumPy reads) to a .npy file."""
    _np().save(file, _to_np(arr), allow_pickle=allow_pickle)


def _savez(fn, file, args, allow_pickle, kwds):
    fn(file, *[_to_np(a) for a in args], allow_pickle=allow_pickle, **{k: _to_np(v) for k, v in kwds.items()})


def savez(file, *args, allow_pickle=True, **kwds):
    """NumPy's savez: several arrays in one uncompressed .npz (positional ones as arr_0, arr_1...)."""
    _savez(_np().savez, file, args, allow_pickle, kwds)


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """NumPy's savez_compressed: as savez, deflated."""
    _savez(_np().savez_compressed, file, args, allow_pickle, kwds)


class NpzFile(collections.abc.Mapping):
    """What load gives for an .npz: NumPy's NpzFile whose items are cgrad arrays, each read from
    the zip when it is looked up (lazily, as NumPy's). A context manager; close() closes the file."""

    def __init__(self, npz):
        self._npz = npz
        self.files = npz.files
        self.allow_pickle = npz.allow_pickle
        self.f = _Bag(self)

    @property
    def zip(self):
        return self._npz.zip

    @property
    def fid(self):
        return self._npz.fid

    def __getitem__(self, key):
        return _out(self._npz[key])

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)

    def __contains__(self, key):
        return key in self._npz

    def close(self):
        """Closes the file (NumPy's close)."""
        self._npz.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "cgrad." + repr(self._npz)


class _Bag:
    """npz.f.name: the array `name` (NumPy's BagObj)."""

    def __init__(self, npz):
        self._npz = npz

    def __getattr__(self, key):
        try:
            return self._npz[key]
        except KeyError:
            raise AttributeError(key) from None

    def __dir__(self):
        return list(self._npz.files)


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *, max_header_size=10000):
    """NumPy's load: an .npy as a cgrad array, an .npz as an NpzFile of cgrad arrays, a pickle
    (with allow_pickle=True) as what it holds (a NumPy array as a cgrad array)."""
    np = _np()
    r = np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle, fix_imports=fix_imports, encoding=encoding,
                max_header_size=max_header_size)
    if isinstance(r, np.lib.npyio.NpzFile):
        return NpzFile(r)
    return _out(r) if isinstance(r, (np.ndarray, np.generic)) else r


# ---- text ----
def loadtxt(fname, dtype=float, comments="#", delimiter=None, converters=None, skiprows=0, usecols=None,
            unpack=False, ndmin=0, encoding=None, max_rows=None, *, quotechar=None, like=None):
    """NumPy's loadtxt: a text table as a cgrad array; float64 by default, as NumPy (not cgrad's
    float32); `unpack=True` gives one array per column."""
    if like is not None:
        raise TypeError("cgrad: like= is not supported (results are cgrad arrays)")
    return _out(_np().loadtxt(fname, _np_dtype(dtype), comments, delimiter, converters, skiprows, usecols, unpack,
                              ndmin, encoding, max_rows, quotechar=quotechar))


def savetxt(fname, X, fmt="%.18e", delimiter=" ", newline="\n", header="", footer="", comments="# ",
            encoding=None):
    """NumPy's savetxt: a 1-D or 2-D array (evaluated) as a text table."""
    _np().savetxt(fname, _to_np(X), fmt, delimiter, newline, header, footer, comments, encoding)


def genfromtxt(fname, dtype=float, comments="#", delimiter=None, skip_header=0, skip_footer=0, converters=None,
               missing_values=None, filling_values=None, usecols=None, names=None, excludelist=None,
               deletechars=" !#$%&'()*+,-./:;<=>?@[\\]^{|}~", replace_space="_", autostrip=False,
               case_sensitive=True, defaultfmt="f%i", unpack=None, usemask=False, loose=True, invalid_raise=True,
               max_rows=None, encoding=None, *, ndmin=0, like=None):
    """NumPy's genfromtxt: a text table with missing values (filled: NaN for floats by default) as a
    cgrad array, float64 by default; names, structured dtypes and usemask=True raise TypeError."""
    if like is not None:
        raise TypeError("cgrad: like= is not supported (results are cgrad arrays)")
    if usemask:
        raise TypeError("cgrad: cgrad has no masked arrays (usemask=True); missing values are filled "
                        "(filling_values) with usemask=False")
    if names not in (None, False):
        raise TypeError("cgrad: names= gives a structured array, which cgrad cannot hold; use usecols "
                        "and skip_header instead")
    np = _np()
    d = _np_dtype(dtype)
    if d is not None and d.names is not None:
        _check_np_dtype(d)
    return _out(np.genfromtxt(
        fname, d, comments, delimiter, skip_header, skip_footer, converters, missing_values, filling_values, usecols,
        names, excludelist, deletechars, replace_space, autostrip, case_sensitive, defaultfmt, unpack, usemask, loose,
        invalid_raise, max_rows, encoding, ndmin=ndmin))


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    """NumPy's fromfile: raw binary (`sep=""`) or text separated by `sep`; float64 by default.
    bfloat16 reads raw bits (as x.tofile writes them)."""
    if like is not None:
        raise TypeError("cgrad: like= is not supported (results are cgrad arrays)")
    np = _np()
    if isinstance(dtype, dt.dtype) and dtype is dt.bfloat16:
        if sep != "":
            raise TypeError("cgrad: bfloat16 is read from raw binary only (sep='')")
        return _from_bf16_bits(np.fromfile(file, np.uint16, count, "", offset))
    d = _np_dtype(dtype)
    _check_np_dtype(np.dtype(d))
    return _to_cg(np.fromfile(file, d, count, sep, offset))


def fromstring(string, dtype=float, count=-1, *, sep="", like=None):
    """NumPy's fromstring: numbers in text separated by `sep` (NumPy 2 removed the binary mode,
    sep='': use frombuffer); float64 by default."""
    if like is not None:
        raise TypeError("cgrad: like= is not supported (results are cgrad arrays)")
    np = _np()
    d = _np_dtype(dtype)
    _check_np_dtype(np.dtype(d))
    return _to_cg(np.fromstring(string, d, count, sep=sep))


def fromregex(file, regexp, dtype, encoding=None):
    """NumPy's fromregex with a plain dtype: the regexp's groups of each match as a row, a 1-D array
    for one group (or none: the whole match), (matches, groups) for several. NumPy's structured
    dtypes (one field a group) raise TypeError: cgrad cannot hold records."""
    np = _np()
    d = _np_dtype(dtype)
    if d.names is not None:
        raise TypeError("cgrad: fromregex gives a structured array for a structured dtype, which cgrad cannot "
                        "hold; pass a plain dtype (one column per group)")
    _check_np_dtype(d)
    groups = regexp.groups if hasattr(regexp, "groups") else re.compile(regexp).groups
    k = builtins.max(groups, 1)
    rec = np.dtype([(f"f{i}", d) for i in range(k)])
    out = np.fromregex(file, regexp, rec, encoding=encoding)
    flat = np.ascontiguousarray(out).view(d).reshape(len(out), k)
    return _to_cg(flat[:, 0] if groups <= 1 else flat)


# ---- Array methods and pickling ----
def _bf16_bits(x):
    """A bfloat16 array's raw bits as NumPy uint16 (bfloat16 to float32 is exact: its bits are the
    float32's top half)."""
    np = _np()
    f = np.ascontiguousarray(np.asarray(x.astype(dt.float32)))
    return (f.view(np.uint32) >> 16).astype(np.uint16)


def _from_bf16_bits(bits, shape=None):
    np = _np()
    f = (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
    if shape is not None:
        f = f.reshape(shape)
    return _api.asarray(np.ascontiguousarray(f)).astype(dt.bfloat16)


def _host_bytes_array(x):
    """x's values as a NumPy array of the same item bytes (bfloat16: its bits as uint16)."""
    return _bf16_bits(x) if x.dtype is dt.bfloat16 else _to_np(x)


def _tobytes(self, order="C"):
    """The raw bytes of the values (evaluates), in C or Fortran order (NumPy's tobytes)."""
    return _host_bytes_array(self).tobytes(order)


def _tofile(self, fid, sep="", format="%s"):  # noqa: A002 (NumPy's name)
    """The values to a file (evaluates): raw bytes in C order for sep="", else text (NumPy's tofile)."""
    if sep and self.dtype is dt.bfloat16:
        return _to_np(self.astype(dt.float32)).tofile(fid, sep, format)
    _host_bytes_array(self).tofile(fid, sep, format)


def _dumps(self):
    """A pickle of the array (NumPy's dumps): pickle.loads gives it back."""
    return pickle.dumps(self, protocol=2)


def _dump(self, file):
    """A pickle of the array to `file` (a path or a file open for binary writing); load(file,
    allow_pickle=True) or pickle.load reads it back."""
    if isinstance(file, (str, bytes, os.PathLike)):
        with open(file, "wb") as f:
            pickle.dump(self, f, protocol=2)
    else:
        pickle.dump(self, file, protocol=2)


def _rebuild(data, dtype_name, shape, device):
    """pickle's constructor for Array: the C-order bytes, the dtype's name, the shape, the device."""
    np = _np()
    d = dt.as_dtype(dtype_name)
    if d is dt.bfloat16:
        x = _from_bf16_bits(np.frombuffer(data, dtype=np.uint16), shape)
    else:
        x = _api.asarray(np.frombuffer(data, dtype=np.dtype(dtype_name)).reshape(shape).copy())
    return x if device == "cpu" else x.to_device(device)


def _reduce(self):
    """pickle (and copy.copy/deepcopy) of an array: its values (evaluated), dtype, shape and device;
    the graph and gradients are not kept (as a detached copy)."""
    host = self if self.device == _array._cpu_device else self.to_device(_array._cpu_device)
    return _rebuild, (_host_bytes_array(host).tobytes(), self.dtype.name, tuple(self.shape), str(self.device))


def _copy_of(self):
    """copy.copy/deepcopy: the value in a new buffer, outside the graph (a deep-copied model's
    parameters are its own: until 2026-12-07 the copy was x's clone in the graph, so a backward()
    through it added to x.grad). A leaf that requires a gradient gives a new such leaf (PyTorch's
    copy; its grad starts empty, where PyTorch's deepcopy copies it)."""
    from . import _api

    with _api.no_grad():
        v = self._clone()
    if self.requires_grad and self.is_leaf:
        v.requires_grad_()
    return v


def _install_methods():
    A = Array
    A.tobytes = _tobytes
    A.tofile = _tofile
    A.dumps = _dumps
    A.dump = _dump
    A.__reduce__ = _reduce
    A.__reduce_ex__ = lambda self, protocol: _reduce(self)
    A.__deepcopy__ = lambda self, memo: _copy_of(self)
    A.__copy__ = _copy_of


_install_methods()


# ---- printing (NumPy's print options are the store) ----
def _print_np(a):
    return _array._host(a) if isinstance(a, Array) else _np().asanyarray(a)


def array2string(a, max_line_width=None, precision=None, suppress_small=None, separator=" ", prefix="", *,
                 formatter=None, threshold=None, edgeitems=None, sign=None, floatmode=None, suffix="", legacy=None):
    """NumPy's array2string of the values (evaluates; bfloat16 shown through float32)."""
    return _np().array2string(_print_np(a), max_line_width, precision, suppress_small, separator, prefix,
                              formatter=formatter, threshold=threshold, edgeitems=edgeitems, sign=sign,
                              floatmode=floatmode, suffix=suffix, legacy=legacy)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """repr(arr) with these options: `Array([...], dtype=...)` for a cgrad array, NumPy's for others."""
    if isinstance(arr, Array):
        return _array._repr(arr, max_line_width, precision, suppress_small)
    return _np().array_repr(arr, max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """str(a) with these options (NumPy's array_str)."""
    if isinstance(a, Array):
        return _array._str(a, max_line_width, precision, suppress_small)
    return _np().array_str(a, max_line_width, precision, suppress_small)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, suppress=None, nanstr=None,
                     infstr=None, formatter=None, sign=None, floatmode=None, *, legacy=None, override_repr=None):
    """NumPy's set_printoptions: how print(x) and repr(x) show cgrad arrays, and NumPy's (one store)."""
    _np().set_printoptions(precision, threshold, edgeitems, linewidth, suppress, nanstr, infstr, formatter, sign,
                           floatmode, legacy=legacy, override_repr=override_repr)


def get_printoptions():
    """NumPy's get_printoptions: the current print options, a dict."""
    return _np().get_printoptions()


@contextlib.contextmanager
def printoptions(*args, **kwargs):
    """NumPy's printoptions: set_printoptions for a `with` block, restored after; yields the options."""
    with _np().printoptions(*args, **kwargs) as opts:
        yield opts


def format_float_positional(x, precision=None, unique=True, fractional=True, trim="k", sign=False, pad_left=None,
                            pad_right=None, min_digits=None):
    """NumPy's format_float_positional of a float or 0-d array (its dtype's shortest digits)."""
    return _np().format_float_positional(_scalar(x), precision, unique, fractional, trim, sign, pad_left,
                                         pad_right, min_digits)


def format_float_scientific(x, precision=None, unique=True, trim="k", sign=False, pad_left=None, exp_digits=None,
                            min_digits=None):
    """NumPy's format_float_scientific of a float or 0-d array."""
    return _np().format_float_scientific(_scalar(x), precision, unique, trim, sign, pad_left, exp_digits,
                                         min_digits)


def _scalar(x):
    """A 0-d cgrad array as the NumPy scalar of its dtype (so float32 prints float32's digits)."""
    if isinstance(x, Array):
        if x.ndim != 0:
            raise TypeError(f"cgrad: a scalar or 0-d array is needed, got a {x.ndim}-D array")
        return _array._host(x)[()]
    return x


# ---- floating-point error state (recorded; cgrad's kernels trap nothing) ----
_CATEGORIES = ("divide", "over", "under", "invalid")
_MODES = ("ignore", "warn", "raise", "call", "print", "log")
_DEFAULT = {c: "ignore" for c in _CATEGORIES}
_err = contextvars.ContextVar("cgrad_errstate", default=(_DEFAULT, None))


def _new_state(all, divide, over, under, invalid):  # noqa: A002 (NumPy's name)
    state = dict(_err.get()[0])
    for c, v in (("divide", divide), ("over", over), ("under", under), ("invalid", invalid)):
        v = all if v is None else v
        if v is None:
            continue
        if v not in _MODES:
            raise ValueError(f"invalid error mode {v!r}")
        if v in ("raise", "call"):
            raise NotImplementedError(
                f"cgrad cannot trap floating-point errors: its kernels never check them, so {c}={v!r} "
                "would give NaN/inf silently; check the results (cgrad.isfinite, cgrad.isnan) instead")
        state[c] = v
    return state


def seterr(all=None, divide=None, over=None, under=None, invalid=None):  # noqa: A002
    """Records how floating-point errors are handled and returns the old settings. cgrad's kernels
    emit nothing: 'ignore' is what they do, 'warn'/'print'/'log' are recorded only, and 'raise' and
    'call' raise NotImplementedError (cgrad cannot trap them)."""
    old, call = _err.get()
    _err.set((_new_state(all, divide, over, under, invalid), call))
    return dict(old)


def geterr():
    """The recorded error handling, a dict as NumPy's; 'ignore' for every category by default
    (what cgrad's kernels do)."""
    return dict(_err.get()[0])


def seterrcall(func):
    """Records the function (or object with a `write` method) NumPy would call for 'call'/'log'
    and returns the old one. cgrad never calls it: it traps no floating-point errors."""
    if func is not None and not callable(func) and not callable(getattr(func, "write", None)):
        raise ValueError("Only callable can be used as callback")
    state, old = _err.get()
    _err.set((state, func))
    return old


def geterrcall():
    """The recorded error callback (None by default)."""
    return _err.get()[1]


_UNSET = object()


class errstate(contextlib.ContextDecorator):
    """NumPy's errstate: seterr (and seterrcall with `call=`) for a `with` block or a decorated
    function, restored after. 'raise' and 'call' raise NotImplementedError when it is entered."""

    def __init__(self, *, call=_UNSET, all=None, divide=None, over=None, under=None, invalid=None):  # noqa: A002
        self._call = call
        self._kw = dict(all=all, divide=divide, over=over, under=under, invalid=invalid)
        self._tokens = []

    def __enter__(self):
        state, call = _err.get()
        state = _new_state(**self._kw)
        if self._call is not _UNSET:
            if self._call is not None and not callable(self._call) and not callable(getattr(self._call, "write", None)):
                raise ValueError("Only callable can be used as callback")
            call = self._call
        self._tokens.append(_err.set((state, call)))
        return self

    def __exit__(self, *exc):
        _err.reset(self._tokens.pop())


# ---- misc ----
def array_equiv(a1, a2):
    """True when the arrays have broadcastable shapes and equal elements (evaluates; a Python bool)."""
    a1, a2 = _api._as_array_arg(a1), _api._as_array_arg(a2)
    try:
        shape = _api.broadcast_shapes(tuple(a1.shape), tuple(a2.shape))
    except (ValueError, _cgrad.Error):
        return False
    if math.prod(shape) == 0:
        return True
    return builtins.bool(_api.all(_api.broadcast_to(a1, shape) == _api.broadcast_to(a2, shape)))


_REQ = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F",
        "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O", "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


def require(a, dtype=None, requirements=None, *, like=None):
    """NumPy's require: `a` as a cgrad array of `dtype`. Of the flags, C, A (aligned), W (cgrad
    arrays take x[...] = v), O and E always hold; O gives a copy of a cgrad array. F is accepted as
    asfortranarray: cgrad lays results out itself, in C order (np.asarray(x) is C-contiguous)."""
    if like is not None:
        raise TypeError("cgrad: like= is not supported (results are cgrad arrays)")
    flags = {_REQ[r.upper()] for r in requirements or ()}  # a string is its letters; unknown: KeyError (NumPy)
    if "C" in flags and "F" in flags:
        raise ValueError("Cannot specify both C and Fortran contiguous.")
    d = None if dtype is None else _dtype_arg(dtype)
    if isinstance(a, Array):
        x = a if d is None else a.astype(d)
        return x.copy() if "O" in flags and x is a else x
    return _api.asarray(_np_in(a), dtype=d)


def _dtype_arg(d):
    from ._numpy_arrays import _dtype_of

    return _dtype_of(d)


def _np_in(a):
    """NumPy arrays and scalars as NumPy arrays (asarray imports them); other inputs as they are."""
    np = _np()
    if isinstance(a, np.ndarray):
        _check_np_dtype(a.dtype)
    return a


def asfortranarray(a, dtype=None, *, like=None):
    """`a` as a cgrad array of `dtype`. cgrad lays out results itself, in C order: the values are
    a's, np.asarray of the result is C-contiguous and isfortran gives False (docs/python.md)."""
    if like is not None:
        raise TypeError("cgrad: like= is not supported (results are cgrad arrays)")
    d = None if dtype is None else _dtype_arg(dtype)
    return _api.asarray(_np_in(a), dtype=d)


def isfortran(a):
    """False for cgrad arrays (cgrad lays them out in C order); NumPy's answer for NumPy arrays."""
    if isinstance(a, Array):
        return False
    return _np().isfortran(a)


def _int_arg(x):
    return int(x) if isinstance(x, Array) else x


def base_repr(number, base=2, padding=0):
    """NumPy's base_repr: the integer in `base` (2 to 36) as a string, `padding` zeros in front."""
    return _np().base_repr(_int_arg(number), base, padding)


def binary_repr(num, width=None):
    """NumPy's binary_repr: the integer in binary; negatives in two's complement with `width`."""
    return _np().binary_repr(_int_arg(num), width)


def typename(char):
    """NumPy's typename: the description of a type code ('d' -> 'double precision')."""
    return _np().typename(char)


def mintypecode(typechars, typeset="GDFgdf", default="d"):
    """NumPy's mintypecode: the smallest type code in `typeset` that holds the types of
    `typechars` (codes, or arrays: cgrad's by their dtype)."""
    np = _np()
    chars = [np.dtype(_np_dtype(c.dtype)).char if isinstance(c, Array) else c for c in typechars]
    return np.mintypecode(chars, typeset, default)


def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """The order einsum(..., optimize=...) contracts in, NumPy's way: (path, report), path
    ["einsum_path", (i, j), ...] (positions in the list of operands left, the result appended) and
    NumPy's report string. cgrad's einsum goes in its greedy order for three or more operands without
    `...` when optimize is set ("optimal" as "greedy"); otherwise in one call (path [(0, ..., n-1)])."""
    if einsum_call:
        raise TypeError("cgrad: einsum_call is NumPy's internal argument")
    if not operands:
        raise TypeError("einsum_path: needs subscripts and operands")
    if isinstance(operands[0], str):
        subscripts, ops = operands[0].replace(" ", ""), list(operands[1:])
    else:
        subscripts, ops = _api._einsum_sublists(operands)
    shapes = [tuple(o.shape) if isinstance(o, Array) else _np().shape(o) for o in ops]
    words, output = _einsum_parse(subscripts, shapes)
    size = {}
    for t, (w, s) in enumerate(zip(words, shapes)):
        if len(w) != len(s):
            raise ValueError(f"einsum_path: subscripts {w!r} for operand {t} of shape {s}")
        for c, d in zip(w, s):
            if size.get(c, 1) not in (1, d) and d != 1:
                raise ValueError(f"einsum_path: size of label {c!r} for operand {t} ({d}) does not match "
                                 f"previous terms ({size[c]})")
            size[c] = builtins.max(size.get(c, 1), d)
    if optimize not in (False, None, "no") and len(shapes) > 2 and "." not in subscripts:
        path = [(i, j) for i, j, _ in _api._einsum_greedy_path(words, output, shapes)]
    else:
        path = [tuple(range(len(shapes)))]
    return ["einsum_path", *path], _einsum_report(words, output, size, path)


_SYMBOLS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_parse(subscripts, shapes):
    """Input words and output with `...` spelled out in unused letters, right-aligned (NumPy's
    parse: the first unused letters in ASCII order), and NumPy's implicit output."""
    inputs, arrow, output = subscripts.partition("->")
    words = inputs.split(",")
    if len(words) != len(shapes):
        raise ValueError(f"einsum_path: {len(words)} subscripts for {len(shapes)} operands")
    if "." in subscripts:
        counts = [len(s) - len(w.replace("...", "")) if "..." in w else 0 for w, s in zip(words, shapes)]
        unused = sorted(set(_SYMBOLS) - set(subscripts))
        ell = "".join(unused[:builtins.max(counts, default=0)])
        words = [w.replace("...", ell[len(ell) - n:] if n > 0 else "") for w, n in zip(words, counts)]
        if arrow:
            output = output.replace("...", ell)
        else:
            output = ell + "".join(c for c in _api._einsum_implicit_output(words) if c not in ell)
    elif not arrow:
        output = _api._einsum_implicit_output(words)
    return words, output


def _flops(idx, inner, n_terms, size):
    """NumPy's _flop_count: the contraction's loop count, times the terms less one (plus one for an
    inner sum)."""
    return math.prod(size[c] for c in idx) * (builtins.max(1, n_terms - 1) + (1 if inner else 0))


def _einsum_report(words, output, size, path):
    """NumPy's einsum_path report for this path (its format, costs and intermediate names)."""
    indices = set("".join(words))
    inner = builtins.sum(len(set(w)) for w in words) - len(indices) > 0
    naive = _flops(indices, inner, len(words), size)
    current, rows, costs, scales, sizes = list(words), [], [], [], []
    for n, step in enumerate(path):
        step = tuple(sorted(step, reverse=True))
        picked = [current[k] for k in step]
        rest = [w for k, w in enumerate(current) if k not in step]
        idx = set("".join(picked))
        kept = idx & set(output).union(*map(set, rest))
        costs.append(_flops(idx, len(idx - kept) > 0, len(step), size))
        scales.append(len(idx))
        sizes.append(math.prod(size[c] for c in kept))
        name = output if n == len(path) - 1 else "".join(sorted(kept, key=lambda c: (size[c], c)))
        current = rest + [name]
        rows.append((len(idx), ",".join(picked) + "->" + name, ",".join(current) + "->" + output))
    cost = builtins.sum(costs) + 1
    text = (f"  Complete contraction:  {','.join(words)}->{output}\n"
            f"         Naive scaling:  {len(indices)}\n"
            f"     Optimized scaling:  {builtins.max(scales)}\n"
            f"      Naive FLOP count:  {naive:.3e}\n"
            f"  Optimized FLOP count:  {cost:.3e}\n"
            f"   Theoretical speedup:  {naive / cost:3.3f}\n"
            f"  Largest intermediate:  {builtins.max(sizes):.3e} elements\n"
            + "-" * 74 + "\n" + "%6s %24s %40s\n" % ("scaling", "current", "remaining") + "-" * 74)
    return text + "".join("\n%4d    %24s %40s" % r for r in rows)


def show_config():
    """cgrad's build and runtime facts (NumPy prints its build's): version, backends, CUDA, compiler,
    kernel cache directory, threads."""
    print(_facts())


def show_runtime():
    """cgrad's runtime facts: as show_config, with its counters (cgrad.stats())."""
    print(_facts() + "\nstats:\n" + "\n".join(f"  {k}: {v}" for k, v in _cgrad.stats().items()))


def _facts():
    import platform
    import sys

    import cgrad

    c = _cgrad._config()  # the C++ core's own answers (cgrad::config)
    prebuilt = c["prebuilt_kernels_dir"]
    info = cgrad.__array_namespace_info__()
    rows = [
        ("cgrad", cgrad.__version__),
        ("Array API version", cgrad.__array_api_version__),
        ("python", sys.version.split()[0] + " " + platform.machine()),
        ("backend", c["backend"] + " (CGRAD_BACKEND: jit or interpreter)"),
        ("CPU compiler", f"{c['compiler']} ({c['compiler_identity']})" if c["compiler"]
         else "none found (the interpreter runs everything)"),
        ("kernel cache", c["kernel_cache_dir"]),
        ("prebuilt kernels", prebuilt + ("" if os.path.isdir(prebuilt) else " (absent)") if prebuilt else "off"),
        ("threads", str(c["threads"])),
        ("CUDA", "available" if _cgrad.cuda_available() else "not available"),
        ("devices", ", ".join(str(d) for d in info.devices())),
        ("default dtypes", ", ".join(f"{k}: {v.name}" for k, v in info.default_dtypes().items())),
    ]
    w = builtins.max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{w}} : {v}" for k, v in rows)
