"""cgrad.ufunc (python/cgrad/_ufunc.py): NumPy's ufunc objects over cgrad's element-wise functions,
their attributes and the methods reduce, accumulate, reduceat, outer and at, compared with NumPy
2.4's. The values are compared with NumPy's computed in the dtype cgrad computes in (cgrad's rules
pick it: int32 / int32 is float32 here), so each method's algorithm is checked to the bit where
NumPy's is exact; the dtypes themselves are checked against cgrad's calls."""
import copy
import functools
import inspect
import pickle
import warnings

import numpy as np
import pytest

import cgrad as cg
from cgrad import _cgrad
from _compare import check

UFUNCS = sorted(n for n in dir(np) if isinstance(getattr(np, n), np.ufunc) and getattr(np, n).signature is None
                and hasattr(cg, n))
BINARY = sorted({getattr(np, n).__name__ for n in UFUNCS if getattr(np, n).nin == 2 and getattr(np, n).nout == 1})
DTYPES = [np.bool_, np.int32, np.int64, np.uint8, np.float32, np.float64, np.complex64]
# NumPy's reduce of power and arctan2 over a contiguous float axis is not its left fold (2.4:
# np.power.reduce([1.5, 2, 3]) is 1.5 ** 3); its accumulate is, and cgrad's reduce is that fold
_NUMPY_REDUCE_NOT_A_FOLD = ("power", "arctan2")


def arr(a):
    return cg.asarray(a)


def data(dtype, shape, seed=0):
    """Values of `dtype` where every binary ufunc is defined and stays small: nonzero integers
    (divisors), floats away from 0, a few repeats (gcd, comparisons)."""
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        v = rng.integers(1, 7, shape)
        return (v if np.dtype(dtype).kind == "u" else v * rng.choice([-1, 1], shape)).astype(dtype)
    v = (rng.random(shape) + 0.5) * rng.choice([-1, 1], shape)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * (rng.random(shape) - 0.5)
    return v.astype(dtype)


def operand(name, dtype, shape, seed=0):
    """data() for `name`: power of integers takes no negative exponents (NumPy raises ValueError)."""
    a = data(dtype, shape, seed)
    return np.abs(a) if name == "power" and np.dtype(dtype).kind == "i" else a


def compare_all(cases):
    """cases: (got, want, dtype) triples, evaluated in one schedule (one kernel per loop structure,
    not one per case: a cold kernel cache compiles a few instead of hundreds), then compared."""
    cg.eval(*[g for g, _, _ in cases])
    for got, want, d in cases:
        close(got, want, d)


def loop_dtype(name, dtype):
    """The dtype cgrad's reduction of `name` computes in for `dtype` input (None where cgrad's
    call refuses two such arrays): sum's for add and multiply, bool for the logical ufuncs,
    else the call's result."""
    one = cg.asarray(np.ones(1, dtype))
    if name in ("add", "multiply"):
        return np.dtype(cg.sum(one).dtype.name)
    if name.startswith("logical"):
        return np.dtype(bool)
    try:
        return np.dtype(getattr(cg, name)(one, one).dtype.name)
    except TypeError:
        return None


def comparable(name, dtype):
    """The loop dtype where cgrad's methods compute `name` of `dtype` as NumPy's do; None where
    they refuse it as NumPy or cgrad's call does (checked: TypeError)."""
    d = loop_dtype(name, dtype)
    kinds = "b?uifc"
    if d is None or (not name.startswith("logical") and kinds.index(d.kind) < kinds.index(np.dtype(dtype).kind)):
        return None  # the call refuses it, or NumPy finds no loop (equal of integers gives bool)
    if name == "ldexp":
        return None  # x2 must be integers: no closed loop, in NumPy's reduce of floats either
    return d


def close(got, want, d):
    """got (a cgrad Array) equal to want (NumPy's, computed in the dtype d cgrad computes in)."""
    tol = {"e": 2e-3, "f": 2e-6, "F": 2e-6}.get(d.char, 1e-12)
    check(got, np.asarray(want).astype(d), rtol=tol, atol=tol, dtype=False)
    assert np.dtype(got.dtype.name) == d, (got.dtype, d)


