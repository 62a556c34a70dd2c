"""NumPy's `vectorize` and `frompyfunc` for cgrad arrays: a Python function of scalars applied to
every element (broadcast), or, with a generalized signature such as "(n),(n)->()", a function of
cgrad arrays applied to every core sub-array. Without a signature the arrays are evaluated and
NumPy's own vectorize runs the loop (its rules: scalars of the arrays' dtypes in, the output dtype
from `otypes` or from the first output), and the results come back as cgrad arrays. With a
signature the loop is cgrad's: the function gets lazy views of the arguments and the outputs are
stacked lazily, so the function may use cgrad's functions (which take arrays, not scalars). Like
NumPy's, these are for convenience, not speed: one Python call per element or sub-array."""
import functools as _functools
import re as _re

from . import _api
from . import _dtypes as _dt
from ._cgrad import Array as _Array
from ._numpy_index import ndindex as _ndindex

__all__ = ["vectorize", "frompyfunc"]

_NO_VALUE = object()
_DIMS = r"\((?:\w+(?:,\s*\w+)*)?\)"
_SIGNATURE = _re.compile(rf"^\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*->\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*$")


def _parse_signature(signature):
    """(input core dims, output core dims): lists of tuples of dimension names."""
    if not _SIGNATURE.match(signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    sides = signature.replace(" ", "").split("->")

    def dims(side):
        return [tuple(d for d in group.split(",") if d) for group in _re.findall(r"\(([^)]*)\)", side)]

    return dims(sides[0]), dims(sides[1])


def _device_of(values):
    return next((v.device for v in values if isinstance(v, _Array)), None)


def _to_cgrad(result, device):
    """A NumPy result as a cgrad array (a tuple of them for several outputs)."""
    if isinstance(result, tuple):
        return tuple(_to_cgrad(r, device) for r in result)
    if result.dtype.kind in "OUSV":  # objects (frompyfunc) or strings: NumPy's reading of the items
        import numpy as np

        result = np.array(result.tolist())
        if result.dtype.kind in "OUSV":
            raise TypeError(f"vectorize: the function returned {result.dtype} values; cgrad arrays hold "
                            "bool, integers, floats and complex numbers")
    return _api.asarray(result, device=device)


class vectorize:
    """`vectorize(pyfunc, otypes=None, doc=None, excluded=None, cache=False, signature=None)`, NumPy's
    (also as a decorator, with or without arguments). Arguments named in `excluded` (positions or
    keywords) are passed as they are."""

    def __init__(self, pyfunc=_NO_VALUE, otypes=None, doc=None, excluded=None, cache=False, signature=None):
        if isinstance(otypes, str):
            raise TypeError("vectorize: otypes as a string of type codes is NumPy's; give a list of dtypes")
        self.pyfunc, self.otypes, self.cache, self.signature = pyfunc, otypes, cache, signature
        self.excluded = set(excluded or ())
        self._core = _parse_signature(signature) if signature is not None else None
        if pyfunc is not _NO_VALUE:
            _functools.update_wrapper(self, pyfunc)
        self.__doc__ = doc if doc is not None else getattr(pyfunc, "__doc__", None)

    def __call__(self, *args, **kwargs):
        if self.pyfunc is _NO_VALUE:  # @vectorize(otypes=...) def f...: the decorator's second step
            return type(self)(args[0], self.otypes, self.__doc__, self.excluded, self.cache, self.signature)
        if self._core is not None:
            return self._call_core(args, kwargs)
        return self._call_numpy(args, kwargs)

    def _split(self, args, kwargs):
        """The vectorized arguments (positions and names) and a function of them alone."""
        pos = [i for i in range(len(args)) if i not in self.excluded]
        names = [k for k in kwargs if k not in self.excluded]

        def inner(*vals):
            a, kw = list(args), dict(kwargs)
            for i, v in zip(pos, vals[:len(pos)]):
                a[i] = v
            kw.update(zip(names, vals[len(pos):]))
            return self.pyfunc(*a, **kw)

        return [args[i] for i in pos] + [kwargs[k] for k in names], inner

    def _call_numpy(self, args, kwargs):
        import numpy as np

        values, inner = self._split(args, kwargs)
        host = [np.asarray(v) if isinstance(v, _Array) else v for v in values]
        otypes = None if self.otypes is None else [np.dtype(t.name if isinstance(t, _dt.dtype) else t)
                                                   for t in self.otypes]
        result = np.vectorize(inner, otypes=otypes, cache=self.cache)(*host)
        return _to_cgrad(result, _device_of(values))

    def _call_core(self, args, kwargs):
        """The generalized form: the loop dims of every argument broadcast, pyfunc called on each
        cell's core sub-arrays (lazy views), its outputs stacked."""
        values, inner = self._split(args, kwargs)
        ins, outs = self._core
        if len(values) != len(ins):
            raise TypeError(f"vectorize: wrong number of positional arguments: expected {len(ins)}, got {len(values)}")
        arrays = [v if isinstance(v, _Array) else _api.asarray(v) for v in values]
        sizes = {}
        for a, core in zip(arrays, ins):
            if a.ndim < len(core):
                raise ValueError(f"vectorize: an input has {a.ndim} dims, fewer than its core dims {core}")
            for name, n in zip(core, a.shape[a.ndim - len(core):]):
                if sizes.setdefault(name, n) != n:
                    raise ValueError(f"vectorize: inconsistent size for core dimension {name!r}: {n} vs {sizes[name]}")
        loop = _api.broadcast_shapes(*[tuple(a.shape[:a.ndim - len(c)]) for a, c in zip(arrays, ins)])
        arrays = [_api.broadcast_to(a, loop + tuple(a.shape[a.ndim - len(c):])) for a, c in zip(arrays, ins)]
        cells = [[] for _ in outs]
        for idx in _ndindex(loop):
            r = inner(*[a[idx] if idx else a for a in arrays])
            r = r if isinstance(r, tuple) else (r,)
            if len(r) != len(outs):
                raise ValueError(f"vectorize: the function returned {len(r)} outputs, the signature has {len(outs)}")
            for k, (v, core) in enumerate(zip(r, outs)):
                v = v if isinstance(v, _Array) else _api.asarray(v)
                if v.ndim != len(core):
                    raise ValueError(f"vectorize: output {k} has {v.ndim} dims, its core dims are {core}")
                for name, n in zip(core, v.shape):
                    if sizes.setdefault(name, n) != n:
                        raise ValueError(f"vectorize: inconsistent size for core dimension {name!r}")
                cells[k].append(v)
        results = tuple(self._assemble(c, loop, core, sizes, k) for k, (c, core) in enumerate(zip(cells, outs)))
        return results[0] if len(results) == 1 else results

    def _assemble(self, cells, loop, core, sizes, k):
        shape = loop + tuple(sizes.get(name) for name in core)
        if not cells:  # an empty loop: NumPy needs otypes and the output's core sizes
            if self.otypes is None or None in shape:
                raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set "
                                 "(and every output core dimension is an input's)")
            return _api.zeros(shape, dtype=self.otypes[k])
        out = _api.reshape(_api.stack(cells), shape)
        return out if self.otypes is None else out.astype(self.otypes[k])


