"""NumPy's element-wise math, NaN-ignoring reductions, window and polynomial functions
(python/cgrad/_numpy_math.py) against NumPy: values, shapes and dtypes over arguments, edge cases,
errors, and gradients where the composition has them."""
import math
import warnings

import numpy as np
import pytest

import cgrad as cg
from _compare import check, numeric_grad as numgrad

rng = np.random.default_rng(7)


def arr(a):
    return cg.asarray(np.asarray(a))


def grad_of(fn, x0):
    x = arr(x0).requires_grad_()
    (g,) = cg.grad(cg.sum(fn(x)), [x])
    return np.asarray(g)


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.75, 1e-310, -3e-320, 1e300, np.inf, -np.inf, np.nan, 7.0, 1e-5])
with np.errstate(over="ignore"):
    SPECIAL32 = SPECIAL.astype(np.float32)  # 1e300 -> inf, the subnormals -> 0
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


# ---- element-wise ----
def test_aliases_and_fabs_match_numpy():
    y, x = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    check(cg.arctan2(arr(y), arr(x)), np.arctan2(y, x))
    assert cg.bitwise_not is cg.bitwise_invert
    check(cg.bitwise_not(arr(np.array([0, 5, -3], np.int16))), np.bitwise_not(np.array([0, 5, -3], np.int16)))
    for a in (SPECIAL, SPECIAL32, np.array([-3, 0, 4], np.int8), np.array([-3, 7], np.int16),
              np.array([-3, 9], np.int64), np.array([True, False])):
        check(cg.fabs(arr(a)), np.fabs(a))
    with pytest.raises(TypeError):
        cg.fabs(arr(np.array([1j])))


@pytest.mark.parametrize("d", INTS + [np.bool_])
def test_bitwise_count_matches_numpy(d):
    info = np.iinfo(d) if d is not np.bool_ else None
    vals = [0, 1, 2, 3, 5, 127] + ([info.min, info.max, info.max - 1, info.min + 1] if info else [])
    if info and info.min < 0:
        vals += [-1, -2, -7, -128]
    a = np.array(vals if info else [True, False], dtype=d)
    got = cg.bitwise_count(arr(a))
    check(got, np.bitwise_count(a))
    with pytest.raises(TypeError):
        cg.bitwise_count(arr(np.array([1.5])))


def test_fmod_matches_numpy():
    a = rng.standard_normal(40) * 10
    b = rng.standard_normal(40) * 3
    for x, y in ((a, b), (-a, b), (a.astype(np.float32), b.astype(np.float32)), (a, 0.75)):
        check(cg.fmod(arr(x), y if isinstance(y, float) else arr(y)), np.fmod(x, y), rtol=0, atol=0)
    with np.errstate(all="ignore"):
        x = np.array([5.0, -5.0, -0.0, 0.0, np.inf, 3.0, -3.0, np.nan, 1e300, -1e-300])
        y = np.array([0.0, np.inf, 2.0, -2.0, 2.0, -np.inf, 1.5, 1.0, 3.0, 7.0])
        check(cg.fmod(arr(x), arr(y)), np.fmod(x, y), rtol=0, atol=0)
        got, want = np.asarray(cg.fmod(arr(x), arr(y))), np.fmod(x, y)
        assert np.array_equal(np.signbit(got[~np.isnan(want)]), np.signbit(want[~np.isnan(want)]))  # -0.0 kept
        for d in (np.int8, np.int32, np.int64, np.uint16):
            i = np.array([-7, 7, -7, 7, 0, -8, 9, 3], dtype=np.int64)
            j = np.array([2, -2, -2, 0, 0, 3, -4, 1], dtype=np.int64)
            if np.iinfo(d).min == 0:
                i, j = np.abs(i), np.abs(j)
            i, j = i.astype(d), j.astype(d)
            check(cg.fmod(arr(i), arr(j)), np.fmod(i, j))
        m = np.array([np.iinfo(np.int8).min], np.int8)
        check(cg.fmod(arr(m), arr(np.array([-1], np.int8))), np.fmod(m, np.int8(-1)))
    with pytest.raises(TypeError):
        cg.fmod(arr(np.array([1j])), 2.0)
    # gradients: d/dx1 is 1, at x1 = +-0 too (abs's derivative 0 at 0 gave 0 there), d/dx2 is
    # -trunc(x1 / x2); edge cases (0 / 0, NaN) still NaN in the values
    for d in (np.float64, np.float32):
        x = cg.asarray(np.array([-0.0, 0.0, 1.0, -1.0, 2.5, -2.5], d))
        y = cg.asarray(np.array([0.7, -0.7, 0.7, 0.7, -0.7, 0.7], d))
        x.requires_grad = True
        y.requires_grad = True
        gx, gy = cg.grad(cg.sum(cg.fmod(x, y)), [x, y])
        check(gx, np.ones(6, d), rtol=0, atol=0)
        check(gy, np.array([0, 0, -1, 1, 3, 3], d), rtol=0, atol=0)
    with np.errstate(all="ignore"):
        z = np.array([0.0, -0.0, 0.0, 0.0]), np.array([0.0, np.nan, np.inf, -1.0])
        got, want = np.asarray(cg.fmod(arr(z[0]), arr(z[1]))), np.fmod(*z)
        assert np.array_equal(got, want, equal_nan=True)
        assert np.array_equal(np.signbit(got[2:]), np.signbit(want[2:]))


