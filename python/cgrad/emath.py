"""NumPy's numpy.emath (numpy.lib.scimath): `sqrt log log2 log10 logn power arccos arcsin arctanh`
that leave the real numbers for the complex plane where the real function's domain ends
(`sqrt(-1)` is `1j`, `log(-1)` is `pi j`, `arccos(2)` is `1.317j`), composed of cgrad's
element-wise ops (lazy, fused, differentiable). As in NumPy, whether a real array's result is real
or complex depends on its values (any element below 0, or outside [-1, 1] for the inverse
trigonometric functions): that test is evaluated, one reduction run in the same schedule as the
argument itself (a synchronisation point, as `nonzero`); the result stays lazy. A complex argument
needs no test and is lazy throughout. Dtypes are NumPy's (integers as NumPy's float-only ufuncs
take them; complex64 for float32 and 8- and 16-bit integers, else complex128), except where
cgrad's own rules differ: docs/python.md, "cgrad.testing, cgrad.emath, cgrad.poly1d"."""
from . import _api
from . import _cgrad
from . import _dtypes as _dt
from ._numpy_math import _ufloat

__all__ = ["sqrt", "log", "log2", "log10", "logn", "power", "arccos", "arcsin", "arctanh"]

_arr = _api._as_array_arg

# NumPy's _tocomplex: float32 and the 8- and 16-bit integers go to complex64, the others to
# complex128 (float16 too: NumPy's list leaves it out); bfloat16, which NumPy lacks, to complex64,
# which holds it exactly
_TO_COMPLEX64 = (_dt.float32, _dt.int8, _dt.int16, _dt.uint8, _dt.uint16, _dt.bfloat16)


def _complex(d):
    return _dt.complex64 if d in _TO_COMPLEX64 else _dt.complex128


def _any_in_one_schedule(tests):
    """[(array, predicate)] -> whether each predicate holds anywhere. The arrays are evaluated
    with their tests in one schedule, so the results built on them next read the stored values
    and do not compute them again."""
    if not tests:
        return []
    # a count, not any(): over 1e6 float32 values any(x < 0) took 336 us, sum(x < 0) 70 (timeit,
    # the 2-core VM, 2026-12-08): cgrad's boolean reductions are the slower kernels
    counts = [_api.sum(test(a)) for a, test in tests]
    _cgrad.eval(*[a for a, _ in tests], *counts)
    return [int(c) > 0 for c in counts]


def _below_zero(x):
    return x < 0


def _beyond_one(x):
    return _cgrad.abs(x) > 1


def _fixed(x, outside):
    """x as NumPy's emath computes with it: complex where it is real and `outside` holds for
    any element (NumPy's _fix_real_lt_zero, _fix_real_abs_gt_1), else real with integers as
    NumPy's float-only ufuncs take them (int8 as float16, int16 as float32, wider as float64)."""
    x = _arr(x)
    if x.dtype in _dt.COMPLEX:
        return x
    to = _complex(x.dtype)
    x = x if x.dtype in _dt.FLOATING else _ufloat(x, "emath")
    (leaves,) = _any_in_one_schedule([(x, outside)])
    return x.astype(to) if leaves else x


def sqrt(x):
    """The square root of x, complex where a real x has a negative element (sqrt(-4) = 2j)."""
    return _cgrad.sqrt(_fixed(x, _below_zero))


def log(x):
    """The natural logarithm of x, its principal value where a real x has a negative element
    (log(-1) = pi j); log(0) is -inf."""
    return _cgrad.log(_fixed(x, _below_zero))


def log2(x):
    """The base-2 logarithm of x, complex where a real x has a negative element."""
    return _cgrad.log2(_fixed(x, _below_zero))


def log10(x):
    """The base-10 logarithm of x, complex where a real x has a negative element."""
    return _cgrad.log10(_fixed(x, _below_zero))


def logn(n, x):
    """The base-n logarithm of x, log(x) / log(n), each complex where it has a negative element."""
    return _cgrad.log(_fixed(x, _below_zero)) / _cgrad.log(_fixed(n, _below_zero))


def power(x, p):
    """x to the power p, complex where a real x has a negative element; integer powers with a
    negative element as float64 (NumPy's `p * 1.0`: an integer to a negative power is a fraction).
    Integers to non-negative integer powers stay integers, as in NumPy. Both tests run in one
    schedule."""
    x = _arr(x)
    x_real = x.dtype not in _dt.COMPLEX
    if isinstance(p, int) and not isinstance(p, bool):  # a Python int's sign needs no kernel
        p, p_int = _api.asarray(p, dtype=_dt.float64 if p < 0 else _dt.int64), False
    else:
        p = _arr(p)
        p_int = p.dtype in _dt.INTEGRAL
    flags = iter(_any_in_one_schedule([(x, _below_zero)] * x_real + [(p, _below_zero)] * p_int))
    if x_real and next(flags):
        x = x.astype(_complex(x.dtype))
    if p_int and next(flags):
        p = p.astype(_dt.float64)
    return _cgrad.pow(x, p)


def arccos(x):
    """The inverse cosine of x, complex where a real x has an element outside [-1, 1]
    (arccos(2) = 1.317j); real at the edges (arccos(-1) = pi)."""
    return _cgrad.acos(_fixed(x, _beyond_one))


def arcsin(x):
    """The inverse sine of x, complex where a real x has an element outside [-1, 1]."""
    return _cgrad.asin(_fixed(x, _beyond_one))


def arctanh(x):
    """The inverse hyperbolic tangent of x, complex where a real x has an element outside
    [-1, 1]; arctanh(+-1) is +-inf, real."""
    return _cgrad.atanh(_fixed(x, _beyond_one))
