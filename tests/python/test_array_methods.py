"""NumPy's ndarray methods and attributes (python/cgrad/_array_methods.py) and
cgrad.lib.stride_tricks against NumPy: values, shapes and dtypes over arguments, errors (a failed
in-place call leaves the array unchanged), in-place visibility through a second handle, and
gradients where the composition has them."""
import functools
import warnings

import numpy as np
import pytest

import cgrad as cg
from _compare import random_array

rng = np.random.default_rng(11)
swv = np.lib.stride_tricks.sliding_window_view


def arr(a):
    return cg.asarray(np.asarray(a))


def handle(x):
    return x.to_device(x.device)  # another handle on the same array


def check(got, want, dtype=True):
    want, got = np.asarray(want), np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    if dtype:
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


DTYPES = [np.float64, np.float32, np.int32, np.int64, np.uint8, np.bool_, np.complex128]
FEW = [np.float32, np.int64, np.bool_, np.complex128]  # where each dtype compiles kernels of its own
SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]


sample = functools.partial(random_array, rng)


def grad_of(f, x0):
    x = arr(x0).requires_grad_()
    (g,) = cg.grad(f(x), [x])
    return np.asarray(g)


# ---- partition, argpartition ----
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, np.bool_])
def test_partition_is_in_place_and_partitions_as_numpy(dtype):
    for shape in [(6,), (3, 5), (2, 3, 4)]:
        a = sample(shape, dtype)
        for axis in range(-len(shape), len(shape)):
            for kth in (0, shape[axis] - 1, -1, [0, 1], np.array([1, 0])):
                x = arr(a)
                y = handle(x)
                assert x.partition(kth, axis=axis) is None
                got = np.asarray(y)  # the second handle sees the new value
                want = np.partition(a, kth, axis=axis)
                ks = [kth] if isinstance(kth, int) else list(kth)
                for k in ks:
                    check(np.take(got, k, axis=axis), np.take(want, k, axis=axis))
                check(np.sort(got, axis=axis), np.sort(a, axis=axis))
                idx = arr(a).argpartition(kth, axis=axis)
                assert np.asarray(idx).dtype == np.int64
                vals = np.take_along_axis(a, np.asarray(idx), axis=axis)
                for k in ks:
                    check(np.take(vals, k, axis=axis), np.take(want, k, axis=axis))
    b = sample((3, 4), dtype)
    check(np.take(b.ravel(), np.asarray(arr(b).argpartition(5, axis=None)))[5], np.partition(b, 5, axis=None)[5])
    check(cg.partition(arr(b), 2, axis=None), np.sort(b, axis=None))


def test_partition_errors_leave_the_array_unchanged():
    a = sample((3, 4), np.float64)
    x = arr(a)
    for kth, axis, err in [(4, -1, ValueError), (-5, -1, ValueError), (3, 0, ValueError), (0, 2, ValueError),
                           ([0, 4], -1, ValueError), (1.0, -1, TypeError), (0, None, TypeError),
                           (np.array([[0]]), -1, ValueError), (np.array([0.0]), -1, TypeError),
                           (True, -1, ValueError)]:
        with pytest.raises(err):  # NumPy: AxisError (a ValueError) for the axis
            a.copy().partition(kth, axis=axis)
        with pytest.raises(err):
            x.partition(kth, axis=axis)
        check(x, a)
    with pytest.raises(ValueError):
        x.partition(1, kind="quicksort")
    with pytest.raises(ValueError):
        x.argpartition(1, order="f")
    with pytest.raises(ValueError):  # NumPy: AxisError (a ValueError)
        arr(np.float64(1)).partition(0)
    check(arr(np.float64(2)).argpartition(0, axis=None), np.argpartition(np.float64(2), 0, axis=None))
    check(x, a)


def test_partition_values_are_differentiable():
    x0 = rng.standard_normal((3, 5))
    w = rng.standard_normal((3, 5))

    def f(x):
        y = x * 1.0
        y.partition(2, axis=1)
        return cg.sum(y * arr(w))
    g = grad_of(f, x0)
    order = np.argsort(x0, axis=1)
    want = np.zeros_like(x0)
    np.put_along_axis(want, order, w, axis=1)
    np.testing.assert_allclose(g, want)


