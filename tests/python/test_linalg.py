"""cgrad.linalg (the Array API's linalg extension, the part built from cgrad's lazy ops) against
NumPy: values over random shapes, offsets, axes, orders and dtypes; gradients against central
differences; errors."""
import math

import numpy as np
import pytest

import cgrad as cg
from _compare import numeric_grad as _numeric_grad

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
    if np.dtype(dtype).kind in "fc":  # negative powers: of the inverse
        rtol = 1e-3 if dtype is np.float32 else 1e-9
        for n in (-1, -2, -5):
            want = np.linalg.matrix_power(a, n)
            np.testing.assert_allclose(np.asarray(cg.linalg.matrix_power(x, n)), want, rtol=rtol,
                                       atol=rtol * np.abs(want).max())
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
    for ord_ in ("fro", 1, -1, math.inf, -math.inf, 2, -2, "nuc"):
        for keepdims in (False, True):
            want = np.linalg.norm(a, ord=ord_, axis=(-2, -1), keepdims=keepdims)
            got = cg.linalg.matrix_norm(x, ord=ord_, keepdims=keepdims)
            assert got.dtype == cg.asarray(want.astype(np.abs(a).dtype)).dtype
            assert tuple(got.shape) == want.shape
            np.testing.assert_allclose(np.asarray(got), want, rtol=rtol)
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


# ---- the decompositions (cgrad::linalg: host routines; each evaluates its input) ----
FLOATS = [np.float64, np.float32, np.complex128, np.complex64]


@pytest.fixture(params=["lapack", "builtin"])
def routines(request, monkeypatch):
    """eigh and svd run LAPACK where the machine has it, else the built-in Jacobi routines
    (CGRAD_LINALG_LAPACK=0 forces those, read at each call): the tests that take this fixture
    run both."""
    if request.param == "builtin":
        monkeypatch.setenv("CGRAD_LINALG_LAPACK", "0")
    return request.param


def _tol(dtype):
    return 2e-4 if dtype in (np.float32, np.complex64) else 1e-10


def _close(got, want, dtype, what=""):
    got = np.asarray(got)
    scale = np.max(np.abs(want)) if np.size(want) else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=_tol(dtype) * builtins_max(scale, 1e-300), err_msg=what)


def builtins_max(a, b):
    return a if a > b else b


def _hermitian(n, dtype, batch=()):
    a = rand(batch + (n, n), dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_inv_solve_det_slogdet_match_numpy(dtype):
    for batch in ((), (3,), (2, 2)):
        a = rand(batch + (5, 5), dtype)
        x = arr(a)
        _close(cg.linalg.inv(x), np.linalg.inv(a), dtype, "inv")
        _close(cg.linalg.det(x), np.linalg.det(a), dtype, "det")
        sign, logabs = cg.linalg.slogdet(x)
        s2, l2 = np.linalg.slogdet(a)
        _close(sign, s2, dtype, "sign")
        _close(logabs, l2, dtype, "logabsdet")
        assert cg.linalg.det(x).dtype == x.dtype and logabs.dtype == cg.asarray(np.abs(a)).dtype
        b = rand(batch + (5, 3), dtype)
        _close(cg.linalg.solve(x, arr(b)), np.linalg.solve(a, b), dtype, "solve")
    # b as a vector, and batch dims that broadcast
    a, b = rand((4, 4), dtype), rand((4,), dtype)
    _close(cg.linalg.solve(arr(a), arr(b)), np.linalg.solve(a, b), dtype, "vector b")
    a, b = rand((2, 1, 4, 4), dtype), rand((3, 4, 2), dtype)
    _close(cg.linalg.solve(arr(a), arr(b)), np.linalg.solve(a, b), dtype, "broadcast")
    assert tuple(cg.linalg.det(arr(np.zeros((2, 0, 0), dtype))).shape) == (2,)
    np.testing.assert_array_equal(np.asarray(cg.linalg.det(arr(np.zeros((2, 0, 0), dtype)))), [1, 1])


def test_singular_matrices():
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert float(cg.linalg.det(arr(s))) == 0.0
    sign, logabs = cg.linalg.slogdet(arr(s))
    assert float(sign) == 0.0 and float(logabs) == -math.inf
    x = arr(np.stack([np.eye(2), s]))
    for f in (cg.linalg.inv, lambda v: cg.linalg.solve(v, arr(np.ones((2, 2, 1))))):
        with pytest.raises(cg.InvalidArgumentError, match="singular.*matrix 1 of the stack"):
            f(x)
    np.testing.assert_array_equal(np.asarray(x), np.stack([np.eye(2), s]))  # left as it was


@pytest.mark.parametrize("dtype", FLOATS)
def test_cholesky_matches_numpy(dtype):
    h = _hermitian(6, dtype, (2,))
    _close(cg.linalg.cholesky(arr(h)), np.linalg.cholesky(h), dtype, "lower")
    _close(cg.linalg.cholesky(arr(h), upper=True), np.conj(np.swapaxes(np.linalg.cholesky(h), -1, -2)), dtype, "upper")
    junk = np.triu(rand((6, 6), dtype), 1)  # only the lower triangle is read (NumPy's default)
    _close(cg.linalg.cholesky(arr(h[0] + junk)), np.linalg.cholesky(h[0]), dtype, "lower triangle")
    with pytest.raises(cg.InvalidArgumentError, match="not positive definite"):
        cg.linalg.cholesky(arr(-np.eye(3, dtype=dtype)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 4), (2, 6, 3), (2, 3, 6), (1, 1), (5, 0), (0, 4)])
