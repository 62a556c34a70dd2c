"""NumPy's functions beyond the Array API standard (python/cgrad/_numpy.py) against NumPy: values,
shapes and dtypes over arguments, errors, and gradients where the composition has them."""
import warnings

import numpy as np
import pytest

import cgrad as cg

rng = np.random.default_rng(21)


def arr(a):
    return cg.asarray(np.asarray(a))


def check(got, want, rtol=1e-12, atol=1e-12):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, rtol, atol)
        return
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


A = rng.standard_normal((3, 4))
B3 = rng.standard_normal((2, 3, 4))
V = rng.standard_normal(5)


@pytest.mark.parametrize("name,args,kwargs", [
    ("cumsum", (B3,), {}), ("cumsum", (B3,), {"axis": 1}), ("cumprod", (A,), {"axis": 0}), ("cumprod", (V,), {}),
    ("ravel", (B3,), {}), ("swapaxes", (B3, 0, 2), {}), ("identity", (3,), {"dtype": np.float64}),
    ("fliplr", (A,), {}), ("flipud", (B3,), {}), ("rot90", (A,), {}), ("rot90", (B3, 2), {}),
    ("rot90", (B3, 3, (0, 2)), {}), ("rot90", (B3, -1, (2, 1)), {}), ("diag", (V,), {}), ("diag", (V, 2), {}),
    ("diag", (V, -1), {}), ("diag", (A,), {}), ("diag", (A, 1), {}), ("diag", (A, -2), {}),
    ("outer", (V, A), {}), ("inner", (A, B3), {}), ("inner", (V, V), {}), ("dot", (A, A.T), {}), ("dot", (V, V), {}),
    ("dot", (B3, A.T), {}), ("dot", (B3, V[:4]), {}), ("dot", (A, rng.standard_normal((2, 4, 3))), {}),
    ("vdot", (A + 1j * A, A), {}), ("kron", (A, V), {}), ("kron", (np.eye(2), A), {}),
    ("ptp", (B3,), {}), ("ptp", (B3,), {"axis": 1}), ("average", (B3,), {"axis": 2}),
    ("average", (B3,), {"axis": 1, "weights": np.array([1.0, 2.0, 3.0])}), ("average", (A,), {"weights": np.abs(A)}),
    ("trapezoid", (B3,), {}), ("trapezoid", (B3,), {"dx": 0.5, "axis": 1}),
    ("trapezoid", (A,), {"x": np.array([0.0, 0.5, 2.0, 3.5])}), ("logsumexp", (B3,), {}),
    ("logsumexp", (B3,), {"axis": 1, "keepdims": True}), ("cov", (A,), {}), ("cov", (A,), {"rowvar": False}),
    ("cov", (V,), {}), ("cov", (A, A[::-1]), {}), ("cov", (A,), {"ddof": 0}), ("corrcoef", (A,), {}),
    ("corrcoef", (A + 1j * A[::-1],), {}), ("convolve", (V, A[0]), {}), ("convolve", (A[0], V, "same"), {}),
    ("convolve", (V, A[0][:3], "valid"), {}), ("convolve", (V, A[0][:2], "same"), {}),
])
def test_functions_match_numpy(name, args, kwargs):
    want = getattr(np, name) if name != "logsumexp" else (
        lambda a, axis=None, keepdims=False: np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdims)))
    got = getattr(cg, name)(*[arr(a) if isinstance(a, np.ndarray) else a for a in args], **kwargs)
    check(got, want(*args, **kwargs))


def test_stacking_and_splitting_match_numpy():
    a, b = rng.standard_normal(3), rng.standard_normal((2, 3))
    for f in ("vstack", "hstack", "dstack", "column_stack"):
        pairs = [(a, a), (b, b)] if f != "column_stack" else [(a, a), (b.T, a)]
        for p in pairs:
            check(getattr(cg, f)([arr(x) for x in p]), getattr(np, f)(p))
    for f in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for x in (np.float64(2.0), a, b, B3):
            check(getattr(cg, f)(arr(x)), getattr(np, f)(x))
        check(getattr(cg, f)(arr(a), arr(b)), getattr(np, f)(a, b))
    for args in ((7,), (3,), ([1, 4],), ([2, 2, 9],)):
        x = np.arange(10.0)
        check(cg.array_split(arr(x), *args), np.array_split(x, *args))
    check(cg.split(arr(B3), 2, axis=2), np.split(B3, 2, axis=2))
    with pytest.raises(ValueError, match="equal division"):
        cg.split(arr(np.arange(10.0)), 3)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
                                    "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull",
                                    "median_unbiased", "normal_unbiased"])  # NumPy's thirteen (five until 2026-12-07)
def test_quantiles_match_numpy(method):
    x = rng.standard_normal((4, 7, 5))
    for q in (0.0, 0.3, 0.5, 0.75, 1.0, np.array([0.1, 0.9]), np.array([[0.25], [0.5]])):
        for axis in (None, 0, 1, -1):
            for keepdims in (False, True):
                got = cg.quantile(arr(x), q if not isinstance(q, np.ndarray) else arr(q), axis=axis, method=method,
                                  keepdims=keepdims)
                check(got, np.quantile(x, q, axis=axis, method=method, keepdims=keepdims))
    check(cg.percentile(arr(x), 30, axis=1, method=method), np.percentile(x, 30, axis=1, method=method))
    # the dtypes: the discrete methods keep the data's (integers too), the others float (float64 for
    # integers), promoted with an array q's; small slices (n = 1, 2, 3) reach every bound
    for a in (rng.integers(-9, 9, (3, 5)).astype(np.int32), x[:2, :3].astype(np.float32), x[:, :2, :1], x[:1, :1]):
        for q in (0.3, np.array([0.0, 0.05, 0.5, 0.95, 1.0]), np.array([0.375], np.float32)):
            want = np.quantile(a, q, axis=-1, method=method)
            # (NumPy subtracts float32 neighbours in float32 before a float64 lerp: 1 ulp of float32; and
            # computes a float32 q's positions in float32, cgrad in float64: q = 0.375 is exact in both)
            single = np.float32 in (a.dtype, np.asarray(q).dtype)
            check(cg.quantile(arr(a), arr(q) if isinstance(q, np.ndarray) else q, axis=-1, method=method), want,
                  rtol=1e-6 if single else 1e-12, atol=1e-6 if single else 1e-12)
    check(cg.median(arr(x), axis=2), np.median(x, axis=2))
    check(cg.median(arr(np.arange(7))), 3.0)  # integers: float64, as NumPy
    assert cg.median(arr(np.arange(7))).dtype == cg.float64
    y = x.copy()
    y[1, 2, 3] = np.nan
    check(cg.median(arr(y), axis=2), np.median(y, axis=2))  # a NaN makes its slice NaN
    with pytest.raises(ValueError):
        cg.quantile(arr(x), 1.5)


def test_weighted_quantiles_match_numpy():
    # NumPy's weights of "inverted_cdf" (since 2026-12-07: TypeError), zero weights and ties among them
    for a in (rng.standard_normal((4, 6)), np.round(rng.standard_normal((3, 5)) * 2), rng.integers(-5, 5, (5, 4))):
        w = rng.random(a.shape)
        w[0, ::2] = w[1, 1] = 0  # zero weights, leading ones too, none a whole slice (NumPy raises there)
        for q in (0.0, 0.3, 1.0, np.array([0.1, 0.5, 0.9])):
            qc = arr(q) if isinstance(q, np.ndarray) else q
            for axis in (None, 0, -1):
                for kd in (False, True):
                    check(cg.quantile(arr(a), qc, axis=axis, method="inverted_cdf", weights=arr(w), keepdims=kd),
                          np.quantile(a, q, axis=axis, method="inverted_cdf", weights=w, keepdims=kd))
            check(cg.percentile(arr(a), qc * 100, axis=1, method="inverted_cdf", weights=arr(w[0])),
                  np.percentile(a, q * 100, axis=1, method="inverted_cdf", weights=w[0]))
    b = rng.standard_normal(7)
    b[[1, 4]] = np.nan
    wb = rng.random(7)
    check(cg.nanquantile(arr(b), 0.4, method="inverted_cdf", weights=arr(wb)),
          np.nanquantile(b, 0.4, method="inverted_cdf", weights=wb))
    assert np.isnan(float(cg.quantile(arr(b), 0.4, method="inverted_cdf", weights=arr(wb))))
    for bad in ({"method": "linear", "weights": arr(wb)}, {"method": "inverted_cdf", "weights": arr(-wb)},
                {"method": "inverted_cdf", "weights": arr(wb[:3])}, {"method": "inverted_cdf", "weights": arr(0 * wb)}):
        with pytest.raises(ValueError):
            cg.quantile(arr(b), 0.4, **bad)


