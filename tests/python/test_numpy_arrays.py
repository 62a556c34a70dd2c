"""NumPy's creation, query, joining, selection and bit functions (python/cgrad/_numpy_arrays.py)
against NumPy: values, shapes and dtypes over arguments, errors (a failed in-place call leaves the
array unchanged), in-place visibility through every handle, and gradients where the composition
has them."""
import functools

import numpy as np
import pytest

import cgrad as cg
from _compare import check, random_array

rng = np.random.default_rng(7)


def arr(a):
    return cg.asarray(np.asarray(a))


DTYPES = [np.float64, np.float32, np.int32, np.int64, np.uint8, np.bool_, np.complex128]


sample = functools.partial(random_array, rng)


# ---- creation and conversion ----
@pytest.mark.parametrize("dtype", DTYPES)
def test_array_copy_and_conversions_match_numpy(dtype):
    a = sample((2, 3), dtype)
    for ndmin in (0, 1, 3, 4):
        check(cg.array(arr(a), ndmin=ndmin), np.array(a, ndmin=ndmin))
        check(cg.array(a, ndmin=ndmin), np.array(a, ndmin=ndmin))
    if dtype != np.complex128:
        check(cg.array(arr(a), dtype=cg.float64), np.array(a, dtype=np.float64))
    check(cg.array(arr(a[0, 0])), np.array(a[0, 0]))
    for f in ("copy", "asanyarray", "ascontiguousarray", "asarray_chkfinite"):
        check(getattr(cg, f)(arr(a)), getattr(np, f)(a))
        check(getattr(cg, f)(arr(a[0, 0])), getattr(np, f)(a[0, 0]))
        check(getattr(cg, f)(arr(a[:0])), getattr(np, f)(a[:0]))
    x = arr(a)
    for c in (cg.array(x), cg.copy(x), cg.array(x, copy=None, dtype=cg.float64 if dtype != np.complex128 else None)):
        if c is not x:
            c[...] = cg.zeros_like(c)  # a copy: writes to it leave x as it was
    check(x, a)
    assert cg.array(x, copy=False) is x and cg.asanyarray(x) is x
    n = a.copy()
    y = cg.array(n)
    n[...] = 0  # array(numpy) copies: later NumPy writes are not seen
    check(y, a)


def test_array_from_lists_and_errors():
    check(cg.array([[1, 2], [3, 4]], ndmin=3), np.array([[1, 2], [3, 4]], ndmin=3))
    check(cg.array([1.5, 2.0]), np.array([1.5, 2.0], np.float32))  # Python floats: cgrad's float32
    with pytest.raises(ValueError):
        cg.array([1, 2], copy=False)  # a list always needs a copy
    with pytest.raises(ValueError):
        cg.array(arr(np.ones(2)), dtype=cg.float32, copy=False)
    for bad in (np.array([1.0, np.nan]), np.array([np.inf, 0.0], np.float32), np.array([1 + 1j, complex(0, np.inf)])):
        with pytest.raises(ValueError, match="infs or NaNs"):
            cg.asarray_chkfinite(arr(bad))
        with pytest.raises(ValueError):
            np.asarray_chkfinite(bad)
    check(cg.asarray_chkfinite([1, 2], dtype=cg.int32), np.asarray_chkfinite([1, 2], dtype=np.int32))


def test_fromfunction_fromiter_frombuffer_match_numpy():
    f = lambda i, j: i * 10 + j * j  # noqa: E731
    check(cg.fromfunction(f, (3, 4), dtype=cg.float64), np.fromfunction(f, (3, 4)))
    check(cg.fromfunction(f, (3, 4)), np.fromfunction(f, (3, 4), dtype=np.float32))  # cgrad's default float32
    check(cg.fromfunction(f, (2, 5), dtype=int), np.fromfunction(f, (2, 5), dtype=int))
    check(cg.fromfunction(lambda i, j, k=1: i - k * j, (3, 2), dtype=float, k=3),
          np.fromfunction(lambda i, j, k=1: i - k * j, (3, 2), dtype=float, k=3))
    check(cg.fromfunction(lambda i: i, (0,), dtype=int), np.fromfunction(lambda i: i, (0,), dtype=int))
    for dtype, count in ((np.float64, -1), (np.int32, 4), (np.uint8, 0), (float, 2), (cg.int16, -1)):
        want_dtype = np.int16 if dtype is cg.int16 else dtype
        check(cg.fromiter((x * x for x in range(6)), dtype, count), np.fromiter((x * x for x in range(6)), want_dtype,
                                                                              count))
    check(cg.fromiter(iter([]), cg.float32), np.fromiter(iter([]), np.float32))
    with pytest.raises(ValueError):
        cg.fromiter(range(3), cg.int64, count=5)
    with pytest.raises(ValueError):
        np.fromiter(range(3), np.int64, count=5)
    raw = np.arange(10, dtype=np.float64).tobytes()
    check(cg.frombuffer(raw), np.frombuffer(raw))
    check(cg.frombuffer(raw, dtype=cg.int32, count=5, offset=8), np.frombuffer(raw, dtype=np.int32, count=5, offset=8))
    check(cg.frombuffer(b"\x01\x02\x03", dtype=np.uint8), np.frombuffer(b"\x01\x02\x03", dtype=np.uint8))
    buf = bytearray(raw)
    y = cg.frombuffer(buf)
    buf[:8] = bytes(8)  # a copy: later writes to the buffer are not seen
    check(y, np.arange(10.0))
    with pytest.raises(ValueError):
        cg.frombuffer(b"\x01\x02\x03", dtype=cg.float32)