def test_qr_and_svd_reconstruct_and_are_orthonormal(dtype, shape, routines):
    a = rand(shape, dtype)
    x = arr(a)
    m, n = shape[-2], shape[-1]
    k = min(m, n)

    def orthonormal(q, cols):
        q = np.asarray(q)
        _close(np.conj(np.swapaxes(q, -1, -2)) @ q, np.broadcast_to(np.eye(cols), q.shape[:-2] + (cols, cols)), dtype)

    for mode, cols in (("reduced", k), ("complete", m)):
        q, r = cg.linalg.qr(x, mode=mode)
        assert tuple(q.shape) == shape[:-2] + (m, cols) and tuple(r.shape) == shape[:-2] + (cols, n)
        orthonormal(q, cols)
        _close(np.asarray(q) @ np.asarray(r), a, dtype, "QR")
        rn = np.asarray(r)
        np.testing.assert_array_equal(np.tril(rn, -1), 0)
    want_s = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(shape[:-2] + (k,))
    _close(cg.linalg.svdvals(x), want_s, dtype, "svdvals")
    for full in (False, True):
        u, s, vh = cg.linalg.svd(x, full_matrices=full)
        uc, vr = (m, n) if full else (k, k)
        assert tuple(u.shape) == shape[:-2] + (m, uc) and tuple(vh.shape) == shape[:-2] + (vr, n)
        assert s.dtype == cg.asarray(np.abs(a)).dtype
        _close(s, want_s, dtype, "S")
        orthonormal(u, uc)
        orthonormal(np.conj(np.swapaxes(np.asarray(vh), -1, -2)), vr)
        _close((np.asarray(u)[..., :, :k] * np.asarray(s)[..., None, :]) @ np.asarray(vh)[..., :k, :], a, dtype, "USVh")


def test_svd_of_rank_deficient_matrices_and_tiny_singular_values(routines):
    a = np.outer(np.arange(1.0, 6.0), np.arange(1.0, 4.0))  # rank 1
    u, s, vh = cg.linalg.svd(arr(a))
    np.testing.assert_allclose(np.asarray(s), np.linalg.svd(a, compute_uv=False), atol=1e-13)
    un = np.asarray(u)
    np.testing.assert_allclose(un.T @ un, np.eye(5), atol=1e-13)  # completed to an orthonormal basis
    assert int(cg.linalg.matrix_rank(arr(a))) == 1
    g = np.diag([1.0, 1e-10, 1e-20])  # Jacobi: each singular value to high relative accuracy
    q1, _ = np.linalg.qr(rand((3, 3)))
    q2, _ = np.linalg.qr(rand((3, 3)))
    s = np.asarray(cg.linalg.svdvals(arr(np.diag([1.0, 1e-10, 1e-20]))))
    np.testing.assert_allclose(s, [1.0, 1e-10, 1e-20], rtol=1e-14)
    s = np.asarray(cg.linalg.svdvals(arr(q1 @ g @ q2)))
    np.testing.assert_allclose(s[:2], [1.0, 1e-10], rtol=1e-5)


