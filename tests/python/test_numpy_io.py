"""NumPy's I/O, printing, error state and small utilities (python/cgrad/_numpy_io.py) against
NumPy: round trips through files for every dtype, text readers' options, print options and their
restoring, the recorded error state, pickling, and the misc functions' values and errors."""
import copy
import io
import pickle

import numpy as np
import pytest

import cgrad as cg

rng = np.random.default_rng(5)

NP_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
             "float32", "float64", "complex64", "complex128"]


def sample(name, shape=(2, 3)):
    if name == "bool":
        return rng.random(shape) > 0.5
    if name.startswith(("int", "uint")):
        info = np.iinfo(name)
        return rng.integers(info.min, info.max, size=shape, dtype=name, endpoint=True)
    if name.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(name)
    return rng.standard_normal(shape).astype(name)


def same(got, want):
    """got a cgrad array with want's dtype, shape and values (bit for bit, NaN where NaN)."""
    assert isinstance(got, cg.Array), type(got)
    want = np.asarray(want)
    assert got.dtype.name == want.dtype.name, (got.dtype, want.dtype)
    assert tuple(got.shape) == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


# ---- .npy / .npz ----
@pytest.mark.parametrize("name", NP_DTYPES)
def test_save_load_every_dtype(tmp_path, name):
    a = sample(name)
    f = tmp_path / "a.npy"
    cg.save(f, cg.asarray(a))
    same(cg.load(f), a)
    np.testing.assert_array_equal(np.load(f), a)  # NumPy reads what cgrad wrote


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (4, 0, 2)])
def test_save_load_empty_and_0d(tmp_path, shape):
    a = sample("float64", shape)
    cg.save(tmp_path / "a.npy", cg.asarray(a))
    same(cg.load(tmp_path / "a.npy"), a)


