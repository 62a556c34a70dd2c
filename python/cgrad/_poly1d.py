"""NumPy's legacy polynomial class, numpy.poly1d, over cgrad's polynomial functions (`poly polyadd
polysub polymul polydiv polyder polyint polyval roots`, coefficients highest power first): the
coefficients are a cgrad Array, so evaluation `p(x)` is lazy and differentiable. As NumPy's
constructor drops the leading zeros, building a poly1d reads the coefficients (a synchronisation
point), and so do the products (`polymul`), quotients (`polydiv`), `roots` and `==`. `str(p)` and
`repr(p)` are NumPy's, of the values, so output ported from NumPy reads the same."""
import operator

from . import _api
from . import _numpy as _np
from . import _numpy_math as _nm
from . import _dtypes as dt
from ._array import _host
from ._numpy_arrays import isscalar

__all__ = ["poly1d"]


def _numpy_repr(a):
    """NumPy's repr of a's values without `array(` and `)`, as NumPy's polynomial classes show
    their arrays: `[1., 2.]`, `[1., 2.], dtype=float32` (bfloat16, which NumPy lacks, in cgrad's
    repr, which names it)."""
    import numpy as np

    return (repr(a) if a.dtype == dt.bfloat16 else np.array_repr(_host(a)))[6:-1]


class poly1d:  # noqa: N801 (NumPy's name)
    """A one-variable polynomial: poly1d([1, 2, 3]) is x**2 + 2 x + 3; poly1d([1, 2], r=True) the
    monic one with roots 1 and 2, (x - 1)(x - 2). `variable` names the unknown in str(p)."""

    __hash__ = None  # mutable (p[k] = c), as NumPy's

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):  # shares the coefficient array, as NumPy's does
            self._coeffs, self._variable = c_or_r._coeffs, c_or_r._variable if variable is None else variable
            return
        c = _np.atleast_1d(_nm.poly(c_or_r) if r else _api._as_array_arg(c_or_r))
        if c.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        c = _nm.trim_zeros(c, trim="f")
        self._coeffs = c if c.shape[0] else _api.zeros((1,), dtype=c.dtype, device=c.device)
        self._variable = "x" if variable is None else variable

    # ---- attributes (NumPy's names and aliases) ----
    @property
    def coeffs(self):
        """The coefficients, highest power first (a cgrad Array)."""
        return self._coeffs

    @coeffs.setter
    def coeffs(self, value):
        # NumPy allows only `p.coeffs = p.coeffs` (what `p.coeffs *= 2` does after writing in place)
        if value is not self._coeffs:
            raise AttributeError("Cannot set attribute")

    @property
    def variable(self):
        """The name of the unknown in str(p)."""
        return self._variable

    @property
    def order(self):
        """The degree: the number of coefficients less one."""
        return self._coeffs.shape[0] - 1

    @property
    def roots(self):
        """The roots (complex: cgrad.roots)."""
        return _np.roots(self._coeffs)

    r = roots
    c = coef = coefficients = coeffs
    o = order

    # ---- conversions ----
    def __array__(self, dtype=None, copy=None):
        import numpy as np

        return np.asarray(_host(self._coeffs), dtype, copy=copy)

    def __repr__(self):
        return f"poly1d({_numpy_repr(self._coeffs)})"

    def __str__(self):
        import numpy as np

        return str(np.poly1d(_host(self._coeffs), variable=self._variable))

    def __len__(self):
        return self.order

    def __iter__(self):
        return iter(self._coeffs)

    # ---- evaluation ----
    def __call__(self, val):
        """p(x) by Horner's rule, lazily (x a number or an array); p(q) of a poly1d q is their
        composition, as NumPy's polyval gives it."""
        if isinstance(val, poly1d):
            y = poly1d(0)
            for c in self._coeffs:
                y = y * val + c
            return y
        return _np.polyval(self._coeffs, val)

    # ---- arithmetic ----
    def __neg__(self):
        return poly1d(-self._coeffs)

    def __pos__(self):
        return self

    def __add__(self, other):
        return poly1d(_nm.polyadd(self._coeffs, poly1d(other)._coeffs))

    __radd__ = __add__

    def __sub__(self, other):
        return poly1d(_nm.polysub(self._coeffs, poly1d(other)._coeffs))

    def __rsub__(self, other):
        return poly1d(_nm.polysub(poly1d(other)._coeffs, self._coeffs))

    def __mul__(self, other):
        if isscalar(other):
            return poly1d(self._coeffs * other)
        return poly1d(_nm.polymul(self._coeffs, poly1d(other)._coeffs))

    def __rmul__(self, other):
        if isscalar(other):
            return poly1d(other * self._coeffs)
        return poly1d(_nm.polymul(poly1d(other)._coeffs, self._coeffs))

    def __truediv__(self, other):
        """A scalar divides the coefficients; a polynomial gives (quotient, remainder) as poly1d."""
        if isscalar(other):
            return poly1d(self._coeffs / other)
        return tuple(poly1d(a) for a in _nm.polydiv(self._coeffs, poly1d(other)._coeffs))

    def __rtruediv__(self, other):
        if isscalar(other):
            return poly1d(other / self._coeffs)
        return tuple(poly1d(a) for a in _nm.polydiv(poly1d(other)._coeffs, self._coeffs))

    def __pow__(self, val):
        if not isscalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res = [1]
        for _ in range(int(val)):
            res = _nm.polymul(self._coeffs, res)
        return poly1d(res)

    def __eq__(self, other):
        """Equal coefficients (a Python bool: the values are read)."""
        if not isinstance(other, poly1d):
            return NotImplemented
        return self._coeffs.shape == other._coeffs.shape and bool(_api.all(self._coeffs == other._coeffs))

    def __ne__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    # ---- coefficients by power ----
    def __getitem__(self, val):
        """The coefficient of x**val (a 0-d Array; 0 past either end)."""
        val = operator.index(val)
        if val < 0 or val > self.order:
            return _api.zeros((), dtype=self._coeffs.dtype, device=self._coeffs.device)
        return self._coeffs[self.order - val]

    def __setitem__(self, key, val):
        """Sets the coefficient of x**key, in place (every handle on the coefficients sees it, as
        NumPy's view would); a power past the degree first extends them with zeros (a new array)."""
        key = operator.index(key)
        if key < 0:
            raise ValueError("Does not support negative powers.")
        c = self._coeffs
        if key > self.order:
            c = _api.concat([_api.zeros((key - self.order,), dtype=c.dtype, device=c.device), c])
        c[c.shape[0] - 1 - key] = val
        self._coeffs = c  # (bound after the write, so one that raises leaves p as it was)

    # ---- calculus ----
    def integ(self, m=1, k=0):
        """The m-th antiderivative, with the integration constants k (cgrad.polyint)."""
        return poly1d(_nm.polyint(self._coeffs, m=m, k=k))

    def deriv(self, m=1):
        """The m-th derivative (cgrad.polyder)."""
        return poly1d(_nm.polyder(self._coeffs, m=m))