@pytest.mark.parametrize("dtype", FLOATS)
def test_eigh_matches_numpy(dtype, routines):
    h = _hermitian(7, dtype, (3,))
    w, v = cg.linalg.eigh(arr(h))
    _close(w, np.linalg.eigvalsh(h), dtype, "eigenvalues")
    _close(cg.linalg.eigvalsh(arr(h)), np.linalg.eigvalsh(h), dtype, "eigvalsh")
    vn, wn = np.asarray(v), np.asarray(w)
    _close(h @ vn, vn * wn[..., None, :], dtype, "A V = V diag(w)")
    _close(np.conj(np.swapaxes(vn, -1, -2)) @ vn, np.broadcast_to(np.eye(7), vn.shape), dtype, "unitary")
    # repeated eigenvalues, a diagonal matrix, the lower triangle only
    for m in (np.eye(4), np.diag([3.0, -1.0, 2.0]), np.array([[2.0, 99.0], [1.0, 2.0]])):
        sym = np.tril(m) + np.tril(m, -1).T
        np.testing.assert_allclose(np.asarray(cg.linalg.eigvalsh(arr(m.astype(dtype)))), np.linalg.eigvalsh(sym),
                                   atol=_tol(dtype))


def _match_eigenvalues(got, want):
    """The permutation of `want` nearest to `got` (eig's order is LAPACK's, or the QR algorithm's)."""
    order, free = [], list(range(len(want)))
    for z in got:
        k = min(free, key=lambda j: abs(z - want[j]))
        order.append(k)
        free.remove(k)
    return np.asarray(order)


@pytest.mark.parametrize("dtype", FLOATS)
def test_eig_matches_numpy(dtype, routines):
    cdt = np.complex64 if dtype in (np.float32, np.complex64) else np.complex128
    mats = [rand((3, 6, 6), dtype), np.array([[0.0, -1.0], [1.0, 0.0]]), np.array([[2.0, 1.0], [0.0, 2.0]]),
            np.eye(6)[[1, 2, 3, 4, 5, 0]], np.zeros((3, 3)), np.triu(rand((5, 5))), rand((1, 1)),
            np.diag(np.ones(7), -1) + np.diag(np.arange(8.0))]
    for a in mats:
        a = a.astype(dtype)
        w, v = cg.linalg.eig(arr(a))
        assert w.dtype == cg.asarray(np.zeros(1, cdt)).dtype and v.dtype == w.dtype
        wn, vn = np.asarray(w), np.asarray(v)
        ws = np.asarray(cg.linalg.eigvals(arr(a)))
        for b in np.ndindex(a.shape[:-2]):
            want = np.linalg.eigvals(a[b].astype(cdt))
            _close(wn[b], want[_match_eigenvalues(wn[b], want)], dtype, "eigenvalues")
            _close(ws[b], want[_match_eigenvalues(ws[b], want)], dtype, "eigvals")
        _close(a @ vn, vn * wn[..., None, :], dtype, "A V = V diag(w)")
        _close(np.linalg.norm(vn, axis=-2), np.ones(wn.shape), dtype, "unit columns")
        biggest = np.abs(vn) >= np.abs(vn).max(axis=-2, keepdims=True) * (1 - 1e-3)  # (ties: a permutation's)
        assert np.any(biggest & (np.abs(vn.imag) <= _tol(dtype) * 10), axis=-2).all(), "largest component real"
    # distinct eigenvalues: under LAPACK's normalization the vectors are NumPy's up to their sign
    a = np.diag([1.0, 2.0, 4.0]) + np.triu(rand((3, 3)), 1)
    w, v = cg.linalg.eig(arr(a))
    wn, vn = np.linalg.eig(a)
    vn = vn[:, _match_eigenvalues(np.asarray(w), wn)]
    _close(np.asarray(v) * np.sign(np.sum(np.conj(np.asarray(v)) * vn, axis=0).real), vn, np.float64, "vectors")
    # NaN goes through; an empty matrix gives empty results
    assert np.isnan(np.asarray(cg.linalg.eigvals(arr(np.full((2, 2), np.nan))))).all()
    assert cg.linalg.eig(arr(np.zeros((2, 0, 0)))).eigenvectors.shape == (2, 0, 0)