def test_load_reads_numpy_files(tmp_path):
    f = tmp_path / "b.npy"
    np.save(f, np.arange(6, dtype=">i4").reshape(2, 3))  # big-endian
    same(cg.load(f), np.arange(6, dtype="i4").reshape(2, 3))
    np.save(f, np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    same(cg.load(f), np.arange(6.0).reshape(2, 3))
    same(cg.load(f, mmap_mode="r"), np.arange(6.0).reshape(2, 3))
    np.save(f, np.array(["a", "b"]))
    with pytest.raises(TypeError, match="cannot hold"):
        cg.load(f)


def test_savez_several_arrays_and_keywords(tmp_path):
    a, b, c = sample("float32"), sample("int64", (5,)), sample("complex128", ())
    f = tmp_path / "z.npz"
    cg.savez(f, cg.asarray(a), b, c=cg.asarray(c))
    with cg.load(f) as z:
        assert isinstance(z, cg.NpzFile) and sorted(z.files) == ["arr_0", "arr_1", "c"]
        assert len(z) == 3 and "c" in z and "d" not in z and sorted(z) == sorted(z.files)
        same(z["arr_0"], a)
        same(z["arr_1"], b)
        same(z.f.c, c)
        with pytest.raises(KeyError):
            z["d"]
    zn = np.load(f)
    np.testing.assert_array_equal(zn["arr_0"], a)


def test_savez_compressed(tmp_path):
    arrays = {n: sample(n, (3, 2)) for n in NP_DTYPES}
    f = tmp_path / "z.npz"
    cg.savez_compressed(f, **{n: cg.asarray(v) for n, v in arrays.items()})
    z = cg.load(f)
    for n, v in arrays.items():
        same(z[n], v)
    z.close()


def test_bfloat16_refused_by_numpy_formats(tmp_path):
    x = cg.asarray([1.0, 2.5]).astype(cg.bfloat16)
    for fn in (lambda: cg.save(tmp_path / "a.npy", x), lambda: cg.savez(tmp_path / "a.npz", x),
               lambda: cg.savetxt(tmp_path / "a.txt", x)):
        with pytest.raises(TypeError, match="bfloat16"):
            fn()
    cg.save(tmp_path / "a.npy", x.astype(cg.float32))  # the way out the message gives
    same(cg.load(tmp_path / "a.npy"), np.array([1.0, 2.5], np.float32))


def test_load_pickles(tmp_path):
    x = cg.asarray(sample("int16"))
    f = tmp_path / "p.pkl"
    x.dump(f)
    with pytest.raises(ValueError):
        cg.load(f)  # allow_pickle=False by default, as NumPy
    same(cg.load(f, allow_pickle=True), np.asarray(x))
    np.save(tmp_path / "o.npy", np.array([{"a": 1}], dtype=object))
    with pytest.raises(TypeError, match="cannot hold"):
        cg.load(tmp_path / "o.npy", allow_pickle=True)


# ---- text ----
def test_savetxt_loadtxt(tmp_path):
    a = rng.standard_normal((4, 3))
    f = tmp_path / "a.txt"
    cg.savetxt(f, cg.asarray(a), delimiter=",", header="x y z")
    got = cg.loadtxt(f, delimiter=",")
    same(got, np.loadtxt(f, delimiter=","))
    np.testing.assert_array_equal(np.asarray(got), a)  # %.18e round-trips float64
    assert got.dtype == cg.float64  # NumPy's default, not cgrad's float32
    same(cg.loadtxt(f, delimiter=",", dtype=cg.float32), a.astype(np.float32))
    cg.savetxt(f, cg.asarray(np.arange(6, dtype=np.int32).reshape(2, 3)), fmt="%d")
    assert f.read_text() == "0 1 2\n3 4 5\n"


@pytest.mark.filterwarnings("ignore:Input line")  # NumPy's note on max_rows and the comment line
def test_loadtxt_options(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("skip me\n% a comment\n1; 2; 3 % end\n4; 5; 6\n7; 8; 9\n")
    kw = dict(delimiter=";", comments="%", skiprows=1)
    for extra in ({}, {"usecols": (0, 2)}, {"usecols": 1}, {"max_rows": 2}, {"dtype": int}, {"ndmin": 2},
                  {"dtype": "u1"}):
        same(cg.loadtxt(f, **kw, **extra), np.loadtxt(f, **kw, **extra))
    cols = cg.loadtxt(f, **kw, unpack=True)
    want = np.loadtxt(f, **kw, unpack=True)
    assert len(cols) == 3
    for g, w in zip(cols, want):
        same(g, w)
    same(cg.loadtxt(io.StringIO("1 2\n3 4")), np.array([[1.0, 2.0], [3.0, 4.0]]))
    same(cg.loadtxt(["1.5", "2.5"]), np.array([1.5, 2.5]))
    with pytest.raises(TypeError, match="cannot hold"):
        cg.loadtxt(io.StringIO("a b"), dtype=str)
    with pytest.raises(ValueError):
        cg.loadtxt(io.StringIO("1 x"))


def test_genfromtxt(tmp_path):
    f = tmp_path / "g.csv"
    f.write_text("# h\nskip\n1,,3\n4,5,6\n7,8,\n")
    for kw in ({}, {"filling_values": -1}, {"usecols": (0, 2)}, {"skip_footer": 1}, {"dtype": np.int64,
                                                                                       "filling_values": 0}):
        got = cg.genfromtxt(f, delimiter=",", skip_header=2, **kw)
        same(got, np.genfromtxt(f, delimiter=",", skip_header=2, **kw))
    assert np.isnan(np.asarray(cg.genfromtxt(f, delimiter=",", skip_header=2))[0, 1])
    with pytest.raises(TypeError, match="masked"):
        cg.genfromtxt(f, delimiter=",", usemask=True)
    with pytest.raises(TypeError, match="structured"):
        cg.genfromtxt(f, delimiter=",", names=True)


@pytest.mark.parametrize("name", NP_DTYPES)
def test_tofile_fromfile_every_dtype(tmp_path, name):
    a = sample(name, (3, 2))
    f = tmp_path / "raw.bin"
    cg.asarray(a).tofile(f)
    assert f.read_bytes() == a.tobytes()
    same(cg.fromfile(f, dtype=name), a.ravel())
    same(cg.fromfile(f, dtype=getattr(cg, name), count=2), a.ravel()[:2])
    assert cg.asarray(a).tobytes() == a.tobytes()
    assert cg.asarray(a).tobytes("F") == a.tobytes("F")


def test_tofile_text_and_offset(tmp_path):
    a = np.arange(5, dtype=np.float64) / 4
    f = tmp_path / "t.txt"
    cg.asarray(a).tofile(f, sep=",", format="%.3f")
    assert f.read_text() == "0.000,0.250,0.500,0.750,1.000"
    same(cg.fromfile(f, sep=","), np.fromfile(f, sep=","))
    a.tofile(f)
    same(cg.fromfile(f, offset=16), a[2:])


def test_bfloat16_raw_bits(tmp_path):
    x = cg.asarray([1.0, -2.5, 3.125, 0.0]).astype(cg.bfloat16)
    bits = np.array([1.0, -2.5, 3.125, 0.0], np.float32).view(np.uint32) >> 16
    assert x.tobytes() == bits.astype(np.uint16).tobytes()
    x.tofile(tmp_path / "b.bin")
    y = cg.fromfile(tmp_path / "b.bin", dtype=cg.bfloat16)
    assert y.dtype == cg.bfloat16
    np.testing.assert_array_equal(np.asarray(y.astype(cg.float32)), [1.0, -2.5, 3.125, 0.0])


def test_fromstring():
    same(cg.fromstring("1 2 3", sep=" "), np.fromstring("1 2 3", sep=" "))
    same(cg.fromstring("1,2,3,4", dtype=np.int32, sep=",", count=3), np.array([1, 2, 3], np.int32))
    same(cg.fromstring("1,2", dtype=cg.int8, sep=","), np.array([1, 2], np.int8))
    with pytest.raises(ValueError, match="frombuffer"):
        cg.fromstring(b"\x01\x02", dtype=np.uint8)


def test_fromregex(tmp_path):
    f = tmp_path / "r.txt"
    f.write_text("a=1 b=2.5\na=3 b=4.5\nnoise\n")
    same(cg.fromregex(f, r"a=(\d+) b=([\d.]+)", float), np.array([[1.0, 2.5], [3.0, 4.5]]))
    same(cg.fromregex(f, r"a=(\d+)", np.int64), np.array([1, 3]))
    same(cg.fromregex(f, r"b=([\d.]+)", "f4"), np.array([2.5, 4.5], np.float32))
    same(cg.fromregex(io.StringIO("x1 x22"), r"x(\d+)", np.int64), np.array([1, 22]))
    with pytest.raises(TypeError, match="structured"):
        cg.fromregex(f, r"a=(\d+) b=([\d.]+)", [("a", np.int64), ("b", float)])


# ---- pickling ----
@pytest.mark.parametrize("name", NP_DTYPES + ["bfloat16"])
def test_pickle_and_deepcopy(name):
    x = cg.asarray(sample("float32" if name == "bfloat16" else name)).astype(getattr(cg, name))
    want = np.asarray(x.astype(cg.float32) if name == "bfloat16" else x)
    for y in (pickle.loads(pickle.dumps(x)), pickle.loads(x.dumps()), copy.deepcopy(x), copy.copy(x)):
        assert y is not x and y.dtype == x.dtype and tuple(y.shape) == tuple(x.shape)
        assert str(y.device) == "cpu"
        got = np.asarray(y.astype(cg.float32) if name == "bfloat16" else y)
        np.testing.assert_array_equal(got, want)


def test_pickle_lazy_empty_0d():
    x = cg.arange(6, dtype=cg.float64).reshape(2, 3) * 2  # lazy: evaluated by pickling
    same(pickle.loads(pickle.dumps(x)), np.arange(6.0).reshape(2, 3) * 2)
    same(pickle.loads(pickle.dumps(cg.zeros((0, 2)))), np.zeros((0, 2), np.float32))
    same(pickle.loads(pickle.dumps(cg.asarray(7, dtype=cg.int8))), np.int8(7))
    d = copy.deepcopy({"w": x})
    same(d["w"], np.asarray(x))


def test_copies_of_a_leaf_are_leaves_of_their_own():
    # a deep-copied parameter was x's clone in the graph until 2026-12-07: backward() through the
    # copy added to the original's gradient
    w = cg.asarray(np.array([1.0, 2.0, 3.0])).requires_grad_()
    for c in (copy.deepcopy(w), copy.copy(w), copy.deepcopy({"p": [w]})["p"][0]):
        assert c.is_leaf and c.requires_grad and c.grad is None
        cg.sum(c * c).backward()
        np.testing.assert_array_equal(np.asarray(c.grad), [2.0, 4.0, 6.0])
        assert w.grad is None
    u = copy.deepcopy(w * 2)  # a value computed from w: a plain array
    assert u.is_leaf and not u.requires_grad
    same(u, np.array([2.0, 4.0, 6.0]))


# ---- printing ----
def test_print_options_reach_cgrad_arrays():
    x = cg.asarray(np.array([1.0, 2.123456789, 3.5e-9]))
    default = str(x)
    with cg.printoptions(precision=3, suppress=True) as opts:
        assert opts["precision"] == 3 and cg.get_printoptions()["precision"] == 3
        assert str(x) == np.array_str(np.asarray(x)) == "[1.    2.123 0.   ]"
        assert repr(x) == "Array([1.   , 2.123, 0.   ], dtype=float64)"
    assert str(x) == default and cg.get_printoptions()["precision"] == 8
    old = cg.get_printoptions()
    try:
        cg.set_printoptions(precision=2)
        assert repr(x) == "Array([1.00e+00, 2.12e+00, 3.50e-09], dtype=float64)"
        assert np.get_printoptions()["precision"] == 2  # one store: NumPy's
    finally:
        cg.set_printoptions(**old)
    assert cg.get_printoptions() == old


def test_array2string_repr_str():
    a = rng.standard_normal((3, 4)).astype(np.float32)  # NumPy shows float32's dtype, as cgrad does every dtype
    x = cg.asarray(a)
    for kw in ({}, {"precision": 2}, {"max_line_width": 20}, {"max_line_width": 60}, {"suppress_small": True}):
        assert cg.array_str(x, **kw) == np.array_str(a, **kw)
        assert cg.array_repr(x, **kw) == "Array(" + np.array_repr(a, **kw)[len("array("):]
    for kw in ({}, {"separator": ", ", "prefix": "f("}, {"threshold": 3, "edgeitems": 1}, {"sign": "+"},
               {"formatter": {"float": lambda v: f"{v:.1f}"}}, {"floatmode": "fixed", "precision": 3}):
        assert cg.array2string(x, **kw) == np.array2string(a, **kw)
    assert cg.array2string([1, 2]) == "[1 2]"
    assert cg.array_repr(np.arange(2)) == "array([0, 1])"  # NumPy's own for NumPy arrays
    assert repr(cg.zeros((0, 3))) == "Array([], shape=(0, 3), dtype=float32)"
    assert repr(cg.zeros((0,))) == "Array([], dtype=float32)"
    assert repr(cg.zeros(2000)) == "Array([0., 0., 0., ..., 0., 0., 0.], shape=(2000,), dtype=float32)"
    assert repr(cg.asarray([1, 2])) == "Array([1, 2], dtype=int64)"
    assert str(cg.asarray(2.5)) == "2.5"
    b = cg.asarray([1.0, 2.5]).astype(cg.bfloat16)  # NumPy has no bfloat16: shown via float32
    assert repr(b) == "Array([1. , 2.5], dtype=bfloat16)" and str(b) == "[1.  2.5]"


def test_format_float():
    for v in (0.1, 1e-20, 123456.789, -2.0):
        for kw in ({}, {"precision": 3}, {"unique": False, "precision": 4}, {"sign": True}):
            assert cg.format_float_positional(v, **kw) == np.format_float_positional(v, **kw)
            assert cg.format_float_scientific(v, **kw) == np.format_float_scientific(v, **kw)
    x = cg.asarray(0.1, dtype=cg.float32)  # float32's shortest digits
    assert cg.format_float_positional(x) == np.format_float_positional(np.float32(0.1)) == "0.1"
    assert cg.format_float_scientific(cg.asarray(0.1, dtype=cg.float64), exp_digits=3) == "1.e-001"
    with pytest.raises(TypeError):
        cg.format_float_positional(cg.asarray([0.1]))


# ---- error state ----
def test_errstate_records_and_restores():
    start = cg.geterr()
    assert start == {"divide": "ignore", "over": "ignore", "under": "ignore", "invalid": "ignore"}
    with cg.errstate(divide="warn", under="print") as e:
        assert isinstance(e, cg.errstate)
        assert cg.geterr() == {"divide": "warn", "over": "ignore", "under": "print", "invalid": "ignore"}
        with cg.errstate(all="log"):
            assert set(cg.geterr().values()) == {"log"}
        assert cg.geterr()["divide"] == "warn"
    assert cg.geterr() == start
    old = cg.seterr(all="warn")
    try:
        assert old == start and set(cg.geterr().values()) == {"warn"}
        assert cg.seterr(over="ignore") == {c: "warn" for c in start}
    finally:
        cg.seterr(**old)
    assert cg.geterr() == start
    # cgrad emits nothing for 'warn': 1/0 is inf and no warning is raised
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with cg.errstate(all="warn"):
            assert float((cg.asarray(1.0) / cg.asarray(0.0)).item()) == float("inf")


def test_errstate_raise_and_call_refused():
    start = cg.geterr()
    for kw in ({"all": "raise"}, {"divide": "raise"}, {"invalid": "call"}):
        with pytest.raises(NotImplementedError, match="cannot trap"):
            cg.seterr(**kw)
        with pytest.raises(NotImplementedError, match="cannot trap"):
            with cg.errstate(**kw):
                pass
        assert cg.geterr() == start  # nothing half-set
    with pytest.raises(ValueError, match="invalid error mode"):
        cg.seterr(over="loud")


def test_errstate_decorator_and_errcall():
    @cg.errstate(over="warn")
    def f():
        return cg.geterr()["over"]

    assert f() == "warn" and f() == "warn" and cg.geterr()["over"] == "ignore"
    assert cg.geterrcall() is None
    cb = print
    assert cg.seterrcall(cb) is None
    try:
        assert cg.geterrcall() is cb
        with cg.errstate(call=None):
            assert cg.geterrcall() is None
        assert cg.geterrcall() is cb
    finally:
        assert cg.seterrcall(None) is cb
    with pytest.raises(ValueError):
        cg.seterrcall(3)


# ---- misc ----
def test_array_equiv():
    a = np.array([[1, 2], [1, 2]])
    for x, y in ((a, [1, 2]), (a, [[1, 2]]), (a, [1, 3]), (a, [1, 2, 3]), ([1.0, np.nan], [1.0, np.nan]),
                 (np.zeros((0, 2)), [1, 2]), (3, [3, 3])):
        assert cg.array_equiv(cg.asarray(np.asarray(x)), np.asarray(y)) is bool(np.array_equiv(x, y))


def test_require_asfortranarray_isfortran():
    a = np.arange(6.0).reshape(2, 3)
    x = cg.asarray(a)
    same(cg.require(x), a)
    same(cg.require(x, dtype=np.float32, requirements=["C", "A", "W"]), a.astype(np.float32))
    same(cg.require(a, cg.int32, "E"), a.astype(np.int32))
    y = cg.require(x, requirements="O")
    assert y is not x
    same(y, a)
    with pytest.raises(ValueError, match="both C and Fortran"):
        cg.require(x, requirements="CF")  # NumPy's letters string is iterated: 'C' and 'F'
    with pytest.raises(KeyError):
        cg.require(x, requirements=["X"])
    f = cg.asfortranarray(x, dtype=cg.float64)
    same(f, a)
    assert cg.isfortran(f) is False and cg.isfortran(x) is False  # cgrad lays out in C order
    assert np.asarray(f).flags.c_contiguous
    same(cg.require(x, requirements=["F"]), a)
    assert cg.isfortran(np.asfortranarray(a)) is True


def test_repr_helpers():
    for n in (0, 5, 255, -7):
        assert cg.binary_repr(n) == np.binary_repr(n)
        assert cg.binary_repr(n, width=10) == np.binary_repr(n, width=10)
        for base, pad in ((2, 0), (16, 3), (36, 1)):
            assert cg.base_repr(n, base, pad) == np.base_repr(n, base, pad)
    assert cg.binary_repr(cg.asarray(5)) == "101"
    with pytest.raises(ValueError):
        cg.base_repr(5, 37)
    for c in "dfFbB?":
        assert cg.typename(c) == np.typename(c)
    assert cg.mintypecode(["d", "f"]) == "d"
    assert cg.mintypecode([cg.zeros(2, dtype=cg.complex64), "d"]) == np.mintypecode(["F", "d"]) == "D"
    assert cg.mintypecode("if") == np.mintypecode("if")


def test_einsum_path():
    ops = [rng.standard_normal(s) for s in ((2, 3), (3, 4), (4, 5), (5, 2))]
    path, report = cg.einsum_path("ij,jk,kl,lm->im", *ops)
    assert path[0] == "einsum_path" and len(path) == 4
    assert all(isinstance(p, tuple) and len(p) == 2 for p in path[1:])
    # NumPy's report for the same path, character for character
    assert report == np.einsum_path("ij,jk,kl,lm->im", *ops, optimize=path)[1]
    assert "Complete contraction:  ij,jk,kl,lm->im" in report
    # the path is the greedy order cgrad's einsum takes, and NumPy follows it to the same values
    got = cg.einsum("ij,jk,kl,lm->im", *[cg.asarray(o) for o in ops], optimize=True)
    np.testing.assert_allclose(np.asarray(got), np.einsum("ij,jk,kl,lm->im", *ops, optimize=path), rtol=1e-12)
    # cgrad arrays give the same; implicit output and sublists as NumPy reads them
    assert cg.einsum_path("ij,jk,kl,lm", *[cg.asarray(o) for o in ops])[0] == path
    assert cg.einsum_path(ops[0], [0, 1], ops[1], [1, 2], ops[2], [2, 3], ops[3], [3, 4], [0, 4])[0] == path
    # two operands, optimize=False, or `...`: one call, NumPy's single step
    for args, kw in ((("ij,jk->ik", ops[0], ops[1]), {}), (("ij,jk,kl->il", *ops[:3]), {"optimize": False}),
                     (("...j,jk,kl->...l", *ops[:3]), {})):
        p, r = cg.einsum_path(*args, **kw)
        assert p == ["einsum_path", tuple(range(len(args) - 1))]
        if "." not in args[0]:
            assert r == np.einsum_path(*args, optimize=p)[1]
    with pytest.raises(ValueError):
        cg.einsum_path("ij,jk->ik", ops[0], ops[2])
    with pytest.raises(ValueError):
        cg.einsum_path("ijk,jk->ik", ops[0], ops[1])


def test_show_config_and_runtime(capsys):
    cg.show_config()
    out = capsys.readouterr().out
    assert "cgrad" in out and cg.__version__ in out and "kernel cache" in out and "CUDA" in out
    assert ("not available" in out) is (not cg.cuda_available())
    cg.show_runtime()
    assert "kernels_launched" in capsys.readouterr().out


def test_names_exported_with_docstrings():
    import cgrad._numpy_io as m

    for name in m.__all__:
        assert getattr(cg, name) is getattr(m, name), name
        assert getattr(m, name).__doc__, name
    for meth in ("tofile", "tobytes", "dump", "dumps"):
        assert getattr(cg.Array, meth).__doc__, meth
