"""cgrad.fft (the Array API's fft extension) against NumPy: every function over dtypes, shapes,
lengths (padding and cutting), axes and norms; gradients against central differences; errors;
compile; assignment to the results leaves the input alone."""
import itertools

import numpy as np
import pytest

import cgrad as cg
from _compare import numeric_grad as _numeric_grad

rng = np.random.default_rng(11)


def arr(a):
    return cg.asarray(np.asarray(a))


def rand(shape, dtype=np.float64):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def close(got, want, dtype, what=""):
    single = np.dtype(dtype) in (np.float32, np.complex64)
    scale = max(1.0, float(np.max(np.abs(want)))) if np.size(want) else 1.0
    np.testing.assert_allclose(np.asarray(got), want, rtol=0, atol=(2e-5 if single else 1e-12) * scale, err_msg=what)


COMPLEX_OUT = {np.float32: cg.complex64, np.float64: cg.complex128, np.complex64: cg.complex64,
               np.complex128: cg.complex128}
REAL_OUT = {np.complex64: cg.float32, np.complex128: cg.float64, np.float32: cg.float32, np.float64: cg.float64}
NORMS = ["backward", "ortho", "forward"]


def test_the_namespace_has_the_extension():
    for name in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq",
                 "rfftfreq", "fftshift", "ifftshift"):
        assert callable(getattr(cg.fft, name)), name
    assert cg.fft.fft.__name__ == "fft" and cg.fft.fft.__doc__