def test_diagonal_helpers_match_numpy():
    for v in (np.arange(1.0, 4.0), np.arange(6).reshape(2, 3), np.array([[1 + 2j]]), np.zeros(0)):
        for k in (0, 1, -2):
            check(cg.diagflat(arr(v), k), np.diagflat(v, k))
    check(cg.diagflat([1, 2]), np.diagflat([1, 2]))
    for n, nd in ((3, 2), (4, 3), (0, 2), (2, 1)):
        check(cg.diag_indices(n, nd), np.diag_indices(n, nd))
    for a in (np.zeros((3, 3)), np.zeros((2, 2, 2))):
        check(cg.diag_indices_from(arr(a)), np.diag_indices_from(a))
    for bad in (np.zeros(3), np.zeros((2, 3))):
        with pytest.raises(ValueError):
            cg.diag_indices_from(arr(bad))
        with pytest.raises(ValueError):
            np.diag_indices_from(bad)
    for a in (np.zeros((3, 3)), np.zeros((2, 5)), np.zeros((4, 2)), np.zeros((0, 3))):
        for k in (0, 1, -1, 3):
            check(cg.tril_indices_from(arr(a), k), np.tril_indices_from(a, k))
            check(cg.triu_indices_from(arr(a), k=k), np.triu_indices_from(a, k=k))
    with pytest.raises(ValueError):
        cg.tril_indices_from(arr(np.zeros((2, 2, 2))))
    for n, k in ((3, 0), (4, 1), (4, -1), (0, 0)):
        check(cg.mask_indices(n, np.triu, k), np.mask_indices(n, np.triu, k))
        check(cg.mask_indices(n, cg.tril, k), np.mask_indices(n, np.tril, k))  # cg.tril takes k by keyword


def test_diag_indices_index_and_assign():
    a = rng.standard_normal((3, 3))
    x = arr(a)
    check(x[cg.diag_indices_from(x)], a[np.diag_indices_from(a)])
    x[cg.tril_indices_from(x, -1)] = 0.0
    b = a.copy()
    b[np.tril_indices_from(b, -1)] = 0.0
    check(x, b)


# ---- shapes and queries ----
def test_shape_size_ndim_match_numpy():
    for a in (np.zeros((2, 3, 4)), np.float64(2.0), np.zeros((0, 5)), [[1, 2, 3]], 3.5):
        x = arr(a) if isinstance(a, np.ndarray) else a
        assert cg.shape(x) == np.shape(a) and cg.ndim(x) == np.ndim(a) and cg.size(x) == np.size(a)
    x = arr(np.zeros((2, 3, 4)))
    for axis in (0, 1, -1, (0, 2), ()):
        assert cg.size(x, axis) == np.size(np.zeros((2, 3, 4)), axis)
    with pytest.raises(ValueError):
        cg.size(x, 3)
    assert isinstance(cg.shape(x), tuple)


def test_isscalar_and_iterable_match_numpy():
    for v in (1, 2.5, 1j, True, "s", b"b", np.float32(1), np.int8(3), np.array(1.0), np.ones(2), [1], None, (1,),
              range(3)):
        assert cg.isscalar(v) == np.isscalar(v), v
        assert cg.iterable(v) == np.iterable(v), v
    assert not cg.isscalar(arr(np.float64(1.0))) and not cg.isscalar(arr(np.ones(2)))
    assert not cg.iterable(arr(np.float64(1.0))) and cg.iterable(arr(np.ones(2))) and cg.iterable(arr(np.ones(0)))


def test_memory_sharing_answers():
    n = np.arange(6.0)
    x = arr(n)  # imported without a copy: reads n's memory
    assert cg.may_share_memory(x, x) and cg.shares_memory(x, x)
    assert cg.may_share_memory(x, n) and cg.shares_memory(x, n)
    assert not cg.may_share_memory(arr(n.copy()), n) and not cg.shares_memory(arr(n.copy()), n)
    assert not cg.may_share_memory(x, x.reshape(2, 3))  # another shape: never a handle of x
    assert not cg.may_share_memory(x, x.astype(cg.float32))
    lazy = x + 1
    assert not cg.may_share_memory(x, lazy)  # evaluated vs lazy: not one array
    assert cg.may_share_memory(lazy, x * 2)  # both lazy, one shape: not knowable, so True
    h = x.to_device(x.device)  # another object, a handle of x (writes through it are seen by x)
    assert cg.may_share_memory(x, h)
    assert not cg.may_share_memory(x, arr(n.copy()))  # both evaluated: other buffers
    assert not cg.may_share_memory(x, [0.0] * 6) and not cg.may_share_memory(x, 1.0)
    assert not cg.shares_memory(x, x.copy())
    c = x.copy()
    c[0] = 100.0
    check(x, n)  # a copy does not share
    empty = arr(np.zeros(0))
    assert not cg.may_share_memory(empty, empty) and not cg.shares_memory(empty, empty)
    assert cg.may_share_memory(lazy, n)  # a lazy array may read n when evaluated
    assert not cg.shares_memory(lazy, n)  # evaluated: its own memory
    a = np.zeros(4)
    assert cg.may_share_memory(a, a[1:]) and not cg.shares_memory(a[::2], a[1::2])


