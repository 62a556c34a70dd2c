"""More of NumPy's functions beyond the Array API standard (docs/python.md, "Beyond the standard"):
element-wise math, NaN-ignoring reductions, window functions and the legacy polynomial functions,
each composed of cgrad's own ops (lazy, fused, differentiable where their parts are). Where a
result depends on the values in a way a lazy graph cannot express (`real_if_close`'s dtype,
`trim_zeros`' length, `nanargmax`'s all-NaN check, `polydiv`'s trimmed remainder, `setxor1d`),
the function evaluates what it needs first, a synchronisation point, as `nonzero` does."""
import builtins
import math
import operator

from . import _api
from . import _cgrad
from . import _dtypes as dt
from . import _numpy as _np
from . import linalg as _linalg
from ._array import _writes_out
from ._cgrad import Array

__all__ = ["arctan2", "fabs", "bitwise_not", "bitwise_count", "fmod", "gcd", "lcm", "ldexp", "frexp", "modf",
           "spacing", "angle", "isneginf", "isposinf", "isreal", "iscomplex", "isrealobj", "iscomplexobj", "i0",
           "sort_complex", "real_if_close", "unwrap",
           "nanprod", "nancumsum", "nancumprod", "nanvar", "nanstd", "nanargmax", "nanargmin", "nanquantile",
           "nanpercentile", "nanmedian",
           "ediff1d", "setxor1d", "trim_zeros", "histogram_bin_edges",
           "bartlett", "blackman", "hamming", "hanning", "kaiser",
           "poly", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint"]

_arr = _api._as_array_arg
_float = _np._float
_along = _np._along
_nan_where = _np._nan_where


def _ufloat(x, fn):
    """x as NumPy's float-only ufuncs take it: floating kept; bool and 8-bit integers as float16,
    16-bit ones as float32, wider ones as float64 (the smallest float that holds them); complex
    raises TypeError."""
    if _real_kind(x, fn).dtype in dt.FLOATING:
        return x
    return x.astype(dt.float16 if x.dtype.itemsize == 1 else dt.float32 if x.dtype.itemsize == 2 else dt.float64)


def _promoted(x1, x2):
    """Two operands as arrays of the dtype an element-wise op gives them (a Python scalar beside an
    array is weak, as in the ops: fmod(int8 array, 3) stays int8)."""
    scalar = (builtins.bool, int, float, complex)
    x1 = x1 if isinstance(x1, scalar) and isinstance(x2, Array) else _arr(x1)
    x2 = x2 if isinstance(x2, scalar) else _arr(x2)
    d = dt.result_type(x1, x2)
    return tuple(x.astype(d) if isinstance(x, Array) else _api.asarray(x, dtype=d) for x in (x1, x2))


def _real_kind(x, fn):
    if x.dtype in dt.COMPLEX:
        raise TypeError(f"{fn}: complex input is not supported")
    return x


# ---- element-wise ----
arctan2 = _cgrad.atan2
bitwise_not = _cgrad.bitwise_invert


def fabs(x):
    """|x| for real x (integers as a float, as NumPy's ufunc; complex raises TypeError)."""
    return _cgrad.abs(_ufloat(_arr(x), "fabs"))


_UNSIGNED = {1: dt.uint8, 2: dt.uint16, 4: dt.uint32, 8: dt.uint64}


def bitwise_count(x):
    """The number of 1 bits in |x| (NumPy 2's rule for signed integers), as uint8: a SWAR count."""
    x = _arr(x)
    if x.dtype is dt.bool:
        return x.astype(dt.uint8)
    if x.dtype not in dt.INTEGRAL:
        raise TypeError(f"bitwise_count: needs integers, got {x.dtype}")
    u = (_cgrad.abs(x) if x.dtype.kind == "signed integer" else x).astype(_UNSIGNED[x.dtype.itemsize])
    u = u.astype(dt.uint64)  # |int64 min| wraps to itself: 2^63 as unsigned, one bit, as NumPy
    u = u - ((u >> 1) & 0x5555555555555555)
    u = (u & 0x3333333333333333) + ((u >> 2) & 0x3333333333333333)
    u = (u + (u >> 4)) & 0x0F0F0F0F0F0F0F0F
    for s in (8, 16, 32)[:builtins.max(0, x.dtype.itemsize.bit_length() - 1)]:
        u = u + (u >> s)
    return (u & 0x7F).astype(dt.uint8)


def fmod(x1, x2):
    """The C remainder x1 - trunc(x1 / x2) x2, with x1's sign (NumPy's fmod); integers: 0 where x2
    is 0, as NumPy gives. Floats: |x1| mod |x2| with x1's sign."""
    x1, x2 = _promoted(x1, x2)
    d = x1.dtype
    if d in dt.COMPLEX:
        raise TypeError("fmod: complex input is not supported")
    if d in dt.FLOATING:
        # fmod(+-0, x2) is x1 itself (x2 nonzero, not NaN): selected, so that its derivative there
        # is 1, not abs's 0 at 0
        r = _cgrad.copysign(_cgrad.remainder(_cgrad.abs(x1), _cgrad.abs(x2)), x1)
        return _api.where(_cgrad.logical_and(x1 == 0, _cgrad.abs(x2) > 0), x1, r)
    r = _cgrad.remainder(x1, x2)  # floor's remainder, x2's sign: move it to x1's side
    if d.kind == "unsigned integer" or d is dt.bool:
        return r
    return _api.where(_cgrad.logical_and(r != 0, (r < 0) != (x1 < 0)), r - x2, r)


def _euclid_steps(d):
    """An upper bound of Euclid's steps for operands below 2^bits: the smallest pair needing k steps
    is (F(k+2), F(k+1)) (Lamé), so k steps suffice once F(k+1) exceeds the largest magnitude."""
    top = 2 ** (8 * d.itemsize)
    a, b, k = 1, 1, 1
    while b <= top:
        a, b, k = b, a + b, k + 1
    return k


def _magnitudes(x1, x2, fn):
    """(|x1|, |x2|) in the unsigned dtype of x1 and x2's promoted one, and that dtype: NumPy's gcd
    and lcm work on the magnitudes as unsigned, so |-128| is 128 in int8 (abs wraps to -128, and
    Euclid's steps on it gave gcd(-127, -128) = -1), the result wrapped back to the signed dtype."""
    x1, x2 = _promoted(x1, x2)
    d = x1.dtype
    if d is dt.bool or d not in dt.INTEGRAL:
        raise TypeError(f"{fn}: needs integers, got {d}")
    u = {dt.int8: dt.uint8, dt.int16: dt.uint16, dt.int32: dt.uint32, dt.int64: dt.uint64}.get(d, d)
    return _cgrad.abs(x1).astype(u), _cgrad.abs(x2).astype(u), d


def gcd(x1, x2):
    """The greatest common divisor of |x1| and |x2| (0 with 0: the other's magnitude): Euclid's
    algorithm unrolled for its worst case in the dtype (93 steps for 64-bit operands), on the
    magnitudes as unsigned (NumPy's: gcd(-128, -128) in int8 is 128, wrapped to -128)."""
    a, b, d = _magnitudes(x1, x2, "gcd")
    for _ in range(_euclid_steps(d)):  # a % 0 is 0 (docs/semantics.md): a finished pair stays
        a, b = _api.where(b != 0, b, a), _cgrad.remainder(a, b)
    return a.astype(d)


def lcm(x1, x2):
    """The least common multiple |x1| / gcd * |x2| (0 when either is 0: x // 0 is 0), on the
    magnitudes as unsigned and wrapped back, as NumPy's."""
    a, b, d = _magnitudes(x1, x2, "lcm")
    g = gcd(x1, x2).astype(a.dtype)
    return (_cgrad.floor_divide(a, g) * b).astype(d)


def _scale2(x, n):
    """x 2^n for a floating x and integer n, rounded once (C's ldexp): n clipped to where the result
    saturates, the part of 2^n outside the dtype's range applied first in two exact steps, then
    one multiplication by a representable power of two."""
    info = dt.finfo(x.dtype)
    emax = math.frexp(info.max)[1]  # 1024 for float64
    mant = 1 - round(math.log2(info.eps))  # 53
    low = 3 - emax - mant  # the smallest subnormal's exponent (-1074)
    lim = 2 * emax + mant + 2
    n = _api.clip(n.astype(dt.int64), -lim, lim)
    last = _api.clip(n, low, emax - 1)
    rest = n - last
    half = _cgrad.floor_divide(rest, 2)
    two = _api.full((), 2.0, dtype=x.dtype, device=x.device)
    return x * two ** half.astype(x.dtype) * two ** (rest - half).astype(x.dtype) * two ** last.astype(x.dtype)


def ldexp(x1, x2):
    """x1 2^x2 (x2 integers), rounded once as C's ldexp; x1's floating dtype (NumPy's for integers)."""
    x1, x2 = _ufloat(_arr(x1), "ldexp"), _arr(x2)
    if x2.dtype not in dt.INTEGRAL or x2.dtype is dt.bool:
        raise TypeError(f"ldexp: the exponents must be integers, got {x2.dtype}")
    return _scale2(x1, x2)


def frexp(x):
    """(mantissa, exponent): x = m 2^e with 0.5 <= |m| < 1 and e int32; 0, inf and NaN give
    themselves and 0."""
    x = _ufloat(_arr(x), "frexp")
    ok = _cgrad.logical_and(_cgrad.isfinite(x), x != 0)
    e = _cgrad.floor(_cgrad.log2(_api.where(ok, _cgrad.abs(x), 1.0))).astype(dt.int64) + 1
    m = _scale2(x, -e)  # |m| in [0.5, 1) but for log2's rounding: one step either way
    big, small = _cgrad.abs(m) >= 1, _cgrad.abs(m) < 0.5
    m = _api.where(big, m * 0.5, _api.where(small, m * 2.0, m))
    e = _api.where(big, e + 1, _api.where(small, e - 1, e))
    return _api.where(ok, m, x), _api.where(ok, e, 0).astype(dt.int32)


def modf(x):
    """(fractional part, integral part), both with x's sign (C's modf; inf: (+-0, +-inf))."""
    x = _ufloat(_arr(x), "modf")
    i = _cgrad.trunc(x)
    return _cgrad.copysign(_api.where(_cgrad.isinf(x), 0.0, x - i), x), i


def spacing(x):
    """The distance from x to the next float away from zero (negative for negative x; the smallest
    subnormal at +-0; NaN at inf, as NumPy's)."""
    x = _ufloat(_arr(x), "spacing")
    s = _cgrad.nextafter(x, _cgrad.copysign(_api.full_like(x, float("inf")), x)) - x
    tiny = _cgrad.nextafter(_api.zeros((), dtype=x.dtype, device=x.device), 1.0)
    return _api.where(x == 0, tiny, s)


def angle(z, deg=False):
    """The argument of z (atan2(imag, real); of a real x: 0, or pi for negative x), in degrees with
    deg."""
    z = _arr(z)
    if z.dtype in dt.COMPLEX:
        a = _cgrad.atan2(_cgrad.imag(z), _cgrad.real(z))
    else:
        z = _ufloat(z, "angle")
        a = _cgrad.atan2(_api.zeros_like(z), z)
    return a * (180 / math.pi) if deg else a


def _is_inf_signed(x, negative, fn):
    x = _real_kind(_arr(x), fn)
    if x.dtype not in dt.FLOATING:
        return _api.zeros(x.shape, dtype=dt.bool, device=x.device)
    return x == (float("-inf") if negative else float("inf"))


def isneginf(x):
    """Whether x is -inf (complex raises TypeError, as NumPy's)."""
    return _is_inf_signed(x, True, "isneginf")


def isposinf(x):
    """Whether x is +inf (complex raises TypeError, as NumPy's)."""
    return _is_inf_signed(x, False, "isposinf")


def isreal(x):
    """Whether each element's imaginary part is 0 (always true for real dtypes)."""
    x = _arr(x)
    if x.dtype in dt.COMPLEX:
        return _cgrad.imag(x) == 0
    return _api.ones(x.shape, dtype=dt.bool, device=x.device)


def iscomplex(x):
    """Whether each element's imaginary part is nonzero (always false for real dtypes)."""
    x = _arr(x)
    if x.dtype in dt.COMPLEX:
        return _cgrad.imag(x) != 0
    return _api.zeros(x.shape, dtype=dt.bool, device=x.device)


def iscomplexobj(x):
    """Whether x has a complex dtype (a Python bool; the values are not looked at)."""
    return _arr(x).dtype in dt.COMPLEX


def isrealobj(x):
    """Whether x has a real dtype (a Python bool; the values are not looked at)."""
    return not iscomplexobj(x)


# Cephes' Chebyshev coefficients of exp(-x) I0(x): on [0, 8] in x/2 - 2, and of exp(-x) sqrt(x) I0(x)
# on (8, inf) in 32/x - 2 (NumPy's i0 uses the same).
_I0_A = [-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
         1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
         -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
         9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
         -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
         1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
         -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
         1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
         -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
         1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1]
_I0_B = [-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
         3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
         1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
         -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
         7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
         -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
         3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
         2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
         8.04490411014108831608E-1]


def _chbevl(x, coeffs):
    b0, b1 = 0.0, 0.0
    for c in coeffs:
        b0, b1, b2 = x * b0 - b1 + c, b0, b1
    return 0.5 * (b0 - b2)


@_np._float16_in_float32
def i0(x):
    """The modified Bessel function of the first kind of order 0 (Cephes' Chebyshev expansions, as
    numpy.i0): floating x keeps its dtype, integers give float64; complex raises TypeError."""
    x = _real_kind(_float(_arr(x)), "i0")
    a = _cgrad.abs(x)
    small = a <= 8.0
    lo, hi = _api.where(small, a, 8.0), _api.where(small, 8.0, a)  # each branch's input kept in its range
    return _cgrad.exp(a) * _api.where(small, _chbevl(lo * 0.5 - 2.0, _I0_A),
                                      _chbevl(32.0 / hi - 2.0, _I0_B) / _cgrad.sqrt(hi))


def _argsort_lex(keys, axis=-1):
    """The stable order along `axis` that sorts by keys[0], then keys[1], ... (lexicographic)."""
    order = _api.argsort(keys[-1], axis=axis, stable=True)
    for k in reversed(keys[:-1]):
        order = _api.take_along_axis(order, _api.argsort(_api.take_along_axis(k, order, axis=axis), axis=axis,
                                                         stable=True), axis=axis)
    return order


def sort_complex(a):
    """a sorted along its last axis by real part, then imaginary part, as a complex array (NumPy's
    dtype: complex64 for 8- and 16-bit integers, else complex128 for real input)."""
    a = _arr(a)
    if a.dtype in dt.COMPLEX:
        return _api.take_along_axis(a, _argsort_lex([_cgrad.real(a), _cgrad.imag(a)]), axis=-1)
    d = dt.complex64 if a.dtype in dt.INTEGRAL and a.dtype.itemsize <= 2 and a.dtype is not dt.bool \
        else dt.complex128
    return _api.sort(a, axis=-1).astype(d)


def real_if_close(a, tol=100):
    """a's real part when every imaginary part is below tol (times the dtype's eps for tol > 1),
    else a. The dtype depends on the values: a is evaluated (a synchronisation point)."""
    a = _arr(a)
    if a.dtype not in dt.COMPLEX:
        return a
    if tol > 1:
        tol = tol * dt.finfo(a.dtype).eps
    return _cgrad.real(a) if builtins.bool(_api.all(_cgrad.abs(_cgrad.imag(a)) < tol)) else a


def unwrap(p, discont=None, axis=-1, period=2 * math.pi):
    """p with each jump between neighbours along `axis` larger than max(discont, period / 2)
    replaced by its remainder modulo `period` (NumPy's algorithm; integer p and period stay
    integers)."""
    p = _arr(p)
    dd = _api.diff(p, axis=axis)
    discont = period / 2 if discont is None else discont
    if p.dtype in dt.INTEGRAL and isinstance(period, int):
        high, rem = builtins.divmod(period, 2)
        ambiguous = rem == 0
    else:
        p, dd = _float(p), _float(dd)
        high, ambiguous = period / 2, True
    low = -high
    ddmod = _cgrad.remainder(dd - low, period) + low
    if ambiguous:
        ddmod = _api.where(_cgrad.logical_and(ddmod == low, dd > 0), high, ddmod)
    correct = _api.where(_cgrad.abs(dd) < discont, 0, ddmod - dd)
    first = _along(p, axis, slice(0, 1))
    return _api.concat([first, _along(p, axis, slice(1, None)) + _np.cumsum(correct, axis=axis)], axis=axis)


# ---- NaN-ignoring reductions (NumPy's signatures, out= included: _array._writes_out) ----
@_writes_out
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """The product with NaNs as 1; initial: NumPy's, multiplying each product; where: prod's."""
    return _api.prod(_nan_where(_arr(a), 1.0), axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                     where=where)


@_writes_out
def nancumsum(a, axis=None, dtype=None, out=None):
    """The cumulative sum with NaNs as 0 (of the flattened array without axis)."""
    return _np.cumsum(_nan_where(_arr(a), 0.0), axis=axis, dtype=dtype)


@_writes_out
def nancumprod(a, axis=None, dtype=None, out=None):
    """The cumulative product with NaNs as 1 (of the flattened array without axis)."""
    return _np.cumprod(_nan_where(_arr(a), 1.0), axis=axis, dtype=dtype)


@_writes_out
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None):
    """The variance of the non-NaN elements (and of those `where` keeps), divided by their count -
    ddof (NaN where that is not positive); real for complex a; integers as float64; NumPy's `mean`
    (the mean with the reduced axes kept) not computed again."""
    a = _float(_arr(a))
    if dtype is not None:
        a = a.astype(dtype)
    if a.dtype in dt.HALF:  # in float32, rounded once (as var's)
        return nanvar(a.astype(dt.float32), axis=axis, ddof=ddof, keepdims=keepdims, where=where, mean=mean,
                      correction=correction).astype(a.dtype)
    ddof = _api._correction(0 if correction is None else correction, ddof)
    real = dt._real_of(a.dtype)
    nan = _cgrad.isnan(a)
    mask = _api._where_mask(a, where, "nanvar")
    if mask is not None:  # the elements left out count as NaNs
        nan = _cgrad.logical_or(nan, _cgrad.logical_not(mask))
    if mean is None:
        mean = _api.sum(_api.where(nan, 0.0, a), axis=axis, keepdims=True) / \
            _api.sum((~nan).astype(real), axis=axis, keepdims=True)
    d = _api.where(nan, 0.0, a - mean)
    sq = _api._squared_modulus(d)
    dof = _api.sum((~nan).astype(real), axis=axis, keepdims=keepdims) - ddof
    return _api.where(dof > 0, _api.sum(sq, axis=axis, keepdims=keepdims) / _api.where(dof > 0, dof, 1.0),
                      float("nan"))


