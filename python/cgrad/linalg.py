"""cgrad.linalg: the Array API standard's linalg extension (2025.12), every function of it.

Two kinds (docs/linalg.md). The functions built from cgrad's own ops (`cross diagonal matmul
matrix_norm matrix_power matrix_transpose outer tensordot trace vecdot vector_norm`) compose
fused ops: they stay lazy, fuse with what surrounds them, have gradients and run on every device.
The decompositions (`cholesky det eigh eigvalsh inv qr slogdet solve svd svdvals`, NumPy's `eig
eigvals`, and
`matrix_rank pinv`, the norms 2, -2 and 'nuc' and negative matrix powers built on them) call the
C++ core's cgrad::linalg: each evaluates its input (a synchronisation point) and runs a host
routine in double precision; gradients flow through all but `qr` and `svd`."""
import collections as _collections
import math as _math
import builtins as _builtins
import operator as _operator

from . import _api
from . import _cgrad
from . import _dtypes as _dt

__all__ = ["cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul", "matrix_norm", "matrix_power",
           "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
           "trace", "vecdot", "vector_norm"]

# The main namespace's functions, which the extension repeats (the standard's aliases).
matmul = _api.matmul
matrix_transpose = _api.matrix_transpose
tensordot = _api.tensordot
vecdot = _api.vecdot

EighResult = _collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EigResult = _collections.namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
QRResult = _collections.namedtuple("QRResult", ["Q", "R"])
SlogdetResult = _collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = _collections.namedtuple("SVDResult", ["U", "S", "Vh"])


# ---- the decompositions: cgrad::linalg (C++), each evaluates its input ----
def cholesky(x, /, *, upper=False):
    return _cgrad._linalg_cholesky(x, _builtins.bool(upper))


def det(x, /):
    return _cgrad._linalg_det(x)


