"""cgrad.random's NumPy API beyond Generator: SeedSequence (bit for bit NumPy's), BitGenerator (one
stream shared by the Generators and RandomStates over it), RandomState (NumPy's legacy names and
signatures, seeds and their errors, determinism, states, pickling, the distributions of randint,
random_integers, rand, randn and tomaxint against their exact cdfs with fixed seeds), the module's
legacy functions and its namespace."""
import copy
import inspect
import math
import pickle
import types
import warnings

import numpy as np
import pytest

import cgrad as cg
from test_random import N, chi2_ok, ks_ok

R = cg.random.RandomState


def arr(x):
    return np.asarray(x)


# ---- SeedSequence: NumPy's words, bit for bit ----
ENTROPIES = [0, 1, 5, 2**32 - 1, 2**32, 2**64 - 1, 2**100 + 7, [], [0], [1, 2], [[1, 2], 3], range(5), True,
             list(range(11)), [2**63 + 5, 3, 2**40], np.arange(7, dtype=np.uint64), np.array([9, 8], dtype=np.uint32)]


@pytest.mark.parametrize("entropy", ENTROPIES, ids=str)
def test_seed_sequence_words_are_numpys(entropy):
    for key in [(), (0,), (3, 2**40), (1, 2, 3, 4, 5)]:
        for pool in (4, 5, 9):
            ours, theirs = cg.random.SeedSequence(entropy, spawn_key=key, pool_size=pool), np.random.SeedSequence(
                entropy, spawn_key=key, pool_size=pool)
            for dtype, n in ((np.uint32, 13), (np.uint64, 7), ("uint32", 0)):
                got, want = arr(ours.generate_state(n, dtype)), theirs.generate_state(n, dtype)
                assert got.dtype == want.dtype and np.array_equal(got, want), (entropy, key, pool, dtype)


def test_seed_sequence_spawn_state_and_repr_are_numpys():
    ours, theirs = cg.random.SeedSequence(2024), np.random.SeedSequence(2024)
    for _ in range(2):  # a second spawn goes on from the children already spawned
        for a, b in zip(ours.spawn(3), theirs.spawn(3)):
            assert a.spawn_key == b.spawn_key and a.state == b.state and repr(a) == repr(b)
            np.testing.assert_array_equal(arr(a.spawn(2)[1].generate_state(4)), b.spawn(2)[1].generate_state(4))
    assert ours.state == theirs.state and ours.n_children_spawned == 6
    assert repr(cg.random.SeedSequence(5, pool_size=8)) == repr(np.random.SeedSequence(5, pool_size=8))
    e = cg.random.SeedSequence().entropy  # OS entropy: 128 bits, kept to reproduce the sequence
    assert isinstance(e, int) and e != cg.random.SeedSequence().entropy
    np.testing.assert_array_equal(arr(cg.random.SeedSequence(e).generate_state(4)),
                                  np.random.SeedSequence(e).generate_state(4))
    p = pickle.loads(pickle.dumps(cg.random.SeedSequence([3, 4], spawn_key=(1,))))
    np.testing.assert_array_equal(arr(p.generate_state(3)), np.random.SeedSequence([3, 4], spawn_key=(1,))
                                  .generate_state(3))


@pytest.mark.parametrize("call", [
    lambda m: m.SeedSequence(-1), lambda m: m.SeedSequence(1.5), lambda m: m.SeedSequence([1, -2]),
    lambda m: m.SeedSequence([1.5]), lambda m: m.SeedSequence(5, pool_size=3),
    lambda m: m.SeedSequence(5).generate_state(2, np.int32), lambda m: m.SeedSequence(5).generate_state(2.0),
    lambda m: m.SeedSequence(5, spawn_key=(-1,)).generate_state(1), lambda m: m.SeedSequence(5).generate_state(-1),
])
def test_seed_sequence_errors_are_numpys(call):
    with pytest.raises(Exception) as want:
        call(np.random)
    with pytest.raises(want.type):
        call(cg.random)


# ---- seeds of streams: every seed through a SeedSequence ----
def first(g, n=8):
    return arr(g.random(n, dtype=cg.float64))