def test_eig_and_eigvals_gradients_match_central_differences(routines):
    for dtype in (np.float64, np.complex128):
        a = rand((4, 4), dtype)
        wts = arr(np.array([1.0, -2.0, 0.5, 0.25]))

        def loss(x):  # symmetric in the eigenvalues' order: the sorted real and imaginary parts
            w = cg.linalg.eigvals(x)
            return cg.sum(cg.sort(cg.real(w)) * wts) + cg.sum(cg.sort(cg.imag(w)) * wts)

        _grad_check(loss, a, rtol=1e-4, atol=1e-6)
        # through the eigenvectors: a loss that does not depend on their phases (|v|^2 weighted),
        # and through eig's eigenvalues
        c = np.abs(rand((4, 4)))
        _grad_check(lambda x: cg.sum(cg.abs(cg.linalg.eig(x).eigenvectors) ** 2 * arr(c)), a, rtol=1e-4, atol=1e-6)
        _grad_check(lambda x: cg.sum(cg.abs(cg.linalg.eig(x).eigenvalues) ** 2), a, rtol=1e-4, atol=1e-6)
    with pytest.raises(cg.ShapeError):
        cg.linalg.eig(arr(np.ones((2, 3))))
    with pytest.raises(TypeError):
        cg.linalg.eigvals(arr(np.eye(2, dtype=np.int32)))


def test_pinv_and_matrix_rank_match_numpy(routines):
    for shape in ((4, 4), (2, 5, 3), (3, 6)):
        a = rand(shape)
        np.testing.assert_allclose(np.asarray(cg.linalg.pinv(arr(a))), np.linalg.pinv(a), atol=1e-10)
        np.testing.assert_array_equal(np.asarray(cg.linalg.matrix_rank(arr(a))), np.linalg.matrix_rank(a))
    low = rand((4, 2)) @ rand((2, 5))
    assert int(cg.linalg.matrix_rank(arr(low))) == 2
    np.testing.assert_allclose(np.asarray(cg.linalg.pinv(arr(low))), np.linalg.pinv(low), atol=1e-10)
    assert int(cg.linalg.matrix_rank(arr(np.diag([1.0, 1e-3])), rtol=1e-2)) == 1
    np.testing.assert_array_equal(
        np.asarray(cg.linalg.matrix_rank(arr(np.stack([np.diag([1.0, 1e-3])] * 2)), rtol=arr(np.array([1e-2, 1e-4])))),
        [1, 2])


def test_decompositions_check_their_input():
    with pytest.raises(cg.ShapeError):
        cg.linalg.inv(arr(np.ones((2, 3))))
    with pytest.raises(cg.InvalidArgumentError):
        cg.linalg.det(arr(np.ones(3)))
    with pytest.raises(TypeError):
        cg.linalg.eigh(arr(np.eye(2, dtype=np.int32)))
    with pytest.raises(cg.ShapeError):
        cg.linalg.solve(arr(np.eye(3)), arr(np.ones((2, 1))))
    with pytest.raises(ValueError):
        cg.linalg.qr(arr(np.eye(2)), mode="economic")


