"""cgrad.testing (NumPy's numpy.testing for cgrad arrays, python/cgrad/testing.py): each assertion
passes where NumPy's passes on the arrays' values and fails with NumPy's AssertionError and
message where NumPy's fails, over cgrad Arrays mixed with NumPy arrays, lists, scalars, nested
lists of Arrays, 0-d, complex and bfloat16 arrays; strict=True compares cgrad's dtypes."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cgrad as cg
from cgrad import testing as T


def _message(fn, *args, **kwargs):
    """The AssertionError's message of fn(*args, **kwargs) (which must raise it)."""
    with pytest.raises(AssertionError) as e:
        fn(*args, **kwargs)
    return str(e.value)


# name, passing arguments, failing arguments, keywords (both given as NumPy arrays; the tests
# pass the first as a cgrad Array)
CASES = [
    ("assert_allclose", ([1.0, 2.0], [1.0, 2.0 + 1e-9]), ([1.0, 2.0], [1.0, 2.1]), {"rtol": 1e-7}),
    ("assert_allclose", ([1.0, np.nan], [1.0, np.nan]), ([1.0, np.nan], [1.0, 2.0]), {"atol": 0.5}),
    ("assert_array_equal", ([1, 2, 3], [1, 2, 3]), ([1, 2, 3], [1, 2, 4]), {}),
    ("assert_array_equal", ([[1.0, np.nan]], [[1.0, np.nan]]), ([[1.0, 2.0]], [[1.0, 2.0, 3.0]]), {}),
    ("assert_equal", ([1.0, 2.0], [1.0, 2.0]), ([1.0, 2.0], [1.0, 3.0]), {"err_msg": "why"}),
    ("assert_array_almost_equal", ([1.0, 2.0], [1.0, 2.0000001]), ([1.0, 2.0], [1.0, 2.01]), {"decimal": 5}),
    ("assert_almost_equal", ([1.0, 2.0], [1.0, 2.00000001]), ([1.0, 2.0], [1.0, 2.01]), {}),
    ("assert_array_less", ([1.0, 2.0], [1.5, 2.5]), ([1.0, 2.0], [1.5, 1.5]), {}),
    ("assert_array_equal", ([1 + 2j, 3j], [1 + 2j, 3j]), ([1 + 2j, 3j], [1 + 2j, 3]), {"verbose": False}),
]


@pytest.mark.parametrize("name,good,bad,kw", CASES)
def test_pass_and_fail_as_numpy(name, good, bad, kw):
    ours, numpys = getattr(T, name), getattr(np.testing, name)
    g0, g1 = (np.asarray(v) for v in good)
    ours(cg.asarray(g0), g1, **kw)  # cgrad beside NumPy
    ours(cg.asarray(g0), cg.asarray(g1), **kw)  # both cgrad
    ours(g0.tolist(), cg.asarray(g1), **kw)  # a list beside cgrad
    b0, b1 = (np.asarray(v) for v in bad)
    want = _message(numpys, b0, b1, **kw)
    assert _message(ours, cg.asarray(b0), b1, **kw) == want
    assert _message(ours, cg.asarray(b0), cg.asarray(b1), **kw) == want


def test_float32_values_compared_as_numpy_compares_them():
    x = cg.asarray([0.1, 0.2])  # float32
    T.assert_allclose(x, [0.1, 0.2], rtol=1e-7)  # within float32's rounding of 0.1 and 0.2 ...
    want = _message(np.testing.assert_array_equal, np.float32([0.1, 0.2]), [0.1, 0.2])
    assert _message(T.assert_array_equal, x, [0.1, 0.2]) == want  # ... but not equal to the doubles


