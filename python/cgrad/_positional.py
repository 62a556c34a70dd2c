"""NumPy's positional arguments for the standard's functions (docs/python.md, "NumPy's positional
arguments"). The standard makes `axis`, `dtype`, `keepdims`, `k`... keyword-only; NumPy, JAX and
PyTorch take them by position too, so `cgrad.sum(x, 0)`, `cgrad.ones((2, 3), float64)` and
`cgrad.concat([a, b], 1)` raised TypeError before 2026-12-07. The namespace's functions are
wrapped here (the library's own calls use the unwrapped ones): the arguments past a function's
own positional ones are named in NumPy's order, NumPy's `out` is written (_array._to_out), and
`order` and `subok` (moot: cgrad arrays are values without subclasses) are taken and dropped."""
import functools
import inspect
import types

from ._array import Array, _to_out

# function: NumPy's parameters after the ones the standard's function takes by position, in order
TABLE = {
    "sum": ("axis", "dtype", "out", "keepdims", "initial"),
    "prod": ("axis", "dtype", "out", "keepdims", "initial"),
    "mean": ("axis", "dtype", "out", "keepdims"),
    "std": ("axis", "dtype", "out", "ddof", "keepdims"),
    "var": ("axis", "dtype", "out", "ddof", "keepdims"),
    "max": ("axis", "out", "keepdims", "initial"),
    "min": ("axis", "out", "keepdims", "initial"),
    "amax": ("axis", "out", "keepdims", "initial"),
    "amin": ("axis", "out", "keepdims", "initial"),
    "argmax": ("axis", "out"),
    "argmin": ("axis", "out"),
    "any": ("axis", "out", "keepdims"),
    "all": ("axis", "out", "keepdims"),
    "count_nonzero": ("axis",),
    "sort": ("axis", "kind", "order"),
    "argsort": ("axis", "kind", "order"),
    "concat": ("axis", "out"),
    "stack": ("axis", "out"),
    "take": ("axis", "out", "mode"),
    "take_along_axis": ("axis",),
    "cumsum": ("out",),
    "cumprod": ("out",),
    "clip": ("out",),
    "matmul": ("out",),
    "searchsorted": ("side", "sorter"),
    "repeat": ("axis",),
    "roll": ("axis",),
    "flip": ("axis",),
    "diff": ("n", "axis", "prepend", "append"),
    "linspace": ("endpoint", "retstep", "dtype", "axis"),
    "zeros": ("dtype", "order"),
    "ones": ("dtype", "order"),
    "empty": ("dtype", "order"),
    "full": ("dtype", "order"),
    "zeros_like": ("dtype", "order", "subok"),
    "ones_like": ("dtype", "order", "subok"),
    "empty_like": ("dtype", "order", "subok"),
    "full_like": ("dtype", "order", "subok"),
    "eye": ("k", "dtype", "order"),
    "tril": ("k",),
    "triu": ("k",),
}
_MOOT = {"order": ("C", "F", "A", "K", None), "subok": (True, False)}


def _moot(name, value, fn):
    if value not in _MOOT[name]:
        raise ValueError(f"{fn}: {name}={value!r} is not one of {_MOOT[name]}")


# The standard's names of array parameters (positional-only there): an argument in their place that
# is not an Array makes a function fail inside, with an AttributeError ("'list' object has no
# attribute 'ndim'") or a binding's TypeError naming a private function (`_linalg_det()`:
# incompatible function arguments). The wrappers turn those into a TypeError that says which
# argument is not an Array (since 2026-12-07).
_ARRAY_PARAMS = ("x", "x1", "x2", "a", "arrays")
_ANY_FIRST = ("from_dlpack",)  # its x is any DLPack producer


def _not_array(err, fn, args):
    """The TypeError for `err`, raised inside `fn` called with the array arguments `args` ((name,
    value) pairs), where one of them is not an Array; None where they all are (err stands)."""
    if not isinstance(err, AttributeError) and "incompatible function arguments" not in str(err):
        return None
    for name, v in args:
        many = name == "arrays" and isinstance(v, (list, tuple))
        for e in v if many else (v,):
            if not isinstance(e, Array):
                what = f"{name} must be cgrad Arrays, got a {type(e).__name__} among them" if many else \
                    f"{name} must be a cgrad Array, got {type(e).__name__}"
                return TypeError(f"{fn}: {what} (cgrad.asarray converts NumPy arrays, lists and scalars)")
    return None