@_writes_out
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None):
    """The square root of nanvar (of f16/bf16 in float32, rounded once)."""
    a = _arr(a)
    if dtype is None and a.dtype in dt.HALF:
        return nanstd(a.astype(dt.float32), axis=axis, ddof=ddof, keepdims=keepdims, where=where, mean=mean,
                      correction=correction).astype(a.dtype)
    return _api._sqrt_of_variance(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where,
                                         mean=mean, correction=correction))


def _nanarg(a, axis, keepdims, arg, fill, fn):
    a = _arr(a)
    if a.dtype in dt.FLOATING + dt.COMPLEX:
        nan = _cgrad.isnan(a)
        if a.size and builtins.bool(_api.any(_api.all(nan, axis=axis))):  # evaluates the check
            raise ValueError(f"{fn}: All-NaN slice encountered")
        a = _api.where(nan, fill, a)
    if a.dtype in dt.COMPLEX:  # NumPy's order: by real part, then imaginary part
        re, im = _cgrad.real(a), _cgrad.imag(a)
        best = (_api.max if fill < 0 else _api.min)(re, axis=axis, keepdims=True)
        a = _api.where(re == best, im, fill)
    return arg(a, axis=axis, keepdims=keepdims)


@_writes_out
def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """The index of the largest non-NaN element; an all-NaN slice raises ValueError (as NumPy's),
    which evaluates a check (a synchronisation point)."""
    return _nanarg(a, axis, keepdims, _api.argmax, float("-inf"), "nanargmax")


