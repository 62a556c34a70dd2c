"""cgrad.polynomial (NumPy's numpy.polynomial power series: python/cgrad/polynomial/) against
NumPy: the functions of cgrad.polynomial.polynomial (coefficients lowest power first) over
dtypes and edge cases, the Polynomial class (domain and window maps, arithmetic, calculus, roots,
fit, printing) and the clear AttributeErrors for what is not there."""
import subprocess
import sys

import numpy as np
import pytest

import cgrad as cg
from _compare import check

from cgrad.polynomial import polynomial as CP
NP = np.polynomial.polynomial
P, N = cg.polynomial.Polynomial, np.polynomial.Polynomial

SERIES = [[1, 2, 3], [1.5, -2.0, 0.0, 4.0], [0.0, 0.0], [2], [1 + 1j, 2], [3.0, 0.0, 0.0], np.float32([1, 2, 0.5])]


def same_poly(p, q):
    assert isinstance(p, P)
    check(p.coef, q.coef)
    check(p.domain, q.domain)
    check(p.window, q.window)
    assert p.symbol == q.symbol


@pytest.mark.parametrize("a", SERIES, ids=str)
@pytest.mark.parametrize("b", SERIES[:4] + [[5]], ids=str)
def test_arithmetic_functions(a, b):
    for name in ("polyadd", "polysub", "polymul"):
        check(getattr(CP, name)(a, b), getattr(NP, name)(a, b), rtol=1e-6)
    if np.any(np.asarray(b) != 0):
        for g, w in zip(CP.polydiv(a, b), NP.polydiv(a, b)):
            check(g, w, rtol=1e-6, atol=1e-7)
    else:
        for m in (CP, NP):
            with pytest.raises(ZeroDivisionError):
                m.polydiv(a, b)


@pytest.mark.parametrize("c", SERIES, ids=str)
def test_value_calculus_and_powers(c):
    x = np.array([-1.5, 0.0, 0.5, 2.0])
    check(CP.polyval(x, c), NP.polyval(x, c), rtol=1e-6)
    check(CP.polyval(cg.asarray(x), c), NP.polyval(x, c), rtol=1e-6)
    for m in (0, 1, 2, 5):
        check(CP.polyder(c, m), NP.polyder(c, m), rtol=1e-6)
        check(CP.polyder(c, m, scl=2.0), NP.polyder(c, m, scl=2.0), rtol=1e-6)
    for m, k, lbnd, scl in ((1, [], 0, 1), (2, [1, 2], 0, 1), (1, 3, 1.5, 1), (2, [1], -1, 0.5), (0, [], 0, 1)):
        check(CP.polyint(c, m, k, lbnd, scl), NP.polyint(c, m, k, lbnd, scl), rtol=1e-6)
    for n in (0, 1, 3):
        check(CP.polypow(c, n), NP.polypow(c, n), rtol=1e-6)
    check(CP.polymulx(c), NP.polymulx(c))
    check(CP.polytrim(c), NP.polytrim(c))
    check(CP.polytrim(c, 1.6), NP.polytrim(c, 1.6))


def test_roots_fromroots_vander_fit_line():
    for c in ([2, -3, 1], [1, 0, 1], [-6, 11, -6, 1], [5, 2], [3], [0, 0, 1]):
        got, want = CP.polyroots(c), NP.polyroots(c)
        assert got.dtype in (cg.float64, cg.complex128) and (got.dtype == cg.float64) == (want.dtype == np.float64)
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-7)
    for r in ([1, 2], [1j, -1j], [0.5, -2.0, 3.0], []):
        check(CP.polyfromroots(r), NP.polyfromroots(r))
    for x in ([1.0, 2.0, 3.0], np.float32([0.5, -1]), [[1, 2], [3, 4]], 2.0):
        check(CP.polyvander(x, 3), NP.polyvander(x, 3))
    x = np.linspace(0, 1, 20)
    y = 1 + 2 * x - 3 * x ** 2 + np.sin(7 * x) * 0.01
    check(CP.polyfit(x, y, 2), NP.polyfit(x, y, 2), rtol=1e-9)
    check(CP.polyfit(x, np.stack([y, y * 2], 1), 2), NP.polyfit(x, np.stack([y, y * 2], 1), 2), rtol=1e-9)
    c, (resid, rank, sv, rcond) = CP.polyfit(x, y, 2, full=True)
    wc, (wresid, wrank, wsv, wrcond) = NP.polyfit(x, y, 2, full=True)
    check(c, wc, rtol=1e-9)
    check(resid, wresid, rtol=1e-6)
    assert int(rank) == wrank and rcond == wrcond
    check(CP.polyfit(x, y, 1, w=x + 1), NP.polyfit(x, y, 1, w=x + 1), rtol=1e-9)
    check(CP.polyline(1, 2), NP.polyline(1, 2))
    check(CP.polyline(1.5, 0), NP.polyline(1.5, 0))