def numpy_fold(name, a, axis):
    if name in _NUMPY_REDUCE_NOT_A_FOLD:
        return np.take(getattr(np, name).accumulate(a, axis=axis), -1, axis=axis)
    return getattr(np, name).reduce(a, axis=axis)


def numpy_reduceat(name, a, indices, axis):
    """NumPy's reduceat, its segments folded by numpy_fold where NumPy's own reduceat is not a fold."""
    if name not in _NUMPY_REDUCE_NOT_A_FOLD:
        return getattr(np, name).reduceat(a, indices, axis=axis)
    ends = list(indices[1:]) + [a.shape[axis]]
    return np.stack([numpy_fold(name, np.take(a, range(i, j if j > i else i + 1), axis=axis), axis)
                     for i, j in zip(indices, ends)], axis=axis)


# ---- the objects ----
def test_every_numpy_ufunc_cgrad_has_is_a_cgrad_ufunc_with_numpys_attributes():
    assert len(UFUNCS) >= 100
    for n in UFUNCS:
        u, nu = getattr(cg, n), getattr(np, n)
        assert isinstance(u, cg.ufunc), n
        assert (u.__name__, u.nin, u.nout, u.nargs, u.identity, u.signature) == \
            (nu.__name__, nu.nin, nu.nout, nu.nargs, nu.identity, None), n
        assert getattr(cg, u.__name__) is u, n  # np.abs is np.absolute: so is cgrad's
        assert u.__doc__ and repr(u) == f"<ufunc '{nu.__name__}'>" and u.__module__ == "cgrad"
    assert cg.abs is cg.absolute and cg.pow is cg.power and cg.true_divide is cg.divide
    # NumPy's gufuncs (matmul, vecdot...: a signature, none of the methods) stay plain functions
    assert not isinstance(cg.matmul, cg.ufunc) and not isinstance(cg.vecdot, cg.ufunc)
    with pytest.raises(TypeError, match="cannot create"):
        cg.ufunc()


def test_a_call_is_the_wrapped_function_itself():
    a, b = np.array([1.0, -2.0]), np.array([3.0, 4.0])
    x, y = arr(a), arr(b)
    assert type(cg.add).__call__ is _cgrad.add and cg.add._fn is _cgrad.add
    check(cg.add(x, y), a + b)
    out = cg.zeros(2, dtype=cg.float64)
    assert cg.add(x, y, out=out) is out
    check(out, a + b)
    check(cg.fmod(x, y), np.fmod(a, b))
    check(cg.divmod(x, y), np.divmod(a, b))
    # the ufuncs composed in Python take NumPy's out= too, as the C++ ones do
    assert cg.fmod(x, y, out=out) is out
    check(out, np.fmod(a, b))
    q, r = cg.zeros(2, dtype=cg.float64), cg.zeros((3, 2), dtype=cg.float32)
    assert cg.divmod(x, y, out=(q, r)) == (q, r)
    check(q, np.floor_divide(a, b))
    check(r, np.broadcast_to(np.remainder(a, b), (3, 2)).astype(np.float32))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'gcd' output"):
        cg.gcd(arr(np.array([4])), arr(np.array([6])), out=cg.zeros(1, dtype=cg.uint8))
    np.testing.assert_array_equal(np.asarray(out), np.fmod(a, b))  # a failed call writes nothing
    assert cg.rad2deg.__name__ == "rad2deg" and cg.degrees.__name__ == "degrees"  # one function, two ufuncs


def test_signatures_pickling_copying_and_wraps():
    assert str(inspect.signature(cg.add)) == "(x1, x2, *, out=None)"
    assert str(inspect.signature(cg.exp)) == "(x, *, out=None)"
    assert str(inspect.signature(cg.fmod)) == "(x1, x2, *, out=None)"
    assert inspect.signature(cg.ufunc) is not None  # the class's own (its __init__'s), not a property's
    for n in UFUNCS:
        u = getattr(cg, n)
        inspect.signature(u)
        assert pickle.loads(pickle.dumps(u)) is u and copy.deepcopy(u) is u, n

    @functools.wraps(cg.maximum)
    def wrapper(*a):
        return cg.maximum(*a)
    assert wrapper.__name__ == "maximum" and wrapper.__wrapped__ is cg.maximum
    assert str(inspect.signature(wrapper)) == "(x1, x2, *, out=None)"