def _triangle(x, UPLO, fn):
    """NumPy's UPLO: "L" reads x's lower triangle (the core's routines do), "U" its upper one, which
    is the lower triangle of x^H."""
    if UPLO not in ("L", "U"):
        raise ValueError(f"linalg.{fn}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return x if UPLO == "L" else _cgrad.conj(x).mT


def eigh(x, /, UPLO="L"):
    return EighResult(*_cgrad._linalg_eigh(_triangle(x, UPLO, "eigh")))


def eigvalsh(x, /, UPLO="L"):
    return _cgrad._linalg_eigvalsh(_triangle(x, UPLO, "eigvalsh"))


def eig(x, /):
    """NumPy's (and PyTorch's) eig of general square matrices: EigResult(eigenvalues, eigenvectors),
    always complex (complex64 for float32 and complex64 input, else complex128), where NumPy gives
    real arrays when every eigenvalue is real (a dtype that depends on the values). Eigenvectors are
    the columns, of unit norm with the largest component real, as LAPACK's. Differentiable through
    the eigenvectors for losses that do not depend on their phases (PyTorch's rule)."""
    return EigResult(*_cgrad._linalg_eig(x))


def eigvals(x, /):
    """The eigenvalues of eig (the same dtype rule); differentiable."""
    return _cgrad._linalg_eigvals(x)


def inv(x, /):
    return _cgrad._linalg_inv(x)


def qr(x, /, mode="reduced"):
    """The standard's qr; `mode` by position too and NumPy's "r" (R alone), since 2026-12-07
    (NumPy's "raw", LAPACK's Householder vectors, raises)."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"linalg.qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    r = QRResult(*_cgrad._linalg_qr(x, mode == "complete"))
    return r.R if mode == "r" else r


def slogdet(x, /):
    return SlogdetResult(*_cgrad._linalg_slogdet(x))


def solve(x1, x2, /):
    return _cgrad._linalg_solve(x1, x2)


def svd(x, /, full_matrices=True, compute_uv=True, hermitian=False):
    """NumPy's compute_uv=False gives the singular values alone (svdvals); hermitian changes
    nothing (the SVD serves every matrix)."""
    if not compute_uv:
        return svdvals(x)
    return SVDResult(*_cgrad._linalg_svd(x, _builtins.bool(full_matrices)))


def svdvals(x, /):
    return _cgrad._linalg_svdvals(x)


def _cutoff(x, s, rtol):
    """The singular values of each matrix above rtol * the largest (rtol: the standard's default
    max(M, N) * eps, a float, or an array broadcasting against the stack): a bool array like s."""
    if rtol is None:
        rtol = _builtins.max(x.shape[-2], x.shape[-1]) * _dt.finfo(s.dtype).eps
    elif not isinstance(rtol, (int, float)):
        rtol = rtol._reshape(list(rtol.shape) + [1])  # one per matrix: against each row of s
    smax = _api.max(s, axis=-1, keepdims=True) if s.shape[-1] else s
    return s > smax * rtol


def matrix_rank(x, /, tol=None, hermitian=False, *, rtol=None):
    """The number of singular values above rtol times the largest (int64); NumPy's `tol` is an
    absolute threshold instead (a number, or one per matrix). `hermitian` changes nothing (the
    singular values are the same)."""
    _matrices(x, "matrix_rank")
    s = svdvals(x)
    if tol is not None:
        t = tol if isinstance(tol, (int, float)) else _api.asarray(tol)._reshape(list(_api.asarray(tol).shape) + [1])
        return _api.sum(s > t, axis=-1)
    return _api.sum(_cutoff(x, s, rtol), axis=-1)


def pinv(x, /, rcond=None, hermitian=False, *, rtol=None):
    """The Moore-Penrose pseudo-inverse: V diag(1/s) U^H over the singular values above rtol
    times the largest (the rest count as 0). `rcond` is NumPy's older name for rtol; `hermitian`
    changes nothing (the SVD serves every matrix)."""
    _matrices(x, "pinv")
    rtol = rcond if rtol is None else rtol
    u, s, vh = svd(x, full_matrices=False)
    keep = _cutoff(x, s, rtol)
    inv_s = _api.where(keep, 1.0 / _api.where(keep, s, 1.0), 0.0)
    v_scaled = _cgrad.conj(vh).mT * inv_s._reshape(list(inv_s.shape[:-1]) + [1, inv_s.shape[-1]])
    return v_scaled @ _cgrad.conj(u).mT


def _matrices(x, fn):
    if x.ndim < 2:
        raise _cgrad.InvalidArgumentError(f"linalg.{fn}: needs an array of 2 or more dims, got shape {tuple(x.shape)}")


def _floating(x, fn):
    if x.dtype not in _dt.FLOATING + _dt.COMPLEX:
        raise TypeError(f"linalg.{fn}: needs a floating-point array, got {x.dtype}")


def diagonal(x, /, *, offset=0):
    """The diagonal of each matrix (the last two dims) `offset` above (> 0) or below (< 0) the
    main one: a view (the matrix flattened, then read with a step of n + 1)."""
    _matrices(x, "diagonal")
    offset = _operator.index(offset)
    m, n = x.shape[-2], x.shape[-1]
    if offset >= 0:
        size, start = _builtins.max(0, _builtins.min(m, n - offset)), offset
    else:
        size, start = _builtins.max(0, _builtins.min(m + offset, n)), -offset * n
    flat = x._reshape(list(x.shape[:-2]) + [m * n])
    if size == 0:
        return flat[..., 0:0]
    return flat[..., start:start + (size - 1) * (n + 1) + 1:n + 1]


def trace(x, /, *, offset=0, dtype=None):
    """The sum of each matrix's diagonal `offset` (the dtype rules of `sum`)."""
    if x.dtype is _dt.bool:
        raise TypeError("linalg.trace: needs a numeric array, got bool")
    return _api.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def outer(x1, x2, /):
    """The outer product of two vectors: (n,) and (m,) give (n, m)."""
    if x1.ndim != 1 or x2.ndim != 1:
        raise _cgrad.InvalidArgumentError(f"linalg.outer: needs two 1-D arrays, got shapes {tuple(x1.shape)} "
                                          f"and {tuple(x2.shape)}")
    return x1._reshape([x1.shape[0], 1]) * x2._reshape([1, x2.shape[0]])


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along `axis` (negative, counted in the broadcast shape's
    dims; both arrays need size 3 there), broadcasting the other dims."""
    if x1.dtype is _dt.bool or x2.dtype is _dt.bool:
        raise TypeError("linalg.cross: needs numeric arrays, got bool")
    axis = _operator.index(axis)
    ndim = _builtins.min(x1.ndim, x2.ndim)
    if not -ndim <= axis < 0:
        raise _cgrad.InvalidArgumentError(f"linalg.cross: axis {axis} is not in [-{ndim}, -1] for shapes "
                                          f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise _cgrad.ShapeError(f"linalg.cross: axis {axis} has sizes {x1.shape[axis]} and {x2.shape[axis]}, "
                                "both must be 3")

    def part(x, i):
        key = [slice(None)] * x.ndim
        key[axis] = i
        return x[tuple(key)]

    a, b = [part(x1, i) for i in range(3)], [part(x2, i) for i in range(3)]
    return _api.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], axis=axis)


def matrix_power(x, n, /):
    """x @ x @ ... (n times) for square matrices, by repeated squaring; n = 0 gives the identity
    (batched like x), a negative n the power of the inverse."""
    _matrices(x, "matrix_power")
    if x.shape[-1] != x.shape[-2]:
        raise _cgrad.ShapeError(f"linalg.matrix_power: needs square matrices, got shape {tuple(x.shape)}")
    n = _operator.index(n)
    if n < 0:  # the inverse's power (inv evaluates x)
        x, n = inv(x), -n
    if n == 0:
        eye = _api.eye(x.shape[-1], dtype=x.dtype, device=x.device)
        return _api.broadcast_to(eye, tuple(x.shape))
    result, square = None, x
    while True:
        if n & 1:
            result = square if result is None else result @ square
        n >>= 1
        if not n:
            return result if result is not x else x._reshape(list(x.shape))  # n = 1: a new array
        square = square @ square


def _reduce_axes(x, axis):
    """`axis` of vector_norm as a tuple of axes in [0, ndim) (None: every axis)."""
    if axis is None:
        return tuple(range(x.ndim))
    return tuple(_api._axes_in(x, axis, "linalg.vector_norm"))


@_api._half_in_f32  # 16-bit sums of squares overflow: in f32, rounded once
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The p-norm of the elements along `axis` (all axes by default): ord 2 (the default), 1,
    inf (max |x|), -inf (min |x|), 0 (the number of nonzeros), any other real p
    (sum(|x|^p)^(1/p), computed scaled). The result is real (complex x gives its real dtype).
    Orders 1 and 2 are not scaled (NumPy, PyTorch and JAX do not scale them either): a float32
    2-norm overflows where |x| passes about 1.8e19."""
    _floating(x, "vector_norm")
    axes = _reduce_axes(x, axis)
    a = _cgrad.abs(x)  # real for complex x
    kw = {"axis": axes, "keepdims": keepdims}
    if ord == 2:
        return _cgrad.sqrt(_api.sum(a * a, **kw))
    if ord == 1:
        return _api.sum(a, **kw)
    if ord == float("inf"):
        return _api.max(a, **kw)
    if ord == -float("inf"):
        return _api.min(a, **kw)
    if ord == 0:
        return _api.sum(a != 0, **kw).astype(a.dtype)
    if isinstance(ord, str) or ord != ord:
        raise ValueError(f"linalg.vector_norm: ord must be a real number, got {ord!r}")
    p = float(ord)
    if any(x.shape[i] == 0 for i in axes):  # nothing to scale by: sum() is 0 (NumPy: 0, or inf for p < 0)
        return _api.sum(a**p, **kw) ** (1.0 / p)
    # |x|^p under- or overflows for a large |p| (0.01^37 is 0 in float32): scale by the largest
    # |x| (p > 0) or the smallest (p < 0), so every term is in [0, 1], as LAPACK's nrm2 does.
    # Where that scale is 0, inf or NaN, it is the norm itself.
    s = (_api.max if p > 0 else _api.min)(a, axis=axes, keepdims=True)
    ok = (s > 0) & (s < float("inf"))
    scale = _api.where(ok, s, 1.0)
    r = _api.where(ok, scale * _api.sum((a / scale) ** p, axis=axes, keepdims=True) ** (1.0 / p), s)
    return r if keepdims else r._reshape([d for i, d in enumerate(r.shape) if i not in axes])


@_api._half_in_f32
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The norm of each matrix (the last two dims): 'fro' (the default), 1 / -1 (the largest /
    smallest column sum of |x|), inf / -inf (the largest / smallest row sum), 2 / -2 (the
    largest / smallest singular value) and 'nuc' (their sum): these three evaluate x (svdvals)."""
    _matrices(x, "matrix_norm")
    _floating(x, "matrix_norm")
    a = _cgrad.abs(x)
    if ord == "fro":
        r = _cgrad.sqrt(_api.sum(a * a, axis=(-2, -1)))
    elif ord in (1, -1, float("inf"), -float("inf")) and not isinstance(ord, bool):
        sums = _api.sum(a, axis=-2 if abs(ord) == 1 else -1)  # column sums (1) or row sums (inf)
        r = (_api.max if ord > 0 else _api.min)(sums, axis=-1)
    elif ord in (2, -2, "nuc") and not isinstance(ord, bool):
        sv = svdvals(x)
        r = _api.sum(sv, axis=-1) if ord == "nuc" else (_api.max if ord == 2 else _api.min)(sv, axis=-1)
    else:
        raise ValueError(f"linalg.matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {ord!r}")
    return r._reshape(list(r.shape) + [1, 1]) if keepdims else r


# ---- NumPy's linalg functions beyond the standard ----
def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 (NumPy's name)
    """NumPy's norm: the 2-norm of the flattened x (no ord, no axis), a vector norm along one
    axis or of a 1-D x, a matrix norm over two axes or of a 2-D x."""
    if axis is None:
        if ord is None:
            r = vector_norm(_api.reshape(x, (-1,)), ord=2)
            return _api.reshape(r, (1,) * x.ndim) if keepdims else r
        axis = tuple(range(x.ndim))
        if x.ndim not in (1, 2):
            raise ValueError("linalg.norm: an order needs a 1-D or 2-D x, or an axis")
    if isinstance(axis, int) or len(axis) == 1:
        return vector_norm(x, axis=axis, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axis) != 2:
        raise ValueError("linalg.norm: axis takes one or two axes")
    a0, a1 = (_operator.index(a) % x.ndim for a in axis)
    y = _api.moveaxis(x, (a0, a1), (-2, -1))
    r = matrix_norm(y, keepdims=keepdims, ord="fro" if ord is None else ord)
    if keepdims:
        r = _api.moveaxis(r, (-2, -1), (a0, a1))
    return r


def multi_dot(arrays):
    """a @ b @ c @ ... in the order of fewest multiplications (NumPy's chain-order DP); a 1-D
    first (last) operand is a row (column) vector."""
    arrays = [_api._as_array_arg(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError("linalg.multi_dot: needs at least two arrays")
    first, last = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if first:
        arrays[0] = arrays[0]._reshape([1, arrays[0].shape[0]])
    if last:
        arrays[-1] = arrays[-1]._reshape([arrays[-1].shape[0], 1])
    dims = [a.shape[0] for a in arrays] + [arrays[-1].shape[1]]
    n = len(arrays)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def chain(i, j):
        return arrays[i] if i == j else chain(i, split[i][j]) @ chain(split[i][j] + 1, j)

    r = chain(0, n - 1)
    if first and last:
        return _api.reshape(r, ())
    if first:
        return r[0]
    return r[:, 0] if last else r


def cond(x, p=None):
    """The condition number: largest / smallest singular value, or norm(x, p) norm(inv(x), p)."""
    _matrices(x, "cond")
    if 0 in x.shape[-2:]:
        raise _cgrad.InvalidArgumentError(f"linalg.cond: not defined for empty matrices, got shape {tuple(x.shape)}")
    if p is None or p in (2, -2):
        s = svdvals(x)
        r = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
        zero = _cgrad.logical_and(s[..., 0] == 0, s[..., -1] == 0)
        return _api.where(zero, _math.inf, r)  # NumPy's rule: a zero matrix's 0 / 0 is inf (it was NaN)
    return matrix_norm(x, ord=p) * matrix_norm(inv(x), ord=p)


LstsqResult = _collections.namedtuple("LstsqResult", ["x", "residuals", "rank", "s"])


def lstsq(a, b, rcond=None):
    """The least-squares solution of a x = b (a: M x N) by the SVD, as NumPy's: (x, the residuals'
    squared norms per column (empty unless rank N < M), the rank, the singular values). rcond:
    singular values below rcond times the largest count as 0 (default: eps max(M, N))."""
    _matrices(a, "lstsq")
    if a.ndim != 2:
        raise ValueError("linalg.lstsq: a must be 2-D")
    m, n = a.shape
    vec = b.ndim == 1
    bm = b._reshape([m, 1]) if vec else b
    u, s, vh = svd(a, full_matrices=False)
    tol = (rcond if rcond is not None else _dt.finfo(s.dtype).eps * _builtins.max(m, n))
    keep = _cutoff(a, s, tol) if s.shape[-1] else s > 0
    inv_s = _api.where(keep, 1.0 / _api.where(keep, s, 1.0), 0.0)
    x = _cgrad.conj(vh).mT @ ((_cgrad.conj(u).mT @ bm) * inv_s._reshape([-1, 1]))
    rank = int(_api.sum(keep)) if s.shape[-1] else 0
    if rank == n and m > n:
        res = _api.sum(_cgrad.abs(bm - a @ x) ** 2, axis=0)
    else:
        res = _api.zeros((0,), dtype=s.dtype, device=a.device)
    return LstsqResult(x[:, 0] if vec else x, res, rank, s)


__all__ += ["cond", "lstsq", "multi_dot", "norm"]


# NumPy's error class for a failed decomposition: cgrad raises InvalidArgumentError (a ValueError,
# as LinAlgError is), so `except linalg.LinAlgError` catches a singular matrix as in NumPy.
LinAlgError = _cgrad.InvalidArgumentError


def _product(dims):
    p = 1
    for d in dims:
        p *= d
    return p


def tensorinv(a, ind=2):
    """NumPy's tensorinv: the inverse of `a` for tensordot over its first `ind` axes; the result's
    shape is a.shape[ind:] + a.shape[:ind] (the two products must be equal)."""
    ind = _operator.index(ind)
    if ind <= 0:
        raise ValueError("linalg.tensorinv: ind must be a positive integer")
    a = _api._as_array_arg(a)
    rows, cols = a.shape[:ind], a.shape[ind:]
    if _product(rows) != _product(cols):
        raise ValueError(f"linalg.tensorinv: the product of a.shape[:{ind}] must equal that of the rest, "
                         f"got {tuple(a.shape)}")
    return inv(_api.reshape(a, (_product(rows), -1)))._reshape(list(cols) + list(rows))


def tensorsolve(a, b, axes=None):
    """NumPy's tensorsolve: x with tensordot(a, x, axes=x.ndim) == b; `axes` of a are moved to the
    end first. a's trailing shape after b's dimensions is x's shape."""
    a, b = _api._as_array_arg(a), _api._as_array_arg(b)
    if axes is not None:
        moved = [_operator.index(k) % a.ndim for k in axes]
        a = _api.permute_dims(a, [k for k in range(a.ndim) if k not in moved] + moved)
    shape = a.shape[b.ndim:]
    n = _product(shape)
    if _product(a.shape) != n * n or _product(a.shape[:b.ndim]) != n:
        raise ValueError(f"linalg.tensorsolve: prod(a.shape[b.ndim:]) must equal prod(a.shape[:b.ndim]), got "
                         f"a {tuple(a.shape)} and b {tuple(b.shape)}")
    return solve(_api.reshape(a, (n, n)), _api.reshape(b, (n, 1)))._reshape(list(shape))


__all__ += ["LinAlgError", "tensorinv", "tensorsolve"]
