"""cgrad: a lazy tensor engine with a JIT, from Python.

Arrays are lazy: operations build a graph, and evaluation (``cgrad.eval``, ``x.item()``,
``print(x)``, ``np.asarray(x)``, ``__dlpack__``) fuses and runs it. This module is also an
Array API namespace (``x.__array_namespace__()`` returns it). See docs/python.md.
"""
import sys as _sys

from . import _cgrad
from ._cgrad import (  # noqa: F401  (re-exported)
    Array,
    Device,
    Error,
    ShapeError,
    InvalidArgumentError,
    InvalidOperationError,
    DTypeError,
    DeviceError,
    OutOfMemoryError,
    CompileError,
    ExecutionError,
    InternalError,
    cuda_available,
    manual_seed,
    stats,
    reset_stats,
    to_dot,
    grad,
    no_grad,
    is_grad_enabled,
    eval,
    # element-wise functions bound straight from the C++ tables
    add,
    subtract,
    multiply,
    divide,
    pow,
    maximum,
    minimum,
    less,
    less_equal,
    greater,
    greater_equal,
    equal,
    not_equal,
    exp,
    log,
    sqrt,
    rsqrt,
    abs,
    sin,
    cos,
    tanh,
    sigmoid,
    relu,
    negative,
    floor_divide,
    remainder,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    bitwise_left_shift,
    bitwise_right_shift,
    atan2,
    hypot,
    copysign,
    logaddexp,
    nextafter,
    logical_and,
    logical_or,
    logical_xor,
    floor,
    ceil,
    trunc,
    round,
    sign,
    signbit,
    isnan,
    isinf,
    isfinite,
    log1p,
    expm1,
    log2,
    log10,
    tan,
    asin,
    acos,
    atan,
    sinh,
    cosh,
    asinh,
    acosh,
    atanh,
    erf,
    bitwise_invert,
    logical_not,
    positive,
    square,
    reciprocal,
    conj,
    real,
    imag,
    isclose,
    allclose,
    softmax,
    log_softmax,
    cross_entropy,
)
from ._dtypes import (  # noqa: F401
    bool,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    float16,
    bfloat16,
    float32,
    float64,
    complex64,
    complex128,
    dtype,
    finfo,
    iinfo,
    result_type,
    can_cast,
    isdtype,
    # NumPy's other names of these dtypes (`single` is float32, `intp` int64...) and its abstract
    # scalar types, for issubdtype(x.dtype, cgrad.floating)
    single,
    double,
    half,
    csingle,
    cdouble,
    bool_,
    byte,
    ubyte,
    short,
    ushort,
    intc,
    uintc,
    intp,
    int_,
    long,
    longlong,
    uintp,
    uint,
    ulong,
    ulonglong,
    generic,
    number,
    integer,
    signedinteger,
    unsignedinteger,
    inexact,
    floating,
    complexfloating,
)
from ._api import *  # noqa: F401,F403
from ._api import all, any, max, min, sum, compile  # noqa: F401  (shadow builtins on purpose)
from . import _api as _api_module
from . import fft  # noqa: F401  (the fft extension: cgrad.fft)
from ._numpy import *  # noqa: F401,F403  (NumPy's functions beyond the standard)
from ._numpy_math import *  # noqa: F401,F403
from ._numpy_arrays import *  # noqa: F401,F403
from ._numpy_io import *  # noqa: F401,F403  (NumPy I/O, printing, error state)
from ._numpy_index import *  # noqa: F401,F403  (mgrid ogrid r_ c_ s_ index_exp ndindex ndenumerate broadcast)
from ._vectorize import *  # noqa: F401,F403  (vectorize, frompyfunc)
from . import _array_methods  # noqa: F401  (NumPy's ndarray methods: partition, flat, view...)
from . import linalg  # noqa: F401  (the linalg extension: cgrad.linalg)
from . import random  # noqa: F401  (NumPy's sampling functions: cgrad.random)
from . import optim  # noqa: F401  (torch.optim's spelling over the C++ optimizers)
from . import lib  # noqa: F401  (cgrad.lib.stride_tricks, cgrad.lib.scimath)
from . import emath  # noqa: F401  (NumPy's numpy.emath: complex results outside the real domain)
from ._poly1d import poly1d  # noqa: F401  (NumPy's legacy polynomial class)
from . import _positional

_positional.apply(globals())  # NumPy's positional arguments: cgrad.sum(x, 0), cgrad.ones(shape, float64)
from . import _ufunc
from ._ufunc import ufunc  # noqa: F401

_ufunc.wrap(globals())  # NumPy's ufunc objects: cgrad.add.reduce, cgrad.maximum.accumulate, cgrad.add.outer...
linalg.matmul = matmul  # the same function as the namespace's (with NumPy's out)
for _m in (linalg, fft, lib.stride_tricks):  # a TypeError naming the argument that is not an Array
    _positional.apply(vars(_m), {})
del _m
ndarray = Array  # NumPy's name of the array type: isinstance(x, cgrad.ndarray), as jax.numpy.ndarray

# The star imports above bring the modules those files import (math, functools...): not cgrad's names.
for _name, _v in list(globals().items()):
    if type(_v) is type(_cgrad) and not _name.startswith("_") and _v.__name__ != f"cgrad.{_name}":
        del globals()[_name]
del _name, _v

__array_api_version__ = "2025.12"
__version__ = "0.1.0"

e = 2.718281828459045
pi = 3.141592653589793
inf = float("inf")
nan = float("nan")
newaxis = None
euler_gamma = 0.5772156649015329
little_endian = _sys.byteorder == "little"


class _Info:
    """__array_namespace_info__(): what this namespace supports."""

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        return Device.cpu()

    def devices(self):
        return (Device.cpu(),) + ((Device.cuda(0),) if cuda_available() else ())

    def default_dtypes(self, *, device=None):
        return {"real floating": float32, "complex floating": complex64, "integral": int64, "indexing": int64}

    def dtypes(self, *, device=None, kind=None):
        # The standard's dtypes (float16 and bfloat16 are cgrad extras, as in NumPy/PyTorch).
        all_ = {d.name: d for d in (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64,
                                    complex64, complex128)}
        if kind is None:
            return all_
        return {k: v for k, v in all_.items() if isdtype(v, kind)}


def __array_namespace_info__():
    return _Info()


def __getattr__(name):
    if name in ("testing", "polynomial"):  # NumPy's numpy.testing, numpy.polynomial: imported when first used
        import importlib

        return importlib.import_module(f".{name}", __name__)
    # A clear message for the standard's functions the C++ core does not have yet.
    from ._missing import MISSING, NUMPY_ABSENT

    if name in MISSING:
        raise AttributeError(f"cgrad.{name} is not available yet: {MISSING[name]}")
    if name in NUMPY_ABSENT:
        raise AttributeError(f"module 'cgrad' has no attribute {name!r}: {NUMPY_ABSENT[name]}")
    raise AttributeError(f"module 'cgrad' has no attribute {name!r}")
