"""cgrad.random: shapes, dtypes and ranges; determinism under seed; each distribution's mean and
variance (or quantiles) against the known values within 6 standard errors of 200k draws;
permutations and samples without replacement are distinct; errors."""
import math

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