@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32, np.float64])
def test_complex_transforms_match_numpy(name, dtype):
    for shape, axis, n, norm in [((16,), -1, None, "backward"), ((3, 10), 0, None, "ortho"), ((3, 10), 1, 7, "forward"),
                                 ((2, 3, 5), 1, 8, "backward"), ((97,), 0, None, "ortho"), ((2, 60), -1, 61, "forward"),
                                 ((4, 1), 1, None, "backward"), ((0, 6), 1, None, "backward"), ((1,), 0, 1, "ortho")]:
        a = rand(shape, dtype)
        got = getattr(cg.fft, name)(arr(a), n=n, axis=axis, norm=norm)
        want = getattr(np.fft, name)(a, n=n, axis=axis, norm=norm)
        assert got.dtype == COMPLEX_OUT[dtype] and tuple(got.shape) == want.shape, (shape, axis, n)
        close(got, want, dtype, f"{name} {shape} axis={axis} n={n} {norm}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rfft_and_ihfft_match_numpy(dtype):
    for shape, axis, n, norm in [((16,), -1, None, "backward"), ((3, 9), 1, None, "ortho"), ((3, 9), 0, 6, "forward"),
                                 ((2, 5, 4), 1, 11, "backward"), ((1,), 0, None, "backward"), ((2, 101), -1, None, "ortho")]:
        a = rand(shape, dtype)
        for name in ("rfft", "ihfft"):
            got = getattr(cg.fft, name)(arr(a), n=n, axis=axis, norm=norm)
            want = getattr(np.fft, name)(a, n=n, axis=axis, norm=norm)
            assert got.dtype == COMPLEX_OUT[dtype] and tuple(got.shape) == want.shape, (name, shape)
            close(got, want, dtype, f"{name} {shape} axis={axis} n={n} {norm}")


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_irfft_and_hfft_match_numpy(dtype):
    # the inputs are not Hermitian: the imaginary parts NumPy ignores (zero and n / 2 frequencies)
    # must be ignored here too
    for shape, axis, n, norm in [((9,), -1, None, "backward"), ((3, 9), 1, 16, "ortho"), ((3, 9), 1, 17, "forward"),
                                 ((5, 4), 0, None, "backward"), ((2, 5, 4), 1, 3, "ortho"), ((3, 1), 1, 1, "backward"),
                                 ((2, 2), -1, None, "forward"), ((2, 40), -1, 200, "backward")]:
        a = rand(shape, dtype)
        for name in ("irfft", "hfft"):
            got = getattr(cg.fft, name)(arr(a), n=n, axis=axis, norm=norm)
            want = getattr(np.fft, name)(a, n=n, axis=axis, norm=norm)
            assert got.dtype == REAL_OUT[dtype] and tuple(got.shape) == want.shape, (name, shape, n)
            close(got, want, dtype, f"{name} {shape} axis={axis} n={n} {norm}")


CASES_N = [((4, 6), None, None), ((4, 6), (5, 8), None), ((2, 3, 4), None, (0, 2)), ((2, 3, 4), (3, 2), (2, 0)),
           ((2, 3, 4), (5, 2, 6), None), ((3, 5, 2), (4, 4, 3), (1, 0, 2)), ((6,), None, (-1,))]


def _numpy_axes(a, s, axes):  # s without axes: every axis (NumPy 2 warns unless they are named)
    return list(range(a.ndim)) if axes is None and s is not None else axes


@pytest.mark.parametrize("name", ["fftn", "ifftn"])
@pytest.mark.parametrize("dtype", [np.complex64, np.float64])
def test_complex_nd_transforms_match_numpy(name, dtype):
    for (shape, s, axes), norm in itertools.product(CASES_N, NORMS):
        a = rand(shape, dtype)
        got = getattr(cg.fft, name)(arr(a), s=s, axes=axes, norm=norm)
        want = getattr(np.fft, name)(a, s=s, axes=_numpy_axes(a, s, axes), norm=norm)
        assert got.dtype == COMPLEX_OUT[dtype] and tuple(got.shape) == want.shape
        close(got, want, dtype, f"{name} {shape} s={s} axes={axes} {norm}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rfftn_and_irfftn_match_numpy(dtype):
    cdtype = np.complex64 if dtype == np.float32 else np.complex128
    for (shape, s, axes), norm in itertools.product(CASES_N, NORMS):
        a = rand(shape, dtype)
        got = cg.fft.rfftn(arr(a), s=s, axes=axes, norm=norm)
        want = np.fft.rfftn(a, s=s, axes=_numpy_axes(a, s, axes), norm=norm)
        assert got.dtype == COMPLEX_OUT[dtype] and tuple(got.shape) == want.shape
        close(got, want, dtype, f"rfftn {shape} s={s} axes={axes} {norm}")
        c = rand(shape, cdtype)
        got = cg.fft.irfftn(arr(c), s=s, axes=axes, norm=norm)
        want = np.fft.irfftn(c, s=s, axes=_numpy_axes(c, s, axes), norm=norm)
        assert got.dtype == REAL_OUT[cdtype] and tuple(got.shape) == want.shape
        close(got, want, cdtype, f"irfftn {shape} s={s} axes={axes} {norm}")


def test_every_length_up_to_300_and_some_large_ones_match_numpy():
    # radices 2, 3, 4, 5, the generic butterfly up to 31 and Bluestein past it
    for n in list(range(1, 301)) + [1009, 4096, 3 * 5 * 7 * 11 * 13, 2 * 4099]:
        a = rand((n,), np.complex128)
        close(cg.fft.fft(arr(a)), np.fft.fft(a), np.complex128, f"n={n}")
        close(cg.fft.ifft(arr(a)), np.fft.ifft(a), np.complex128, f"n={n}")


def test_frequencies_match_numpy():
    for n in (1, 2, 5, 8, 101):
        for d in (1.0, 0.25, 3):
            for dtype in (None, cg.float64, cg.float32):
                got, want = cg.fft.fftfreq(n, d=d, dtype=dtype), np.fft.fftfreq(n, d=d)
                assert got.dtype == (dtype or cg.float32) and tuple(got.shape) == want.shape
                np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6 if dtype != cg.float64 else 1e-15)
                got, want = cg.fft.rfftfreq(n, d=d, dtype=dtype), np.fft.rfftfreq(n, d=d)
                assert got.dtype == (dtype or cg.float32) and tuple(got.shape) == want.shape
                np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6 if dtype != cg.float64 else 1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex64, np.bool_])