@_writes_out
def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """The index of the smallest non-NaN element; an all-NaN slice raises ValueError (evaluated)."""
    return _nanarg(a, axis, keepdims, _api.argmin, float("inf"), "nanargmin")


@_writes_out
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """quantile over the non-NaN elements of each slice (an all-NaN slice gives NaN), with
    quantile's thirteen methods: the sort puts NaNs last, and each slice's count of the others
    places its positions; `weights` as quantile's (NaNs weigh 0). overwrite_input is moot (arrays
    are values)."""
    a = _arr(a)
    if weights is not None:
        return _np._weighted_quantiles(a, q, axis, method, keepdims, weights, "nanquantile", True)
    if a.dtype not in dt.FLOATING:
        return _np.quantile(a, q, axis=axis, method=method, keepdims=keepdims)
    ops = (_cgrad.floor, _api.where, _cgrad.round)

    def pick(s, ax, v):
        n = s.shape[ax]
        if n == 0:
            return _api.full(tuple(1 if d == ax else k for d, k in enumerate(s.shape)), float("nan"), dtype=s.dtype)
        count = _api.sum((~_cgrad.isnan(s)).astype(dt.float64), axis=ax, keepdims=True)
        pos, gamma = _np._quantile_rule(method, count, v, ops)

        def at(i):
            return _api.take_along_axis(s, _api.clip(i.astype(dt.int64), 0, n - 1), axis=ax)

        if gamma is None:
            r = at(pos)
        else:  # past the last value: the last; below the first: the first (NumPy's bounds)
            last, below = pos >= count - 1, pos < 0
            lo = _api.where(last, count - 1, _api.where(below, 0.0, _cgrad.floor(pos)))
            hi = _api.where(last | below, lo, lo + 1)
            r = _np._lerp(at(lo), at(hi), gamma.astype(s.dtype))
        return _api.where(count == 0, float("nan"), r)

    return _np._quantiles(a, q, axis, method, keepdims, "nanquantile", pick)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """nanquantile of q / 100."""
    return nanquantile(a, _np._fraction(q), axis=axis, out=out, method=method, keepdims=keepdims, weights=weights)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """nanquantile of 0.5."""
    return nanquantile(a, 0.5, axis=axis, out=out, keepdims=keepdims)


