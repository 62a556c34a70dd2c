"""cgrad.Array against NumPy: operators, functions, indexing, conversions, compile, autograd,
optimizers and errors. NumPy is the oracle."""
import collections
import inspect
import math
import os
import pickle  # noqa: F401
import re

import numpy as np
import pytest

import cgrad as cg


def arr(a, dtype=None):
    return cg.asarray(np.asarray(a, dtype=dtype))


A = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
B = np.array([0.5, -1.0, 2.0], dtype=np.float32)


@pytest.mark.parametrize(
    "op",
    ["__add__", "__sub__", "__mul__", "__truediv__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"],
)
def test_binary_operators_match_numpy(op):
    got = np.asarray(getattr(arr(A), op)(arr(B)))
    want = getattr(A, op)(B)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got.dtype == want.dtype


def test_scalar_and_reflected_operators():
    x = arr(A)
    np.testing.assert_allclose(np.asarray(2 - x), 2 - A)
    np.testing.assert_allclose(np.asarray(1 / x), 1 / A, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(x ** 2), A**2)
    np.testing.assert_allclose(np.asarray(2.0 ** x), 2.0**A, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(3 < x), 3 < A)
    assert (x * 2.0).dtype == cg.float32  # a Python scalar never widens
    assert (arr([1, 2], np.int32) + 1).dtype == cg.int32
    np.testing.assert_allclose(np.asarray(-x), -A)
    np.testing.assert_allclose(np.asarray(abs(-x)), A)


def test_inplace_updates_every_handle_of_the_array():
    x = arr(A)
    row = x[0]
    same, handle = x, x.view()  # the same object; another Array of the same tensor
    x += 1
    assert same is x
    np.testing.assert_allclose(np.asarray(x), A + 1)
    np.testing.assert_allclose(np.asarray(handle), A + 1)  # as NumPy's and PyTorch's views
    np.testing.assert_allclose(np.asarray(row), A[0])  # derived before: unchanged
    # a compiled function that captured an Array reads its value after `+=` outside (until
    # 2026-12-07 the Array was rebound and the plan kept reading the old value)
    w = arr(np.ones(3))
    f = cg.compile(lambda v: v * w)
    v = arr(np.arange(3.0))
    np.testing.assert_array_equal(np.asarray(f(v)), np.arange(3.0))
    w += 1
    np.testing.assert_array_equal(np.asarray(f(v)), 2 * np.arange(3.0))
    w *= 3
    np.testing.assert_array_equal(np.asarray(f(v)), 6 * np.arange(3.0))
    assert f.signatures == 1


def test_inplace_matmul_as_numpys():
    # `x @= w` rebound x to a new array until 2026-12-08 (no __imatmul__): other handles kept the
    # old value, unlike the other in-place operators
    a, w = np.arange(6.0).reshape(2, 3), np.arange(9.0).reshape(3, 3) / 4
    x = arr(a)
    handle = x.view()
    x @= arr(w)
    np.testing.assert_allclose(np.asarray(x), a @ w)
    np.testing.assert_allclose(np.asarray(handle), a @ w)
    x @= w  # a NumPy operand, as for the other operators
    np.testing.assert_allclose(np.asarray(x), a @ w @ w)
    before = np.asarray(x).copy()
    for bad in (arr(np.ones((3, 2))), arr(np.ones(3))):  # NumPy: the product must keep x's shape
        with pytest.raises(ValueError, match="shape"):
            x @= bad
        np.testing.assert_array_equal(np.asarray(x), before)
    xi = arr(np.arange(4).reshape(2, 2))
    with pytest.raises(TypeError, match="cannot be stored"):
        xi @= arr(np.eye(2))  # float into int: NumPy's same-kind rule
    np.testing.assert_array_equal(np.asarray(xi), np.arange(4).reshape(2, 2))
    with pytest.raises(TypeError):
        x @= None


def test_unary_and_binary_functions():
    x = arr(A)
    for name in ["exp", "log", "sqrt", "sin", "cos", "tanh"]:
        np.testing.assert_allclose(np.asarray(getattr(cg, name)(x)), getattr(np, name)(A), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(cg.rsqrt(x)), 1 / np.sqrt(A), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(cg.sigmoid(x)), 1 / (1 + np.exp(-A)), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(cg.maximum(x, 3.0)), np.maximum(A, 3.0))
    np.testing.assert_allclose(np.asarray(cg.minimum(2.5, x)), np.minimum(A, 2.5))
    np.testing.assert_allclose(np.asarray(cg.clip(x, 2, 5)), np.clip(A, 2, 5))
    np.testing.assert_allclose(np.asarray(cg.where(x > 3, x, 0.0)), np.where(A > 3, A, 0.0))
    np.testing.assert_allclose(np.asarray(x @ arr(A.T)), A @ A.T, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(cg.softmax(x, -1)), np.exp(A) / np.exp(A).sum(-1, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize(
    "name",
    ["floor", "ceil", "trunc", "sign", "signbit", "isnan", "isinf", "isfinite", "log1p", "expm1", "log2", "log10",
     "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "positive", "square",
     "reciprocal"],
)
def test_standard_unary_functions_match_numpy(name):
    X = np.array([-2.5, -1.5, -0.5, -0.0, 0.0, 0.25, 0.5, 1.5, 2.5, np.inf, -np.inf, np.nan], dtype=np.float32)
    cg_name = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
               "arctanh": "atanh"}.get(name, name)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(X)
    got = np.asarray(getattr(cg, cg_name)(arr(X)))
    assert got.dtype == want.dtype
    if want.dtype == np.bool_:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)


def test_round_is_half_to_even_and_integer_functions():
    X = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7], dtype=np.float64)
    np.testing.assert_array_equal(np.asarray(cg.round(arr(X))), np.round(X))
    I = np.array([-7, -3, 0, 3, 7], dtype=np.int64)
    np.testing.assert_array_equal(np.asarray(cg.floor(arr(I))), I)
    np.testing.assert_array_equal(np.asarray(cg.bitwise_invert(arr(I))), ~I)
    np.testing.assert_array_equal(np.asarray(~arr(I)), ~I)
    np.testing.assert_array_equal(np.asarray(~arr([True, False])), [False, True])
    np.testing.assert_array_equal(np.asarray(cg.logical_not(arr([True, False]))), [False, True])