def test_dtype_queries_match_numpy():
    names = ["bool", "int8", "uint8", "int16", "uint16", "int32", "int64", "uint64", "float16", "float32", "float64",
             "complex64", "complex128"]
    for a in names:
        for b in names:
            want = np.promote_types(a, b)
            got = cg.promote_types(getattr(cg, a), np.dtype(b))
            # cgrad's rule (the standard's table) differs from NumPy for mixed kinds: int with a float
            # keeps the float (NumPy widens it), as result_type does
            mixed = (np.dtype(a).kind in "biu") != (np.dtype(b).kind in "biu") and "bool" not in (a, b)
            if not mixed:
                assert got.name == want.name, (a, b)
            assert got is cg.result_type(getattr(cg, a), getattr(cg, b))
    assert cg.promote_types("i8", "f4") is cg.float32 and cg.promote_types(float, int) is cg.float64
    for d in names:
        for kind in (np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger, np.inexact, np.floating,
                     np.complexfloating, np.float32, np.int64, np.bool_):
            assert cg.issubdtype(getattr(cg, d), kind) == np.issubdtype(np.dtype(d), kind), (d, kind)
        assert cg.issubdtype(arr(np.zeros(1, d)), np.dtype(d))
    assert cg.issubdtype(cg.bfloat16, np.floating) and cg.issubdtype(cg.float32, "real floating")
    assert cg.issubdtype(float, np.float64) and not cg.issubdtype(cg.float32, float)
    for group in ((np.float32,), (np.int32,), (np.float16, np.int8), (np.float32, np.complex64),
                  (np.float32, np.float64), (np.uint8, np.float32), (np.complex64, np.float64)):
        got = cg.common_type(*[arr(np.zeros(2, g)) for g in group])
        assert got.name == np.dtype(np.common_type(*[np.zeros(2, g) for g in group])).name, group
    with pytest.raises(TypeError):
        cg.common_type(arr(np.zeros(2, bool)))
    with pytest.raises(TypeError):
        np.common_type(np.zeros(2, bool))
    for v in (0, 255, 256, -1, -129, 2**40, -2**40, 2**64 - 1, True, 1.5, 65504.0, 70000.0, 1e39, -1e300, np.inf,
              np.nan, 1 + 2j, 1e39j, np.float64(3.0), np.int64(-3), np.uint16(5)):
        assert cg.min_scalar_type(v).name == np.min_scalar_type(v).name, v
        if not isinstance(v, complex) and not (isinstance(v, int) and abs(v) > 2**62):
            assert cg.min_scalar_type(arr(np.asarray(v))).name == np.min_scalar_type(np.asarray(v)).name, v
    assert cg.min_scalar_type(arr(np.ones(3, np.int32))) is cg.int32
    with pytest.raises(OverflowError):
        cg.min_scalar_type(2**64)


# ---- joining, splitting, reshaping ----
def test_block_matches_numpy():
    a, b = rng.standard_normal((2, 2)), rng.standard_normal((2, 3))
    c, d = rng.standard_normal((1, 5)), rng.integers(0, 9, (3, 5))
    v = rng.standard_normal(3)
    for layout in ([[a, b], [c]], [[a, b], [c], [d]], [a, a], [v, v[:2]], [[v], [v]], [[[a]], [[a]]], [1, 2, 3],
                   [[1, 2], [3, 4]], [v, 1.0], [[a, b]], [[np.float64(1.0), v]], a, [a]):
        def conv(x):
            return [conv(e) for e in x] if isinstance(x, list) else arr(x) if isinstance(x, np.ndarray) else x
        check(cg.block(conv(layout)), np.block(layout))
    check(cg.block(np.float64(2.5)), np.block(np.float64(2.5)))
    for bad, err in (([], ValueError), ([[a], a], ValueError), ([[a], []], ValueError), ((a, a), TypeError),
                     ([a, v], ValueError), ([[a], [b]], ValueError)):
        with pytest.raises(err):
            np.block(bad)
        with pytest.raises(err):
            cg.block([arr(e) if isinstance(e, np.ndarray) else e for e in bad] if isinstance(bad, list) else bad)


