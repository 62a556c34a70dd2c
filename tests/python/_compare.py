"""What several test files share: a result compared with NumPy's (shape, dtype, values) and a
central finite difference for gradient checks."""
import numpy as np


def check(got, want, rtol=1e-12, atol=1e-12, dtype=True):
    """got (an Array or a tuple of them) equal to NumPy's want: shape, dtype (unless dtype=False)
    and values (NaNs in the same places; signed zeros as equal)."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, rtol, atol, dtype)
        return
    want, got = np.asarray(want), np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    if dtype:
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def numeric_grad(f, x0, eps=1e-6):
    """The gradient of the scalar function f at x0 (a float array) by central differences."""
    num = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        up, dn = x0.copy(), x0.copy()
        up[i] += eps
        dn[i] -= eps
        num[i] = (f(up) - f(dn)) / (2 * eps)
    return num


def random_array(rng, shape, dtype):
    """Random values of `dtype` from the generator `rng`: normal (times 4) floats, complex with a
    normal imaginary part, the signs of normals as bools, magnitudes for unsigned integers."""
    a = rng.standard_normal(shape) * 4
    if np.dtype(dtype).kind == "c":
        return (a + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype == np.bool_:
        return a > 0
    if np.dtype(dtype).kind == "u":
        a = np.abs(a)
    return a.astype(dtype)
