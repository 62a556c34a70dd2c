"""NumPy's numpy.polynomial.polynomial: power series with their coefficients lowest power first
(`c[0] + c[1] x + c[2] x**2 ...`), the functions and the `Polynomial` class. Each function is
cgrad's legacy one (highest power first: `polyval polyder polyint polyadd polysub polymul polydiv
poly roots vander polyfit`) of the reversed coefficients, with NumPy's series rules around it:
integer coefficients as float64, coefficients checked 1-D and non-empty, trailing zeros dropped
from results (NumPy's `trimseq`: that reads the values, a synchronisation point). Coefficients of
more than one dimension (NumPy's `tensor` evaluation, `axis` of the calculus) are not supported."""
import numbers as _numbers
import operator as _operator

from .. import _api
from .. import _cgrad
from .. import _dtypes as _dt
from .. import _numpy as _np
from .. import _numpy_arrays as _na
from .. import _numpy_math as _nm
from .._cgrad import Array

__all__ = ["polyadd", "polysub", "polymulx", "polymul", "polydiv", "polypow", "polyval", "polyder", "polyint",
           "polyfromroots", "polyvander", "polyfit", "polytrim", "polyroots", "polyline", "Polynomial"]

_arr = _api._as_array_arg


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"cgrad.polynomial.polynomial.{name} is not available (NumPy's numpy.polynomial.polynomial."
                         f"{name} of np.asarray values serves meanwhile)")


def _read(c):
    """c as an array; a Python number as NumPy reads it (a float as float64, where asarray's
    default is float32: a scale of 2/3 would lose its digits)."""
    return _arr([c])[0] if isinstance(c, (int, float, complex)) and not isinstance(c, bool) else _arr(c)


def _flip(c):
    return _api.flip(c, axis=0)


def _float(c):
    """c with integers and bools as float64 (NumPy's series take them so)."""
    return c if c.dtype in _dt.FLOATING + _dt.COMPLEX else c.astype(_dt.float64)


def _trimseq(c):
    """c without its trailing zeros, one coefficient kept (NumPy's trimseq): reads c."""
    t = _nm.trim_zeros(c, trim="b")
    return t if t.shape[0] else c[:1]


def _series(*cs, trim=True):
    """The coefficient arrays as NumPy's as_series makes them: 1-D and non-empty (ValueError),
    trailing zeros dropped (trim), one common dtype, integers as float64 (NumPy's common_type)."""
    arrays = [_np.atleast_1d(_read(c)) for c in cs]
    for a in arrays:
        if a.size == 0:
            raise ValueError("Coefficient array is empty")
        if a.ndim != 1:
            raise ValueError("Coefficient array is not 1-d")
    d = _dt.result_type(*[_float(a).dtype for a in arrays])
    return [_trimseq(a.astype(d)) if trim else a.astype(d) for a in arrays]


def _one_dim(c, fn):
    c = _float(_np.atleast_1d(_read(c)))
    if c.ndim != 1:
        raise NotImplementedError(f"{fn}: coefficients of more than one dimension are not supported")
    return c


def polyline(off, scl):
    """The series off + scl x."""
    return _arr([off, scl]) if scl != 0 else _arr([off])


def polyadd(c1, c2):
    """The sum of two series."""
    a, b = _series(c1, c2)
    return _trimseq(_flip(_nm.polyadd(_flip(a), _flip(b))))


def polysub(c1, c2):
    """The difference of two series."""
    a, b = _series(c1, c2)
    return _trimseq(_flip(_nm.polysub(_flip(a), _flip(b))))


def polymulx(c):
    """The series times x (the zero series stays [0])."""
    (c,) = _series(c)
    if c.shape[0] == 1 and bool(c[0] == 0):
        return c
    return _api.concat([_api.zeros((1,), dtype=c.dtype, device=c.device), c])


def polymul(c1, c2):
    """The product of two series."""
    a, b = _series(c1, c2)
    return _trimseq(_flip(_nm.polymul(_flip(a), _flip(b))))


def polydiv(c1, c2):
    """(quotient, remainder) of c1 / c2; ZeroDivisionError for a zero c2. The remainder's highest
    coefficients within 1e-8 of 0 are dropped (cgrad.polydiv's rule; NumPy's drops exact zeros)."""
    a, b = _series(c1, c2)
    if bool(b[-1] == 0):  # (trimmed: only the zero series ends in 0)
        raise ZeroDivisionError("polydiv: division by a zero polynomial")
    q, r = _nm.polydiv(_flip(a), _flip(b))
    return _flip(q), _flip(r)


def polypow(c, pow, maxpower=None):  # noqa: A002 (NumPy's name)
    """The series to the non-negative integer power `pow` (at most maxpower where given)."""
    (c,) = _series(c)
    power = int(pow)
    if power != pow or power < 0:
        raise ValueError("Power must be a non-negative integer.")
    if maxpower is not None and power > maxpower:
        raise ValueError("Power is too large")
    r = _api.ones((1,), dtype=c.dtype, device=c.device)
    for _ in range(power):
        r = polymul(r, c)
    return r


