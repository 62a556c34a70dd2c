"""cgrad's dtypes as Python objects (Array API: equality-comparable dtype objects), with
iinfo/finfo and the promotion queries. cgrad has bool, int8..int64, uint8..uint64, float16,
bfloat16, float32, float64, complex64 and complex128 (docs/semantics.md); iinfo/finfo come from the C++ tables, and
result_type follows the C++ promotion rules (the Array API table; int64 with uint64 gives
float64 as NumPy does; float16 with bfloat16 gives float32 as PyTorch does)."""
import builtins

from . import _cgrad

_D = _cgrad._DType


class dtype:
    """One of cgrad's element types (``cgrad.float32`` ...)."""

    __slots__ = ("name", "_c", "itemsize", "kind")

    def __init__(self, name, c, itemsize, kind):
        self.name, self._c, self.itemsize, self.kind = name, c, itemsize, kind

    def __repr__(self):
        return f"cgrad.{self.name}"

    def __eq__(self, other):
        """Equal to itself and to what `as_dtype` reads as it, as NumPy's dtypes compare:
        `x.dtype == np.float32`, `== "float32"`, `== float` for float64 (False before 2026-12-07,
        silently)."""
        if self is other:
            return True
        if other is None or isinstance(other, (dtype, builtins.bool, int, float)):
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __hash__(self):
        return hash(self.name)

    @property
    def char(self):
        """NumPy's one-letter code of the dtype ("f", "d", "F"...; bfloat16, which NumPy has not,
        float16's), for NumPy code that reads it of an array it was handed (np.poly of an empty
        array)."""
        import numpy as np

        return np.dtype("float16" if self.name == "bfloat16" else self.name).char

    def __reduce__(self):
        return self.name

    def __call__(self, value=0):
        """NumPy's `np.float32(3)` and `np.int64([1, 2])`, as `jax.numpy`'s: an Array of this dtype
        (0-d for a scalar) converted from `value` (a cast where it is an Array), not a NumPy scalar."""
        from . import _api

        return value.astype(self) if isinstance(value, _cgrad.Array) else _api.asarray(value, dtype=self)


_dtype_class = dtype
_S, _U, _F = "signed integer", "unsigned integer", "real floating"
bool = dtype("bool", _D.b8, 1, "bool")  # noqa: A001 (the standard's name)
int8 = dtype("int8", _D.i8, 1, _S)
int16 = dtype("int16", _D.i16, 2, _S)
int32 = dtype("int32", _D.i32, 4, _S)
int64 = dtype("int64", _D.i64, 8, _S)
uint8 = dtype("uint8", _D.u8, 1, _U)
uint16 = dtype("uint16", _D.u16, 2, _U)
uint32 = dtype("uint32", _D.u32, 4, _U)
uint64 = dtype("uint64", _D.u64, 8, _U)
float16 = dtype("float16", _D.f16, 2, _F)  # storage type: computes in float32
bfloat16 = dtype("bfloat16", _D.bf16, 2, _F)  # storage type: computes in float32
float32 = dtype("float32", _D.f32, 4, _F)
float64 = dtype("float64", _D.f64, 8, _F)
_C = "complex floating"
complex64 = dtype("complex64", _D.c64, 8, _C)  # complex group: (re, im) of float32
complex128 = dtype("complex128", _D.c128, 16, _C)

# NumPy's other names of the same dtypes (`np.single is np.float32`); intp, int_ and long are int64,
# the index dtype on the 64-bit platforms cgrad runs on.
single, double, half = float32, float64, float16
csingle, cdouble = complex64, complex128
bool_ = bool
byte, ubyte, short, ushort, intc, uintc = int8, uint8, int16, uint16, int32, uint32
intp = int_ = long = longlong = int64
uintp = uint = ulong = ulonglong = uint64

ALL = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64,
       complex64, complex128)