def test_a_seed_and_its_seed_sequence_give_one_stream():
    for s in (5, [1, 2], 2**70 + 1, np.array([4, 5], dtype=np.uint32)):
        np.testing.assert_array_equal(first(cg.random.default_rng(s)),
                                      first(cg.random.default_rng(cg.random.SeedSequence(s))))
    np.testing.assert_array_equal(first(cg.random.default_rng(5)), first(R(5)))  # a RandomState's stream too
    cg.random.seed(5)
    np.testing.assert_array_equal(first(cg.random.default_rng(5)), arr(cg.random.random(8, dtype=cg.float64)))
    seqs = [cg.random.SeedSequence(7, pool_size=5), cg.random.SeedSequence(7, spawn_key=(0,)),
            cg.random.SeedSequence([7]), cg.random.SeedSequence(7)]
    streams = {tuple(first(cg.random.default_rng(s))) for s in seqs}
    assert len(streams) == 4  # pool size, spawn key, and [7] against 7 each give another stream
    # a hashed sequence seeds with its first 64-bit word (NumPy's words)
    assert cg.random.BitGenerator([1, 2]).state["state"]["seed"] == int(
        np.random.SeedSequence([1, 2]).generate_state(1, np.uint64)[0])


def test_bit_generator_is_one_stream_shared():
    bg = cg.random.BitGenerator(11)
    g, h = cg.random.Generator(bg), cg.random.default_rng(bg)
    assert g.bit_generator is bg and h.bit_generator is bg
    one = cg.random.default_rng(11)
    np.testing.assert_array_equal(first(g, 4), first(one, 4))
    np.testing.assert_array_equal(first(h, 4), first(one, 4))  # h goes on after g's draw
    rs = R(bg)
    assert rs.get_state() == ("cgrad", 11, 2)
    state = bg.state
    assert state == {"bit_generator": "cgrad", "state": {"seed": 11, "counter": 2}}
    a = first(g)
    bg.state = state
    np.testing.assert_array_equal(first(rs), a)
    for bad, err in ((("cgrad", 1, 2), TypeError), ({"bit_generator": "PCG64", "state": {}}, ValueError),
                     ({"bit_generator": "cgrad", "state": {"seed": -1, "counter": 0}}, ValueError)):
        with pytest.raises(err):
            bg.state = bad
    c, p = copy.copy(bg), pickle.loads(pickle.dumps(bg))
    assert repr(c) == repr(p) == repr(bg)
    a = first(g)
    np.testing.assert_array_equal(first(cg.random.Generator(c)), a)  # copies go on from bg's state, on their own
    np.testing.assert_array_equal(first(cg.random.Generator(p)), a)
    assert isinstance(bg.seed_seq, cg.random.SeedSequence) and bg.seed_seq.entropy == 11
    bg.state = {"bit_generator": "cgrad", "state": {"seed": 99, "counter": 0}}
    assert bg.seed_seq.entropy == 99  # moved to another seed: that seed's sequence


def test_spawn_follows_the_seed_sequence():
    g = cg.random.default_rng(12)
    kids = g.spawn(2)
    assert [k.bit_generator.seed_seq.spawn_key for k in kids] == [(0,), (1,)]
    np.testing.assert_array_equal(first(kids[1]), first(cg.random.default_rng(cg.random.SeedSequence(
        12, spawn_key=(1,)))))
    assert g.spawn(1)[0].bit_generator.seed_seq.spawn_key == (2,)
    bits = cg.random.BitGenerator(3).spawn(2)
    assert all(type(b) is cg.random.BitGenerator for b in bits)
    assert not np.array_equal(first(cg.random.Generator(bits[0])), first(cg.random.Generator(bits[1])))


# ---- RandomState ----
def draws_of(rs):
    """A few draws of several kinds, in order."""
    return [arr(rs.rand(5)), arr(rs.randn(3, 2)), arr(rs.randint(0, 100, size=6)), arr(rs.normal(2.0, 3.0, 4)),
            arr(rs.poisson(30.0, 5)), arr(rs.choice(10, 3, replace=False)), arr(rs.permutation(8)),
            arr(rs.gamma(0.5, size=4))]


