"""cgrad.emath (NumPy's numpy.emath, python/cgrad/emath.py) against NumPy: values, signed zeros,
NaN positions and dtypes over float, integer, bool and complex inputs with the domain's edges
(0, -0.0, +-1, +-inf, NaN), the one evaluated test and the laziness of the result, gradients, and
errors."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cgrad as cg

E = cg.emath
UNARY = ["sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh"]
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1.5, -1.5, np.inf, -np.inf, np.nan, 1e-30, 1e30]
NONNEG = [v for v in EDGES if not v < 0]
IN_UNIT = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, np.nan]


def _inputs():
    """(label, NumPy array) pairs: every real dtype with and without values outside the domains."""
    out = []
    for d in (np.float16, np.float32, np.float64):
        with np.errstate(over="ignore"):  # 1e30 is inf in float16
            out += [(f"{d.__name__} edges", np.array(EDGES, d)), (f"{d.__name__} nonneg", np.array(NONNEG, d)),
                    (f"{d.__name__} unit", np.array(IN_UNIT, d))]
    for d in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        out.append((f"{d.__name__} small", np.array([0, 1, 2, 3], d)))
        if np.issubdtype(d, np.signedinteger):
            out += [(f"{d.__name__} negative", np.array([-1, 0, 4], d)),
                    (f"{d.__name__} unit", np.array([-1, 0, 1], d))]
    out.append(("bool", np.array([True, False])))
    for d in (np.complex64, np.complex128):
        out.append((d.__name__, np.array([v + 0j for v in EDGES] + [1j, -1j, 2 + 3j, complex(-1, -0.0)], d)))
    return out


INPUTS = _inputs()


def _tolerance(d):
    return {"float16": 1e-3, "float32": 2e-6, "complex64": 2e-6}.get(np.dtype(d).name, 1e-13)


def _same(got, want):
    """Same dtype, values within the dtype's tolerance, NaNs and signed zeros in the same places
    (real and imaginary parts each)."""
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=_tolerance(want.dtype), atol=0)
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        assert np.array_equal(np.isnan(g), np.isnan(w))
        zeros = (g == 0) & (w == 0)
        assert np.array_equal(np.signbit(g[zeros]), np.signbit(w[zeros])), (g, w)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("label,a", INPUTS, ids=[label for label, _ in INPUTS])
def test_unary_match_numpy(name, label, a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's divide-by-zero at log(0), arctanh(1)
        want = getattr(np.emath, name)(a)
    _same(getattr(E, name)(cg.asarray(a)), want)


def test_real_inside_the_domain_complex_outside():
    assert E.sqrt(cg.asarray([0.0, 4.0])).dtype == cg.float32
    assert E.sqrt(cg.asarray([-0.0, 4.0])).dtype == cg.float32  # -0.0 is not below 0: sqrt(-0.0) = -0.0
    assert np.signbit(float(E.sqrt(cg.asarray(-0.0))))
    assert E.sqrt(cg.asarray([-1e-30, 4.0])).dtype == cg.complex64
    assert E.log(cg.asarray([np.nan])).dtype == cg.float32  # NaN is not below 0 either
    np.testing.assert_allclose(np.asarray(E.arccos(cg.asarray([1.0, -1.0], dtype=cg.float64))), [0, np.pi])
    np.testing.assert_allclose(np.asarray(E.arcsin(cg.asarray([1.0, -1.0], dtype=cg.float64))), [np.pi / 2, -np.pi / 2])
    r = E.arctanh(cg.asarray([1.0, -1.0]))
    assert r.dtype == cg.float32 and np.asarray(r).tolist() == [np.inf, -np.inf]
    assert E.arccos(cg.asarray([1.0, 1.0000001], dtype=cg.float64)).dtype == cg.complex128
    assert E.arcsin(cg.asarray([np.inf])).dtype == cg.complex64


def test_scalars_and_lists():
    # A Python int is int64 (complex128 as in NumPy), a float cgrad's float32 (NumPy: float64);
    # lists are read as NumPy reads them
    r = E.sqrt(-1)
    assert r.ndim == 0 and r.dtype == cg.complex128 and complex(r) == 1j
    assert E.sqrt(-4.0).dtype == cg.complex64 and complex(E.sqrt(-4.0)) == 2j
    _same(E.log([-1.0, 1.0]), np.emath.log([-1.0, 1.0]))
    _same(E.sqrt([-1, 4]), np.emath.sqrt([-1, 4]))
    assert complex(E.log(-1)) == pytest.approx(np.pi * 1j)


def test_bfloat16_as_float16_complex64():
    a = cg.asarray([4.0, 0.25], dtype=cg.bfloat16)
    assert E.sqrt(a).dtype == cg.bfloat16
    r = E.sqrt(cg.asarray([-4.0, 0.25], dtype=cg.bfloat16))
    assert r.dtype == cg.complex64
    np.testing.assert_array_equal(np.asarray(r), [2j, 0.5])


POWER_CASES = [  # x, p, cgrad's dtype where cgrad's promotion differs from NumPy's (None: NumPy's)
    (np.array([4.0, 9.0, 0.0]), np.array([2, 3, 2]), None),
    (np.array([-4.0, 9.0, -0.0]), np.array([0.5, 2.0, 3.0]), None),
    (np.array([4.0, 9.0], np.float32), np.array([0.5, -2.0], np.float32), None),
    (np.array([-4.0, 9.0], np.float32), np.array([0.5, -2.0], np.float32), None),
    (np.array([2, 3]), np.array([2, 3]), None),  # integers stay integers
    (np.array([2, 3]), np.array([-2, 3]), None),  # a negative integer power: float64
    (np.array([2, 3], np.int8), np.array([-1, 2], np.int8), None),
    (np.array([-2, 3]), np.array([0.5, 2.0]), None),
    (np.array([1 + 1j, -2], np.complex128), np.array([2, 3]), None),
    (np.array([-2.0, 3.0]), np.array([1j, 2]), None),
    # int64 with float32 is float32 in cgrad, float64 in NumPy (docs/semantics.md)
    (np.array([4.0, 9.0], np.float32), np.array([2, 3]), cg.float32),
    (np.array([-4.0, 9.0], np.float32), np.array([2, 3]), cg.complex64),
    (np.array([-2, 3], np.int8), np.array([2, 3]), cg.complex64),
]


@pytest.mark.parametrize("x,p,cgrad_dtype", POWER_CASES)
def test_power_matches_numpy(x, p, cgrad_dtype):
    want = np.emath.power(x, p)
    got = E.power(cg.asarray(x), cg.asarray(p))
    if cgrad_dtype is None:
        _same(got, want)
    else:
        assert got.dtype == cgrad_dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_power_scalars_and_same_array():
    # the float 1/3 is a float32 0-d array (asarray's default), the int -8 int64: complex128 of -8 to
    # the float32 nearest 1/3
    r = E.power(-8, 1 / 3)
    assert r.dtype == cg.complex128
    np.testing.assert_allclose(complex(r), np.emath.power(-8, np.float32(1 / 3)), rtol=1e-15)
    assert float(E.power(2, -2)) == 0.25 and E.power(2, -2).dtype == cg.float64
    x = cg.asarray([-2, 2])
    _same(E.power(x, x), np.emath.power(np.array([-2, 2]), np.array([-2, 2])))


def test_logn():
    for n in (np.array([2.0, 10.0]), np.array([-2.0, 10.0]), np.array([2, 3]), np.array([0.5, 4], np.float32)):
        for x in (np.array([8.0, 100.0]), np.array([-8.0, 100.0]), np.array([8, 9])):
            _same(E.logn(cg.asarray(n), cg.asarray(x)), np.emath.logn(n, x))
    assert float(E.logn(2, 8)) == 3.0


def test_one_schedule_then_lazy():
    y = cg.asarray(np.linspace(-1.0, 1.0, 64))
    x = y * 2  # lazy
    cg.reset_stats()
    r = E.sqrt(x)
    s = cg.stats()
    assert s["plans_built"] + s["plan_cache_hits"] == 1  # x and the test in one schedule; r not computed yet
    cg.reset_stats()
    cg.eval(r)
    assert cg.stats()["kernels_launched"] == 1  # r reads x's stored values
    _same(r, np.emath.sqrt(np.linspace(-1.0, 1.0, 64) * 2))
    z = cg.asarray([-1 + 0j, 4])
    cg.eval(z)
    cg.reset_stats()
    E.sqrt(z), E.arccos(z), E.power(z, 2)
    assert cg.stats()["kernels_launched"] == 0  # complex input: nothing to test, nothing evaluated


def test_compiled_function_follows_the_values():
    # the test reads a value on the host: the compiled function runs eagerly, right at every call
    @cg.compile
    def f(x):
        return E.sqrt(x) * 2

    for v in ([4.0, 9.0], [-4.0, 9.0], [1.0, 16.0]):
        _same(f(cg.asarray(v)), np.emath.sqrt(np.float32(v)) * 2)


def test_gradients():
    x0 = np.array([0.5, 2.0, 3.0])
    x = cg.asarray(x0).requires_grad_()
    (g,) = cg.grad(cg.sum(E.sqrt(x * 1) + E.log(x) + E.arcsin(x / 4)), [x])
    np.testing.assert_allclose(np.asarray(g), 0.5 / np.sqrt(x0) + 1 / x0 + 1 / np.sqrt(16 - x0 ** 2), rtol=1e-12)


def test_errors_match_numpy_and_leave_the_argument_intact():
    with pytest.raises(TypeError):
        np.emath.sqrt("a")
    with pytest.raises(TypeError):
        E.sqrt("a")
    x = cg.asarray([-1.0, True])
    with pytest.raises(TypeError):
        E.power(x, "a")
    assert np.asarray(x).tolist() == [-1.0, 1.0]


def test_namespaces():
    import cgrad.lib.scimath

    assert cgrad.lib.scimath is cg.emath is cg.lib.scimath
    assert sorted(E.__all__) == sorted(np.emath.__all__)
    # cgrad's import stays without NumPy
    code = "import sys, cgrad; cgrad.emath; cgrad.poly1d; assert 'numpy' not in sys.modules"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
