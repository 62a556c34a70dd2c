"""cgrad.random: NumPy's module-level sampling functions (`np.random.normal(loc, scale, size)`
and the like) over cgrad's own generator: one stream per process, seeded by `seed` (=
`cgrad.manual_seed`), deterministic for a given seed and call order, counter-based (docs/
semantics.md, "Random numbers"). Results are lazy: the numbers are drawn when the result is
evaluated, inside the kernel that uses them. Floating results are cgrad's default float32 unless
`dtype` says otherwise (NumPy: float64); `size=None` gives a 0-d array (NumPy: a Python scalar).
The values differ from NumPy's for the same seed (another generator); the distributions are the
same. docs/python.md, "cgrad.random"."""
import builtins
import math
import operator

from . import _api
from . import _cgrad
from . import _dtypes as dt
from ._cgrad import Array

__all__ = ["seed", "random", "rand", "randn", "uniform", "normal", "standard_normal", "lognormal", "exponential",
           "laplace", "logistic", "gumbel", "standard_cauchy", "integers", "randint", "permutation", "shuffle",
           "choice"]


def _size(size):
    if size is None:
        return ()
    return (operator.index(size),) if not isinstance(size, (tuple, list)) else tuple(operator.index(s) for s in size)


def _float_dtype(dtype):
    d = dt.float32 if dtype is None else dt.as_dtype(dtype)
    if d not in dt.FLOATING:
        raise TypeError(f"cgrad.random: needs a real floating dtype, got {d}")
    return d


def _uniform(size, dtype, device=None):
    return _api.rand(_size(size), dtype=dtype, device=device)


def seed(s):
    """Seeds the process' stream (the same as cgrad.manual_seed)."""
    _cgrad.manual_seed(operator.index(s))


def random(size=None, dtype=None, device=None):
    """Uniform in [0, 1)."""
    return _uniform(size, _float_dtype(dtype), device)


def rand(*dims, dtype=None, device=None):
    return _uniform(dims, _float_dtype(dtype), device)


def randn(*dims, dtype=None, device=None):
    return _api.randn(dims, dtype=_float_dtype(dtype), device=device)


def standard_normal(size=None, dtype=None, device=None):
    return _api.randn(_size(size), dtype=_float_dtype(dtype), device=device)


def uniform(low=0.0, high=1.0, size=None, dtype=None, device=None):
    """Uniform in [low, high) (low and high: numbers or arrays broadcasting with size)."""
    u = _uniform(size, _float_dtype(dtype), device)
    return low + (high - low) * u


def normal(loc=0.0, scale=1.0, size=None, dtype=None, device=None):
    return loc + scale * standard_normal(size, dtype, device)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, device=None):
    return _cgrad.exp(normal(mean, sigma, size, dtype, device))


def _open_uniform(size, dtype, device):
    """Uniform in (0, 1): 1 - u for u in [0, 1), so its log is finite."""
    return 1.0 - _uniform(size, _float_dtype(dtype), device)


def exponential(scale=1.0, size=None, dtype=None, device=None):
    return -scale * _cgrad.log(_open_uniform(size, dtype, device))


def laplace(loc=0.0, scale=1.0, size=None, dtype=None, device=None):
    u = _uniform(size, _float_dtype(dtype), device) - 0.5  # [-0.5, 0.5)
    return loc - scale * _cgrad.sign(u) * _cgrad.log(1.0 - 2.0 * _cgrad.abs(u))


def logistic(loc=0.0, scale=1.0, size=None, dtype=None, device=None):
    u = _open_uniform(size, dtype, device)
    return loc + scale * _cgrad.log(u / (1.0 - u))


def gumbel(loc=0.0, scale=1.0, size=None, dtype=None, device=None):
    return loc - scale * _cgrad.log(-_cgrad.log(_open_uniform(size, dtype, device)))


def standard_cauchy(size=None, dtype=None, device=None):
    u = _uniform(size, _float_dtype(dtype), device)
    return _cgrad.tan(math.pi * (u - 0.5))


