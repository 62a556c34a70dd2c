"""NumPy's numpy.testing for cgrad arrays, so tests ported from NumPy run as they are: each
assertion evaluates the cgrad Arrays among its arguments (inside lists, tuples and dicts too; a
device array is copied to the host) to NumPy arrays and runs NumPy's own assertion, with its
messages. bfloat16, which NumPy lacks, is compared as float32 (exact), and `strict=True` compares
cgrad's dtypes, so a bfloat16 array is not strictly equal to a float32 one. The helpers that take
no arrays (`assert_raises`, `assert_warns`, `suppress_warnings`...) are NumPy's own, deprecation
warnings included. NumPy is imported when an assertion first runs, not with cgrad."""
from . import _dtypes as _dt
from ._array import _host, _numpy_values
from ._cgrad import Array

__all__ = ["assert_allclose", "assert_array_equal", "assert_equal", "assert_array_almost_equal",
           "assert_almost_equal", "assert_approx_equal", "assert_array_less", "assert_array_max_ulp",
           "assert_array_almost_equal_nulp", "assert_string_equal", "assert_", "assert_raises",
           "assert_raises_regex", "assert_warns", "assert_no_warnings", "suppress_warnings",
           "clear_and_catch_warnings", "IS_PYPY", "IS_64BIT", "IS_WASM", "IS_MUSL", "HAS_REFCOUNT", "NOGIL_BUILD"]

# NumPy's own, taken as they are (no arrays among their arguments) when first looked up
_NUMPY_AS_IS = frozenset(("assert_", "assert_raises", "assert_raises_regex", "assert_warns", "assert_no_warnings",
                          "assert_string_equal", "suppress_warnings", "clear_and_catch_warnings", "IS_PYPY",
                          "IS_64BIT", "IS_WASM", "IS_MUSL", "HAS_REFCOUNT", "NOGIL_BUILD"))


def __getattr__(name):
    if name in _NUMPY_AS_IS:
        import numpy.testing

        return getattr(numpy.testing, name)
    raise AttributeError(f"module 'cgrad.testing' has no attribute {name!r}")


def _values(obj):
    """obj with every cgrad Array in it (in lists, tuples and dicts too) as a NumPy array (bfloat16
    as float32)."""
    return _numpy_values(obj, _host)


def _dtype_name(obj):
    """The dtype obj has in cgrad (bfloat16 included), or NumPy's reading of it."""
    import numpy as np

    return obj.dtype.name if isinstance(obj, Array) else np.asarray(_values(obj)).dtype.name


def _check_bfloat16(actual, desired, err_msg, verbose, header, names=("ACTUAL", "DESIRED")):
    """With strict=True: NumPy's dtype mismatch for a bfloat16 array beside another dtype, which
    NumPy would see as float32 and pass (where the shapes differ, NumPy's reports them first)."""
    import numpy as np

    a, d = _dtype_name(actual), _dtype_name(desired)
    if a == d or "bfloat16" not in (a, d) or np.shape(_values(actual)) != np.shape(_values(desired)):
        return
    shown = [v if isinstance(v, Array) else _values(v) for v in (actual, desired)]  # cgrad's repr names bfloat16
    msg = np.testing.build_err_msg(shown, f"{err_msg}\n(dtypes {a}, {d} mismatch)", verbose=verbose, header=header,
                                   names=names)
    raise AssertionError(msg)


def _bfloat16_pairs(actual, desired):
    """The (actual, desired) pairs assert_equal compares as arrays, its recursion into lists,
    tuples and dicts followed, so a bfloat16 array inside them is checked too."""
    if isinstance(actual, dict) and isinstance(desired, dict):
        return [pair for k in desired if k in actual for pair in _bfloat16_pairs(actual[k], desired[k])]
    if isinstance(actual, (list, tuple)) and isinstance(desired, (list, tuple)) and len(actual) == len(desired) \
            and not isinstance(actual, Array) and not isinstance(desired, Array):
        return [pair for a, d in zip(actual, desired) for pair in _bfloat16_pairs(a, d)]
    return [(actual, desired)]