def test_medians_of_infinities_and_empty_slices_match_numpys_median():
    """The lerp's inf - inf made the median of [-inf] NaN (NumPy's median: -inf); an empty slice's
    median is NaN (NumPy's, with a warning) where quantile raises."""
    inf = np.inf
    rows = [[-inf], [inf, inf], [-inf, 1.0, inf], [1.0, inf], [-inf, 1.0], [-inf, inf], [-inf, -inf, 2.0]]
    for v in rows:
        a = np.array(v)
        with np.errstate(invalid="ignore"):
            check(cg.median(arr(a)), np.median(a))
            check(cg.nanmedian(arr(a)), np.nanmedian(a))
    assert float(cg.quantile(arr(np.array([1.0, inf])), 0.25)) == inf
    assert float(cg.quantile(arr(np.array([-inf, 1.0])), 0.0)) == -inf
    check(cg.median(arr(np.zeros((3, 0))), axis=1), np.full(3, np.nan))
    assert np.isnan(float(cg.median(arr(np.zeros(0)))))
    with pytest.raises(ValueError):
        cg.quantile(arr(np.zeros(0)), 0.5)


def test_nan_functions_and_nan_to_num_match_numpy():
    x = rng.standard_normal((3, 4))
    x[0, 1] = x[2, 2] = np.nan
    x[1, :] = np.nan
    for f in ("nansum", "nanmean", "nanmax", "nanmin"):
        for axis in (None, 0, 1):
            with warnings.catch_warnings():  # NumPy warns of the all-NaN row
                warnings.simplefilter("ignore", RuntimeWarning)
                want = getattr(np, f)(x, axis=axis)
            check(getattr(cg, f)(arr(x), axis=axis), want)
    y = np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)
    check(cg.nan_to_num(arr(y)), np.nan_to_num(y))
    check(cg.nan_to_num(arr(y), nan=-1.0, posinf=9.0), np.nan_to_num(y, nan=-1.0, posinf=9.0))
    with np.errstate(invalid="ignore"):
        z = y + 1j * y[::-1]
    check(cg.nan_to_num(arr(z)), np.nan_to_num(z))
    check(cg.nan_to_num(arr(np.arange(3))), np.arange(3))


