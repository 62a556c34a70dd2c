"""sort, argsort and the unique_* set functions from Python (group sort), against NumPy: NaNs
last, stable in both directions, the standard's namedtuples."""
import numpy as np

import cgrad as cg


def test_sort_and_argsort_match_a_stable_numpy_sort():
    a = np.array([[3.0, np.nan, -0.0, 1.0, 0.0, 1.0], [2.0, 2.0, -np.inf, np.nan, 5.0, 2.0]], dtype=np.float32)
    x = cg.asarray(a)
    np.testing.assert_array_equal(np.asarray(cg.sort(x)), np.sort(a, axis=-1, kind="stable"))
    np.testing.assert_array_equal(np.asarray(cg.argsort(x, axis=0)), np.argsort(a, axis=0, kind="stable"))
    # Descending keeps equal elements in input order; NaNs stay last.
    got = np.asarray(cg.argsort(x, descending=True))
    assert got[1].tolist() == [4, 0, 1, 5, 2, 3]
    assert cg.argsort(x).dtype == cg.int64


def test_unique_all_is_the_standards_namedtuple():
    a = np.array([[2, 1, 2], [3, 1, 1]], dtype=np.int16)
    u = cg.unique_all(cg.asarray(a))
    assert type(u).__name__ == "UniqueAllResult"
    assert u._fields == ("values", "indices", "inverse_indices", "counts")
    vals, idx, inv, cnt = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(np.asarray(u.values), vals)
    np.testing.assert_array_equal(np.asarray(u.indices), idx)
    np.testing.assert_array_equal(np.asarray(u.inverse_indices), inv.reshape(a.shape))
    np.testing.assert_array_equal(np.asarray(u.counts), cnt)
    assert cg.unique_counts(cg.asarray(a))._fields == ("values", "counts")
    assert cg.unique_inverse(cg.asarray(a))._fields == ("values", "inverse_indices")
    n = cg.unique_values(cg.asarray(np.array([np.nan, 0.0, -0.0, np.nan])))
    assert n.shape == (3,)  # each NaN distinct, -0 == +0


def test_unique_of_complex_matches_numpy():
    """Complex values (which sort does not take) group in NumPy's order, by real part, then
    imaginary part; the Array API suite drew complex64 for unique_all."""
    rng = np.random.default_rng(3)
    for dtype in (np.complex64, np.complex128):
        a = (rng.integers(-2, 3, 40) + 1j * rng.integers(-2, 3, 40)).astype(dtype)
        vals, idx, inv, cnt = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
        u = cg.unique_all(cg.asarray(a))
        assert u.values.dtype == cg.asarray(a).dtype
        np.testing.assert_array_equal(np.asarray(u.values), vals)
        np.testing.assert_array_equal(np.asarray(u.indices), idx)
        np.testing.assert_array_equal(np.asarray(u.inverse_indices), inv)
        np.testing.assert_array_equal(np.asarray(u.counts), cnt)
        np.testing.assert_array_equal(np.asarray(cg.unique_values(cg.asarray(a.reshape(5, 8)))), vals)
        zero = cg.unique_values(cg.asarray(np.zeros((), dtype)))
        assert zero.shape == (1,) and zero.dtype == u.values.dtype