INTEGRAL = tuple(d for d in ALL if d.kind in (_S, _U))
FLOATING = tuple(d for d in ALL if d.kind == _F)
HALF = (float16, bfloat16)  # 16-bit storage types: composites of sums compute them in float32
COMPLEX = (complex64, complex128)
_FROM_C = {d._c: d for d in ALL}
_PY_TYPES = {builtins.bool: bool, int: int64, float: float64, complex: complex128}  # NumPy's reading
_BY_NAME = {d.name: d for d in ALL}
# C++ names (cgrad::dtype_name) and NumPy's spellings of the same dtypes.
_ALIASES = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16", "i8": "int8",
            "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
            "u64": "uint64", "b8": "bool", "half": "float16", "bool_": "bool", "c64": "complex64",
            "c128": "complex128"}


def from_c(c):
    return _FROM_C[c]


def as_dtype(d):
    """A cgrad dtype from a cgrad dtype, a name, a NumPy/PyTorch-like object with a name, a Python
    type as NumPy reads it (`float` is float64, `int` int64, `complex` complex128) or one of
    NumPy's spellings ("f4", "<i8", "double"). Until 2026-12-07 the last two were taken only by
    the NumPy-named functions: `zeros(3, dtype=float)` and `x.astype(int)` raised TypeError."""
    if isinstance(d, dtype):
        return d
    if d in _PY_TYPES:
        return _PY_TYPES[d]
    # a NumPy scalar type (np.float32: its `name` is a descriptor) by its __name__
    name = d if isinstance(d, str) else d.__name__ if isinstance(d, type) else getattr(d, "name", None)
    if not isinstance(name, str):
        name = str(d).split(".")[-1]
    name = _ALIASES.get(name, name)
    if name in _BY_NAME:
        return _BY_NAME[name]
    if isinstance(d, str):
        try:
            import numpy as np

            name = np.dtype(d).name
        except Exception:  # no NumPy, or not a NumPy spelling (TypeError, ValueError, SyntaxError...)
            name = None
        if name in _BY_NAME:
            return _BY_NAME[name]
    raise TypeError(f"cgrad has no dtype {d!r} (it has {', '.join(x.name for x in ALL)})")


class finfo_object:
    def __init__(self, bits, eps, max, min, smallest_normal, dtype):
        self.bits, self.eps, self.max, self.min = bits, eps, max, min
        self.smallest_normal, self.dtype = smallest_normal, dtype


class iinfo_object:
    def __init__(self, bits, max, min, dtype):
        self.bits, self.max, self.min, self.dtype = bits, max, min, dtype


def finfo(type, /):
    d = type.dtype if hasattr(type, "_dtype") else as_dtype(type)
    if d not in FLOATING + COMPLEX:
        raise TypeError(f"finfo: {d} is not a floating dtype")
    bits, eps, mx, mn, tiny = _cgrad._finfo(d._c)
    # a complex dtype: its parts' limits, and their dtype (the standard)
    return finfo_object(bits, eps, mx, mn, tiny, {complex64: float32, complex128: float64}.get(d, d))


def iinfo(type, /):
    d = type.dtype if hasattr(type, "_dtype") else as_dtype(type)
    if d not in INTEGRAL:
        raise TypeError(f"iinfo: {d} is not an integer dtype")
    bits, mn, mx = _cgrad._iinfo(d._c)
    return iinfo_object(bits, mx, mn, d)


def _category(d):
    return 0 if d is bool else 1 if d in INTEGRAL else 3 if d in COMPLEX else 2


def _real_of(d):
    return {complex64: float32, complex128: float64}.get(d, d)


def _complex_of(d):
    return complex128 if d in (float64, complex128) else complex64


def _promote(a, b):
    """The C++ core's promotion of two array dtypes (core::promote)."""
    if a is b:
        return a
    ca, cb = _category(a), _category(b)
    if ca == 3 or cb == 3:  # complex: the complex dtype whose parts hold both (c64 + f64 -> c128)
        ra, rb = _real_of(a), _real_of(b)
        if ca == 3 and cb == 3:
            return _complex_of(_promote(ra, rb))
        if ca == 3:
            return _complex_of(_promote(ra, b) if cb == 2 else ra)
        return _complex_of(_promote(a, rb) if ca == 2 else rb)
    if ca != cb:
        return a if ca > cb else b
    if ca == 1:
        if (a.kind == _U) == (b.kind == _U):
            return a if a.itemsize >= b.itemsize else b
        u, s = (a, b) if a.kind == _U else (b, a)
        if u is uint64:
            return float64
        size = builtins_max(s.itemsize, 2 * u.itemsize)
        return {1: int8, 2: int16, 4: int32, 8: int64}[size]
    if a.itemsize == b.itemsize:  # float16 with bfloat16
        return float32
    return a if a.itemsize >= b.itemsize else b


