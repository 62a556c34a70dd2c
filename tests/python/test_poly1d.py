"""cgrad.poly1d (NumPy's legacy polynomial class, python/cgrad/_poly1d.py) against numpy.poly1d:
construction, attributes and aliases, str and repr (NumPy's), evaluation of numbers, arrays and
polynomials, arithmetic, comparison, coefficients by power, calculus, roots and errors, with the
coefficients a cgrad Array (lazy evaluation, gradients)."""
import numpy as np
import pytest

import cgrad as cg
from _compare import check

P, N = cg.poly1d, np.poly1d
COEFFS = [[1, 2, 3], [0, 0, 1.5, 2], [0], [], [1 + 2j, 3], [0.0, 0.0], [-0.0, 2.5], [3.0], [1, -2.5, 0, 7, 0]]


def same(p, q):
    """cgrad's poly1d p equals NumPy's q: coefficients (values and dtype) and variable."""
    assert isinstance(p, P)
    check(p.coeffs, q.coeffs)
    assert p.variable == q.variable


@pytest.mark.parametrize("c", COEFFS, ids=str)
def test_construction_str_and_repr(c):
    p, q = P(c), N(c)
    same(p, q)
    assert str(p) == str(q)
    assert repr(p) == repr(q)
    assert len(p) == len(q) == p.order == p.o == q.order
    same(P(cg.asarray(np.asarray(c, dtype=q.coeffs.dtype))), q)  # from a cgrad Array


def test_float32_and_bfloat16_printing():
    c = np.float32([1, 2.5])
    assert repr(P(c)) == repr(N(c)) == "poly1d([1. , 2.5], dtype=float32)" and str(P(c)) == str(N(c))
    b = P(cg.asarray([1, 2.5], dtype=cg.bfloat16))  # NumPy has no bfloat16: cgrad's repr names it
    assert repr(b) == "poly1d([1. , 2.5], dtype=bfloat16)" and str(b) == str(N(c))


def test_roots_variable_and_copies():
    same(P([1, 2], r=True), N([1, 2], r=True))
    same(P([1, 2, 3], variable="z"), N([1, 2, 3], variable="z"))
    assert str(P([1, 2, 3], variable="z")) == str(N([1, 2, 3], variable="z"))
    p = P([1.0, 2.0])
    q = P(p, variable="t")  # shares the coefficients, as NumPy's does
    assert q.coeffs is p.coeffs and q.variable == "t" and P(p).variable == "x"
    p[1] = 5.0
    assert np.asarray(q.coeffs).tolist() == [5.0, 2.0]


def test_attributes_and_aliases():
    p = P([1.0, -3.0, 2.0])
    assert p.c is p.coef is p.coefficients is p.coeffs and isinstance(p.coeffs, cg.Array)
    np.testing.assert_allclose(np.sort_complex(np.asarray(p.roots)), [1, 2], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(p.r), np.asarray(p.roots))
    p.coeffs = p.coeffs  # NumPy's in-place idiom is allowed
    with pytest.raises(AttributeError):
        p.coeffs = cg.asarray([1.0])
    with pytest.raises(AttributeError):
        p.variable = "y"
    with pytest.raises(TypeError):
        hash(p)
    check(np.asarray(p), np.array([1.0, -3.0, 2.0]))
    assert np.asarray(p, dtype=np.float32).dtype == np.float32
    assert np.polyval(p, 3) == 2.0  # NumPy reads it through __array__
    assert [float(c) for c in p] == [1.0, -3.0, 2.0]


def test_call_numbers_arrays_and_polynomials():
    p, q = P([1.0, 2.0, 3.0]), N([1.0, 2.0, 3.0])
    check(p(2.0), np.asarray(q(2.0)), dtype=False)  # 0-d Array (NumPy: a scalar)
    check(p(cg.asarray([1.0, 2.0, -1.5], dtype=cg.float64)), q(np.array([1.0, 2.0, -1.5])))
    check(p([1, 2]), q([1, 2]))
    check(P([1, 2, 3])(cg.asarray([1, 2])), N([1, 2, 3])(np.array([1, 2])))
    same(p(P([1.0, 1.0])), q(N([1.0, 1.0])))
    x = cg.asarray([0.5, 1.5], dtype=cg.float64)
    cg.eval(x)
    cg.reset_stats()
    y = p(x)
    assert cg.stats()["kernels_launched"] == 0  # lazy
    x.requires_grad_()
    (g,) = cg.grad(cg.sum(p(x)), [x])
    check(g, np.polyder(q)(np.array([0.5, 1.5])))
    check(y, q(np.array([0.5, 1.5])))