def test_standard_binary_functions_and_operators_match_numpy():
    a = np.array([-7.5, -3.0, -0.0, 2.0, 5.5, 7.0], dtype=np.float64)
    b = np.array([2.0, -2.5, 3.0, -0.5, 1.5, 4.0], dtype=np.float64)
    x, y = arr(a), arr(b)
    for cg_name, want in [("atan2", np.arctan2(a, b)), ("hypot", np.hypot(a, b)), ("copysign", np.copysign(a, b)),
                          ("logaddexp", np.logaddexp(a, b)), ("nextafter", np.nextafter(a, b)),
                          ("remainder", np.remainder(a, b)), ("floor_divide", np.floor_divide(a, b))]:
        np.testing.assert_allclose(np.asarray(getattr(cg, cg_name)(x, y)), want, rtol=1e-12, err_msg=cg_name)
    np.testing.assert_array_equal(np.asarray(x // y), a // b)
    np.testing.assert_array_equal(np.asarray(x % y), a % b)
    np.testing.assert_array_equal(np.asarray(7.0 % y), 7.0 % b)
    np.testing.assert_allclose(np.asarray(cg.atan2(x, 2.0)), np.arctan2(a, 2.0), rtol=1e-15)
    i = np.array([-9, -4, 0, 5, 12], dtype=np.int32)
    j = np.array([4, -3, 7, 2, 5], dtype=np.int32)
    p, q = arr(i), arr(j)
    for got, want in [(p // q, i // j), (p % q, i % j), (p & q, i & j), (p | q, i | j), (p ^ q, i ^ j),
                      (p << 2, i << 2), (p >> 1, i >> 1), (3 & p, 3 & i), (1 << arr(np.array([0, 3], np.int32)),
                      np.array([1, 8], np.int32))]:
        assert got.dtype == cg.int32  # a Python int never widens
        np.testing.assert_array_equal(np.asarray(got), want)
    t, f = arr([True, True, False, False]), arr([True, False, True, False])
    for name in ["logical_and", "logical_or", "logical_xor"]:
        np.testing.assert_array_equal(np.asarray(getattr(cg, name)(t, f)), getattr(np, name)([1, 1, 0, 0], [1, 0, 1, 0]))
    np.testing.assert_array_equal(np.asarray(t & f), [True, False, False, False])
    np.testing.assert_array_equal(np.asarray(t | True), [True] * 4)
    np.testing.assert_array_equal(np.asarray(cg.isclose(x, x + 1e-9)), [True] * 6)


def test_new_reductions_flip_and_arg_extremes():
    X = np.array([[3.0, -1.0, 4.0], [1.0, 5.0, -9.0]], dtype=np.float32)
    x = arr(X)
    np.testing.assert_allclose(np.asarray(cg.prod(x)), X.prod())
    np.testing.assert_allclose(np.asarray(cg.prod(x, axis=1, keepdims=True)), X.prod(1, keepdims=True))
    np.testing.assert_array_equal(np.asarray(cg.any(x > 4, axis=0)), (X > 4).any(0))
    np.testing.assert_array_equal(np.asarray(cg.all(x, axis=1)), X.all(1))
    empty_all = cg.all(arr(np.zeros((0,), np.float32)))
    assert empty_all.dtype == cg.bool and empty_all.item()
    np.testing.assert_array_equal(np.asarray(cg.any(x, axis=())), X != 0)
    np.testing.assert_array_equal(np.asarray(cg.count_nonzero(x - 1, axis=0)), np.count_nonzero(X - 1, axis=0))
    assert cg.argmax(x).item() == int(X.argmax())
    np.testing.assert_array_equal(np.asarray(cg.argmin(x, axis=1)), X.argmin(1))
    assert cg.argmax(x, keepdims=True).shape == (1, 1)
    np.testing.assert_array_equal(np.asarray(cg.flip(x)), np.flip(X))
    np.testing.assert_array_equal(np.asarray(cg.flip(x, axis=-1)), np.flip(X, -1))


def test_reductions():
    x = arr(A)
    np.testing.assert_allclose(np.asarray(cg.sum(x)), A.sum())
    np.testing.assert_allclose(np.asarray(cg.sum(x, axis=1, keepdims=True)), A.sum(1, keepdims=True))
    np.testing.assert_allclose(np.asarray(cg.mean(x, axis=(0, 1))), A.mean())
    np.testing.assert_allclose(np.asarray(cg.max(x, axis=0)), A.max(0))
    np.testing.assert_allclose(np.asarray(x.min(axis=-1)), A.min(-1))
    np.testing.assert_allclose(np.asarray(cg.sum(x, axis=())), A)  # axis=() reduces nothing


@pytest.mark.parametrize(
    "key",
    [0, -1, (1, 2), (slice(None), 1), slice(1, None), (Ellipsis, slice(None, None, 2)), (None, 1),
     (slice(None), None, slice(0, 2)), (Ellipsis,), (1, Ellipsis, None), slice(5, 1), (slice(-2, None, 2), -1),
     slice(None, None, -1), (Ellipsis, slice(3, 0, -2)), (slice(None), slice(None, None, -1), slice(0, 3, -1)),
     (None, 1, slice(-1, None, -2))],
)
def test_basic_indexing_matches_numpy(key):
    X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = arr(X)[key]
    want = X[key]
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


def test_array_and_mask_indexing_match_numpy():
    X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = arr(X)
    i = np.array([[1, -1], [0, -2]])
    np.testing.assert_array_equal(np.asarray(x[arr(i), 1]), X[i, 1])
    np.testing.assert_array_equal(np.asarray(x[1, arr([2, 0]), arr([3])]), X[1, [2, 0], [3]])
    np.testing.assert_array_equal(np.asarray(x[arr([1, 0])]), X[[1, 0]])
    m = X % 3 == 0
    np.testing.assert_array_equal(np.asarray(x[arr(m)]), X[m])
    np.testing.assert_array_equal(np.asarray(x[arr(m[:, :, 0])]), X[m[:, :, 0]])
    assert x[cg.asarray(True)].shape == (1, 2, 3, 4) and x[cg.asarray(False)].shape == (0, 2, 3, 4)
    with pytest.raises(IndexError):
        x[arr(np.ones((3,), bool))]
    y = arr(X)
    y[arr(m)] = -1.0
    Y = X.copy()
    Y[m] = -1
    np.testing.assert_array_equal(np.asarray(y), Y)
    assert cg.__array_namespace_info__().capabilities()["data-dependent shapes"]


def test_take_searchsorted_nonzero_match_numpy():
    X = np.arange(12, dtype=np.int32).reshape(3, 4)
    i = np.array([3, -1, 0])
    np.testing.assert_array_equal(np.asarray(cg.take(arr(X), arr(i), axis=1)), np.take(X, i, axis=1))
    j = np.array([[0, 2, 1, 0]])
    np.testing.assert_array_equal(np.asarray(cg.take_along_axis(arr(X), arr(j), axis=0)),
                                  np.take_along_axis(X, j, axis=0))
    s = np.array([1.0, 2.0, 2.0, 5.0], np.float32)
    v = np.array([[0.0, 2.0], [3.0, 9.0]], np.float32)
    for side in ("left", "right"):
        np.testing.assert_array_equal(np.asarray(cg.searchsorted(arr(s), arr(v), side=side)),
                                      np.searchsorted(s, v, side=side))
    assert int(cg.searchsorted(arr(s), 2.0)) == 1
    got = cg.nonzero(arr(X % 5))
    for g, w in zip(got, np.nonzero(X % 5)):
        np.testing.assert_array_equal(np.asarray(g), w)



def test_take_modes_and_diff_scalars_as_numpy():
    # NumPy's take modes and scalar prepend/append of diff (since 2026-12-07: TypeError before)
    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([-7, -1, 3, 4, 12])
    for mode in ("wrap", "clip"):
        np.testing.assert_array_equal(np.asarray(cg.take(cg.asarray(x), cg.asarray(idx), axis=1, mode=mode)),
                                      np.take(x, idx, axis=1, mode=mode))
    np.testing.assert_array_equal(np.asarray(cg.take(cg.asarray(x), cg.asarray(idx[1:3]), axis=1, mode="raise")),
                                  np.take(x, idx[1:3], axis=1))
    with pytest.raises(IndexError):
        cg.take(cg.asarray(x), cg.asarray(idx), axis=1, mode="raise")
    with pytest.raises(ValueError):
        cg.take(cg.asarray(x), cg.asarray(idx), axis=1, mode="nope")
    i = np.array([[1, 5], [0, 2]])
    for kw in ({"prepend": 0.5}, {"append": 2}, {"prepend": -1.0, "append": 7.5}):
        for n in (1, 2):
            got = cg.diff(cg.asarray(x), axis=0, n=n, **kw)
            np.testing.assert_array_equal(np.asarray(got), np.diff(x, axis=0, n=n, **kw))
        got = cg.diff(cg.asarray(i), **kw)  # an int array with a float scalar gives floats, as NumPy
        want = np.diff(i, **kw)
        assert np.asarray(got).dtype.kind == want.dtype.kind
        np.testing.assert_array_equal(np.asarray(got), want)

def test_scatter_add_matches_numpy_add_at():
    X = np.arange(12, dtype=np.float32).reshape(3, 4)
    i = np.array([3, -1, 0, 3])
    V = np.arange(12, dtype=np.float32).reshape(3, 4) * 10
    want = X.copy()
    np.add.at(want, (slice(None), i), V)
    np.testing.assert_array_equal(np.asarray(cg.scatter_add(arr(X), arr(i), arr(V), axis=1)), want)
    j = np.array([[0, 2, 2, 0]])
    want = X.copy()
    np.add.at(want, (j[0], np.arange(4)), V[0])
    got = cg.scatter_add_along_axis(arr(X), arr(j), arr(V[:1]), axis=0)
    np.testing.assert_array_equal(np.asarray(got), want)
    # out-of-range positions add nothing; 1-D without an axis
    v = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(np.asarray(cg.scatter_add(arr(v), arr([5, -4, 1]), arr(v))), [1.0, 5.0, 3.0])
    with pytest.raises(ValueError):
        cg.scatter_add(arr(X), arr(i), arr(V))


def test_bad_indexing_raises():
    x = arr(A)
    with pytest.raises(IndexError, match="integer or boolean"):
        x[:, arr(np.array([0.0, 1.0]))]
    # a 0-d boolean beside other indices raised here until 2026-12-07; now NumPy's new axis
    np.testing.assert_array_equal(np.asarray(x[arr(np.array(True)), :, arr([0])]), A[True, :, [0]])
    with pytest.raises(IndexError, match="does not match"):
        x[:, np.array([True, False])]
    with pytest.raises(IndexError, match="out of bounds"):
        x[5]
    with pytest.raises(IndexError, match="too many"):
        x[0, 0, 0]


def test_setitem_assigns_for_every_handle():
    x = arr(np.zeros((3, 4), np.float32))
    x[1:, 2] = 5.0
    x[0] = arr(np.arange(4, dtype=np.float32))
    want = np.zeros((3, 4), np.float32)
    want[1:, 2] = 5
    want[0] = np.arange(4)
    np.testing.assert_array_equal(np.asarray(x), want)
    x[...] = 1.0
    np.testing.assert_array_equal(np.asarray(x), np.ones((3, 4)))


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_setitem_with_steps_matches_numpy(dtype):
    # stepped and negative-step slices, ints, None and ... in random keys, values that broadcast
    rng = np.random.default_rng(3)
    for _ in range(100):
        shape = tuple(int(n) for n in rng.integers(1, 6, size=rng.integers(1, 4)))
        key = []
        for n in shape:
            if rng.random() < 0.2:
                key.append(int(rng.integers(-n, n)))
            else:
                b, e = (None if rng.random() < 0.3 else int(v) for v in rng.integers(-n - 1, n + 2, size=2))
                key.append(slice(b, e, int(rng.choice([1, 2, 3, -1, -2, -3]))))
        if rng.random() < 0.2:
            key.insert(int(rng.integers(0, len(key) + 1)), None)
        if rng.random() < 0.2:
            key = key[: int(rng.integers(0, len(key) + 1))] + [Ellipsis]
        key = tuple(key)
        a = (rng.standard_normal(shape) * 5).astype(dtype)
        target = a[key].shape
        v = (rng.standard_normal(tuple(1 if rng.random() < 0.3 else d for d in
                                       target[int(rng.integers(0, len(target) + 1)):])) * 5).astype(dtype)
        x = arr(a.copy())
        before = x * 1 if dtype != np.bool_ else ~x
        x[key] = arr(v)
        want = a.copy()
        want[key] = v
        np.testing.assert_array_equal(np.asarray(x), want, err_msg=f"{shape} {key} {v.shape}")
        np.testing.assert_array_equal(np.asarray(before), a * 1 if dtype != np.bool_ else ~a)
    x = arr(np.zeros(5, np.float32))
    x[4:0:-2] = 7.0
    np.testing.assert_array_equal(np.asarray(x), [0, 0, 7, 0, 7])
    x[::2] = arr(np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(np.asarray(x), [1, 0, 2, 0, 3])
    with pytest.raises(ValueError):
        x[::2] = arr(np.ones(2, np.float32))  # 2 values for 3 places
    np.testing.assert_array_equal(np.asarray(x), [1, 0, 2, 0, 3])  # left as it was


def test_setitem_with_integer_arrays_matches_numpy():
    # ints and integer arrays that broadcast together, negatives, repeats, every kind of dtype
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64, np.int32, np.uint8, np.bool_, np.complex64):
        for _ in range(15):
            shape = tuple(int(v) for v in rng.integers(1, 6, size=rng.integers(1, 4)))
            a = (rng.standard_normal(shape) * 5).astype(dtype)
            if dtype == np.complex64:
                a = a + 1j * rng.standard_normal(shape).astype(np.float32)
            ishape = tuple(int(v) for v in rng.integers(1, 5, size=rng.integers(0, 3)))
            key = tuple(int(rng.integers(-n, n)) if d and rng.random() < 0.3 else rng.integers(-n, n, size=ishape)
                        for d, n in enumerate(shape[: int(rng.integers(1, len(shape) + 1))]))
            target = a[key].shape
            v = (rng.standard_normal(target[int(rng.integers(0, len(target) + 1)):]) * 5).astype(dtype)
            x = arr(a.copy())
            x[tuple(cg.asarray(k) if isinstance(k, np.ndarray) else k for k in key)] = arr(v)
            want = a.copy()
            want[key] = v
            np.testing.assert_array_equal(np.asarray(x), want, err_msg=f"{dtype} {shape} {key} {v.shape}")


def test_setitem_with_a_mask_matches_numpy():
    # the k-th value to the k-th True (a 2-D mask once put v's values by column: 20 then 10)
    rng = np.random.default_rng(2)
    for shape in ((4,), (2, 3), (3, 2, 2)):
        for k in range(1, len(shape) + 1):
            for _ in range(4):
                m = rng.random(shape[:k]) < 0.5
                count, rest = int(m.sum()), shape[k:]
                for vshape in ((), (1,), rest, (count, *rest), (1, count, *rest), (1, *rest)):
                    a, v = rng.standard_normal(shape), rng.standard_normal(vshape)
                    want = a.copy()
                    want[m] = np.broadcast_to(v.reshape(v.shape[1:]) if v.ndim > len(rest) + 1 else v,
                                              (count, *rest))  # NumPy takes 1-D v for 1-D selections
                    x = arr(a)
                    x[cg.asarray(m)] = arr(v)
                    np.testing.assert_array_equal(np.asarray(x), want, err_msg=f"{shape} {m} {vshape}")
                x = arr(rng.standard_normal(shape))
                before = np.asarray(x).copy()
                with pytest.raises(ValueError):  # a count that does not match, x left as it was
                    x[cg.asarray(m)] = arr(np.ones((count + 1 + shape[0], *rest)))
                np.testing.assert_array_equal(np.asarray(x), before)
    x = arr(np.array([1.0, 2.0, 3.0]))
    x[x > 1.5] = arr(np.array([7.0, 8.0, 9.0]))  # v of x's own shape: where's reading (an extension)
    np.testing.assert_array_equal(np.asarray(x), [1, 8, 9])


def test_setitem_of_a_row_drops_the_values_leading_ones():
    x = arr(np.zeros((2, 3, 4)))
    x[0] = arr(np.ones((1, 3, 4)))
    x[1, 2] = arr(np.full((1, 1, 4), 2.0))  # ints that select a row, not an element: NumPy's rule
    want = np.zeros((2, 3, 4))
    want[0], want[1, 2] = 1, 2
    np.testing.assert_array_equal(np.asarray(x), want)
    with pytest.raises(ValueError):  # an element takes no sequence
        x[0, 0, 0] = arr(np.ones((1,)))


def test_setitem_with_repeated_indices_keeps_the_last_value():
    x = arr(np.zeros(4, np.float32))
    x[cg.asarray([1, 3, 1, -3])] = arr(np.array([5, 6, 7, -0.0], np.float32))
    got = np.asarray(x)
    np.testing.assert_array_equal(got, [0, -0.0, 0, 6])  # index 1 three times: the last, -0.0
    assert np.signbit(got[1]) and not np.signbit(got[0])
    x[cg.asarray([0, 9])] = 2.0  # an index out of range writes nothing (take's fill mode)
    np.testing.assert_array_equal(np.asarray(x), [2, -0.0, 0, 6])


def test_gather_with_one_index_out_of_range_reads_zero():
    # each dim's index is checked on its own: [0, 5] of a 3 x 4 array used to read row 1, column 1
    x = arr(np.arange(12, dtype=np.float32).reshape(3, 4))
    got = x[cg.asarray([0, 0, 2, 3]), cg.asarray([5, -5, -1, 0])]
    np.testing.assert_array_equal(np.asarray(got), [0, 0, 11, 0])


def test_numpy_functions_of_cgrad_arrays_dispatch_to_cgrad():
    # NEP 13/18: np.exp(x), np.concatenate([x, n]), np.linalg.norm(x) ... were NumPy results of the
    # values; now cgrad's function of that name (lazy), NumPy's where cgrad has none or refuses
    m = np.arange(1.0, 7.0).reshape(2, 3)
    x = arr(m)
    n = np.ones((1, 3))
    for got, want in ((np.exp(x), np.exp(m)), (np.add(n, x), n + m), (np.maximum(x, 2), np.maximum(m, 2)),
                      (np.concatenate([x, n]), np.concatenate([m, n])), (np.linalg.norm(x), np.linalg.norm(m)),
                      (np.fft.fft(x), np.fft.fft(m)), (np.sum(x, 0), np.sum(m, 0)), (np.std(x, 1, ddof=1), np.std(m, 1, ddof=1)),
                      (np.where(x > 2, x, 0), np.where(m > 2, m, 0)), (np.clip(x, 2, 4), np.clip(m, 2, 4)),
                      (np.round(x / 3, 2), np.round(m / 3, 2)), (np.argmax(x, 1), np.argmax(m, 1)),
                      (np.take(x, [0, 2], 1), np.take(m, [0, 2], 1)), (np.median(x), np.median(m)),
                      (np.add.reduce(x), np.add.reduce(m)), (np.maximum.reduce(x, axis=1), np.maximum.reduce(m, axis=1)),
                      (np.multiply.accumulate(x, 1), np.multiply.accumulate(m, 1)),
                      (np.subtract.outer(x[0], [1.0, 2.0]), np.subtract.outer(m[0], [1.0, 2.0]))):
        assert isinstance(got, cg.Array)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    for got, want in ((np.sort(x, 0), np.sort(m, 0)), (np.add.reduceat(x, [0, 1]), np.add.reduceat(m, [0, 1])),  # NumPy's
                      (np.tril(x[0]), np.tril(m[0])), (np.linspace(x[:, 0], 9.0, 4), np.linspace(m[:, 0], 9.0, 4))):
        np.testing.assert_allclose(np.asarray(got), want)
    b = np.array([[[True, False, True]], [[False, True, True]]])  # cgrad's linalg.trace refuses bools:
    np.testing.assert_array_equal(np.asarray(np.linalg.trace(arr(b), offset=-1)), np.linalg.trace(b, offset=-1))  # not x.trace
    # NumPy's own code on a cgrad array (np.poly of an empty one is not dispatched) reads dtype.char
    assert float(np.poly(arr(np.zeros(0)))) == 1.0 and cg.float64.char == "d" and cg.bfloat16.char == "e"
    q, r = np.divmod(x, 4)
    np.testing.assert_array_equal(np.asarray(q), m // 4)
    y = cg.zeros(3)
    assert np.copyto(y, x[0]) is None  # cgrad's copyto, in place (None is its result, not a refusal)
    np.testing.assert_array_equal(np.asarray(y), m[0])
    z = arr(m)
    assert np.exp(z, out=z) is z  # out= is written (NumPy's "read-only" error until 2026-12-07)
    np.testing.assert_allclose(np.asarray(z), np.exp(m), rtol=1e-12)


def test_host_index_arrays_out_of_range_raise_as_numpy():
    # lists and NumPy arrays are known on the host: NumPy's IndexError, no evaluation needed (they
    # read 0 and wrote nothing, as a lazy cgrad index array still does)
    m = np.arange(24.0).reshape(2, 3, 4)
    for key in ([0, 5], [0, -3], np.array([1, 2]), (0, [0, 3]), (0, [0, 2], [1, 4]), (Ellipsis, [4]),
                (None, [2]), ([1], Ellipsis, [0, 4]), (slice(None), [3]), (0, 0, [-5]),
                (np.ones((2, 3), bool), [4])):
        with pytest.raises(IndexError) as want:
            m[key]
        with pytest.raises(IndexError, match=str(want.value)):
            arr(m)[key]
        x = arr(m)
        with pytest.raises(IndexError, match=str(want.value)):
            x[key] = -1.0
        np.testing.assert_array_equal(np.asarray(x), m)  # left as it was
    for key in ((Ellipsis, [3]), (slice(None), [2]), (0, 0, [-4]), ([],), (np.ones((2, 3), bool), [3])):
        np.testing.assert_array_equal(np.asarray(arr(m)[key]), m[key])


def test_conversions_and_queries():
    x = arr(A)
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6 and x.dtype == cg.float32
    assert x.device == cg.Device.cpu()
    assert x.T.shape == (3, 2) and x.mT.shape == (3, 2)
    assert float(cg.sum(x)) == 21.0 and int(x[1, 2]) == 6 and bool(x[0, 0])
    assert [0, 1, 2][arr(np.int64(2))] == 2  # __index__
    assert x.tolist() == A.tolist()
    assert repr(cg.asarray([1.5, 2.0])) == "Array([1.5, 2. ], dtype=float32)"
    assert str(cg.asarray([1, 2])) == "[1 2]"
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)
    with pytest.raises(TypeError):
        hash(x)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int32, np.int64])
def test_python_ints_beyond_the_dtype_follow_numpy(dtype):
    # comparisons answer by value (u8 < -2 wrapped -2 to 254 and was True), other functions raise
    a = np.array([0, 1, np.iinfo(dtype).max], dtype)
    x = arr(a)
    for v in (-(2**70), -129, -2, 256, 300, 2**40, 2**70):
        for f in (lambda p: p < v, lambda p: p <= v, lambda p: p > v, lambda p: p >= v, lambda p: p == v,
                  lambda p: p != v, lambda p: v < p, lambda p: v >= p):
            np.testing.assert_array_equal(np.asarray(f(x)), f(a), err_msg=f"{dtype} {v}")
        for f in (lambda p: p + v, lambda p: v * p, lambda p: p // v):
            try:
                want = f(a)
            except OverflowError:
                with pytest.raises(OverflowError, match="out of bounds"):
                    f(x)
            else:
                np.testing.assert_array_equal(np.asarray(f(x)), want)
    if dtype == np.uint8:
        y = arr(a)
        with pytest.raises(OverflowError):
            y += -1
        np.testing.assert_array_equal(np.asarray(y), a)  # left as it was
        with pytest.raises(OverflowError):
            cg.maximum(x, -1)


def test_python_ints_beyond_int64_follow_numpy():
    # u64 arrays take ints up to 2^64 - 1; float and complex arrays take any int as a float of their
    # dtype (a ValueError before); bool arrays and ints past a dtype raise OverflowError
    u = np.array([0, 1, 2**63 + 5, 2**64 - 1], np.uint64)
    for v in (2**63, 2**64 - 1):
        for f in (lambda p: p + v, lambda p: v - p, lambda p: p // v, lambda p: p < v, lambda p: v >= p,
                  lambda p: cg.maximum(p, v) if isinstance(p, cg.Array) else np.maximum(p, v),
                  lambda p: (cg if isinstance(p, cg.Array) else np).where(p > 1, p, v)):
            got, want = f(arr(u)), f(u)
            assert np.asarray(got).dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(arr(u) < 2**64), u < 2**64)
    with pytest.raises(OverflowError, match="out of bounds"):
        arr(u) + 2**64
    for dtype in (np.float16, np.float32, np.float64, np.complex64):
        a = np.array([1.5, -2.0], dtype)
        for v in (2**63, -(2**70), 2**200):
            with np.errstate(over="ignore"):
                want = a * v
            got = arr(a) * v
            assert np.asarray(got).dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), want)
            c = np.array([True, False])
            np.testing.assert_array_equal(np.asarray(cg.where(arr(c), arr(a), v)), np.where(c, a, v).astype(dtype))
        with pytest.raises(OverflowError):
            arr(a) + 10**400
    with pytest.raises(OverflowError):
        cg.asarray([True, False]) + 2**70