def test_block_gradient():
    a0, b0 = rng.standard_normal((2, 2)), rng.standard_normal((2, 1))
    a, b = arr(a0).requires_grad_(), arr(b0).requires_grad_()
    w = rng.standard_normal((3, 3))
    loss = cg.sum(cg.block([[a, b], [arr(np.ones((1, 3)))]]) * arr(w))
    ga, gb = cg.grad(loss, [a, b])
    check(ga, w[:2, :2])
    check(gb, w[:2, 2:])


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_])
def test_splits_and_row_stack_match_numpy(dtype):
    a = sample((4, 6, 2), dtype)
    for f, args in (("hsplit", (2,)), ("hsplit", ([1, 4],)), ("vsplit", (2,)), ("vsplit", ([3],)), ("dsplit", (2,)),
                    ("dsplit", ([0, 1],))):
        check(getattr(cg, f)(arr(a), *args), getattr(np, f)(a, *args))
    check(cg.hsplit(arr(a[0, :, 0]), 3), np.hsplit(a[0, :, 0], 3))
    check(cg.hsplit(arr(a[:0]), 3), np.hsplit(a[:0], 3))
    for f, bad in (("hsplit", a[0, 0, 0]), ("vsplit", a[0, :, 0]), ("dsplit", a[0])):
        with pytest.raises(ValueError):
            getattr(cg, f)(arr(bad), 1)
        with pytest.raises(ValueError):
            getattr(np, f)(bad, 1)
    with pytest.raises(ValueError):
        cg.vsplit(arr(a), 3)
    check(cg.row_stack([arr(a[0, :, 0]), arr(a[1, :, 0])]), np.vstack([a[0, :, 0], a[1, :, 0]]))


def test_rollaxis_and_resize_match_numpy():
    a = rng.standard_normal((2, 3, 4, 5))
    for axis in range(-4, 4):
        for start in range(-4, 5):
            check(cg.rollaxis(arr(a), axis, start), np.rollaxis(a, axis, start))
    for axis, start in ((4, 0), (0, 5), (0, -5)):
        with pytest.raises(ValueError):
            cg.rollaxis(arr(a), axis, start)
    x = cg.rollaxis(arr(a), 1, 1)
    x[...] = 0
    check(arr(a), a)  # nothing moved: still a new array
    for src, new in ((np.arange(5), (3, 4)), (np.arange(6.0).reshape(2, 3), 4), (np.array([[1, 2], [3, 4]]), (3, 3)),
                     (np.arange(3, dtype=np.uint8), (2, 0)), (np.zeros(0), (2, 2)), (np.array([True, False]), 5),
                     (np.array(7.5), (2, 1)), (np.arange(4.0), ())):
        check(cg.resize(arr(src), new), np.resize(src, new))
    with pytest.raises(ValueError):
        cg.resize(arr(np.arange(3)), (2, -1))


def test_diagonal_and_trace_functions_match_numpy():
    for a in (rng.standard_normal((3, 4)), rng.integers(-5, 5, (2, 3, 4)).astype(np.int32),
              rng.standard_normal((4, 2, 3))):
        for offset, ax1, ax2 in ((0, 0, 1), (1, 0, 1), (-1, 1, 0), (0, -1, 0), (2, 2 % a.ndim, 0), (7, 0, 1)):
            if ax1 % a.ndim == ax2 % a.ndim:
                continue
            check(cg.diagonal(arr(a), offset, ax1, ax2), np.diagonal(a, offset, ax1, ax2))
            check(cg.trace(arr(a), offset, ax1, ax2), np.trace(a, offset, ax1, ax2))
        check(cg.trace(arr(a), dtype=cg.float64), np.trace(a, dtype=np.float64))
    for bad in (np.ones(3), np.float64(1.0)):
        for f in ("diagonal", "trace"):
            with pytest.raises(ValueError):
                getattr(cg, f)(arr(bad))
            with pytest.raises(ValueError):
                getattr(np, f)(bad)


# ---- selection ----
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose_matches_numpy(mode):
    choices = [rng.standard_normal((3, 4)), rng.standard_normal((1, 4)), rng.standard_normal(4)]
    idx = rng.integers(0, 3, (3, 4)) if mode == "raise" else rng.integers(-5, 8, (3, 4))
    check(cg.choose(arr(idx), [arr(c) for c in choices], mode=mode), np.choose(idx, choices, mode=mode))
    check(cg.choose(arr(idx[0]), [arr(c) for c in choices], mode=mode), np.choose(idx[0], choices, mode=mode))
    stacked = rng.integers(0, 100, (3, 2, 4)).astype(np.int32)
    check(cg.choose(arr(idx[:2] % 3), arr(stacked), mode=mode), np.choose(idx[:2] % 3, stacked, mode=mode))
    check(cg.choose(arr(np.zeros((0,), np.int64)), [arr(np.zeros(0))], mode=mode),
          np.choose(np.zeros((0,), np.int64), [np.zeros(0)], mode=mode))
    check(cg.choose(arr(np.array(1)), [1, arr(np.array([5, 6]))], mode=mode),
          np.choose(1, [1, np.array([5, 6])], mode=mode))


def test_choose_errors_and_gradient():
    with pytest.raises(ValueError, match="invalid entry"):
        cg.choose(arr(np.array([0, 3])), [arr(np.ones(2))] * 3)
    with pytest.raises(ValueError):
        np.choose(np.array([0, 3]), [np.ones(2)] * 3)
    with pytest.raises(ValueError):
        cg.choose(arr(np.array([0, 1])), [arr(np.ones(2))], mode="bad")
    with pytest.raises(TypeError):
        cg.choose(arr(np.array([0.5])), [arr(np.ones(1))])
    with pytest.raises(ValueError):
        cg.choose(arr(np.array([0, 0, 0])), [arr(np.ones(2))])  # shapes that do not broadcast
    c0, c1 = rng.standard_normal(5), rng.standard_normal(5)
    a, b = arr(c0).requires_grad_(), arr(c1).requires_grad_()
    sel = np.array([0, 1, 1, 0, 1])
    ga, gb = cg.grad(cg.sum(cg.choose(arr(sel), [a, b]) ** 2), [a, b])
    check(ga, 2 * c0 * (sel == 0))
    check(gb, 2 * c1 * (sel == 1))