def _grad_check(f, a, rtol=1e-5, atol=1e-7):
    """f's gradient at a (cgrad) against central differences; complex a: d/dRe + i d/dIm."""
    w = arr(a).requires_grad_()
    (g,) = cg.grad(f(w), [w])
    want = _numeric_grad(lambda v: float(f(arr(v))), a.real.copy() if np.iscomplexobj(a) else a)
    if np.iscomplexobj(a):
        im = _numeric_grad(lambda v: float(f(arr(a.real + 1j * v))), a.imag.copy())
        want = np.zeros(a.shape, complex)
        want.real = _numeric_grad(lambda v: float(f(arr(v + 1j * a.imag))), a.real.copy())
        want.imag = im
    np.testing.assert_allclose(np.asarray(g), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_decomposition_gradients_match_central_differences(dtype, routines):
    a = rand((3, 3), dtype) + 3 * np.eye(3)
    b = rand((3, 2), dtype)
    c = rand((3, 3), dtype)

    def real_loss(t):
        return cg.sum(cg.real(t * arr(np.conj(c[: t.shape[0], : t.shape[1]]))) + cg.imag(t) * 0.5) \
            if t.ndim == 2 else cg.sum(cg.real(t) * 0.7 + cg.imag(t) * 0.3)

    _grad_check(lambda x: real_loss(cg.linalg.inv(x)), a)
    _grad_check(lambda x: real_loss(cg.linalg.solve(x, arr(b))), a)
    _grad_check(lambda x: real_loss(cg.linalg.solve(arr(a), x)), b)
    _grad_check(lambda x: cg.sum(cg.real(cg.linalg.det(x)) + cg.imag(cg.linalg.det(x))), a)
    _grad_check(lambda x: cg.sum(cg.linalg.slogdet(x).logabsdet), a)
    if dtype is np.complex128:  # the sign's phase moves with x too
        _grad_check(lambda x: cg.sum(cg.imag(cg.linalg.slogdet(x).sign) + cg.linalg.slogdet(x).logabsdet), a)
    sym = lambda x: x @ cg.conj(x).mT + arr(3 * np.eye(3))  # noqa: E731  (Hermitian positive definite)
    _grad_check(lambda x: real_loss(cg.linalg.cholesky(sym(x))), a)
    _grad_check(lambda x: cg.sum(cg.linalg.eigvalsh(sym(x)) * arr(np.array([1.0, -2.0, 0.5]))), a)
    _grad_check(lambda x: cg.sum(cg.linalg.svdvals(x) * arr(np.array([1.0, -2.0, 0.5]))), a)
    _grad_check(lambda x: cg.linalg.matrix_norm(x, ord=2) + cg.linalg.matrix_norm(x, ord="nuc"), a)
    # eigenvectors: a loss that does not depend on their phases (|v|^2 weighted)
    _grad_check(lambda x: cg.sum(cg.abs(cg.linalg.eigh(sym(x)).eigenvectors) ** 2 * arr(np.abs(c))), a)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_qr_and_svd_gradients_match_central_differences(dtype, routines):
    # since 2026-12-07 (their backward raised before); square, tall and wide matrices
    for shape in ((3, 3), (4, 3), (3, 5)):
        a = rand(shape, dtype) + np.eye(*shape)
        wq, wr = rand((shape[0], min(shape)), dtype), rand((min(shape), shape[1]), dtype)
        wa, wp = rand(shape, dtype), rand(shape[::-1], dtype)

        def weighted(t, w):
            return cg.sum(cg.real(t * arr(np.conj(w))))

        _grad_check(lambda x: weighted(cg.linalg.qr(x).Q, wq) + weighted(cg.linalg.qr(x).R, wr), a)
        k = min(shape)
        for full in (False, True):  # with full_matrices the columns past k do not enter the loss
            # losses that do not depend on the singular vectors' phases (PyTorch's rule)
            _grad_check(lambda x: cg.sum(cg.abs(cg.linalg.svd(x, full_matrices=full).U[:, :k]) ** 2 * arr(np.abs(wq))), a)
            _grad_check(lambda x: cg.sum(cg.abs(cg.linalg.svd(x, full_matrices=full).Vh[:k]) ** 2 * arr(np.abs(wr))), a)
            _grad_check(lambda x: weighted((lambda r: (r.U[:, :k] * r.S) @ r.Vh[:k])(cg.linalg.svd(x, full_matrices=full)),
                                           wa), a)
            _grad_check(lambda x: cg.sum(cg.linalg.svd(x, full_matrices=full).S * arr(np.arange(1.0, k + 1))), a)
        _grad_check(lambda x: weighted(cg.linalg.pinv(x), wp), a)
    # the complete QR of a tall matrix: Q's last columns are not determined by A
    w = arr(rand((4, 3))).requires_grad_()
    with pytest.raises(cg.InvalidOperationError, match="not differentiable"):
        cg.grad(cg.sum(cg.linalg.qr(w, mode="complete").R), [w])


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_qr_is_numpys_with_a_real_diagonal(dtype, routines):
    # the built-in routine takes LAPACK's reflectors: R's diagonal real, the same Q and R as NumPy's
    # (a complex diagonal with the column's phase until 2026-12-07)
    for shape in ((3, 3), (5, 3), (3, 6), (1, 4), (4, 1)):
        a = rand(shape, dtype)
        a[:, 0] = 0 if shape[1] > 2 else a[:, 0]
        for mode in ("reduced", "complete"):
            q, r = cg.linalg.qr(arr(a), mode=mode)
            nq, nr = np.linalg.qr(a, mode=mode)
            np.testing.assert_allclose(np.asarray(q), nq, atol=1e-12)
            np.testing.assert_allclose(np.asarray(r), nr, atol=1e-12)
            assert np.all(np.diagonal(np.asarray(r)).imag == 0)


def test_decompositions_inside_compile_run_eagerly_and_stay_right():
    @cg.compile
    def f(a, b):
        return cg.linalg.solve(a @ a.mT + 3 * cg.eye(3, dtype=cg.float64), b) * 2 + cg.linalg.trace(a)

    for seed in range(3):
        r = np.random.default_rng(seed)
        a, b = r.standard_normal((3, 3)), r.standard_normal((3, 2))
        want = 2 * np.linalg.solve(a @ a.T + 3 * np.eye(3), b) + np.trace(a)
        np.testing.assert_allclose(np.asarray(f(arr(a), arr(b))), want, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_larger_matrices_match_numpy(dtype, routines):
    # past the sizes under which LAPACK is skipped for the built-in routines (src/linalg/lapack.cpp)
    for shape in ((40, 40), (2, 50, 36), (36, 50)):
        a = rand(shape, dtype)
        x = arr(a)
        q, r = cg.linalg.qr(x)
        _close(np.asarray(q) @ np.asarray(r), a, dtype, "QR")
        np.testing.assert_array_equal(np.tril(np.asarray(r), -1), 0)
        u, s, vh = cg.linalg.svd(x, full_matrices=False)
        _close(s, np.linalg.svd(a, compute_uv=False), dtype, "S")
        _close((np.asarray(u) * np.asarray(s)[..., None, :]) @ np.asarray(vh), a, dtype, "USVh")
        if shape[-1] == shape[-2]:
            h = _hermitian(shape[-1], dtype)
            w, v = cg.linalg.eigh(arr(h))
            _close(w, np.linalg.eigvalsh(h), dtype, "w")
            _close(h @ np.asarray(v), np.asarray(v) * np.asarray(w)[None, :], dtype, "AV")


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32])
def test_lu_and_cholesky_past_the_lapack_threshold(dtype, routines):
    # 100 x 100: LAPACK's getrf / potrf where found (src/linalg/lapack.cpp, kLuSmall), else ours
    a = rand((2, 100, 100), dtype) + 10 * np.eye(100, dtype=dtype)
    b = rand((2, 100, 3), dtype)
    x = arr(a)
    _close(cg.linalg.solve(x, arr(b)), np.linalg.solve(a, b), dtype, "solve")
    _close(cg.linalg.inv(x), np.linalg.inv(a), dtype, "inv")
    sign, logabs = cg.linalg.slogdet(x)
    s2, l2 = np.linalg.slogdet(a)
    _close(sign, s2, dtype, "sign")
    _close(logabs, l2, dtype, "logabsdet")
    h = _hermitian(100, dtype)
    _close(cg.linalg.cholesky(arr(h)), np.linalg.cholesky(h), dtype, "cholesky")
    singular = a[0].copy()
    singular[7] = 0
    assert complex(cg.linalg.det(arr(singular))) == 0
    with pytest.raises(cg.InvalidArgumentError, match="singular"):
        cg.linalg.inv(arr(singular))
    with pytest.raises(cg.InvalidArgumentError, match="not positive definite"):
        cg.linalg.cholesky(arr(h - 1000 * np.eye(100, dtype=dtype)))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32])
