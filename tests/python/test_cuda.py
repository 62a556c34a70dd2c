"""The Python package on the CUDA backend: device placement and random graphs against NumPy.
Skipped without a CUDA device; tools/test_python.sh runs this file again on the emulated device
(docs/cuda.md) when the emulator is there, as CI does."""
import importlib.util
import pathlib

import numpy as np
import pytest

import cgrad as cg

pytestmark = pytest.mark.skipif(not cg.cuda_available(), reason="no CUDA device (real or emulated)")

_path = pathlib.Path(__file__).resolve().parents[2] / "tools" / "fuzz_numpy.py"
_spec = importlib.util.spec_from_file_location("fuzz_numpy_cuda", _path)
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)


def test_asarray_puts_every_kind_of_input_on_the_device():
    # a NumPy array (the DLPack path) stayed on the CPU, silently, until 2026-12-05
    a = np.arange(6.0).reshape(2, 3)
    for obj in (a, a.astype(np.float32), np.float32(1.5), [1.0, 2.0], 3, cg.asarray(a)):
        x = cg.asarray(obj, device="cuda")
        assert str(x.device) == "cuda:0"
        np.testing.assert_array_equal(np.asarray(x.to_device("cpu")), np.asarray(obj))
    assert str(cg.asarray(a, dtype=cg.float32, device="cuda").device) == "cuda:0"
    for obj in (a, cg.asarray(a)):
        with pytest.raises(ValueError, match="copy=False"):
            cg.asarray(obj, device="cuda", copy=False)
    x = cg.asarray(a, device="cuda")
    assert cg.asarray(x, device="cuda") is x
    assert str(x.to_device(cg.Device.cpu()).device) == "cpu"
    assert repr(cg.asarray([1.0, 2.0], device="cuda")) == "Array([1., 2.], dtype=float32, device=cuda:0)"


def test_results_match_the_cpu():
    x = cg.asarray(np.linspace(-3, 3, 40, dtype=np.float32).reshape(5, 8), device="cuda")
    y = cg.softmax(cg.exp(x) * 0.5, axis=1) + cg.sum(x * x, axis=0)
    xc = x.to_device("cpu")
    want = cg.softmax(cg.exp(xc) * 0.5, axis=1) + cg.sum(xc * xc, axis=0)
    assert str(y.device) == "cuda:0"
    np.testing.assert_allclose(np.asarray(y.to_device("cpu")), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("special", [False, True])
def test_random_graphs_on_the_device_match_numpy(special, monkeypatch):
    monkeypatch.setattr(fuzz, "DEVICE", "cuda")
    assert sum(fuzz.run(seed, False, special=special) for seed in range(500, 520)) == 0


def test_linalg_runs_on_the_device():
    a = np.random.default_rng(3).standard_normal((2, 4, 4)).astype(np.float32)
    x = cg.asarray(a, device="cuda")
    got = [cg.linalg.trace(x, offset=1), cg.linalg.diagonal(x, offset=-1), cg.linalg.vector_norm(x, axis=(1, 2), ord=3),
           cg.linalg.matrix_norm(x, ord=1), cg.linalg.matrix_power(x, 3), cg.linalg.cross(x[..., :3], x[..., 1:])]
    want = [np.trace(a, 1, -2, -1), np.diagonal(a, -1, -2, -1), np.sum(np.abs(a) ** 3, axis=(1, 2)) ** (1 / 3),
            np.linalg.norm(a, 1, axis=(-2, -1)), np.linalg.matrix_power(a, 3), np.cross(a[..., :3], a[..., 1:])]
    h = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4, dtype=np.float32)
    xh = cg.asarray(h, device="cuda")
    # the decompositions run on the host and hand their results back to the device
    got += [cg.linalg.inv(x), cg.linalg.det(x), cg.linalg.cholesky(xh), cg.linalg.eigvalsh(xh), cg.linalg.svdvals(x),
            cg.linalg.solve(x, x[..., :2]), cg.linalg.matrix_norm(x, ord=2)]
    want += [np.linalg.inv(a), np.linalg.det(a), np.linalg.cholesky(h), np.linalg.eigvalsh(h),
             np.linalg.svd(a, compute_uv=False), np.linalg.solve(a, a[..., :2]), np.linalg.norm(a, 2, axis=(-2, -1))]
    for g, w in zip(got, want):
        assert str(g.device) == "cuda:0"
        np.testing.assert_allclose(np.asarray(g.to_device("cpu")), w, rtol=2e-4, atol=2e-4)
    ev, vec = cg.linalg.eig(x)  # general eigenproblems: complex results, back on the device
    assert str(ev.device) == "cuda:0" and str(vec.device) == "cuda:0"
    evn, vecn = np.asarray(ev.to_device("cpu")), np.asarray(vec.to_device("cpu"))
    np.testing.assert_allclose(a @ vecn, vecn * evn[..., None, :], atol=1e-4)
    w = cg.asarray(a, device="cuda").requires_grad_()  # a gradient through a host routine, on the device
    (g,) = cg.grad(cg.sum(cg.linalg.inv(w)), [w])
    assert str(g.device) == "cuda:0"
    ai = np.linalg.inv(a.astype(np.float64))
    want_g = -np.swapaxes(ai, -1, -2) @ np.ones_like(ai) @ np.swapaxes(ai, -1, -2)
    np.testing.assert_allclose(np.asarray(g.to_device("cpu")), want_g, rtol=1e-3, atol=1e-3)