def test_scalars_0d_and_approx():
    T.assert_equal(cg.asarray(3.0), 3.0)
    T.assert_equal(cg.asarray(3), np.int64(3))
    T.assert_almost_equal(cg.asarray(np.pi), 3.1415926, decimal=6)
    T.assert_approx_equal(cg.asarray(3.14159), 3.1416, significant=4)
    want = _message(np.testing.assert_approx_equal, np.float32(3.14159), 3.2, significant=4)
    assert _message(T.assert_approx_equal, cg.asarray(3.14159), 3.2, significant=4) == want
    want = _message(np.testing.assert_equal, np.array(3.0, np.float32), 4.0)
    assert _message(T.assert_equal, cg.asarray(3.0), 4.0) == want
    T.assert_allclose(cg.asarray(2.0), [2.0, 2.0])  # a 0-d array broadcasts (not with strict)
    with pytest.raises(AssertionError, match="shapes"):
        T.assert_allclose(cg.asarray(2.0), [2.0, 2.0], strict=True)


def test_nested_lists_tuples_and_dicts_of_arrays():
    a, b = cg.asarray([1.0, 2.0]), cg.asarray([[3, 4]])
    T.assert_equal([a, (b, 5)], [[1.0, 2.0], ([[3, 4]], 5)])
    T.assert_equal({"a": a, "n": [b]}, {"a": np.array([1.0, 2.0], np.float32), "n": [np.array([[3, 4]])]})
    T.assert_allclose([cg.asarray(1.0), cg.asarray(2.0)], [1, 2])  # a list of 0-d Arrays as one array
    T.assert_array_equal([a, a], [[1, 2], [1, 2]])
    want = _message(np.testing.assert_equal, [np.float32([1, 2]), 5], [np.float32([1, 3]), 5])
    assert _message(T.assert_equal, [a, 5], [cg.asarray([1.0, 3.0]), 5]) == want
    with pytest.raises(AssertionError):
        T.assert_equal({"a": a}, {"a": a, "b": 1})


def test_complex_arrays():
    z = cg.asarray([1 + 2j, -1j])
    T.assert_allclose(z, np.array([1 + 2j, -1j]) * (1 + 1e-9))
    T.assert_array_almost_equal(z, [1 + 2.0000001j, -1j])
    want = _message(np.testing.assert_allclose, np.complex64([1 + 2j, -1j]), [1 + 2j, 1j])
    assert _message(T.assert_allclose, z, [1 + 2j, 1j]) == want


def test_lazy_and_device_arrays_are_evaluated():
    x = cg.arange(6).reshape((2, 3)) * 2 + 1  # lazy
    T.assert_array_equal(x, np.arange(6).reshape(2, 3) * 2 + 1, strict=True)
    if cg.cuda_available():
        T.assert_array_equal(x.to_device(cg.Device.cuda(0)), np.arange(6).reshape(2, 3) * 2 + 1)


def test_strict_compares_cgrad_dtypes():
    x = cg.asarray([1.0, 2.0])
    T.assert_array_equal(x, np.float32([1, 2]), strict=True)
    for name in ("assert_array_equal", "assert_allclose", "assert_equal"):
        want = _message(getattr(np.testing, name), np.float32([1, 2]), [1.0, 2.0], strict=True)
        assert _message(getattr(T, name), x, [1.0, 2.0], strict=True) == want
        assert "(dtypes float32, float64 mismatch)" in want
    want = _message(np.testing.assert_array_less, np.float32([1, 2]), [3.0, 4.0], strict=True)
    assert _message(T.assert_array_less, x, [3.0, 4.0], strict=True) == want