def test_compress_and_extract_match_numpy():
    a = rng.standard_normal((3, 4))
    for cond, axis in (([True, False, True], 0), ([False, True, True, False], 1), ([0, 1], -1), ([], 0),
                       ([True] * 5, None), ([False, True], None), ([True, False, False, False, False], 0)):
        check(cg.compress(cond, arr(a), axis=axis), np.compress(cond, a, axis=axis))
    check(cg.compress(arr(np.array([True, False])), arr(np.arange(3))), np.compress([True, False], np.arange(3)))
    with pytest.raises(IndexError):
        cg.compress([False, False, False, True], arr(np.arange(3)))
    with pytest.raises(IndexError):
        np.compress([False, False, False, True], np.arange(3))
    with pytest.raises(ValueError):
        cg.compress(arr(np.ones((2, 2), bool)), arr(a))
    with pytest.raises(ValueError):
        cg.compress([True], arr(a), axis=2)
    for cond in (a > 0, np.mod(np.arange(12).reshape(3, 4), 3), np.zeros((3, 4), bool)):
        check(cg.extract(arr(cond), arr(a)), np.extract(cond, a))
    x = arr(a).requires_grad_()
    (g,) = cg.grad(cg.sum(cg.compress([True, False, True], x, axis=0) * 3.0), [x])
    check(g, np.array([[3.0] * 4, [0.0] * 4, [3.0] * 4]))


def test_piecewise_matches_numpy():
    x = np.linspace(-2.5, 2.5, 11)
    for condlist, funclist in (([x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2]),
                               ([x < -1, x > 1], [-1.0, 1.0, lambda v: v * 0.5]),
                               ([x < 0, x < 1], [lambda v: v + 10, 7.0]),
                               (x > 0, [np.sin]), (x > 0, [2.0, lambda v: v * 3])):
        ours = [arr(c) for c in condlist] if isinstance(condlist, list) else arr(condlist)
        fl = [cg.sin if f is np.sin else f for f in funclist]
        check(cg.piecewise(arr(x), ours, fl), np.piecewise(x, condlist, funclist))
    xi = np.arange(-3, 4)
    check(cg.piecewise(arr(xi), [arr(xi < 0)], [lambda v: -v * 2]), np.piecewise(xi, [xi < 0], [lambda v: -v * 2]))
    check(cg.piecewise(arr(x), [arr(x > 0)], [lambda v, k, s=1: v * k + s], 3, s=2),
          np.piecewise(x, [x > 0], [lambda v, k, s=1: v * k + s], 3, s=2))
    check(cg.piecewise(arr(np.float64(3.0)), [True], [lambda v: v * 2]), np.piecewise(np.float64(3.0), [True],
                                                                                      [lambda v: v * 2]))
    with pytest.raises(ValueError):
        cg.piecewise(arr(x), [arr(x > 0)], [1.0, 2.0, 3.0])
    x0 = x.copy()
    xt = arr(x0).requires_grad_()
    (g,) = cg.grad(cg.sum(cg.piecewise(xt, [xt < 0], [lambda v: v * v, lambda v: 3.0 * v])), [xt])
    check(g, np.where(x0 < 0, 2 * x0, 3.0))