def test_compile_traces_ufuncs_and_their_methods():
    @cg.compile
    def f(x):
        return cg.add(x, 1.0), cg.subtract.reduce(x), cg.maximum.accumulate(x)

    a = data(np.float64, (40, 3))
    for shift in (0.0, 1.0):
        got = f(arr(a + shift))
        close(got[0], a + shift + 1, np.dtype(np.float64))
        close(got[1], np.subtract.reduce(a + shift), np.dtype(np.float64))  # 40 steps: two chunks
        close(got[2], np.maximum.accumulate(a + shift), np.dtype(np.float64))
    assert f.signatures == 1


# ---- reduce ----
@pytest.mark.parametrize("name", BINARY)
def test_reduce_of_each_binary_ufunc_and_dtype_as_numpys(name):
    u, cases = getattr(cg, name), []
    for dtype in DTYPES:
        a = operand(name, dtype, (4, 3))
        d = comparable(name, dtype)
        if d is None:
            with pytest.raises(TypeError):
                u.reduce(arr(a))
            continue
        b = a.astype(d)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's overflow and invalid warnings
            cases.append((u.reduce(arr(a)), numpy_fold(name, b, 0), d))
            if u._reorderable:  # NumPy's: several axes at once
                cases.append((u.reduce(arr(a), axis=None), getattr(np, name).reduce(b, axis=None), d))
    compare_all(cases)


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and",
                                  "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "hypot",
                                  "logaddexp", "subtract", "divide", "copysign"])
def test_reduce_axes_keepdims_initial_and_where(name):
    u, nu, cases = getattr(cg, name), getattr(np, name), []
    dtype = np.int64 if name.startswith("bitwise") else np.bool_ if name.startswith("logical") else np.float64
    a = data(dtype, (3, 4, 2), seed=1)
    x, d = arr(a), np.dtype(dtype)
    mask = np.array([True, False, True, True])[:, None]
    # negative: where the mask takes nothing the result is the start itself (hypot(-s, 0) is s)
    initial = a.flat[5] if dtype == np.bool_ else -abs(a.flat[5])
    axes = [0, -1, (0, 2), None, ()] if u._reorderable else [1, -3, (2,), ()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for axis in axes:
            cases.append((u.reduce(x, axis=axis, keepdims=True), nu.reduce(a, axis=axis, keepdims=True), d))
            cases.append((u.reduce(x, axis, None, None, False, initial), nu.reduce(a, axis, None, None, False, initial),
                          d))
            cases.append((u.reduce(x, axis=axis, initial=initial, where=mask),
                          nu.reduce(a, axis=axis, initial=initial, where=mask), d))
            if nu.identity is not None:
                cases.append((u.reduce(x, axis=axis, where=mask), nu.reduce(a, axis=axis, where=mask), d))
            else:
                with pytest.raises(ValueError, match="to use a where mask one has to specify 'initial'"):
                    u.reduce(x, axis=axis, where=mask)
    compare_all(cases)


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "fmin", "logical_or", "bitwise_and", "gcd", "hypot",
                                  "logaddexp", "subtract", "power", "lcm"])
