"""cgrad.random's distributions, each written once as a method of `_Sampler` over two primitive
draws of a stream (`_uniform` in [0, 1) and `_normal`: lazy tensors whose elements are functions of
(seed, index)); random.py's Generator and RandomState are samplers over a stream. Exact methods
throughout (inversion, exact transforms, rejection with redraws of the rejected elements only):
docs/python.md, "cgrad.random", says which sampler uses which."""
import builtins as _builtins
import math as _math
import numbers as _numbers
import operator as _operator
import warnings as _warnings
from collections.abc import MutableSequence as _MutableSequence

from . import _api
from . import _cgrad
from . import _dtypes as _dt
from ._cgrad import Array as _Array

_F64 = _dt.float64
_TERMS = 16  # cdf terms per pass of the discrete inversion (one fused kernel)
_HALF_LOG_2PI = 0.5 * _math.log(2 * _math.pi)
# log k! - ((k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2), k < 16: the Stirling tail below the series' range
_STIRLING_TAIL = [_math.lgamma(k + 1.0) - ((k + 0.5) * _math.log(k + 1.0) - (k + 1.0) + _HALF_LOG_2PI)
                  for k in range(16)]
# The series of log Gamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2) in 1/x (NumPy's random_loggam's
# first six terms: at x >= 16 the seventh is below 2e-18)
_LOGGAM_COEF = [8.333333333333333e-02, -2.777777777777778e-03, 7.936507936507937e-04, -5.952380952380952e-04,
                8.417508417508418e-04, -1.917526917526918e-03]


# ---- arguments ----
def _size(size):
    if size is None:
        return ()
    return (_operator.index(size),) if not isinstance(size, (tuple, list)) else tuple(_operator.index(s) for s in size)


def _float_dtype(dtype):
    d = _dt.float32 if dtype is None else _dt.as_dtype(dtype)
    if d not in _dt.FLOATING:
        raise TypeError(f"cgrad.random: needs a real floating dtype, got {d}")
    return d


def _param(x, dtype):
    """A distribution's parameter: a Python float, or an array of dtype (lists and NumPy arrays too)."""
    if isinstance(x, _numbers.Real) and not isinstance(x, _Array):
        return float(x)
    x = x if isinstance(x, _Array) else _api.asarray(x, dtype=_F64)
    return x if x.dtype == dtype else x.astype(dtype)


def _shape_of(size, *params):
    """The result's shape: size (the parameters must broadcast to it), else the parameters' broadcast."""
    shapes = [tuple(p.shape) for p in params if isinstance(p, _Array)]
    if size is None:
        return _api.broadcast_shapes(*shapes) if shapes else ()
    shape = _size(size)
    if shapes and _api.broadcast_shapes(shape, *shapes) != shape:
        raise ValueError(f"cgrad.random: parameters of shapes {shapes} do not broadcast to size {shape}")
    return shape


def _device(device, *params):
    for p in params:
        if device is None and isinstance(p, _Array):
            return p.device
    return device


def _check(value, ok, message, nan_ok=False):
    """ValueError(message) unless ok(value) holds, for every element of an array (evaluated, as NumPy
    checks). With nan_ok a NaN passes (a scale: its samples are NaN, as NumPy's; `normal(0, nan)`
    raised "scale < 0" until 2026-12-07); the shape parameters of the samplers that redraw refuse it
    (a NaN would never be accepted)."""
    good = ok(value)
    if nan_ok and isinstance(value, _Array) and value.dtype in _dt.FLOATING:
        good = good | _cgrad.isnan(value)
    elif nan_ok and isinstance(value, float) and value != value:
        good = True
    if not (good if isinstance(good, bool) else _builtins.bool(_api.all(good))):
        raise ValueError(f"cgrad.random: {message}")


def _int_range(d):
    """The values an integer dtype (or bool) holds."""
    if d == _dt.bool:
        return 0, 1
    i = _dt.iinfo(d)
    return i.min, i.max


def _check_bounds(lowest, highest, d):
    """NumPy's ValueErrors where the integers to draw, lowest to highest, leave d's range."""
    lo, hi = _int_range(d)
    if lowest < lo:
        raise ValueError(f"low is out of bounds for {d.name}")
    if highest > hi:
        raise ValueError(f"high is out of bounds for {d.name}")


def _flat(p, shape):
    """A parameter per element of shape, flattened (a number stays a number)."""
    return p if not isinstance(p, _Array) else _api.reshape(_api.broadcast_to(p, shape), (-1,))


def _take(p, idx):
    return p if not isinstance(p, _Array) else _api.take(p, idx)


def _where(c, x, y):
    """where(c, x, y) for Python bools too."""
    if isinstance(c, bool):
        return x if c else y
    return _cgrad._where(c, x, y)


def _stirling_tail(k):
    """log k! - ((k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2) of a float64 array of whole numbers
    k >= 0 (a small number, so the rejection tests built on it do not cancel large log-factorials):
    a table below 16, the Stirling series above."""
    table = _api.asarray(_STIRLING_TAIL, dtype=_F64, device=k.device)
    small = _api.take(table, _cgrad.minimum(k, 15.0).astype(_dt.int64))
    x = _cgrad.maximum(k, 15.0) + 1.0
    x2, series = 1.0 / (x * x), _LOGGAM_COEF[-1]
    for c in reversed(_LOGGAM_COEF[:-1]):
        series = series * x2 + c
    return _cgrad._where(k < 16.0, small, series / x)


def _log_factorial(k):
    """log k! of a float64 array of whole numbers k >= 0 (Stirling's form and its tail)."""
    return (k + 0.5) * _cgrad.log(k + 1.0) - (k + 1.0) + _HALF_LOG_2PI + _stirling_tail(k)


