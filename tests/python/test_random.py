"""cgrad.random: shapes, dtypes and ranges; determinism under seed; Generator streams (determinism,
independence from each other and from the global stream); each distribution against its exact cdf
(Kolmogorov-Smirnov below its 1e-6 quantile) or pmf (chi-square below df + 6 sqrt(2 df)), or its
mean and variance within 6 standard errors, on 200k draws with fixed seeds (deterministic);
array parameters; permutations and samples without replacement are distinct; parameter errors."""
import math
import pickle

import numpy as np
import pytest

import cgrad as cg

N = 200_000


def draws(f, **kw):
    return np.asarray(f(size=N, dtype=cg.float64, **kw))


def close_mean(x, mean, var):
    assert abs(x.mean() - mean) < 6 * math.sqrt(var / len(x)), (x.mean(), mean)


@pytest.mark.parametrize("name,kw,mean,var", [
    ("random", {}, 0.5, 1 / 12), ("uniform", {"low": -2.0, "high": 3.0}, 0.5, 25 / 12),
    ("normal", {"loc": 1.5, "scale": 2.0}, 1.5, 4.0), ("standard_normal", {}, 0.0, 1.0),
    ("exponential", {"scale": 2.0}, 2.0, 4.0), ("laplace", {"loc": -1.0, "scale": 0.5}, -1.0, 0.5),
    ("logistic", {"loc": 0.5, "scale": 2.0}, 0.5, math.pi ** 2 * 4 / 3), ("gumbel", {"loc": 1.0, "scale": 2.0},
                                                                          1.0 + 2.0 * 0.5772156649, math.pi ** 2 * 4 / 6),
    ("lognormal", {"mean": 0.0, "sigma": 0.5}, math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
])
def test_distributions_have_their_moments(name, kw, mean, var):
    cg.random.seed(3)
    x = draws(getattr(cg.random, name), **kw)
    assert x.shape == (N,) and np.all(np.isfinite(x))
    close_mean(x, mean, var)
    # the variance's standard error for these tails: within 10% at 200k draws
    assert abs(x.var() - var) < 0.1 * var, (x.var(), var)


def test_cauchy_quantiles_and_ranges():
    cg.random.seed(4)
    c = draws(cg.random.standard_cauchy)
    np.testing.assert_allclose(np.quantile(c, [0.25, 0.5, 0.75]), [-1.0, 0.0, 1.0], atol=0.02)
    u = np.asarray(cg.random.random(N, dtype=cg.float64))
    assert u.min() >= 0 and u.max() < 1
    assert cg.random.random().shape == () and cg.random.random((2, 3)).dtype == cg.float32
    assert cg.random.rand(2, 3).shape == (2, 3) and cg.random.randn(4).shape == (4,)


def test_integers_are_uniform_in_their_range():
    cg.random.seed(5)
    k = np.asarray(cg.random.integers(-3, 4, size=N))
    assert k.dtype == np.int64 and k.min() == -3 and k.max() == 3
    counts = np.bincount(k + 3)
    assert np.all(np.abs(counts - N / 7) < 6 * math.sqrt(N / 7))
    assert np.asarray(cg.random.integers(5, size=100, dtype=cg.uint8)).max() <= 4
    assert np.asarray(cg.random.integers(0, 1, size=10, endpoint=True)).max() <= 1
    assert cg.random.randint(10, size=(2, 2)).shape == (2, 2)
    with pytest.raises(ValueError):
        cg.random.integers(3, 3)
    with pytest.raises(TypeError):
        cg.random.integers(0, 3, dtype=cg.float32)


def test_seed_makes_draws_repeat():
    cg.random.seed(11)
    a = np.asarray(cg.random.normal(size=5, dtype=cg.float64))
    b = np.asarray(cg.random.integers(0, 100, size=5))
    cg.random.seed(11)
    np.testing.assert_array_equal(np.asarray(cg.random.normal(size=5, dtype=cg.float64)), a)
    np.testing.assert_array_equal(np.asarray(cg.random.integers(0, 100, size=5)), b)


def test_permutations_shuffles_and_choices():
    cg.random.seed(6)
    p = np.asarray(cg.random.permutation(50))
    assert sorted(p.tolist()) == list(range(50))
    x = cg.asarray(np.arange(12.0).reshape(6, 2))
    y = np.asarray(cg.random.permutation(x))
    assert sorted(y[:, 0].tolist()) == list(np.arange(0.0, 12.0, 2.0)) and np.all(y[:, 1] == y[:, 0] + 1)
    h = x
    cg.random.shuffle(x)
    assert sorted(np.asarray(h)[:, 0].tolist()) == list(np.arange(0.0, 12.0, 2.0))
    s = np.asarray(cg.random.choice(10, size=(3, 3), replace=False))
    assert s.shape == (3, 3) and len(set(s.ravel().tolist())) == 9
    pool = cg.asarray(np.array([10.0, 20.0, 30.0]))
    w = np.asarray(cg.random.choice(pool, size=N, p=[0.2, 0.5, 0.3]))
    for v, q in ((10.0, 0.2), (20.0, 0.5), (30.0, 0.3)):
        assert abs(np.mean(w == v) - q) < 6 * math.sqrt(q * (1 - q) / N)
    wr = np.asarray(cg.random.choice(5, size=2, replace=False, p=[0.0, 0.0, 0.5, 0.5, 0.0]))
    assert sorted(wr.tolist()) == [2, 3]  # weighted, without replacement: only the two that can be drawn
    with pytest.raises(ValueError):
        cg.random.choice(3, size=4, replace=False)
    with pytest.raises(ValueError):
        cg.random.choice(3, p=[0.5, 0.6, -0.1])


# ---- Generator: a stream of its own ----
def test_generator_is_deterministic_for_its_seed_and_independent():
    a = np.asarray(cg.random.default_rng(42).normal(size=8, dtype=cg.float64))
    g = cg.random.default_rng(42)
    np.testing.assert_array_equal(np.asarray(g.normal(size=8, dtype=cg.float64)), a)
    assert not np.array_equal(np.asarray(g.normal(size=8, dtype=cg.float64)), a)  # draws advance the stream
    assert not np.array_equal(np.asarray(cg.random.default_rng(43).normal(size=8, dtype=cg.float64)), a)
    # the global stream and a generator do not move each other
    cg.random.seed(9)
    ref = np.asarray(cg.random.random(16, dtype=cg.float64))
    h = cg.random.default_rng(1)
    cg.random.seed(9)
    h.random(16)
    h.standard_normal(4)
    np.testing.assert_array_equal(np.asarray(cg.random.random(16, dtype=cg.float64)), ref)
    first = np.asarray(cg.random.default_rng(7).integers(0, 1000, size=16))
    k = cg.random.default_rng(7)
    cg.random.random(3)
    np.testing.assert_array_equal(np.asarray(k.integers(0, 1000, size=16)), first)
    # default_rng of a Generator is that Generator; copy.copy continues from its state on its own
    assert cg.random.default_rng(k) is k
    import copy
    c = copy.copy(k)
    np.testing.assert_array_equal(np.asarray(c.random(5)), np.asarray(k.random(5)))


def test_default_rng_seeds():
    a = np.asarray(cg.random.default_rng().random(8, dtype=cg.float64))
    assert not np.array_equal(a, np.asarray(cg.random.default_rng(None).random(8, dtype=cg.float64)))
    big = np.asarray(cg.random.default_rng(2 ** 70 + 3).random(4))
    np.testing.assert_array_equal(np.asarray(cg.random.Generator(2 ** 70 + 3).random(4)), big)
    np.testing.assert_array_equal(np.asarray(cg.random.default_rng([1, 2]).random(4)),
                                  np.asarray(cg.random.default_rng([1, 2]).random(4)))
    assert not np.array_equal(np.asarray(cg.random.default_rng([1, 2]).random(4)),
                              np.asarray(cg.random.default_rng([2, 1]).random(4)))
    with pytest.raises(ValueError):
        cg.random.default_rng(-1)
    assert all(f(3).shape == (3,) for f in (cg.random.random_sample, cg.random.sample, cg.random.ranf))


def test_spawn_and_array_bounds_of_integers():
    g = cg.random.default_rng(12)
    kids = g.spawn(3)
    a, b, c = (np.asarray(k.random(64, dtype=cg.float64)) for k in kids)
    assert not np.array_equal(a, b) and not np.array_equal(b, c)
    np.testing.assert_array_equal(np.asarray(cg.random.default_rng(12).spawn(3)[0].random(64, dtype=cg.float64)), a)
    assert not np.array_equal(np.asarray(g.spawn(1)[0].random(64, dtype=cg.float64)), a)  # a second spawn: others
    k = np.asarray(g.integers([0, 10, -5], [2, 20, 5], size=(N // 4, 3)))
    assert k.shape == (N // 4, 3) and k.dtype == np.int64
    for j, (lo, hi) in enumerate([(0, 2), (10, 20), (-5, 5)]):
        assert k[:, j].min() == lo and k[:, j].max() == hi - 1
        close_mean(k[:, j], (lo + hi - 1) / 2, ((hi - lo) ** 2 - 1) / 12)
    assert np.asarray(g.integers(0, cg.asarray(np.array([1, 3])), endpoint=True, size=(100, 2)))[:, 0].max() <= 1
    with pytest.raises(ValueError):
        g.integers([0, 5], [1, 5])


def test_generator_and_module_share_the_distributions():
    g = cg.random.default_rng(0)
    for name in ("normal", "gamma", "poisson", "binomial", "beta", "choice", "permuted", "multivariate_normal"):
        assert callable(getattr(g, name)) and callable(getattr(cg.random, name))


# ---- exact distributions: KS against the exact cdf (continuous), chi-square against the pmf (discrete) ----
def ks_ok(x, cdf):
    """The Kolmogorov-Smirnov distance of x's empirical cdf from cdf, below its 1e-6 quantile."""
    x = np.sort(x)
    f = cdf(x)
    n = len(x)
    d = max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))
    assert d < math.sqrt(-0.5 * math.log(0.5e-6) / n), d


erf = np.vectorize(math.erf)


@pytest.mark.parametrize("name,args,cdf", [
    ("rayleigh", (2.0,), lambda x: 1 - np.exp(-x ** 2 / 8)),
    ("weibull", (1.5,), lambda x: 1 - np.exp(-x ** 1.5)),
    ("pareto", (3.0,), lambda x: 1 - (1 + x) ** -3.0),
    ("power", (2.5,), lambda x: x ** 2.5),
    ("triangular", (-1.0, 0.5, 3.0), lambda x: np.where(x <= 0.5, (x + 1) ** 2 / (4 * 1.5), 1 - (3 - x) ** 2 / (4 * 2.5))),
    ("standard_exponential", (), lambda x: 1 - np.exp(-x)),
    ("wald", (2.0, 3.0), lambda x: 0.5 * (1 + erf(np.sqrt(3 / x) * (x / 2 - 1) / math.sqrt(2))) + math.exp(3.0)
     * 0.5 * (1 - erf(np.sqrt(3 / x) * (x / 2 + 1) / math.sqrt(2)))),
    ("standard_gamma", (3.0,), lambda x: 1 - np.exp(-x) * (1 + x + x * x / 2)),
    ("standard_gamma", (0.5,), lambda x: erf(np.sqrt(x))),  # a < 1: boosted from a + 1
    ("gamma", (1.0, 2.0), lambda x: 1 - np.exp(-x / 2)),
    ("chisquare", (2.0,), lambda x: 1 - np.exp(-x / 2)),
    ("beta", (2.0, 3.0), lambda x: x ** 2 * (6 - 8 * x + 3 * x ** 2)),
    ("standard_t", (1.0,), lambda x: 0.5 + np.arctan(x) / math.pi),
    ("standard_t", (2.0,), lambda x: 0.5 + x / (2 * np.sqrt(2 + x * x))),
    ("f", (2.0, 2.0), lambda x: x / (1 + x)),
    ("laplace", (0.5, 2.0), lambda x: np.where(x < 0.5, 0.5 * np.exp((x - 0.5) / 2), 1 - 0.5 * np.exp(-(x - 0.5) / 2))),
    ("logistic", (0.5, 2.0), lambda x: 1 / (1 + np.exp(-(x - 0.5) / 2))),
    ("gumbel", (0.5, 2.0), lambda x: np.exp(-np.exp(-(x - 0.5) / 2))),
])
def test_continuous_distributions_follow_their_cdf(name, args, cdf):
    x = np.asarray(getattr(cg.random.default_rng(21), name)(*args, size=N, dtype=cg.float64))
    assert x.shape == (N,) and x.dtype == np.float64 and np.all(np.isfinite(x))
    ks_ok(x, cdf)


@pytest.mark.parametrize("name,args,mean,var", [
    ("gamma", (0.3, 2.0), 0.6, 1.2), ("gamma", (40.0, 0.5), 20.0, 10.0), ("beta", (0.5, 0.5), 0.5, 0.125),
    ("beta", (0.01, 0.02), 1 / 3, 2 / 9 / 1.03), ("chisquare", (7.0,), 7.0, 14.0), ("standard_t", (6.0,), 0.0, 1.5),
    ("f", (5.0, 10.0), 1.25, 2 * 100 * 13 / (5 * 64 * 6)), ("noncentral_chisquare", (3.0, 2.0), 5.0, 14.0),
    ("noncentral_chisquare", (0.5, 1.5), 2.0, 7.0), ("vonmises", (0.5, 0.0), 0.0, math.pi ** 2 / 3),
    ("noncentral_f", (3.0, 20.0, 3.0), 20 * 6 / (3 * 18), 2 * (20 / 3) ** 2 * (6 ** 2 + 9 * 18) / (18 ** 2 * 16)),
])
def test_rejection_sampled_moments(name, args, mean, var):
    x = np.asarray(getattr(cg.random.default_rng(22), name)(*args, size=N, dtype=cg.float64))
    assert np.all(np.isfinite(x))
    close_mean(x, mean, var)
    assert abs(x.var() - var) < 0.1 * var, (x.var(), var)


def chi2_ok(k, pmf, lo=0):
    """Pearson's chi-square of the counts of k against pmf (bins of expected count >= 20, the rest
    lumped), below df + 6 sqrt(2 df)."""
    n, hi = len(k), int(k.max())
    p = np.array([pmf(j) for j in range(lo, hi + 1)])
    counts = np.bincount(k - lo, minlength=len(p))[:len(p)].astype(float)
    assert k.min() >= lo
    keep = p * n >= 20
    exp = np.append(p[keep] * n, n - p[keep].sum() * n)
    obs = np.append(counts[keep], n - counts[keep].sum())
    if exp[-1] < 20:
        exp, obs = exp[:-1], obs[:-1]
    df = len(exp) - 1
    x2 = np.sum((obs - exp) ** 2 / exp)
    assert x2 < df + 6 * math.sqrt(2 * df), (x2, df)


def log_binom(n, k):
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def hyper_pmf(good, bad, sample, k):
    if k > good or sample - k > bad or k < 0:
        return 0.0
    return math.exp(log_binom(good, k) + log_binom(bad, sample - k) - log_binom(good + bad, sample))


ZETA_2_5 = sum(j ** -2.5 for j in range(1, 10000)) + 10000 ** -1.5 / 1.5 - 0.5 * 10000 ** -2.5  # Euler-Maclaurin


@pytest.mark.parametrize("name,args,pmf,lo", [
    ("poisson", (0.5,), lambda j: math.exp(-0.5 + j * math.log(0.5) - math.lgamma(j + 1)), 0),
    ("poisson", (7.5,), lambda j: math.exp(-7.5 + j * math.log(7.5) - math.lgamma(j + 1)), 0),
    ("poisson", (12.0,), lambda j: math.exp(-12 + j * math.log(12) - math.lgamma(j + 1)), 0),  # PTRS
    ("poisson", (1e4,), lambda j: math.exp(-1e4 + j * math.log(1e4) - math.lgamma(j + 1)), 0),
    ("binomial", (20, 0.3), lambda j: math.exp(log_binom(20, j) + j * math.log(0.3) + (20 - j) * math.log(0.7)), 0),
    ("binomial", (100, 0.85), lambda j: math.exp(log_binom(100, j) + j * math.log(0.85) + (100 - j) * math.log(0.15)),
     0),  # BTRS of 1 - p
    ("binomial", (5000, 0.01), lambda j: math.exp(log_binom(5000, j) + j * math.log(0.01) + (5000 - j) *
                                                   math.log(0.99)), 0),
    ("geometric", (0.2,), lambda j: 0.8 ** (j - 1) * 0.2, 1),
    ("negative_binomial", (2.5, 0.4), lambda j: math.exp(math.lgamma(j + 2.5) - math.lgamma(j + 1) - math.lgamma(2.5)
                                                         + 2.5 * math.log(0.4) + j * math.log(0.6)), 0),
    ("zipf", (2.5,), lambda j: j ** -2.5 / ZETA_2_5, 1),
    ("logseries", (0.7,), lambda j: -0.7 ** j / (j * math.log(0.3)), 1),
    ("hypergeometric", (7, 13, 5), lambda j: hyper_pmf(7, 13, 5, j), 0),  # draws one by one
    ("hypergeometric", (13, 7, 17), lambda j: hyper_pmf(13, 7, 17, j), 10),  # their complement
    ("hypergeometric", (100, 200, 60), lambda j: hyper_pmf(100, 200, 60, j), 0),  # HRUA
    ("hypergeometric", (300, 200, 400), lambda j: hyper_pmf(300, 200, 400, j), 200),  # HRUA, mapped
])
def test_discrete_distributions_follow_their_pmf(name, args, pmf, lo):
    k = np.asarray(getattr(cg.random.default_rng(23), name)(*args, size=N))
    assert k.dtype == np.int64 and k.shape == (N,)
    chi2_ok(k, pmf, lo)


def test_array_parameters_broadcast_and_draw_per_element():
    g = cg.random.default_rng(24)
    lam = cg.asarray(np.array([0.0, 2.0, 30.0, 400.0]))
    k = np.asarray(g.poisson(lam, size=(N // 4, 4)))  # inversion and PTRS in one call
    for j, m in enumerate([0.0, 2.0, 30.0, 400.0]):
        if m:
            close_mean(k[:, j], m, m)
    assert np.all(k[:, 0] == 0)
    b = np.asarray(g.binomial([3, 50, 1000], [0.9, 0.5, 0.002], size=(N // 4, 3)))
    for j, (n, p) in enumerate([(3, 0.9), (50, 0.5), (1000, 0.002)]):
        close_mean(b[:, j], n * p, n * p * (1 - p))
    assert b[:, 0].max() <= 3
    h = np.asarray(g.hypergeometric([5, 100], [5, 200], [3, 50], size=(N // 4, 2)))  # both methods
    for j, (gd, bd, sm) in enumerate([(5, 5, 3), (100, 200, 50)]):
        t = gd + bd
        close_mean(h[:, j], sm * gd / t, sm * gd / t * bd / t * (t - sm) / (t - 1))
    x = g.normal(cg.asarray(np.array([0.0, 100.0])), 1.0)
    assert x.shape == (2,) and abs(float(x[1]) - 100) < 8
    s = np.asarray(g.standard_gamma(cg.asarray(np.array([0.2, 5.0])), size=(N // 4, 2), dtype=cg.float64))
    close_mean(s[:, 0], 0.2, 0.2)
    close_mean(s[:, 1], 5.0, 5.0)
    assert g.gamma(2.0, cg.asarray(np.array([1.0, 2.0, 3.0]))).shape == (3,)
    with pytest.raises(ValueError):
        g.normal(np.zeros(3), 1.0, size=(2, 2))


def test_multivariate_dirichlet_multinomial():
    g = cg.random.default_rng(25)
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    for method in ("svd", "eigh", "cholesky"):
        x = np.asarray(g.multivariate_normal([1.0, -2.0, 0.0], cov, size=N, method=method, dtype=cg.float64))
        assert x.shape == (N, 3)
        np.testing.assert_allclose(x.mean(0), [1.0, -2.0, 0.0], atol=6 * math.sqrt(2 / N))
        np.testing.assert_allclose(np.cov(x.T), cov, atol=0.03)
    with pytest.warns(RuntimeWarning):
        g.multivariate_normal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError):
        g.multivariate_normal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], check_valid="raise")
    alpha = np.array([0.5, 1.0, 2.5])
    d = np.asarray(g.dirichlet(alpha, size=N, dtype=cg.float64))
    assert d.shape == (N, 3) and np.allclose(d.sum(1), 1)
    a0 = alpha.sum()
    for j in range(3):
        close_mean(d[:, j], alpha[j] / a0, alpha[j] * (a0 - alpha[j]) / (a0 ** 2 * (a0 + 1)))
    tiny = np.asarray(g.dirichlet([1e-3, 1e-3], size=100, dtype=cg.float64))
    assert np.all(np.isfinite(tiny)) and np.allclose(tiny.sum(1), 1)
    m = np.asarray(g.multinomial(20, [0.2, 0.3, 0.5], size=N))
    assert m.shape == (N, 3) and np.all(m.sum(1) == 20)
    for j, p in enumerate([0.2, 0.3, 0.5]):
        close_mean(m[:, j], 20 * p, 20 * p * (1 - p))


def test_permuted_permutation_axis_and_choice_axis():
    g = cg.random.default_rng(26)
    x = cg.asarray(np.arange(20).reshape(4, 5))
    p = np.asarray(g.permuted(x, axis=1))
    assert all(sorted(r) == list(range(5 * i, 5 * i + 5)) for i, r in enumerate(p.tolist()))
    q = np.asarray(g.permuted(x))
    assert q.shape == (4, 5) and sorted(q.ravel().tolist()) == list(range(20))
    c = np.asarray(g.permutation(x, axis=1))
    assert np.all(c - c[:, :1] == (c[0] - c[0, 0])[None, :])  # whole columns moved
    s = np.asarray(g.choice(x, size=2, replace=False, axis=1))
    assert s.shape == (4, 2) and np.all(s[1] - s[0] == 5)
    y = cg.asarray(np.arange(10.0))
    g.shuffle(y)
    assert sorted(np.asarray(y).tolist()) == list(np.arange(10.0))


def test_rejection_samplers_redraw_only_what_they_reject():
    g = cg.random.default_rng(27)
    a = np.asarray(g.standard_gamma(0.7, size=64, dtype=cg.float64))
    assert np.all(a > 0) and len(set(a.tolist())) == 64
    before = g._gen.counter
    np.asarray(g.standard_gamma(2.0, size=N))  # a normal and a uniform per round; rounds shrink ~20x
    assert 2 <= g._gen.counter - before <= 20
    # repeatable: the rounds depend on the numbers only
    np.testing.assert_array_equal(np.asarray(cg.random.default_rng(3).poisson(25.0, size=1000)),
                                  np.asarray(cg.random.default_rng(3).poisson(25.0, size=1000)))


def test_vonmises_concentration():
    x = np.asarray(cg.random.default_rng(28).vonmises(0.5, 2.0, size=N, dtype=cg.float64))
    assert x.min() >= -math.pi and x.max() <= math.pi
    i0, i1 = (sum((1.0) ** (2 * j) / (math.factorial(j) * math.factorial(j + v)) for j in range(30)) for v in (0, 1))
    c = np.cos(x - 0.5)
    close_mean(c, i1 / i0, 1.0)  # E cos(x - mu) = I1(kappa) / I0(kappa); var(cos) <= 1


@pytest.mark.parametrize("call", [
    lambda g: g.normal(0, -1), lambda g: g.exponential(-1.0), lambda g: g.rayleigh(-2), lambda g: g.weibull(-1),
    lambda g: g.pareto(0), lambda g: g.power(0.0), lambda g: g.triangular(2, 1, 3), lambda g: g.triangular(1, 1, 1),
    lambda g: g.wald(0, 1), lambda g: g.wald(1, -1), lambda g: g.standard_gamma(-1), lambda g: g.gamma(1, -1),
    lambda g: g.beta(0, 1), lambda g: g.chisquare(0), lambda g: g.standard_t(0), lambda g: g.f(1, 0),
    lambda g: g.noncentral_chisquare(1, -1), lambda g: g.dirichlet([1.0, -1.0]), lambda g: g.geometric(0),
    lambda g: g.geometric(1.5), lambda g: g.poisson(-1), lambda g: g.poisson(np.array([1.0, -1.0])),
    lambda g: g.binomial(-1, 0.5), lambda g: g.binomial(5, 1.5), lambda g: g.negative_binomial(0, 0.5),
    lambda g: g.negative_binomial(1, 0), lambda g: g.multinomial(5, [0.5, 0.7, 0.1]), lambda g: g.zipf(1.0),
    lambda g: g.logseries(1.0), lambda g: g.hypergeometric(-1, 5, 2), lambda g: g.hypergeometric(2, 3, 6), lambda g: g.vonmises(0, -1), lambda g: g.laplace(0, -1),
    lambda g: g.standard_gamma(float("nan")), lambda g: g.uniform(1, 0), lambda g: g.noncentral_f(1, 1, -1),
    lambda g: g.noncentral_f(0, 1, 1), lambda g: g.bytes(-1),
])
def test_parameter_errors(call):
    with pytest.raises(ValueError):
        call(cg.random.default_rng(0))


def test_parameters_numpy_accepts():
    # NumPy's rules (each raised or drew otherwise before 2026-12-07): a NaN scale gives NaN samples;
    # an alpha of 0 gives 0 (all of them: zeros); uniform's range must be finite (OverflowError)
    # and not negative; permutation of a negative n is empty
    g = cg.random.default_rng(0)
    assert np.isnan(np.asarray(g.normal(0, float("nan"), 3))).all()
    assert np.isnan(np.asarray(g.gumbel(0, float("nan"), 2))).all()
    d = np.asarray(g.dirichlet([0.5, 0.0, 2.0], 4))
    assert (d[:, 1] == 0).all() and np.allclose(d.sum(axis=1), 1)
    np.testing.assert_array_equal(np.asarray(g.dirichlet([0.0, 0.0], 2)), np.zeros((2, 2)))
    for low, high in ((0, float("inf")), (float("nan"), 1.0)):
        with pytest.raises(OverflowError):
            g.uniform(low, high, 2)
    np.testing.assert_array_equal(np.asarray(g.uniform(1.0, 1.0, 2)), [1.0, 1.0])
    assert g.permutation(-1).shape == (0,)


def test_bytes_are_python_bytes_of_the_stream():
    b = cg.random.default_rng(5).bytes(4096)
    assert type(b) is bytes and len(b) == 4096 and b == cg.random.default_rng(5).bytes(4096)
    assert cg.random.default_rng(5).bytes(0) == b""
    counts = np.bincount(np.frombuffer(b, dtype=np.uint8), minlength=256)
    assert counts.min() > 0 and counts.max() < 40  # 16 per value expected
    cg.random.seed(9)
    assert type(cg.random.bytes(3)) is bytes


def test_states_put_back_repeat_the_draws():
    # the process' stream: get_state/set_state (PyTorch's get_rng_state/set_rng_state); a Generator:
    # pickle (it raised TypeError until 2026-12-07)
    cg.random.seed(3)
    cg.random.random(4)
    state = cg.random.get_state()
    assert state == ("cgrad", 3, 1)
    a = np.asarray(cg.random.normal(size=10))
    cg.random.random(2)
    cg.random.set_state(state)
    np.testing.assert_array_equal(np.asarray(cg.random.normal(size=10)), a)
    for bad in (None, ("cgrad", -1, 0), ("MT19937", 1, 2), ("cgrad", 1, 2.5)):
        with pytest.raises(ValueError, match="set_state"):
            cg.random.set_state(bad)
    g = cg.random.default_rng(8)
    g.integers(0, 9, size=3)
    h = pickle.loads(pickle.dumps(g))
    assert repr(h) == repr(g)
    np.testing.assert_array_equal(np.asarray(h.standard_normal(5)), np.asarray(g.standard_normal(5)))