# ---- choose, compress, put, searchsorted, resize ----
@pytest.mark.parametrize("dtype", FEW)
def test_choose_compress_put_methods_match_numpy(dtype):
    c = [sample((3, 4), dtype) for _ in range(3)]
    i = rng.integers(0, 3, (3, 4))
    check(arr(i).choose([arr(v) for v in c]), i.choose(c))
    check(arr(i - 1).choose(c, mode="wrap"), (i - 1).choose(c, mode="wrap"))
    check(arr(i + 1).choose(c, mode="clip"), (i + 1).choose(c, mode="clip"))
    with pytest.raises(ValueError):
        arr(i + 1).choose(c)
    o = arr(np.zeros_like(c[0]))
    assert arr(i).choose(c, out=o) is o  # NumPy's out= (it raised before 2026-12-07)
    check(o, i.choose(c))
    a = sample((3, 4), dtype)
    for cond, axis in [([True, False, True], 0), ([False, True, True, False], 1), ([1, 0, 1, 1, 0], None),
                       ([], None)]:
        check(arr(a).compress(cond, axis=axis), a.compress(cond, axis=axis))
    with pytest.raises(IndexError):
        arr(a).compress([0, 0, 0, 1], axis=0)
    for ind, v, mode in [([0, 5, -1], sample((3,), dtype), "raise"), ([1, 2, 3, 4], sample((2,), dtype), "raise"),
                         ([20, -20], sample((2,), dtype), "wrap"), ([20, -20], sample((2,), dtype), "clip"),
                         (7, sample((), dtype), "raise")]:
        x, want = arr(a), a.copy()
        y = handle(x)
        assert x.put(ind, v, mode=mode) is None
        want.put(ind, v, mode=mode)
        check(y, want)
    x = arr(a)
    with pytest.raises(IndexError):
        x.put([0, 12], sample((2,), dtype))
    check(x, a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8, np.bool_])
def test_searchsorted_matches_numpy(dtype):
    for n in (0, 7):
        a = np.sort(sample((n,), dtype))
        for v in (sample((2, 3), dtype), sample((), dtype), sample((0,), dtype)):
            for side in ("left", "right"):
                check(arr(a).searchsorted(arr(v), side=side), a.searchsorted(v, side=side))
    a = sample((6,), dtype)
    s = np.argsort(a, kind="stable")
    v = sample((4,), dtype)
    check(arr(a).searchsorted(arr(v), sorter=arr(s)), a.searchsorted(v, sorter=s))
    check(arr(a).searchsorted(list(v), side="right", sorter=list(s)), a.searchsorted(v, side="right", sorter=s))
    check(arr(np.sort(a)).searchsorted(a[0].item()), np.sort(a).searchsorted(a[0].item()))


def test_searchsorted_errors_match_numpy():
    a = np.arange(6.0)
    for bad, kw in [(a.reshape(2, 3), {}), (a, {"side": "middle"}), (a, {"sorter": [0, 1]}), (np.array(1.0), {})]:
        with pytest.raises(ValueError):
            bad.searchsorted(1.0, **kw)
        with pytest.raises(ValueError):
            arr(bad).searchsorted(1.0, **kw)
    with pytest.raises(ValueError, match="Sorter"):  # NumPy checks only the positions its search visits
        arr(a).searchsorted(1.0, sorter=[0, 1, 2, 3, 4, 9])
    with pytest.raises(TypeError):
        arr(a).searchsorted(1.0, sorter=[0.0, 1, 2, 3, 4, 5])


@pytest.mark.parametrize("shape", SHAPES)
def test_resize_keeps_the_shape_every_handle_sees(shape):
    a = sample(shape, np.int32)
    x = arr(a)
    assert x.resize(shape) is None and x.resize(*shape) is None and x.resize() is None
    check(x, a)
    with pytest.raises(NotImplementedError, match="in place"):
        x.resize((7, 2))
    with pytest.raises(NotImplementedError, match="in place"):
        x.resize(7, 2)
    if shape != ():
        with pytest.raises(NotImplementedError, match="in place"):
            x.resize(())
    with pytest.raises(ValueError):
        x.resize((-1,))
    check(x, a)
    check(cg.resize(x, (7, 2)), np.resize(a, (7, 2)))  # the functional resize repeats, as np.resize
    if a.size <= 14:  # NumPy's in-place resize pads with zeros: the documented composition
        b = np.array(a)  # an ndarray also for 0-d (a NumPy scalar's resize does nothing)
        b.resize((7, 2), refcheck=False)
        check(cg.pad(x.ravel(), (0, 14 - x.size)).reshape((7, 2)), b)