class frompyfunc:
    """`frompyfunc(func, /, nin, nout, *, identity=None)`: NumPy's, a function of `nin` broadcast
    arguments with `nout` outputs (a tuple when more than one). NumPy's results are object arrays;
    cgrad has no object dtype, so the outputs are read as NumPy reads a list of them (Python ints
    int64, floats float64, ...) and returned as cgrad arrays."""

    def __init__(self, func, /, nin, nout, *, identity=None):
        if not callable(func):
            raise TypeError("function must be callable")
        if nin < 0 or nout < 1:
            raise ValueError(f"frompyfunc: nin must be >= 0 and nout >= 1, got {nin} and {nout}")
        self.func, self.nin, self.nout, self.identity = func, nin, nout, identity
        self.nargs = nin + nout
        self.__name__ = f"{getattr(func, '__name__', '?')} (vectorized)"

    def __call__(self, *args):
        import numpy as np

        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}: takes {self.nin} arguments, got {len(args)}")
        host = [np.asarray(v) if isinstance(v, _Array) else v for v in args]
        result = np.frompyfunc(self.func, self.nin, self.nout)(*host)
        if not isinstance(result, (tuple, np.ndarray)):  # scalars in, a scalar out
            result = np.array(result, dtype=object)
        elif isinstance(result, tuple):
            result = tuple(r if isinstance(r, np.ndarray) else np.array(r, dtype=object) for r in result)
        return _to_cgrad(result, _device_of(args))
