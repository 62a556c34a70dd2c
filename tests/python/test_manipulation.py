"""The manipulation functions (moveaxis, roll, tile, repeat, unstack, meshgrid, tril, triu,
diff) against NumPy, which is the oracle, and their errors."""
import numpy as np
import pytest

import cgrad as cg

X = (np.arange(24, dtype=np.float64).reshape(2, 3, 4) ** 2) % 7 - 3


def arr(a):
    return cg.asarray(np.asarray(a))


def same(got, want):
    got = np.asarray(got)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("src,dst", [(0, -1), (2, 0), ((0, 1), (-1, -2)), ([2, 0], [0, 2])])
def test_moveaxis(src, dst):
    same(cg.moveaxis(arr(X), src, dst), np.moveaxis(X, src, dst))


# one shift for several axes (the standard's rule), one axis for several shifts, NumPy integers and
# shifts past int64 (since 2026-12-07: they raised)
@pytest.mark.parametrize("shift,axis", [(1, None), (-7, None), (8, None), (2, 1), (-1, -1), ((1, 2), (0, 2)), ((1, 1), (1, 1)),
                                        (1, (0, 2)), ((1, -4), 1), (np.int64(3), None), (10**20 + 1, -1), ((1, 2), None)])
def test_roll(shift, axis):
    same(cg.roll(arr(X), shift, axis=axis), np.roll(X, shift, axis=axis))


@pytest.mark.parametrize("reps", [(2,), (2, 1), (1, 2, 3), (2, 1, 1, 2), (0, 1)])
def test_tile(reps):
    same(cg.tile(arr(X.astype(np.int32)), reps), np.tile(X.astype(np.int32), reps))


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_repeat(axis):
    same(cg.repeat(arr(X), 2, axis=axis), np.repeat(X, 2, axis=axis))
    n = X.size if axis is None else X.shape[axis]
    counts = np.arange(n, dtype=np.int64) % 3
    same(cg.repeat(arr(X), arr(counts), axis=axis), np.repeat(X, counts, axis=axis))


def test_unstack_and_meshgrid():
    parts = cg.unstack(arr(X), axis=1)
    assert isinstance(parts, tuple) and len(parts) == 3
    for i, p in enumerate(parts):
        same(p, X[:, i, :])
    a, b = np.arange(3.0), np.array([5.0, 6.0])
    for indexing in ("xy", "ij"):
        for got, want in zip(cg.meshgrid(arr(a), arr(b), indexing=indexing), np.meshgrid(a, b, indexing=indexing)):
            same(got, want)


@pytest.mark.parametrize("k", [-2, 0, 1, 3])
def test_tril_triu(k):
    same(cg.tril(arr(X), k=k), np.tril(X, k))
    same(cg.triu(arr(X), k=k), np.triu(X, k))


@pytest.mark.parametrize("axis,n", [(-1, 1), (0, 1), (1, 2), (2, 3)])
def test_diff(axis, n):
    same(cg.diff(arr(X), axis=axis, n=n), np.diff(X, axis=axis, n=n))
    pre = np.ones_like(np.take(X, [0], axis=axis))
    same(cg.diff(arr(X), axis=axis, n=n, prepend=arr(pre), append=arr(X)),
         np.diff(X, axis=axis, n=n, prepend=pre, append=X))