# ---- flat ----
@pytest.mark.parametrize("dtype", FEW)
def test_flat_reads_as_numpy(dtype):
    a = sample((3, 4), dtype)
    x = arr(a)
    f = x.flat
    assert len(f) == 12 and f.base is x
    for key in (0, 5, -1, slice(None), slice(2, 9, 3), slice(None, None, -2), [0, 11, -12], [[1, 2], [3, 4]],
                np.array([3, 1]), a.ravel().astype(bool) if dtype == np.bool_ else np.arange(12) % 3 == 0):
        check(f[key], a.flat[key])
    check(f[[]], a.flat[[]].astype(a.dtype))  # NumPy 2.4's flat[[]] is float64 whatever the dtype
    check(np.array([v.item() for v in f], a.dtype), a.ravel())
    check(np.asarray(f), a.ravel())
    check(f.copy(), a.flat.copy())
    for key in (12, -13, [0, 12], np.array([-13])):
        with pytest.raises(IndexError):
            f[key]
        with pytest.raises(IndexError):
            a.flat[key]
    with pytest.raises(IndexError):
        f[1.5]
    with pytest.raises(IndexError):
        f[np.ones(5, bool)]
    check(arr(np.float32(3)).flat[0], np.float32(3))


@pytest.mark.parametrize("dtype", FEW)
def test_flat_writes_in_place_as_numpy(dtype):
    a = sample((2, 3), dtype)
    for key, v in [(0, sample((), dtype)), (-1, sample((), dtype)), (slice(None), sample((2,), dtype)),
                   (slice(1, 6, 2), sample((3,), dtype)), ([0, 4, 2], sample((2,), dtype)),
                   ([[1], [5]], sample((2, 1), dtype)), (np.arange(6) % 2 == 1, sample((3,), dtype)),
                   (slice(None, 2), sample((5,), dtype)), ([1, 1], sample((2,), dtype))]:
        x, want = arr(a), a.copy()
        y = handle(x)
        x.flat[key] = arr(v)
        want.flat[key] = v
        check(y, want)
    x, want = arr(a), a.copy()
    y = handle(x)
    v = sample((4,), dtype)
    x.flat = arr(v)
    want.flat = v
    check(y, want)
    x = arr(a)
    for key in (6, [0, 6], np.array([-7])):
        with pytest.raises(IndexError):
            x.flat[key] = sample((), dtype)
    check(x, a)


# ---- layout and bytes ----
def test_strides_flags_base_data_match_the_evaluated_layout():
    for a in (np.arange(24.0).reshape(2, 3, 4), np.arange(5, dtype=np.int16), np.float32(1), np.zeros((0, 3))):
        x = arr(a)
        assert x.strides == a.strides
        assert x.flags.c_contiguous and x.flags["C_CONTIGUOUS"] and x.flags.contiguous
        assert x.flags.f_contiguous == a.flags.f_contiguous
        assert x.flags.writeable and x.flags["W"] and x.flags.aligned and x.flags.owndata
        assert not x.flags.writebackifcopy
        assert x.base is None
        m = x.data
        assert isinstance(m, memoryview) and m.readonly and m.nbytes == a.nbytes
        np.testing.assert_array_equal(np.frombuffer(m, a.dtype).reshape(a.shape) if a.size else a, a)
        assert "C_CONTIGUOUS : True" in repr(x.flags)
    x = arr(np.arange(6.0))
    with pytest.raises(AttributeError):
        x.flags.writeable = False
    with pytest.raises(KeyError):
        x.flags["Z"]
    with pytest.raises(AttributeError, match="dlpack"):
        x.ctypes
    assert x.setflags(write=True) is None and x.setflags(align=True) is None
    with pytest.raises(ValueError):
        x.setflags(write=False)
    with pytest.raises(ValueError):
        x.setflags(uic=True)
    with pytest.raises(ValueError):
        np.arange(3.0).setflags(uic=True)
    b = cg.ones((3,), dtype=cg.bfloat16)  # NumPy has no bfloat16 to read the bytes with
    for f in (lambda: b.strides, lambda: b.flags.c_contiguous, lambda: b.data, lambda: b.byteswap(),
              lambda: b.view(cg.int16), lambda: b.getfield(cg.int8)):
        with pytest.raises(TypeError, match="bfloat16"):
            f()
    assert b.view().dtype == cg.bfloat16 and b.flags.writeable


