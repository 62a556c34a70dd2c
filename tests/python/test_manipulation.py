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


@pytest.mark.parametrize("shift,axis", [(1, None), (-7, None), (8, None), (2, 1), (-1, -1), ((1, 2), (0, 2)), ((1, 1), (1, 1))])
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