@pytest.mark.parametrize("d", [np.int8, np.int32, np.int64, np.uint8, np.uint64])
def test_gcd_lcm_match_numpy(d):
    info = np.iinfo(d)
    lo, hi = max(int(info.min), -1000), min(int(info.max), 1000)
    a, b = rng.integers(lo, hi, 30), rng.integers(lo, hi, 30)
    a[:4], b[:4] = [0, 0, 0, 12], [0, 6, -5 if lo < 0 else 5, 0]
    if d is np.int64:  # consecutive Fibonacci numbers below 2^63: Euclid's worst case (90 steps)
        f = [0, 1]
        while f[-1] + f[-2] < 2 ** 63:
            f.append(f[-1] + f[-2])
        a[4:8], b[4:8] = [f[-1], -f[-1], f[-2] * 1, 3 * f[60]], [f[-2], f[-2], f[-1], 3 * f[59]]
    a, b = a.astype(d), b.astype(d)
    check(cg.gcd(arr(a), arr(b)), np.gcd(a, b))
    with np.errstate(all="ignore"):
        check(cg.lcm(arr(a % 50), arr(b % 50)), np.lcm(a % 50, b % 50))
    check(cg.gcd(arr(a), 6), np.gcd(a, 6))  # a Python int is weak: a's dtype
    check(cg.fmod(arr(a), 7), np.fmod(a, 7))
    if d is np.int8:  # broadcasting, and int8 with int16 promoting
        x, y = np.array([[12], [-18]], np.int8), np.array([8, 27, 0], np.int16)
        check(cg.gcd(arr(x), arr(y)), np.gcd(x, y))
        check(cg.lcm(arr(x), arr(y)), np.lcm(x, y))
    # the dtype's extremes: |min| is past the signed range, so NumPy works on the magnitudes as
    # unsigned (gcd(-127, -128) is 1, not the -1 a wrapped abs gave; gcd(min, min) wraps to min)
    v = np.array([info.min, info.min + 1, 0, 1, 64 if info.max > 64 else 3, info.max, info.max - 1], d)
    x, y = np.repeat(v, len(v)), np.tile(v, len(v))
    with np.errstate(all="ignore"):
        check(cg.gcd(arr(x), arr(y)), np.gcd(x, y))
        check(cg.lcm(arr(x), arr(y)), np.lcm(x, y))


def test_gcd_errors():
    with pytest.raises(TypeError):
        cg.gcd(arr(np.array([1.5])), arr(np.array([2])))
    with pytest.raises(TypeError):
        cg.lcm(arr(np.array([True])), arr(np.array([True])))


