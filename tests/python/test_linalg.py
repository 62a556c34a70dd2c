"""cgrad.linalg (the Array API's linalg extension, the part built from cgrad's lazy ops) against
NumPy: values over random shapes, offsets, axes, orders and dtypes; gradients against central
differences; errors."""
import math

import numpy as np
import pytest

import cgrad as cg

rng = np.random.default_rng(7)


def arr(a):
    return cg.asarray(np.asarray(a))


def rand(shape, dtype=np.float64):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    elif np.dtype(dtype).kind in "iu":
        a = rng.integers(0 if np.dtype(dtype).kind == "u" else -9, 10, shape)
    return a.astype(dtype)


def test_the_namespace_has_the_extension():
    assert cg.linalg.matmul is cg.matmul and cg.linalg.vecdot is cg.vecdot
    assert cg.linalg.tensordot is cg.tensordot and cg.linalg.matrix_transpose is cg.matrix_transpose
    with pytest.raises(AttributeError, match="not available yet"):
        cg.linalg.solve
    with pytest.raises(AttributeError, match="no attribute"):
        cg.linalg.no_such_function


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 4), (2, 1, 4, 3), (0, 3), (3, 0), (1, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.complex64, np.bool_])
def test_diagonal_matches_numpy_at_every_offset(shape, dtype):
    a = rand(shape, dtype) if dtype is not np.bool_ else rng.random(shape) > 0.5
    x = arr(a)
    for k in range(-shape[-2] - 1, shape[-1] + 2):
        want = np.diagonal(a, offset=k, axis1=-2, axis2=-1)
        got = cg.linalg.diagonal(x, offset=k)
        assert got.dtype == x.dtype and tuple(got.shape) == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)


def test_diagonal_of_a_transposed_view_and_assignment_leave_the_input():
    a = rand((3, 4))
    x = arr(a)
    np.testing.assert_array_equal(np.asarray(cg.linalg.diagonal(x.mT, offset=-1)), np.diagonal(a.T, -1))
    d = cg.linalg.diagonal(x)
    d[...] = 0.0
    np.testing.assert_array_equal(np.asarray(x), a)  # a new array: writes do not reach x


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, np.complex128])
def test_trace_matches_numpy(dtype):
    a = rand((2, 4, 5), dtype)
    x = arr(a)
    for k in (-4, -1, 0, 2, 5):
        want = np.trace(a, offset=k, axis1=-2, axis2=-1)
        got = cg.linalg.trace(x, offset=k)
        assert tuple(got.shape) == (2,)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    assert cg.linalg.trace(arr(rand((3, 3), np.int8))).dtype == cg.int64  # sum's dtype rules
    assert cg.linalg.trace(arr(rand((3, 3), np.int32)), dtype=cg.float64).dtype == cg.float64
    with pytest.raises(TypeError):
        cg.linalg.trace(arr(np.eye(2, dtype=bool)))


def test_outer_matches_numpy_and_promotes():
    a, b = rand(4, np.float32), rand(3, np.int64)
    got = cg.linalg.outer(arr(a), arr(b))
    np.testing.assert_allclose(np.asarray(got), np.outer(a, b), rtol=1e-6)
    assert got.dtype == cg.float32  # float32 with int64: float32 (the standard's rule; NumPy says float64)
    assert tuple(cg.linalg.outer(arr(np.zeros(0)), arr(b)).shape) == (0, 3)
    with pytest.raises(cg.InvalidArgumentError):
        cg.linalg.outer(arr(np.ones((2, 2))), arr(b))


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint16, np.complex64])
def test_cross_matches_numpy_with_broadcasting_and_axes(dtype):
    for s1, s2, axis in [((3,), (3,), -1), ((4, 3), (3,), -1), ((2, 1, 3), (5, 3), -1), ((3, 4), (3, 4), -2),
                         ((2, 3, 1), (1, 3, 5), -2), ((3, 2, 2), (3, 1, 2), -3)]:
        a, b = rand(s1, dtype), rand(s2, dtype)
        want = np.cross(a, b, axis=axis)
        got = cg.linalg.cross(arr(a), arr(b), axis=axis)
        assert tuple(got.shape) == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_cross_rejects_bad_axes_and_sizes():
    x3, x2 = arr(np.ones((2, 3))), arr(np.ones((2, 2)))
    with pytest.raises(cg.ShapeError):
        cg.linalg.cross(x2, x2)
    with pytest.raises(cg.InvalidArgumentError):
        cg.linalg.cross(x3, x3, axis=0)  # the standard: a negative axis
    with pytest.raises(cg.InvalidArgumentError):
        cg.linalg.cross(x3, x3, axis=-3)
    with pytest.raises(TypeError):
        cg.linalg.cross(arr(np.ones(3, bool)), arr(np.ones(3, bool)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex128])