class _Sampler:
    """NumPy's distributions, each written once over the two primitive draws of a stream:
    _uniform(shape, dtype, device) in [0, 1) and _normal(shape, dtype, device)."""

    def _uniform(self, shape, dtype, device):
        raise NotImplementedError

    def _normal(self, shape, dtype, device):
        raise NotImplementedError

    def _open_uniform(self, shape, dtype, device):
        """Uniform in (0, 1]: 1 - u for u in [0, 1), so its log is finite."""
        return 1.0 - self._uniform(shape, dtype, device)

    def _exp1(self, shape, dtype, device):
        """Standard exponential by inversion: -log(1 - u)."""
        return -_cgrad.log(self._open_uniform(shape, dtype, device))

    def _redraw(self, n, params, propose):
        """Exact rejection sampling, vectorised: propose(params, m) gives (candidates, accepted) for m
        elements whose parameters are params (numbers, or flat arrays of length m). All n are
        proposed lazily, then, while some are rejected (evaluated: a synchronisation point per
        round, as nonzero), only those are proposed again with their parameters. A flat result."""
        value, ok = propose(params, n)
        out = _cgrad._where(ok, value, 0.0)
        _cgrad.eval(out, ok)
        todo = _api.nonzero(_cgrad.logical_not(ok))[0]
        while todo.shape[0]:
            value, ok = propose([_take(p, todo) for p in params], todo.shape[0])
            out = _api.scatter_add(out, todo, _cgrad._where(ok, value, 0.0))
            _cgrad.eval(out, ok)
            todo = _api.take(todo, _api.nonzero(_cgrad.logical_not(ok))[0])
            _cgrad.eval(todo)  # a value, not a chain of takes growing round by round
        return out

    def _by_case(self, n, cond, params, when_true, when_false):
        """when_true(params, m) for the elements where cond holds, when_false for the others (each on
        its elements only, cond evaluated); flat float64 results."""
        if isinstance(cond, bool):
            return (when_true if cond else when_false)(params, n)
        out = _api.zeros((n,), dtype=_F64, device=cond.device)
        for c, fn in ((cond, when_true), (_cgrad.logical_not(cond), when_false)):
            idx = _api.nonzero(c)[0]
            if idx.shape[0]:
                out = _api.scatter_add(out, idx, fn([_take(p, idx) for p in params], idx.shape[0]))
        return out

    def _inversion(self, u, pmf, ratio, params):
        """Discrete inversion by sequential search, exact: the least k with u < F(k), F the cdf with
        F(0) = pmf and pmf(j + 1) = pmf(j) ratio(j, params) (u, pmf, params: flat float64 arrays).
        _TERMS comparisons per pass, unrolled into one fused kernel; the elements whose u is still
        above F go on from where they stopped (evaluated, as nonzero) until none is left, so no
        tail is cut. The search stops where the pmf is 0 (the support's end, or its underflow)."""
        out, todo, cdf, j = None, None, pmf, 0.0 * u  # j: an array, so every pass runs one kernel
        while True:
            dk = 0.0 * u
            for _ in range(_TERMS):
                nxt = pmf * ratio(j, params)
                dk = dk + _cgrad._where((u >= cdf) & (nxt > 0.0), 1.0, 0.0)
                pmf, cdf, j = nxt, cdf + nxt, j + 1.0
            more = (u >= cdf) & (pmf > 0.0)
            out = dk if todo is None else _api.scatter_add(out, todo, dk)
            _cgrad.eval(out, more, pmf, cdf, j)
            left = _api.nonzero(more)[0]
            if not left.shape[0]:
                return out
            todo = left if todo is None else _api.take(todo, left)
            u, pmf, cdf, j = (_api.take(x, left) for x in (u, pmf, cdf, j))
            params = [_take(p, left) for p in params]
            _cgrad.eval(todo, u, pmf, cdf, j, *[p for p in params if isinstance(p, _Array)])

    # ---- uniform and normal ----
    def random(self, size=None, dtype=None, device=None):
        """Uniform in [0, 1)."""
        return self._uniform(_size(size), _float_dtype(dtype), device)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=None, device=None):
        """Uniform in [low, high) (low and high: numbers or arrays)."""
        d = _float_dtype(dtype)
        low, high = _param(low, d), _param(high, d)
        # NumPy's checks (none before 2026-12-07: uniform(1, 0) drew from (0, 1], uniform(0, inf) inf)
        width = high - low
        finite = _cgrad.isfinite(width) if isinstance(width, _Array) else _math.isfinite(width)
        if not (finite if isinstance(finite, bool) else _builtins.bool(_api.all(finite))):
            raise OverflowError("cgrad.random: high - low range exceeds valid bounds")
        _check(width, lambda w: w >= 0, "high - low < 0")
        return low + width * self._uniform(_shape_of(size, low, high), d, _device(device, low, high))

    def standard_normal(self, size=None, dtype=None, device=None):
        """Standard normal (randn)."""
        return self._normal(_size(size), _float_dtype(dtype), device)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=None, device=None):
        """Normal of mean loc and standard deviation scale."""
        d = _float_dtype(dtype)
        loc, scale = _param(loc, d), _param(scale, d)
        _check(scale, lambda s: s >= 0, "scale < 0", nan_ok=True)
        return loc + scale * self._normal(_shape_of(size, loc, scale), d, _device(device, loc, scale))

    def lognormal(self, mean=0.0, sigma=1.0, size=None, dtype=None, device=None):
        """exp of a normal of mean mean and standard deviation sigma."""
        return _cgrad.exp(self.normal(mean, sigma, size, dtype, device))

    # ---- exact transforms of one uniform (inversion) ----
    def _scaled(self, transform, loc, scale, size, dtype, device):
        """loc + scale transform(u): a location-scale family over a transform of u in [0, 1)."""
        d = _float_dtype(dtype)
        loc, scale = _param(loc, d), _param(scale, d)
        _check(scale, lambda s: s >= 0, "scale < 0", nan_ok=True)
        u = self._uniform(_shape_of(size, loc, scale), d, _device(device, loc, scale))
        return loc + scale * transform(u)

    def standard_exponential(self, size=None, dtype=None, device=None):
        """Exponential of mean 1, by inversion."""
        return self._exp1(_size(size), _float_dtype(dtype), device)

    def exponential(self, scale=1.0, size=None, dtype=None, device=None):
        """Exponential of mean scale: -scale log(1 - u)."""
        return self._scaled(lambda u: -_cgrad.log(1.0 - u), 0.0, scale, size, dtype, device)

    def laplace(self, loc=0.0, scale=1.0, size=None, dtype=None, device=None):
        """Double exponential, by inversion."""
        def t(u):  # u - 0.5 in [-0.5, 0.5): the inverse of the two exponential halves
            return -_cgrad.sign(u - 0.5) * _cgrad.log(1.0 - 2.0 * _cgrad.abs(u - 0.5))
        return self._scaled(t, loc, scale, size, dtype, device)

    def logistic(self, loc=0.0, scale=1.0, size=None, dtype=None, device=None):
        """Logistic, by inversion: loc + scale log((1 - u) / u)."""
        return self._scaled(lambda u: _cgrad.log((1.0 - u) / u), loc, scale, size, dtype, device)

    def gumbel(self, loc=0.0, scale=1.0, size=None, dtype=None, device=None):
        """Gumbel (maximum), by inversion: loc - scale log(-log(1 - u))."""
        return self._scaled(lambda u: -_cgrad.log(-_cgrad.log(1.0 - u)), loc, scale, size, dtype, device)

    def rayleigh(self, scale=1.0, size=None, dtype=None, device=None):
        """Rayleigh, by inversion: scale sqrt(-2 log(1 - u))."""
        return self._scaled(lambda u: _cgrad.sqrt(-2.0 * _cgrad.log(1.0 - u)), 0.0, scale, size, dtype, device)

    def standard_cauchy(self, size=None, dtype=None, device=None):
        """Cauchy of median 0 and scale 1, by inversion: tan(pi (u - 1/2))."""
        return _cgrad.tan(_math.pi * (self._uniform(_size(size), _float_dtype(dtype), device) - 0.5))

    def _shaped(self, name, a, size, dtype, device, transform, valid=lambda a: a > 0, message="<= 0"):
        """transform(E, a) of a standard exponential E, a a checked shape parameter."""
        d = _float_dtype(dtype)
        a = _param(a, d)
        _check(a, valid, f"{name} {message}")
        return transform(self._exp1(_shape_of(size, a), d, _device(device, a)), a)

    def weibull(self, a, size=None, dtype=None, device=None):
        """E ** (1 / a); 0 where a is 0 (as NumPy)."""
        def t(e, a):
            if not isinstance(a, _Array):
                return 0.0 * e if a == 0 else e ** (1.0 / a)
            return _cgrad._where(a == 0, 0.0, e ** (1.0 / _cgrad._where(a == 0, 1.0, a)))
        return self._shaped("a", a, size, dtype, device, t, lambda a: a >= 0, "< 0")

    def pareto(self, a, size=None, dtype=None, device=None):
        """NumPy's pareto (Lomax, Pareto II): expm1(E / a)."""
        return self._shaped("a", a, size, dtype, device, lambda e, a: _cgrad.expm1(e / a))

    def power(self, a, size=None, dtype=None, device=None):
        """(1 - exp(-E)) ** (1 / a): the power-function distribution on [0, 1]."""
        return self._shaped("a", a, size, dtype, device, lambda e, a: (-_cgrad.expm1(-e)) ** (1.0 / a))

    def triangular(self, left, mode, right, size=None, dtype=None, device=None):
        """The inverse of the triangular cdf."""
        d = _float_dtype(dtype)
        left, mode, right = _param(left, d), _param(mode, d), _param(right, d)
        _check(left <= mode, lambda c: c, "left > mode")
        _check(mode <= right, lambda c: c, "mode > right")
        _check(left < right, lambda c: c, "left == right")
        u = self._uniform(_shape_of(size, left, mode, right), d, _device(device, left, mode, right))
        base = right - left
        lo = left + _cgrad.sqrt(u * (mode - left) * base)
        hi = right - _cgrad.sqrt((1.0 - u) * (right - mode) * base)
        return _cgrad._where(u <= (mode - left) / base, lo, hi)

    def wald(self, mean, scale, size=None, dtype=None, device=None):
        """The inverse Gaussian, by Michael, Schucany and Haas' transform of a normal and a uniform
        (computed in float64: X = mean (w - 1) / (w + 1), w = sqrt(1 + 4 scale / Y), Y = mean N^2)."""
        d = _float_dtype(dtype)
        mean, scale = _param(mean, _F64), _param(scale, _F64)
        _check(mean, lambda m: m > 0, "mean <= 0")
        _check(scale, lambda s: s > 0, "scale <= 0")
        shape, dev = _shape_of(size, mean, scale), _device(device, mean, scale)
        y = mean * self._normal(shape, _F64, dev) ** 2
        e = 4.0 * scale / y
        w = _cgrad.sqrt(1.0 + e)
        x = _cgrad._where(y > 0.0, mean * e / ((w + 1.0) * (w + 1.0)), mean + 0.0 * y)
        u = self._uniform(shape, _F64, dev)
        return _cgrad._where(u * (mean + x) <= mean, x, mean * mean / x).astype(d)

    # ---- the gamma family (Marsaglia-Tsang, redrawn) ----
    def _log_gamma(self, a, n, device):
        """log of n standard gamma variates of shapes a (a number or a flat float64 array, >= 0):
        Marsaglia and Tsang's rejection for shape max(a, a + 1 if a < 1), then log G(a) = log G(a + 1)
        + log(U) / a below 1 (in logs, so tiny shapes do not underflow); -inf where a is 0."""
        def propose(ps, m):
            x = self._normal((m,), _F64, device)
            d = ps[0] - 1.0 / 3.0 + 0.0 * x
            v = (1.0 + x / _cgrad.sqrt(9.0 * d)) ** 3
            lv = _cgrad.log(_cgrad.maximum(v, 1e-300))
            u = self._open_uniform((m,), _F64, device)
            ok = (v > 0.0) & (_cgrad.log(u) < 0.5 * x * x + d - d * v + d * lv)
            return _cgrad.log(d) + lv, ok
        boost = a < 1.0
        lg = self._redraw(n, [_where(boost, a + 1.0, a)], propose)
        if isinstance(boost, bool) and not boost:
            return lg
        low = lg + _cgrad.log(self._open_uniform((n,), _F64, device)) / _where(boost, a, 1.0)
        return _where(a == 0.0, -_math.inf + 0.0 * lg, _where(boost, low, lg))

    def _gamma_flat(self, name, a, size, device):
        """Log gamma variates of shape a (checked >= 0), flat, and the result's shape."""
        a = _param(a, _F64)
        _check(a, lambda a: a >= 0, f"{name} < 0")
        shape = _shape_of(size, a)
        return self._log_gamma(_flat(a, shape), _math.prod(shape), _device(device, a)), shape

    def standard_gamma(self, shape, size=None, dtype=None, device=None):
        """Gamma of scale 1 (Marsaglia-Tsang, redrawn; see _log_gamma)."""
        lg, out = self._gamma_flat("shape", shape, size, device)
        return _api.reshape(_cgrad.exp(lg), out).astype(_float_dtype(dtype))

    def gamma(self, shape, scale=1.0, size=None, dtype=None, device=None):
        """scale standard_gamma(shape)."""
        d = _float_dtype(dtype)
        scale = _param(scale, d)
        _check(scale, lambda s: s >= 0, "scale < 0", nan_ok=True)
        size = _shape_of(size, _param(shape, _F64), scale)
        return scale * self.standard_gamma(shape, size, d, device)

    def chisquare(self, df, size=None, dtype=None, device=None):
        """2 standard_gamma(df / 2)."""
        df = _param(df, _F64)
        _check(df, lambda k: k > 0, "df <= 0")
        return 2.0 * self.standard_gamma(df / 2.0, size, dtype, device)

    def noncentral_chisquare(self, df, nonc, size=None, dtype=None, device=None):
        """A chi-square of df + 2 K degrees of freedom, K Poisson of mean nonc / 2 (exact)."""
        df, nonc = _param(df, _F64), _param(nonc, _F64)
        _check(df, lambda k: k > 0, "df <= 0")
        _check(nonc, lambda n: n >= 0, "nonc < 0")
        shape = _shape_of(size, df, nonc)
        k = self.poisson(nonc / 2.0, shape, device).astype(_F64)
        return self.chisquare(df + 2.0 * k, shape, dtype, device)

    def noncentral_f(self, dfnum, dfden, nonc, size=None, dtype=None, device=None):
        """(noncentral_chisquare(dfnum, nonc) / dfnum) / (chisquare(dfden) / dfden)."""
        dfnum, dfden, nonc = _param(dfnum, _F64), _param(dfden, _F64), _param(nonc, _F64)
        _check(dfnum, lambda k: k > 0, "dfnum <= 0")
        _check(dfden, lambda k: k > 0, "dfden <= 0")
        _check(nonc, lambda n: n >= 0, "nonc < 0")
        shape, dev = _shape_of(size, dfnum, dfden, nonc), _device(device, dfnum, dfden, nonc)
        num = self.noncentral_chisquare(dfnum, nonc, shape, _F64, dev) / dfnum
        return (num / (self.chisquare(dfden, shape, _F64, dev) / dfden)).astype(_float_dtype(dtype))

    def beta(self, a, b, size=None, dtype=None, device=None):
        """X / (X + Y) of gammas X, Y of shapes a and b: sigmoid(log X - log Y), exact for tiny shapes."""
        a, b = _param(a, _F64), _param(b, _F64)
        _check(a, lambda a: a > 0, "a <= 0")
        _check(b, lambda b: b > 0, "b <= 0")
        shape, dev = _shape_of(size, a, b), _device(device, a, b)
        n = _math.prod(shape)
        la, lb = self._log_gamma(_flat(a, shape), n, dev), self._log_gamma(_flat(b, shape), n, dev)
        return _api.reshape(_cgrad.sigmoid(la - lb), shape).astype(_float_dtype(dtype))

    def standard_t(self, df, size=None, dtype=None, device=None):
        """N / sqrt(chisquare(df) / df)."""
        df = _param(df, _F64)
        _check(df, lambda k: k > 0, "df <= 0")
        shape, dev = _shape_of(size, df), _device(device, df)
        chi = self.chisquare(df, shape, _F64, dev)
        return (self._normal(shape, _F64, dev) / _cgrad.sqrt(chi / df)).astype(_float_dtype(dtype))

    def f(self, dfnum, dfden, size=None, dtype=None, device=None):
        """(chisquare(dfnum) / dfnum) / (chisquare(dfden) / dfden)."""
        dfnum, dfden = _param(dfnum, _F64), _param(dfden, _F64)
        _check(dfnum, lambda k: k > 0, "dfnum <= 0")
        _check(dfden, lambda k: k > 0, "dfden <= 0")
        shape, dev = _shape_of(size, dfnum, dfden), _device(device, dfnum, dfden)
        num = self.chisquare(dfnum, shape, _F64, dev) / dfnum
        return (num / (self.chisquare(dfden, shape, _F64, dev) / dfden)).astype(_float_dtype(dtype))

    def dirichlet(self, alpha, size=None, dtype=None, device=None):
        """Gammas of shapes alpha normalised along the last axis (in logs: tiny alphas are exact)."""
        alpha = _param(alpha, _F64)
        if not isinstance(alpha, _Array) or alpha.ndim != 1:
            raise ValueError("cgrad.random: alpha must be a 1-D sequence")
        _check(alpha, lambda a: a >= 0, "alpha < 0")  # an alpha of 0 gives 0, as NumPy's (it raised before 2026-12-07)
        shape = _size(size) + tuple(alpha.shape)
        lg = self._log_gamma(_flat(alpha, shape), _math.prod(shape), _device(device, alpha))
        lg = _api.reshape(lg, shape)
        top = _api.max(lg, axis=-1, keepdims=True)
        g = _cgrad.exp(lg - _api.where(top == float("-inf"), 0.0, top))  # all alphas 0: all gammas 0
        total = _api.sum(g, axis=-1, keepdims=True)
        return _api.where(total == 0, 0.0, g / _api.where(total == 0, 1.0, total)).astype(_float_dtype(dtype))

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *, method="svd",
                            dtype=None, device=None):
        """mean + Z A^T with cov = A A^T: A = the Cholesky factor (method="cholesky"), or V sqrt(S) of
        cov's symmetric eigendecomposition (method "eigh", and "svd": the same factor for a symmetric
        cov). The factor is computed in float64; check_valid ("warn", "raise", "ignore") tests that
        cov is positive semi-definite (eigenvalues above -tol max|eigenvalue|; evaluated)."""
        from . import linalg
        mean, cov = _param(mean, _F64), _param(cov, _F64)
        if not isinstance(mean, _Array) or mean.ndim != 1:
            raise ValueError("cgrad.random: mean must be 1-D")
        k = mean.shape[0]
        if not isinstance(cov, _Array) or tuple(cov.shape) != (k, k):
            raise ValueError("cgrad.random: cov must be 2-D and square, of mean's length")
        if method not in ("svd", "eigh", "cholesky") or check_valid not in ("warn", "raise", "ignore"):
            raise ValueError("cgrad.random: method must be svd, eigh or cholesky; check_valid warn, raise or ignore")
        if method == "cholesky":
            factor = linalg.cholesky(cov)
        else:
            s, v = linalg.eigh(cov)
            if check_valid != "ignore" and k and float(_api.min(s)) < -tol * float(_api.max(_cgrad.abs(s))):
                if check_valid == "raise":
                    raise ValueError("cgrad.random: covariance is not symmetric positive-semidefinite.")
                _warnings.warn("covariance is not symmetric positive-semidefinite.", RuntimeWarning, stacklevel=2)
            factor = v * _cgrad.sqrt(_cgrad.maximum(s, 0.0))
        z = self._normal(_size(size) + (k,), _F64, _device(device, mean))
        return (mean + _api.matmul(z, factor.mT)).astype(_float_dtype(dtype))

    # ---- integer-valued ----
    def geometric(self, p, size=None, device=None):
        """Trials to the first success, by inversion: ceil(log(1 - u) / log(1 - p)), at least 1."""
        p = _param(p, _F64)
        _check(p, lambda p: (p > 0) & (p <= 1) if isinstance(p, _Array) else 0 < p <= 1, "p <= 0, p > 1 or p is NaN")
        e = _cgrad.log(self._open_uniform(_shape_of(size, p), _F64, _device(device, p)))
        return _cgrad.maximum(_cgrad.ceil(e / _cgrad.log1p(-_cgrad.minimum(p + 0.0 * e, 1.0))), 1.0).astype(_dt.int64)

    def poisson(self, lam=1.0, size=None, device=None):
        """Inversion by sequential search below lam 10, Hormann's PTRS rejection above (as NumPy)."""
        lam = _param(lam, _F64)
        _check(lam, lambda m: m >= 0, "lam < 0")
        _check(lam, lambda m: m < 1e18, "lam value too large")
        shape, dev = _shape_of(size, lam), _device(device, lam)
        n = _math.prod(shape)
        k = self._by_case(n, _flat(lam, shape) < 10.0, [_flat(lam, shape)],
                          lambda ps, m: self._poisson_inversion(ps[0], m, dev),
                          lambda ps, m: self._redraw(m, ps, lambda qs, r: self._ptrs(qs[0], r, dev)))
        return _api.reshape(k, shape).astype(_dt.int64)

    def _poisson_inversion(self, lam, n, device):
        u = self._uniform((n,), _F64, device)
        p0 = _cgrad.exp(-(lam + 0.0 * u))
        return self._inversion(u, p0, lambda j, ps: ps[0] / (j + 1.0), [lam + 0.0 * u])

    def _ptrs(self, lam, m, device):
        """One round of PTRS (Hormann 1993, "The transformed rejection method for generating Poisson
        random variables"), lam >= 10, as NumPy: candidates and their acceptance. The final test,
        log(V invalpha / (a / us^2 + b)) <= -lam + k log(lam) - log k!, with log k! in Stirling form
        so that its terms of size lam cancel exactly: (k + 1 - lam) + k log(lam / (k + 1)) - ..."""
        u = self._uniform((m,), _F64, device) - 0.5
        v = self._uniform((m,), _F64, device)
        lam = lam + 0.0 * v
        b = 0.931 + 2.53 * _cgrad.sqrt(lam)
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2.0)
        us = 0.5 - _cgrad.abs(u)
        k = _cgrad.floor((2.0 * a / us + b) * u + lam + 0.43)
        kk = _cgrad.maximum(k, 0.0)
        log_pmf = ((kk + 1.0 - lam) + kk * _cgrad.log(lam / (kk + 1.0)) - 0.5 * _cgrad.log(kk + 1.0) - _HALF_LOG_2PI
                   - _stirling_tail(kk))
        slow = _cgrad.log(v * invalpha / (a / (us * us) + b)) <= log_pmf
        return k, ((us >= 0.07) & (v <= vr)) | ((k >= 0.0) & ((us >= 0.013) | (v <= us)) & slow)

    def binomial(self, n, p, size=None, device=None):
        """Successes in n trials: with p' = min(p, 1 - p), inversion by sequential search where
        n p' < 10, Hormann's BTRS rejection elsewhere; n - k where p > 1/2."""
        n, p = _param(n, _F64), _param(p, _F64)
        _check(n, lambda n: n >= 0, "n < 0")
        _check(p, lambda p: (p >= 0) & (p <= 1) if isinstance(p, _Array) else 0 <= p <= 1, "p < 0, p > 1 or p is NaN")
        shape, dev = _shape_of(size, n, p), _device(device, n, p)
        count = _math.prod(shape)
        nf, pf = _flat(_cgrad.floor(n) if isinstance(n, _Array) else float(_math.floor(n)), shape), _flat(p, shape)
        flip = pf > 0.5
        q = _where(flip, 1.0 - pf, pf)
        k = self._by_case(count, nf * q < 10.0, [nf, q],
                          lambda ps, m: self._binomial_inversion(ps[0], ps[1], m, dev),
                          lambda ps, m: self._redraw(m, ps, lambda qs, r: self._btrs(qs[0], qs[1], r, dev)))
        return _api.reshape(_where(flip, nf - k, k), shape).astype(_dt.int64)

    def _binomial_inversion(self, n, p, m, device):
        u = self._uniform((m,), _F64, device)
        n, p = n + 0.0 * u, p + 0.0 * u
        p0 = _cgrad.exp(n * _cgrad.log1p(-p))
        r = p / (1.0 - p)
        return self._inversion(u, p0, lambda j, ps: (ps[0] - j) / (j + 1.0) * ps[1], [n, r])

    def _btrs(self, n, p, m, device):
        """One round of BTRS (Hormann 1993, "The generation of binomial random variates"), n p >= 10,
        p <= 1/2: candidates and their acceptance. The final test compares with the exact log-pmf
        ratio to the mode, written with Stirling tails (Hormann's form) so that no large
        log-factorials cancel."""
        u = self._uniform((m,), _F64, device) - 0.5
        v = self._uniform((m,), _F64, device)
        n, p = n + 0.0 * u, p + 0.0 * u
        q = 1.0 - p
        r = p / q
        spq = _cgrad.sqrt(n * p * q)
        b = 1.15 + 2.53 * spq
        a = -0.0873 + 0.0248 * b + 0.01 * p
        alpha = (2.83 + 5.1 / b) * spq
        vr = 0.92 - 4.2 / b
        mode = _cgrad.floor((n + 1.0) * p)
        us = 0.5 - _cgrad.abs(u)
        k = _cgrad.floor((2.0 * a / us + b) * u + n * p + 0.5)
        kk = _cgrad.minimum(_cgrad.maximum(k, 0.0), n)
        bound = ((mode + 0.5) * _cgrad.log((mode + 1.0) / (r * (n - mode + 1.0)))
                 + (n + 1.0) * _cgrad.log1p((kk - mode) / (n - kk + 1.0))
                 + (kk + 0.5) * _cgrad.log(r * (n - kk + 1.0) / (kk + 1.0))
                 + _stirling_tail(mode) + _stirling_tail(n - mode) - _stirling_tail(kk) - _stirling_tail(n - kk))
        slow = _cgrad.log(v * alpha / (a / (us * us) + b)) <= bound
        return k, (k >= 0.0) & (k <= n) & (((us >= 0.07) & (v <= vr)) | slow)

    def negative_binomial(self, n, p, size=None, device=None):
        """Failures before the n-th success: Poisson of a gamma(n, (1 - p) / p) mean (as NumPy)."""
        n, p = _param(n, _F64), _param(p, _F64)
        _check(n, lambda n: n > 0, "n <= 0")
        _check(p, lambda p: (p > 0) & (p <= 1) if isinstance(p, _Array) else 0 < p <= 1, "p <= 0, p > 1 or p is NaN")
        shape = _shape_of(size, n, p)
        lam = self.gamma(n, (1.0 - p) / p, shape, _F64, device)
        return self.poisson(lam, shape, device)

    def multinomial(self, n, pvals, size=None, device=None):
        """Counts of n draws (an int) over len(pvals) outcomes: a binomial per outcome in turn, of the
        trials left and the outcome's probability given the ones before (exact). pvals is evaluated."""
        n = _operator.index(n)
        if n < 0:
            raise ValueError("cgrad.random: n < 0")
        pv = [float(v) for v in _api._as_array_arg(pvals).astype(_F64).tolist()] if not isinstance(
            pvals, (list, tuple)) else [float(v) for v in pvals]
        if not pv or _builtins.any(not 0.0 <= v <= 1.0 for v in pv):
            raise ValueError("cgrad.random: pvals < 0, pvals > 1 or pvals contains NaNs")
        if _math.fsum(pv[:-1]) > 1.0 + 1e-12:
            raise ValueError("cgrad.random: sum(pvals[:-1]) > 1.0")
        shape = _size(size)
        left, rest, cols = _api.full(shape, float(n), dtype=_F64, device=device), 1.0, []
        for pi in pv[:-1]:
            x = self.binomial(left, _builtins.min(_builtins.max(pi / rest, 0.0), 1.0) if rest > 0 else 0.0, shape,
                              device).astype(_F64)
            cols.append(x)
            left, rest = left - x, rest - pi
        return _api.stack(cols + [left], axis=-1).astype(_dt.int64)

    def hypergeometric(self, ngood, nbad, nsample, size=None, device=None):
        """Good items among nsample drawn without replacement from ngood good and nbad bad ones, as
        NumPy: where min(nsample, total - nsample) < 10, that many draws one by one (unrolled);
        elsewhere Stadlober's HRUA ratio-of-uniforms rejection."""
        ngood, nbad, nsample = (_param(x, _F64) for x in (ngood, nbad, nsample))
        for x, name in ((ngood, "ngood"), (nbad, "nbad"), (nsample, "nsample")):
            _check(x, lambda v: v >= 0, f"{name} < 0")
        _check(ngood + nbad - nsample, lambda v: v >= 0, "ngood + nbad < nsample")
        shape, dev = _shape_of(size, ngood, nbad, nsample), _device(device, ngood, nbad, nsample)
        g, b, s = (_flat(_cgrad.floor(x) if isinstance(x, _Array) else float(_math.floor(x)), shape)
                   for x in (ngood, nbad, nsample))
        cs = _cgrad.minimum(s, g + b - s) if isinstance(s - g - b, _Array) else _builtins.min(s, g + b - s)  # drawn
        k = self._by_case(_math.prod(shape), cs < 10.0, [g, b, s],
                          lambda ps, m: self._hypergeometric_draws(*ps, m, dev),
                          lambda ps, m: self._redraw(m, ps, lambda qs, r: self._hrua(*qs, r, dev)))
        return _api.reshape(k, shape).astype(_dt.int64)

    def _hypergeometric_draws(self, good, bad, sample, m, device):
        """min(sample, total - sample) < 10 draws one by one, each good with probability (good left) /
        (total left): the good ones drawn, or, for the complement, the good ones left."""
        u = self._uniform((10, m), _F64, device)
        good, total, sample = good + 0.0 * u[0], good + bad + 0.0 * u[0], sample + 0.0 * u[0]
        comp = sample > total - sample
        left = _cgrad._where(comp, total - sample, sample)
        rg, rt = good, total
        for i in range(10):
            active = (left > 0.0) & (rg > 0.0) & (rt > rg)
            rg = rg - _cgrad._where(active & (u[i] * rt < rg), 1.0, 0.0)
            step = _cgrad._where(active, 1.0, 0.0)
            rt, left = rt - step, left - step
        rg = _cgrad._where(rt == rg, rg - left, rg)  # only good ones were left
        return _cgrad._where(comp, rg, good - rg)

    def _hrua(self, good, bad, sample, m, device):
        """One round of HRUA (Stadlober 1989, as NumPy's hypergeometric_hrua), min(sample, total -
        sample) >= 10: candidates and their acceptance."""
        u, v = self._uniform((m,), _F64, device), self._uniform((m,), _F64, device)
        good, bad, sample = good + 0.0 * u, bad + 0.0 * u, sample + 0.0 * u
        total = good + bad
        cs = _cgrad.minimum(sample, total - sample)
        lo, hi = _cgrad.minimum(good, bad), _cgrad.maximum(good, bad)
        p, q = lo / total, hi / total
        a = cs * p + 0.5
        c = _cgrad.sqrt((total - cs) * cs * p * q / (total - 1.0) + 0.5)
        h = 1.7155277699214135 * c + 0.8989161620588988
        mode = _cgrad.floor((cs + 1.0) * (lo + 1.0) / (total + 2.0))

        def lf4(k):
            return _log_factorial(k) + _log_factorial(lo - k) + _log_factorial(cs - k) + _log_factorial(hi - cs + k)
        bound = _cgrad.minimum(_cgrad.minimum(cs, lo) + 1.0, _cgrad.floor(a + 16.0 * c))
        x = a + h * (v - 0.5) / u
        valid = (x >= 0.0) & (x < bound)
        k = _cgrad.floor(_cgrad.minimum(_cgrad.maximum(x, 0.0), bound - 1.0))
        t = lf4(mode) - lf4(k)
        ok = valid & ((u * (4.0 - u) - 3.0 <= t) | ((u * (u - t) < 1.0) & (2.0 * _cgrad.log(u) <= t)))
        k = _cgrad._where(good > bad, cs - k, k)
        return _cgrad._where(cs < sample, good - k, k), ok

    def zipf(self, a, size=None, device=None):
        """Devroye's rejection (as NumPy): X = floor(U^(-1 / (a - 1))), accepted with T = (1 + 1/X)^(a-1)
        when V X (T - 1) / (b - 1) <= T / b, b = 2^(a - 1)."""
        a = _param(a, _F64)
        _check(a, lambda a: a > 1, "a <= 1 or a is NaN")
        shape, dev = _shape_of(size, a), _device(device, a)

        def propose(ps, m):
            u, v = self._open_uniform((m,), _F64, dev), self._uniform((m,), _F64, dev)
            am1 = ps[0] - 1.0 + 0.0 * u
            x = _cgrad.floor(u ** (-1.0 / am1))
            t = (1.0 + 1.0 / x) ** am1
            b = 2.0 ** am1
            return x, (x >= 1.0) & (x <= 9.2e18) & (v * x * (t - 1.0) / (b - 1.0) <= t / b)
        return _api.reshape(self._redraw(_math.prod(shape), [_flat(a, shape)], propose), shape).astype(_dt.int64)

    def logseries(self, p, size=None, device=None):
        """Kemp's second accelerated generator (as NumPy)."""
        p = _param(p, _F64)
        _check(p, lambda p: (p >= 0) & (p < 1) if isinstance(p, _Array) else 0 <= p < 1, "p < 0, p >= 1 or p is NaN")
        shape, dev = _shape_of(size, p), _device(device, p)

        def propose(ps, m):
            v, u = self._uniform((m,), _F64, dev), self._uniform((m,), _F64, dev)
            p = ps[0] + 0.0 * v
            q = -_cgrad.expm1(_cgrad.log1p(-p) * u)
            big = _cgrad.floor(1.0 + _cgrad.log(v) / _cgrad.log(q))
            x = _cgrad._where(v >= p, 1.0, _cgrad._where(v <= q * q, big, _cgrad._where(v >= q, 1.0, 2.0)))
            return x, (v >= p) | (v > q * q) | ((big >= 1.0) & (v > 0.0))
        return _api.reshape(self._redraw(_math.prod(shape), [_flat(p, shape)], propose), shape).astype(_dt.int64)

    def vonmises(self, mu, kappa, size=None, dtype=None, device=None):
        """Best and Fisher's rejection, in [-pi, pi]; uniform below kappa 1e-8 (as NumPy). Unlike
        NumPy, no normal approximation above kappa 1e6: the rejection is used at every kappa."""
        mu, kappa = _param(mu, _F64), _param(kappa, _F64)
        _check(kappa, lambda k: k >= 0, "kappa < 0")
        shape, dev = _shape_of(size, mu, kappa), _device(device, mu, kappa)

        def propose(ps, m):
            k = _cgrad.maximum(ps[0] + 0.0 * self._uniform((m,), _F64, dev), 1e-8)
            r = 1.0 + _cgrad.sqrt(1.0 + 4.0 * k * k)
            rho = 2.0 * k / (r + _cgrad.sqrt(2.0 * r))  # (r - sqrt(2r)) / (2 kappa), without cancellation
            s = _cgrad._where(k < 1e-5, 1.0 / k + k, (1.0 + rho * rho) / (2.0 * rho))
            z = _cgrad.cos(_math.pi * self._uniform((m,), _F64, dev))
            w = (1.0 + s * z) / (s + z)
            y = k * (s - w)
            v = self._open_uniform((m,), _F64, dev)
            return w, (y * (2.0 - y) - v >= 0.0) | (_cgrad.log(y / v) + 1.0 - y >= 0.0)
        n = _math.prod(shape)
        w = _cgrad.minimum(_cgrad.maximum(self._redraw(n, [_flat(kappa, shape)], propose), -1.0), 1.0)
        sign = _cgrad._where(self._uniform((n,), _F64, dev) < 0.5, -1.0, 1.0)
        angle = sign * _cgrad.acos(w)
        tiny = _flat(kappa, shape) < 1e-8
        angle = _where(tiny, _math.pi * (2.0 * self._uniform((n,), _F64, dev) - 1.0), angle)
        x = _api.reshape(angle, shape) + mu
        x = _cgrad.remainder(x + _math.pi, 2 * _math.pi) - _math.pi  # back into [-pi, pi)
        return x.astype(_float_dtype(dtype))

    # ---- integers, permutations, choices ----
    def integers(self, low, high=None, size=None, dtype=None, endpoint=False, device=None):
        """Uniform integers in [low, high) ([low, high] with endpoint; high None: [0, low)), drawn as
        floor(u (high - low)) + low with a float64 u of 53 random bits; low and high: ints or
        integer arrays (broadcast, checked: evaluated), within dtype's range (bool: 0 and 1)."""
        if high is None:
            low, high = 0, low
        d = _dt.int64 if dtype is None else _dt.as_dtype(dtype)
        if d not in _dt.INTEGRAL and d != _dt.bool:
            raise TypeError(f"cgrad.random.integers: needs an integer dtype, got {d}")
        if isinstance(low, _numbers.Integral) and isinstance(high, _numbers.Integral):
            low, high = _operator.index(low), _operator.index(high) + (1 if endpoint else 0)
            _check_bounds(low, high - 1, d)
            if high <= low:
                raise ValueError(f"cgrad.random.integers: low >= high ({low} >= {high})")
            u = self._uniform(_size(size), _F64, device)
            k = _cgrad.floor(u * float(high - low)).astype(_dt.int64)
            return (_cgrad.minimum(k, high - low - 1) + low).astype(d)  # the min guards a rounded-up product
        low, high = (_api._as_array_arg(x).astype(_dt.int64) for x in (low, high))
        width = high - low + (1 if endpoint else 0)
        if _math.prod(low.shape) and _math.prod(high.shape):
            _check_bounds(int(_api.min(low)), int(_api.max(high)) - (0 if endpoint else 1), d)
        _check(width, lambda w: w > 0, "low >= high")
        u = self._uniform(_shape_of(size, low, high), _F64, _device(device, low, high))
        k = _cgrad.floor(u * width.astype(_F64)).astype(_dt.int64)
        return (_cgrad.minimum(k, width - 1) + low).astype(d)

    def bytes(self, length):
        """`length` random bytes, as Python bytes (NumPy's; evaluated: a synchronisation point)."""
        n = _operator.index(length)
        if n < 0:
            raise ValueError(f"cgrad.random.bytes: length must be >= 0, got {n}")
        return _builtins.bytes(self.integers(0, 256, size=n, dtype=_dt.uint8).tolist())  # (the module's bytes: this)

    def _order(self, shape, axis, device):
        """Uniformly random permutations along axis: the argsort of uniform keys."""
        return _api.argsort(self._uniform(shape, _F64, device), axis=axis)

    def permutation(self, x, axis=0, device=None):
        """A random permutation of arange(x) (x an int) or of x along axis (a new array)."""
        if isinstance(x, _numbers.Integral):  # arange(x): empty for x <= 0, as NumPy's (x < 0 raised)
            return self._order((_builtins.max(_operator.index(x), 0),), 0, device)
        x = _api._as_array_arg(x)
        if x.ndim == 0:
            raise ValueError("cgrad.random: x must be an integer or at least 1-dimensional")
        return _api.take(x, self._order((x.shape[axis],), 0, x.device), axis=axis)

    def permuted(self, x, axis=None, out=None):
        """x with each slice along axis shuffled independently (axis None: all elements); into out
        (assigned) when given."""
        x = _api._as_array_arg(x)
        if axis is None:
            r = _api.reshape(self.permutation(_api.reshape(x, (-1,))), x.shape)
        else:
            r = _api.take_along_axis(x, self._order(tuple(x.shape), axis, x.device), axis=axis)
        if out is None:
            return r
        out.assign(r)
        return out

    def shuffle(self, x, axis=0):
        """Shuffles x along axis in place: a cgrad array by x.assign (every handle on x sees it); a
        list (any mutable sequence; axis 0) or a NumPy array by item assignment, as NumPy's."""
        if isinstance(x, _Array):
            x.assign(self.permutation(x, axis))
        elif isinstance(x, _MutableSequence):
            if axis != 0:
                raise ValueError("cgrad.random.shuffle: a sequence has only axis 0")
            items = list(x)
            x[:] = [items[i] for i in self.permutation(len(items)).tolist()]
        elif hasattr(x, "__array__") and hasattr(x, "take") and getattr(x, "ndim", 0) >= 1:
            x[...] = x.take(self.permutation(x.shape[axis]).tolist(), axis=axis)
        else:
            raise TypeError(f"cgrad.random.shuffle: needs an array or a mutable sequence, got {type(x).__name__}")

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True, device=None):
        """Samples of a (slices along axis, or arange(a) for an int): uniformly or with probabilities
        p, with or without replacement (then p-weighted draws use the Gumbel top-k rule; samples
        without replacement are always in random order, whatever shuffle says). p is evaluated to
        check it."""
        pool = None if isinstance(a, _numbers.Integral) else _api._as_array_arg(a)
        n = _operator.index(a) if pool is None else pool.shape[axis]
        shape = _size(size)
        count = _math.prod(shape)
        if n <= 0 and count:
            raise ValueError("cgrad.random.choice: a must be non-empty")
        if p is not None:
            p = p if isinstance(p, _Array) else _api.asarray(p, dtype=_F64)
            tol = _math.sqrt(_dt.finfo(p.dtype).eps) if p.dtype in _dt.FLOATING else 0.0  # NumPy's tolerance
            p = p.astype(_F64)
            if p.ndim != 1 or p.shape[0] != n:
                raise ValueError("cgrad.random.choice: p must be 1-D of a's length")
            if _builtins.bool(_api.any(p < 0)) or _builtins.abs(float(_api.sum(p)) - 1) > tol:
                raise ValueError("cgrad.random.choice: probabilities must be non-negative and sum to 1")
        if not replace and count > n:
            raise ValueError("cgrad.random.choice: cannot take a larger sample than the population without replacement")
        dev = device if pool is None else pool.device
        if replace:
            if p is None:
                idx = self.integers(0, n, shape, device=dev)
            else:
                cdf = _api.cumulative_sum(p)
                u = self._uniform(shape, _F64, dev) * cdf[-1]
                idx = _cgrad.minimum(_api.searchsorted(cdf, u, side="right"), n - 1)
        else:
            keys = self._uniform((n,), _F64, dev)
            if p is not None:  # Gumbel top-k: the k largest log p + Gumbel noise, distinct
                keys = _cgrad.log(p) - _cgrad.log(-_cgrad.log(1.0 - keys))
            idx = _api.reshape(_api.argsort(keys, descending=True)[:count], shape)
        if pool is None:
            return idx
        picked = _api.take(pool, _api.reshape(idx, (-1,)), axis=axis)
        ax = axis % pool.ndim
        return _api.reshape(picked, tuple(pool.shape[:ax]) + shape + tuple(pool.shape[ax + 1:]))
