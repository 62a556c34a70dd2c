"""DLPack both ways with NumPy (and PyTorch when installed): no copy (same pointer), the
producer's buffer lives until the consumer's deleter runs, and 1e5 round trips do not leak."""
import gc
import os
import resource
import weakref

import numpy as np
import pytest

import cgrad as cg


def ptr(a):
    return a.__array_interface__["data"][0]


def test_numpy_to_cgrad_shares_memory_and_back():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = cg.from_dlpack(a)
    assert t.shape == (3, 4) and t.dtype == cg.float32
    b = np.from_dlpack(t)
    assert ptr(b) == ptr(a)  # the same memory both ways
    np.testing.assert_array_equal(np.asarray(t * 2), a * 2)


@pytest.mark.parametrize(
    "dtype",
    [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
     np.uint64, np.bool_],
)
def test_every_dtype_round_trips(dtype):
    a = (np.arange(6) % 2).astype(dtype).reshape(2, 3)
    t = cg.from_dlpack(a)
    assert t.dtype.name == np.dtype(dtype).name.replace("bool_", "bool")
    np.testing.assert_array_equal(np.from_dlpack(t), a)


def test_strided_views_import_without_copy():
    base = np.arange(40, dtype=np.float64).reshape(5, 8)
    v = base[1::2, ::3].T  # non-contiguous, transposed
    t = cg.from_dlpack(v)
    np.testing.assert_array_equal(np.asarray(t), v)
    np.testing.assert_array_equal(np.asarray(t + 1), v + 1)


def test_elementwise_of_a_transpose_keeps_its_layout_as_numpy_does():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = cg.asarray(a)
    for got, want in ((t.T + 1, a.T + 1), (cg.exp(t.T) * 2, np.exp(a.T) * 2)):
        r = np.from_dlpack(got)
        np.testing.assert_allclose(r, want, rtol=1e-6)
        assert r.strides == want.strides and r.flags.f_contiguous
    assert np.from_dlpack(t.T + cg.asarray(a.T.copy())).flags.c_contiguous  # operands disagree


def test_unsupported_dtype_is_a_clear_error():
    # Every dtype NumPy exports over DLPack is a cgrad dtype now (complex64/128 included:
    # test_complex.py); a dtype name cgrad lacks is a clear TypeError.
    with pytest.raises(TypeError, match="no dtype"):
        cg.asarray([1.0], dtype="float128")
    with pytest.raises(BufferError):
        cg.from_dlpack(np.zeros(3, np.longdouble))  # NumPy itself refuses to export it


def test_producer_buffer_lives_until_cgrad_drops_it():
    a = np.arange(1000, dtype=np.float32)
    alive = weakref.ref(a)
    t = cg.from_dlpack(a)
    del a
    gc.collect()
    assert alive() is not None  # cgrad holds the producer's tensor
    s = cg.sum(t * 2)
    del t
    gc.collect()
    # the graph behind `s` still reads the buffer
    assert alive() is not None
    assert float(s) == 2 * sum(range(1000))
    del s
    cg._cgrad._drain_deferred()
    gc.collect()
    assert alive() is None  # the deleter ran


def test_exported_memory_outlives_the_cgrad_array():
    t = cg.arange(5, dtype=cg.float64) * 3
    b = np.from_dlpack(t)
    del t
    gc.collect()
    np.testing.assert_array_equal(b, np.arange(5) * 3.0)
    assert not b.flags.writeable  # the versioned capsule says read-only


