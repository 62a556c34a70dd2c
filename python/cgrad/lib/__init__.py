"""cgrad.lib: NumPy's `numpy.lib` submodules that cgrad provides (`stride_tricks`)."""
from . import stride_tricks  # noqa: F401

__all__ = ["stride_tricks"]