def test_matrix_power_matches_numpy(dtype):
    a = rand((2, 4, 4), dtype)
    if np.dtype(dtype).kind in "iu":
        a = a % 3
    elif np.dtype(dtype).kind in "fc":
        a = a / 2
    x = arr(a)
    for n in range(0, 12):
        want = np.linalg.matrix_power(a, n)
        got = cg.linalg.matrix_power(x, n)
        assert got.dtype == x.dtype and tuple(got.shape) == a.shape
        rtol = 1e-4 if dtype is np.float32 else 1e-11
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=rtol * np.abs(want).max())
    one = cg.linalg.matrix_power(x, 1)
    one[...] = 0
    np.testing.assert_array_equal(np.asarray(x), a)  # n = 1 is a new array too
    with pytest.raises(NotImplementedError, match="inv"):
        cg.linalg.matrix_power(x, -1)
    with pytest.raises(cg.ShapeError):
        cg.linalg.matrix_power(arr(np.ones((2, 3))), 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_vector_norm_matches_numpy_for_every_order_and_axis(dtype):
    a = rand((3, 4, 5), dtype)
    x = arr(a)
    rtol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-12
    for ord_ in (2, 1, 0, -1, -2, 3, 0.5, -0.7, math.inf, -math.inf, 37):
        for axis in (None, 0, -1, (0, 2), (2, 0, 1), ()):
            for keepdims in (False, True):
                got = cg.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord_)
                ax = tuple(range(a.ndim)) if axis is None else axis
                m = np.abs(a)
                if ord_ == math.inf:
                    want = np.max(m, axis=ax, keepdims=keepdims) if ax != () else m
                elif ord_ == -math.inf:
                    want = np.min(m, axis=ax, keepdims=keepdims) if ax != () else m
                elif ord_ == 0:
                    want = np.sum(m != 0, axis=ax, keepdims=keepdims).astype(m.dtype)
                else:
                    with np.errstate(divide="ignore"):
                        want = np.sum(m.astype(np.float64) ** ord_, axis=ax, keepdims=keepdims) ** (1 / ord_)
                assert got.dtype == cg.asarray(m).dtype, (ord_, axis)
                assert tuple(got.shape) == np.shape(want), (ord_, axis, keepdims)
                np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, err_msg=f"ord={ord_} axis={axis}")


def test_vector_norm_agrees_with_numpys_norm_and_rejects_integers():
    a = rand((6, 7))
    for ord_ in (None, 1, 2, math.inf, -math.inf, 0, 3):
        want = np.linalg.norm(a.ravel(), ord=ord_)
        got = float(cg.linalg.vector_norm(arr(a), ord=2 if ord_ is None else ord_))
        assert math.isclose(got, want, rel_tol=1e-12)
    with pytest.raises(TypeError):
        cg.linalg.vector_norm(arr(np.ones(3, np.int32)))
    with pytest.raises(cg.InvalidArgumentError):
        cg.linalg.vector_norm(arr(a), axis=2)
    with pytest.raises(ValueError):
        cg.linalg.vector_norm(arr(a), ord="fro")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_matrix_norm_matches_numpy(dtype):
    a = rand((2, 3, 4, 5), dtype)
    x = arr(a)
    rtol = 1e-5 if dtype is np.float32 else 1e-12
    for ord_ in ("fro", 1, -1, math.inf, -math.inf):
        for keepdims in (False, True):
            want = np.linalg.norm(a, ord=ord_, axis=(-2, -1), keepdims=keepdims)
            got = cg.linalg.matrix_norm(x, ord=ord_, keepdims=keepdims)
            assert got.dtype == cg.asarray(want.astype(np.abs(a).dtype)).dtype
            assert tuple(got.shape) == want.shape
            np.testing.assert_allclose(np.asarray(got), want, rtol=rtol)
    for ord_ in (2, -2, "nuc"):
        with pytest.raises(NotImplementedError, match="svdvals"):
            cg.linalg.matrix_norm(x, ord=ord_)
    with pytest.raises(ValueError):
        cg.linalg.matrix_norm(x, ord=3)
    with pytest.raises(cg.InvalidArgumentError):
        cg.linalg.matrix_norm(arr(np.ones(3)))