def test_tensorinv_and_tensorsolve_match_numpy(dtype):
    tol = 2e-3 if dtype == np.float32 else 1e-9
    for shape, ind in [((4, 6, 8, 3), 2), ((24, 8, 3), 1), ((2, 3, 6), 2), ((5, 5), 1)]:
        a = rand(shape, dtype)
        got = cg.linalg.tensorinv(arr(a), ind)
        want = np.linalg.tensorinv(a, ind)
        assert got.shape == want.shape and np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)
    for ashape, bshape, axes in [((6, 4, 2, 3, 4), (6, 4), None), ((2, 3, 6, 4, 4), (6, 4), (0, 1)),
                                 ((3, 3), (3,), None), ((2, 3, 6), (6,), (0, 1))]:
        a, b = rand(ashape, dtype), rand(bshape, dtype)
        got = cg.linalg.tensorsolve(arr(a), arr(b), axes)
        want = np.linalg.tensorsolve(a, b, axes)
        assert got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)
    # the gradient flows through inv and solve
    a = rand((2, 3, 6), np.float64)
    t = arr(a).requires_grad_()
    (g,) = cg.grad(cg.sum(cg.linalg.tensorinv(t) ** 2), [t])
    eps, d = 1e-6, rng.standard_normal(a.shape)
    num = (np.sum(np.linalg.tensorinv(a + eps * d) ** 2) - np.sum(np.linalg.tensorinv(a - eps * d) ** 2)) / (2 * eps)
    assert abs(float(np.sum(np.asarray(g) * d)) - num) < 1e-5 * max(1.0, abs(num))


