"""cgrad.lib: NumPy's `numpy.lib` submodules that cgrad provides (`stride_tricks`, and `scimath`,
which is `cgrad.emath` as NumPy's is `numpy.emath`)."""
import sys as _sys

from . import stride_tricks  # noqa: F401
from .. import emath as scimath

_sys.modules[__name__ + ".scimath"] = scimath  # `import cgrad.lib.scimath` finds the same module

__all__ = ["stride_tricks", "scimath"]
