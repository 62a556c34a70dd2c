"""cgrad.fft: the Array API standard's fft extension (2025.12), every function of it, and NumPy's
two-axis forms (`fft2 ifft2 rfft2 irfft2`). The arguments may also be passed by position, and
`norm=None` means "backward", as in NumPy.

NumPy's semantics (docs/fft.md): `n` / `s` pad with zeros or cut the transformed axes, `norm` is
"backward", "ortho" or "forward". The transform itself is cgrad::fft's one host operator (it
evaluates its input, a synchronisation point, and computes in complex double precision, O(n log n)
for every length); everything around it (padding, the Hermitian extension of irfft, scaling, the
shifts and frequencies) is lazy fused ops. Every function is differentiable."""
import operator as _operator

from . import _api
from . import _cgrad
from . import _dtypes as _dt

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq",
           "fftshift", "ifftshift", "fft2", "ifft2", "rfft2", "irfft2"]


_array = _api._as_array_arg


def _n(n):
    return None if n is None else _operator.index(n)


def _ints(v):
    if v is None:
        return None
    return [_operator.index(v)] if isinstance(v, int) else [_operator.index(a) for a in v]


def _norm(norm):
    return "backward" if norm is None else norm


def _named(transform, name, doc):
    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = doc
    return transform


def _one_axis(name, doc):
    f = getattr(_cgrad, "_fft_" + name)

    def transform(x, /, n=None, axis=-1, norm="backward"):
        return f(_array(x), _n(n), _operator.index(axis), _norm(norm))

    return _named(transform, name, doc)


def _many_axes(name, doc, default_axes=None, core=None):
    f = getattr(_cgrad, "_fft_" + (core or name))

    def transform(x, /, s=None, axes=default_axes, norm="backward"):
        return f(_array(x), _ints(s), _ints(axes), _norm(norm))

    return _named(transform, name, doc)


fft = _one_axis("fft", "The discrete Fourier transform along `axis` (n points: the input padded with zeros or cut).")
ifft = _one_axis("ifft", "fft's inverse.")
rfft = _one_axis("rfft", "fft of real input: its n // 2 + 1 non-negative frequencies.")
irfft = _one_axis("irfft", "rfft's inverse: a real signal of n points (default 2 (m - 1)) from its first half.")
hfft = _one_axis("hfft", "The real spectrum of a Hermitian-symmetric signal given by its first half.")
ihfft = _one_axis("ihfft", "hfft's inverse (conj of rfft).")
fftn = _many_axes("fftn", "fft over `axes` (default every axis), s: the lengths along them.")
ifftn = _many_axes("ifftn", "fftn's inverse.")
rfftn = _many_axes("rfftn", "rfft over the last of `axes`, fft over the others.")
irfftn = _many_axes("irfftn", "rfftn's inverse.")
fft2 = _many_axes("fft2", "fftn over the last two axes (NumPy's).", (-2, -1), "fftn")
ifft2 = _many_axes("ifft2", "fft2's inverse.", (-2, -1), "ifftn")
rfft2 = _many_axes("rfft2", "rfftn over the last two axes.", (-2, -1), "rfftn")
irfft2 = _many_axes("irfft2", "rfft2's inverse.", (-2, -1), "irfftn")


def _freq_dtype(dtype):
    d = _dt.float32 if dtype is None else _dt.as_dtype(dtype)
    if d not in _dt.FLOATING:
        raise TypeError(f"fftfreq: dtype must be a real floating dtype, got {d}")
    return d


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The sample frequencies of an n-point transform with spacing d: [0, 1, ..., -1] / (d n)."""
    return _cgrad._fft_fftfreq(_operator.index(n), float(d), _freq_dtype(dtype)._c, _api._dev(device))


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """fftfreq's non-negative n // 2 + 1 frequencies."""
    return _cgrad._fft_rfftfreq(_operator.index(n), float(d), _freq_dtype(dtype)._c, _api._dev(device))


def fftshift(x, /, *, axes=None):
    """The zero frequency moved to the middle of `axes` (default every axis)."""
    return _cgrad._fft_fftshift(_array(x), _ints(axes))


def ifftshift(x, /, *, axes=None):
    """fftshift's inverse."""
    return _cgrad._fft_ifftshift(_array(x), _ints(axes))