builtins_max = max


def result_type(*xs):
    """The dtype of an element-wise op on `xs` (arrays, dtypes or Python scalars): the arrays'
    dtypes promoted together; a Python scalar only matters when its category is higher."""
    arrays = [x.dtype if hasattr(x, "_dtype") else x for x in xs if isinstance(x, dtype) or hasattr(x, "_dtype")]
    scalars = [x for x in xs if not (isinstance(x, dtype) or hasattr(x, "_dtype"))]
    if not arrays:
        raise ValueError("result_type needs at least one array or dtype")
    r = arrays[0]
    for a in arrays[1:]:
        r = _promote(r, a)
    for s in scalars:
        if isinstance(s, complex) and r not in COMPLEX:
            r = _complex_of(r)
        elif isinstance(s, float) and r not in FLOATING + COMPLEX:
            r = float32
        elif isinstance(s, int) and not isinstance(s, type(True)) and r is bool:
            r = int64
    return r


def can_cast(from_, to, /):
    """True when the Array API's promotion rules allow `from_` -> `to` (same kind, and promoting
    the two gives `to`)."""
    f = from_.dtype if hasattr(from_, "_dtype") else as_dtype(from_)
    t = as_dtype(to)
    cf, ct = _category(f), _category(t)
    return f is t or ((cf == ct or (cf == 2 and ct == 3)) and _promote(f, t) is t)  # float -> complex too


def isdtype(dtype, kind):
    dt = as_dtype(dtype)
    dtype = _dtype_class
    if isinstance(kind, tuple):
        return any(isdtype(dt, k) for k in kind)
    if isinstance(kind, dtype):
        return dt is kind
    groups = {
        "bool": (bool,),
        "signed integer": tuple(d for d in ALL if d.kind == _S),
        "unsigned integer": tuple(d for d in ALL if d.kind == _U),
        "integral": INTEGRAL,
        "real floating": FLOATING,
        "complex floating": COMPLEX,
        "numeric": INTEGRAL + FLOATING + COMPLEX,
    }
    if kind not in groups:
        raise ValueError(f"isdtype: unknown kind {kind!r}")
    return dt in groups[kind]


class generic:
    """NumPy's abstract scalar types (`np.generic`, `np.number`, `np.integer`, `np.floating`...) as
    classes whose `_dtypes` are cgrad's dtypes of that kind, for `issubdtype(x.dtype, cgrad.floating)`.
    cgrad's dtypes are objects, not scalar classes, so these are only for `issubdtype` (and
    `issubclass` among themselves): they cannot be instantiated, as NumPy's."""

    _dtypes = ALL

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"cannot create 'cgrad.{cls.__name__}' instances (an abstract scalar type)")


class number(generic):
    _dtypes = ALL[1:]


class integer(number):
    _dtypes = INTEGRAL


class signedinteger(integer):
    _dtypes = tuple(d for d in ALL if d.kind == _S)


class unsignedinteger(integer):
    _dtypes = tuple(d for d in ALL if d.kind == _U)


class inexact(number):
    _dtypes = FLOATING + COMPLEX


class floating(inexact):
    _dtypes = FLOATING


class complexfloating(inexact):
    _dtypes = COMPLEX


ABSTRACT = {c.__name__: c for c in (generic, number, integer, signedinteger, unsignedinteger, inexact, floating,
                                    complexfloating)}


def abstract_type(t):
    """cgrad's abstract scalar type for `t`: one of the classes above, or NumPy's of the same name
    (`np.floating`, read by name so that NumPy need not be imported); None for anything else."""
    if not isinstance(t, type):
        return None
    if issubclass(t, generic):
        return t
    if t.__module__ == "numpy" and ABSTRACT.get(t.__name__) is not None:
        return ABSTRACT[t.__name__]
    return None