@pytest.mark.parametrize("name", ["flip", "flip_none", "permute", "moveaxis", "broadcast_to", "ellipsis", "slice",
                                  "roll", "repeat", "diff", "clip", "positive", "pos", "real", "conj",
                                  "broadcast_arrays", "astype"])
def test_assigning_to_a_result_that_keeps_the_value_leaves_the_input(name):
    # x[...] = v on y = f(x) changed x where f left the value as it was (fuzz seed 2052 on a flip
    # of a length-1 axis), and only there: now never, the rule for every other result
    f = {"flip": lambda x: cg.flip(x, axis=0), "flip_none": lambda x: cg.flip(x, axis=()), "permute": lambda x: cg.permute_dims(x, (0, 1)),
         "moveaxis": lambda x: cg.moveaxis(x, 0, 0), "broadcast_to": lambda x: cg.broadcast_to(x, (1, 4)),
         "ellipsis": lambda x: x[...], "slice": lambda x: x[:, :], "roll": lambda x: cg.roll(x, 0),
         "repeat": lambda x: cg.repeat(x, 1, axis=1), "diff": lambda x: cg.diff(x, n=0),
         "clip": lambda x: cg.clip(x), "positive": cg.positive, "pos": lambda x: +x, "real": cg.real,
         "conj": cg.conj, "broadcast_arrays": lambda x: cg.broadcast_arrays(x)[0],
         "astype": lambda x: cg.astype(x, cg.float32)}[name]
    a = np.arange(4.0, dtype=np.float32).reshape(1, 4)
    x = arr(a)
    y = f(x)
    y[0, 1:] = -1.0
    np.testing.assert_array_equal(np.asarray(x), a)
    np.testing.assert_array_equal(np.asarray(y), [[0, -1, -1, -1]])


def test_axes_out_of_range_or_repeated_raise():
    # squeeze(axis=2) of a (1, 3) array wrapped 2 to 0 and squeezed it; tensordot wrapped axes and
    # contracted (2, 3) with (3, 2) as two 6-element vectors (55.0, where NumPy raises)
    x = cg.ones((1, 3))
    for f in (lambda: cg.squeeze(x, axis=2), lambda: cg.squeeze(x, axis=-3), lambda: cg.squeeze(x, axis=(0, -2)),
              lambda: cg.squeeze(cg.ones(()), axis=0), lambda: cg.tensordot(x, x.T, axes=([5], [0])),
              lambda: cg.tensordot(x, x.T, axes=([1, 1], [0, 0])), lambda: cg.tensordot(x, x.T, axes=([1], [0, 1])),
              lambda: cg.tensordot(x, x, axes=3), lambda: cg.tensordot(x, x, axes=-1)):
        with pytest.raises(cg.InvalidArgumentError):
            f()
    with pytest.raises(cg.ShapeError):
        cg.tensordot(cg.ones((2, 3)), cg.ones((3, 2)), axes=2)
    with pytest.raises(cg.ShapeError):
        cg.tensordot(x, x, axes=([0], [1]))
    assert cg.squeeze(x, axis=-2).shape == (3,)
    a, b = np.arange(24.0).reshape(2, 3, 4), np.arange(24.0).reshape(4, 3, 2)
    for axes in (0, 1, ([1, 2], [1, 0]), ([-1], [0]), ([2, 1], [0, 1])):
        np.testing.assert_allclose(np.asarray(cg.tensordot(arr(a), arr(b), axes=axes)), np.tensordot(a, b, axes=axes))


def test_clip_bounds_past_an_integer_dtype_and_roll_by_nothing():
    # NumPy's rules: a bound past the dtype's range on its own side clips nothing (clip(u8, -1, 1)
    # raised OverflowError); past it on the other side raises
    a = np.array([0, 5, 200], np.uint8)
    for lo, hi in ((-1, 300), (-1, 100), (3, 2**70), (None, 300), (-(2**70), None)):
        np.testing.assert_array_equal(np.asarray(cg.clip(arr(a), lo, hi)), np.clip(a, lo, hi))
    for lo, hi in ((300, 400), (-5, -1)):
        with pytest.raises(OverflowError):
            cg.clip(arr(a), lo, hi)
    np.testing.assert_array_equal(np.asarray(cg.roll(arr(a), (), axis=())), a)