def test_the_functions_stay_lazy_and_fuse():
    x = arr(rand((64, 64)))
    cg.eval(x)
    cg.reset_stats()
    r = cg.linalg.trace(x) + cg.linalg.vector_norm(x) + cg.linalg.matrix_norm(x, ord=1)
    assert cg.stats()["kernels_launched"] == 0  # nothing ran yet
    float(r)
    assert cg.stats()["kernels_launched"] >= 1


def _numeric_grad(f, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


@pytest.mark.parametrize("name", ["trace", "diagonal", "vector_norm", "vector_norm3", "matrix_norm_fro",
                                  "matrix_norm_inf", "matrix_power", "cross", "outer"])
def test_gradients_match_central_differences(name):
    a = rand((3, 3)) + 2 * np.eye(3)
    b = rand((3, 3))
    fns = {
        "trace": lambda x: cg.linalg.trace(x, offset=1) * 3.0,
        "diagonal": lambda x: cg.sum(cg.linalg.diagonal(x, offset=-1) ** 2),
        "vector_norm": lambda x: cg.linalg.vector_norm(x),
        "vector_norm3": lambda x: cg.sum(cg.linalg.vector_norm(x, axis=0, ord=3)),
        "matrix_norm_fro": lambda x: cg.linalg.matrix_norm(x),
        "matrix_norm_inf": lambda x: cg.linalg.matrix_norm(x, ord=math.inf),
        "matrix_power": lambda x: cg.sum(cg.linalg.matrix_power(x, 3) * arr(b)),
        "cross": lambda x: cg.sum(cg.linalg.cross(x, arr(b)) ** 2),
        "outer": lambda x: cg.sum(cg.linalg.outer(x[0], x[1]) * arr(b)),
    }
    f = fns[name]
    w = arr(a).requires_grad_()
    (g,) = cg.grad(f(w), [w])
    want = _numeric_grad(lambda v: float(f(arr(v))), a)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6, atol=1e-7)


def test_vector_norm_of_a_large_order_neither_underflows_nor_overflows():
    for vals, ord_ in [([1e-3, 2e-3, 0.0], 37), ([1e30, 1e30], 3), ([1e-30, 3e-30], -3), ([5e-20, 1e-19], 2.5)]:
        a = np.array(vals, np.float32)
        m = np.abs(a.astype(np.float64))
        s = m.max() if ord_ > 0 else m.min()
        want = s * np.sum((m / s) ** ord_) ** (1 / ord_)
        got = float(cg.linalg.vector_norm(arr(a), ord=ord_))
        assert math.isclose(got, want, rel_tol=1e-5), (vals, ord_, got, want)
    inf, nan = math.inf, math.nan
    for vals, ord_, want in [([0.0, 0.0], 3, 0.0), ([1.0, 0.0], -3, 0.0), ([inf, 1.0], 3, inf), ([inf, inf], -3, inf),
                             ([nan, 1.0], 3, nan), ([1.0, nan], -0.5, nan)]:
        got = float(cg.linalg.vector_norm(arr(np.array(vals)), ord=ord_))
        assert got == want or (math.isnan(got) and math.isnan(want)), (vals, ord_, got)
    assert float(cg.linalg.vector_norm(arr(np.zeros((0, 2))), ord=3)) == 0.0  # NumPy: 0 too


def test_vecdot_contracts_equal_sizes_only():
    a, b = rand((2, 3, 4)), rand((3, 4))
    np.testing.assert_allclose(np.asarray(cg.vecdot(arr(a), arr(b))), np.vecdot(a, b), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(cg.vecdot(arr(a), arr(b), axis=-2)),
                               np.sum(a * b, axis=-2), rtol=1e-12)
    for s1, s2, axis in [((3, 1), (3, 4), -1), ((4,), (1,), -1), ((2, 3), (3,), -2)]:
        with pytest.raises((cg.ShapeError, cg.InvalidArgumentError)):  # a length-1 axis does not broadcast
            cg.vecdot(arr(np.ones(s1)), arr(np.ones(s2)), axis=axis)