def same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def test_random_state_is_deterministic_per_seed():
    for s in (0, 7, 2**32 - 1, [1, 2, 3], np.array([5, 6], dtype=np.uint32)):
        assert same(draws_of(R(s)), draws_of(R(s)))
    assert not same(draws_of(R(1)), draws_of(R(2)))
    assert not same(draws_of(R(5)), draws_of(R([5, 0])))
    rs = R(3)
    a = draws_of(rs)
    assert not same(draws_of(rs), a)  # draws advance the stream
    rs.seed(3)
    assert same(draws_of(rs), a)
    rs.seed()  # OS entropy, as R() and R(None)
    assert not same(draws_of(rs), a) and not same(draws_of(R()), draws_of(R(None)))
    assert same(draws_of(R(cg.random.SeedSequence(3))), draws_of(R(3)))


@pytest.mark.parametrize("seed", [-1, 2**32, [1, -1], [1, 2**32], [], [[1, 2]], 1.5, [1.5], "5", np.float64(2.0)],
                         ids=str)
def test_random_state_seed_errors_are_numpys(seed):
    with pytest.raises((TypeError, ValueError)) as want:
        np.random.RandomState(seed)
    with pytest.raises(want.type):
        R(seed)
    with pytest.raises(want.type):
        R(0).seed(seed)
    if seed == 2**32 or (isinstance(seed, list) and 2**32 in seed):
        return  # the module's seed takes ints up to 2**64 - 1 (manual_seed's)
    with pytest.raises(want.type):
        cg.random.seed(seed)


def test_random_state_seeds_numpy_takes():
    for s in (np.array(5), np.array([5]), np.int64(5), np.uint32(5), cg.asarray(5), cg.asarray([5])):
        np.random.RandomState(np.asarray(s))  # NumPy takes it...
        assert same(draws_of(R(s)), draws_of(R(5)))  # ...and so do we, as that int
    cg.random.seed(2**40 + 3)  # the module's seed takes manual_seed's 64-bit ints too
    assert cg.random.get_state() == ("cgrad", 2**40 + 3, 0)
    with pytest.raises(ValueError):
        R(2**40)


def test_random_state_states_pickles_and_copies():
    rs = R(8)
    rs.randn(4)
    state = rs.get_state()
    assert state == ("cgrad", 8, 1) and rs.get_state(legacy=False) == {"bit_generator": "cgrad",
                                                                       "state": {"seed": 8, "counter": 1}}
    c, p = copy.copy(rs), pickle.loads(pickle.dumps(rs))
    d = copy.deepcopy(rs)
    assert type(p) is R and repr(p) == repr(rs) == "RandomState(seed=8, draws=1)"
    a = draws_of(rs)
    assert same(draws_of(c), a) and same(draws_of(p), a) and same(draws_of(d), a)
    rs.set_state(state)
    assert same(draws_of(rs), a)
    rs.set_state(c.get_state(legacy=False))
    assert rs.get_state() == c.get_state()
    for bad in (None, ("MT19937", np.zeros(624, np.uint32), 0, 0, 0.0), ("cgrad", -1, 0), ("cgrad", 1, 2.5)):
        with pytest.raises(ValueError, match="set_state"):
            rs.set_state(bad)


def test_random_state_has_numpys_legacy_methods_and_signatures():
    for name, member in inspect.getmembers(np.random.RandomState):
        if name.startswith("_"):
            continue
        ours = getattr(R, name)
        want = list(inspect.signature(member).parameters.values())
        got = list(inspect.signature(ours).parameters.values())
        assert len(got) >= len(want), name
        for w, g in zip(want, got):
            if w.kind == w.VAR_POSITIONAL:  # rand(*args): ours are rand(*dims)
                assert g.kind == g.VAR_POSITIONAL, name
            else:
                assert (g.name, g.default) == (w.name, w.default), (name, g, w)