def test_errors():
    with pytest.raises(ValueError):
        cg.moveaxis(arr(X), (0, 0), (1, 2))
    with pytest.raises(ValueError):
        cg.tril(arr(np.arange(3.0)))
    with pytest.raises(ValueError):
        cg.repeat(arr(X), arr(np.array([1, 2, 3])), axis=0)
    with pytest.raises(ValueError):
        cg.meshgrid(arr(np.arange(3.0)), indexing="yx")


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ii->i", [(4, 4)]), ("ii", [(4, 4)]),
    ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]), ("ji", [(3, 4)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 6)]), ("i,i->", [(5,), (5,)]), ("i,j->ij", [(3,), (4,)]),
    ("ijk,ikl,ilm->ijm", [(2, 3, 4), (2, 4, 5), (2, 5, 3)]), ("iij->ij", [(3, 3, 2)]), ("iii->i", [(3, 3, 3)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]), ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("...i,...i->...", [(2, 3, 4), (3, 4)]), ("i...->...", [(3, 4, 5)]), ("...", [(2, 3)]),
    ("a,b,c->abc", [(2,), (3,), (4,)]), ("abc,cd,db->a", [(2, 3, 4), (4, 5), (5, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("i,i,i->i", [(4,), (4,), (4,)]), (" ij , jk -> ik ", [(3, 4), (4, 5)]),
    ("ij...,jk...->ik...", [(2, 3, 4), (3, 5, 4)]), ("i,->i", [(3,), ()]), ("->", [()]), ("ij,kl->", [(2, 0), (3, 4)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int8, np.uint8, np.complex128])
def test_einsum_matches_numpy(dtype):
    rng = np.random.default_rng(4)
    for subscripts, shapes in EINSUM_CASES:
        ops = [rng.standard_normal(s) * 3 for s in shapes]
        if np.dtype(dtype).kind == "c":
            ops = [o + 1j * rng.standard_normal(o.shape) for o in ops]
        ops = [o.astype(np.int64 if np.dtype(dtype).kind in "iu" else dtype).astype(dtype) for o in ops]
        want = np.einsum(subscripts, *ops)
        got = cg.einsum(subscripts, *[cg.asarray(o) for o in ops])
        assert tuple(got.shape) == want.shape, subscripts
        # NumPy's dtype whichever letters are summed (integer sums wrap in it, as NumPy's do)
        assert np.asarray(got).dtype == want.dtype, subscripts
        single = dtype in (np.float32,)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5 if single else 1e-12,
                                   atol=1e-4 if single else 1e-12, err_msg=subscripts)


def test_einsum_sublists_and_optimized_order_match_numpy():
    rng = np.random.default_rng(6)
    a, b, c, d = (rng.standard_normal(s) for s in ((3, 4), (4, 5), (5, 2), (2, 3)))
    v, e = rng.standard_normal(4), rng.standard_normal((2, 3, 4))
    for subscripts, ops in (("ij,jk,kl->il", (a, b, c)), ("ij,jk,kl,lm->im", (a, b, c, d)), ("ij,jk,kl,li", (a, b, c, d)),
                            ("ij,j,jk->ik", (a, v, b)), ("ij,jk,kl,lm", (a, b, c, d))):
        for optimize in (False, True, "greedy", "optimal"):
            got = cg.einsum(subscripts, *[cg.asarray(o) for o in ops], optimize=optimize)
            np.testing.assert_allclose(np.asarray(got), np.einsum(subscripts, *ops), rtol=1e-12, atol=1e-12)
    for ops in ((a, [0, 1], b, [1, 2], [0, 2]), (a, [0, 1], b, [1, 2]), (e, [Ellipsis, 1], b, [1, 2], [Ellipsis, 2]),
                (a, [0, 1], [1, 0]), (a, [26, 1], v, [1], [26])):
        ours = [cg.asarray(o) if isinstance(o, np.ndarray) else o for o in ops]
        np.testing.assert_allclose(np.asarray(cg.einsum(*ours)), np.einsum(*ops), rtol=1e-12, atol=1e-12)
    assert cg.einsum("ij,jk", cg.asarray(a), cg.asarray(b), dtype=cg.float32).dtype == cg.float32


def test_einsum_gradients_and_errors():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 3))
    x, y = cg.asarray(a).requires_grad_(), cg.asarray(b).requires_grad_()
    # sum_bik (sum_j a_bij b_bjk) w_ik and the trace of each batch's product
    w = rng.standard_normal((3, 3))
    gx, gy = cg.grad(cg.sum(cg.einsum("bij,bjk->ik", x, y) * cg.asarray(w)) + cg.einsum("bij,bji->", x, y), [x, y])
    np.testing.assert_allclose(np.asarray(gx), np.einsum("ik,bjk->bij", w, b) + np.swapaxes(b, 1, 2), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(gy), np.einsum("bij,ik->bjk", a, w) + np.swapaxes(a, 1, 2), rtol=1e-12)
    z = cg.asarray(rng.standard_normal((3, 4)))
    with pytest.raises(cg.ShapeError, match="subscript 'j'"):
        cg.einsum("ij,jk", z, z)
    with pytest.raises(cg.InvalidArgumentError, match="names 3 dims"):
        cg.einsum("ijk", z)
    with pytest.raises(cg.InvalidArgumentError, match="no operand has"):
        cg.einsum("ij->ik", z)
    with pytest.raises(cg.InvalidArgumentError, match="repeats"):
        cg.einsum("ij->jj", z)
    with pytest.raises(cg.InvalidArgumentError, match="2 operands"):
        cg.einsum("ij,jk", z)
    with pytest.raises(ValueError, match="sublist"):
        cg.einsum(z, [0, 99])
    np.testing.assert_array_equal(np.asarray(cg.einsum("ij->ij", z)), np.asarray(z))
    c = cg.einsum("ij", z)  # the identity: a new array, not z itself
    c[...] = 0.0
    assert float(cg.sum(cg.abs(z))) > 0


def test_the_2025_12_standards_changes():
    # 2025.12: tuples from broadcast_arrays, meshgrid and devices() (lists before, 2026-12-08), and
    # expand_dims with a tuple of axes (NumPy's rule: the axes index the result)
    assert cg.__array_api_version__ == "2025.12" and cg.ones(1).__array_namespace__(api_version="2025.12") is cg
    a, b = cg.ones((2, 1)), cg.ones(3)
    assert type(cg.broadcast_arrays(a, b)) is tuple and type(cg.meshgrid(b, b)) is tuple
    assert type(cg.meshgrid(b, b, sparse=True)) is tuple
    assert type(cg.__array_namespace_info__().devices()) is tuple
    x = np.arange(6.0).reshape(2, 3)
    for axes in [(0,), (0, 1), (-1, 0), (1, 3), (0, 2, 4), (), (-4, 3)]:
        want = np.expand_dims(x, axes)
        got = cg.expand_dims(cg.asarray(x), axis=axes)
        assert got.shape == want.shape, axes
        np.testing.assert_array_equal(np.asarray(got), want)
    for axes, err in [((0, 4), IndexError), ((1, 1), ValueError), ((-1, 3), ValueError), ((-5,), IndexError)]:
        with pytest.raises(err):
            cg.expand_dims(cg.asarray(x), axis=axes)