def test_ldexp_frexp_modf_spacing_match_numpy():
    for a in (SPECIAL, SPECIAL32):
        with np.errstate(all="ignore"):
            check(cg.frexp(arr(a)), np.frexp(a), rtol=0, atol=0)
            check(cg.modf(arr(a)), np.modf(a), rtol=0, atol=0)
            f, i = np.asarray(cg.modf(arr(a))[0]), np.modf(a)[0]
            assert np.array_equal(np.signbit(f), np.signbit(i))
            check(cg.spacing(arr(a)), np.spacing(a), rtol=0, atol=0)
            e = rng.integers(-60, 60, a.shape)
            check(cg.ldexp(arr(a), arr(e)), np.ldexp(a, e), rtol=0, atol=0)
    # the whole exponent range, subnormal results, saturation and huge exponents
    m = np.array([1.0, 1.5, -1.9999999999999998, 0.7, 4.9e-324, 1.7976931348623157e308, 0.0])
    for n in (-2200, -1080, -1075, -1074, -1060, -1022, -500, 0, 500, 1023, 1024, 1100, 2100, 10 ** 9, -10 ** 9):
        e = np.full(m.shape, n, np.int64)
        with np.errstate(all="ignore"):
            check(cg.ldexp(arr(m), arr(e)), np.ldexp(m, e), rtol=0, atol=0)
    e32 = np.array([-160, -149, -140, -126, 0, 127, 128, 200, 300], np.int32)
    m32 = np.full(e32.shape, 1.25, np.float32)
    with np.errstate(all="ignore"):
        check(cg.ldexp(arr(m32), arr(e32)), np.ldexp(m32, e32), rtol=0, atol=0)
    ints = np.array([-3, 0, 12], np.int32)
    check(cg.frexp(arr(ints)), np.frexp(ints))
    check(cg.modf(arr(ints)), np.modf(ints))
    check(cg.ldexp(arr(ints), arr(np.array([1, 2, 3]))), np.ldexp(ints, [1, 2, 3]))
    check(cg.ldexp(arr(m[:4]), 3), np.ldexp(m[:4], 3))
    check(cg.fabs(arr(np.array([3], np.uint16))), np.fabs(np.array([3], np.uint16)))
    with pytest.raises(TypeError):
        cg.ldexp(arr(m), arr(m))
    with pytest.raises(TypeError):
        cg.frexp(arr(np.array([1j])))


def test_angle_and_predicates_match_numpy():
    z = np.array([1 + 1j, -1 + 0j, -1 - 0j, 0j, -2j, np.nan + 1j])
    x = np.array([-2.0, -0.0, 0.0, 3.0, np.nan])
    for v in (z, z.astype(np.complex64), x, x.astype(np.float32), np.array([-2, 0, 5], np.int32)):
        for deg in (False, True):
            check(cg.angle(arr(v), deg=deg), np.angle(v, deg=deg), rtol=1e-6 if v.dtype.itemsize <= 8 else 1e-12)
    for f in ("isneginf", "isposinf"):
        for v in (SPECIAL, SPECIAL32, np.array([1, 2], np.int64)):
            check(getattr(cg, f)(arr(v)), getattr(np, f)(v))
        with pytest.raises(TypeError):
            getattr(cg, f)(arr(z))
    for v in (z, x, np.array([1, 2])):
        check(cg.isreal(arr(v)), np.isreal(v))
        check(cg.iscomplex(arr(v)), np.iscomplex(v))
        assert cg.iscomplexobj(arr(v)) == np.iscomplexobj(v)
        assert cg.isrealobj(arr(v)) == np.isrealobj(v)
    assert cg.iscomplexobj(np.array([1j])) and cg.isrealobj([1.0, 2.0])


def test_i0_matches_numpy():
    x = np.concatenate([np.linspace(-30, 30, 61), [0.0, 7.999, 8.0, 8.001, 700.0, np.inf, -np.inf, np.nan]])
    with np.errstate(all="ignore"):
        check(cg.i0(arr(x)), np.i0(x), rtol=1e-14, atol=0)
        check(cg.i0(arr(x.astype(np.float32))), np.i0(x.astype(np.float32)), rtol=2e-6, atol=0)
    check(cg.i0(arr(np.array([0, 1, 9], np.int32))), np.i0(np.array([0, 1, 9], np.int32)), rtol=1e-14)
    with pytest.raises(TypeError):
        cg.i0(arr(np.array([1j])))
    x0 = np.array([-9.0, -1.5, 0.3, 2.0, 8.5])
    np.testing.assert_allclose(grad_of(cg.i0, x0), numgrad(lambda v: np.sum(np.i0(v)), x0), rtol=1e-6)


def test_sort_complex_and_real_if_close_match_numpy():
    z = np.array([[3 + 1j, 1 - 1j, 1 + 2j, np.nan + 0j, 1 + np.nan * 1j, -2 + 0j, 1 - 3j]])
    z = np.concatenate([z, z[:, ::-1]])
    check(cg.sort_complex(arr(z)), np.sort_complex(z))
    check(cg.sort_complex(arr(z.astype(np.complex64))), np.sort_complex(z.astype(np.complex64)))
    for v in (np.array([3, -1, 2], np.int16), np.array([3, -1, 2], np.int32), np.array([2.5, -1.0], np.float32)):
        check(cg.sort_complex(arr(v)), np.sort_complex(v))
    for v, tol in ((np.array([1 + 1e-15j, 2 - 1e-16j]), 100), (np.array([1 + 1e-10j]), 100),
                   (np.array([1 + 1e-10j]), 1e-9), (np.array([1 + 1e-6j], np.complex64), 100), (np.arange(3.0), 100)):
        check(cg.real_if_close(arr(v), tol=tol), np.real_if_close(v, tol=tol))