def test_module_has_numpys_functions_and_a_clean_namespace():
    algorithms = {"MT19937", "PCG64", "PCG64DXSM", "Philox", "SFC64"}
    public = {k for k in dir(cg.random) if not k.startswith("_")}
    assert set(np.random.__all__) - algorithms <= public
    assert {"get_bit_generator", "set_bit_generator"} <= public
    assert public == set(cg.random.__all__)
    assert not [k for k in public if isinstance(getattr(cg.random, k), types.ModuleType)]
    for name in sorted(algorithms) + ["mtrand", "bit_generator"]:
        with pytest.raises(AttributeError, match="default_rng|cgrad.random"):
            getattr(cg.random, name)
        assert not hasattr(cg.random, name)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        cg.random.nope
    for name in np.random.__all__:  # module-level functions take NumPy's parameters first
        if name in algorithms or isinstance(getattr(np.random, name), type):
            continue
        want = list(inspect.signature(getattr(np.random, name)).parameters)
        got = list(inspect.signature(getattr(cg.random, name)).parameters)
        assert want[0] == "args" or got[:len(want)] == want, (name, got, want)  # rand(*args), ranf(*args, **kw)


def test_randint_excludes_high_and_is_uniform():
    k = arr(R(31).randint(-3, 4, size=N))
    assert k.dtype == np.int64 and k.min() == -3 and k.max() == 3
    chi2_ok(k, lambda j: 1 / 7, -3)
    m = arr(cg.random.RandomState(32).randint(6, size=N, dtype=np.uint8))
    assert m.dtype == np.uint8 and m.max() == 5
    chi2_ok(m.astype(np.int64), lambda j: 1 / 6)
    b = arr(R(33).randint(0, 2, size=N, dtype=bool))
    assert b.dtype == np.bool_ and abs(b.mean() - 0.5) < 6 * math.sqrt(0.25 / N)
    a = arr(R(34).randint([0, 10], [3, 12], size=(N // 2, 2)))
    chi2_ok(a[:, 0], lambda j: 1 / 3)
    chi2_ok(a[:, 1], lambda j: 1 / 2, 10)


@pytest.mark.parametrize("call", [
    lambda m: m.randint(3, 3), lambda m: m.randint(5, 2), lambda m: m.randint(0, 300, dtype=np.uint8),
    lambda m: m.randint(-1, 3, dtype=np.uint8), lambda m: m.randint(0, 3, dtype=bool),
    lambda m: m.randint(0, 3, dtype=float), lambda m: m.randint(0, 2**31 + 1, dtype=np.int32),
    lambda m: m.randint([0, 0], [3, 300], dtype=np.uint8),
])
def test_randint_errors_are_numpys(call):
    with pytest.raises(Exception) as want:
        call(np.random.RandomState(0))
    with pytest.raises(want.type):
        call(R(0))


def test_random_integers_includes_high_and_warns_as_numpy():
    for args in ((5,), (2, 5)):
        with pytest.warns(DeprecationWarning) as want:
            np.random.RandomState(0).random_integers(*args)
        with pytest.warns(DeprecationWarning) as got:
            R(0).random_integers(*args)
        assert [str(w.message) for w in got] == [str(w.message) for w in want]
    with pytest.warns(DeprecationWarning, match=r"randint\(1, 6 \+ 1\)"):
        k = arr(R(35).random_integers(6, size=N))
    assert k.dtype == np.int64 and k.min() == 1 and k.max() == 6
    chi2_ok(k, lambda j: 1 / 6, 1)
    with pytest.warns(DeprecationWarning):
        k = arr(cg.random.random_integers(-2, 2, size=N))  # the module's, on the global stream
    chi2_ok(k, lambda j: 1 / 5, -2)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError):
        R(0).random_integers(5, 2)


erf = np.vectorize(math.erf)


def test_rand_randn_random_sample_follow_their_cdfs():
    rs = R(36)
    u = arr(rs.rand(N // 100, 100, dtype=cg.float64))
    assert u.shape == (N // 100, 100) and u.dtype == np.float64
    ks_ok(u.ravel(), lambda x: x)
    z = arr(rs.randn(N, dtype=cg.float64))
    ks_ok(z, lambda x: 0.5 * (1 + erf(x / math.sqrt(2))))
    ks_ok(arr(rs.random_sample(N, dtype=cg.float64)), lambda x: x)
    assert rs.rand().shape == () and rs.rand(3).dtype == cg.float32 and rs.randn(2, 3).dtype == cg.float32
    with pytest.raises(TypeError):
        rs.rand((2, 3))  # dims, not a shape tuple, as NumPy's


def test_tomaxint_covers_all_63_bits():
    k = arr(R(37).tomaxint(N))
    assert k.dtype == np.int64 and k.min() >= 0
    chi2_ok((k >> 59).astype(np.int64), lambda j: 1 / 16)  # the top 4 bits
    chi2_ok((k & 15).astype(np.int64), lambda j: 1 / 16)  # the low 4: not dropped by a 53-bit uniform


def test_every_distribution_on_a_random_state():
    # the distributions are _Sampler's, shared with Generator: the same stream gives the same numbers
    for name, args in (("beta", (2.0, 3.0)), ("binomial", (10, 0.3)), ("chisquare", (3.0,)),
                       ("dirichlet", ([1.0, 2.0],)), ("exponential", ()), ("f", (2.0, 3.0)), ("gamma", (2.0,)),
                       ("geometric", (0.3,)), ("gumbel", ()), ("hypergeometric", (5, 6, 4)), ("laplace", ()),
                       ("logistic", ()), ("lognormal", ()), ("logseries", (0.5,)), ("multinomial", (5, [0.5, 0.5])),
                       ("multivariate_normal", ([0.0, 0.0], np.eye(2))), ("negative_binomial", (3, 0.5)),
                       ("noncentral_chisquare", (2.0, 1.0)), ("noncentral_f", (2.0, 3.0, 1.0)), ("pareto", (2.0,)),
                       ("poisson", (4.0,)), ("power", (2.0,)), ("rayleigh", ()), ("standard_cauchy", ()),
                       ("standard_exponential", ()), ("standard_gamma", (2.0,)), ("standard_t", (3.0,)),
                       ("triangular", (0.0, 1.0, 2.0)), ("vonmises", (0.0, 1.0)), ("wald", (1.0, 1.0)),
                       ("weibull", (2.0,)), ("zipf", (2.0,)), ("uniform", ()), ("normal", ()),
                       ("standard_normal", ()), ("random", ())):
        x, y = getattr(R(40), name)(*args, size=7), getattr(cg.random.default_rng(40), name)(*args, size=7)
        assert x.shape[0] == 7 and np.array_equal(arr(x), arr(y)), name


def test_shuffle_lists_and_numpy_arrays_in_place():
    lst = list(range(20))
    R(41).shuffle(lst)
    assert sorted(lst) == list(range(20)) and lst != list(range(20))
    a = np.arange(24).reshape(6, 4)
    cg.random.default_rng(42).shuffle(a)
    assert sorted(a[:, 0].tolist()) == list(range(0, 24, 4)) and np.all(a[:, 1:] - a[:, :1] == [1, 2, 3])
    b = np.arange(24).reshape(4, 6)
    R(43).shuffle(b, axis=1)
    assert np.all(b - b[:1] == np.arange(0, 24, 6)[:, None])  # whole columns moved
    assert sorted(b[0].tolist()) == list(range(6))
    with pytest.raises(TypeError):
        R(0).shuffle((1, 2, 3))


def test_global_bit_generator():
    cg.random.seed(44)
    bg = cg.random.get_bit_generator()
    assert bg is cg.random.get_bit_generator() and bg.seed_seq.entropy == 44
    cg.random.random(3)
    assert bg.state["state"] == {"seed": 44, "counter": 1}  # a view of the process' stream
    cg.manual_seed(45)
    assert bg.seed_seq.entropy == 45
    other = cg.random.BitGenerator([4, 5])
    cg.random.set_bit_generator(other)
    assert cg.random.get_state() == ("cgrad", other.state["state"]["seed"], 0)
    assert bg.seed_seq.entropy == [4, 5]
    np.testing.assert_array_equal(arr(cg.random.random(6, dtype=cg.float64)), first(cg.random.Generator(other), 6))
    with pytest.raises(TypeError):
        cg.random.set_bit_generator(5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cg.random.seed(None)  # NumPy's: OS entropy
        cg.random.seed([1, 2])
