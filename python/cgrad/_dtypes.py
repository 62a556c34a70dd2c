"""cgrad's dtypes as Python objects (Array API: equality-comparable dtype objects), with
iinfo/finfo and the promotion queries. cgrad has float32, float64, int32, int64 and bool."""
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
        return self is other

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return self.name


_dtype_class = dtype
float32 = dtype("float32", _D.f32, 4, "real floating")
float64 = dtype("float64", _D.f64, 8, "real floating")
int32 = dtype("int32", _D.i32, 4, "signed integer")
int64 = dtype("int64", _D.i64, 8, "signed integer")
bool = dtype("bool", _D.b8, 1, "bool")  # noqa: A001 (the standard's name)

ALL = (bool, int32, int64, float32, float64)
_FROM_C = {d._c: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}


def from_c(c):
    return _FROM_C[c]


def as_dtype(d):
    """A cgrad dtype from a cgrad dtype, a name, or NumPy/PyTorch-like object with a name."""
    if isinstance(d, dtype):
        return d
    name = d if isinstance(d, str) else getattr(d, "name", None) or str(d).split(".")[-1]
    name = {"f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64", "b8": "bool"}.get(name, name)
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
    if d is float32:
        return finfo_object(32, 2.0**-23, 3.4028234663852886e38, -3.4028234663852886e38, 2.0**-126, d)
    if d is float64:
        return finfo_object(64, 2.0**-52, 1.7976931348623157e308, -1.7976931348623157e308, 2.0**-1022, d)
    raise TypeError(f"finfo: {d} is not a floating dtype")


def iinfo(type, /):
    d = type.dtype if hasattr(type, "_dtype") else as_dtype(type)
    if d is int32:
        return iinfo_object(32, 2**31 - 1, -(2**31), d)
    if d is int64:
        return iinfo_object(64, 2**63 - 1, -(2**63), d)
    raise TypeError(f"iinfo: {d} is not an integer dtype")


_RANK = {bool: 0, int32: 1, int64: 2, float32: 3, float64: 4}


def result_type(*xs):
    """The dtype of an element-wise op on `xs` (arrays, dtypes or Python scalars): the largest
    array dtype; a Python scalar only matters when its category is higher."""
    arrays = [x.dtype if hasattr(x, "_dtype") else x for x in xs if isinstance(x, dtype) or hasattr(x, "_dtype")]
    scalars = [x for x in xs if not (isinstance(x, dtype) or hasattr(x, "_dtype"))]
    if not arrays:
        raise ValueError("result_type needs at least one array or dtype")
    r = max(arrays, key=_RANK.__getitem__)
    for s in scalars:
        if isinstance(s, float) and r in (bool, int32, int64):
            r = float32
        elif isinstance(s, int) and not isinstance(s, type(True)) and r is bool:
            r = int64
    return r


def can_cast(from_, to, /):
    """True when the Array API's promotion rules allow `from_` -> `to` (same kind, not narrower)."""
    f = from_.dtype if hasattr(from_, "_dtype") else as_dtype(from_)
    t = as_dtype(to)
    kind = lambda d: 0 if d is bool else 1 if d in (int32, int64) else 2  # noqa: E731
    return f is t or (kind(f) == kind(t) and _RANK[f] <= _RANK[t])


def isdtype(dtype, kind):
    dt = as_dtype(dtype)
    dtype = _dtype_class
    if isinstance(kind, tuple):
        return any(isdtype(dt, k) for k in kind)
    if isinstance(kind, dtype):
        return dt is kind
    groups = {
        "bool": (bool,),
        "signed integer": (int32, int64),
        "unsigned integer": (),
        "integral": (int32, int64),
        "real floating": (float32, float64),
        "complex floating": (),
        "numeric": (int32, int64, float32, float64),
    }
    if kind not in groups:
        raise ValueError(f"isdtype: unknown kind {kind!r}")
    return dt in groups[kind]