def test_counting_binning_and_interpolation_match_numpy():
    x = rng.integers(0, 7, size=20)
    check(cg.bincount(arr(x)), np.bincount(x))
    check(cg.bincount(arr(x), minlength=10), np.bincount(x, minlength=10))
    w = rng.standard_normal(20)
    check(cg.bincount(arr(x), weights=arr(w)), np.bincount(x, weights=w))
    with pytest.raises(ValueError):
        cg.bincount(arr(np.array([1, -1])))
    bins = np.array([-1.0, 0.0, 0.5, 2.0])
    v = np.array([-3.0, -1.0, 0.2, 0.5, 1.0, 2.0, 5.0])
    for right in (False, True):
        check(cg.digitize(arr(v), arr(bins), right=right), np.digitize(v, bins, right=right))
        check(cg.digitize(arr(v), arr(bins[::-1]), right=right), np.digitize(v, bins[::-1], right=right))
    xp, fp = np.array([0.0, 1.0, 2.5, 4.0]), np.array([1.0, -2.0, 0.5, 3.0])
    q = np.array([-1.0, 0.0, 0.3, 1.0, 2.0, 3.9, 4.0, 7.0])
    check(cg.interp(arr(q), arr(xp), arr(fp)), np.interp(q, xp, fp))
    check(cg.interp(arr(q), arr(xp), arr(fp), left=-9.0, right=9.0), np.interp(q, xp, fp, left=-9.0, right=9.0))
    check(cg.interp(arr(q), arr(xp[:1]), arr(fp[:1])), np.interp(q, xp[:1], fp[:1]))
    # period (since 2026-12-07): x and xp modulo it, xp unsorted, left/right ignored
    ang, vals = np.array([-180.0, 170.0, -170.0, 10.0, 0.0, 190.0]), np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    check(cg.interp(arr(np.linspace(-400, 400, 17)), arr(ang), arr(vals), period=360),
          np.interp(np.linspace(-400, 400, 17), ang, vals, period=360))
    check(cg.interp(arr(q), arr(xp), arr(fp), left=5.0, period=-2.5), np.interp(q, xp, fp, left=5.0, period=-2.5))
    with pytest.raises(ValueError):
        cg.interp(arr(q), arr(xp), arr(fp), period=0)
    data = rng.standard_normal(500)
    for kwargs in ({}, {"bins": 7}, {"bins": 5, "range": (-1.0, 1.0)}, {"bins": np.array([-2.0, -0.5, 0.0, 3.0])},
                   {"bins": 6, "weights": np.abs(data)}, {"bins": 4, "density": True}):
        got = cg.histogram(arr(data), **{k: arr(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()})
        check(got, np.histogram(data, **kwargs))
    edge = np.array([0.0, 0.1, 0.2, 0.3, 1.0])  # values on edges, the maximum in the last bin
    check(cg.histogram(arr(edge), bins=10), np.histogram(edge, bins=10))
    check(cg.histogram(arr(np.ones(4)), bins=3), np.histogram(np.ones(4), bins=3))


def test_histogram_edges_are_numpys_bit_for_bit():
    # integers on an edge: -9 + 5 * 1.6 is -1.0 in NumPy's linspace, -0.9999999999999996 in a
    # contracted kernel, which put -1 in the bin below NumPy's
    ints = np.array([3, -1, 7, 2, 0, 5, 5, -9], np.int32)
    f32 = (rng.integers(-20, 20, 300) * 0.1).astype(np.float32)
    f16 = (rng.integers(-20, 20, 300) * 0.25).astype(np.float16)
    for a in (ints, f32, f16, f32.astype(np.float64)):
        for kw in ({}, {"bins": 7}, {"bins": 13, "range": (-1.7, 1.3)}, {"bins": 3, "density": True}):
            kw2 = dict(kw, range=[kw["range"]] * 2) if "range" in kw else kw
            for got, want in ((cg.histogram(arr(a), **kw), np.histogram(a, **kw)),
                              (cg.histogramdd([arr(a), arr(a[::-1].copy())], **kw2),
                               np.histogramdd([a, a[::-1].copy()], **kw2))):
                h, edges = got
                edges = edges if isinstance(edges, list) else [edges]
                want_edges = want[1] if isinstance(want[1], list) else [want[1]]
                for e, w in zip(edges, want_edges):
                    assert np.asarray(e).dtype == w.dtype and np.array_equal(np.asarray(e), w), (a.dtype, kw)
                # (densities divide by the edges' differences, rounded to their dtype or not)
                np.testing.assert_allclose(np.asarray(h), want[0], rtol={np.float16: 1e-3, np.float32: 1e-6}.get(a.dtype.type, 1e-12))
    for a in (ints, f32, f16):  # edges given: returned as given
        e = np.array([-2, 0, 3])
        assert np.asarray(cg.histogram(arr(a), bins=arr(e))[1]).dtype == e.dtype
        assert np.asarray(cg.histogramdd([arr(a)], bins=[arr(e)])[1][0]).dtype == e.dtype


def test_histogram2d_and_histogramdd_match_numpy():
    x, y, w = rng.standard_normal(500), rng.standard_normal(500) * 2 + 1, rng.random(500)
    for kw in ({}, {"bins": 5}, {"bins": [3, 7]}, {"range": [[-1, 1], [0, 2]]}, {"density": True}, {"weights": w},
               {"bins": 4, "range": [[-1, 1], [0, 2]], "density": True, "weights": w}):
        ours = {k: arr(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        check(cg.histogram2d(arr(x), arr(y), **ours), np.histogram2d(x, y, **kw))
    edges = np.array([-3.0, -1.0, 0.0, 1.0, 3.0])
    check(cg.histogram2d(arr(x), arr(y), bins=arr(edges)), np.histogram2d(x, y, bins=edges))
    check(cg.histogram2d(arr(x), arr(y), bins=[arr(edges), 4]), np.histogram2d(x, y, bins=[edges, 4]))
    on_edges = np.array([0.0, 1.0, 1.0, 2.0, 3.0, 3.0])  # the last edge counts in the last bin
    check(cg.histogram2d(arr(on_edges), arr(on_edges), bins=3), np.histogram2d(on_edges, on_edges, bins=3))
    s = rng.standard_normal((300, 3))
    for kw in ({}, {"bins": (2, 3, 4)}, {"density": True}, {"range": [(-1, 1), (-2, 2), (0, 1)]}):
        check(cg.histogramdd(arr(s), **kw), np.histogramdd(s, **kw))
    check(cg.histogramdd([arr(x), arr(y)], bins=4), np.histogramdd([x, y], bins=4))
    assert cg.histogram2d(arr(x), arr(y))[0].dtype == cg.float64


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_matches_numpy(mode):
    x = rng.standard_normal((3, 4))
    for width in (1, (2, 3), ((1, 0), (3, 5)), ((0, 0), (7, 9)), 0):
        if mode == "reflect" or mode == "symmetric" or mode == "wrap" or mode == "edge" or mode == "constant":
            check(cg.pad(arr(x), width, mode=mode), np.pad(x, width, mode=mode))
    check(cg.pad(arr(x), 2, constant_values=7.5), np.pad(x, 2, constant_values=7.5))
    check(cg.pad(arr(x), ((1, 2), (2, 1)), constant_values=((1, 2), (3, 4))),
          np.pad(x, ((1, 2), (2, 1)), constant_values=((1, 2), (3, 4))))
    check(cg.pad(arr(np.arange(1.0, 2.0)), 3, mode=mode), np.pad(np.arange(1.0, 2.0), 3, mode=mode))
    with pytest.raises(ValueError):
        cg.pad(arr(x), -1)
    if mode in ("reflect", "symmetric"):  # reflect_type "odd" (since 2026-12-07: TypeError), pads past a period
        for a in (x, rng.integers(-9, 10, (2, 3)).astype(np.int32), np.arange(1.0, 2.0), np.array([3, -1])):
            for width in (1, (2, 3), 11) + ((((1, 0), (3, 5)), ((0, 0), (7, 9))) if a.ndim == 2 else ()):
                check(cg.pad(arr(a), width, mode=mode, reflect_type="odd"),
                      np.pad(a, width, mode=mode, reflect_type="odd"), rtol=1e-12, atol=1e-12)
        with pytest.raises(ValueError):
            cg.pad(arr(x), 1, mode=mode, reflect_type="other")


@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean", "median", "linear_ramp"])
def test_pad_statistics_and_ramps_match_numpy(mode):
    arrays = [rng.standard_normal((4, 5)), rng.integers(-9, 10, (4, 5)), rng.integers(0, 10, (2, 3, 4)).astype(np.int32),
              rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(3)]
    extras = [{}, {"stat_length": 2}, {"stat_length": ((1, 3),)}] if mode != "linear_ramp" else \
        [{}, {"end_values": (5, -3)}, {"end_values": 2.5}]
    for a in arrays:
        for kw in extras:
            for width in (2, (1, 3), ((0, 2),) * a.ndim):
                got, want = cg.pad(arr(a), width, mode=mode, **kw), np.pad(a, width, mode=mode, **kw)
                assert got.dtype == arr(want).dtype
                check(got, want, rtol=1e-6, atol=1e-6)
    if mode != "linear_ramp":  # a statistic of nothing: an error (NumPy pads with NaN or garbage)
        with pytest.raises(ValueError):
            cg.pad(arr(arrays[0]), 1, mode=mode, stat_length=0)
    assert cg.pad(arr(arrays[0]), 2, mode="empty").shape == (8, 9)
    assert cg.pad(cg.zeros((0, 2)), 1, mode="empty").shape == (2, 4)  # an empty axis too, as NumPy's


def test_creation_and_index_helpers_match_numpy():
    check(cg.logspace(0, 3, 4, dtype=cg.float64), np.logspace(0, 3, 4))
    check(cg.logspace(1, 2, 5, base=2.0, endpoint=False, dtype=cg.float64), np.logspace(1, 2, 5, base=2.0, endpoint=False))
    check(cg.geomspace(1, 1000, 4, dtype=cg.float64), np.geomspace(1, 1000, 4))
    check(cg.geomspace(-2, -32, 5, dtype=cg.float64), np.geomspace(-2, -32, 5))
    with pytest.raises(ValueError):
        cg.geomspace(0, 1)
    for n, k, m in ((4, 0, None), (4, 1, None), (3, -1, 5)):
        check(cg.tril_indices(n, k, m), np.tril_indices(n, k, m))
        check(cg.triu_indices(n, k, m), np.triu_indices(n, k, m))
    idx = np.array([0, 5, 11, 23])
    check(cg.unravel_index(arr(idx), (2, 3, 4)), np.unravel_index(idx, (2, 3, 4)))


def test_gradients_flow_through_the_compositions():
    x0 = rng.standard_normal((3, 4))
    x = arr(x0).requires_grad_()
    loss = (cg.sum(cg.pad(x, 1, mode="reflect") ** 2) + cg.logsumexp(x) + cg.sum(cg.diag(x) * 3.0)
            + cg.sum(cg.kron(x, arr(np.ones((2, 1))))) + cg.quantile(x, 0.3) + cg.sum(cg.convolve(x[0], x[1])))
    (g,) = cg.grad(loss, [x])
    eps, num = 1e-6, np.zeros_like(x0)

    def f(v):
        p = np.pad(v, 1, mode="reflect")
        return (np.sum(p ** 2) + np.log(np.sum(np.exp(v))) + np.sum(np.diag(v) * 3.0) + 2 * np.sum(v)
                + np.quantile(v, 0.3) + np.sum(np.convolve(v[0], v[1])))
    for i in np.ndindex(x0.shape):
        up, dn = x0.copy(), x0.copy()
        up[i] += eps
        dn[i] -= eps
        num[i] = (f(up) - f(dn)) / (2 * eps)
    np.testing.assert_allclose(np.asarray(g), num, rtol=1e-5, atol=1e-6)


def test_gradient_correlate_polynomials_and_selection_match_numpy():
    f = rng.standard_normal((5, 6))
    check(cg.gradient(arr(f)), np.gradient(f))
    check(cg.gradient(arr(f), 0.5, axis=1), np.gradient(f, 0.5, axis=1))
    check(cg.gradient(arr(f), 2.0, 0.5), np.gradient(f, 2.0, 0.5))
    check(cg.gradient(arr(f), edge_order=2), np.gradient(f, edge_order=2))
    xs = np.array([0.0, 0.3, 1.0, 1.2, 2.0, 3.5])
    check(cg.gradient(arr(f), arr(xs), axis=1), np.gradient(f, xs, axis=1))
    # coordinates with edge_order=2 (since 2026-12-07): NumPy's uneven one-sided weights
    check(cg.gradient(arr(f), arr(xs), axis=1, edge_order=2), np.gradient(f, xs, axis=1, edge_order=2))
    check(cg.gradient(arr(f), arr(xs[:5] ** 2), arr(xs), edge_order=2), np.gradient(f, xs[:5] ** 2, xs, edge_order=2))
    a, v = rng.standard_normal(7), rng.standard_normal(3)
    for mode in ("valid", "same", "full"):
        check(cg.correlate(arr(a), arr(v), mode), np.correlate(a, v, mode))
        check(cg.correlate(arr(v), arr(a), mode), np.correlate(v, a, mode))
        check(cg.correlate(arr(a + 1j * a[::-1]), arr(v), mode), np.correlate(a + 1j * a[::-1], v, mode))
    x = np.linspace(-1, 2, 11)
    check(cg.polyval(arr(np.array([2.0, -1.0, 0.5])), arr(x)), np.polyval([2.0, -1.0, 0.5], x))
    y = 0.5 * x ** 3 - x + 2 + 0.01 * rng.standard_normal(11)
    check(cg.polyfit(arr(x), arr(y), 3), np.polyfit(x, y, 3), rtol=1e-9, atol=1e-9)
    for coeffs in ([1.0, -6.0, 11.0, -6.0], [0.0, 0.0, 2.0, 0.0, 8.0, 0.0, 0.0], [1.0, 0.0, 1.0], [3.0], [0.0, 0.0],
                   [1 + 1j, 2.0, -1j]):
        got, want = np.asarray(cg.roots(arr(np.array(coeffs)))), np.roots(coeffs)
        assert got.dtype.kind == "c" and got.shape == want.shape, coeffs
        np.testing.assert_allclose(np.sort_complex(np.round(got, 9)), np.sort_complex(np.round(want, 9)), atol=1e-9)
    p = rng.standard_normal((4, 9))
    check(cg.partition(arr(p), 3), np.sort(p))  # a full sort is a valid partition
    check(cg.argpartition(arr(p), 3, axis=0), np.argsort(p, axis=0, kind="stable"))
    k1, k2 = rng.integers(0, 3, 12), rng.integers(0, 3, 12)
    check(cg.lexsort((arr(k1), arr(k2))), np.lexsort((k1, k2)))
    c = rng.standard_normal(8)
    check(cg.select([arr(c < -0.5), arr(c > 0.5)], [arr(c * 10), arr(c * 100)], default=-1.0),
          np.select([c < -0.5, c > 0.5], [c * 10, c * 100], default=-1.0))
    u, w = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    check(cg.cross(arr(u), arr(w)), np.cross(u, w))
    with pytest.raises(ValueError):
        cg.cross(arr(u[:, :2]), arr(w[:, :2]))
    check(cg.cross(arr(u.T), arr(w.T), axis=0), np.cross(u.T, w.T, axis=0))


def test_numpy_linalg_extras_match_numpy():
    a = rng.standard_normal((6, 3))
    for b in (rng.standard_normal(6), rng.standard_normal((6, 2))):
        got, want = cg.linalg.lstsq(arr(a), arr(b)), np.linalg.lstsq(a, b, rcond=None)
        check(got.x, want[0])
        check(got.residuals, want[1])
        assert got.rank == want[2]
        check(got.s, want[3])
    low = a[:, [0, 1, 0]]  # rank 2: no residuals, NumPy's minimum-norm solution
    got, want = cg.linalg.lstsq(arr(low), arr(b)), np.linalg.lstsq(low, b, rcond=None)
    check(got.x, want[0], rtol=1e-9, atol=1e-9)
    assert got.rank == 2 and tuple(got.residuals.shape) == (0,)
    x = rng.standard_normal((3, 4, 5))
    for kwargs in ({}, {"ord": 1, "axis": 1}, {"axis": (0, 2)}, {"ord": "nuc", "axis": (2, 1)},
                   {"ord": np.inf, "axis": (0, 1), "keepdims": True}, {"axis": -1, "keepdims": True}):
        check(cg.linalg.norm(arr(x), **kwargs), np.linalg.norm(x, **kwargs))
    m = x[0]
    for o in (None, 1, -1, 2, -2, np.inf, "fro", "nuc"):
        check(cg.linalg.norm(arr(m), ord=o), np.linalg.norm(m, ord=o))
    check(cg.linalg.norm(arr(m[0]), ord=3), np.linalg.norm(m[0], ord=3))
    chain = [rng.standard_normal(s) for s in ((10,), (10, 3), (3, 40), (40, 2), (2,))]
    check(cg.linalg.multi_dot([arr(c) for c in chain]), np.linalg.multi_dot(chain))
    check(cg.linalg.multi_dot([arr(c) for c in chain[1:4]]), np.linalg.multi_dot(chain[1:4]))
    s = rng.standard_normal((2, 4, 4))
    for p in (None, 2, -2, 1, np.inf, "fro"):
        check(cg.linalg.cond(arr(s), p), np.linalg.cond(s, p), rtol=1e-9)


def test_sets_searching_and_editing_match_numpy():
    a = rng.integers(0, 10, size=(4, 5))
    b = np.array([3, 7, 7, 11, -1])
    check(cg.isin(arr(a), arr(b)), np.isin(a, b))
    check(cg.isin(arr(a), arr(b), invert=True), np.isin(a, b, invert=True))
    check(cg.isin(arr(a), arr(np.array([], np.int64))), np.isin(a, np.array([], np.int64)))
    f = np.array([1.5, np.nan, 2.0, -0.0])
    check(cg.isin(arr(f), arr(np.array([np.nan, 0.0, 2.0]))), np.isin(f, np.array([np.nan, 0.0, 2.0])))
    got = cg.unique(arr(a), return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    check(got, want)
    check(cg.unique(arr(a)), np.unique(a))
    # along an axis: distinct rows (slices), sorted lexicographically; empty and 3-D cases
    for m in (rng.integers(0, 3, (12, 3)), rng.integers(0, 2, (4, 10, 2)), np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 5.0]]),
              rng.integers(0, 3, (5, 0)), np.zeros((0, 3))):
        for ax in range(-m.ndim, m.ndim):
            check(cg.unique(arr(m), return_index=True, return_inverse=True, return_counts=True, axis=ax),
                  np.unique(m, return_index=True, return_inverse=True, return_counts=True, axis=ax))
    with pytest.raises(ValueError):
        cg.unique(arr(a), axis=2)
    check(cg.intersect1d(arr(a), arr(b)), np.intersect1d(a, b))
    check(cg.union1d(arr(a), arr(b)), np.union1d(a, b))
    check(cg.setdiff1d(arr(a), arr(b)), np.setdiff1d(a, b))
    # NaNs: one value with equal_nan (NumPy's default, and its set functions'), each distinct without
    g = np.array([[np.nan, 2.0, np.nan], [1.0, np.nan, 2.0]])
    for eq in (True, False):
        check(cg.unique(arr(g), return_index=True, return_inverse=True, return_counts=True, equal_nan=eq),
              np.unique(g, return_index=True, return_inverse=True, return_counts=True, equal_nan=eq))
    z = np.array([1 + 1j, complex(np.nan, 0), 1 + 1j, complex(0, np.nan)])
    check(cg.unique(arr(z), return_counts=True), np.unique(z, return_counts=True))
    h = np.array([np.nan, 3.0, np.nan])
    w = np.array([1 + 1j, 2.0, complex(np.nan, 1), 1 + 1j, 0j], np.complex64)  # complex: not through sort
    for fn in ("union1d", "setdiff1d", "intersect1d", "setxor1d"):
        check(getattr(cg, fn)(arr(g.ravel()), arr(h)), getattr(np, fn)(g.ravel(), h))
        check(getattr(cg, fn)(arr(z), arr(w)), getattr(np, fn)(z, w))
        check(getattr(cg, fn)(arr(w), arr(a.ravel()[:4].astype(np.float64))), getattr(np, fn)(w, a.ravel()[:4].astype(np.float64)))
    check(cg.isin(arr(z), arr(w)), np.isin(z, w))
    check(cg.isin(arr(w.reshape(5, 1)), arr(np.array([2.0, 0.0]))), np.isin(w.reshape(5, 1), np.array([2.0, 0.0])))
    check(cg.argwhere(arr(a > 6)), np.argwhere(a > 6))
    check(cg.flatnonzero(arr(a > 6)), np.flatnonzero(a > 6))
    assert cg.array_equal(arr(a), arr(a.copy())) and not cg.array_equal(arr(a), arr(a[:2]))
    assert cg.array_equal(arr(f), arr(f), equal_nan=True) and not cg.array_equal(arr(f), arr(f))
    check(cg.append(arr(a), arr(b)), np.append(a, b))
    check(cg.append(arr(a), arr(a[:1]), axis=0), np.append(a, a[:1], axis=0))
    for obj, axis in ((1, 0), ([0, -1], 1), (slice(1, 4, 2), 1), (3, None), ([], 0)):
        check(cg.delete(arr(a), obj, axis=axis), np.delete(a, obj, axis=axis))
    with pytest.raises(IndexError):
        cg.delete(arr(a), 9, axis=0)


def test_float16_and_float32_composites_round_once():
    # every finite float16 (and a float32 sample): the float64 result rounded once, as NumPy's
    # float16 loops give (a float16 constant put deg2rad a unit off on 12170 values, until 2026-12-07)
    h = np.arange(65536, dtype=np.uint16).view(np.float16)
    h = h[np.isfinite(h)]
    f = (rng.standard_normal(100000) * 100).astype(np.float32)
    for name in ("deg2rad", "rad2deg"):
        for v in (h, f):
            got = np.asarray(getattr(cg, name)(arr(v)))
            with np.errstate(over="ignore"):
                np.testing.assert_array_equal(got, getattr(np, name)(v.astype(np.float64)).astype(v.dtype), err_msg=name)
    for name, args in (("sinc", (h[np.abs(h) < 100],)), ("i0", (h[np.abs(h) < 10],)),
                       ("logaddexp2", (h, h[rng.permutation(len(h))]))):
        got = np.asarray(getattr(cg, name)(*(arr(a) for a in args)))
        want = getattr(np, name)(*(a.astype(np.float64) for a in args)).astype(np.float16)
        assert got.dtype == np.float16
        assert np.count_nonzero(got != want) <= len(want) // 5000, name  # float32's near-ties only
    # sinc near its zeros, to its dtype's relative accuracy (sin of a rounded pi x was off in the
    # ninth digit in float64: NumPy's is); integers past 2^53 give 0
    x = np.array([1000.5, 3 + 2.0**-30, -7 - 2.0**-40, 2.0**60, 0.25])
    eps = np.array([0, 2.0**-30, 2.0**-40])  # sin(pi (k + e)) = (-1)^k sin(pi e), sin(pi e) ~ pi e
    want = np.array([1 / 1000.5, *(-(np.pi * eps[1:] - (np.pi * eps[1:]) ** 3 / 6) / np.abs(x[1:3])), 0,
                     np.sin(np.pi / 4)]) / np.array([np.pi, np.pi, np.pi, 1, np.pi / 4])
    np.testing.assert_allclose(np.asarray(cg.sinc(arr(x))), want, rtol=2e-15)
    v = np.array([0.3, 1.7, -2.2, 5.0, 4.0, -3.0, 0.5, -1.5])  # the derivative at the integers too
    xv = arr(v)
    xv.requires_grad = True
    (g,) = cg.grad(cg.sum(cg.sinc(xv)), [xv])
    np.testing.assert_allclose(np.asarray(g), (np.cos(np.pi * v) - np.sinc(v)) / v, rtol=1e-14, atol=1e-15)


def test_exp2_of_complex_infinities_matches_numpy():
    z = np.array([complex(np.inf, 0), complex(np.inf, 1), complex(-np.inf, 2), complex(3, 0.5), complex(0, -1)])
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(np.asarray(cg.exp2(arr(z))), np.exp2(z))  # inf + 0j, not inf + nanj


def test_numpy_names_of_standard_functions_match_numpy():
    x = rng.standard_normal((3, 4))
    y = rng.standard_normal((3, 4))
    u = rng.uniform(-0.9, 0.9, (3, 4))
    for name in ("absolute", "arctan", "arcsinh", "rint", "fix", "deg2rad", "rad2deg", "radians", "degrees", "sinc",
                 "cbrt", "exp2", "conjugate", "amax", "amin", "transpose"):
        check(getattr(cg, name)(arr(x)), getattr(np, name)(x), rtol=4e-16, atol=1e-15)
    for name in ("arccos", "arcsin", "arctanh"):
        check(getattr(cg, name)(arr(u)), getattr(np, name)(u), rtol=1e-15, atol=1e-15)
    check(cg.arccosh(arr(np.abs(x) + 1)), np.arccosh(np.abs(x) + 1), rtol=1e-15)
    for name in ("power", "true_divide", "mod", "logaddexp2", "fmax", "fmin", "float_power", "divmod"):
        a, b = (np.abs(x) + 0.1, y) if name in ("power", "float_power") else (x, y)
        check(getattr(cg, name)(arr(a), arr(b)), getattr(np, name)(a, b), rtol=1e-14, atol=1e-15)
    n = np.array([np.nan, 1.0, np.nan, -np.inf])
    m = np.array([2.0, np.nan, np.nan, -np.inf])
    check(cg.fmax(arr(n), arr(m)), np.fmax(n, m))
    with np.errstate(invalid="ignore"):
        check(cg.logaddexp2(arr(m), arr(m)), np.logaddexp2(m, m))
    check(cg.heaviside(arr(np.array([-1.0, 0.0, 2.0, np.nan])), 0.5), np.heaviside(np.array([-1.0, 0.0, 2.0, np.nan]), 0.5))
    check(cg.cbrt(arr(np.array([27.0, -8.0, 0.0, 1e-300, np.inf]))), np.cbrt(np.array([27.0, -8.0, 0.0, 1e-300, np.inf])))
    for d in (0, 1, 2, -1):
        check(cg.around(arr(x * 100), d), np.around(x * 100, d))
    check(cg.around(arr(np.array([15, 25, -35])), -1), np.around(np.array([15, 25, -35]), -1))
    check(cg.invert(arr(np.arange(4))), np.invert(np.arange(4)))
    check(cg.left_shift(arr(np.arange(4)), 2), np.left_shift(np.arange(4), 2))
    check(cg.concatenate([arr(x), arr(y)], axis=1), np.concatenate([x, y], axis=1))
    check(cg.concatenate([arr(x), arr(y)], axis=None), np.concatenate([x, y], axis=None))
    check(cg.transpose(arr(B3), (1, 0, 2)), np.transpose(B3, (1, 0, 2)))
    check(cg.std(arr(x), ddof=1, axis=0), np.std(x, ddof=1, axis=0))
    check(cg.var(arr(x), ddof=1), np.var(x, ddof=1))


def test_ndarray_methods_match_numpy():
    a = rng.standard_normal((2, 3, 4))
    x = arr(a)
    for name, args, kwargs in [("transpose", (), {}), ("transpose", (1, 0, 2), {}), ("transpose", ((2, 0, 1),), {}),
                               ("flatten", (), {}), ("ravel", (), {}), ("copy", (), {}), ("argmax", (), {"axis": 1}),
                               ("argmin", (), {}), ("cumsum", (), {}), ("cumsum", (), {"axis": 2}),
                               ("cumprod", (), {"axis": 0}), ("std", (), {"ddof": 1}), ("var", (), {"axis": 1}),
                               ("prod", (), {"axis": 2}), ("any", (), {"axis": 0}), ("all", (), {}),
                               ("clip", (-0.5, 0.5), {}), ("round", (2,), {}), ("squeeze", (), {}),
                               ("conj", (), {}), ("argsort", (), {"axis": 1}), ("swapaxes", (0, 2), {}),
                               ("repeat", (2,), {"axis": 1}), ("take", (np.array([0, 5, 7]),), {}),
                               ("take", (np.array([2, 0]),), {"axis": 2}), ("diagonal", (), {}),
                               ("diagonal", (1,), {"axis1": 1, "axis2": 2}), ("trace", (), {}),
                               ("trace", (-1, 2, 1), {})]:
        got = getattr(x, name)(*[arr(v) if isinstance(v, np.ndarray) and name != "take" else v for v in args], **kwargs)
        want = getattr(a, name)(*args, **kwargs)
        if name == "argsort":
            want = np.argsort(a, axis=1, kind="stable")
        check(got, want)
    check(x.dot(arr(a[0].T)), a.dot(a[0].T))
    check(x[0].dot(arr(a[0, 0])), a[0].dot(a[0, 0]))
    assert x.itemsize == 8 and x.nbytes == a.nbytes
    check(x.nonzero(), (a > 10).nonzero() if False else a.nonzero())
    z = arr(a + 1j * a[::-1])
    check(z.real, (a + 1j * a[::-1]).real)
    check(z.imag, (a + 1j * a[::-1]).imag)
    check(arr(np.ones((1, 3, 1))).squeeze(), np.ones((1, 3, 1)).squeeze())
    s = arr(a.copy())
    h = s  # the same array: sort() and fill() work in place, as NumPy's
    s.sort(axis=1)
    check(h, np.sort(a, axis=1))
    s.fill(2.5)
    check(h, np.full_like(a, 2.5))
    c = x.copy()
    c[...] = 0
    check(x, a)  # copy() is a new array


def test_index_helpers_and_constructors_match_numpy():
    check(cg.indices((2, 3)), np.indices((2, 3)))
    check(cg.indices((2, 3, 4), sparse=True), np.indices((2, 3, 4), sparse=True))
    a = rng.standard_normal((4, 5))
    rows, cols = cg.ix_(arr(np.array([0, 3])), arr(np.array([True, False, True, False, True])))
    check(arr(a)[rows, cols], a[np.ix_(np.array([0, 3]), np.array([True, False, True, False, True]))])
    mi = (np.array([0, 1, 2]), np.array([3, 0, 4]))
    check(cg.ravel_multi_index(tuple(arr(m) for m in mi), (3, 5)), np.ravel_multi_index(mi, (3, 5)))
    x = np.array([1.0, 2.0, 3.0, -0.5])
    check(cg.vander(arr(x)), np.vander(x))
    check(cg.vander(arr(x), 3, increasing=True), np.vander(x, 3, increasing=True))
    check(cg.tri(3, 5, k=1, dtype=cg.float64), np.tri(3, 5, k=1))
    b = np.arange(12.0).reshape(3, 4)
    for obj, values, axis in ((1, 9.0, 0), (2, np.array([7.0, 8.0, 9.0]), 1), (-1, 5.0, None), ([0, 2], 7.0, 1),
                              ([3, 0, 3], np.array([1.0, 2.0, 3.0]), None), ([1], np.array([[5.0, 6.0, 7.0, 8.0]]), 0),
                              (4, np.array([1.0, 2.0, 3.0]), 1)):
        check(cg.insert(arr(b), obj, arr(values) if isinstance(values, np.ndarray) else values, axis=axis),
              np.insert(b, obj, values, axis=axis))
    with pytest.raises(IndexError):
        cg.insert(arr(b), 9, 1.0, axis=0)


def test_statistics_of_integers_bools_and_complex_as_numpy():
    # NumPy's mean, var and std of integers and bools (float64) and var/std of complex values (the
    # mean squared modulus of the deviations, real): the core takes floats only (since 2026-12-07:
    # DTypeError before), as the functions and as the methods
    i = rng.integers(-9, 10, (3, 5)).astype(np.int16)
    c = rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))
    for a in (i, i > 0, c, c.astype(np.complex64), np.iinfo(np.int64).max - np.arange(4)):
        for f in ("mean", "var", "std"):
            for kw in ({}, {"axis": 0}, {"axis": -1, "keepdims": True}):
                extra = {"ddof": 1} if f != "mean" else {}
                want = getattr(np, f)(a, **kw, **extra)
                rtol = 1e-5 if a.dtype == np.complex64 else 1e-12
                check(getattr(cg, f)(arr(a), **kw, **extra), want, rtol=rtol, atol=rtol)
                check(getattr(arr(a), f)(**kw, **extra), want, rtol=rtol, atol=rtol)
    z = arr(np.full((2, 3), 1 + 2j)).requires_grad_()  # constant complex data: std's gradient 0
    (g,) = cg.grad(cg.sum(cg.std(z, axis=1)), [z])
    check(g, np.zeros((2, 3), complex))