def test_tensorinv_and_tensorsolve_errors_follow_numpy():
    with pytest.raises(ValueError, match="product"):
        cg.linalg.tensorinv(arr(rand((4, 6, 8))), 1)
    with pytest.raises(ValueError):
        cg.linalg.tensorinv(arr(rand((4, 4))), 0)
    with pytest.raises(ValueError, match="prod"):
        cg.linalg.tensorsolve(arr(rand((6, 4, 3))), arr(rand((6, 4))))
    with pytest.raises(cg.linalg.LinAlgError, match="singular"):
        cg.linalg.tensorinv(cg.zeros((2, 2, 4)), 2)
    assert issubclass(cg.linalg.LinAlgError, ValueError)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_numpys_keywords_uplo_tol_rcond(dtype):
    # NumPy's UPLO of eigh/eigvalsh, tol of matrix_rank and rcond/hermitian of pinv (since 2026-12-07)
    h = rand((3, 3), dtype)
    for uplo in ("L", "U"):
        want_w, want_v = np.linalg.eigh(h, UPLO=uplo)
        w, v = cg.linalg.eigh(arr(h), UPLO=uplo)
        np.testing.assert_allclose(np.asarray(w), want_w, atol=1e-12)
        np.testing.assert_allclose(np.abs(np.asarray(v)), np.abs(want_v), atol=1e-10)  # (phases may differ)
        np.testing.assert_allclose(np.asarray(cg.linalg.eigvalsh(arr(h), UPLO=uplo)), want_w, atol=1e-12)
    with pytest.raises(ValueError):
        cg.linalg.eigvalsh(arr(h), UPLO="X")
    low = rand((4, 2), dtype) @ rand((2, 5), dtype)
    for tol in (1e-9, 1.0, 100.0):
        assert int(cg.linalg.matrix_rank(arr(low), tol=tol)) == np.linalg.matrix_rank(low, tol=tol)
    assert int(cg.linalg.matrix_rank(arr(low), hermitian=False)) == 2
    for rcond in (1e-15, 0.3):
        np.testing.assert_allclose(np.asarray(cg.linalg.pinv(arr(low), rcond=rcond)), np.linalg.pinv(low, rcond=rcond),
                                   atol=1e-10)
    sym = h @ np.conj(h).T
    np.testing.assert_allclose(np.asarray(cg.linalg.pinv(arr(sym), hermitian=True)), np.linalg.pinv(sym, hermitian=True),
                               atol=1e-10)