# ---- in place ----
def test_put_along_axis_matches_numpy():
    for shape, axis in (((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -1), ((2, 3, 4), 1), ((5,), None)):
        a = rng.standard_normal(shape)
        ishape = list(shape)
        if axis is not None:
            ishape[axis] = 2
        idx = rng.integers(-shape[axis or 0], shape[axis or 0], ishape if axis is not None else (3,))
        vals = rng.standard_normal(idx.shape)
        for v in (vals, 9.5, vals[..., :1]):
            x = arr(a)
            h = x.to_device(x.device)  # another handle on x
            cg.put_along_axis(x, arr(idx), arr(v) if isinstance(v, np.ndarray) else v, axis)
            want = a.copy()
            np.put_along_axis(want, idx, v, axis)
            check(x, want)
            check(h, want)
    x = arr(np.arange(6).reshape(2, 3))
    cg.put_along_axis(x, arr(np.array([[0], [2]])), 7.9, axis=1)  # cast to the array's dtype
    check(x, np.array([[7, 1, 2], [3, 4, 7]]))
    before = np.arange(6.0).reshape(2, 3)
    for bad, err in ((np.array([[3], [0]]), IndexError), (np.array([[-4], [0]]), IndexError),
                     (np.array([0, 1]), ValueError), (np.array([[0.5], [1.0]]), IndexError),
                     (np.array([[True], [False]]), IndexError)):
        x = arr(before)
        with pytest.raises(err):
            cg.put_along_axis(x, arr(bad), 1.0, axis=1)
        with pytest.raises(err):
            np.put_along_axis(before.copy(), bad, 1.0, axis=1)
        check(x, before)
    with pytest.raises(ValueError):
        cg.put_along_axis(x, arr(np.array([[0, 1]])), 1.0, axis=None)
    with pytest.raises(TypeError):
        cg.put_along_axis(before.copy(), arr(np.array([[0], [1]])), 1.0, axis=1)  # not a cgrad array


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_put_matches_numpy(mode):
    for dtype in (np.float64, np.int32, np.bool_, np.complex128):
        a = sample((3, 4), dtype)
        ind = rng.integers(-12, 12, 5) if mode == "raise" else rng.integers(-30, 30, 5)
        for v in (sample((5,), dtype), sample((2,), dtype), sample((2, 4), dtype)):
            x = arr(a)
            y = x  # the same object: sees the write
            cg.put(x, arr(ind), arr(v), mode=mode)
            want = a.copy()
            np.put(want, ind, v, mode=mode)
            check(y, want)
    x = arr(np.arange(5.0))
    cg.put(x, [0, 0, 2], [1.0, 2.0, 3.0])  # repeated index: the last value
    check(x, np.array([2.0, 1.0, 3.0, 3.0, 4.0]))
    cg.put(x, 4, -1.0)
    cg.put(x, [], [5.0])
    check(x, np.array([2.0, 1.0, 3.0, 3.0, -1.0]))


def test_put_errors_leave_the_array_unchanged():
    a = np.arange(6.0)
    x = arr(a)
    for ind, v, mode, err in (([6], 1.0, "raise", IndexError), ([-7], 1.0, "raise", IndexError),
                              ([0], 1.0, "nope", ValueError)):
        with pytest.raises(err):
            cg.put(x, ind, v, mode=mode)
        with pytest.raises(err):
            np.put(a.copy(), ind, v, mode=mode)
        check(x, a)
    for ind in ([1.7, 0.2], np.array([True, False])):  # NumPy casts indices unsafely: floats truncate
        x, want = arr(a), a.copy()
        cg.put(x, arr(np.asarray(ind)), [8.0, 9.0])
        np.put(want, ind, [8.0, 9.0])
        check(x, want)
    with pytest.raises(IndexError):
        cg.put(arr(np.zeros(0)), [0], 1.0)
    with pytest.raises(TypeError):
        cg.put([1, 2], [0], 1)


def test_place_and_putmask_match_numpy():
    for dtype in (np.float64, np.int64, np.uint8, np.complex128):
        a = sample((3, 4), dtype)
        mask = rng.random((3, 4)) > 0.5
        for vals in (sample((20,), dtype), sample((3,), dtype), sample((1,), dtype)):
            x = arr(a)
            h = x.to_device(x.device)
            cg.place(x, arr(mask), arr(vals))
            want = a.copy()
            np.place(want, mask, vals)
            check(h, want)
            x = arr(a)
            cg.putmask(x, arr(mask), arr(vals))
            want = a.copy()
            np.putmask(want, mask, vals)
            check(x, want)
    x = arr(np.arange(6.0))
    cg.putmask(x, arr(np.arange(6) > 2), arr(np.zeros(0)))  # no values: nothing changes, as NumPy
    cg.place(x, arr(np.zeros(6, bool)), arr(np.zeros(0)))
    check(x, np.arange(6.0))
    cg.putmask(x, arr(np.arange(6) % 2 == 0), 9)
    check(x, np.array([9.0, 1, 9, 3, 9, 5]))
    for f in (cg.place, cg.putmask):
        with pytest.raises(ValueError):
            f(x, arr(np.ones(5, bool)), arr(np.ones(2)))
        check(x, np.array([9.0, 1, 9, 3, 9, 5]))
    with pytest.raises(ValueError, match="empty"):
        cg.place(x, arr(np.ones(6, bool)), arr(np.zeros(0)))
    check(x, np.array([9.0, 1, 9, 3, 9, 5]))


def test_copyto_matches_numpy():
    dst0 = rng.standard_normal((3, 4))
    for src, kw in ((rng.standard_normal(4), {}), (rng.standard_normal((3, 1)).astype(np.float32), {}), (2.5, {}),
                    (rng.standard_normal((3, 4)), {"where": rng.random((3, 4)) > 0.5}),
                    (np.arange(4), {"where": np.array([True, False, True, False]), "casting": "safe"}),
                    (7, {"casting": "no"}), (np.ones((3, 4)), {"casting": "equiv"})):
        x = arr(dst0)
        h = x.to_device(x.device)
        cg.copyto(x, arr(src) if isinstance(src, np.ndarray) else src,
                  **{k: arr(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()})
        want = dst0.copy()
        np.copyto(want, src, **kw)
        check(h, want)
    ints = np.arange(6, dtype=np.int32).reshape(2, 3)
    for src, casting in ((1.5, "same_kind"), (np.ones(3), "same_kind"), (np.ones(3, np.int64), "safe"),
                         (np.ones(3, np.int64), "no"), (np.ones(3, np.int32), "bogus")):
        x = arr(ints)
        with pytest.raises((TypeError, ValueError)):
            cg.copyto(x, arr(src) if isinstance(src, np.ndarray) else src, casting=casting)
        with pytest.raises((TypeError, ValueError)):
            np.copyto(ints.copy(), src, casting=casting)
        check(x, ints)
    x = arr(ints)
    cg.copyto(x, arr(np.array([1.7, -2.2, 3.9])), casting="unsafe")
    want = ints.copy()
    np.copyto(want, np.array([1.7, -2.2, 3.9]), casting="unsafe")
    check(x, want)
    with pytest.raises(ValueError):
        cg.copyto(x, arr(np.ones(4, np.int32)))
    with pytest.raises(OverflowError):
        cg.copyto(arr(np.zeros(3, np.int8)), 300)
    with pytest.raises(TypeError):
        cg.copyto(x, 1, where=arr(np.ones((2, 3))))
    with pytest.raises(TypeError):  # complex to real: cgrad refuses (NumPy warns and drops the imaginary part)
        cg.copyto(x, 1 + 2j, casting="unsafe")
    check(x, want)
    b = arr(np.zeros(3, bool))
    cg.copyto(b, 2, casting="unsafe")
    cg.copyto(b, False, where=arr(np.array([True, False, False])))
    check(b, np.array([False, True, True]))


def test_fill_diagonal_matches_numpy():
    for shape in ((3, 3), (5, 3), (3, 5), (4, 4, 4), (2, 2, 2, 2), (1, 1), (0, 0)):
        for val in (7.0, np.array([1.0, 2.0]), np.array([[-1.0, -2.0, -3.0]])):
            for wrap in (False, True):
                a = rng.standard_normal(shape)
                x = arr(a)
                h = x.to_device(x.device)
                cg.fill_diagonal(x, arr(val) if isinstance(val, np.ndarray) else val, wrap=wrap)
                np.fill_diagonal(a, val, wrap=wrap)
                check(h, a)
    x = arr(np.zeros((3, 3), np.int32))
    cg.fill_diagonal(x, 5)
    check(x, np.diag(np.full(3, 5, np.int32)))
    for bad in (np.zeros(3), np.zeros((2, 3, 3))):
        x = arr(bad)
        with pytest.raises(ValueError):
            cg.fill_diagonal(x, 1.0)
        with pytest.raises(ValueError):
            np.fill_diagonal(bad.copy(), 1.0)
        check(x, bad)


def test_in_place_writes_are_seen_by_later_lazy_uses_and_gradients():
    x = arr(np.zeros((3, 3)))
    before = x * 2  # built before: keeps the old value
    cg.fill_diagonal(x, 1.0)
    after = x * 2
    check(before, np.zeros((3, 3)))
    check(after, 2 * np.eye(3))
    w0 = rng.standard_normal((3, 3))
    w = arr(w0).requires_grad_()
    y = w * 1.0
    cg.put(y, [0, 4], [0.0, 0.0])
    cg.putmask(y, arr(np.eye(3, k=1, dtype=bool)), 5.0)
    (g,) = cg.grad(cg.sum(y * y), [w])
    keep = np.ones((3, 3))
    keep.flat[[0, 4]] = 0
    keep[np.eye(3, k=1, dtype=bool)] = 0
    check(g, 2 * w0 * keep)


def test_apply_along_and_over_axes_match_numpy():
    a = rng.standard_normal((2, 3, 4))
    for axis in (0, 1, 2, -1):
        for f, g in ((lambda v: v * 2, None), (lambda v: v.sum(), np.sum),
                     (lambda v: cg.outer(v, v), lambda v: np.outer(v, v)), (lambda v: cg.sort(v), np.sort),
                     (lambda v, s=1: v[:2] * s, None)):
            want = np.apply_along_axis(g or f, axis, a)
            check(cg.apply_along_axis(f, axis, arr(a)), want)
    check(cg.apply_along_axis(lambda v, k, s=0: v * k + s, 1, arr(a), 2.0, s=1.0),
          np.apply_along_axis(lambda v, k, s=0: v * k + s, 1, a, 2.0, s=1.0))
    check(cg.apply_along_axis(lambda v: v.sum(), 0, arr(a[:, 0, 0])), np.apply_along_axis(np.sum, 0, a[:, 0, 0]))
    with pytest.raises(ValueError):
        cg.apply_along_axis(lambda v: v, 0, arr(np.zeros((3, 0))))
    with pytest.raises(ValueError):
        cg.apply_along_axis(lambda v: v, 3, arr(a))
    for axes in ([0, 2], [1], (-1, 0), [], 1):
        check(cg.apply_over_axes(cg.sum, arr(a), axes), np.apply_over_axes(np.sum, a, axes))  # axis by keyword
        check(cg.apply_over_axes(lambda v, ax: cg.max(v, axis=ax, keepdims=True), arr(a), axes),
              np.apply_over_axes(np.max, a, axes))
    with pytest.raises(ValueError):
        cg.apply_over_axes(lambda v, ax: cg.sum(v), arr(a), [0, 1])
    x = arr(a).requires_grad_()
    (g,) = cg.grad(cg.sum(cg.apply_along_axis(lambda v: v * v, 1, x)), [x])
    check(g, 2 * a)


# ---- products and bits ----
def test_matvec_and_vecmat_match_numpy():
    for s1, s2 in (((3, 4), (4,)), ((2, 3, 4), (4,)), ((3, 4), (5, 4)), ((1, 3, 4), (2, 1, 4)), ((0, 3, 4), (4,)),
                   ((3, 0), (0,))):
        for dtype in (np.float64, np.complex128, np.int64):
            m, v = sample(s1, dtype), sample(s2, dtype)
            check(cg.matvec(arr(m), arr(v)), np.matvec(m, v))
            mt = np.swapaxes(m, -1, -2)
            check(cg.vecmat(arr(v), arr(mt)), np.vecmat(v, mt), rtol=1e-12, atol=1e-12)
    for a, b in (((3, 4), (3,)), ((4,), (4,))):
        with pytest.raises(ValueError):
            cg.matvec(arr(np.ones(a)), arr(np.ones(b)))
        with pytest.raises(ValueError):
            np.matvec(np.ones(a), np.ones(b))
    with pytest.raises(ValueError):
        cg.vecmat(arr(np.ones(3)), arr(np.ones(3)))
    m0, v0 = rng.standard_normal((3, 4)), rng.standard_normal(4)
    m, v = arr(m0).requires_grad_(), arr(v0).requires_grad_()
    gm, gv = cg.grad(cg.sum(cg.matvec(m, v)), [m, v])
    check(gm, np.broadcast_to(v0, (3, 4)))
    check(gv, m0.sum(axis=0))


@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits_and_unpackbits_match_numpy(bitorder):
    for a in (rng.integers(0, 2, (3, 10)), rng.integers(-3, 3, (2, 3, 9)).astype(np.int8), rng.random((4, 8)) > 0.5,
              np.zeros((0, 3), np.uint8), np.array(1), rng.integers(0, 2, 17).astype(np.uint64)):
        for axis in [None] + list(range(-a.ndim, a.ndim)):
            check(cg.packbits(arr(a), axis=axis, bitorder=bitorder), np.packbits(a, axis=axis, bitorder=bitorder))
    b = rng.integers(0, 256, (3, 2)).astype(np.uint8)
    for axis in (None, 0, 1, -1):
        for count in (None, 0, 3, 11, -5, 30, -16, -17, -48, -49):
            try:
                want = np.unpackbits(b, axis=axis, count=count, bitorder=bitorder)
            except ValueError:  # -count past the bits there are
                with pytest.raises(ValueError):
                    cg.unpackbits(arr(b), axis=axis, count=count, bitorder=bitorder)
                continue
            check(cg.unpackbits(arr(b), axis=axis, count=count, bitorder=bitorder),
                  want)
    check(cg.unpackbits(arr(np.zeros(0, np.uint8)), bitorder=bitorder), np.unpackbits(np.zeros(0, np.uint8)))
    packed = cg.packbits(arr(b > 100), axis=1, bitorder=bitorder)
    check(cg.unpackbits(packed, axis=1, count=2, bitorder=bitorder), (b > 100).astype(np.uint8))


def test_bit_errors_match_numpy():
    with pytest.raises(TypeError):
        cg.packbits(arr(np.ones(3)))
    with pytest.raises(TypeError):
        np.packbits(np.ones(3))
    with pytest.raises(TypeError):
        cg.unpackbits(arr(np.ones(3, np.int32)))
    with pytest.raises(TypeError):
        np.unpackbits(np.ones(3, np.int32))
    with pytest.raises(ValueError):
        cg.packbits(arr(np.ones(3, np.uint8)), bitorder="middle")
    with pytest.raises(ValueError):
        cg.unpackbits(arr(np.ones((2, 2), np.uint8)), axis=2)


def test_gradients_flow_through_in_place_writes_to_their_values():
    v0, d0 = rng.standard_normal(3), rng.standard_normal((3, 3))
    w = rng.standard_normal((3, 3))
    v, d = arr(v0).requires_grad_(), arr(d0).requires_grad_()
    y = d * 1.0
    cg.fill_diagonal(y, v)  # the diagonal comes from v, the rest from d
    ys = d * 1.0
    cg.put_along_axis(ys, arr(np.array([[2], [0], [1]])), cg.reshape(v, (3, 1)), axis=1)
    yc = d * 1.0
    mask = np.array([True, False, True])
    cg.copyto(yc, v, where=arr(mask))  # v broadcast along the rows, where the column is chosen
    yp = d * 1.0
    cg.place(yp, arr(np.eye(3, dtype=bool)), v)
    loss = cg.sum((y + ys + yc + yp) * arr(w))
    gv, gd = cg.grad(loss, [v, d])
    eye, at = np.eye(3, dtype=bool), np.zeros((3, 3), bool)
    at[[0, 1, 2], [2, 0, 1]] = True
    cols = np.broadcast_to(mask, (3, 3))
    check(gv, 2 * np.diag(w) + w[at] + (w * cols).sum(axis=0))
    check(gd, w * (~eye) * 2 + w * (~at) + w * (~cols))


def test_choose_takes_boolean_indices():
    sel = np.array([True, False, True])
    check(cg.choose(arr(sel), [arr(np.zeros(3)), arr(np.ones(3))]), np.choose(sel, [np.zeros(3), np.ones(3)]))
