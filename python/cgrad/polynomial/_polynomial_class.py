"""NumPy's numpy.polynomial.Polynomial over cgrad.polynomial.polynomial's functions: a power series
(coefficients lowest power first, a cgrad Array) whose argument is mapped from `domain` onto
`window` first (`p(x)` is the series at off + scl x; `fit` takes the data's range as the domain),
with NumPy's arithmetic between polynomials of the same domain, window and symbol. The domain and
window are read on the host for the map (two numbers each); `str`, `repr` and `format` are
NumPy's, of the values."""
import numbers as _numbers

from .. import _api
from .. import _dtypes as _dt
from .._poly1d import _numpy_repr
from . import polynomial as _pp

__all__ = ["Polynomial"]


def _mapparms(old, new):
    """(off, scl) of the linear map taking the interval old onto new (NumPy's mapparms)."""
    (o0, o1), (n0, n1) = old.tolist(), new.tolist()
    return (o1 * n0 - o0 * n1) / (o1 - o0), (n1 - n0) / (o1 - o0)


def _interval(v, what):
    (v,) = _pp._series(v, trim=False)
    if v.shape[0] != 2:
        raise ValueError(f"{what} has wrong number of elements.")
    return v


class Polynomial:
    """The power series coef[0] + coef[1] x + ..., its argument mapped from domain onto window
    (both [-1, 1] by default: no change); `symbol` names the unknown in str(p)."""

    __hash__ = None
    __array_ufunc__ = None  # NumPy's ufuncs defer to the class (np.add(a, p) is p.__radd__(a))
    maxpower = 100
    basis_name = None
    domain = _api.asarray([-1.0, 1.0], dtype=_dt.float64)
    window = _api.asarray([-1.0, 1.0], dtype=_dt.float64)

    def __init__(self, coef, domain=None, window=None, symbol="x"):
        (self.coef,) = _pp._series(coef, trim=False)
        if domain is not None:
            self.domain = _interval(domain, "Domain")
        if window is not None:
            self.window = _interval(window, "Window")
        if not isinstance(symbol, str):
            raise TypeError("Symbol must be a non-empty string")
        if not symbol.isidentifier():
            raise ValueError("Symbol string must be a valid Python identifier")
        self._symbol = symbol

    @property
    def symbol(self):
        return self._symbol

    def _new(self, coef):
        return self.__class__(coef, self.domain, self.window, self.symbol)

    def _numpy(self):
        """NumPy's Polynomial of the same values, for printing."""
        import numpy as np

        from .._array import _host

        return np.polynomial.Polynomial(*(_host(a) for a in (self.coef, self.domain, self.window)), self.symbol)

    def __repr__(self):
        return (f"{self.__class__.__name__}({_numpy_repr(self.coef)}, domain={_numpy_repr(self.domain)}, "
                f"window={_numpy_repr(self.window)}, symbol='{self.symbol}')")

    def __str__(self):
        return str(self._numpy())

    def __format__(self, spec):
        return format(self._numpy(), spec)

    def __len__(self):
        return self.coef.shape[0]

    def __iter__(self):
        return iter(self.coef)

    # ---- evaluation ----
    def mapparms(self):
        """(off, scl): the map off + scl x from the domain onto the window."""
        return _mapparms(self.domain, self.window)

    def __call__(self, arg):
        """The series at the mapped arg (numbers or arrays, lazily; a Polynomial: the composition)."""
        off, scl = self.mapparms()
        if isinstance(arg, Polynomial):
            arg = arg * scl + off
            y = arg * 0
            for c in reversed(list(self.coef)):  # Horner's rule with Polynomial arithmetic
                y = y * arg + c
            return y
        arg = _pp._float(_pp._read(arg))  # NumPy's off and scl are float64 scalars, as here
        f64 = dict(dtype=_dt.float64, device=arg.device)
        return _pp.polyval(_api.asarray(off, **f64) + _api.asarray(scl, **f64) * arg, self.coef)

    def linspace(self, n=100, domain=None):
        """(x, p(x)) at n points evenly spaced over the domain."""
        lo, hi = (self.domain if domain is None else _interval(domain, "Domain")).tolist()
        x = _api.linspace(lo, hi, n, dtype=_dt.float64)
        return x, self(x)

    # ---- properties of the coefficients ----
    def degree(self):
        return self.coef.shape[0] - 1

    def copy(self):
        return self._new(self.coef + 0)

    def trim(self, tol=0):
        """Without the trailing coefficients of magnitude at most tol."""
        return self._new(_pp.polytrim(self.coef, tol))

    def truncate(self, size):
        """The first `size` coefficients (size a positive int)."""
        if int(size) != size or size < 1:
            raise ValueError("size must be a positive integer")
        return self._new(self.coef[:int(size)])

    def cutdeg(self, deg):
        """Degree at most deg (the higher coefficients dropped)."""
        return self.truncate(deg + 1)

    def has_samecoef(self, other):
        return self.coef.shape == other.coef.shape and bool(_api.all(self.coef == other.coef))

    def has_samedomain(self, other):
        return self.domain.tolist() == other.domain.tolist()

    def has_samewindow(self, other):
        return self.window.tolist() == other.window.tolist()

    def has_sametype(self, other):
        return isinstance(other, self.__class__)

    # ---- calculus and roots ----
    def deriv(self, m=1):
        """The m-th derivative (in the mapped variable, so scaled by the map)."""
        return self._new(_pp.polyder(self.coef, m, self.mapparms()[1]))

    def integ(self, m=1, k=[], lbnd=None):  # noqa: B006 (NumPy's default, never changed)
        """The m-th antiderivative, with the values k at lbnd (the domain's mapped 0 by default)."""
        off, scl = self.mapparms()
        lbnd = 0 if lbnd is None else off + scl * lbnd
        return self._new(_pp.polyint(self.coef, m, k, lbnd, 1.0 / scl))

    def roots(self):
        """The roots, in the domain."""
        off, scl = _mapparms(self.window, self.domain)
        return off + scl * _pp.polyroots(self.coef)

    # ---- arithmetic ----
    def _coefficients(self, other):
        """other's coefficients where it is a compatible Polynomial, else other itself."""
        if isinstance(other, Polynomial):
            if not isinstance(other, self.__class__):
                raise TypeError("Polynomial types differ")
            if not self.has_samedomain(other):
                raise TypeError("Domains differ")
            if not self.has_samewindow(other):
                raise TypeError("Windows differ")
            if self.symbol != other.symbol:
                raise ValueError("Polynomial symbols differ")
            return other.coef
        return other

    def __add__(self, other):
        return self._new(_pp.polyadd(self.coef, self._coefficients(other)))

    def __radd__(self, other):
        return self._new(_pp.polyadd(other, self.coef))

    def __sub__(self, other):
        return self._new(_pp.polysub(self.coef, self._coefficients(other)))

    def __rsub__(self, other):
        return self._new(_pp.polysub(other, self.coef))

    def __mul__(self, other):
        return self._new(_pp.polymul(self.coef, self._coefficients(other)))

    def __rmul__(self, other):
        return self._new(_pp.polymul(other, self.coef))

    def __truediv__(self, other):
        """Division by a number only (NumPy's rule: a series' quotient by a series is //)."""
        if not isinstance(other, _numbers.Number) or isinstance(other, bool):
            raise TypeError(f"unsupported types for true division: '{type(self)}', '{type(other)}'")
        return self // other

    def __divmod__(self, other):
        quo, rem = _pp.polydiv(self.coef, self._coefficients(other))
        return self._new(quo), self._new(rem)

    def __rdivmod__(self, other):
        quo, rem = _pp.polydiv(other, self.coef)
        return self._new(quo), self._new(rem)

    def __floordiv__(self, other):
        return divmod(self, other)[0]

    def __rfloordiv__(self, other):
        return divmod(other, self)[0] if isinstance(other, Polynomial) else self.__rdivmod__(other)[0]

    def __mod__(self, other):
        return divmod(self, other)[1]

    def __rmod__(self, other):
        return self.__rdivmod__(other)[1]

    def __pow__(self, other):
        return self._new(_pp.polypow(self.coef, other, maxpower=self.maxpower))

    def __neg__(self):
        return self._new(-self.coef)

    def __pos__(self):
        return self

    def __eq__(self, other):
        """Same class, domain, window, symbol and coefficients (a Python bool: the values are read)."""
        return (isinstance(other, self.__class__) and self.has_samedomain(other) and self.has_samewindow(other)
                and self.has_samecoef(other) and self.symbol == other.symbol)

    def __ne__(self, other):
        return not self.__eq__(other)

    # ---- construction ----
    @classmethod
    def _mapping(cls, domain, window, values):
        """fit's and fromroots' domain (None: the values' range, read; []: the class's), window (None:
        the class's) and the map's offset and scale from one to the other."""
        if domain is None:
            domain = [float(_api.min(values)), float(_api.max(values))]
        elif isinstance(domain, list) and not domain:
            domain = cls.domain
        window = cls.window if window is None else window
        return (domain, window) + tuple(_mapparms(_interval(domain, "Domain"), _interval(window, "Window")))

    @classmethod
    def fit(cls, x, y, deg, domain=None, rcond=None, full=False, w=None, window=None, symbol="x"):
        """The least-squares fit of degree deg to (x, y), in the domain (x's range by default: read)
        mapped onto the window; full: (the Polynomial, [residuals, rank, singular values, rcond])."""
        x = _pp._float(_pp._read(x))
        domain, window, off, scl = cls._mapping(domain, window, x)
        res = _pp.polyfit(off + scl * x, y, deg, rcond=rcond, full=full, w=w)
        if full:
            return cls(res[0], domain, window, symbol), res[1]
        return cls(res, domain, window, symbol)

    @classmethod
    def fromroots(cls, roots, domain=[], window=None, symbol="x"):  # noqa: B006 (NumPy's default)
        """The monic series with these roots (in the domain: the default one for [], the roots' range
        for None)."""
        (r,) = _pp._series(roots, trim=False)
        domain, window, off, scl = cls._mapping(domain, window, r)
        return cls(_pp.polyfromroots(off + scl * r) / scl ** r.shape[0], domain, window, symbol)

    @classmethod
    def identity(cls, domain=None, window=None, symbol="x"):
        """The series whose value is its argument: x."""
        domain = cls.domain if domain is None else _interval(domain, "Domain")
        window = cls.window if window is None else _interval(window, "Window")
        off, scl = _mapparms(window, domain)
        return cls(_pp.polyline(off, scl), domain, window, symbol)

    @classmethod
    def basis(cls, deg, domain=None, window=None, symbol="x"):
        """x**deg."""
        if int(deg) != deg or deg < 0:
            raise ValueError("deg must be non-negative integer")
        return cls([0.0] * int(deg) + [1.0], domain, window, symbol)

    @classmethod
    def cast(cls, series, domain=None, window=None):
        """series as this class (a Polynomial only: cgrad has no other series)."""
        return series.convert(domain, cls, window)

    def convert(self, domain=None, kind=None, window=None):
        """The same function as a Polynomial of another domain and window (kind: Polynomial only)."""
        kind = self.__class__ if kind is None else kind
        if kind is not Polynomial:
            raise NotImplementedError("convert: cgrad has the power series only")
        return self(kind.identity(domain, window=window, symbol=self.symbol))