def test_shifts_match_numpy(dtype):
    for shape in ((5,), (4,), (3, 4), (2, 5, 3), (1, 0)):
        a = (rand(shape) > 0) if dtype is np.bool_ else rand(shape, dtype)
        for axes in (None, 0, -1, (0,), (-1, 0)):
            if axes is not None and len(shape) == 1 and axes == (-1, 0):
                continue
            for name in ("fftshift", "ifftshift"):
                got = getattr(cg.fft, name)(arr(a), axes=axes)
                want = getattr(np.fft, name)(a, axes=axes)
                assert got.dtype == arr(a).dtype
                np.testing.assert_array_equal(np.asarray(got), want)


def test_results_are_new_arrays():
    a = rand((4,))
    x = arr(a)
    for y in (cg.fft.fftshift(x, axes=()), cg.fft.fftshift(arr(np.float64(2.0)))):
        y[...] = 7.0
    np.testing.assert_array_equal(np.asarray(x), a)
    z = arr(rand((4,), np.complex128))
    before = np.asarray(z).copy()
    f = cg.fft.fftn(z, axes=())  # no axes: the input's value as a new array
    f[...] = 0
    np.testing.assert_array_equal(np.asarray(z), before)
    np.testing.assert_array_equal(np.asarray(f), 0)


def test_bad_arguments_raise_and_leave_the_input():
    a = rand((2, 4))
    x = arr(a)
    with pytest.raises(cg.InvalidArgumentError, match="number of data points"):
        cg.fft.fft(x, n=0)
    with pytest.raises(cg.InvalidArgumentError):
        cg.fft.fft(x, axis=2)
    with pytest.raises(cg.InvalidArgumentError, match="norm"):
        cg.fft.ifft(x, norm="sideways")
    with pytest.raises(TypeError):
        cg.fft.fft(arr(np.arange(4)))  # integers: the standard takes floating input only
    with pytest.raises(TypeError):
        cg.fft.rfft(arr(rand((4,), np.complex128)))
    with pytest.raises(TypeError):
        cg.fft.fft(x, n=2.5)
    with pytest.raises(cg.InvalidArgumentError, match="number of data points"):
        cg.fft.irfft(arr(rand((3, 1), np.complex128)))  # n = 2 (1 - 1) = 0
    with pytest.raises(cg.InvalidArgumentError, match="differ in length"):
        cg.fft.fftn(x, s=(2, 2), axes=(1,))
    with pytest.raises(cg.InvalidArgumentError, match="repeat"):
        cg.fft.fftn(x, axes=(1, -1))
    with pytest.raises(cg.InvalidArgumentError, match="without axes"):
        cg.fft.fftn(x, s=(2,))  # the standard leaves it out; NumPy 2 deprecates its old meaning
    with pytest.raises(cg.InvalidArgumentError, match="at least one axis"):
        cg.fft.rfftn(x, axes=())
    with pytest.raises(cg.InvalidArgumentError):
        cg.fft.fftfreq(0)
    with pytest.raises(TypeError):
        cg.fft.fftfreq(4, dtype=cg.int32)
    with pytest.raises(cg.InvalidArgumentError):
        cg.fft.fft(arr(np.float64(1.0)))  # a 0-d array has no axis
    np.testing.assert_array_equal(np.asarray(x), a)


def _grad_check(f, a):
    """f's gradient at a against central differences; complex a: d/dRe + i d/dIm (PyTorch's
    convention, docs/autograd.md)."""
    w = arr(a).requires_grad_()
    (g,) = cg.grad(f(w), [w])
    if np.iscomplexobj(a):
        want = _numeric_grad(lambda v: float(f(arr(v + 1j * a.imag))), a.real.copy()) + \
            1j * _numeric_grad(lambda v: float(f(arr(a.real + 1j * v))), a.imag.copy())
    else:
        want = _numeric_grad(lambda v: float(f(arr(v))), a)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6, atol=1e-8)


