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


def test_matmul_vecdot_tensordot_and_scans_against_numpy():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))).astype(np.complex128)
    b = (rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))).astype(np.complex64)
    ca, cb = cg.asarray(a), cg.asarray(b)
    np.testing.assert_allclose(np.asarray(cg.matmul(ca, cb)), a @ b.astype(np.complex128), rtol=1e-6)
    assert (ca @ cb).dtype is cg.complex128
    # vecdot conjugates its first argument (the standard): sum(conj(x1) * x2)
    v = a[0, 0]
    np.testing.assert_allclose(np.asarray(cg.vecdot(cg.asarray(v), cg.asarray(v))), np.vdot(v, v), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(cg.tensordot(ca, cb, axes=1)), np.tensordot(a, b, axes=1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(cg.cumulative_sum(ca, axis=2)), np.cumsum(a, axis=2), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(cg.cumulative_prod(ca, axis=1)), np.cumprod(a, axis=1), rtol=1e-12)


def test_complex_autograd_follows_pytorch_convention():
    zv = np.array([1.5 - 2j, 0.5 + 1j])
    z = cg.asarray(zv, dtype=cg.complex128).requires_grad_()
    cg.sum(cg.real(z * cg.conj(z))).backward()  # |z|^2: dL/dx + i dL/dy = 2z
    assert z.grad.dtype is cg.complex128
    np.testing.assert_allclose(np.asarray(z.grad), 2 * zv)
    (g,) = cg.grad(cg.sum(cg.abs(cg.exp(z))), [z])  # |e^z| = e^x: the gradient e^x + 0i
    np.testing.assert_allclose(np.asarray(g), np.exp(zv.real) + 0j, rtol=1e-12)
    with pytest.raises(cg.Error, match="implicitly created only for real scalar outputs"):
        cg.sum(z * z).backward()
    target = cg.asarray([1 - 1j, 2j], dtype=cg.complex64)
    p = cg.zeros(2, dtype=cg.complex64).requires_grad_()
    opt = cg.optim.Adam([p], lr=0.1)
    for _ in range(300):
        opt.zero_grad()
        d = p - target
        loss = cg.sum(cg.real(d * cg.conj(d)))
        loss.backward()
        opt.step([loss])
    np.testing.assert_allclose(np.asarray(p), [1 - 1j, 2j], atol=1e-3)


# cplxfn: Python complex scalars as operands (the standard 2024.12: with a real floating array the
# array's complex counterpart, with a complex array its dtype; cgrad raises TypeError with an
# integer or boolean array, which the standard leaves unspecified).
@pytest.mark.parametrize("dtype, want", [(cg.float32, cg.complex64), (cg.float64, cg.complex128),
                                         (cg.complex64, cg.complex64), (cg.complex128, cg.complex128)])
def test_python_complex_scalars_as_operands(dtype, want):
    a = np.array([1.5, -2.0, 0.25], dtype=np.asarray(cg.zeros(1, dtype=dtype)).dtype)
    x = cg.asarray(a)
    s = 0.5 - 2j
    tol = 1e-6 if want is cg.complex64 else 1e-14
    for got, ref in [(x * s, a * s), (s * x, s * a), (x + s, a + s), (s - x, s - a), (x / s, a / s),
                     (s / x, s / a), (x ** s, a.astype(np.complex128) ** s), (cg.multiply(x, s), a * s),
                     (cg.add(s, x), s + a), (cg.where(cg.real(x) > 0, x, s), np.where(a.real > 0, a, s))]:
        assert got.dtype is want
        np.testing.assert_allclose(np.asarray(got), ref, rtol=tol * 10, atol=tol)
    assert np.asarray(x == 1.5 + 0j).tolist() == [True, False, False]
    assert np.asarray(x != 1j).tolist() == [True, True, True]
    if dtype in (cg.complex64, cg.complex128):
        y = cg.asarray(a.astype(np.complex128), dtype=dtype)
        y *= 1j
        assert y.dtype is dtype
        np.testing.assert_allclose(np.asarray(y), a * 1j, rtol=tol)
    else:
        with pytest.raises(TypeError):
            x *= 1j  # in place keeps x's real dtype


def test_python_complex_scalars_with_integer_arrays_raise():
    for x in (cg.asarray([1, 2]), cg.asarray([True, False]), cg.asarray([1], dtype=cg.uint8)):
        for f in (lambda: x * 1j, lambda: 1j + x, lambda: x == 1j, lambda: cg.multiply(x, 2j)):
            with pytest.raises(TypeError):
                f()


def test_complex_creation_full_linspace():
    f = cg.full((2, 3), 1 - 2j)
    assert f.dtype is cg.complex64
    assert np.asarray(f).tolist() == [[1 - 2j] * 3] * 2
    assert np.asarray(cg.full((2,), 3, dtype=cg.complex128)).tolist() == [3 + 0j, 3 + 0j]
    with pytest.raises(TypeError):
        cg.full((2,), 1j, dtype=cg.float32)
    ls = cg.linspace(1j, 2 + 3j, 5, dtype=cg.complex128)
    np.testing.assert_allclose(np.asarray(ls), np.linspace(1j, 2 + 3j, 5), rtol=1e-15)
    assert cg.linspace(0, 1j, 3).dtype is cg.complex64
    assert complex(cg.asarray(1 + 2j)) == 1 + 2j


def test_inverse_functions_log2_log10_round_against_numpy():
    rng = np.random.default_rng(6)
    a = (rng.uniform(-3, 3, 32) + 1j * rng.uniform(-3, 3, 32)).astype(np.complex128)
    x = cg.asarray(a, dtype=cg.complex128)
    for f, g in [(cg.asin, np.arcsin), (cg.acos, np.arccos), (cg.atan, np.arctan), (cg.asinh, np.arcsinh),
                 (cg.acosh, np.arccosh), (cg.atanh, np.arctanh), (cg.log2, np.log2), (cg.log10, np.log10)]:
        np.testing.assert_allclose(np.asarray(f(x)), g(a), rtol=1e-13, atol=1e-15)
    r = cg.asarray([2.5 - 0.5j, 3.5 + 1.5j], dtype=cg.complex64)
    assert np.asarray(cg.round(r)).tolist() == [2 - 0j, 4 + 2j]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's mean of the empty shape
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_reductions_of_complex_values_against_numpy(dtype):
    # a row loop whose values are complex is staged (values per block, then reduced: 2026-12-08);
    # sums, abs, max, any/all and counts over every axis, NaNs included
    rng = np.random.default_rng(11)
    for shape in [(3000,), (7, 600), (5, 3, 130), (0, 4), (1,)]:
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
        if a.size > 10:
            a.flat[7] = complex(np.nan, 1.0)
        x = cg.asarray(a)
        tol = 3e-4 if dtype == np.complex64 else 1e-10
        for ax in [None] + list(range(len(shape))):
            for got, want in [(cg.sum(x, axis=ax), a.sum(axis=ax)), (cg.mean(x, axis=ax), a.mean(axis=ax)),
                              (cg.sum(cg.abs(x), axis=ax), np.abs(a).sum(axis=ax)),
                              (cg.max(cg.abs(x), axis=ax, initial=0.0), np.abs(a).max(axis=ax, initial=0.0)),
                              (cg.sum(x * x - 1j, axis=ax), (a * a - 1j).sum(axis=ax)),
                              (cg.any(cg.isnan(x), axis=ax), np.isnan(a).any(axis=ax)),
                              (cg.sum(cg.real(x) > 0, axis=ax), (a.real > 0).sum(axis=ax))]:
                got = np.asarray(got)
                assert got.shape == np.shape(want)
                np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(a.size + 1), equal_nan=True)
    z = cg.asarray(np.ones(4096, dtype) * (1 + 2j))
    assert complex(cg.vdot(z, z)) == 4096 * 5  # exact: the parts' sums are whole numbers