def test_second_derivatives_through_the_decompositions_match_differences_of_the_first(routines):
    # Hessian-vector products (grad of a grad with create_graph) against central differences of
    # the first derivative. Until 2026-12-07 backward read the host routines' outputs without
    # their history, so these missed every term through U, S, Q, L, inv(A)... (silently), and a
    # tall SVD's also met the memory planner's in-place bug (docs/fusion.md).
    a = rand((4, 3)) + np.eye(4, 3)
    sq = a[:3] + 2 * np.eye(3)
    w = rand((4, 3))
    losses = {
        "inv": (lambda x: cg.sum(cg.linalg.inv(x) ** 2), sq),
        "det": (lambda x: cg.linalg.det(x) ** 2, sq),
        "cholesky": (lambda x: cg.sum(cg.linalg.cholesky(x @ x.mT + arr(np.eye(3))) ** 2), sq),
        "eigh": (lambda x: cg.sum(cg.linalg.eigh(x + x.mT).eigenvectors ** 2 * arr(w[:3])), sq),
        "eigvalsh": (lambda x: cg.sum(cg.linalg.eigvalsh(x + x.mT) ** 3), sq),
        "svdvals": (lambda x: cg.sum(cg.linalg.svdvals(x) ** 3), a),
        "svd U": (lambda x: cg.sum(cg.linalg.svd(x, full_matrices=False).U ** 2 * arr(w)), a),
        "svd Vh wide": (lambda x: cg.sum(cg.linalg.svd(x.mT, full_matrices=False).Vh ** 2 * arr(w.T)), a),
        "qr": (lambda x: cg.sum(cg.linalg.qr(x).R ** 2) + cg.sum(cg.linalg.qr(x).Q ** 2 * arr(w)), a),
    }
    d = rand((4, 3))
    for name, (f, x0) in losses.items():
        dd = d[: x0.shape[0], : x0.shape[1]]

        def first(v):
            x = arr(v).requires_grad_()
            return np.asarray(cg.grad(f(x), [x])[0])

        x = arr(x0).requires_grad_()
        (g,) = cg.grad(f(x), [x], create_graph=True)
        (hv,) = cg.grad(cg.sum(g * arr(dd)), [x])
        h = 1e-6
        want = (first(x0 + h * dd) - first(x0 - h * dd)) / (2 * h)
        np.testing.assert_allclose(np.asarray(hv), want, rtol=1e-5, atol=1e-6, err_msg=name)


def test_non_finite_matrices_give_nan():
    # NaN in, NaN out, as JAX (until 2026-12-07 pinv of this matrix was zeros and det 1)
    for bad in (np.nan, np.inf):
        a = cg.asarray(np.array([[1.0, bad], [0.0, 1.0]]))
        for r in (cg.linalg.pinv(a), cg.linalg.svdvals(a), cg.linalg.det(a), cg.linalg.inv(a),
                  cg.linalg.lstsq(a, cg.asarray(np.ones(2))).x, cg.linalg.cond(a)):
            assert np.isnan(np.asarray(r)).all(), bad
        assert int(cg.linalg.matrix_rank(a)) == 0
    assert float(cg.linalg.cond(cg.zeros((3, 3), dtype=cg.float64))) == np.inf  # NumPy's 0 / 0
    with pytest.raises(ValueError):
        cg.linalg.cond(cg.zeros((0, 0)))


def test_qr_takes_numpys_mode_by_position_and_r():
    a = np.random.default_rng(3).standard_normal((5, 3))
    r = np.asarray(cg.linalg.qr(cg.asarray(a), "r"))  # R alone (since 2026-12-07)
    np.testing.assert_allclose(np.abs(r), np.abs(np.linalg.qr(a, "r")), rtol=1e-12, atol=1e-12)
    assert cg.linalg.qr(cg.asarray(a), "complete").Q.shape == (5, 5)
    with pytest.raises(ValueError):
        cg.linalg.qr(cg.asarray(a), "raw")