def polyval(x, c, tensor=True):
    """c[0] + c[1] x + ... at x (numbers or an array, lazily), by Horner's rule. A Python number x
    takes c's dtype, as NumPy's weak scalars do (asarray would make a float float32)."""
    c = _one_dim(c, "polyval")
    if isinstance(x, (int, float, complex)) and not isinstance(x, bool):
        x = _api.asarray(x, dtype=_dt.result_type(c.dtype, x), device=c.device)
    return _np.polyval(_flip(c), x)


def polyder(c, m=1, scl=1, axis=0):
    """The m-th derivative, each one times scl."""
    c = _one_dim(c, "polyder")
    m = _operator.index(m)
    if m < 0:
        raise ValueError("The order of derivation must be non-negative")
    if axis not in (0, -1):
        raise NotImplementedError("polyder: axis other than 0 is not supported")
    if m == 0:
        return c
    if m >= c.shape[0]:
        return c[:1] * 0
    return _flip(_nm.polyder(_flip(c), m)) * (scl ** m)


def polyint(c, m=1, k=[], lbnd=0, scl=1, axis=0):  # noqa: B006 (NumPy's default, never changed)
    """The m-th antiderivative, each one times scl, with the value k[i] at lbnd (0 by default)."""
    c = _one_dim(c, "polyint")
    m = _operator.index(m)
    k = list(k) if isinstance(k, (list, tuple)) or (isinstance(k, Array) and k.ndim) else [k]
    if m < 0:
        raise ValueError("The order of integration must be non-negative")
    if len(k) > m:
        raise ValueError("Too many integration constants")
    if _na.ndim(lbnd) != 0:
        raise ValueError("lbnd must be a scalar.")
    if _na.ndim(scl) != 0:
        raise ValueError("scl must be a scalar.")
    if axis not in (0, -1):
        raise NotImplementedError("polyint: axis other than 0 is not supported")
    k = k + [0] * (m - len(k))
    for i in range(m):
        t = _flip(_nm.polyint(_flip(c) * scl, 1, k=0))  # constant 0; then the value k[i] at lbnd
        c = _api.concat([_api.reshape(k[i] - polyval(lbnd, t), (1,)).astype(t.dtype), t[1:]])
    return c


def polyfromroots(roots):
    """The monic series with the given roots (integers as float64; complex roots give complex)."""
    r = _np.atleast_1d(_arr(roots))
    if r.size == 0:
        return _api.ones((1,), dtype=_dt.float64)
    (r,) = _series(r, trim=False)
    return _flip(_nm.poly(r))


def polyvander(x, deg):
    """The matrix of powers x**0 ... x**deg, one row (or trailing axis) per element of x."""
    deg = _operator.index(deg)
    if deg < 0:
        raise ValueError("deg must be non-negative")
    x = _float(_np.atleast_1d(_read(x)))
    return _api.reshape(_np.vander(_np.ravel(x), deg + 1, increasing=True), x.shape + (deg + 1,))


def polyfit(x, y, deg, rcond=None, full=False, w=None):
    """The least-squares series of degree `deg` through (x, y) (y one column per fit), lowest power
    first; full: (coefficients, [residuals, rank, singular values, rcond]). deg is one int."""
    if not isinstance(deg, _numbers.Integral):
        raise TypeError("polyfit: deg must be an int (lists of degrees are not supported)")
    x, y = _float(_arr(x)), _float(_arr(y))
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    res = _np.polyfit(x, y, deg, rcond, full=full, w=w)
    if full:
        c, resids, rank, sv, rcond = res
        return _flip(c), [resids, rank, sv, rcond]
    return _flip(res)


def polytrim(c, tol=0):
    """c without its trailing coefficients of magnitude at most tol (ValueError: tol < 0)."""
    if tol < 0:
        raise ValueError("tol must be non-negative")
    (c,) = _series(c, trim=False)
    small = (_cgrad.abs(c) <= tol).tolist()
    n = len(small)
    while n > 0 and small[n - 1]:
        n -= 1
    return c[:n] if n else c[:1] * 0


def polyroots(c):
    """The roots, sorted (real part, then imaginary); real where every root is (NumPy's rule)."""
    (c,) = _series(c)
    if c.shape[0] < 2:
        return _api.zeros((0,), dtype=c.dtype)
    if c.shape[0] == 2:
        return _api.reshape(-c[0] / c[1], (1,))
    r = _nm.sort_complex(_np.roots(_flip(c)))
    return _cgrad.real(r) if not bool(_api.any(_cgrad.imag(r) != 0)) else r


from ._polynomial_class import Polynomial  # noqa: E402 (the class is built on the functions above)