def test_gradients_match_central_differences():
    wc = arr(rand((3, 8), np.complex128))
    wr = arr(rand((3, 8)))

    def loss(y):  # real, weighting every part of every element differently
        w = wc[: y.shape[0], : y.shape[1]] if y.shape[1] <= 8 else wc[:, :1]
        return cg.sum(cg.real(y * w)) if y.dtype in (cg.complex64, cg.complex128) else cg.sum(y * wr[: y.shape[0], :1])

    r, z = rand((3, 6)), rand((3, 5), np.complex128)
    for norm in NORMS:
        _grad_check(lambda x: loss(cg.fft.fft(x, n=8, norm=norm)), r)
        _grad_check(lambda x: loss(cg.fft.ifft(x, axis=0, norm=norm)), z)
        _grad_check(lambda x: loss(cg.fft.rfft(x, norm=norm)), r)
        _grad_check(lambda x: loss(cg.fft.irfft(x, n=8, norm=norm)), z)
        _grad_check(lambda x: loss(cg.fft.irfft(x, n=7, norm=norm)), z)
        _grad_check(lambda x: loss(cg.fft.hfft(x, norm=norm)), z)
        _grad_check(lambda x: loss(cg.fft.ihfft(x, norm=norm)), r)
        _grad_check(lambda x: loss(cg.fft.fftn(x, s=(3, 4), norm=norm)), z)
        _grad_check(lambda x: loss(cg.fft.rfftn(x, norm=norm)), r)
        _grad_check(lambda x: loss(cg.fft.irfftn(x, s=(2, 6), norm=norm)), z)
    _grad_check(lambda x: loss(cg.fft.fftshift(x)), r)
    # a second derivative: the transform's backward is a transform
    x = arr(r).requires_grad_()
    (g,) = cg.grad(cg.sum(cg.abs(cg.fft.fft(x)) ** 2), [x])
    (gg,) = cg.grad(cg.sum(g * g), [x])
    np.testing.assert_allclose(np.asarray(g), 2 * 6 * r, rtol=1e-12)  # Parseval: sum |X|^2 = n sum x^2
    np.testing.assert_allclose(np.asarray(gg), 8 * 36 * r, rtol=1e-12)


def test_transforms_inside_compile_run_eagerly_and_stay_right():
    @cg.compile
    def f(x):
        return cg.fft.irfft(cg.fft.rfft(x * 2) * 0.5, n=x.shape[-1]) + 1

    for seed in range(3):
        a = np.random.default_rng(seed).standard_normal((3, 10))
        np.testing.assert_allclose(np.asarray(f(arr(a))), a + 1, rtol=1e-12, atol=1e-12)


def test_other_inputs_go_through_asarray():
    a = rand((6,), np.complex128)
    close(cg.fft.fft(a), np.fft.fft(a), np.complex128)
    close(cg.fft.fft([1.0, 2.0, 3.0]), np.fft.fft([1.0, 2.0, 3.0]).astype(np.complex64), np.complex64)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_numpys_two_axis_forms_and_positional_arguments_match_numpy(dtype):
    x = rand((3, 5, 6), dtype)
    for name in ["fft2", "ifft2"]:
        for args in [(), ((4, 8),), (None, (0, 2)), ((4, 7), (2, 0), "ortho"), (None, (-2, -1), None)]:
            want = getattr(np.fft, name)(x, *args)
            close(getattr(cg.fft, name)(arr(x), *args), want, dtype, f"{name}{args}")
    if np.dtype(dtype).kind == "f":
        spec = np.fft.rfft2(x)
        close(cg.fft.rfft2(arr(x)), spec, dtype)
        close(cg.fft.rfft2(arr(x), (4, 6), (0, 1), "forward"), np.fft.rfft2(x, (4, 6), (0, 1), "forward"), dtype)
        close(cg.fft.irfft2(arr(spec.astype(np.complex64))), np.fft.irfft2(spec), dtype)
        close(cg.fft.irfft2(arr(spec), (5, 6)), np.fft.irfft2(spec, (5, 6)), dtype)
    close(cg.fft.fft(arr(x), 7, 1, None), np.fft.fft(x, 7, 1, None), dtype)
    close(cg.fft.fftn(arr(x), None, (1,), "ortho"), np.fft.fftn(x, None, (1,), "ortho"), dtype)
    with pytest.raises(ValueError):
        cg.fft.fft2(arr(x), norm="sideways")
    with pytest.raises((ValueError, IndexError)):
        cg.fft.fft2(arr(x), axes=(0, 3))