# ---- differences, sets, trimming, bins ----
def _same_kind(v, d, what):
    v = _np.ravel(v)
    if dt._category(v.dtype) > dt._category(d):
        raise TypeError(f"ediff1d: dtype of `{what}` must be compatible with input `ary` under the `same_kind` rule.")
    return v.astype(d)


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of the flattened ary, with to_begin before and to_end after (cast to ary's
    dtype under NumPy's same-kind rule)."""
    a = _np.ravel(ary)
    if a.dtype is dt.bool:
        raise TypeError("ediff1d: boolean subtract is not supported")
    parts = [] if to_begin is None else [_same_kind(to_begin, a.dtype, "to_begin")]
    parts.append(a[1:] - a[:-1])
    if to_end is not None:
        parts.append(_same_kind(to_end, a.dtype, "to_end"))
    return _api.concat(parts) if len(parts) > 1 else parts[0]


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one of ar1 and ar2 (evaluated: a data-dependent length)."""
    if assume_unique:
        aux = _api.concat([_np.ravel(ar1), _np.ravel(ar2)])
    else:
        aux = _api.concat([_np.unique(ar1), _np.unique(ar2)])  # NaNs as one each
    if aux.shape[0] == 0:
        return aux
    if aux.dtype in dt.COMPLEX:  # the sort takes no complex values: those counted once (NaNs each)
        u = _api.unique_counts(aux)
        return u.values[u.counts == 1]
    aux = _api.sort(aux)
    edge = _api.ones((1,), dtype=dt.bool, device=aux.device)
    flag = _api.concat([edge, aux[1:] != aux[:-1], edge])
    return aux[_cgrad.logical_and(flag[1:], flag[:-1])]


def trim_zeros(filt, trim="fb", axis=None):
    """filt without its leading ("f") and/or trailing ("b") zeros along `axis` (all axes: the box
    around the nonzero elements). Where it ends depends on the values: filt is evaluated."""
    a = _arr(filt)
    mode = trim.lower()
    if not mode or set(mode) - {"f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    axes = range(a.ndim) if axis is None else _api._axes_in(a, axis, "trim_zeros")
    nz = a != 0
    key = [slice(None)] * a.ndim
    for ax in axes:
        others = tuple(d for d in range(a.ndim) if d != ax)
        hit = _api.nonzero(_api.any(nz, axis=others) if others else nz)[0]
        if hit.shape[0] == 0:
            key[ax] = slice(0, 0)
            continue
        start = int(hit[0]) if "f" in mode else 0
        stop = int(hit[-1]) + 1 if "b" in mode else a.shape[ax]
        key[ax] = slice(start, stop)
    return a[tuple(key)]


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002 (NumPy's name)
    """The edges histogram(a, bins, range) uses: `bins` equal bins over `range` (default the data's
    min and max: evaluated), in a's floating dtype (float64 for integers), or the given edges."""
    a = _arr(a)
    if weights is not None and tuple(_arr(weights).shape) != tuple(a.shape):
        raise ValueError("histogram_bin_edges: weights should have the same shape as a.")
    x = _float(_np.ravel(a))
    edges, lo, _ = _np._bin_edges(x, bins, range, "histogram_bin_edges")
    if lo is None:
        return _arr(bins)[...]
    return edges.astype(x.dtype) if x.dtype in (dt.float32, dt.float16, dt.bfloat16) else edges


# ---- window functions: float32 (cgrad's default float) unless dtype says otherwise ----
def _window(M, dtype, body):
    M = operator.index(M)
    d = dt.float32 if dtype is None else dt.as_dtype(dtype)
    if M < 1:
        return _api.zeros((0,), dtype=d)
    if M == 1:
        return _api.ones((1,), dtype=d)
    return body(M).astype(d)


def _centered(M):
    """pi n / (M - 1) for n = 1 - M, 3 - M, ..., M - 1 (float64)."""
    return _api.arange(1 - M, M, 2, dtype=dt.float64) * (math.pi / (M - 1))


def bartlett(M, *, dtype=None):
    """The triangular window of M points (float32 unless dtype)."""
    return _window(M, dtype, lambda M: 1 - _cgrad.abs(_api.arange(1 - M, M, 2, dtype=dt.float64)) / (M - 1))


def blackman(M, *, dtype=None):
    """The Blackman window of M points: 0.42 + 0.5 cos(pi n / (M-1)) + 0.08 cos(2 pi n / (M-1))."""
    return _window(M, dtype, lambda M: 0.42 + 0.5 * _cgrad.cos(_centered(M)) + 0.08 * _cgrad.cos(2 * _centered(M)))


def hamming(M, *, dtype=None):
    """The Hamming window of M points: 0.54 + 0.46 cos(pi n / (M - 1)), n = 1-M, 3-M, ..., M-1."""
    return _window(M, dtype, lambda M: 0.54 + 0.46 * _cgrad.cos(_centered(M)))


def hanning(M, *, dtype=None):
    """The Hann window of M points: 0.5 + 0.5 cos(pi n / (M - 1)), n = 1-M, 3-M, ..., M-1."""
    return _window(M, dtype, lambda M: 0.5 + 0.5 * _cgrad.cos(_centered(M)))


def kaiser(M, beta, *, dtype=None):
    """The Kaiser window i0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / i0(beta)."""
    def body(M):
        alpha = (M - 1) / 2.0
        r = (_api.arange(M, dtype=dt.float64) - alpha) / alpha
        return i0(beta * _cgrad.sqrt(_api.clip(1 - r * r, 0.0))) / i0(_api.asarray(float(beta), dtype=dt.float64))
    return _window(M, dtype, body)


# ---- polynomials (coefficients highest power first) ----
def _poly1d(p, fn):
    p = _np.atleast_1d(_arr(p))
    if p.ndim != 1:
        raise ValueError(f"{fn}: the coefficients must be 1-D")
    return p


def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots (1-D), or a square matrix's
    characteristic polynomial. Real roots or a real matrix give real coefficients (integers as
    float64), complex roots complex ones (NumPy makes conjugate pairs real)."""
    z = _np.atleast_1d(_arr(seq_of_zeros))
    real = z.dtype not in dt.COMPLEX
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0]:
        z = _linalg.eigvals(_float(z))
    elif z.ndim != 1:
        raise ValueError("poly: input must be 1d or non-empty square 2d array.")
    z = _float(z)
    if z.shape[0] == 0:
        return _api.ones((), dtype=z.dtype)
    c = _api.ones((1,), dtype=z.dtype, device=z.device)
    zero = _api.zeros((1,), dtype=z.dtype, device=z.device)
    for k in range(z.shape[0]):  # times (x - z_k): c[i] - z_k c[i - 1], no product past c's ends
        c = _api.concat([c, zero]) - _api.concat([zero, z[k] * c])  # (z_k * 0 made an inf root NaN)
    return _cgrad.real(c) if real and c.dtype in dt.COMPLEX else c


def _aligned(a1, a2, fn):
    a1, a2 = _poly1d(a1, fn), _poly1d(a2, fn)
    d = dt.result_type(a1, a2)
    n = builtins.max(a1.shape[0], a2.shape[0])

    def grow(a):  # leading zeros up to n coefficients
        return _api.concat([_api.zeros((n - a.shape[0],), dtype=d, device=a.device), a.astype(d)])
    return grow(a1), grow(a2)


def polyadd(a1, a2):
    """The sum of two polynomials (the shorter padded with leading zeros)."""
    x, y = _aligned(a1, a2, "polyadd")
    return x + y


def polysub(a1, a2):
    """The difference of two polynomials (the shorter padded with leading zeros)."""
    x, y = _aligned(a1, a2, "polysub")
    return x - y


def polymul(a1, a2):
    """The product of two polynomials: the convolution of their coefficients without leading zeros
    (NumPy's, through poly1d: polymul([0, 1, 2], [1, 1]) is [1, 3, 2]; all zeros count as [0]).
    Where they start depends on the values: the coefficients are evaluated."""
    def lead(p):
        p = _poly1d(p, "polymul")
        t = trim_zeros(p, "f")
        return t if t.shape[0] else _api.zeros((1,), dtype=p.dtype, device=p.device)
    return _np.convolve(lead(a1), lead(a2))


def polydiv(u, v):
    """(quotient, remainder) of u / v by long division; the remainder's leading coefficients within
    1e-8 of 0 are dropped (NumPy's rule), so the remainder is evaluated (a synchronisation point)."""
    u, v = _float(_poly1d(u, "polydiv")), _float(_poly1d(v, "polydiv"))
    d = dt.result_type(u, v)
    u, v = u.astype(d), v.astype(d)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    r, q = u, []
    for k in range(m - n + 1):
        c = r[k] / v[0]
        q.append(c)
        r = r - _api.concat([_api.zeros((k,), dtype=d), c * v, _api.zeros((m - n - k,), dtype=d)])
    q = _api.stack(q) if q else _api.zeros((1,), dtype=d)
    # the first m - n + 1 coefficients are eliminated, zero by construction: dropped, not left as
    # the rounding residue of r[k] - c v[0] (a contracted multiply-add keeps it exactly: 2e-7 in
    # float32, past the 1e-8 below, where NumPy's separate roundings mostly give 0)
    if m >= n:
        r = r[m - n + 1:] if n > 0 else _api.zeros((1,), dtype=d)
    small = (_cgrad.abs(r) <= 1e-8).tolist()
    lead = 0
    while lead < len(small) - 1 and small[lead]:
        lead += 1
    return q, r[lead:]


def polyder(p, m=1):
    """The m-th derivative of p: integers and bools in int64 (uint64 in float64), as NumPy's
    product with its int64 factors (int16 overflowed in int16 until 2026-12-07); floats keep their
    dtype (NumPy gives float64 for float32)."""
    m = operator.index(m)
    if m < 0:
        raise ValueError("polyder: order of derivative must be positive (see polyint)")
    p = _poly1d(p, "polyder")
    p = p.astype(dt.result_type(p.dtype, dt.int64))
    for _ in range(m):
        n = p.shape[0] - 1
        p = p[:-1] * _api.arange(n, 0, -1, dtype=dt._real_of(p.dtype))
    return p


def polyint(p, m=1, k=None):
    """The m-th antiderivative of p, with the integration constants k (one, or m of them; zeros by
    default). Integers give float64; float32 stays float32 (NumPy: float64)."""
    m = operator.index(m)
    if m < 0:
        raise ValueError("polyint: order of integral must be positive (see polyder)")
    ks = [0.0] * m if k is None else (_np.ravel(k).tolist() if not isinstance(k, (int, float, complex)) else [k])
    if len(ks) == 1 and m > 1:
        ks = ks * m
    if len(ks) < m:
        raise ValueError("polyint: k must be a scalar or a rank-1 array of length 1 or >m.")
    p = _poly1d(p, "polyint")
    if m:
        p = _float(p)
    for i in range(m):
        n = p.shape[0]
        p = _api.concat([p / _api.arange(n, 0, -1, dtype=dt._real_of(p.dtype)),
                         _api.full((1,), ks[i], dtype=p.dtype, device=p.device)])
    return p