def test_numpys_keywords_of_reductions_sorts_and_creation():
    # NumPy keywords the standard's signatures lacked (since 2026-12-07: TypeError before)
    x = np.array([[3.0, 1.0, 2.0], [5.0, 4.0, np.nan]])
    e = np.zeros((0, 3))
    for f in ("sum", "prod", "max", "min"):
        for a, kw in ((x, {"axis": 1}), (x, {}), (e, {"axis": 0}), (e, {}), (x, {"axis": 0, "keepdims": True})):
            check(getattr(cg, f)(arr(a), initial=4.0, **kw), getattr(np, f)(a, initial=4.0, **kw))
    check(cg.amax(arr(e), axis=0, initial=-1.0), np.amax(e, axis=0, initial=-1.0))
    for f in ("sum", "prod", "max", "min"):  # the methods NumPy's functions call take it too
        check(getattr(arr(x), f)(axis=1, initial=4.0), getattr(x, f)(axis=1, initial=4.0))
        check(getattr(np, f)(arr(x), axis=0), getattr(np, f)(x, axis=0))
    check(arr(x).argsort(kind="stable"), x.argsort(kind="stable"))
    check(arr(x).var(dtype=cg.float32), x.var(dtype=np.float32), rtol=1e-6)
    for kind in ("quicksort", "mergesort", "heapsort", "stable"):
        check(cg.argsort(arr(x), kind=kind), np.argsort(x, kind="stable"))
        check(cg.sort(arr(x), axis=0, kind=kind), np.sort(x, axis=0, kind=kind))
    with pytest.raises(ValueError):
        cg.sort(arr(x), kind="bogo")
    for args in ((0.0, 1.0, 5), (2.0, -1.0, 4, False), (0.0, 1.0, 1)):
        got, step = cg.linspace(*args[:3], endpoint=args[3] if len(args) > 3 else True, retstep=True)
        want, wstep = np.linspace(*args[:3], endpoint=args[3] if len(args) > 3 else True, retstep=True)
        check(got, want.astype(np.float32))
        assert step == wstep or (np.isnan(step) and np.isnan(wstep))
    for ij in ("xy", "ij"):
        got = cg.meshgrid(cg.arange(3), cg.arange(4), cg.arange(2), sparse=True, indexing=ij)
        want = np.meshgrid(np.arange(3), np.arange(4), np.arange(2), sparse=True, indexing=ij)
        for g, w in zip(got, want):
            check(g, w)
    i = np.array([[1, 2], [3, 4]], np.int32)
    for f in ("mean", "var", "std"):
        check(getattr(cg, f)(arr(i), dtype=cg.float32, axis=0), getattr(np, f)(i, dtype=np.float32, axis=0))
    check(cg.nanmean(arr(x), dtype=cg.float32, axis=1), np.nanmean(x, dtype=np.float32, axis=1))
    check(cg.nansum(arr(i), dtype=cg.int8), np.nansum(i, dtype=np.int8))
    check(cg.linalg.svd(arr(x[:, :2]), compute_uv=False), np.linalg.svd(x[:, :2], compute_uv=False))
    check(cg.setdiff1d(arr(np.array([5, 1, 3, 2])), arr(np.array([3])), assume_unique=True),
          np.setdiff1d([5, 1, 3, 2], [3], assume_unique=True))
    check(cg.isin(arr(np.array([1, 2, 3])), arr(np.array([2])), True, True), np.isin([1, 2, 3], [2], True, True))
    check(cg.intersect1d(arr(np.array([1, 4, 2])), arr(np.array([2, 1])), assume_unique=True),
          np.intersect1d([1, 4, 2], [2, 1], assume_unique=True))