def test_asarray_of_numpy_layouts_lists_of_arrays_and_ranges():
    # big-endian arrays raised BufferError (DLPack exports native byte order only); a list of
    # arrays raised "only one-element arrays convert"; range raised TypeError
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    for v in (a.astype(">f4"), a.astype(">i8"), a[::-1, ::-2], np.asfortranarray(a), np.broadcast_to(a[0], (2, 4))):
        x = cg.asarray(v)
        assert np.asarray(x).dtype == v.dtype.newbyteorder("=")
        np.testing.assert_array_equal(np.asarray(x), v)
    for v in (np.array([1, "a"], dtype=object), np.array(["2020-01-01"], dtype="datetime64[D]"),
              np.zeros(2, dtype=[("a", "f4")])):
        with pytest.raises(TypeError, match="no cgrad counterpart"):
            cg.asarray(v)
    x, i = cg.asarray([1.0, 2.0]), cg.asarray([3, 4])
    for obj, want in (([x, x], [[1.0, 2.0], [1.0, 2.0]]), ((x, i), [[1.0, 2.0], [3.0, 4.0]]),
                      ([[x], [x]], [[[1.0, 2.0]], [[1.0, 2.0]]]), ([x, [5.0, 6.0]], [[1.0, 2.0], [5.0, 6.0]])):
        got = cg.asarray(obj)
        assert got.dtype == cg.float32
        np.testing.assert_array_equal(np.asarray(got), want)
    assert cg.asarray([x, x], dtype=cg.float64).dtype == cg.float64
    np.testing.assert_array_equal(np.asarray(cg.asarray(range(2, 9, 3))), [2, 5, 8])


def test_numpy_operands_indices_and_protocols():
    # numpy_array + x raised (an odd "Concatenation" TypeError) and x + numpy_array gave a NumPy
    # array; x += numpy_array turned x into one; x == None compared with 0; NumPy index arrays and
    # lists raised IndexError; np.sum(x) failed on `out=`; round, divmod, format of 0-d arrays
    a = np.arange(4.0, dtype=np.float32)
    n = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    x = arr(a)
    for got, want in ((n + x, n + a), (x + n, a + n), (n < x, n < a), (n - x, n - a), (n.astype(np.float64) * x, n * a),
                      (np.int64(2) + x, 2 + a), (x ** np.float32(2), a ** 2), (cg.where(x > 1, x, n), np.where(a > 1, a, n))):
        assert isinstance(got, cg.Array)
        np.testing.assert_allclose(np.asarray(got), want)
    assert (n.astype(np.float64) * x).dtype == cg.float64
    assert isinstance(n @ x, cg.Array) and float(n @ x) == float(n @ a) == float(x @ n)
    y = arr(a)
    y += n.astype(np.float64)
    assert isinstance(y, cg.Array) and y.dtype == cg.float32
    np.testing.assert_array_equal(np.asarray(y), a + n)
    assert (x == None) is False and (x != None) is True  # noqa: E711
    with pytest.raises(TypeError):
        x + None
    m = np.arange(12.0).reshape(3, 4)
    xm = arr(m)
    for k in ([0, 2], ([0, 2], [1, 3]), [True, False, True], np.array([0, 2]), (np.array([0, 2]), 1),
              np.array([True, False, True]), [], [[0, 1], [1, 2]]):
        np.testing.assert_array_equal(np.asarray(xm[k]), m[k])
        z, w = arr(m), m.copy()
        z[k] = -1.0
        w[k] = -1.0
        np.testing.assert_array_equal(np.asarray(z), w)
    assert float(np.sum(x)) == 6.0 and float(np.max(x)) == 3.0 and np.sum(x, dtype=np.float64).dtype == cg.float64
    out = np.empty(())
    assert np.sum(x, out=out) is out and float(out) == 6.0  # NumPy's, on the values (NEP 18's fallback)
    with pytest.raises(TypeError, match="out must be a cgrad Array"):
        x.sum(out=np.empty(()))
    assert round(x[2] + 0.6) == 3 and round(x[2] + 0.567, 2) == 2.57 and f"{x[1]:.2f}" == "1.00"
    q, r = divmod(x, 3)
    np.testing.assert_array_equal(np.asarray(q), a // 3)
    np.testing.assert_array_equal(np.asarray(r), a % 3)
    assert x.astype(np.int32).dtype == cg.int32 and cg.zeros(2, dtype=np.float64).dtype == cg.float64


def test_lists_as_operands_membership_and_dtype_spellings_as_numpy():
    # `x == [0, 1, 2]` was Python's identity answer, False, silently; `x + [..]` raised; `v in x`
    # raised; x.dtype == np.float32 was False; dtype=float and x.astype(int) raised TypeError
    m = np.arange(6.0).reshape(2, 3)
    x = arr(m)
    for got, want in ((x == [0, 1, 2], m == [0, 1, 2]), ([0, 1, 2] == x, m == [0, 1, 2]),
                      (x != (0, 1, 2), m != (0, 1, 2)), (x < [[1], [4]], m < [[1], [4]]),
                      (x + [1.0, 2.0, 3.0], m + [1.0, 2.0, 3.0]), ([1.0, 2.0, 3.0] - x, [1.0, 2.0, 3.0] - m),
                      (x @ [1.0, 2.0, 3.0], m @ [1.0, 2.0, 3.0]), ([1.0, 2.0] @ x, [1.0, 2.0] @ m)):
        assert isinstance(got, cg.Array)
        np.testing.assert_array_equal(np.asarray(got), want)
    # a list is read as NumPy reads it: Python floats in float64, not rounded to float32 first
    assert np.asarray(arr(np.array([1.0])) + [0.1])[0] == 1.0 + 0.1
    assert (arr(np.array([1.0], np.float32)) + [0.1]).dtype == cg.float64  # NumPy's f32 + f64
    assert (arr(np.array([1.0], np.float32)) + 0.1).dtype == cg.float32  # a Python scalar stays weak
    y = arr(np.array([1, 2], np.int32))
    y += [3, 4]
    assert y.dtype == cg.int32 and np.asarray(y).tolist() == [4, 6]
    with pytest.raises(ValueError):
        x == [[1, 2], [3]]  # ragged, as NumPy 2
    assert 4.0 in x and 7 not in x and [0, 1, 2] in x and None not in x and "a" not in x
    assert x.dtype == np.float64 and x.dtype == "float64" and x.dtype == "f8" and x.dtype == float
    assert x.dtype != np.float32 and x.dtype != cg.float32 and x.dtype != "garbage" and x.dtype != 8
    assert np.dtype("float64") == x.dtype and cg.int64 == int and cg.bool == bool and cg.complex128 == complex
    for spelling, want in ((float, cg.float64), (int, cg.int64), (bool, cg.bool), (complex, cg.complex128),
                           ("f4", cg.float32), ("<i2", cg.int16), ("double", cg.float64), ("u1", cg.uint8)):
        assert cg.zeros(2, dtype=spelling).dtype == want and x.astype(spelling).dtype == want
    for bad in ("object", "U3", object, "garbage"):
        with pytest.raises(TypeError, match="no dtype"):
            cg.zeros(2, dtype=bad)


def test_one_index_array_among_slices_ints_none_and_ellipsis_matches_numpy():
    # x[:, [0, 2]] and the like raised "not supported yet"; 600 random keys against NumPy, the
    # array anywhere, beside ints (NumPy moves the index's dims first when they are separated)
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(600):
        shape = tuple(int(v) for v in rng.integers(1, 5, size=int(rng.integers(1, 5))))
        a = rng.standard_normal(shape)
        n_real = int(rng.integers(1, len(shape) + 1))
        ell = int(rng.integers(n_real + 1)) if rng.random() < 0.4 else -1
        slots = []
        for r in range(n_real):
            if r == ell:
                slots.append(Ellipsis)
            if rng.random() < 0.2:
                slots.append(None)
            slots.append(r)
        if ell == n_real:
            slots.append(Ellipsis)
        cut = slots.index(Ellipsis) if Ellipsis in slots else len(slots)
        reals = [s for s in slots if isinstance(s, int)]
        dim = {r: (r if slots.index(r) < cut else len(shape) - (n_real - r)) for r in reals}
        pick = reals[int(rng.integers(len(reals)))]
        key = []
        for s in slots:
            if not isinstance(s, int):
                key.append(s)
                continue
            n = shape[dim[s]]
            if s == pick:
                key.append(rng.integers(-n, n, size=tuple(int(v) for v in rng.integers(1, 3, size=int(rng.integers(0, 3))))))
            elif rng.random() < 0.3:
                key.append(int(rng.integers(-n, n)))
            else:
                b, e = sorted(int(v) for v in rng.integers(-n - 1, n + 2, size=2))
                key.append(slice(b, e, int(rng.choice([1, 2, -1]))))
        key = tuple(key)
        if not any(k is None or k is Ellipsis or isinstance(k, slice) for k in key):
            continue
        want = a[key]
        for k in (key, tuple(arr(v) if isinstance(v, np.ndarray) else v for v in key)):
            got = np.asarray(arr(a)[k])
            assert got.shape == want.shape and np.array_equal(got, want), (shape, key)
        checked += 1
    assert checked > 400
    m = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(arr(m)[:, [0, 2]]), m[:, [0, 2]])
    b = np.array([True, False, True, False])  # a mask beside slices raised until 2026-12-06
    np.testing.assert_array_equal(np.asarray(arr(m)[:, b]), m[:, b])