def _wrap(fn, names):
    """fn with NumPy's parameters `names` after its own positional ones, and a clear TypeError for
    a positional-only array parameter given something else (_ARRAY_PARAMS). The wrapper is
    generated with an explicit signature: a *args/**kwargs one added 0.3 us to `cgrad.sum(x)`
    (1.2 us), this one 0.03 (timeit, 2026-12-07)."""
    params = inspect.signature(fn).parameters
    assert not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params.values()), fn.__name__
    own = [p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    rest = [p for p in params.values() if p.kind == p.KEYWORD_ONLY and p.name not in names]
    defaults = {p.name: p.default for p in params.values()}
    dropped = [n for n in names if n not in params]  # out, order, subok where fn has none

    def decl(name):
        return f"{name}=_d[{name!r}]" if name in defaults and defaults[name] is not inspect.Parameter.empty else \
            (name if name in defaults else f"{name}=None")

    head = [decl(p.name) for p in own]
    if own and own[-1].kind == inspect.Parameter.POSITIONAL_ONLY:
        head.append("/")
    head += [decl(n) for n in names]
    if rest:
        head += ["*"] + [decl(p.name) for p in rest]
    call = [p.name for p in own if p.kind == p.POSITIONAL_ONLY]
    call += [f"{p.name}={p.name}" for p in params.values() if p.kind != p.POSITIONAL_ONLY]
    body = "".join(f"    if {n} is not None: _moot({n!r}, {n}, {fn.__name__!r})\n" for n in dropped if n != "out")
    result = f"_fn({', '.join(call)})"
    if "out" in dropped:
        result = f"{result} if out is None else _to_out(out, {result}, {fn.__name__!r})"
    arrays = [p.name for p in own if p.kind == p.POSITIONAL_ONLY and p.name in _ARRAY_PARAMS]
    if arrays:
        pairs = "".join(f"({n!r}, {n}), " for n in arrays)
        body += (f"    try:\n        return {result}\n    except (AttributeError, TypeError) as _e:\n"
                 f"        _t = _not_array(_e, {fn.__name__!r}, ({pairs}))\n        if _t is None:\n"
                 f"            raise\n        raise _t from _e\n")
    else:
        body += f"    return {result}\n"
    src = f"def {fn.__name__}({', '.join(head)}):\n{body}"
    scope = {"_d": defaults, "_fn": fn, "_moot": _moot, "_to_out": _to_out, "_not_array": _not_array}
    exec(src, scope)  # noqa: S102 (the source is built from fn's own signature above)
    wrapper = functools.wraps(fn)(scope[fn.__name__])
    wrapper._positional = True
    _WRAPPERS[id(fn)] = wrapper  # (fn stays alive: the wrapper refers to it)
    return wrapper


_WRAPPERS = {}  # id of a wrapped function -> its wrapper: one per function, in every namespace


def apply(namespace, table=TABLE):
    """Wraps the functions of `table` in `namespace` (a module's globals: cgrad's, linalg's,
    fft's), and the other Python functions whose first parameter is a positional-only array
    (_ARRAY_PARAMS). A function already wrapped for another namespace takes that wrapper
    (`cgrad.linalg.vecdot is cgrad.vecdot`)."""
    for name in sorted(set(table) | {n for n in namespace if not n.startswith("_")}):
        fn = namespace.get(name)
        if not isinstance(fn, types.FunctionType) or getattr(fn, "_positional", False):
            continue
        if id(fn) in _WRAPPERS:
            namespace[name] = _WRAPPERS[id(fn)]
            continue
        if name in table:
            namespace[name] = _wrap(fn, table[name])
            continue
        params = list(inspect.signature(fn).parameters.values())
        if (params and params[0].kind == params[0].POSITIONAL_ONLY and params[0].name in _ARRAY_PARAMS
                and name not in _ANY_FIRST and all(p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)):
            namespace[name] = _wrap(fn, ())