def test_versioned_and_legacy_capsules():
    t = cg.ones((2, 2))
    assert type(t.__dlpack__()).__name__ == "PyCapsule"
    legacy = t.__dlpack__()
    versioned = t.__dlpack__(max_version=(1, 0))
    assert "dltensor" in repr(legacy) and "dltensor_versioned" not in repr(legacy)
    assert "dltensor_versioned" in repr(versioned)
    assert t.__dlpack_device__() == (1, 0)
    c = cg.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=True))
    assert ptr(np.from_dlpack(c)) != ptr(np.from_dlpack(t))
    cg.from_dlpack(versioned)
    with pytest.raises(TypeError, match="unconsumed"):
        cg.from_dlpack(versioned)  # a capsule is consumed once


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.bool_, np.float32, np.float64, np.complex64])
def test_copies_own_their_memory_and_keep_the_bits(dtype):
    # asarray(copy=True), x.copy() and __dlpack__(copy=True) copied through x + 0 until 2026-12-06:
    # the simplifier dropped it for integers (the copy still read NumPy's memory) and it made -0.0 0.0
    a = np.array([1, 0, 1, 1], dtype=dtype)
    if np.dtype(dtype).kind in "fc":
        a[1] = -0.0
        a[3] = np.nan
    want = a.copy()
    x = cg.asarray(a)
    copies = [cg.asarray(a, copy=True), x.copy(), cg.from_dlpack(x.__dlpack__(max_version=(1, 0), copy=True)),
              cg.asarray(x, copy=True), x[1:].copy()]
    a[0] = 0  # the caller writes to its array afterwards (documented as not allowed while x lives)
    for c in copies[:4]:
        got = np.asarray(c)
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got.real), np.signbit(want.real)) if got.dtype.kind in "fc" else True
        assert ptr(got) != ptr(a)
    np.testing.assert_array_equal(np.asarray(copies[4]), want[1:])


def test_bool_arrays_from_python_numbers_take_their_truth():
    assert cg.asarray(0, dtype=cg.bool).item() is False
    np.testing.assert_array_equal(np.asarray(cg.asarray([0.5, 0, -2, 0.0], dtype=cg.bool)), [True, False, True, False])
    x = cg.asarray(np.array([True, True]))
    x[0] = 0
    np.testing.assert_array_equal(np.asarray(x), [False, True])


def test_a_cgrad_result_never_overwrites_the_producer():
    a = np.arange(8, dtype=np.float32)
    keep = a.copy()
    r = cg.exp(cg.from_dlpack(a)) + 1  # the imported leaf has no other handle
    cg.eval(r)
    np.testing.assert_array_equal(a, keep)
    assert cg.stats() is not None


def test_each_evaluation_reads_the_producers_current_values():
    # NumPy writes the imported buffer between two evaluations of the same expression: the
    # second sees the new values (a cached result once gave the old sum while x read the new).
    a = np.ones(16)
    x = cg.asarray(a)
    assert float(cg.sum(x * 2)) == 32.0
    a[:] = 5
    assert float(cg.sum(x * 2)) == 160.0
    np.testing.assert_array_equal(np.asarray(x), a)


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def test_1e5_round_trips_do_not_leak():
    a = np.ones(256, dtype=np.float32)

    def trips(n):
        for _ in range(n):
            t = cg.from_dlpack(a)
            b = np.from_dlpack(t)
            del t, b

    trips(10_000)  # warm up pools and caches
    gc.collect()
    before = rss_kib()
    trips(100_000)
    gc.collect()
    grown = rss_kib() - before
    assert grown < 8 * 1024, f"RSS grew by {grown} KiB over 1e5 round trips"
    # the array is still owned by exactly the names in this frame
    import sys

    assert sys.getrefcount(a) <= 3




def test_torch_round_trip_shares_memory():
    torch = pytest.importorskip("torch")
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = cg.from_dlpack(x)
    np.testing.assert_array_equal(np.asarray(t), x.numpy())
    y = torch.from_dlpack(t)
    assert y.data_ptr() == x.data_ptr()
    z = torch.from_dlpack(cg.exp(t))
    torch.testing.assert_close(z, torch.exp(x))


def test_compiled_functions_take_torch_tensors_as_inputs():
    # a tensor was a signature key by identity until 2026-12-07: a trace per tensor
    torch = pytest.importorskip("torch")
    f = cg.compile(lambda x, s=1.0: x * s)
    for i in range(3):
        np.testing.assert_array_equal(np.asarray(f(torch.full((3,), float(i)), 2.0)), [2.0 * i] * 3)
    if os.environ.get("CGRAD_BACKEND") != "interpreter":
        assert f.signatures == 1