def test_cov_weights_and_polyfit_options_as_numpy():
    # cov's fweights/aweights/dtype and polyfit's w/rcond/full/cov (since 2026-12-07)
    x = rng.standard_normal((3, 9))
    f, a = rng.integers(0, 4, 9), rng.random(9)
    for kw in ({"fweights": f}, {"aweights": a}, {"fweights": f, "aweights": a}, {"aweights": a, "ddof": 0},
               {"aweights": a, "bias": True}, {"fweights": f, "ddof": 2}):
        ours = {k: arr(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        check(cg.cov(arr(x), **ours), np.cov(x, **kw))
        check(cg.cov(arr(x + 1j * x[::-1]), **ours), np.cov(x + 1j * x[::-1], **kw))
    check(cg.cov(arr(x), dtype=cg.float32), np.cov(x, dtype=np.float32), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError):
        cg.cov(arr(x), aweights=arr(-a))
    with pytest.raises(TypeError):
        cg.cov(arr(x), fweights=arr(a))
    t = np.linspace(-1, 2, 12)
    y = np.stack([t ** 2 - t + 0.1 * rng.standard_normal(12), 2 * t + 0.1 * rng.standard_normal(12)], axis=1)
    w = rng.random(12) + 0.5
    for yy in (y[:, 0], y):
        check(cg.polyfit(arr(t), arr(yy), 2, w=arr(w)), np.polyfit(t, yy, 2, w=w), rtol=1e-9, atol=1e-9)
        check(cg.polyfit(arr(t), arr(yy), 2, rcond=1e-3), np.polyfit(t, yy, 2, rcond=1e-3), rtol=1e-9, atol=1e-9)
        for c in (True, "unscaled"):
            check(cg.polyfit(arr(t), arr(yy), 2, cov=c), np.polyfit(t, yy, 2, cov=c), rtol=1e-9, atol=1e-9)
        got, want = cg.polyfit(arr(t), arr(yy), 2, full=True), np.polyfit(t, yy, 2, full=True)
        for g, e in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), e, rtol=1e-9, atol=1e-9)