def integers(low, high=None, size=None, dtype=None, endpoint=False, device=None):
    """Uniform integers in [low, high) ([low, high] with endpoint; high None: [0, low)), drawn as
    floor(u (high - low)) + low with a float64 u of 53 random bits."""
    if high is None:
        low, high = 0, low
    low, high = operator.index(low), operator.index(high) + (1 if endpoint else 0)
    if high <= low:
        raise ValueError(f"cgrad.random.integers: low ({low}) must be below high ({high})")
    d = dt.int64 if dtype is None else dt.as_dtype(dtype)
    if d not in dt.INTEGRAL or d == dt.bool:
        raise TypeError(f"cgrad.random.integers: needs an integer dtype, got {d}")
    u = _uniform(size, dt.float64, device)
    k = _cgrad.floor(u * float(high - low)).astype(dt.int64)
    return (_cgrad.minimum(k, high - low - 1) + low).astype(d)  # the min guards a rounded-up product


def randint(low, high=None, size=None, dtype=None, device=None):
    return integers(low, high, size, dtype, device=device)


def _order(n, device):
    """A uniformly random permutation of range(n): the argsort of n uniform keys."""
    return _api.argsort(_uniform((n,), dt.float64, device))


def permutation(x, device=None):
    """A random permutation of arange(x) (x an int) or of x's first axis (a new array)."""
    if isinstance(x, int):
        return _order(x, device)
    x = _api._as_array_arg(x)
    return _api.take(x, _order(x.shape[0], x.device), axis=0)


def shuffle(x):
    """Shuffles x's first axis in place (x.assign: every handle on x sees it)."""
    if not isinstance(x, Array):
        raise TypeError("cgrad.random.shuffle: needs a cgrad array")
    x.assign(permutation(x))


def choice(a, size=None, replace=True, p=None, device=None):
    """Samples of a (an array's first axis, or arange(a) for an int): uniformly or with
    probabilities p, with or without replacement (then p-weighted draws use the Gumbel top-k
    rule). p is evaluated to check it."""
    pool = None if isinstance(a, int) else _api._as_array_arg(a)
    n = a if pool is None else pool.shape[0]
    shape = _size(size)
    count = math.prod(shape)
    if n <= 0 and count:
        raise ValueError("cgrad.random.choice: a must be non-empty")
    if p is not None:
        p = p if isinstance(p, Array) else _api.asarray(p, dtype=dt.float64)
        tol = math.sqrt(dt.finfo(p.dtype).eps) if p.dtype in dt.FLOATING else 0.0  # NumPy's tolerance
        p = p.astype(dt.float64)
        if p.ndim != 1 or p.shape[0] != n:
            raise ValueError("cgrad.random.choice: p must be 1-D of a's length")
        if builtins.bool(_api.any(p < 0)) or builtins.abs(float(_api.sum(p)) - 1) > tol:
            raise ValueError("cgrad.random.choice: probabilities must be non-negative and sum to 1")
    if not replace and count > n:
        raise ValueError("cgrad.random.choice: cannot take a larger sample than the population without replacement")
    dev = device if pool is None else pool.device
    if replace:
        if p is None:
            idx = integers(0, n, shape, device=dev)
        else:
            cdf = _api.cumulative_sum(p)
            u = _uniform(shape, dt.float64, dev) * cdf[-1]
            idx = _cgrad.minimum(_api.searchsorted(cdf, u, side="right"), n - 1)
    else:
        keys = _uniform((n,), dt.float64, dev)
        if p is not None:  # Gumbel top-k: the k largest log p + Gumbel noise, distinct
            keys = _cgrad.log(p) - _cgrad.log(-_cgrad.log(1.0 - keys))
        idx = _api.reshape(_api.argsort(keys, descending=True)[:count], shape)
    return idx if pool is None else _api.take(pool, _api.reshape(idx, (-1,)), axis=0)._reshape(
        list(shape) + list(pool.shape[1:]))
