"""cgrad.polynomial: NumPy's numpy.polynomial, the power series part of it: the `Polynomial`
class and the `polynomial` module's functions (coefficients lowest power first), over cgrad's
polynomial functions. NumPy's other series (Chebyshev, Legendre, Laguerre, Hermite) are not
there: they raise AttributeError saying so."""
from . import polynomial  # noqa: F401
from .polynomial import Polynomial  # noqa: F401

__all__ = ["Polynomial", "polynomial"]

_NOT_YET = ("Chebyshev", "Legendre", "Laguerre", "Hermite", "HermiteE", "chebyshev", "legendre", "laguerre",
            "hermite", "hermite_e", "polyutils", "set_default_printstyle")


def __getattr__(name):
    if name in _NOT_YET:
        raise AttributeError(f"cgrad.polynomial.{name} is not available: cgrad has NumPy's power series only "
                             f"(cgrad.polynomial.Polynomial); numpy.polynomial.{name} of np.asarray values serves")
    raise AttributeError(f"module 'cgrad.polynomial' has no attribute {name!r}")