def test_joining_functions_take_numpys_dtype_and_casting():
    a, b = np.arange(3), np.arange(3.0)
    for f in ("concatenate", "concat", "stack", "hstack", "vstack"):
        nf = np.concatenate if f == "concat" else getattr(np, f)
        for d, casting in ((np.float32, "same_kind"), (np.int32, "unsafe"), (np.float64, "safe")):
            check(getattr(cg, f)([arr(a), arr(b)], dtype=d, casting=casting), nf([a, b], dtype=d, casting=casting))
        for d, casting in ((np.int32, "same_kind"), (np.float32, "safe")):  # refused, as NumPy's
            with pytest.raises(TypeError):
                getattr(cg, f)([arr(a), arr(b)], dtype=d, casting=casting)
    # NumPy's casting table (complex to real excepted: cgrad's astype refuses that cast)
    names = ["bool", "int8", "uint8", "int16", "uint32", "int64", "uint64", "float16", "float32", "float64",
             "complex64"]
    for f in names:
        for t in names:
            for casting in ("no", "safe", "same_kind", "unsafe"):
                if casting == "unsafe" and f.startswith("complex") and not t.startswith("complex"):
                    continue
                try:
                    cg.concat([cg.zeros(2, dtype=f)], dtype=t, casting=casting)
                    ok = True
                except TypeError:
                    ok = False
                assert ok == np.can_cast(f, t, casting), (f, t, casting)


