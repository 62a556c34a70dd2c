"""complex64 and complex128 from Python (complex group, issue #15): the dtype objects and the
namespace info, promotion, NumPy/DLPack both ways (kDLComplex), Python complex values in and out,
real/imag/conj/abs and arithmetic against NumPy, and the functions that reject complex."""
import numpy as np
import pytest

import cgrad as cg


def test_dtypes_are_exposed():
    info = cg.__array_namespace_info__()
    assert info.dtypes()["complex64"] is cg.complex64
    assert info.dtypes()["complex128"] is cg.complex128
    assert set(info.dtypes(kind="complex floating")) == {"complex64", "complex128"}
    assert info.default_dtypes()["complex floating"] is cg.complex64
    assert cg.isdtype(cg.complex64, "complex floating") and cg.isdtype(cg.complex128, "numeric")
    assert not cg.isdtype(cg.complex64, "real floating")
    assert cg.finfo(cg.complex64).eps == cg.finfo(cg.float32).eps
    assert cg.finfo(cg.complex128).dtype is cg.float64
    assert cg.result_type(cg.complex64, cg.float64) is cg.complex128
    assert cg.result_type(cg.float32, cg.complex64) is cg.complex64
    assert cg.result_type(cg.int32, cg.complex128) is cg.complex128
    assert cg.can_cast(cg.float32, cg.complex64) and not cg.can_cast(cg.complex64, cg.float32)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_numpy_round_trips_through_dlpack(dtype):
    a = (np.arange(6) - 2.5 + 1j * np.arange(6)[::-1]).astype(dtype).reshape(2, 3)
    t = cg.from_dlpack(a)
    assert t.dtype.name == np.dtype(dtype).name
    np.testing.assert_array_equal(np.from_dlpack(t), a)
    np.testing.assert_array_equal(np.asarray(t.T), a.T)


def test_python_complex_values_in_and_out():
    x = cg.asarray([1 + 2j, -3.5, 0.25j])
    assert x.dtype is cg.complex64
    assert x.tolist() == [1 + 2j, -3.5 + 0j, 0.25j]
    assert complex(x[0]) == 1 + 2j
    assert cg.asarray(2j).dtype is cg.complex64
    assert cg.asarray([1, 2], dtype=cg.complex128).dtype is cg.complex128
    with pytest.raises(TypeError):
        cg.asarray([1j], dtype=cg.float32)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_functions_against_numpy(dtype):
    rng = np.random.default_rng(0)
    a = (rng.uniform(-3, 3, 16) + 1j * rng.uniform(-3, 3, 16)).astype(dtype)
    b = (rng.uniform(-3, 3, 16) + 1j * rng.uniform(-3, 3, 16)).astype(dtype)
    x, y = cg.asarray(a), cg.asarray(b)
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    for got, want in [
        (x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b), (cg.exp(x), np.exp(a)),
        (cg.log(x), np.log(a)), (cg.sqrt(x), np.sqrt(a)), (cg.sin(x), np.sin(a)), (cg.cos(x), np.cos(a)),
        (cg.tanh(x), np.tanh(a)), (cg.conj(x), np.conj(a)), (cg.sum(x), np.sum(a)), (cg.mean(x), np.mean(a)),
        (cg.prod(x[:5]), np.prod(a[:5])), (cg.abs(x), np.abs(a)), (cg.real(x), a.real), (cg.imag(x), a.imag),
        (cg.pow(x, y), a**b), (cg.square(x), a * a),
    ]:
        g = np.asarray(got)
        assert g.dtype == np.asarray(want).dtype
        np.testing.assert_allclose(g, want, rtol=tol * 10, atol=tol)
    np.testing.assert_array_equal(np.asarray(x == x), np.ones(16, bool))


def test_functions_that_reject_complex_raise():
    x = cg.asarray([1 + 1j, 2 - 1j])
    for f in (cg.floor, cg.ceil, cg.trunc, cg.signbit, cg.max, cg.argmax):
        with pytest.raises((TypeError, ValueError)):
            f(x)
    with pytest.raises((TypeError, ValueError)):
        x < x
    with pytest.raises((TypeError, ValueError)):
        x.astype(cg.float32)
    assert x.astype(cg.complex128).dtype is cg.complex128
    assert np.asarray(x.astype(cg.bool)).tolist() == [True, True]