def test_reduce_of_empty_axes_and_zero_d_arrays(name):
    u, nu = getattr(cg, name), getattr(np, name)
    dtype = np.uint8 if name == "bitwise_and" else np.int64 if name in ("gcd", "lcm") else np.float64
    d = np.dtype(loop_dtype(name, dtype))
    e = np.ones((0, 3), dtype)
    if nu.identity is None:
        with pytest.raises(ValueError, match=f"zero-size array to reduction operation {name} which has no identity"):
            u.reduce(arr(e))
        close(u.reduce(arr(e), initial=2), nu.reduce(e, initial=2), d)
    else:
        close(u.reduce(arr(e)), nu.reduce(e), d)
        with pytest.raises(ValueError, match="no identity"):
            u.reduce(arr(e), initial=None)  # NumPy's: initial=None takes the identity away
    close(u.reduce(arr(e), axis=1), nu.reduce(e, axis=1), d)  # an empty result of a non-empty axis
    # a 0-d array: reduced over no axis, from the start (the identity or initial)
    z = np.array(3 if name == "bitwise_and" else -3, dtype)
    for kw in ({}, {"axis": None}, {"axis": -1}, {"keepdims": True}, {"axis": ()}, {"initial": 2}):
        close(u.reduce(arr(z), **kw), nu.reduce(z, **kw), d)
    with pytest.raises(ValueError, match="out of range"):
        u.reduce(arr(z), axis=1)


def test_reduce_starts_from_the_identity_as_numpy_does():
    close(cg.hypot.reduce(arr(np.array([-3.0]))), np.float64(3.0), np.dtype(np.float64))
    g = np.array([[-4, -6], [-6, 9]], np.int8)  # int8: gcd's Euclid steps unrolled for it are few
    for kw in ({}, {"axis": 1}, {"initial": -3, "where": np.array([False, True])}, {"initial": -3, "where": False}):
        close(cg.gcd.reduce(arr(g), **kw), np.gcd.reduce(g, **kw), np.dtype(np.int8))
    close(cg.bitwise_and.reduce(arr(np.zeros(0, np.uint8))), np.uint8(255), np.dtype(np.uint8))
    close(cg.logaddexp.reduce(arr(np.zeros(0, np.float32))), np.float32(-np.inf), np.dtype(np.float32))


def test_reduce_dtype_and_out():
    a = np.array([[100, 27, 3], [100, -5, 7]], np.int32)
    x = arr(a)
    close(cg.add.reduce(x), np.add.reduce(a), np.dtype(np.int64))  # widened as NumPy's (sum's rule)
    close(cg.add.reduce(x, dtype=np.int8), np.add.reduce(a, dtype=np.int8), np.dtype(np.int8))  # wraps
    close(cg.add.reduce(arr(np.array([1.5, 2.0, 3.0])), dtype="int8"), np.int8(6), np.dtype(np.int8))  # cast first
    close(cg.maximum.reduce(x, axis=1, dtype=cg.float32), np.maximum.reduce(a, 1, dtype=np.float32),
          np.dtype(np.float32))
    with pytest.raises(TypeError, match="No loop matching"):
        cg.divide.reduce(x, dtype=np.int32)  # divide of int32 is not int32: NumPy refuses too
    with pytest.raises(TypeError, match="No loop matching"):
        cg.equal.reduce(x)  # equal of integers gives bool: NumPy finds no loop
    with pytest.raises(TypeError, match="No loop matching"):
        cg.logical_and.reduce(x, dtype=np.float64)
    out = cg.zeros(3, dtype=cg.int8)
    assert cg.add.reduce(x, out=out) is out  # computed in out's dtype, as NumPy's: -56
    check(out, np.add.reduce(a, out=np.zeros(3, np.int8)))
    out = cg.zeros((1, 3))
    assert cg.multiply.reduce(x, axis=0, keepdims=True, out=(out,)) is out
    check(out, np.multiply.reduce(a, 0, keepdims=True).astype(np.float32))
    before = np.asarray(out).copy()
    with pytest.raises(ValueError, match="out has shape"):
        cg.add.reduce(x, out=cg.zeros(2))  # a failed call writes nothing
    np.testing.assert_array_equal(np.asarray(out), before)
    with pytest.raises(TypeError, match="out must be a cgrad Array"):
        cg.add.reduce(x, out=np.zeros(3))


def test_reduce_takes_array_likes_and_stays_lazy():
    check(cg.add.reduce([[1, 2], [3, 4]]), np.array([4, 6]))
    check(cg.maximum.reduce(np.array([1.5, -2.0, 3.25]), axis=None), np.float64(3.25))
    check(cg.subtract.reduce((1, 2, 3)), np.int64(-4))
    x = cg.asarray(np.arange(6.0).reshape(2, 3))
    for r in (cg.add.reduce(x), cg.subtract.reduce(x, axis=1), cg.hypot.reduce(x, axis=None), cg.maximum.accumulate(x),
              cg.divide.accumulate(x), cg.add.outer(x, x), cg.add.reduceat(x, [0, 1], axis=1)):
        assert not r.is_evaluated()