def test_numpys_keywords_found_by_a_keyword_scan():
    # each raised or differed before 2026-12-07 (a scan of NumPy's keywords with random values)
    f = rng.standard_normal(6)
    x = arr(f)
    for kw in ({"ddof": 0, "correction": 1}, {"ddof": 2}, {"correction": 1}):  # correction was dropped
        for fn in ("var", "std", "nanvar", "nanstd"):
            check(getattr(cg, fn)(x, **kw), getattr(np, fn)(f, **kw))
        check(x.var(**kw), np.var(f, **kw))
    with pytest.raises(ValueError, match="simultaneously"):
        cg.var(x, ddof=1, correction=1)
    check(cg.diff(x, n=0, prepend=0.0, append=1.0), np.diff(f, n=0, prepend=0.0, append=1.0))  # x as it is
    check(cg.round(x, 2), np.round(f, 2))
    check(cg.round(arr([1 + 2.55j, 0.25 - 1.35j]), 1), np.round([1 + 2.55j, 0.25 - 1.35j], 1))
    b = rng.standard_normal((2, 3, 4))
    b[0, 1, 2] = np.nan
    for axis in ((0, 2), (1, 2), (-1, 0, 1), (0,), 1):
        for keepdims in (False, True):
            check(cg.median(arr(b), axis=axis, keepdims=keepdims), np.median(b, axis=axis, keepdims=keepdims))
            check(cg.nanmedian(arr(b), axis=axis, keepdims=keepdims), np.nanmedian(b, axis=axis, keepdims=keepdims))
            check(cg.quantile(arr(b), [0.2, 0.7], axis=axis, keepdims=keepdims, method="hazen"),
                  np.quantile(b, [0.2, 0.7], axis=axis, keepdims=keepdims, method="hazen"))
    with pytest.raises(cg.InvalidArgumentError, match="out of range"):
        cg.median(arr(b), axis=3)  # wrapped to axis 0 before
    n = np.array([[np.nan, np.nan], [1.0, np.nan]])
    for fn, init in (("nanmax", -5.0), ("nanmin", 5.0), ("nansum", 3.0), ("nanprod", 2.0)):
        check(getattr(cg, fn)(arr(n), axis=1, initial=init), getattr(np, fn)(n, axis=1, initial=init))
    np.testing.assert_array_equal(np.asarray(cg.unique(arr([3, 1, 3]), sorted=False)), [1, 3])
    c = np.array([[0, 2], [3, 0]])
    for g, w in zip(cg.where(arr(c)), np.where(c)):
        np.testing.assert_array_equal(np.asarray(g), w)
    with pytest.raises(ValueError, match="both or neither"):
        cg.where(arr(c), 1)
    assert cg.squeeze(cg.ones((1, 3, 1))).shape == (3,) and cg.permute_dims(arr(b)).shape == (4, 3, 2)
    check(cg.column_stack(arr([1, 2, 3])), np.column_stack(np.array([1, 2, 3])))  # IndexError before
    for order in ("C", "F", "A"):
        for shape in ((4, 6), (3, 8), (2, 2, 6)):
            check(cg.reshape(arr(b), shape, order=order), np.reshape(b, shape, order=order))
            check(arr(b).reshape(*shape, order=order), b.reshape(*shape, order=order))
        check(cg.ravel(arr(b), order), np.ravel(b, order))
        check(arr(b).flatten(order), b.flatten(order))
    check(cg.bincount(arr([True, False, True])), np.bincount([True, False, True]))
    h = rng.standard_normal(9)
    check(cg.histogramdd(arr(h), bins=3), np.histogramdd(h, bins=3))  # 1-D: one dimension
    for sample in ([2, 2, 5], [[1.0, 2, 3], [4, 5, 6]]):  # a flat list was D 0-d columns
        check(cg.histogramdd(sample, bins=3), np.histogramdd(sample, bins=3))
    keys = [rng.integers(0, 3, (3, 5)) for _ in range(3)]
    for axis in (-1, 0, 1):
        check(cg.lexsort([arr(k) for k in keys], axis=axis), np.lexsort(keys, axis=axis))
    check(cg.lexsort(arr(np.stack([k[0] for k in keys]))), np.lexsort(np.stack([k[0] for k in keys])))
    check(cg.corrcoef(arr(A), dtype=np.float32), np.corrcoef(A, dtype=np.float32), rtol=1e-5, atol=1e-6)
    with warnings.catch_warnings():  # degrees of freedom <= 0 divide by 0, as NumPy's (-0 before)
        warnings.simplefilter("ignore")
        for kw in ({"ddof": 3}, {"ddof": 4}, {"ddof": 5, "aweights": [1, 2, 3]}):
            np.testing.assert_array_equal(np.asarray(cg.cov(arr(A[:2, :3]), **kw)), np.cov(A[:2, :3], **kw))
    # a list q is float64, as NumPy reads it (its values were rounded to float32: 1e-8 off)
    q = cg.quantile(arr(b[1]), [0.2, 0.7], axis=1, method="hazen")
    check(q, np.quantile(b[1], [0.2, 0.7], axis=1, method="hazen"), rtol=1e-14, atol=0)
    assert cg.quantile(arr(np.ones(3, np.float32)), [0.5]).dtype == cg.float64  # NumPy's promotion with q


def test_array_endpoints_of_the_spaces_and_delete_masks_as_numpy():
    # a one-element array endpoint was read as a number (its dims dropped) and longer ones raised;
    # a boolean obj of delete was read as the indices 0 and 1
    for s, e, kw in ((np.array([1.0, 2.0]), 5.0, {}), (np.array([[1.0], [2.0]]), np.array([2.0, 3.0, 4.0]), {"num": 4}),
                     (np.array([1]), np.array([7]), {"num": 4, "endpoint": False}),
                     ([1.0, 2.0], [3.0, 4.0], {"num": 3, "axis": -1}), (np.array([-1.0]), -8.0, {"num": 4, "axis": 1})):
        cs, ce = (arr(v) if isinstance(v, np.ndarray) else v for v in (s, e))
        for fn in ("linspace", "logspace", "geomspace"):
            want = getattr(np, fn)(s, e, **kw)
            got = getattr(cg, fn)(cs, ce, **kw)
            assert got.dtype == cg.float64
            check(got, want, rtol=1e-12)
    got, step = cg.linspace(arr([0.0, 1.0]), 5.0, 5, retstep=True, axis=1)
    want, wstep = np.linspace([0.0, 1.0], 5.0, 5, retstep=True, axis=1)
    check(got, want)
    check(step, wstep)
    with pytest.raises(ValueError, match="zero"):
        cg.geomspace(arr([1.0, 0.0]), 2.0)
    m = np.arange(12).reshape(3, 4)
    for obj, axis in ((np.array([True, False, True]), 0), ([True, False, True, False], 1), (arr([False, True, False]), 0)):
        check(cg.delete(arr(m), obj, axis=axis), np.delete(m, np.asarray(obj), axis=axis))
    with pytest.raises(ValueError, match="axis length"):
        cg.delete(arr(m), [True, False], axis=0)


def test_vander_and_polyder_of_small_integers_in_int64_as_numpy():
    # int16 powers and products overflowed in int16 (vander([200, 3], 3) had -25536)
    for d in (np.int8, np.int16, np.uint8, np.uint16, np.int32, np.uint32, np.uint64, np.bool_):
        x = np.array([200, 3, 1]).astype(d)
        for N in (None, 4):
            want = np.vander(x, N)
            got = cg.vander(arr(x), N)
            assert got.dtype.name == want.dtype.name
            check(got, want)
        for m in (1, 2):
            want = np.polyder(x, m)
            got = cg.polyder(arr(x), m)
            assert got.dtype.name == want.dtype.name
            check(got, want)