def test_view_without_dtype_is_a_handle_on_the_same_array():
    a = np.arange(6.0).reshape(2, 3)
    x = arr(a)
    for v in (x.view(), x.view(cg.float64), x.view(np.float64), x.view("float64")):
        assert v is not x
        v[0, 0] = 50.0  # a write through the view reaches x, as a NumPy view's does
        assert x[0, 0].item() == 50.0
        x[0, 0] = 0.0
        assert v[0, 0].item() == 0.0
    with pytest.raises(TypeError):
        x.view(type=np.ndarray)
    with pytest.raises(TypeError):
        x.view(np.ndarray)


@pytest.mark.parametrize("src,to", [(np.float64, np.int64), (np.float64, np.int32), (np.float32, np.uint8),
                                    (np.int32, np.float32), (np.uint8, np.bool_), (np.int16, np.uint8),
                                    (np.complex128, np.float64), (np.float64, np.complex128),
                                    (np.int8, np.int32), (np.uint8, np.int8)])
def test_view_with_a_dtype_reinterprets_the_bytes_as_numpy(src, to):
    for shape in [(8,), (3, 8), (2, 0, 8)]:
        a = np.abs(sample(shape, src)) if np.dtype(to) == np.bool_ else sample(shape, src)
        if to == np.bool_:
            a = (a % 2).astype(src)
        x = arr(a)
        got = x.view(to)
        check(got, a.view(to))
        got[...] = 0  # a new array: the write does not reach x (NumPy's would)
        check(x, a)
    for bad in (sample((3,), src), sample((), src)):
        if np.dtype(src).itemsize != np.dtype(to).itemsize and not (
                bad.ndim and bad.shape[-1] * np.dtype(src).itemsize % np.dtype(to).itemsize == 0):
            with pytest.raises(ValueError):
                bad.view(to)
            with pytest.raises(ValueError):
                arr(bad).view(to)


@pytest.mark.parametrize("dtype", DTYPES + [np.int16, np.uint64, np.float16])
def test_byteswap_matches_numpy(dtype):
    for shape in SHAPES:
        a = sample(shape, dtype)
        x = arr(a)
        y = handle(x)
        check(x.byteswap(), a.byteswap())
        check(y, a)
        assert x.byteswap(inplace=True) is x
        check(y, a.byteswap())


def test_getfield_setfield_match_numpy():
    a = np.arange(6, dtype=np.int32) * 70000 - 3
    x = arr(a)
    for dtype, offset in [(np.int16, 0), (np.int16, 2), (np.uint8, 3), (np.int32, 0)]:
        check(x.getfield(dtype, offset), a.getfield(dtype, offset))
    c = np.array([1 + 2j, 3 - 4j])
    check(arr(c).getfield(np.float64, 8), c.getfield(np.float64, 8))
    want = a.copy()
    y = handle(x)
    assert x.setfield(7, np.int16, 2) is None
    want.setfield(7, np.int16, 2)
    check(y, want)
    with pytest.raises(ValueError):
        a.getfield(np.int64, 0)
    with pytest.raises(ValueError):
        x.getfield(np.int64, 0)
    with pytest.raises(ValueError):
        x.setfield(1, np.int32, 2)
    check(y, want)


# ---- cgrad.lib.stride_tricks ----
@pytest.mark.parametrize("dtype", FEW)
def test_sliding_window_view_matches_numpy(dtype):
    st = cg.lib.stride_tricks
    for shape, window, axis in [((7,), 3, None), ((7,), (7,), None), ((7,), 1, None), ((7,), 0, None),
                                ((3, 5), (2, 2), None), ((3, 5), 3, 1), ((3, 5), 3, -1), ((3, 5), (2, 3), (1, 1)),
                                ((2, 3, 4), (2, 2), (2, 0)), ((2, 0, 4), 2, 2), ((2, 0, 4), 0, 1),
                                ((4, 5), (2, 2, 2), (0, 1, 0)), ((), (), None)]:
        a = sample(shape, dtype)
        check(st.sliding_window_view(arr(a), window, axis), swv(a, window, axis))
    a = sample((5,), dtype)
    check(st.sliding_window_view(a, 2), swv(a, 2))  # a NumPy array in
    check(st.sliding_window_view([1, 2, 3], 2), swv(np.array([1, 2, 3]), 2))