def test_reduce_errors_as_numpys():
    x = arr(np.ones((2, 3)))
    with pytest.raises(ValueError, match="reduce only supported for binary functions"):
        cg.exp.reduce(x)
    with pytest.raises(ValueError, match="reduce only supported for functions returning a single value"):
        cg.divmod.reduce(x)
    with pytest.raises(ValueError, match="'subtract' is not reorderable, so at most one axis"):
        cg.subtract.reduce(x, axis=None)
    with pytest.raises(ValueError, match="'lcm' is not reorderable"):
        cg.lcm.reduce(arr(np.ones((2, 3), np.int64)), axis=(0, 1))
    with pytest.raises(ValueError, match="out of range"):
        cg.add.reduce(x, axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        cg.add.reduce(x, axis=(0, 0))
    with pytest.raises(TypeError):
        cg.add.reduce(x, axis=[0])  # NumPy's: a list is not an axis
    with pytest.raises(ValueError, match="initial must be a scalar"):
        cg.add.reduce(x, initial=np.ones(1))
    with pytest.raises(OverflowError):
        cg.maximum.reduce(arr(np.ones(2, np.int8)), initial=300)
    with pytest.raises(ValueError):
        cg.add.reduce(x, axis=1, where=np.ones(2, bool))  # not broadcastable


def test_a_long_fold_is_bounded_and_exact():
    a = data(np.float64, (1000, 2), seed=3)
    x = arr(a)
    cg.eval(x)
    cg.reset_stats()
    r = cg.subtract.reduce(x)
    cg.eval(r)
    stats = cg.stats()
    np.testing.assert_array_equal(np.asarray(r), np.subtract.reduce(a))  # NumPy's order: bit for bit
    assert stats["kernels_launched"] <= 40  # one per chunk of 32 steps
    assert stats["kernels_compiled"] <= 3  # (with a cold kernel cache) the chunk's, the last chunk's
    r = cg.divide.accumulate(x, axis=0)
    np.testing.assert_array_equal(np.asarray(r), np.divide.accumulate(a, axis=0))


def test_a_tree_reduction_stores_each_level():
    a = data(np.float64, 4097, seed=4)
    cg.reset_stats()
    r = cg.hypot.reduce(arr(a))
    cg.eval(r)
    close(r, np.hypot.reduce(a), np.dtype(np.float64))
    assert cg.stats()["kernels_launched"] <= 14  # a kernel per level of 12, the leftover rows
    b = data(np.int64, (64, 3), seed=5)
    close(cg.bitwise_xor.reduce(arr(b), axis=(0, 1)), np.bitwise_xor.reduce(b, axis=(0, 1)), np.dtype(np.int64))


def test_gradients_through_a_fold():
    a = data(np.float64, 50, seed=6)
    x = arr(a)
    x.requires_grad_()
    cg.subtract.reduce(x).backward()  # x0 - x1 - ... - x49, over two evaluated chunks
    check(x.grad, np.r_[1.0, -np.ones(49)])


# ---- accumulate ----
@pytest.mark.parametrize("name", BINARY)
def test_accumulate_of_each_binary_ufunc_as_numpys(name):
    u, nu, cases = getattr(cg, name), getattr(np, name), []
    for dtype in (np.bool_, np.int64, np.float32, np.complex64):
        a = operand(name, dtype, (3, 4), seed=7)
        d = comparable(name, dtype)
        if d is None:
            with pytest.raises(TypeError):
                u.accumulate(arr(a))
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cases.append((u.accumulate(arr(a), axis=-1), nu.accumulate(a.astype(d), axis=-1), d))
    compare_all(cases)


def test_accumulate_scans_exactly():
    a = np.array([3.0, np.nan, 1.0, 5.0, -np.inf, 7.0, 2.0, np.nan, 9.0])
    b = data(np.int16, (37, 2), seed=8) * 12  # int16: gcd's unrolled steps are few
    m = data(np.float64, (2, 70), seed=9)  # a left fold over 70 steps: three chunks
    f8, i2 = np.dtype(np.float64), np.dtype(np.int16)
    compare_all([(getattr(cg, n).accumulate(arr(a)), getattr(np, n).accumulate(a), f8)  # NaNs as NumPy's
                 for n in ("maximum", "minimum", "fmax", "fmin")] +
                [(getattr(cg, n).accumulate(arr(b)), getattr(np, n).accumulate(b), i2)
                 for n in ("gcd", "bitwise_or", "bitwise_and", "bitwise_xor")])
    np.testing.assert_array_equal(np.asarray(cg.subtract.accumulate(arr(m), axis=1)), np.subtract.accumulate(m, 1))


def test_accumulate_dtype_out_and_errors():
    a = np.array([[1, 2, 3], [4, 5, 6]], np.int8)
    x = arr(a)
    close(cg.add.accumulate(x), np.add.accumulate(a), np.dtype(np.int64))
    close(cg.add.accumulate(x, 1, np.int8), np.add.accumulate(a, 1, np.int8), np.dtype(np.int8))
    close(cg.add.accumulate(arr(np.ones((0, 3))), axis=0), np.ones((0, 3)), np.dtype(np.float64))
    close(cg.subtract.accumulate(arr(np.ones((3, 0), np.int32))), np.ones((3, 0), np.int32), np.dtype(np.int32))
    close(cg.maximum.accumulate([1, 5, 2], axis=None), np.array([1, 5, 5]), np.dtype(np.int64))
    out = cg.zeros((2, 3), dtype=cg.float64)
    assert cg.multiply.accumulate(x, axis=(1,), out=out) is out
    check(out, np.multiply.accumulate(a, 1).astype(np.float64))
    with pytest.raises(TypeError, match="cannot accumulate on a scalar"):
        cg.add.accumulate(arr(np.float64(3)))
    with pytest.raises(ValueError, match="accumulate does not allow multiple axes"):
        cg.add.accumulate(x, axis=None)
    with pytest.raises(ValueError, match="accumulate only supported for binary functions"):
        cg.sqrt.accumulate(x)


# ---- reduceat ----
@pytest.mark.parametrize("name", BINARY)
def test_reduceat_of_each_binary_ufunc_as_numpys(name):
    u, cases = getattr(cg, name), []
    indices = [0, 4, 1, 5, 5, 2, 9]  # out of order (one element), repeated, the last to the end
    for dtype in (np.int16, np.float64):  # int16: gcd's and lcm's unrolled steps are few
        a = operand(name, dtype, (11, 2), seed=10)
        d = comparable(name, dtype)
        if d is None:
            with pytest.raises(TypeError):
                u.reduceat(arr(a), indices)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cases.append((u.reduceat(arr(a), indices), numpy_reduceat(name, a.astype(d), indices, 0), d))
    compare_all(cases)


def test_reduceat_segment_lengths_dtype_out_and_errors():
    a = data(np.float64, 40, seed=11)
    idx = np.array([0, 1, 3, 7, 15, 16, 39, 20, 21, 30])  # lengths 1 to 19, bucketed by powers of two
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_all([(getattr(cg, n).reduceat(arr(a), idx), numpy_reduceat(n, a, idx, 0), np.dtype(np.float64))
                     for n in ("add", "maximum", "subtract", "hypot", "power", "fmin")])
    i = np.arange(12, dtype=np.int32).reshape(3, 4)
    close(cg.add.reduceat(arr(i), [0, 2], axis=1), np.add.reduceat(i, [0, 2], axis=1), np.dtype(np.int64))
    close(cg.add.reduceat(arr(i), [0, 2], 1, np.float32), np.add.reduceat(i, [0, 2], 1, np.float32),
          np.dtype(np.float32))
    close(cg.add.reduceat(arr(i), []), np.add.reduceat(i, []), np.dtype(np.int64))
    out = cg.zeros((3, 2), dtype=cg.int64)
    assert cg.multiply.reduceat(arr(i), cg.asarray([1, 3]), axis=1, out=out) is out
    check(out, np.multiply.reduceat(i, [1, 3], axis=1))
    with pytest.raises(IndexError, match=r"index 4 out-of-bounds in add.reduceat \[0, 4\)"):
        cg.add.reduceat(arr(i), [0, 4], axis=1)
    with pytest.raises(IndexError, match="index -1 out-of-bounds"):
        cg.add.reduceat(arr(i), [0, -1])
    with pytest.raises(TypeError, match="cannot reduceat on a scalar"):
        cg.add.reduceat(arr(np.float64(3)), [0])
    with pytest.raises(ValueError, match="indices must be 1-D"):
        cg.add.reduceat(arr(i), [[0]])
    with pytest.raises(ValueError, match="reduceat does not allow multiple axes"):
        cg.add.reduceat(arr(i), [0], axis=None)
    with pytest.raises(ValueError, match="reduceat only supported for binary functions"):
        cg.negative.reduceat(arr(i), [0])


# ---- outer ----
@pytest.mark.parametrize("name", BINARY)
def test_outer_of_each_binary_ufunc_as_numpys(name):
    u, nu, cases = getattr(cg, name), getattr(np, name), []
    for dtype in DTYPES:
        a, b = operand(name, dtype, 2, seed=12), operand(name, dtype, (3, 1), seed=13)
        try:
            d = np.dtype(u(arr(a), arr(b[0])).dtype.name)  # cgrad's call decides the dtype
        except TypeError:
            with pytest.raises(TypeError):
                u.outer(arr(a), arr(b))
            continue
        # NumPy's of the operands in the dtype cgrad computes in (bool results: as they are)
        x1, x2 = (a, b) if d == np.bool_ and not name.startswith("logical") else (a.astype(d), b)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cases.append((u.outer(arr(a), arr(b)), nu.outer(x1, x2 if name == "ldexp" else x2.astype(x1.dtype)), d))
    compare_all(cases)


def test_outer_scalars_two_outputs_out_and_errors():
    check(cg.add.outer(2, 3), np.int64(5))
    check(cg.multiply.outer([1, 2], np.array([3.0, 4.0])), np.multiply.outer([1, 2], [3.0, 4.0]))
    q, r = cg.divmod.outer(arr(np.arange(4)), arr(np.arange(1, 3)))
    wq, wr = np.divmod.outer(np.arange(4), np.arange(1, 3))
    check(q, wq)
    check(r, wr)
    out = cg.zeros((2, 2))
    assert cg.subtract.outer(arr(np.float32([1, 2])), arr(np.float32([3, 5])), out=out) is out
    check(out, np.subtract.outer(np.float32([1, 2]), np.float32([3, 5])))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        cg.add.outer(arr(np.float32([1])), arr(np.float32([1])), out=cg.zeros(1, dtype=cg.int32))
    with pytest.raises(ValueError, match="outer product only supported for binary functions"):
        cg.exp.outer(arr(np.ones(2)), arr(np.ones(2)))
    with pytest.raises(TypeError, match="takes out= only, not where"):
        cg.add.outer(arr(np.ones(2)), arr(np.ones(2)), where=True)


# ---- at ----
def test_at_of_cgrad_ufuncs_as_numpys():
    a = np.arange(6.0)
    cases = [("add", [0, 0, 2], 1.5), ("subtract", ([0, 5],), np.array([1.0, 2.0])), ("maximum", [1, 1, 4], 3.5),
             ("divide", [3], 2.0), ("power", [2, 2], 2.0), ("negative", [0, 2], None), ("sqrt", [4, 4], None),
             ("fmod", [5], 2.0), ("logaddexp", [1], 0.0)]
    for name, idx, b in cases:
        x, want = arr(a), a.copy()
        args = () if b is None else (b,)
        assert getattr(cg, name).at(x, idx, *args) is None
        getattr(np, name).at(want, idx, *args)
        check(x, want)
    i = np.arange(5, dtype=np.int32)
    x = arr(i)
    cg.bitwise_or.at(x, [1, 1, 3], 8)
    np.bitwise_or.at(i, [1, 1, 3], 8)
    check(x, i)


def test_at_errors_leave_the_array_intact():
    x = arr(np.arange(4.0))
    with pytest.raises(ValueError, match="second operand needed for ufunc"):
        cg.add.at(x, [0])
    with pytest.raises(ValueError, match="second operand provided when ufunc is unary"):
        cg.negative.at(x, [0], 1.0)
    with pytest.raises(ValueError, match="Only single output ufuncs"):
        cg.divmod.at(x, [0], 2.0)
    with pytest.raises(TypeError, match="a must be a cgrad Array"):
        cg.add.at(np.zeros(3), [0], 1)
    with pytest.raises(IndexError):
        cg.maximum.at(x, [0, 7], 9.0)
    with pytest.raises(IndexError):
        cg.add.at(x, [0, 7], 9.0)
    check(x, np.arange(4.0))


# ---- NumPy's ufuncs reach these methods for cgrad arrays (NEP 13) ----
def test_numpys_ufunc_methods_of_cgrad_arrays_are_cgrads():
    a = data(np.float64, (4, 3), seed=14)
    x = arr(a)
    results = {
        "reduce": (np.subtract.reduce(x, axis=1), np.subtract.reduce(a, axis=1)),
        "reduce where": (np.add.reduce(x, axis=0, where=np.array([True, False, True])),
                         np.add.reduce(a, axis=0, where=np.array([True, False, True]))),
        "accumulate": (np.maximum.accumulate(x), np.maximum.accumulate(a)),
        "reduceat": (np.divide.reduceat(x, [0, 2]), np.divide.reduceat(a, [0, 2])),
        "outer": (np.hypot.outer(x[0], a[1]), np.hypot.outer(a[0], a[1])),
        "gcd": (np.gcd.reduce(arr(np.array([12, 18, 30]))), np.gcd.reduce(np.array([12, 18, 30]))),
    }
    for key, (got, want) in results.items():
        assert isinstance(got, cg.Array), key
        close(got, want, np.dtype(want.dtype))
    out = cg.zeros(3, dtype=cg.float64)
    assert np.add.reduce(x, axis=0, out=out) is out
    close(out, np.add.reduce(a, axis=0), np.dtype(np.float64))
    y, want = arr(np.zeros(3)), np.zeros(3)
    np.add.at(y, [0, 0, 2], 1.0)
    np.add.at(want, [0, 0, 2], 1.0)
    check(y, want)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        np.maximum.reduce(arr(np.ones(0)))  # cgrad's refusal: NumPy's own, on the values


@pytest.mark.skipif(not cg.cuda_available(), reason="no CUDA device")
def test_methods_of_a_device_array_stay_on_it():
    dev = cg.Device.cuda(0)
    a = np.arange(1.0, 41.0).reshape(40, 1) / 7
    x = cg.asarray(a, device=dev)
    cases = [(cg.subtract.reduce(x), np.subtract.reduce(a)),  # a fold of two chunks
             (cg.hypot.reduce(x, axis=None), np.hypot.reduce(a, axis=None)),
             (cg.maximum.accumulate(x[::-1]), np.maximum.accumulate(a[::-1])),
             (cg.add.reduce(x, where=x > 2, initial=1.5), np.add.reduce(a, where=a > 2, initial=1.5)),
             (cg.divide.reduceat(x, [0, 5, 3, 20]), np.divide.reduceat(a, [0, 5, 3, 20])),
             (cg.add.outer(x[:3, 0], x[:2, 0]), np.add.outer(a[:3, 0], a[:2, 0])),
             (np.add.reduce(x), np.add.reduce(a))]
    for got, want in cases:
        assert got.device == dev
        close(got, want, np.dtype(np.float64))
    y, want = cg.asarray(np.zeros(4), device=dev), np.zeros(4)
    cg.maximum.at(y, [1, 1], 5.0)
    np.maximum.at(want, [1, 1], 5.0)
    assert y.device == dev
    check(y, want)