def test_unwrap_matches_numpy():
    p = np.cumsum(rng.standard_normal((3, 12)) * 2.5, axis=1)
    wrapped = np.angle(np.exp(1j * p))
    for kwargs in ({}, {"axis": 0}, {"period": 3.0, "discont": 1.0}):
        check(cg.unwrap(arr(wrapped), **kwargs), np.unwrap(wrapped, **kwargs))
    check(cg.unwrap(arr(wrapped.astype(np.float32))), np.unwrap(wrapped.astype(np.float32)), rtol=1e-5, atol=1e-5)
    i = np.array([0, 5, 1, 6, 12, 3])
    check(cg.unwrap(arr(i), period=5), np.unwrap(i, period=5))
    check(cg.unwrap(arr(i), period=6), np.unwrap(i, period=6))
    check(cg.unwrap(arr(i)), np.unwrap(i))
    check(cg.unwrap(arr(np.array([1.0]))), np.unwrap(np.array([1.0])))


def test_elementwise_gradients():
    x0 = np.array([-2.3, -0.4, 0.7, 1.9])
    y0 = np.array([1.1, -1.5, 2.0, 0.8])
    np.testing.assert_allclose(grad_of(lambda x: cg.fmod(x, 0.6), x0), numgrad(lambda v: np.sum(np.fmod(v, 0.6)), x0),
                               rtol=1e-6)
    np.testing.assert_allclose(grad_of(lambda x: cg.fabs(x) * cg.arctan2(x, arr(y0)), x0),
                               numgrad(lambda v: np.sum(np.fabs(v) * np.arctan2(v, y0)), x0), rtol=1e-6)
    e = arr(np.array([3, -2, 0, 5]))
    np.testing.assert_allclose(grad_of(lambda x: cg.ldexp(x, e) + cg.modf(x)[0] * 3, x0),
                               numgrad(lambda v: np.sum(np.ldexp(v, [3, -2, 0, 5]) + np.modf(v)[0] * 3), x0),
                               rtol=1e-6)
    np.testing.assert_allclose(grad_of(lambda x: cg.frexp(x)[0], x0),
                               numgrad(lambda v: np.sum(np.frexp(v)[0]), x0), rtol=1e-6)
    p0 = np.array([0.0, 2.5, -2.9, 0.4, 3.0])
    np.testing.assert_allclose(grad_of(lambda x: cg.unwrap(x) ** 2, p0),
                               numgrad(lambda v: np.sum(np.unwrap(v) ** 2), p0), rtol=1e-6)


# ---- NaN-ignoring reductions ----
def nan_data(d=np.float64):
    x = rng.standard_normal((3, 4, 5)).astype(d)
    x[0, 1, 2] = x[2, 0, 0] = x[1, 3, 4] = np.nan
    x[2, 2, :] = np.nan
    return x