def test_sliding_window_view_errors_match_numpy():
    st = cg.lib.stride_tricks
    a = np.arange(10.0).reshape(2, 5)
    for window, axis in [(6, 1), (-1, 1), ((2,), None), ((2, 2), (1,)), (2, 2), ((3, 2), None)]:
        with pytest.raises(ValueError):  # NumPy: AxisError (a ValueError) for the axis
            swv(a, window, axis)
        with pytest.raises(ValueError):
            st.sliding_window_view(arr(a), window, axis)
    with pytest.raises(ValueError, match="writeable"):
        st.sliding_window_view(arr(a), 2, 1, writeable=True)
    assert cg.lib.stride_tricks.broadcast_to is cg.broadcast_to
    assert not hasattr(cg, "sliding_window_view")  # NumPy has it in np.lib.stride_tricks only


def test_sliding_window_view_and_as_strided_are_differentiable():
    st = cg.lib.stride_tricks
    x0 = rng.standard_normal((4, 5))
    w = rng.standard_normal((3, 3, 2, 3))
    g = grad_of(lambda x: cg.sum(st.sliding_window_view(x, (2, 3)) * arr(w)), x0)
    want = np.zeros_like(x0)
    for i, j in np.ndindex(3, 3):
        want[i:i + 2, j:j + 3] += w[i, j]
    np.testing.assert_allclose(g, want)
    w2 = rng.standard_normal((4, 3))
    g = grad_of(lambda x: cg.sum(st.as_strided(x, (4, 3), (32, 8)) * arr(w2)), x0)  # overlapping rows
    want = np.zeros(20)
    for i, j in np.ndindex(4, 3):
        want[4 * i + j] += w2[i, j]
    np.testing.assert_allclose(g, want.reshape(4, 5))


@pytest.mark.parametrize("dtype", FEW)
def test_as_strided_matches_numpy_within_the_array(dtype):
    ast = np.lib.stride_tricks.as_strided
    a = sample((4, 6), dtype)
    s = a.itemsize
    for shape, strides in [(None, None), ((4, 6), None), ((24,), (s,)), ((3, 3), (2 * s, s)),
                           ((2, 5, 3), (6 * s, s, s)), ((5, 2), (0, s)), ((3, 4), (s, 6 * s)), ((0, 3), (s, s)),
                           ((), ()), ((2, 3), None), ((2, 2, 2), None)]:
        check(cg.lib.stride_tricks.as_strided(arr(a), shape, strides), ast(a, shape, strides))
    x = arr(a[:, 1:].T)  # strides relative to the C layout of x's value (x's own layout may differ)
    check(cg.lib.stride_tricks.as_strided(x, (5,), (4 * s,)), ast(np.ascontiguousarray(a[:, 1:].T), (5,), (4 * s,)))
    check(cg.lib.stride_tricks.as_strided(arr(a[::-1]), (3,), (s,)), a[::-1].ravel()[:3])
    for shape, strides in [((25,), (s,)), ((4, 7), (6 * s, s)), ((3,), (s, s)), ((5, 5), None),
                           ((-1,), (s,)), ((4,), (-s,))]:  # outside, mismatched, negative, before the first
        with pytest.raises(ValueError):
            cg.lib.stride_tricks.as_strided(arr(a), shape, strides)
    if s > 1:
        with pytest.raises(ValueError, match="multiple of the itemsize"):  # NumPy reads across elements
            cg.lib.stride_tricks.as_strided(arr(a), (3,), (s + 1,))


@pytest.mark.parametrize("dtype", DTYPES)
def test_tobytes_tofile_match_numpy(dtype, tmp_path):
    a = sample((3, 4), dtype)
    x = arr(a)
    for order in ("C", "F", "A", "K"):
        assert x.tobytes(order) == a.tobytes(order)
    assert x.T.tobytes() == a.T.tobytes() and x.T.tobytes("A") == a.T.tobytes("A")
    x.tofile(tmp_path / "x.bin")
    assert (tmp_path / "x.bin").read_bytes() == a.tobytes()
    if dtype != np.bool_:
        x.tofile(str(tmp_path / "x.txt"), sep=",")
        a.tofile(str(tmp_path / "a.txt"), sep=",")
        assert (tmp_path / "x.txt").read_text() == (tmp_path / "a.txt").read_text()


