"""NumPy's scalar type names, index tricks, iteration helpers and vectorize (python/cgrad/_dtypes.py,
_numpy_index.py, _vectorize.py) against NumPy: values and shapes, dtypes (cgrad's default float
where a Python float decides it), errors, and the namespaces' hygiene (no leaked imports)."""
import types
import warnings

import numpy as np
import pytest

import cgrad as cg
from _compare import check


def arr(a):
    return cg.asarray(np.asarray(a))


def same_values(got, want, float_dtype=np.float32):
    """got equal to NumPy's want in shape and values; the dtype NumPy's, or cgrad's default float
    where NumPy's is float64 (a Python float decided it)."""
    want = np.asarray(want)
    expected = float_dtype if want.dtype == np.float64 else want.dtype
    got = np.asarray(got)
    assert got.dtype == expected, (got.dtype, expected)
    check(got, want.astype(expected), rtol=1e-6, atol=1e-6)


# ---- scalar type names ----
ALIASES = ["single", "double", "half", "csingle", "cdouble", "bool_", "byte", "ubyte", "short", "ushort", "intc",
           "uintc", "intp", "int_", "long", "longlong", "uintp", "uint", "ulong", "ulonglong"]
ABSTRACT = ["generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
            "complexfloating"]


@pytest.mark.parametrize("name", ALIASES)
def test_scalar_aliases_name_numpys_dtypes(name):
    assert getattr(cg, name) == np.dtype(getattr(np, name)).name
    assert getattr(cg, name) is cg._dtypes.as_dtype(np.dtype(getattr(np, name)).name)


@pytest.mark.parametrize("kind", ABSTRACT)
def test_issubdtype_of_abstract_types_matches_numpy(kind):
    for d in ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
              "float64", "complex64", "complex128"]:
        want = np.issubdtype(np.dtype(d), getattr(np, kind))
        assert cg.issubdtype(getattr(cg, d), getattr(cg, kind)) == want, (d, kind)
        assert cg.issubdtype(getattr(cg, d), getattr(np, kind)) == want, (d, kind)  # NumPy's classes too
        assert cg.issubdtype(cg.ones(1, dtype=getattr(cg, d)).dtype, getattr(cg, kind)) == want
    for other in ABSTRACT:
        want = np.issubdtype(getattr(np, kind), getattr(np, other))
        assert cg.issubdtype(getattr(cg, kind), getattr(cg, other)) == want, (kind, other)
    assert not cg.issubdtype(getattr(cg, kind), cg.float32)  # NumPy: an abstract type is under no dtype
    assert cg.issubdtype(cg.bfloat16, cg.floating)
    with pytest.raises(TypeError, match="cannot create"):
        getattr(cg, kind)()


def test_issubdtype_keeps_its_other_forms():
    assert cg.issubdtype(cg.float32, "real floating") and not cg.issubdtype(cg.int8, "real floating")
    assert cg.issubdtype(cg.float64, float) and not cg.issubdtype(cg.float32, float)  # float is float64
    assert cg.issubdtype(cg.float64, cg.float64) and not cg.issubdtype(cg.float32, cg.float64)


@pytest.mark.parametrize("name", ["float32", "float64", "int8", "uint16", "bool", "complex64", "bfloat16"])
def test_dtype_call_makes_an_array_as_jax_numpy(name):
    d = getattr(cg, name)
    x = d(3)
    assert isinstance(x, cg.Array) and x.dtype == d and x.shape == ()
    assert x.item() == 3 or name == "bool"
    y = d([1, 0, 2])
    assert y.dtype == d and y.shape == (3,)
    z = d(cg.asarray([1.7, 2.2]))  # an Array: a cast, as astype
    assert z.dtype == d
    if name != "bfloat16":
        check(z, np.asarray([1.7, 2.2]).astype(np.dtype(name)), rtol=1e-3, atol=0)
    assert d() == 0 if name != "bool" else d().item() is False


def test_ndarray_is_the_array_type():
    assert cg.ndarray is cg.Array and isinstance(cg.ones(2), cg.ndarray)