@pytest.mark.parametrize("d", [np.float64, np.float32])
def test_nan_reductions_match_numpy(d):
    x = nan_data(d)
    tol = 1e-12 if d is np.float64 else 2e-5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        configs = ((None, False, 0), (0, True, 1), (1, False, 4), (-1, True, 0))
        for axis, keepdims, ddof in configs if d is np.float64 else configs[1:3]:
            check(cg.nanprod(arr(x), axis=axis, keepdims=keepdims), np.nanprod(x, axis=axis, keepdims=keepdims),
                  rtol=tol)
            for f in ("nanvar", "nanstd"):
                check(getattr(cg, f)(arr(x), axis=axis, ddof=ddof, keepdims=keepdims),
                      getattr(np, f)(x, axis=axis, ddof=ddof, keepdims=keepdims), rtol=tol, atol=tol)
            if keepdims:
                check(cg.nancumsum(arr(x), axis=axis), np.nancumsum(x, axis=axis), rtol=tol, atol=tol)
            else:
                check(cg.nancumprod(arr(x), axis=axis), np.nancumprod(x, axis=axis), rtol=tol, atol=tol)
    z = x[0] + 1j * x[1]
    check(cg.nanprod(arr(z), axis=1), np.nanprod(z, axis=1), rtol=tol)
    check(cg.nanvar(arr(z), axis=0), np.nanvar(z, axis=0), rtol=tol)
    check(cg.nancumsum(arr(z), axis=1), np.nancumsum(z, axis=1), rtol=tol, atol=tol)
    for small in (np.int8, np.uint8, np.bool_):  # integer products and sums widen as NumPy's
        v = np.array([1, 0, 1], small)
        check((cg.nanprod(arr(v)), cg.nancumsum(arr(v)), cg.nancumprod(arr(v))),
              (np.nanprod(v), np.nancumsum(v), np.nancumprod(v)))
    i = np.arange(12).reshape(3, 4)
    check(cg.nanprod(arr(i), axis=1), np.nanprod(i, axis=1))
    check(cg.nancumsum(arr(i)), np.nancumsum(i))
    check(cg.nanstd(arr(i), axis=0, ddof=1), np.nanstd(i, axis=0, ddof=1))
    # constant rows: gradient 0, as std's (not sqrt's inf times 0)
    c = cg.asarray(np.array([[2.0, np.nan, 2.0], [1.0, 3.0, np.nan]]))
    c.requires_grad = True
    (gc,) = cg.grad(cg.sum(cg.nanstd(c, axis=1)), [c])
    check(gc, np.array([[0, 0, 0], [-0.5, 0.5, 0]]))
    check(cg.nanvar(arr(x), axis=1, correction=1), np.nanvar(x, axis=1, correction=1), rtol=tol, atol=tol)
    for f in ("nanprod", "nancumsum", "nancumprod", "nanvar", "nanstd"):
        want = getattr(np, f)(x, 0)  # out=, positional as NumPy's (it raised before 2026-12-07)
        o = arr(np.zeros(want.shape, want.dtype))
        assert getattr(cg, f)(arr(x), 0, None, o) is o
        check(o, want, rtol=tol, atol=tol)
        with pytest.raises(ValueError, match="shape"):
            getattr(cg, f)(arr(x), 0, None, arr(x[:1, :1]))
    e = np.zeros((0, 3))
    check(cg.nanprod(arr(e), axis=0), np.nanprod(e, axis=0))
    check(cg.nancumsum(arr(e)), np.nancumsum(e))


def test_nanargmax_nanargmin_match_numpy():
    x = nan_data()[:2]
    for f in ("nanargmax", "nanargmin"):
        for axis, keepdims in ((None, False), (0, True), (-1, False)):
            check(getattr(cg, f)(arr(x), axis=axis, keepdims=keepdims), getattr(np, f)(x, axis=axis, keepdims=keepdims))
        check(getattr(cg, f)(arr(np.array([3, 9, 1]))), getattr(np, f)(np.array([3, 9, 1])))
        y = nan_data()
        with pytest.raises(ValueError, match="All-NaN"):
            getattr(cg, f)(arr(y), axis=2)
        with pytest.raises(ValueError, match="All-NaN"):
            getattr(cg, f)(arr(np.full(3, np.nan)))
        check(getattr(cg, f)(arr(y), axis=1), getattr(np, f)(y, axis=1))  # no all-NaN slice along axis 1
        z = np.array([[1 + 2j, 3 - 1j, 3 + 1j, np.nan + 9j], [2 + 0j, 2 - 5j, 1j * np.nan, -1 + 0j]])
        for axis in (None, 1):
            check(getattr(cg, f)(arr(z), axis=axis), getattr(np, f)(z, axis=axis))
        o = arr(np.zeros((), np.int64))
        assert getattr(cg, f)(arr(x), out=o) is o
        check(o, getattr(np, f)(x))
        with pytest.raises(ValueError, match="shape"):
            getattr(cg, f)(arr(x), out=arr(x))


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
                                    "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull",
                                    "median_unbiased", "normal_unbiased"])  # NumPy's thirteen (five until 2026-12-07)
def test_nanquantiles_match_numpy(method):
    x = nan_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for q in (0.0, 0.3, 1.0, np.array([[0.25], [0.5]])):
            for axis, keepdims in ((None, False), (None, True), (0, False), (-1, True)):
                if True:
                    got = cg.nanquantile(arr(x), arr(q) if isinstance(q, np.ndarray) else q, axis=axis, method=method,
                                         keepdims=keepdims)
                    check(got, np.nanquantile(x, q, axis=axis, method=method, keepdims=keepdims))
        check(cg.nanpercentile(arr(x), 40, axis=2, method=method), np.nanpercentile(x, 40, axis=2, method=method))
        check(cg.nanpercentile(arr(x), arr(np.array([5.0, 95.0])), axis=0, method=method),
              np.nanpercentile(x, np.array([5.0, 95.0]), axis=0, method=method))
        check(cg.nanmedian(arr(x), axis=1), np.nanmedian(x, axis=1))
        check(cg.nanmedian(arr(x.astype(np.float32)), axis=2), np.nanmedian(x.astype(np.float32), axis=2), rtol=1e-6)
        check(cg.nanmedian(arr(np.arange(7))), np.nanmedian(np.arange(7)))
        check(cg.nanmedian(arr(np.zeros((0, 3))), axis=0), np.nanmedian(np.zeros((0, 3)), axis=0))
    with pytest.raises(ValueError):
        cg.nanquantile(arr(x), 1.5)
    o = arr(np.zeros(x.shape[1:]))
    assert cg.nanmedian(arr(x), 0, o) is o
    check(o, np.nanmedian(x, 0))
    with pytest.raises(ValueError, match="shape"):
        cg.nanmedian(arr(x), out=arr(x))
    with pytest.raises(ValueError):
        cg.nanquantile(arr(x), 0.5, method="bogus")