def test_fft_runs_on_the_device():
    a = np.random.default_rng(4).standard_normal((3, 16)).astype(np.float32)
    x = cg.asarray(a, device="cuda")
    # the transforms run on the host and hand their results back to the device
    got = [cg.fft.fft(x), cg.fft.rfft(x, norm="ortho"), cg.fft.irfft(cg.fft.rfft(x), n=16),
           cg.fft.fftn(x, s=(4, 9), axes=(0, 1)), cg.fft.hfft(cg.fft.ifft(x)[:, :9]), cg.fft.fftshift(x),
           cg.fft.fftfreq(8, d=0.5, device="cuda")]
    want = [np.fft.fft(a), np.fft.rfft(a, norm="ortho"), a, np.fft.fftn(a, s=(4, 9), axes=(0, 1)),
            np.fft.hfft(np.fft.ifft(a)[:, :9]), np.fft.fftshift(a), np.fft.fftfreq(8, d=0.5)]
    for g, w in zip(got, want):
        assert str(g.device) == "cuda:0"
        np.testing.assert_allclose(np.asarray(g.to_device("cpu")), w, rtol=1e-4, atol=1e-4)
    w = cg.asarray(a, device="cuda").requires_grad_()  # Parseval: d/dx sum |fft(x)|^2 = 2 n x
    (g,) = cg.grad(cg.sum(cg.abs(cg.fft.fft(w)) ** 2), [w])
    assert str(g.device) == "cuda:0"
    np.testing.assert_allclose(np.asarray(g.to_device("cpu")), 2 * 16 * a, rtol=1e-4, atol=1e-3)


def test_einsum_indexing_and_numpy_functions_run_on_the_device():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 4, 5)).astype(np.float32)
    x, y = cg.asarray(a, device="cuda"), cg.asarray(b, device="cuda")
    v = rng.standard_normal(40).astype(np.float32)
    xv = cg.asarray(v, device="cuda")
    got = [cg.einsum("bij,bjk->bik", x, y), x[:, [0, 2], [1, 3]], cg.pad(x, 1, mode="reflect"),
           cg.quantile(xv, 0.3), cg.histogram(xv, bins=5)[0], cg.convolve(xv, xv[:5]), cg.isin(x, x[0, 0])]
    want = [np.einsum("bij,bjk->bik", a, b), a[:, [0, 2], [1, 3]], np.pad(a, 1, mode="reflect"),
            np.quantile(v, 0.3), np.histogram(v, bins=5)[0], np.convolve(v, v[:5]), np.isin(a, a[0, 0])]
    for g, w in zip(got, want):
        assert str(g.device) == "cuda:0"
        np.testing.assert_allclose(np.asarray(g.to_device("cpu")), w, rtol=1e-4, atol=1e-4)
    x[:, [0, 2], [1, 3]] = 0.0  # a write through a mixed key, on the device
    a[:, [0, 2], [1, 3]] = 0.0
    np.testing.assert_array_equal(np.asarray(x.to_device("cpu")), a)


def test_copies_and_generators_on_the_device():
    # Tensor::clone on CUDA goes through the host: the bits (-0.0 included) and the device kept
    a = np.array([[-0.0, 1.5], [np.nan, -2.0]], dtype=np.float32)
    x = cg.asarray(a, device="cuda")
    for c in (x.copy(), cg.asarray(x, copy=True), cg.array(x)):
        assert str(c.device) == "cuda:0"
        got = np.asarray(c.to_device("cpu"))
        np.testing.assert_array_equal(got, a)
        assert np.signbit(got[0, 0])
    g, h = cg.random.default_rng(3), cg.random.default_rng(3)
    u = g.standard_normal((64,), device="cuda")
    assert str(u.device) == "cuda:0"
    np.testing.assert_array_equal(np.asarray(u.to_device("cpu")), np.asarray(h.standard_normal((64,))))