# ---- mgrid, ogrid ----
GRIDS = [
    lambda m: m.mgrid[0:5, 0:3],
    lambda m: m.mgrid[1:10:3, -2:2],
    lambda m: m.mgrid[5:0:-2, 0:2],
    lambda m: m.mgrid[-1:1:5j, 0:1:3j],
    lambda m: m.mgrid[0:0, 0:3],
    lambda m: m.mgrid[0:2, 0:3, 1:2],
    lambda m: m.mgrid[0:5],
    lambda m: m.mgrid[0:1:1j],
    lambda m: m.mgrid[3:7:2],
    lambda m: m.mgrid[0:1:0.25],
    lambda m: m.mgrid[0.5:3],
    lambda m: m.ogrid[0:5, 0:3],
    lambda m: m.ogrid[-1:1:4j, 2:4],
    lambda m: m.ogrid[0:1:4j],
    lambda m: m.ogrid[2:9:3],
]


@pytest.mark.parametrize("case", range(len(GRIDS)))
def test_grids_match_numpy(case):
    got, want = GRIDS[case](cg), GRIDS[case](np)
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same_values(g, w)
    else:
        same_values(got, want)


def test_grid_errors():
    with pytest.raises(TypeError, match="slices"):
        cg.mgrid[1]
    with pytest.raises(ValueError, match="stop"):
        cg.ogrid[0:, 0:2]


def test_mgrid_is_meshgrid_ij():
    a, b = cg.mgrid[0:3, 0:4]
    x, y = cg.meshgrid(cg.arange(3), cg.arange(4), indexing="ij")
    check(a, np.asarray(x))
    check(b, np.asarray(y))


# ---- r_, c_ ----
A = np.arange(6).reshape(2, 3)
B = np.arange(6, 12).reshape(2, 3)


def items(m, *xs):
    """xs with NumPy arrays as the module's arrays (lists and scalars as they are)."""
    return tuple(arr(x) if m is cg and isinstance(x, np.ndarray) else x for x in xs)


CONCATS = [
    lambda m: m.r_[1:4, 0, 4],
    lambda m: m.r_[-1:1:6j, [0] * 3, 5, 6],
    lambda m: m.r_[items(m, A, B)],
    lambda m: m.r_[("-1",) + items(m, A, B)],
    lambda m: m.r_["0,2", [1, 2, 3], [4, 5, 6]],
    lambda m: m.r_["0,2,0", [1, 2, 3], [4, 5, 6]],
    lambda m: m.r_["1,2,0", [1, 2, 3], [4, 5, 6]],
    lambda m: m.r_["0,3,1", [[1, 2, 3]], [[4, 5, 6]]],
    lambda m: m.r_["0,3,-1", [[1, 2, 3]], [[4, 5, 6]]],
    lambda m: m.r_["1,3,0", [[1, 2, 3]], [[4, 5, 6]]],
    lambda m: m.r_["0,2", 0:3, [4, 5, 6]],
    lambda m: m.r_["0,2,0", 0:3, [4, 5, 6]],
    lambda m: m.r_[[1, 2], 2.5],
    lambda m: m.r_[1, 2, 3],
    lambda m: m.r_[True, [False]],
    lambda m: m.r_[items(m, np.array([1, 2], np.int8)) + (3,)],  # a scalar takes the array's dtype
    lambda m: m.r_[items(m, np.array([1, 2], np.float32), np.array([3], np.int8))],
    lambda m: m.c_[[1, 2, 3], [4, 5, 6]],
    lambda m: m.c_[[[1, 2, 3]], -1, -2, [[4, 5, 6]]],
    lambda m: m.c_[0:3, [4, 5, 6]],
    lambda m: m.c_[items(m, A, B)],
    lambda m: m.c_[0:1:3j, items(m, np.array([7, 8, 9]))[0]],
]


@pytest.mark.parametrize("case", range(len(CONCATS)))
def test_concatenators_match_numpy(case):
    same_values(CONCATS[case](cg), CONCATS[case](np))


def test_concatenator_errors():
    with pytest.raises(ValueError, match="first entry"):
        cg.r_[[1], "0"]
    with pytest.raises(ValueError, match="unknown special directive"):
        cg.r_["x", [1]]
    with pytest.raises(ValueError, match="matrix"):
        cg.r_["r", [1, 2]]
    with pytest.raises(ValueError):
        cg.r_[[[1, 2]], [3]]  # NumPy's ValueError: dims differ