def test_nan_reduction_gradients():
    x0 = rng.standard_normal((3, 4))
    x0[0, 1] = x0[2, 3] = np.nan

    def f(v):
        return np.nanstd(v, axis=1, ddof=1) + np.nanprod(v, axis=0).sum() / 4 + np.nanmedian(v, axis=1) \
            + np.nanquantile(v, 0.3) + np.nancumsum(v).sum() * 0.1

    got = grad_of(lambda v: cg.nanstd(v, axis=1, ddof=1) + cg.sum(cg.nanprod(v, axis=0)) / 4
                  + cg.nanmedian(v, axis=1) + cg.nanquantile(v, 0.3) + cg.sum(cg.nancumsum(v)) * 0.1, x0)
    num = numgrad(lambda v: np.sum(f(v)), x0)
    ok = ~np.isnan(x0)
    np.testing.assert_allclose(got[ok], num[ok], rtol=1e-5, atol=1e-6)
    assert np.all(got[~ok] == 0)


# ---- misc ----
def test_ediff1d_setxor1d_trim_zeros_match_numpy():
    a = rng.integers(-5, 5, (3, 4))
    for kwargs in ({}, {"to_end": 7}, {"to_begin": -1}, {"to_begin": np.array([1, 2]), "to_end": [9, 9, 9]}):
        check(cg.ediff1d(arr(a), **kwargs), np.ediff1d(a, **kwargs))
    f = rng.standard_normal(6).astype(np.float32)
    check(cg.ediff1d(arr(f), to_begin=np.array([1.0])), np.ediff1d(f, to_begin=np.array([1.0])))
    check(cg.ediff1d(arr(np.zeros(0))), np.ediff1d(np.zeros(0)))
    with pytest.raises(TypeError):
        cg.ediff1d(arr(np.array([1, 2, 4])), to_begin=1.5)
    x, y = rng.integers(0, 8, 10), rng.integers(3, 12, 7)
    check(cg.setxor1d(arr(x), arr(y)), np.setxor1d(x, y))
    ux, uy = np.unique(x), np.unique(y)
    check(cg.setxor1d(arr(ux), arr(uy), assume_unique=True), np.setxor1d(ux, uy, assume_unique=True))
    check(cg.setxor1d(arr(x.astype(np.float64)), arr(y)), np.setxor1d(x.astype(np.float64), y))
    check(cg.setxor1d(arr(np.zeros(0)), arr(np.zeros(0))), np.setxor1d(np.zeros(0), np.zeros(0)))
    check(cg.setxor1d(arr(x), arr(x)), np.setxor1d(x, x))
    n1, n2 = np.array([np.nan, 3.0, np.nan, 1.0]), np.array([np.nan, 2.0, 3.0])
    check(cg.setxor1d(arr(n1), arr(n2)), np.setxor1d(n1, n2))  # each side's NaNs as one, as NumPy's unique
    t = np.array([0, 0, 3, 0, 2, 0])
    for trim in ("fb", "f", "b", "BF"):
        check(cg.trim_zeros(arr(t), trim), np.trim_zeros(t, trim))
    check(cg.trim_zeros(arr(np.zeros(3))), np.trim_zeros(np.zeros(3)))
    check(cg.trim_zeros(arr(np.zeros(0))), np.trim_zeros(np.zeros(0)))
    m = np.zeros((4, 5))
    m[1, 2], m[2, 3] = 1.0, -2.0
    for axis in (None, 0, 1, -1, (0, 1)):
        check(cg.trim_zeros(arr(m), axis=axis), np.trim_zeros(m, axis=axis))
    check(cg.trim_zeros(arr(m), "f", axis=1), np.trim_zeros(m, "f", axis=1))
    check(cg.trim_zeros(arr(np.zeros((2, 3)))), np.trim_zeros(np.zeros((2, 3))))
    with pytest.raises(ValueError):
        cg.trim_zeros(arr(t), "x")


