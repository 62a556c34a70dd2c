"""NumPy's positional arguments for the standard's functions (docs/python.md, "NumPy's positional
arguments"). The standard makes `axis`, `dtype`, `keepdims`, `k`... keyword-only; NumPy, JAX and
PyTorch take them by position too, so `cgrad.sum(x, 0)`, `cgrad.ones((2, 3), float64)` and
`cgrad.concat([a, b], 1)` raised TypeError before 2026-12-07. The namespace's functions are
wrapped here (the library's own calls use the unwrapped ones): the arguments past a function's
own positional ones are named in NumPy's order, NumPy's `out` is written (_array._to_out), and
`order` and `subok` (moot: cgrad arrays are values without subclasses) are taken and dropped."""
import functools
import inspect

from ._array import _to_out

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


def _wrap(fn, names):
    """fn with NumPy's parameters `names` after its own positional ones. The wrapper is generated
    with an explicit signature: a *args/**kwargs one added 0.3 us to `cgrad.sum(x)` (1.2 us), this
    one 0.03 (timeit, 2026-12-07)."""
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
    src = f"def {fn.__name__}({', '.join(head)}):\n{body}    return {result}\n"
    scope = {"_d": defaults, "_fn": fn, "_moot": _moot, "_to_out": _to_out}
    exec(src, scope)  # noqa: S102 (the source is built from fn's own signature above)
    return functools.wraps(fn)(scope[fn.__name__])


def apply(namespace):
    """Wraps the functions of TABLE in `namespace` (the cgrad module's globals)."""
    for name, names in TABLE.items():
        if name in namespace:
            namespace[name] = _wrap(namespace[name], names)