def test_numpys_method_arguments_astype_item_take_repeat():
    # astype's order/casting/subok, item(i) / item(i, j), take's mode and out-of-range host
    # indices, repeat with a list of counts raised TypeError or differed before 2026-12-07
    m = np.arange(6.0).reshape(3, 2)
    x = cg.asarray(m)
    assert x.astype("f4", order="C", subok=True).dtype == cg.float32
    assert x.astype(np.float32, casting="same_kind").dtype == cg.float32
    with pytest.raises(TypeError, match="same_kind"):
        x.astype(np.int32, casting="same_kind")
    assert x.item(5) == m.item(5) and x.item(1, 1) == m.item(1, 1) and x.item((2, 0)) == m.item((2, 0))
    with pytest.raises(IndexError):
        x.item(6)
    np.testing.assert_array_equal(np.asarray(x.take([0, 5], mode="clip", axis=1)), m.take([0, 5], mode="clip", axis=1))
    for key, axis in (([0, 7], 1), ([0, -3], 1), ([6], None)):
        with pytest.raises(IndexError) as want:
            m.take(key, axis=axis)
        with pytest.raises(IndexError, match=str(want.value)):
            x.take(key, axis=axis)
        with pytest.raises(IndexError, match=str(want.value)):
            cg.take(x if axis is not None else cg.reshape(x, (-1,)), key, axis=axis)
    np.testing.assert_array_equal(np.asarray(cg.take(x, cg.asarray([0, 7]), axis=1)), [[0, 0], [2, 0], [4, 0]])  # lazy fill
    idx = np.array([[0, -1, 1]])
    np.testing.assert_array_equal(np.asarray(cg.take_along_axis(x.T, idx, axis=1)), np.take_along_axis(m.T, idx, axis=1))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1"):
        cg.take_along_axis(x.T, np.array([[0, 5, 1]]), axis=-1)
    s = cg.asarray([3.0, 1.0, 2.0])
    assert int(cg.searchsorted(s, 2.5, sorter=np.array([1, 2, 0]))) == np.searchsorted([3.0, 1.0, 2.0], 2.5, sorter=[1, 2, 0])
    with pytest.raises(ValueError, match="Sorter index out of range"):
        cg.searchsorted(s, 2.5, sorter=[1, 2, 5])
    for reps, axis in (([1, 2, 0], 0), ([2], None), (np.array([1, 0]), 1)):
        np.testing.assert_array_equal(np.asarray(x.repeat(reps, axis=axis)), m.repeat(reps, axis=axis))


def test_methods_take_numpys_positional_arguments():
    # NumPy's order (until 2026-12-07 x.max(1, None, True) took True for out=; any/all/clip/round/
    # cumprod with out in position raised)
    a = np.arange(1.0, 13.0).reshape(3, 4)
    x = cg.asarray(a)
    for call in (lambda v: v.max(1, None, True), lambda v: v.min(0, None, True, -5.0), lambda v: v.argmax(1, None),
                 lambda v: v.sum(1, np.float32, None, True, 5.0), lambda v: v.prod(0, None, None, False, 2.0),
                 lambda v: (v > 3).any(1, None, keepdims=True), lambda v: (v > 3).all(0, None),
                 lambda v: v.cumprod(0, np.float64, None), lambda v: v.clip(2, 5, None), lambda v: v.round(1, None),
                 lambda v: v.std(1, np.float32, None, 1, True), lambda v: v.trace(1, 0, 1, np.float32, None),
                 lambda v: v.var(axis=1, mean=v.mean(axis=1, keepdims=True))):
        got, want = np.asarray(call(x)), call(a)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(ValueError, match="initial"):  # NumPy's: max has no identity (TypeError until 2026-12-08)
        x.max(where=x > 2)


WHERE_CALLS = [
    ("sum", {}), ("prod", {}), ("mean", {}), ("max", {"initial": -100}), ("min", {"initial": 100}),
    ("any", {}), ("all", {}), ("std", {}), ("var", {"ddof": 1}), ("sum", {"keepdims": True}), ("mean", {"axis": 0}),
    ("max", {"axis": 1, "initial": 0}), ("std", {"axis": 1}), ("var", {"axis": (0, 1)}), ("prod", {"axis": -1}),
    ("any", {"axis": 0}), ("all", {"axis": 1, "keepdims": True}), ("sum", {"axis": 0, "dtype": np.float64}),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.bool_, np.complex128])