def test_interp_with_infinite_values_and_nan_as_numpy():
    # an infinite fp made its segment NaN (NumPy interpolates from the other end), a point of xp
    # gave NaN beside an infinite fp, and a NaN x under a period gave a value
    xp = np.array([-4.86, -2.51, 0.71, 4.2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fp in ([3.0, np.inf, 1.0, -2.0], [np.nan, 1.0, -np.inf, 2.0], [1.0, 1.0, np.inf, np.inf]):
            fp = np.array(fp)
            x = np.array([-5.0, -3.0, -2.51, -0.95, 0.71, 2.0, 4.2, 9.0, np.nan, np.inf])
            for kw in ({}, {"left": -9.0, "right": 9.0}, {"period": 4.0}):
                np.testing.assert_allclose(np.asarray(cg.interp(arr(x), arr(xp), arr(fp), **kw)),
                                           np.interp(x, xp, fp, **kw), rtol=1e-14)  # (a contracted fma: an ulp)
        one = np.array([0.5])
        np.testing.assert_array_equal(np.asarray(cg.interp(arr([np.nan, 0.5, 1.0]), arr(one), arr(one * 3))),
                                      np.interp([np.nan, 0.5, 1.0], one, one * 3))


def test_tile_of_an_int_and_percentile_of_a_float32_q_as_numpy():
    for a in (np.array(5), np.arange(3), np.arange(6).reshape(2, 3)):
        for r in (3, np.int64(2), np.array(2), (2, 1), 0):
            np.testing.assert_array_equal(np.asarray(cg.tile(arr(a), r)), np.tile(a, r))  # an int raised
    with pytest.raises(TypeError, match="repetitions"):
        cg.tile(arr([1.0]), 2.5)
    a = np.linspace(0, 1, 7).astype(np.float32)
    for q in (np.array([30.0], np.float32), np.array([25, 75]), [10, 90]):
        for fn in ("percentile", "nanpercentile"):
            want = getattr(np, fn)(a, q)
            got = getattr(cg, fn)(arr(a), q)
            assert got.dtype.name == want.dtype.name  # a float32 q gave float64
            check(got, want, rtol=1e-6)


def test_isclose_of_infinities_as_numpy():
    # rtol * |inf| = inf made every finite value and -inf close to inf (found through NumPy's dispatch)
    a = np.array([0.5, np.inf, np.inf, 1.0, np.nan, -np.inf, 1e300, -np.inf])
    b = np.array([np.inf, np.inf, -np.inf, np.nan, np.nan, 0.5, np.inf, -np.inf])
    for d in (np.float32, np.float64, np.complex128):
        for equal_nan in (False, True):
            x, y = a.astype(d), b.astype(d)
            np.testing.assert_array_equal(np.asarray(cg.isclose(arr(x), arr(y), equal_nan=equal_nan)),
                                          np.isclose(x, y, equal_nan=equal_nan))
    assert not bool(cg.allclose(arr([0.5]), arr([np.inf])))


def test_special_values_in_around_of_complex_and_poly_as_numpy():
    # found through NumPy's dispatch with NaN and inf among the values: around of complex values
    # multiplied as complex numbers (inf * 0 made a finite part NaN); poly's leading coefficient
    # was 1 - root * 0 (NaN for an infinite root)
    a = np.array([complex(np.inf, 1.26), complex(1.25, np.nan), complex(-2.345, 0.05), complex(np.nan, -np.inf)])
    for d in (1, 2, -1):
        np.testing.assert_array_equal(np.asarray(cg.around(arr(a), d)), np.around(a, d))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for roots in ([np.inf, 1.0], [np.nan, 1.0, 2.0], [-np.inf, np.inf]):
            np.testing.assert_array_equal(np.asarray(cg.poly(arr(roots))), np.poly(np.array(roots)))
        # convolve multiplied the kernel by its zero padding (inf * 0: NaN at the ends)
        a, v = np.array([-1.1, -0.15, 5.6, np.inf]), np.array([np.inf, 5.6, -0.15, -1.1])
        for mode in ("full", "same", "valid"):
            np.testing.assert_array_equal(np.asarray(cg.convolve(arr(a), arr(v), mode)), np.convolve(a, v, mode))
        np.testing.assert_array_equal(np.asarray(cg.polymul(arr(a), arr(v))), np.polymul(a, v))


def test_split_bounds_index_conversions_and_bins_as_numpy():
    # negative split indices gave empty parts; out-of-range flat indices and coordinates given on
    # the host wrapped silently; NumPy integers among histogramdd's bins were taken for edges; cov's
    # y kept its own dtype beside dtype=float32
    a = np.arange(10).reshape(5, 2)
    for ind in ([-3, 2], [-1], [2, -2], [6], [0, 0, 3], np.array([1, -1]), np.int64(5)):
        for fn in ("array_split", "split"):
            want = getattr(np, fn)(a, ind)
            got = getattr(cg, fn)(arr(a), ind)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(np.asarray(g), w)
    for order in ("C", "F"):
        check(cg.unravel_index([3, 5, 0], (2, 3), order=order), np.unravel_index([3, 5, 0], (2, 3), order=order))
        check(cg.ravel_multi_index(([1, 0], [2, 1]), (2, 3), order=order),
              np.ravel_multi_index(([1, 0], [2, 1]), (2, 3), order=order))
        for mode in ("wrap", "clip", ("clip", "wrap")):
            check(cg.ravel_multi_index(([1, 2], [-1, 4]), (2, 3), mode=mode, order=order),
                  np.ravel_multi_index(([1, 2], [-1, 4]), (2, 3), mode=mode, order=order))
    for bad in (lambda m: m.unravel_index(6, (2, 3)), lambda m: m.unravel_index([-1], (2, 3)),
                lambda m: m.ravel_multi_index(([1, 2], [0, 1]), (2, 3))):
        with pytest.raises(ValueError):
            bad(np)
        with pytest.raises(ValueError):
            bad(cg)
    s = rng.integers(0, 9, (20, 3))
    for bins in (np.array([2, 3, 4]), [2, np.int64(3), 4], np.int64(4)):
        check(cg.histogramdd(arr(s), bins=bins), np.histogramdd(s, bins=bins))
    x, y = rng.standard_normal(30), rng.standard_normal(30)
    check(cg.histogram2d(arr(x), arr(y), bins=np.int64(4)), np.histogram2d(x, y, bins=np.int64(4)))
    m, w = rng.integers(0, 5, (2, 6)), rng.integers(0, 5, (2, 6))
    got = cg.cov(arr(m), arr(w), dtype=np.float32)
    assert got.dtype == cg.float32
    check(got, np.cov(m, w, dtype=np.float32), rtol=1e-6, atol=1e-6)


def test_numpy_positional_arguments_of_the_standards_functions():
    # NumPy's order (the standard makes these keyword-only: TypeError until 2026-12-07)
    a = rng.standard_normal((3, 4))
    x = arr(a)
    check(cg.sum(x, 0), np.sum(a, 0))
    check(cg.sum(x, 1, cg.float32, None, True), np.sum(a, 1, np.float32, None, True))
    check(cg.std(x, 0, None, None, 1), np.std(a, 0, None, None, 1))
    check(cg.var(x, 1, None, None, 1, True), np.var(a, 1, None, None, 1, True))
    check(cg.max(x, 0, None, True), np.max(a, 0, None, True))
    check(cg.argmin(x, 1), np.argmin(a, 1))
    check(cg.all(x > 0, 1), np.all(a > 0, 1))
    check(cg.sort(x, 0), np.sort(a, 0))
    check(cg.concat([x, x], 1), np.concatenate([a, a], 1))
    check(cg.stack([x, x], 2), np.stack([a, a], 2))
    check(cg.take(x, arr(np.array([0, 2])), 1), np.take(a, [0, 2], 1))
    check(cg.diff(x, 2, 1), np.diff(a, 2, 1))
    check(cg.roll(x, 1, 0), np.roll(a, 1, 0))
    check(cg.repeat(x, 2, 1), np.repeat(a, 2, 1))
    check(cg.linspace(0, 1, 5, False, dtype=cg.float64), np.linspace(0, 1, 5, False))
    check(cg.ones((2, 3), cg.int8, "F"), np.ones((2, 3), np.int8, "F"))
    check(cg.full_like(x, 7, cg.int16), np.full_like(a, 7, np.int16))
    check(cg.eye(3, 4, 1, cg.float64), np.eye(3, 4, 1, np.float64))
    check(cg.tril(x, -1), np.tril(a, -1))
    check(cg.searchsorted(arr(np.array([1.0, 2.0])), arr(np.array([2.0])), "right"), [2])
    o = arr(np.zeros(a.shape[1:], a.dtype))
    assert cg.sum(x, 0, None, o) is o  # NumPy's out=, by position too (it raised before 2026-12-07)
    check(o, np.sum(a, 0))
    with pytest.raises(TypeError):
        cg.sum(x, 0, axis=1)
    with pytest.raises(TypeError):
        cg.sum(x, 0, None, None, False, 0, 7)


def test_variance_about_a_given_mean_matches_numpy():
    # NumPy 2's `mean` of var, std, nanvar and nanstd (since 2026-12-07: TypeError)
    a = rng.standard_normal((3, 4, 5))
    b = a.copy()
    b[0, 1, 2] = np.nan
    for name, data in (("var", a), ("std", a), ("nanvar", b), ("nanstd", b)):
        for axis in (None, 1, (0, 2)):
            m = (np.nanmean if name.startswith("nan") else np.mean)(data, axis=axis, keepdims=True)
            for ddof in (0, 1):
                check(getattr(cg, name)(arr(data), axis=axis, ddof=ddof, mean=arr(m)),
                      getattr(np, name)(data, axis=axis, ddof=ddof, mean=m))
    z = rng.standard_normal(6) + 1j * rng.standard_normal(6)
    check(cg.var(arr(z), mean=arr(z.mean())), np.var(z, mean=z.mean()))


def test_intersect1d_returns_numpys_indices():
    # return_indices (since 2026-12-07: TypeError): first occurrences in the flattened inputs
    for _ in range(20):
        a = rng.integers(0, 8, (3, 4))
        b = rng.integers(0, 8, int(rng.integers(0, 10))).astype(np.float64)
        for got, want in zip(cg.intersect1d(arr(a), arr(b), return_indices=True),
                             np.intersect1d(a, b, return_indices=True)):
            check(got, want)