OPS = {
    "add": lambda a, b: a + b, "radd": lambda a, b: b.coeffs.tolist() + a, "sub": lambda a, b: a - b,
    "rsub": lambda a, b: 3 - a, "mul": lambda a, b: a * b, "mul_scalar": lambda a, b: a * 2.5,
    "rmul_scalar": lambda a, b: 2 * a, "mul_list": lambda a, b: a * [1, 1], "pow3": lambda a, b: a ** 3,
    "pow0": lambda a, b: a ** 0, "neg": lambda a, b: -a, "pos": lambda a, b: +a, "div_scalar": lambda a, b: a / 4,
    "add_int": lambda a, b: a + 1, "deriv": lambda a, b: a.deriv(), "deriv2": lambda a, b: a.deriv(2),
    "integ": lambda a, b: a.integ(), "integ_k": lambda a, b: a.integ(2, k=[1, 2]),
    "integ_k1": lambda a, b: a.integ(k=3),
}


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex128])
def test_arithmetic_and_calculus_match_numpy(op, dtype):
    a, b = np.array([1, 2, 3], dtype), np.array([1, -1], dtype)
    got, want = OPS[op](P(a), P(b)), OPS[op](N(a), N(b))
    assert isinstance(got, P)
    if op in ("mul_scalar", "div_scalar") and dtype == np.int64:  # cgrad's rules: float32 (NumPy: float64)
        assert got.coeffs.dtype == cg.float32
        np.testing.assert_allclose(np.asarray(got), want.coeffs)
        return
    same(got, want)


def test_division_gives_quotient_and_remainder():
    for u, v in (([1.0, 3.0, 5.0], [1.0, 1.0]), ([2.0, 0.0, -1.0, 4.0], [1.0, 0.5]), ([1.0, 2.0], [1.0, 2.0, 3.0])):
        got, want = P(u) / P(v), N(u) / N(v)
        assert isinstance(got, tuple) and len(got) == 2
        for g, w in zip(got, want):
            same(g, w)
    got, want = P([1.0, 3.0]) / [1.0, 1.0], N([1.0, 3.0]) / [1.0, 1.0]
    same(got[0], want[0])
    same(2 / P([1.0, 4.0]), 2 / N([1.0, 4.0]))  # NumPy's: the scalar over each coefficient
    got, want = [1.0, 3.0, 2.0] / P([1.0, 1.0]), [1.0, 3.0, 2.0] / N([1.0, 1.0])
    same(got[0], want[0])


def test_equality():
    p = P([1, 2, 3])
    assert p == P([1.0, 2.0, 3.0]) and p == P([0, 1, 2, 3]) and not (p != P([1, 2, 3]))
    assert p != P([1, 2, 4]) and p != P([2, 3])
    assert (p == 3) is False and (p != 3) is True  # not a poly1d: NotImplemented, then identity
    assert (P([1, 2]) == P([1, 2])) is True


def test_coefficients_by_power():
    p, q = P([1.0, 2.0, 3.0]), N([1.0, 2.0, 3.0])
    for k in range(-1, 5):
        check(p[k], np.asarray(q[k]))
    p[1], q[1] = 7.5, 7.5
    same(p, q)
    p[4], q[4] = 2, 2  # past the degree: zeros first
    same(p, q)
    p[4], q[4] = 0, 0  # a leading zero stays until the next construction, as in NumPy
    same(p, q)
    assert str(p) == str(q) and p.order == q.order == 4
    r, s = P([1, 2, 3]), N([1, 2, 3])
    r[0], s[0] = 2.7, 2.7  # cast to the coefficients' dtype, as NumPy's assignment
    same(r, s)


def test_errors_match_numpy_and_leave_the_polynomial_intact():
    p, q = P([1, 2, 3]), N([1, 2, 3])
    for fn in (lambda m: m.poly1d([[1, 2], [3, 4]]), lambda m: (p if m is cg else q) ** -1,
               lambda m: (p if m is cg else q) ** 1.5, lambda m: (p if m is cg else q) ** cg.asarray(2),
               lambda m: (p if m is cg else q).__setitem__(-1, 3), lambda m: (p if m is cg else q).deriv(-1),
               lambda m: (p if m is cg else q).integ(-1), lambda m: (p if m is cg else q).integ(3, k=[1, 2])):
        with pytest.raises(ValueError) as want:
            fn(np)
        with pytest.raises(type(want.value)):
            fn(cg)
    same(p, q)
    with pytest.raises(TypeError):  # cgrad has no dtype for strings (NumPy: int('a') raises ValueError)
        p[5] = "a"
    same(p, N([1, 2, 3]))  # NumPy's p has its zeros prepended by then
    with pytest.raises(TypeError):
        P(["a"])