def test_function_errors_match_numpy():
    cases = [("polyadd", ([], [1])), ("polymul", ([[1, 2]], [1])), ("polyder", ([1, 2], -1)),
             ("polyint", ([1, 2], -1)), ("polyint", ([1, 2], 1, [1, 2])), ("polyint", ([1, 2], 1, [], [0, 1])),
             ("polypow", ([1, 2], -1)), ("polypow", ([1, 2], 3, 2)), ("polyvander", ([1, 2], -1)),
             ("polytrim", ([1, 2], -1)), ("polyfit", ([1, 2], [1, 2], -1)), ("polyfit", ([[1, 2]], [1, 2], 1)),
             ("polyfit", ([1, 2], [1, 2, 3], 1)), ("polyfit", ([], [], 1))]
    for name, args in cases:
        with pytest.raises(Exception) as want:
            getattr(NP, name)(*args)
        with pytest.raises(type(want.value)):
            getattr(CP, name)(*args)
    with pytest.raises(NotImplementedError):
        CP.polyval(2, [[1, 2], [3, 4]])
    with pytest.raises(AttributeError, match="polyval2d is not available"):
        CP.polyval2d  # noqa: B018
    with pytest.raises(AttributeError, match="Chebyshev is not available"):
        cg.polynomial.Chebyshev  # noqa: B018


def test_polynomial_construction_printing_and_maps():
    for c, kw in (([1, 2, 3], {}), ([1.5, -2, 0, 1e-5], {}), ([1, 2], {"domain": [0, 2]}),
                  ([1, 2], {"window": [0, 1], "symbol": "t"}), (np.float32([1, 2]), {}), ([1j, 2], {})):
        p, q = P(c, **kw), N(c, **kw)
        same_poly(p, q)
        assert repr(p) == repr(q) and str(p) == str(q) and f"{p:ascii}" == f"{q:ascii}"
        x = np.array([-1.0, 0.25, 3.0])
        check(p(x), q(x))
        check(p(cg.asarray(x)), q(x))
        np.testing.assert_allclose(complex(p(2)), q(2))
        assert p.mapparms() == q.mapparms() and p.degree() == q.degree() and len(p) == len(q)
        x1, y1 = p.linspace(5)
        x2, y2 = q.linspace(5)
        check(x1, x2)
        check(y1, y2)
    check(P([1, 2, 3])(np.float32([1.0])), N([1, 2, 3])(np.float32([1.0])))  # NumPy's float64 map
    for bad, kw in (([1, 2], {"domain": [0, 1, 2]}), ([1, 2], {"window": [0]}), ([1], {"symbol": "1x"}),
                    ([1], {"symbol": 3}), ([], {})):
        with pytest.raises(Exception) as want:
            N(bad, **kw)
        with pytest.raises(type(want.value)):
            P(bad, **kw)