def test_r_is_lazy_and_differentiable():
    x = cg.asarray([1.0, 2.0], dtype=cg.float64).requires_grad_()
    (g,) = cg.grad(cg.sum(cg.r_[x, 3.0, x] ** 2), [x])
    check(g, np.array([4.0, 8.0]))


def test_index_expressions():
    assert cg.s_[1:3, ::2] == np.s_[1:3, ::2]
    assert cg.s_[2] == np.s_[2] and cg.index_exp[2] == np.index_exp[2] == (2,)
    assert cg.index_exp[..., None] == np.index_exp[..., None]
    x = np.arange(12).reshape(3, 4)
    check(arr(x)[cg.s_[::2, 1:]], x[np.s_[::2, 1:]])


# ---- ndindex, ndenumerate, broadcast ----
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 0, 2), (1, 2, 1, 2)])
def test_ndindex_and_ndenumerate_match_numpy(shape):
    assert list(cg.ndindex(*shape)) == list(np.ndindex(*shape))
    assert list(cg.ndindex(shape)) == list(np.ndindex(shape))
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) * 1.5
    assert [(i, v) for i, v in cg.ndenumerate(arr(a))] == [(i, v.item()) for i, v in np.ndenumerate(a)]
    assert [(i, v) for i, v in cg.ndenumerate(a.tolist())] == [(i, v.item()) for i, v in np.ndenumerate(a)]
    with pytest.raises(ValueError, match="negative"):
        cg.ndindex(2, -1)


def test_broadcast_matches_numpy():
    xs = [np.arange(3), np.arange(2)[:, None] * 10, np.asarray(7)]
    b, w = cg.broadcast(*[arr(x) for x in xs]), np.broadcast(*xs)
    assert (b.shape, b.ndim, b.nd, b.size, b.numiter, b.index) == (w.shape, w.ndim, w.ndim, w.size, w.numiter, 0)
    rows = [tuple(int(v) for v in t) for t in w]
    assert next(b) == rows[0] and b.index == 1
    assert list(b) == rows[1:]
    b.reset()
    assert b.index == 0 and len(list(b)) == 6
    assert [list(it) for it in cg.broadcast(arr(xs[0]), arr(xs[1])).iters] == \
        [[int(v) for v in it] for it in np.broadcast(xs[0], xs[1]).iters]
    assert cg.broadcast().shape == () and cg.broadcast([1, 2]).shape == (2,)
    with pytest.raises(ValueError):
        cg.broadcast(cg.ones(2), cg.ones(3))


# ---- vectorize, frompyfunc ----
def piecewise_scalar(a, b):
    return a - b if a > b else a + b


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
def test_vectorize_matches_numpy(dtype):
    x = (np.arange(-5, 7) * 1.5).astype(dtype).reshape(3, 4)
    y = np.array([1, -2, 3, 0.5]).astype(dtype)
    check(cg.vectorize(piecewise_scalar)(arr(x), arr(y)), np.vectorize(piecewise_scalar)(x, y))
    check(cg.vectorize(piecewise_scalar)(arr(x), 2), np.vectorize(piecewise_scalar)(x, 2))
    check(cg.vectorize(piecewise_scalar, otypes=[cg.float64])(arr(x), 2),
          np.vectorize(piecewise_scalar, otypes=[np.float64])(x, 2))


def test_vectorize_forms():
    @cg.vectorize
    def f(a, b=1):
        return a * b

    check(f(arr(np.arange(3)), b=4), np.arange(3) * 4)

    @cg.vectorize(otypes=[float])
    def g(a):
        return a / 2

    check(g(arr(np.arange(3))), np.arange(3) / 2)
    assert g.__name__ == "g"

    def h(a, coeffs):  # coeffs excluded: passed whole
        return sum(c * a ** i for i, c in enumerate(coeffs))

    vh, nh = cg.vectorize(h, excluded={1}), np.vectorize(h, excluded={1})
    check(vh(arr(np.arange(4)), [1, 2, 3]), nh(np.arange(4), [1, 2, 3]))
    vk = cg.vectorize(h, excluded={"coeffs"})
    check(vk(arr(np.arange(4)), coeffs=[1, 2]), nh(np.arange(4), [1, 2]))

    def two(a):
        return a, a * 2.0

    got, want = cg.vectorize(two)(arr(np.arange(3.0))), np.vectorize(two)(np.arange(3.0))
    check(got, want)
    with pytest.raises(ValueError, match="size 0"):
        cg.vectorize(two)(cg.zeros(0))
    check(cg.vectorize(two, otypes=[cg.float64, cg.float64])(cg.zeros(0)), np.vectorize(
        two, otypes=[np.float64, np.float64])(np.zeros(0)))
    with pytest.raises(TypeError, match="cgrad arrays hold"):
        cg.vectorize(lambda a: str(a))(cg.ones(2))