def test_reductions_take_numpys_where(dtype):
    # where= of the reductions (functions and methods; TypeError until 2026-12-08): the elements
    # left out are the identity, mean/std/var count the ones kept, max/min need initial
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((4, 5)) * 3).astype(dtype) if dtype != np.bool_ else rng.standard_normal((4, 5)) > 0
    if dtype == np.complex128:
        a = a + 1j * rng.standard_normal((4, 5))
    x = cg.asarray(a)
    for mask in (rng.standard_normal((4, 5)) > 0, rng.standard_normal(5) > -0.5, np.zeros((4, 1), bool), True):
        w = cg.asarray(mask) if not isinstance(mask, bool) else mask
        for name, kw in WHERE_CALLS:
            if (dtype == np.bool_ and name in ("sum", "prod", "mean", "std", "var", "max", "min")) or (
                    dtype == np.complex128 and (name in ("max", "min") or "dtype" in kw)):  # (cgrad refuses
                # a complex-to-real cast, where NumPy warns and drops the imaginary parts)
                continue
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Mean of empty slice"
                want = getattr(np, name)(a, where=mask, **kw)
            for got in (getattr(cg, name)(x, where=w, **kw), getattr(x, name)(where=w, **kw)):
                got = np.asarray(got)
                assert got.shape == np.shape(want), (name, kw)
                np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, equal_nan=True, err_msg=f"{name} {kw}")
    with pytest.raises(TypeError, match="bool"):
        cg.sum(x, where=cg.ones((4, 5), dtype=cg.int32))
    with pytest.raises(ValueError):
        cg.sum(x, where=cg.ones(3, dtype=cg.bool))  # does not broadcast to x
    with pytest.raises(ValueError, match="initial"):
        cg.min(x, where=cg.ones(5, dtype=cg.bool))


def test_where_reductions_are_differentiable():
    a = np.arange(6.0).reshape(2, 3)
    m = np.array([[True, False, True], [False, True, True]])
    x = cg.asarray(a).requires_grad_()
    (g,) = cg.grad(cg.mean(x, where=cg.asarray(m)) + cg.sum(x * x, where=cg.asarray(m)), [x])
    np.testing.assert_allclose(np.asarray(g), m / m.sum() + 2 * a * m)


def test_max_and_min_of_bool_are_any_and_all():
    # b8 max/min run in any/all's 32-bit lanes since 2026-12-08 (a scalar loop before); an empty axis
    # still raises
    rng = np.random.default_rng(5)
    for shape in [(1000,), (7, 33), (3, 0, 2)]:
        a = rng.standard_normal(shape) > 1.2
        x = cg.asarray(a)
        for ax in [None, 0, -1]:
            if a.size == 0 and ax in (None, 1):
                continue
            if 0 in (a.shape if ax is None else (a.shape[ax],)):
                with pytest.raises(ValueError):
                    cg.max(x, axis=ax)
                continue
            for f in ("max", "min"):
                got = getattr(cg, f)(x, axis=ax, keepdims=True)
                assert got.dtype == cg.bool
                np.testing.assert_array_equal(np.asarray(got), getattr(np, f)(a, axis=ax, keepdims=True))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's all-NaN and empty slices
def test_nan_reductions_take_numpys_where():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((5, 6))
    a[a > 1.2] = np.nan
    x = cg.asarray(a)
    for mask in (rng.standard_normal((5, 6)) > 0, rng.standard_normal(6) > -0.3, np.zeros((5, 1), bool), True):
        w = cg.asarray(mask) if not isinstance(mask, bool) else mask
        for name, kw in [("nansum", {}), ("nanprod", {}), ("nanmean", {}), ("nanmax", {"initial": -9.0}),
                         ("nanmin", {"initial": 9.0}), ("nanvar", {}), ("nanstd", {"ddof": 1}), ("nansum", {"axis": 0}),
                         ("nanmean", {"axis": 1}), ("nanvar", {"axis": 0}), ("nanmax", {"axis": 1, "initial": -5.0})]:
            want = getattr(np, name)(a, where=mask, **kw)
            got = np.asarray(getattr(cg, name)(x, where=w, **kw))
            np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True, err_msg=f"{name} {kw}")
    with pytest.raises(ValueError, match="initial"):
        cg.nanmax(x, where=cg.asarray(np.ones(6, bool)))