def test_histogram_bin_edges_matches_numpy():
    data = rng.standard_normal(50)
    for a in (data, data.astype(np.float32), np.array([1, 2, 5, 9])):
        for kwargs in ({}, {"bins": 3}, {"bins": 4, "range": (-1.0, 2.0)}, {"bins": np.array([-2.0, 0.0, 3.0])}):
            got, want = cg.histogram_bin_edges(arr(a), **kwargs), np.histogram_bin_edges(a, **kwargs)
            assert np.asarray(got).dtype == want.dtype and np.array_equal(np.asarray(got), want)  # bit for bit
    check(cg.histogram_bin_edges(arr(np.full(4, 2.0))), np.histogram_bin_edges(np.full(4, 2.0)))
    check(cg.histogram_bin_edges(arr(np.zeros(0))), np.histogram_bin_edges(np.zeros(0)))
    h, e = cg.histogram(arr(data), bins=6)
    check(e, cg.histogram_bin_edges(arr(data), bins=6))
    check(cg.histogram_bin_edges(arr(data), 3, weights=arr(data)), np.histogram_bin_edges(data, 3, weights=data))
    for bad in ({"bins": 0}, {"bins": 3, "range": (2.0, 1.0)}, {"bins": 3, "range": (0.0, np.inf)},
                {"bins": "auto"}, {"weights": np.ones(3)}):
        with pytest.raises(ValueError):
            cg.histogram_bin_edges(arr(data), **{k: arr(v) if isinstance(v, np.ndarray) else v
                                                 for k, v in bad.items()})


# ---- windows ----
@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning", "kaiser"])
def test_windows_match_numpy(name):
    extra = (5.0,) if name == "kaiser" else ()
    for M in (-1, 0, 1, 2, 5, 8, 13):
        want = getattr(np, name)(M, *extra)
        got = getattr(cg, name)(M, *extra)
        assert got.dtype == cg.float32
        check(got, want.astype(np.float32), rtol=1e-6, atol=1e-7)
        check(getattr(cg, name)(M, *extra, dtype=cg.float64), want, rtol=1e-13, atol=1e-15)
    if name == "kaiser":
        for beta in (0.0, 8.6, 14.0):
            check(cg.kaiser(9, beta, dtype="float64"), np.kaiser(9, beta), rtol=1e-13)


# ---- polynomials ----
def test_poly_matches_numpy():
    r = np.array([1.0, -2.0, 0.5])
    check(cg.poly(arr(r)), np.poly(r))
    check(cg.poly(arr(r.astype(np.float32))), np.poly(r.astype(np.float32)), rtol=1e-6)
    check(cg.poly(arr(np.array([1, 2, 3]))), np.poly(np.array([1, 2, 3])))
    check(cg.poly(arr(np.array([1 + 2j, 3 - 1j]))), np.poly(np.array([1 + 2j, 3 - 1j])))
    check(cg.poly(arr(np.zeros(0))), np.asarray(np.poly(np.zeros(0))))
    m = rng.standard_normal((4, 4))
    check(cg.poly(arr(m)), np.poly(m), rtol=1e-10, atol=1e-10)
    check(cg.poly(arr(np.array([[2.0, 1.0], [1.0, 3.0]]))), np.poly(np.array([[2.0, 1.0], [1.0, 3.0]])), rtol=1e-12)
    for bad in (np.zeros((2, 3)), np.zeros((2, 2, 2)), np.zeros((0, 0))):
        with pytest.raises(ValueError):
            cg.poly(arr(bad))
    x0 = np.array([0.5, -1.5, 2.0])
    np.testing.assert_allclose(grad_of(lambda v: cg.poly(v) ** 2, x0), numgrad(lambda v: np.sum(np.poly(v) ** 2), x0),
                               rtol=1e-6)