def test_bfloat16_values_as_float32_dtype_as_bfloat16():
    b = cg.asarray([1.0, 2.5], dtype=cg.bfloat16)  # np.asarray of it raises: no NumPy dtype
    with pytest.raises(RuntimeError):
        np.asarray(b)
    T.assert_array_equal(b, [1.0, 2.5])  # compared as float32, exact
    T.assert_allclose(b, cg.asarray([1.0, 2.5]))
    T.assert_equal(b, np.float32([1.0, 2.5]))
    T.assert_array_less(b, [2, 3])
    T.assert_array_equal(b, cg.asarray([1.0, 2.5], dtype=cg.bfloat16), strict=True)
    T.assert_equal([b], [cg.asarray([1.0, 2.5], dtype=cg.bfloat16)], strict=True)
    for name in ("assert_array_equal", "assert_allclose", "assert_equal"):
        msg = _message(getattr(T, name), b, cg.asarray([1.0, 2.5]), strict=True)
        assert "(dtypes bfloat16, float32 mismatch)" in msg and "dtype=bfloat16" in msg, msg
        msg = _message(getattr(T, name), np.float32([1.0, 2.5]), b, strict=True)
        assert "(dtypes float32, bfloat16 mismatch)" in msg
    assert "(dtypes bfloat16, float32 mismatch)" in _message(T.assert_array_less, b, cg.asarray([2.0, 3.0]),
                                                             strict=True)
    assert "(dtypes bfloat16, float32 mismatch)" in _message(T.assert_equal, {"k": [b]}, {"k": [np.float32([1, 2.5])]},
                                                             strict=True)
    assert "shapes" in _message(T.assert_array_equal, b, cg.asarray([1.0]), strict=True)  # shapes first
    want = _message(np.testing.assert_array_equal, np.float32([1.0, 2.5]), [1.0, 2.0])
    assert _message(T.assert_array_equal, b, [1.0, 2.0]) == want


def test_ulp_assertions():
    one = np.float32([1.0, 2.0])
    up = np.nextafter(one, np.float32(3))
    got = T.assert_array_max_ulp(cg.asarray(one), cg.asarray(up), maxulp=1)
    np.testing.assert_array_equal(got, np.testing.assert_array_max_ulp(one, up, maxulp=1))
    T.assert_array_max_ulp(cg.asarray(one), up, 1, dtype=cg.float32)  # a cgrad dtype
    with pytest.raises(AssertionError):
        T.assert_array_max_ulp(cg.asarray(one), np.nextafter(up, np.float32(3)), maxulp=1)
    T.assert_array_almost_equal_nulp(cg.asarray(one), up, nulp=1)
    want = _message(np.testing.assert_array_almost_equal_nulp, one, np.nextafter(up, np.float32(3)), 1)
    assert _message(T.assert_array_almost_equal_nulp, cg.asarray(one), np.nextafter(up, np.float32(3)), 1) == want
    b = cg.asarray([1.0], dtype=cg.bfloat16)
    with pytest.raises(TypeError, match="bfloat16"):
        T.assert_array_max_ulp(b, b)
    with pytest.raises(TypeError, match="bfloat16"):
        T.assert_array_almost_equal_nulp(b, b)
    with pytest.raises(TypeError, match="bfloat16"):
        T.assert_array_max_ulp(cg.asarray(one), one, dtype=cg.bfloat16)


def test_numpy_helpers_as_they_are():
    for name in ("assert_", "assert_raises", "assert_raises_regex", "assert_warns", "assert_no_warnings",
                 "assert_string_equal", "suppress_warnings", "clear_and_catch_warnings", "IS_PYPY", "IS_64BIT",
                 "HAS_REFCOUNT"):
        assert getattr(T, name) is getattr(np.testing, name), name
    T.assert_raises(cg.ShapeError, cg.reshape, cg.zeros(3), (2, 2))
    with T.assert_raises_regex(ValueError, "positive"):
        cg.polyder([1, 2], -1)
    T.assert_string_equal("abc", "abc")
    with pytest.raises(AssertionError):
        T.assert_string_equal("abc", "abd")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # NumPy 2.4 deprecates assert_warns
        with T.assert_warns(UserWarning):
            warnings.warn("w", UserWarning)
    with pytest.raises(AttributeError, match="no attribute 'assert_nothing'"):
        T.assert_nothing  # noqa: B018


def test_arguments_left_intact_and_namespace():
    x = cg.asarray([1.0, 2.0])
    with pytest.raises(AssertionError):
        T.assert_array_equal(x, [1.0, 3.0])
    assert np.asarray(x).tolist() == [1.0, 2.0] and x.dtype == cg.float32
    assert set(T.__all__) <= set(dir(np.testing))
    # `import cgrad` imports neither cgrad.testing nor NumPy; cgrad.testing is found on first use
    code = ("import sys, cgrad; assert 'cgrad.testing' not in sys.modules; cgrad.testing.assert_allclose; "
            "assert 'numpy' not in sys.modules")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