def test_polynomial_arithmetic_and_comparison():
    p, q = P([1, 2, 3], domain=[0, 2]), N([1, 2, 3], domain=[0, 2])
    r, s = P([1, 1], domain=[0, 2]), N([1, 1], domain=[0, 2])
    for f in (lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a // b, lambda a, b: a % b,
              lambda a, b: a + 2, lambda a, b: 2 + a, lambda a, b: 3 - a, lambda a, b: a * [1, 1], lambda a, b: 2 * a,
              lambda a, b: a / 4, lambda a, b: a ** 3, lambda a, b: -a, lambda a, b: +a, lambda a, b: a // 2,
              lambda a, b: [1, 2, 3, 4] // a, lambda a, b: a.copy(), lambda a, b: a.trim(2.5),
              lambda a, b: a.truncate(2), lambda a, b: a.cutdeg(0), lambda a, b: a(b), lambda a, b: a.convert(), lambda a, b: a.convert([0, 1])):
        same_poly(f(p, r), f(q, s))
    for g, w in zip(divmod(p, r), divmod(q, s)):
        same_poly(g, w)
    assert p == P([1, 2, 3], domain=[0, 2]) and p != P([1, 2, 3]) and p != P([1, 2]) and not (p == [1, 2, 3])
    assert p != P([1, 2, 3], domain=[0, 2], symbol="y")
    for f in (lambda a, b: a + type(a)([1], domain=[0, 1]), lambda a, b: a * type(a)([1], window=[0, 1]),
              lambda a, b: a + type(a)([1], domain=[0, 2], symbol="z"), lambda a, b: a / b, lambda a, b: a ** -1,
              lambda a, b: a ** 101, lambda a, b: a.truncate(0)):
        with pytest.raises(Exception) as want:
            f(q, s)
        with pytest.raises(type(want.value)):
            f(p, r)


def test_polynomial_calculus_roots_and_constructors():
    for kw in ({}, {"domain": [0, 2]}, {"domain": [1, 4], "window": [0, 1]}):
        p, q = P([1, -3, 2, 0.5], **kw), N([1, -3, 2, 0.5], **kw)
        for m in (1, 2):
            same_poly(p.deriv(m), q.deriv(m))
            same_poly(p.integ(m), q.integ(m))
            same_poly(p.integ(m, k=[1], lbnd=0.5), q.integ(m, k=[1], lbnd=0.5))
        np.testing.assert_allclose(np.sort_complex(np.asarray(p.roots())), np.sort_complex(q.roots()), atol=1e-9)
        same_poly(P.fromroots([1, 2, 3], **kw), N.fromroots([1, 2, 3], **kw))
        same_poly(P.identity(**kw), N.identity(**kw))
        same_poly(P.basis(3, **kw), N.basis(3, **kw))
    same_poly(P.fromroots([1, 4], domain=None), N.fromroots([1, 4], domain=None))
    x = np.linspace(-2, 5, 30)
    y = np.cos(x)
    for kw in ({}, {"domain": []}, {"domain": [-3, 6]}, {"window": [0, 1]}, {"w": np.ones(30) * 2}):
        g, w = P.fit(x, y, 4, **kw), N.fit(x, y, 4, **kw)
        check(g.coef, w.coef, rtol=1e-9)
        check(g.domain, w.domain)
    (g, (resid, rank, _, _)), (w, (wresid, wrank, _, _)) = P.fit(x, y, 3, full=True), N.fit(x, y, 3, full=True)
    check(g.coef, w.coef, rtol=1e-9)
    assert int(rank) == wrank
    same_poly(P.cast(P([1, 2], domain=[0, 1])), N.cast(N([1, 2], domain=[0, 1])))


def test_polynomial_lazy_and_differentiable():
    p = P([1.0, 2.0, 3.0])
    x = cg.asarray([0.5, 1.5], dtype=cg.float64)
    cg.eval(x)
    cg.reset_stats()
    y = p(x)
    assert cg.stats()["kernels_launched"] == 0
    check(y, N([1.0, 2.0, 3.0])([0.5, 1.5]))
    x.requires_grad_()
    (g,) = cg.grad(cg.sum(p(x)), [x])
    check(g, N([1.0, 2.0, 3.0]).deriv()(np.array([0.5, 1.5])))


def test_namespace():
    import cgrad.polynomial.polynomial as mod

    assert mod is CP and cg.polynomial.polynomial.Polynomial is P
    assert set(CP.__all__) <= set(NP.__all__)
    # `import cgrad` leaves the package to its first use, as NumPy does
    code = "import sys, cgrad; assert 'cgrad.polynomial' not in sys.modules; cgrad.polynomial.Polynomial([1])"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