def test_polynomial_arithmetic_matches_numpy():
    p, q = np.array([1.0, -2.0, 0.5, 3.0]), np.array([2.0, 1.0])
    ip, iq = np.array([1, 2, 3]), np.array([4, 5])
    for f in ("polyadd", "polysub", "polymul"):
        for a, b in ((p, q), (ip, iq), (ip, p[:1])):
            check(getattr(cg, f)(arr(a), arr(b)), getattr(np, f)(a, b))
        check(getattr(cg, f)(3.0, arr(q)), getattr(np, f)(3.0, q))
    # leading zero coefficients: polymul drops them, as NumPy's (through poly1d); polyadd keeps them
    z, zi = np.array([-0.0, 0.0, 1.5, 2.0]), np.array([0, 0])
    for f in ("polyadd", "polymul"):
        check(getattr(cg, f)(arr(z), arr(q)), getattr(np, f)(z, q))
        check(getattr(cg, f)(arr(zi), arr(iq)), getattr(np, f)(zi, iq))
    for u, v in ((p, q), (np.array([1.0]), np.array([1.0, 2.0, 3.0])), (ip, iq),
                 (np.array([1.0, -3.0, 2.0]), np.array([1.0, -1.0]))):
        check(cg.polydiv(arr(u), arr(v)), np.polydiv(u, v))
    check(cg.polydiv(arr(p.astype(np.float32)), arr(q.astype(np.float32))),
          np.polydiv(p.astype(np.float32), q.astype(np.float32)), rtol=1e-6)
    # an exact division leaves the remainder 0: the eliminated coefficients are dropped, not left as
    # the float32 rounding residue of a contracted multiply-add (2e-7, kept past NumPy's 1e-8)
    u = np.array([-8.0, 1.0, -2.0, -1.0, -1.0], np.float32)
    for v in (np.array([-6.0], np.float32), np.array([3.0, -7.0], np.float32)):
        quo, rem = cg.polydiv(arr(u), arr(v[:1]))  # by a constant
        check(quo, u / v[0], rtol=1e-6)
        assert np.asarray(rem).tolist() == [0.0]
        quo, rem = cg.polydiv(arr(np.polymul(u, v)), arr(v))
        check(quo, u, rtol=1e-6)
        assert np.asarray(rem).tolist() == [0.0]
    for m in (0, 2):
        check(cg.polyder(arr(p), m), np.polyder(p, m))
        check(cg.polyder(arr(ip), m), np.polyder(ip, m))
        check(cg.polyint(arr(p), m), np.polyint(p, m))
        check(cg.polyint(arr(ip), m, k=2.5), np.polyint(ip, m, k=2.5))
    check(cg.polyint(arr(p), 3, k=[1.0, 2.0, 3.0]), np.polyint(p, 3, k=[1.0, 2.0, 3.0]))
    check(cg.polyint(arr(p), 2, k=arr(np.array([1.0, -1.0]))), np.polyint(p, 2, k=np.array([1.0, -1.0])))
    check(cg.polyder(arr(p + 1j), 1), np.polyder(p + 1j, 1))
    check(cg.polyint(arr(p + 1j), 1), np.polyint(p + 1j, 1))
    check(cg.polyder(arr(np.array([5])), 1), np.polyder(np.array([5]), 1))
    with pytest.raises(ValueError):
        cg.polyder(arr(p), -1)
    with pytest.raises(ValueError):
        cg.polyint(arr(p), -1)
    with pytest.raises(ValueError):
        cg.polyint(arr(p), 3, k=[1.0, 2.0])
    with pytest.raises(ValueError):
        cg.polyadd(arr(np.ones((2, 2))), arr(p))


def test_polynomial_gradients():
    p0, q0 = np.array([1.0, -2.0, 0.5, 3.0]), np.array([2.0, 1.0])
    q = arr(q0)

    def both(v):
        quo, rem = cg.polydiv(v, q)
        return cg.sum(quo * 2.0) + cg.sum(rem) + cg.sum(cg.polyint(cg.polymul(v, q), 1, k=1.0) ** 2) \
            + cg.sum(cg.polyder(cg.polysub(v, q), 2) ** 2)

    def ref(v):
        quo, rem = np.polydiv(v, q0)
        return np.sum(quo * 2.0) + np.sum(rem) + np.sum(np.polyint(np.polymul(v, q0), 1, k=1.0) ** 2) \
            + np.sum(np.polyder(np.polysub(v, q0), 2) ** 2)

    x = arr(p0).requires_grad_()
    (g,) = cg.grad(both(x), [x])
    np.testing.assert_allclose(np.asarray(g), numgrad(ref, p0), rtol=1e-6)


def test_new_names_are_exported():
    import cgrad._numpy_math as m

    for name in m.__all__:
        got = getattr(cg, name)  # NumPy's ufuncs are cgrad.ufunc objects over the function (_ufunc.py)
        assert (got._fn if isinstance(got, cg.ufunc) else got) is getattr(m, name), name
    assert math.isclose(float(cg.kaiser(3, 0.0)[1]), 1.0)