def _random_advanced_key(rng, shape):
    """A NumPy key with two or more integer arrays (broadcasting together) or a mask, among
    slices, ints, None and ...; None when the draw has no room for one."""
    nd = len(shape)
    common = tuple(int(v) for v in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    key, arrays = [], 0
    d = 0
    ell_at = int(rng.integers(nd + 1)) if rng.random() < 0.3 else -1
    while d < nd:
        if d == ell_at:
            key.append(Ellipsis)
            skip = int(rng.integers(0, nd - d + 1))
            d += skip
            ell_at = -1
            continue
        if rng.random() < 0.15:
            key.append(None)
        n = shape[d]
        r = rng.random()
        if r < 0.1 and d + 1 < nd:  # a 2-d mask over this dim and the next
            key.append(rng.random((n, shape[d + 1])) < 0.5)
            arrays += 1
            d += 2
            continue
        if r < 0.55:
            s = tuple(c if rng.random() < 0.7 else 1 for c in common)[int(rng.integers(0, len(common) + 1)):]
            key.append(rng.integers(-n, n, size=s))
            arrays += 1
        elif r < 0.7:
            key.append(int(rng.integers(-n, n)))
        else:
            b, e = sorted(int(v) for v in rng.integers(-n - 1, n + 2, size=2))
            key.append(slice(b, e, int(rng.choice([1, 2, -1]))))
        d += 1
    if ell_at == nd:
        key.append(Ellipsis)
    basic = any(k is None or k is Ellipsis or isinstance(k, slice) for k in key)
    return tuple(key) if arrays >= 2 and basic else None


def test_several_index_arrays_and_masks_among_slices_match_numpy():
    # two or more arrays (or a mask) beside slices, None or ... raised IndexError until 2026-12-06;
    # now NumPy's rules: broadcast together, their dims in place where adjacent, first otherwise
    rng = np.random.default_rng(8)
    checked = 0
    for _ in range(400):
        shape = tuple(int(v) for v in rng.integers(1, 5, size=int(rng.integers(2, 5))))
        key = _random_advanced_key(rng, shape)
        if key is None:
            continue
        a = rng.standard_normal(shape)
        try:
            want = a[key]
        except IndexError:  # masks' nonzero counts that do not broadcast with the other arrays
            continue
        for k in (key, tuple(arr(v) if isinstance(v, np.ndarray) else v for v in key)):
            got = np.asarray(arr(a)[k])
            assert got.shape == want.shape and np.array_equal(got, want), (shape, key)
        v = rng.standard_normal(want.shape)
        b = a.copy()
        b[key] = v  # repeated positions: the last value wins, in NumPy and here
        x = arr(a)
        x[key] = arr(v)
        np.testing.assert_array_equal(np.asarray(x), b, err_msg=str((shape, key)))
        checked += 1
    assert checked > 80
    # the gradient flows through the gather
    a = rng.standard_normal((3, 4, 5))
    w = arr(a).requires_grad_()
    (g,) = cg.grad(cg.sum(w[:, [0, 2, 2], [1, 3, 4]] * 2.0), [w])
    want = np.zeros_like(a)
    np.add.at(want, (slice(None), [0, 2, 2], [1, 3, 4]), 2.0)
    np.testing.assert_array_equal(np.asarray(g), want)


def test_boolean_scalar_indices_are_new_axes_as_numpy():
    # x[True] read x[1] and x[False] = v wrote x[0] until 2026-12-07 (a bool was an int); NumPy's
    # 0-d boolean index is a new axis of length 1 or 0, placed by the advanced-index rules
    a = np.arange(24.0).reshape(2, 3, 4)
    keys = [True, False, (True,), (True, 0), (0, True), (Ellipsis, True), (True, True), (slice(None), False),
            (None, True, 1), (0, slice(None), True), (True, [0, 1]), (np.True_, 1), (np.array(False), 0, ...),
            (1, True, slice(None), -1), (True, Ellipsis, True, 2)]
    for key in keys:
        np.testing.assert_array_equal(np.asarray(arr(a)[key]), a[key], err_msg=str(key))
        assert arr(a)[key].shape == a[key].shape, key
        v = np.arange(a[key].size, dtype=np.float64).reshape(a[key].shape) + 100
        b, x = a.copy(), arr(a)
        b[key] = v
        x[key] = arr(v)
        np.testing.assert_array_equal(np.asarray(x), b, err_msg=str(key))
    # a cgrad 0-d boolean beside other indices (it raised), a list with no numbers (it raised)
    np.testing.assert_array_equal(np.asarray(arr(a)[arr(np.array(True)), 0]), a[True, 0])
    assert arr(a)[[[], []]].shape == a[[[], []]].shape == (2, 0, 3, 4)
    # a cgrad mask of two dims beside a host index: the index is checked against the third axis
    m = np.array([[True, False, True], [False, True, False]])
    np.testing.assert_array_equal(np.asarray(arr(a)[arr(m), [3, 2, 0]]), a[m, [3, 2, 0]])


def _random_key(rng, shape):
    """A key of ints, slices (any step, bounds past the ends), None, one ..., integer arrays and
    lists, masks over one or two dims and 0-d booleans, for `shape`."""
    key, d, ell = [], 0, False
    while d < len(shape) and len(key) < len(shape) + 2:
        r, n = rng.random(), shape[d]
        if r < 0.55 or n == 0:
            lo, hi = -n - 2, n + 3
            bound = [None if rng.random() < 0.3 else int(rng.integers(lo, hi)) for _ in range(2)]
            step = [None, 1, 2, -1, -2, 3][int(rng.integers(0, 6))]
            key.append(int(rng.integers(-n, n)) if r < 0.25 and n else slice(*bound, step))
            d += 1
        elif r < 0.62:
            key.append(None)
        elif r < 0.67 and not ell:
            key.append(Ellipsis)
            ell, d = True, len(shape) - int(rng.integers(0, len(shape) - d + 1))
        elif r < 0.85:
            v = rng.integers(-n, n, size=int(rng.integers(0, 4)))
            key.append(v.tolist() if rng.random() < 0.3 else v if rng.random() < 0.5 else arr(v))
            d += 1
        elif r < 0.88:
            key.append([True, False, np.True_][int(rng.integers(0, 3))])
        else:
            m = 2 if d + 1 < len(shape) and rng.random() < 0.4 else 1
            mask = rng.random(shape[d:d + m]) < 0.5
            key.append(mask if rng.random() < 0.5 else arr(mask))
            d += m
    return tuple(key)


def test_random_keys_read_and_write_as_numpy():
    # 0-d booleans (read as ints), a cgrad mask beside a host index and lists with no numbers were
    # found this way (2026-12-07). Repeated positions in a write: NumPy keeps the last value, and
    # so does cgrad.
    checked = 0
    for seed in range(150):
        rng = np.random.default_rng(seed)
        shape = tuple(int(v) for v in rng.integers(0, 5, size=int(rng.integers(0, 5))))
        a = rng.standard_normal(shape)
        key = _random_key(rng, shape)
        host = tuple(np.asarray(k) if isinstance(k, cg.Array) else k for k in key)
        try:
            want = a[host]
        except IndexError:
            with pytest.raises(IndexError):
                arr(a)[key]
            continue
        got = arr(a)[key]
        assert got.shape == want.shape and np.array_equal(np.asarray(got), want), (seed, shape, key)
        v = rng.standard_normal(want.shape[int(rng.integers(0, want.ndim + 1)):])
        b, x = a.copy(), arr(a)
        b[host] = v
        x[key] = arr(v)
        np.testing.assert_array_equal(np.asarray(x), b, err_msg=str((seed, shape, key)))
        checked += 1
    assert checked > 70


def test_asarray_from_python():
    assert cg.asarray([[1, 2], [3, 4]]).dtype == cg.int64
    assert cg.asarray([1.0, 2]).dtype == cg.float32
    assert cg.asarray(True).dtype == cg.bool and cg.asarray(True).shape == ()
    np.testing.assert_array_equal(np.asarray(cg.asarray([[1, 2], [3, 4]], dtype=cg.float64)), [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="ragged"):
        cg.asarray([[1, 2], [3]])
    with pytest.raises(TypeError):
        cg.asarray(["a"])
    np.testing.assert_array_equal(np.asarray(cg.arange(2, 11, 3)), np.arange(2, 11, 3))
    np.testing.assert_array_equal(np.asarray(cg.eye(3, k=1)), np.eye(3, k=1))


@pytest.mark.parametrize("value", [np.float64(0.1), np.float32(1.5), np.float16(0.5), np.int32(-7),
                                   np.uint8(200), np.bool_(True), np.complex128(1 + 2j)])
def test_asarray_keeps_a_numpy_scalars_dtype(value):
    # np.float64 is a Python float: it used to become float32 (0.1 -> 0.10000000149), and an
    # np.float32 was refused ("no dtype for float32 values")
    x = cg.asarray(value)
    assert x.shape == () and np.asarray(x).dtype == np.asarray(value).dtype
    assert np.asarray(x) == value
    wide = cg.complex128 if np.iscomplexobj(value) else cg.float64
    assert cg.asarray(value, dtype=wide).dtype == wide
    with pytest.raises(ValueError, match="copy=False"):
        cg.asarray(value, copy=False)


def test_asarray_of_a_list_of_numpy_scalars_converts_as_numpy_does():
    assert cg.asarray([np.float64(0.1), 2.0]).dtype == cg.float64
    assert cg.asarray([[np.int8(1), np.int8(2)]]).dtype == cg.int8
    assert np.asarray(cg.asarray([np.float64(0.1)]))[0] == 0.1


def test_eval_stats_and_fusion():
    x, y = arr(A), arr(B)
    z = cg.exp(x * y + 1) - y
    w = cg.sum(z)
    cg.reset_stats()
    cg.eval(z, w)
    s = cg.stats()
    assert z.is_evaluated() and w.is_evaluated()
    assert s["kernels_launched"] >= 1
    cg.reset_stats()
    cg.eval(z)
    assert cg.stats()["kernels_launched"] == 0  # evaluated already


def test_compile_traces_once_and_replays():
    @cg.compile
    def f(a, b):
        return cg.exp(a) * b + 1, a - b

    x, y = arr(A), arr(A * 2)
    cg.reset_stats()
    r1, d1 = f(x, y)
    r2, d2 = f(arr(A + 1), y)
    # The interpreter plans nothing, so there every call traces (docs/plans.md).
    if os.environ.get("CGRAD_BACKEND") != "interpreter":
        assert cg.stats()["traces"] == 1
        assert f.signatures == 1
    np.testing.assert_allclose(np.asarray(r2), np.exp(A + 1) * (A * 2) + 1, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(d1), A - A * 2)
    with pytest.raises(TypeError):
        f(1.0, y)  # a number is part of the signature: exp(1.0) of a Python float raises


def test_compile_takes_arrays_by_name_and_draws_fresh_random_numbers():
    # f(x=a) raised "incompatible function arguments"; cg.rand inside fn gave one draw forever
    f = cg.compile(lambda x, y: x * 2 + y)
    a, b = arr(A), arr(A * 3)
    for got in (f(a, b), f(x=a, y=b), f(a, y=b), f(y=b, x=a)):
        np.testing.assert_allclose(np.asarray(got), A * 2 + A * 3)
    with pytest.raises(TypeError):
        f(a, b, y=b)
    np.testing.assert_allclose(np.asarray(cg.compile(lambda x, *, k: x * k)(a, k=b)), A * A * 3)
    r = cg.compile(lambda x: x + cg.rand(x.shape))
    z = cg.zeros((64,))
    assert not np.array_equal(np.asarray(r(z)), np.asarray(r(z)))


def test_compile_takes_other_values_as_part_of_the_signature():
    # Until 2026-12-07 every argument had to be an Array: f(x, 2), f(x, axis=1) raised TypeError.
    calls = []

    def scale(x, s, axis=None):
        calls.append(s)
        return x * s if axis is None else cg.sum(x * s, axis=axis)

    f = cg.compile(scale)
    x = arr(A)
    plan = os.environ.get("CGRAD_BACKEND") != "interpreter"
    for s in (2, 3, 2, 2.0, True, -0.0, 0.0, float("nan"), float("nan")):
        want = A * np.float32(s)
        got = np.asarray(f(x, s))
        np.testing.assert_allclose(got, want, rtol=1e-6)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    if plan:  # one trace per value and type: 2 and 2.0 and True differ, and so do -0.0 and 0.0
        assert calls[:3] == [2, 3, 2.0] and len(calls) == 7 and f.signatures == 7
    np.testing.assert_allclose(np.asarray(f(x, 2, axis=1)), np.sum(A * 2, axis=1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(f(x, s=2, axis=0)), np.sum(A * 2, axis=0), rtol=1e-6)
    with pytest.raises(TypeError, match="neither an Array nor hashable"):
        f(x, [set()])
    # NumPy's scalars by their bits too (np.float32(-0.0) == 0.0; a NaN key never matched itself)
    for s in (np.float32(-0.0), np.float32(0.0), np.float64("nan"), np.float64("nan")):
        np.testing.assert_array_equal(np.signbit(np.asarray(f(x, s))), np.signbit(A * s))
    # a value that changes at every call keeps at most 64 signatures, with one warning
    g = cg.compile(lambda x, s: x * s)
    with pytest.warns(RuntimeWarning, match="0-d Arrays"):
        for s in range(70):
            np.testing.assert_array_equal(np.asarray(g(x, s)), A * s)
    if plan:
        assert g.signatures == 64


def test_compile_takes_arrays_in_structures_and_returns_them():
    Pair = collections.namedtuple("Pair", "w b")
    f = cg.compile(lambda p, xs: {"y": [p.w * xs[0] + p.b, None], "n": (xs[1]["k"],)})
    p, a = Pair(arr(A), arr(A * 2)), arr(A + 1)
    got = f(p, [a, {"k": np.ones(3)}])  # a NumPy array is an input like an Array
    assert set(got) == {"y", "n"} and got["y"][1] is None and isinstance(got["y"], list)
    np.testing.assert_allclose(np.asarray(got["y"][0]), A * (A + 1) + A * 2, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(got["n"][0]), np.ones(3))
    again = f(Pair(arr(A * 3), arr(A)), [a, {"k": np.zeros(3)}])
    np.testing.assert_allclose(np.asarray(again["y"][0]), A * 3 * (A + 1) + A, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(again["n"][0]), np.zeros(3))
    h = cg.compile(lambda p: Pair(p.b, p.w))  # a named tuple comes back as one
    assert type(h(p)) is Pair and type(h(Pair(arr(A), arr(A)))) is Pair
    # the result's structure is kept per input signature: the 1-D call's single Array came back as
    # the 2-D call's pair once both were traced
    g = cg.compile(lambda x: x if x.ndim == 1 else (x, x + 1))
    v, m = arr(np.arange(3.0)), arr(A)
    for _ in range(2):
        assert isinstance(g(v), cg.Array) and isinstance(g(m), tuple)


def test_compile_decorates_methods():
    # self was not bound until 2026-12-07 ("missing 1 required positional argument")
    class Scale:
        def __init__(self, k):
            self.w = arr(np.full(3, k))

        @cg.compile
        def __call__(self, x):
            return x * self.w

        @cg.compile
        def decay(self, r):
            self.w *= r  # in place on a captured Array: repeated at every call

    a, b, v = Scale(2.0), Scale(3.0), arr(np.arange(3.0))
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(a(v)), 2 * np.arange(3.0))
        np.testing.assert_array_equal(np.asarray(b(v)), 3 * np.arange(3.0))
    assert Scale.__call__.signatures == 2  # one per instance (self is a static value)
    a.decay(0.5)
    a.decay(0.5)
    np.testing.assert_array_equal(np.asarray(a.w), np.full(3, 0.5))
    np.testing.assert_array_equal(np.asarray(a(v)), 0.5 * np.arange(3.0))
    assert type(Scale.__dict__["decay"]).__name__ == "CompiledFunction"


def test_compile_takes_and_returns_none():
    # None given beside Arrays, returned alone or beside an Array: try_cast<Tensor*> read None as a
    # null Array, and each of these crashed the interpreter (until 2026-12-07)
    f = cg.compile(lambda x, y: x + 1 if y is None else x + y)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(f(arr(A), None)), A + 1)
    assert f.signatures == 1
    nothing = cg.compile(lambda x: None)
    assert nothing(arr(A)) is None and nothing(arr(A)) is None
    pair = cg.compile(lambda x: (x * 2, None))
    for _ in range(2):
        got = pair(arr(A))
        assert type(got) is tuple and got[1] is None
        np.testing.assert_array_equal(np.asarray(got[0]), A * 2)


def test_none_beside_arrays_is_no_array():
    x = arr(A)
    with pytest.raises(TypeError, match="unsupported operand"):
        x @ None
    with pytest.raises(TypeError, match="unsupported operand"):
        None @ x
    with pytest.raises(TypeError, match="eval: arguments must be cgrad arrays, got NoneType"):
        cg.eval(x, None)
    assert (cg.Device.cpu() == None) is False and cg.Device.cpu() != None  # noqa: E711
    assert x.device == cg.Device.cpu()


def test_non_arrays_in_the_standards_array_parameters_raise_a_clear_type_error():
    # an AttributeError ("'list' object has no attribute 'ndim'") or a binding's TypeError naming a
    # private function (`_linalg_det()`) until 2026-12-07
    calls = [(lambda: cg.squeeze(np.ones((1, 3))), "squeeze: x must be a cgrad Array, got ndarray"),
             (lambda: cg.linalg.det([[1.0, 2.0], [3.0, 4.0]]), "det: x must be a cgrad Array, got list"),
             (lambda: cg.sum([1, 2]), "sum: x must be a cgrad Array, got list"),
             (lambda: cg.vecdot([1.0, 2.0], arr(np.ones(2))), "vecdot: x1 must be a cgrad Array, got list"),
             (lambda: cg.concat([arr(A), [1.0]]), "concat: arrays must be cgrad Arrays, got a list among them"),
             (lambda: cg.zeros_like((1, 2)), "zeros_like: x must be a cgrad Array, got tuple"),
             (lambda: cg.linalg.inv(np.eye(2)), "inv: x must be a cgrad Array, got ndarray")]
    for call, message in calls:
        with pytest.raises(TypeError, match=re.escape(message)):
            call()
    # the wrappers keep the functions' signatures, one wrapper per function in every namespace
    assert str(inspect.signature(cg.squeeze)) == "(x, /, axis=None)"
    assert cg.linalg.vecdot is cg.vecdot and cg.lib.stride_tricks.broadcast_to is cg.broadcast_to
    # errors of Arrays stay what they were
    with pytest.raises(ValueError, match="squeeze: axis 0 has size 2"):
        cg.squeeze(arr(A), axis=0)
    np.testing.assert_array_equal(np.asarray(cg.cumsum([1, 2])), [1, 3])  # NumPy's functions take lists


def test_bad_axes_and_callback_results_raise_type_error():
    # std::bad_cast (a RuntimeError) until 2026-12-07
    x = arr(A)
    for bad in ("a", x, 2.5, (0, "a"), 2**70):
        with pytest.raises(TypeError, match="axis must be an int or a tuple of ints"):
            x.mean(bad)
        with pytest.raises(TypeError, match="axis must be an int or a tuple of ints"):
            cg.all(x, axis=bad)
    # what NumPy takes as an axis: its integers and 0-d integer arrays (__index__)
    np.testing.assert_allclose(np.asarray(x.sum(np.int64(1))), A.sum(1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(cg.max(x, axis=(np.int32(0), cg.asarray(1)))), A.max())
    w = cg.ones(3, dtype=cg.float64)
    for bad in (None, 3.0, np.ones(())):
        with pytest.raises(TypeError, match="minimize_cg: the energy must return a cgrad Array, got"):
            cg.optim.minimize_cg(lambda v, bad=bad: bad, w)


def test_compile_repeats_in_place_updates_of_its_arguments():
    # x -= y inside a compiled function changed the caller's x neither at the trace nor at
    # replays (the trace's Arrays were new handles); the same function run eagerly changes it.
    def step(x, y, s=1):
        x -= y * s
        y *= 2
        return x + y

    f = cg.compile(step)
    a, b = arr(A), arr(A)
    an, bn = A.copy(), A.copy()
    for s in (1, 1, 1, 3, 3):
        got = f(a, b, s) if s != 1 else f(a, b)
        want = step(an, bn, s)
        for g, w in ((got, want), (a, an), (b, bn)):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)

    # an Array attribute of an object argument (a running mean), updated twice per call; the
    # second update rebound the attribute away from what the plan repeats, which stayed at 1.5
    class Stats:
        def __init__(self):
            self.mean = arr(np.zeros(3, np.float32))

    @cg.compile
    def track(x, st):
        st.mean *= 0.5
        st.mean += x
        h = x * 2
        h += 1  # a value built inside: rebound, as outside compile
        return h

    st, x, want = Stats(), arr(np.ones(3, np.float32)), 0.0
    for _ in range(4):
        want = want * 0.5 + 1
        np.testing.assert_array_equal(np.asarray(track(x, st)), [3, 3, 3])
        np.testing.assert_array_equal(np.asarray(st.mean), [want] * 3)


def test_numpys_ufunc_at_writes_the_cgrad_array_not_its_memory():
    # NumPy 2.4's ufunc.at ignores the read-only flag: np.add.at(cg.zeros(5), [0, 0, 2], 1) wrote
    # through the exported view into memory every handle shares (all five elements, which zeros
    # keep as one) until 2026-12-07. Now cgrad's: unbuffered, as NumPy's, the Array takes the result.
    cases = [(np.add, np.zeros(5), [0, 0, 2], 1.0), (np.subtract, np.zeros(5), [0, 0, 2], [1.0, 2.0, 3.0]),
             (np.add, np.zeros((2, 3)), (slice(None), [0, 0, 2]), 1), (np.add, np.zeros((2, 3)), [1, 1], A),
             (np.add, np.zeros(3, np.int64), [0, 1], 1.7), (np.multiply, np.ones(3), [0, 0, 1], 2.0),
             (np.maximum, np.zeros(3), [0, 0, 1], [5.0, 3.0, -1.0]), (np.add, np.zeros(3, complex), [0, 2], 1j)]
    for ufunc, a, idx, b in cases:
        x = arr(a.copy())  # (arr(a) would read a's memory, which NumPy's at below writes)
        alias, before = x, x * 1
        assert ufunc.at(x, idx, b) is None
        ufunc.at(a, idx, b)
        np.testing.assert_array_equal(np.asarray(alias), a, err_msg=str((ufunc, idx)))
        np.testing.assert_array_equal(np.asarray(before), 1 if ufunc is np.multiply else 0)
    x = arr(np.ones(3))
    np.negative.at(x, [0, 0, 2])  # a unary ufunc: twice at 0
    np.testing.assert_array_equal(np.asarray(x), [1.0, 1.0, -1.0])
    with pytest.raises(IndexError):
        np.add.at(arr(np.zeros(3)), [5], 1.0)
    w = arr(np.zeros(3)).requires_grad_()  # add.at is a lazy scatter_add: gradients flow
    y = w * 1
    np.add.at(y, [0, 0], 1.0)
    (g,) = cg.grad(cg.sum(y * arr(np.array([1.0, 2.0, 3.0]))), [w])
    np.testing.assert_array_equal(np.asarray(g), [1.0, 2.0, 3.0])


def test_numpys_out_is_written_and_returned():
    # out= raised TypeError until 2026-12-07 ("arrays are values"); NumPy's rules now
    a = arr(A)
    alias = c = arr(np.zeros_like(A))
    assert cg.add(a, 1, out=c) is c and alias is c
    np.testing.assert_array_equal(np.asarray(alias), A + 1)
    before = c * 1  # computed from c before the write: keeps its value
    assert cg.exp(a, out=(c,)) is c  # a tuple of one, as NumPy's ufuncs pass it
    np.testing.assert_allclose(np.asarray(c), np.exp(A), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(before), A + 1)
    wide = arr(np.zeros((4, 2, 3), np.float64))  # broadcast to out's shape, cast same_kind (f32 -> f64)
    cg.multiply(a, 2, out=wide)
    np.testing.assert_array_equal(np.asarray(wide), np.broadcast_to(A * 2, (4, 2, 3)))
    with pytest.raises(TypeError, match="same_kind"):
        cg.add(a, 1, out=arr(np.zeros((2, 3), np.int64)))
    with pytest.raises(ValueError, match="non-broadcastable"):
        cg.add(a, 1, out=arr(np.zeros(3, np.float32)))
    s = arr(np.zeros(3, np.int64))  # a reduction: out's exact shape, any cast
    assert cg.sum(a, axis=0, out=s) is s and a.max(0, s) is s
    np.testing.assert_array_equal(np.asarray(s), A.max(0).astype(np.int64))
    with pytest.raises(ValueError, match="shape"):
        cg.sum(a, axis=1, out=s)
    with pytest.raises(TypeError, match="cgrad Array"):
        cg.sum(a, out=np.zeros(()))
    m = arr(np.zeros((2, 2), np.float32))
    assert cg.matmul(a, a.mT, out=m) is m and cg.cumsum(a, 1, None, arr(np.zeros_like(A))) is not None
    np.testing.assert_allclose(np.asarray(m), A @ A.T, rtol=1e-6)
    for f in (lambda o: np.dot(a, a.mT, out=o), lambda o: np.einsum("ij,kj->ik", a, a, out=o), lambda o: a.dot(a.mT, o)):
        o = arr(np.zeros((2, 2), np.float32))
        assert f(o) is o
        np.testing.assert_allclose(np.asarray(o), A @ A.T, rtol=1e-6)
    # NumPy's ufuncs with a cgrad out are cgrad's; with a NumPy out, NumPy's on the values
    assert np.add(a, a, out=c) is c and np.add.reduce(a, axis=0, out=arr(np.zeros(3, np.float32))) is not None
    np.testing.assert_array_equal(np.asarray(c), A + A)
    n = np.zeros((2, 3), np.float32)
    assert np.add(a, 1, out=n) is n and np.array_equal(n, A + 1)

    # inside a compiled function, out= on an argument is repeated at every replay
    @cg.compile
    def step(x, acc):
        cg.add(acc, x, out=acc)
        return acc * 1

    acc = arr(np.zeros_like(A))
    for k in range(1, 4):
        np.testing.assert_array_equal(np.asarray(step(a, acc)), A * k)
        np.testing.assert_array_equal(np.asarray(acc), A * k)


def test_compile_error_in_python_function_propagates():
    @cg.compile
    def bad(a):
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        bad(arr(A))
    # a result that is not Arrays raised std::bad_cast (a NumPy array, a number)
    for f in (lambda a: np.zeros(2), lambda a: 3.0, lambda a: (a, np.ones(2))):
        with pytest.raises(TypeError, match="must return a cgrad.Array"):
            cg.compile(f)(arr(A))


def test_backward_and_functional_grad():
    w = arr(np.array([1.0, 2.0, 3.0], np.float64)).requires_grad_()
    loss = cg.sum(w * w * 3.0)
    loss.backward()
    np.testing.assert_allclose(np.asarray(w.grad), [6.0, 12.0, 18.0])
    (g,) = cg.grad(cg.sum(cg.sin(w)), [w])
    np.testing.assert_allclose(np.asarray(g), np.cos([1.0, 2.0, 3.0]))
    with cg.no_grad():
        assert not cg.is_grad_enabled()
        assert not (w * 2).requires_grad
    assert cg.is_grad_enabled()


def test_sgd_and_adam_minimize_a_quadratic():
    for make in (lambda p: cg.optim.SGD(p, lr=0.1, momentum=0.5), lambda p: cg.optim.Adam(p, lr=0.1)):
        x = arr(np.array([3.0, -2.0], np.float32)).requires_grad_()
        opt = make([x])
        for _ in range(200):
            opt.zero_grad()
            loss = cg.sum((x - 1.0) * (x - 1.0))
            loss.backward()
            opt.step([loss])
        np.testing.assert_allclose(np.asarray(x), [1.0, 1.0], atol=1e-2)


def test_optimizers_take_torch_optims_spelling():
    # parameter groups, a learning-rate schedule, a closure, one Array or a generator, PyTorch's
    # defaults and betas; against torch.optim's formulas written with NumPy (the same within
    # 1e-15 as torch 2.15 itself, measured 2026-12-07)
    rng = np.random.default_rng(3)
    X, Y, w0, b0 = rng.standard_normal((8, 5)), rng.standard_normal((8, 3)), rng.standard_normal((5, 3)), \
        rng.standard_normal(3)
    w, b = arr(w0).requires_grad_(), arr(b0).requires_grad_()
    opt = cg.optim.SGD([{"params": w}, {"params": (p for p in [b]), "lr": 0.05, "momentum": 0.5,
                                         "dampening": 0.2}], lr=0.01, momentum=0.9, weight_decay=0.1)
    assert opt.param_groups[1]["weight_decay"] == 0.1 and opt.param_groups[0]["dampening"] == 0.0
    W, B, bw, bb = w0.copy(), b0.copy(), np.zeros_like(w0), np.zeros_like(b0)

    def closure():
        opt.zero_grad()
        loss = cg.sum((cg.asarray(X) @ w + b - cg.asarray(Y)) ** 2)
        loss.backward()
        return loss

    for t in range(5):
        for g in opt.param_groups:
            g["lr"] *= 0.8  # a schedule: nothing is planned again
        loss = opt.step(closure)
        d = X @ W + B - Y
        np.testing.assert_allclose(float(loss), np.sum(d * d), rtol=1e-12)
        gw, gb = 2 * X.T @ d + 0.1 * W, 2 * d.sum(0) + 0.1 * B
        bw = gw if t == 0 else 0.9 * bw + gw
        bb = gb if t == 0 else 0.5 * bb + 0.8 * gb
        W, B = W - 0.01 * 0.8 ** (t + 1) * bw, B - 0.05 * 0.8 ** (t + 1) * bb
        np.testing.assert_allclose(np.asarray(w), W, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(np.asarray(b), B, rtol=1e-12, atol=1e-14)
    v = arr(np.array([1.0, -2.0])).requires_grad_()
    adam = cg.optim.Adam(v, betas=(0.5, 0.9))  # one Array; lr 1e-3, PyTorch's default
    assert adam.lr == 1e-3 and adam.param_groups[0]["betas"] == (0.5, 0.9)
    cg.sum(v * v).backward()
    adam.step()
    np.testing.assert_allclose(np.asarray(v), [1.0 - 1e-3, -2.0 + 1e-3], rtol=1e-9)  # the first step moves by lr
    with pytest.raises(ValueError, match="more than one"):
        cg.optim.SGD([{"params": [w]}, {"params": [w]}])
    with pytest.raises(cg.InvalidArgumentError, match="same tensor"):
        cg.optim.SGD([w, w])
    with pytest.raises(TypeError, match="pair"):
        cg.optim.Adam([w], betas=0.9)
    opt.param_groups[0]["momentum"] = 0.1
    with pytest.raises(ValueError, match="momentum cannot change"):
        opt.step()


def test_optimizer_state_dict_resumes_training_exactly():
    # PyTorch's checkpoint form (state by parameter index, groups with indices), picklable; a run
    # resumed from it matches the run that went on (exactly: the same kernels on the same values)
    import pickle

    rng = np.random.default_rng(5)
    X, Y, w0 = rng.standard_normal((8, 5)), rng.standard_normal((8, 3)), rng.standard_normal((5, 3))

    def train(opt, w, n):
        for _ in range(n):
            opt.zero_grad()
            loss = cg.sum((arr(X) @ w - arr(Y)) ** 2)
            loss.backward()
            opt.step(loss)

    for make in (lambda w: cg.optim.Adam(w, lr=0.05), lambda w: cg.optim.SGD([w], lr=0.01, momentum=0.9, dampening=0.2)):
        w = arr(w0).requires_grad_()
        opt = make(w)
        train(opt, w, 3)
        sd = pickle.loads(pickle.dumps(opt.state_dict()))
        assert sd["param_groups"][0]["params"] == [0] and sd["state"][0]["step"] == 3
        at3 = np.asarray(w).copy()
        train(opt, w, 2)
        v = arr(at3).requires_grad_()
        resumed = make(v)
        resumed.load_state_dict(sd)
        train(resumed, v, 2)
        np.testing.assert_array_equal(np.asarray(v), np.asarray(w))
    bad = dict(sd, state={0: {"step": 1, "momentum_buffer": np.zeros(2)}})
    fresh = cg.optim.SGD([arr(w0).requires_grad_()], lr=0.01, momentum=0.9, dampening=0.2)
    with pytest.raises(ValueError, match="state has"):
        fresh.load_state_dict(bad)
    kept = fresh.state_dict()["state"][0]  # unchanged
    assert kept["step"] == 0 and not np.asarray(kept["momentum_buffer"]).any()
    with pytest.raises(ValueError, match="momentum"):
        cg.optim.SGD([arr(w0).requires_grad_()], lr=0.01, momentum=0.5).load_state_dict(sd)


def test_in_place_update_of_a_leaf_under_no_grad_keeps_it_the_leaf():
    # PyTorch's hand-written SGD step: `w -= lr * w.grad` under no_grad updates the leaf itself
    # (until 2026-12-07 w became a new tensor outside the graph and the next backward() raised)
    rng = np.random.default_rng(0)
    X, Y, w0 = rng.standard_normal((8, 3)), rng.standard_normal(8), rng.standard_normal(3)
    w = arr(w0)
    w.requires_grad = True
    alias = w
    want = w0.copy()
    for _ in range(3):
        loss = cg.sum((arr(X) @ w - arr(Y)) ** 2)
        loss.backward()
        np.testing.assert_allclose(np.asarray(w.grad), 2 * X.T @ (X @ want - Y), rtol=1e-12)
        with cg.no_grad():
            w -= 0.01 * w.grad
        w.grad.zero_()  # PyTorch's: the accumulated gradient reset in place
        np.testing.assert_array_equal(np.asarray(w.grad), 0)
        w.grad = None  # PyTorch's spelling of clear_grad()
        assert w.grad is None
        want -= 0.01 * 2 * X.T @ (X @ want - Y)
        assert w is alias and w.requires_grad and w.is_leaf
        np.testing.assert_allclose(np.asarray(w), want, rtol=1e-12)
    with pytest.raises(TypeError):
        w.grad = arr(np.ones(3))
    with pytest.raises(cg.InvalidOperationError):  # recording: PyTorch's error, w left as it was
        w += 1
    np.testing.assert_allclose(np.asarray(w), want, rtol=1e-12)
    h = w * 2  # not a leaf: `h += 1` is a new value computed from it, as before
    h += 1
    assert not h.is_leaf and h.requires_grad and cg.ones(3).is_leaf


def test_backward_takes_pytorchs_gradient_argument():
    # y.backward(v): the vector-Jacobian product, as PyTorch's (a TypeError until 2026-12-07)
    v, xv = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    x = arr(xv)
    x.requires_grad = True
    (x * x).backward(arr(v))
    np.testing.assert_allclose(np.asarray(x.grad), 2 * xv * v)
    z, vz = np.array([1 + 2j, 3 - 1j]), np.array([0.5 - 1j, 2 + 0.5j])
    c = arr(z)
    c.requires_grad = True
    (c * c * (1 + 1j)).backward(arr(vz))  # PyTorch's value: conj(dy/dz) * v
    np.testing.assert_allclose(np.asarray(c.grad), np.conj(2 * z * (1 + 1j)) * vz)
    x.clear_grad()
    cg.sum(x * x).backward(retain_graph=True)  # moot: graphs live while arrays reach them
    np.testing.assert_allclose(np.asarray(x.grad), 2 * xv)
    with pytest.raises(ValueError):
        (x * x).backward(arr(np.ones(2)))
    with pytest.raises(TypeError):
        cg.sum(x).backward(create_graph=True)


def test_no_grad_is_a_decorator_too():
    # PyTorch's @no_grad() and @no_grad (since 2026-12-07: TypeError)
    x = arr(np.array([1.0, 2.0]))
    x.requires_grad = True

    @cg.no_grad()
    def f(v):
        return v * 2

    @cg.no_grad
    def g(v):
        return v * 2

    assert not f(x).requires_grad and not g(x).requires_grad and f.__name__ == "f"
    assert cg.is_grad_enabled() and (x * 2).requires_grad
    guard = cg.no_grad()
    with guard:
        with guard:  # one object entered twice, as PyTorch allows
            pass
        assert not cg.is_grad_enabled()
    assert cg.is_grad_enabled()


def test_grad_of_one_array_and_grad_outputs():
    # grad(loss, x) with x one Array read x as the sequence of its elements, arrays the loss does not
    # depend on, and returned zeros (until 2026-12-07); grad_outputs is PyTorch's
    x = arr(np.array([1.0, 2.0]))
    x.requires_grad = True
    y = x * x
    (g,) = cg.grad(cg.sum(y), x)
    np.testing.assert_array_equal(np.asarray(g), [2.0, 4.0])
    assert cg.to_dot(y) == cg.to_dot([y])  # one array, not the sequence of its elements
    (g,) = cg.grad(y, (x,), grad_outputs=arr(np.array([1.0, -1.0])))
    np.testing.assert_array_equal(np.asarray(g), [2.0, -4.0])
    with pytest.raises(ValueError):
        cg.grad(y, [x], grad_outputs=arr(np.ones(3)))


def test_iterating_a_0d_array_raises():
    # NumPy's and PyTorch's TypeError; Python's fallback iterated x[0] until IndexError, so list(x)
    # of a 0-d array was [] (until 2026-12-07)
    with pytest.raises(TypeError):
        list(arr(np.array(1.0)))
    assert [float(v) for v in arr(np.array([1.0, 2.0]))] == [1.0, 2.0]
    w = arr(np.array([1.0, 2.0]))
    w.requires_grad = True
    opt = cg.optim.SGD([w], 0.5)
    loss = cg.sum(w * w)
    loss.backward()
    opt.step(loss)  # one array, as step([loss])
    np.testing.assert_array_equal(np.asarray(w), [0.0, 0.0])


def test_cgrad_errors_become_python_exceptions_with_the_message():
    x = arr(A)
    with pytest.raises(cg.ShapeError, match=r"\(2, 3\) and \(2, 2\)") as e:
        x + arr(np.zeros((2, 2), np.float32))
    assert isinstance(e.value, ValueError) and isinstance(e.value, cg.Error)
    with pytest.raises(cg.DTypeError):
        cg.max(arr([1j, 2]))  # (the standard orders no complex numbers)
    with pytest.raises(cg.Error):
        x.reshape(4, 2)
    with pytest.raises(cg.InvalidArgumentError):
        cg.sum(x, axis=5)
    np.testing.assert_array_equal(np.asarray(x), A)  # untouched by the failed ops
    with pytest.raises(TypeError):
        x + "a"


INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("name", INT_DTYPES)
def test_integer_dtypes_match_numpy(name):
    d, nd = getattr(cg, name), np.dtype(name)
    info = cg.iinfo(d)
    assert (info.bits, info.min, info.max) == (nd.itemsize * 8, np.iinfo(nd).min, np.iinfo(nd).max)
    edges = [info.min, info.min + 1, 0, 1, info.max - 1, info.max]
    x = cg.asarray(edges, dtype=d)
    assert x.dtype == d and x.tolist() == edges and int(x[5]) == info.max  # exact up to 2^64 - 1
    a = np.array(edges, dtype=nd)
    with np.errstate(over="ignore"):
        for got, want in [(x + x, a + a), (x * x, a * a), (x - 1, a - nd.type(1)), (x & 6, a & nd.type(6)),
                          (x >> 1, a >> nd.type(1)), (x // 3, a // nd.type(3)), (x % 3, a % nd.type(3))]:
            assert got.dtype == d  # a Python int never widens; wraps like NumPy
            np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(OverflowError):
        cg.asarray([info.max + 1], dtype=d)


def test_promotion_follows_the_cpp_core():
    pairs = [(cg.int8, cg.uint8, cg.int16), (cg.int16, cg.uint32, cg.int64), (cg.uint8, cg.uint16, cg.uint16),
             (cg.int64, cg.uint64, cg.float64), (cg.int8, cg.float16, cg.float16),
             (cg.float16, cg.bfloat16, cg.float32), (cg.bfloat16, cg.float64, cg.float64), (cg.bool, cg.uint8, cg.uint8)]
    for a, b, want in pairs:
        assert cg.result_type(a, b) == want and cg.result_type(b, a) == want
        # the dtype of an actual operation agrees
        assert (cg.zeros(2, dtype=a) + cg.zeros(2, dtype=b)).dtype == want
    assert cg.can_cast(cg.uint8, cg.int16) and not cg.can_cast(cg.int16, cg.uint16)
    assert not cg.can_cast(cg.int64, cg.uint64) and not cg.can_cast(cg.float16, cg.bfloat16)
    assert cg.can_cast(cg.float16, cg.float32) and not cg.can_cast(cg.int8, cg.float16)


def test_zero_d_arrays_promote_like_any_array():
    # The standard's table, whatever the ranks (the C++ API keeps PyTorch's rule: docs/python.md)
    x = cg.asarray([7.0, -7.5, 3.0], dtype=cg.float32)
    y = cg.asarray(2.0, dtype=cg.float64)
    for got in (x // y, cg.floor_divide(x, y), y // x, x + y, cg.multiply(y, x), cg.where(x > 0, x, y)):
        assert got.dtype == cg.float64 and got.shape == (3,)
    np.testing.assert_array_equal(np.asarray(x // y), np.array([7.0, -7.5, 3.0]) // 2.0)
    i = cg.asarray([1, 2], dtype=cg.int8)
    assert (i + cg.asarray(3, dtype=cg.int64)).dtype == cg.int64
    assert (cg.asarray(1.0, dtype=cg.float32) + cg.asarray(2.0, dtype=cg.float64)).shape == ()
    assert (x + cg.asarray(2.0, dtype=cg.float32)).dtype == cg.float32  # same dtype: unchanged
    z = cg.zeros((0, 3), dtype=cg.float32) + y  # an empty array keeps its shape
    assert z.shape == (0, 3) and z.dtype == cg.float64


def test_in_place_keeps_the_arrays_dtype_and_shape():
    x = cg.asarray([1, 2, 3], dtype=cg.int32)
    x += cg.asarray(1)  # int64 0-d: the result is cast back, as NumPy's same-kind rule
    assert x.dtype == cg.int32 and x.tolist() == [2, 3, 4]
    f = cg.asarray([1.0, 2.0], dtype=cg.float32)
    f *= cg.asarray([0.5, 4.0], dtype=cg.float64)
    assert f.dtype == cg.float32 and f.tolist() == [0.5, 8.0]
    before = x
    for bad in (lambda: x.__itruediv__(2), lambda: x.__iadd__(cg.asarray(0.5)),
                lambda: x.__imul__(cg.ones((2, 3), dtype=cg.int32))):
        with pytest.raises((TypeError, ValueError)):
            bad()
    assert x is before and x.dtype == cg.int32 and x.tolist() == [2, 3, 4]  # unchanged


def test_half_dtypes_store_rounded_and_compute_in_float32():
    for d, nd_eps, mx, tiny in [(cg.float16, 2.0**-10, 65504.0, 2.0**-14),
                                (cg.bfloat16, 2.0**-7, 3.3895313892515355e38, 2.0**-126)]:
        f = cg.finfo(d)
        assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (16, nd_eps, mx, -mx, tiny)
        x = cg.asarray([1.0, 1 + nd_eps / 2, 1 + 3 * nd_eps / 2, 2.0], dtype=d)  # ties round to even
        assert x.dtype == d and x.tolist() == [1.0, 1.0, 1 + 2 * nd_eps, 2.0]
        assert (x * 2).dtype == d and (x + cg.zeros(4, dtype=cg.float32)).dtype == cg.float32
    h = np.array([0.1, -2.5, 65504, np.inf], dtype=np.float16)
    np.testing.assert_array_equal(np.asarray(cg.asarray(h.tolist(), dtype=cg.float16)), h)
    np.testing.assert_array_equal(np.asarray(cg.from_dlpack(h) * 1), h * np.float16(1))


def test_math_constants_and_info():
    assert cg.finfo(cg.float32).eps == 2.0**-23 and cg.iinfo(cg.int32).max == 2**31 - 1
    assert cg.result_type(cg.int32, cg.float32) == cg.float32
    assert cg.isdtype(cg.int64, "integral") and not cg.isdtype(cg.bool, "numeric")
    assert math.isclose(cg.pi, math.pi)
    info = cg.__array_namespace_info__()
    assert info.default_dtypes()["real floating"] == cg.float32
    assert arr(A).__array_namespace__() is cg
    from cgrad._missing import MISSING  # whichever function is still missing

    if MISSING:
        with pytest.raises(AttributeError, match="not available yet"):
            getattr(cg, next(iter(MISSING)))


def test_sum_and_prod_with_a_dtype_cast_first():
    """The Array API standard: a dtype casts x before the reduction (it is there to prevent
    overflows) and is the result's; so do the methods NumPy's np.sum(x, dtype=) calls."""
    h = np.full(1000, 100, np.float16)  # the sum, 1e5, is past float16's 65504
    assert float(cg.sum(cg.asarray(h), dtype=cg.float32)) == 1e5
    assert float(np.sum(cg.asarray(h), dtype=np.float32)) == 1e5
    f = np.full(3, 0.1, np.float32)
    assert float(cg.sum(cg.asarray(f), dtype=cg.float64)) == float(np.sum(f, dtype=np.float64))
    big = np.full(30, 1e10, np.float32)  # the product, 1e300, is past float32's range
    assert math.isclose(float(cg.prod(cg.asarray(big), dtype=cg.float64)), 1e300, rel_tol=1e-14)
    i = cg.asarray(np.array([100, 100, 100], np.int8))
    assert cg.sum(i, dtype=cg.int8).dtype == cg.int8 and int(cg.sum(i, dtype=cg.int8)) == 44  # wraps
    assert i.sum(dtype=np.int8).dtype == cg.int8 and int(np.sum(i, dtype=np.int8)) == 44
    assert cg.prod(i, dtype=cg.int16).dtype == cg.int16
    assert cg.sum(i).dtype == cg.int64 and int(cg.sum(i)) == 300


def test_statistics_of_half_dtypes_compute_in_float32():
    """mean, var, std, norms, logsumexp, softmax and NumPy's nan-statistics and average of
    float16/bfloat16 compute in float32 and round once (PyTorch's rule): their sums past 65504
    made finite results inf (tools/fuzz_numpy.py seeds 300536 and 301405). cov computes in NumPy's
    float64 (since 2026-12-07)."""
    v = np.where(np.arange(93) % 2, 88.0, 20.0)
    for d in (cg.float16, cg.bfloat16):
        x = cg.asarray(v, dtype=d)
        ref = {"mean": v.mean(), "var": v.var(), "std": v.std(), "norm": np.linalg.norm(v),
               "lse": np.log(np.sum(np.exp(v - 88))) + 88}
        got = {"mean": cg.mean(x), "var": cg.var(x), "std": cg.std(x), "norm": cg.linalg.vector_norm(x),
               "lse": cg.logsumexp(x), "nanmean": cg.nanmean(x), "nanvar": cg.nanvar(x),
               "nanstd": cg.nanstd(x), "average": cg.average(x), "fro": cg.linalg.matrix_norm(x[:90].reshape(9, 10)),
               "cov": cg.cov(x)}
        ref.update(nanmean=ref["mean"], nanvar=ref["var"], nanstd=ref["std"], average=ref["mean"],
                   fro=np.linalg.norm(v[:90]), cov=np.cov(v))
        rtol = 2.0**-10 if d == cg.float16 else 2.0**-7
        for k, r in got.items():
            assert r.dtype == (cg.float64 if k == "cov" else d), k
            assert np.isfinite(float(r)) and abs(float(r) - ref[k]) <= rtol * abs(ref[k]), (k, float(r), ref[k])
        row = cg.full((1, 70000), 0.5, dtype=d)  # a row sum past 65504
        assert float(cg.softmax(row, axis=1)[0, 5]) == float(cg.asarray(1 / 70000, dtype=d))


def test_floor_divide_of_floats_is_the_floor_of_the_exact_quotient():
    """NumPy's and Python's a // b: 1 // 0.05f is 19 (1 / 0.05f = 19.9999997 rounds to 20); a // b
    and a % b agree (a == b (a // b) + a % b to rounding); tools/fuzz_numpy.py seed 311100."""
    assert float(cg.asarray(np.float32(1)) // cg.asarray(np.float32(0.05))) == 19.0
    assert float(cg.floor_divide(cg.asarray(1.0, dtype=cg.float64), 0.1)) == 9.0 == 1.0 // 0.1
    assert float(cg.floor_divide(cg.asarray(-1.0, dtype=cg.float64), 0.1)) == -10.0 == -1.0 // 0.1
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64, np.float16):
        b = rng.uniform(0.01, 3, 4000).astype(dtype) * rng.choice([-1, 1], 4000).astype(dtype)
        a = (b.astype(np.float64) * rng.integers(-300, 300, 4000)).astype(dtype)  # near-integer quotients
        a[::7] = rng.uniform(-50, 50, a[::7].size).astype(dtype)
        for x, y in ((a, b), (b, a)):
            with np.errstate(divide="ignore", invalid="ignore"):
                np.testing.assert_array_equal(np.asarray(cg.asarray(x) // cg.asarray(y)), np.floor_divide(x, y))