def test_vectorize_with_signature_gets_arrays():
    a = np.arange(12.0).reshape(3, 4)
    b = np.arange(4.0)
    got = cg.vectorize(lambda u, v: cg.sum(u * v), signature="(n),(n)->()")(arr(a), arr(b))
    check(got, np.vectorize(lambda u, v: np.sum(u * v), signature="(n),(n)->()")(a, b))
    conv = cg.vectorize(lambda u: (cg.cumulative_sum(u), cg.max(u)), signature="(n)->(n),()")
    s, m = conv(arr(a))
    check(s, np.cumsum(a, axis=1))
    check(m, a.max(axis=1))
    outer = cg.vectorize(lambda u, v: u[:, None] * v[None, :], signature="(m),(n)->(m,n)")
    check(outer(arr(a), arr(b[:2])), np.vectorize(lambda u, v: np.outer(u, v), signature="(m),(n)->(m,n)")(a, b[:2]))
    with pytest.raises(ValueError, match="inconsistent"):
        cg.vectorize(lambda u, v: cg.sum(u * v), signature="(n),(n)->()")(arr(a), cg.ones(3))
    with pytest.raises(ValueError, match="signature"):
        cg.vectorize(lambda u: u, signature="(n)->")
    x = cg.asarray(a).requires_grad_()
    (g,) = cg.grad(cg.sum(cg.vectorize(lambda u: cg.sum(u ** 2), signature="(n)->()")(x)), [x])
    check(g, 2 * a)


def test_frompyfunc():
    f = cg.frompyfunc(lambda a, b: a * b, 2, 1)
    assert (f.nin, f.nout, f.nargs) == (2, 1, 3)
    check(f(arr(np.arange(3)), 3.5), np.arange(3) * 3.5)
    check(f(arr(np.arange(3)), 2), np.arange(3) * 2)
    dm = cg.frompyfunc(divmod, 2, 2)
    q, r = dm(arr(np.arange(7)), 3)
    check(q, np.arange(7) // 3)
    check(r, np.arange(7) % 3)
    with pytest.raises(TypeError, match="takes 2"):
        f(cg.ones(2))


# ---- namespaces ----
@pytest.mark.parametrize("module", [cg, cg.linalg, cg.fft, cg.lib, cg.lib.stride_tricks, cg.random, cg.optim, cg.emath,
                                    cg.testing, cg.polynomial, cg.polynomial.polynomial])
def test_namespaces_do_not_leak_imported_modules(module):
    # a module among the names is one of cgrad's public ones (cgrad.lib.scimath is cgrad.emath)
    leaked = [n for n in dir(module) if not n.startswith("_") and isinstance(getattr(module, n), types.ModuleType)
              and (not getattr(module, n).__name__.startswith("cgrad.") or "._" in getattr(module, n).__name__)]
    assert leaked == []


def test_no_warnings_from_the_new_names():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cg.mgrid[0:2, 0:2] + 1
        list(cg.ndenumerate(cg.ones(2)))


@pytest.mark.parametrize("name", ["float128", "longdouble", "datetime64", "str_", "object_", "matrix", "ma",
                                  "nditer", "memmap"])
def test_numpys_names_left_out_say_why(name):
    assert not hasattr(cg, name)
    with pytest.raises(AttributeError, match=f"no attribute '{name}': "):
        getattr(cg, name)


def test_constants():
    assert cg.euler_gamma == np.euler_gamma and cg.little_endian == np.little_endian