def assert_allclose(actual, desired, rtol=1e-7, atol=0, equal_nan=True, err_msg="", verbose=True, *, strict=False):
    """|actual - desired| <= atol + rtol |desired| everywhere (NumPy's assert_allclose)."""
    __tracebackhide__ = True  # pytest shows the caller's line
    import numpy as np

    if strict:
        _check_bfloat16(actual, desired, err_msg, verbose, f"Not equal to tolerance rtol={rtol:g}, atol={atol:g}")
    np.testing.assert_allclose(_values(actual), _values(desired), rtol, atol, equal_nan, err_msg, verbose,
                               strict=strict)


def assert_array_equal(actual, desired, err_msg="", verbose=True, *, strict=False):
    """Equal shapes (or a scalar) and values, NaNs in the same places (NumPy's assert_array_equal)."""
    __tracebackhide__ = True
    import numpy as np

    if strict:
        _check_bfloat16(actual, desired, err_msg, verbose, "Arrays are not equal")
    np.testing.assert_array_equal(_values(actual), _values(desired), err_msg, verbose, strict=strict)


def assert_equal(actual, desired, err_msg="", verbose=True, *, strict=False):
    """Equal objects: dicts, lists and tuples item by item, arrays as assert_array_equal
    (NumPy's assert_equal)."""
    __tracebackhide__ = True
    import numpy as np

    if strict:
        for a, d in _bfloat16_pairs(actual, desired):
            _check_bfloat16(a, d, err_msg, verbose, "Arrays are not equal")
    np.testing.assert_equal(_values(actual), _values(desired), err_msg, verbose, strict=strict)


def assert_array_almost_equal(actual, desired, decimal=6, err_msg="", verbose=True):
    """|desired - actual| < 1.5 * 10**-decimal everywhere (NumPy's assert_array_almost_equal)."""
    __tracebackhide__ = True
    import numpy as np

    np.testing.assert_array_almost_equal(_values(actual), _values(desired), decimal, err_msg, verbose)


def assert_almost_equal(actual, desired, decimal=7, err_msg="", verbose=True):
    """|desired - actual| < 1.5 * 10**-decimal (NumPy's assert_almost_equal; arrays element-wise)."""
    __tracebackhide__ = True
    import numpy as np

    np.testing.assert_almost_equal(_values(actual), _values(desired), decimal, err_msg, verbose)


def assert_approx_equal(actual, desired, significant=7, err_msg="", verbose=True):
    """Two scalars equal to `significant` significant digits (NumPy's assert_approx_equal)."""
    __tracebackhide__ = True
    import numpy as np

    np.testing.assert_approx_equal(_values(actual), _values(desired), significant, err_msg, verbose)


def assert_array_less(x, y, err_msg="", verbose=True, *, strict=False):
    """x < y everywhere (NumPy's assert_array_less)."""
    __tracebackhide__ = True
    import numpy as np

    if strict:
        _check_bfloat16(x, y, err_msg, verbose, "Arrays are not strictly ordered `x < y`", ("x", "y"))
    np.testing.assert_array_less(_values(x), _values(y), err_msg, verbose, strict=strict)


def _numpy_dtype(dtype):
    """A cgrad dtype as NumPy's (bfloat16 has none: TypeError), anything else as given."""
    import numpy as np

    if isinstance(dtype, _dt.dtype):
        if dtype is _dt.bfloat16:
            raise TypeError("cgrad.testing: NumPy has no bfloat16 to count units in the last place in")
        return np.dtype(dtype.name)
    return dtype


def _ulp_values(a):
    """a's values for a count of units in the last place: a bfloat16 array raises TypeError (its
    float32 values would be counted in float32's far smaller units)."""
    if isinstance(a, Array) and a.dtype is _dt.bfloat16:
        _numpy_dtype(a.dtype)
    return _values(a)


def assert_array_max_ulp(a, b, maxulp=1, dtype=None):
    """a and b at most maxulp units in the last place apart; returns the numbers of units
    (NumPy's assert_array_max_ulp; dtype may be a cgrad dtype)."""
    __tracebackhide__ = True
    import numpy as np

    return np.testing.assert_array_max_ulp(_ulp_values(a), _ulp_values(b), maxulp, _numpy_dtype(dtype))


def assert_array_almost_equal_nulp(x, y, nulp=1):
    """|x - y| <= nulp * spacing(max(|x|, |y|)) everywhere (NumPy's assert_array_almost_equal_nulp)."""
    __tracebackhide__ = True
    import numpy as np

    np.testing.assert_array_almost_equal_nulp(_ulp_values(x), _ulp_values(y), nulp)
