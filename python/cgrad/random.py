"""cgrad.random: NumPy's random sampling over cgrad's counter-based streams (docs/semantics.md,
"Random numbers"; docs/python.md, "cgrad.random").

- The module-level functions (`np.random.normal(loc, scale, size)` and the like) draw from the one
  global stream of the process, seeded by `seed` (= `cgrad.manual_seed`): they are the methods of
  a hidden `RandomState` over it, as NumPy's are.
- `default_rng(seed)` gives a `Generator` with NumPy's Generator methods over a stream of its own
  (a `BitGenerator`: a C++ `cgrad::Generator`, a seed and a draw counter), independent of the
  global stream; `RandomState(seed)` is NumPy's legacy class over one. Seeds go through NumPy's
  `SeedSequence` (_bit_generator.py).

Each distribution is written once, as a method of `_Sampler` (_random_sampler.py), over two
primitive draws of its stream (`_uniform`, `_normal`: lazy tensors whose elements are functions of
(seed, index)); Generator and RandomState are samplers over a stream (`_Stream`, here).

Results are lazy: the numbers are drawn when the result is evaluated, inside the kernel that uses
them. The rejection samplers (gamma and what is built on it, poisson, binomial, zipf, logseries,
vonmises) draw every element's candidate lazily, then evaluate which were accepted and redraw the
rejected ones only, until none is left: a synchronisation point per round, as `nonzero`. Floating
results are float32 unless `dtype` says otherwise (NumPy: float64), integer-valued ones int64;
`size=None` gives the parameters' broadcast shape, a 0-d array for scalar parameters (NumPy: a
Python scalar). The values differ from NumPy's for the same seed (another generator); the
distributions are the same, exactly."""
import copy as _copy
import numbers as _numbers
import warnings as _warnings

from . import _api
from . import _cgrad
from ._bit_generator import BitGenerator, SeedSequence, _legacy_seed
from ._random_sampler import _Sampler

__all__ = ["seed", "get_state", "set_state", "default_rng", "Generator", "RandomState", "SeedSequence", "BitGenerator",
           "get_bit_generator", "set_bit_generator", "random", "random_sample", "sample", "ranf", "rand", "randn",
           "randint", "random_integers", "integers", "uniform", "normal", "standard_normal", "lognormal", "exponential",
           "standard_exponential", "laplace", "logistic", "gumbel", "standard_cauchy", "rayleigh", "weibull", "pareto",
           "power", "triangular", "wald", "standard_gamma", "gamma", "beta", "chisquare", "noncentral_chisquare",
           "noncentral_f", "standard_t", "f", "dirichlet", "bytes", "multivariate_normal", "geometric", "poisson",
           "binomial", "negative_binomial", "hypergeometric", "multinomial", "zipf", "logseries", "vonmises",
           "permutation", "permuted", "shuffle", "choice"]


class _Stream(_Sampler):
    """A sampler over a BitGenerator's stream (Generator, RandomState): its draws, copies and pickles."""

    def _attach(self, bits):
        self._bit, self._gen = bits, bits._gen

    def _uniform(self, shape, dtype, device):
        return _cgrad._rand_gen(_api._shape(shape), dtype._c, _api._dev(device), self._gen)

    def _normal(self, shape, dtype, device):
        return _cgrad._randn_gen(_api._shape(shape), dtype._c, _api._dev(device), self._gen)

    def __repr__(self):
        return f"{type(self).__name__}(seed={self._gen.seed}, draws={self._gen.counter})"

    def __copy__(self):
        """Continues from this stream's state on its own (over a copy of the bit generator)."""
        s = type(self).__new__(type(self))
        s._attach(_copy.copy(self._bit))
        return s

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __getstate__(self):  # pickle: the bit generator (its state and seed sequence)
        return (self._bit,)

    def __setstate__(self, state):
        self._attach(state[0])


class Generator(_Stream):
    """NumPy's Generator over a counter-based stream (a BitGenerator: a C++ cgrad::Generator, a
    64-bit seed and a draw counter), independent of the global stream and of other generators.
    Generator(seed): a BitGenerator (shared, as NumPy's Generator(bit_generator)), or a seed as
    default_rng takes it (None: OS entropy). Its draws are deterministic for its seed and call
    order; the stream of Generator(s), s < 2**64, is the global stream's after seed(s).
    copy.copy(g) continues from g's state on its own."""

    def __init__(self, seed=None):
        self._attach(seed if isinstance(seed, BitGenerator) else BitGenerator(seed))

    @property
    def bit_generator(self):
        """The BitGenerator this Generator draws from."""
        return self._bit

    def spawn(self, n_children):
        """n_children new Generators over the children of bit_generator.seed_seq (NumPy's
        Generator.spawn): independent of this one and of each other; a second spawn gives others."""
        return [Generator(b) for b in self._bit.spawn(n_children)]


_SEED_MAX = (1 << 32) - 1  # the largest seed NumPy's RandomState takes


class RandomState(_Stream):
    """NumPy's legacy RandomState over cgrad's counter-based stream, not the Mersenne Twister: the
    numbers differ from NumPy's for the same seed, the distributions are the same. RandomState(seed):
    None (OS entropy), an int in [0, 2**32 - 1] or a non-empty 1-d sequence of them (NumPy's rules and
    errors), a SeedSequence, or a BitGenerator (shared). The same seed gives the same draws.
    The distributions are Generator's (written once, in _Sampler; float32 unless dtype says
    otherwise), plus the legacy API: seed, get_state/set_state, rand, randn, randint (high excluded),
    random_integers (high included; deprecated, as NumPy's), random_sample, tomaxint. Generator's
    integers and permuted are there too (the module-level functions, this class' methods on the
    process' stream, always had them)."""

    def __init__(self, seed=None):
        self._attach(seed if isinstance(seed, BitGenerator) else BitGenerator(_legacy_seed(seed, _SEED_MAX)))

    def seed(self, seed=None):
        """Restarts the stream at seed (as RandomState(seed) takes it), draw 0."""
        self._bit._reseed(_legacy_seed(seed, _SEED_MAX))

    def get_state(self, legacy=True):
        """The stream's state, ("cgrad", seed, draws), for set_state (NumPy's: its Mersenne Twister's
        state, which cgrad does not have); legacy=False: the bit generator's state dict."""
        return ("cgrad", self._gen.seed, self._gen.counter) if legacy else self._bit.state

    def set_state(self, state):
        """Puts the stream back at a state from get_state() (either form): the draws that followed it
        follow again."""
        if isinstance(state, dict):
            self._bit.state = state
            return
        if not (isinstance(state, tuple) and len(state) == 3 and state[0] == "cgrad"
                and all(isinstance(v, _numbers.Integral) and 0 <= v < 1 << 64 for v in state[1:])):
            raise ValueError(f"cgrad.random.set_state: expected get_state()'s ('cgrad', seed, draws), got {state!r}")
        self._gen.set_state(int(state[1]), int(state[2]))

    random_sample = _Sampler.random

    def rand(self, *dims, dtype=None, device=None):
        """Uniform in [0, 1) of shape dims (d0, d1, ...)."""
        return self.random(dims, dtype, device)

    def randn(self, *dims, dtype=None, device=None):
        """Standard normal of shape dims (d0, d1, ...)."""
        return self.standard_normal(dims, dtype, device)

    def randint(self, low, high=None, size=None, dtype=int, device=None):
        """Uniform integers in [low, high) (high None: [0, low)): integers' (NumPy's errors: low >= high,
        bounds outside dtype's range)."""
        return self.integers(low, high, size, dtype, device=device)

    def random_integers(self, low, high=None, size=None, device=None):
        """Uniform integers in [low, high], high included (high None: [1, low]); int64. Deprecated, as
        NumPy's: a DeprecationWarning naming the randint call to use instead."""
        if high is None:
            low, high = 1, low
            _warnings.warn(f"This function is deprecated. Please call randint(1, {high} + 1) instead",
                           DeprecationWarning, stacklevel=2)
        else:
            _warnings.warn(f"This function is deprecated. Please call randint({low}, {high} + 1) instead",
                           DeprecationWarning, stacklevel=2)
        return self.integers(low, high, size, endpoint=True, device=device)

    def tomaxint(self, size=None, device=None):
        """Uniform int64 in [0, 2**63 - 1]: two draws, 31 and 32 bits (integers' 53-bit uniforms would
        leave the low bits out)."""
        hi = self.integers(0, 1 << 31, size, device=device)
        return hi * (1 << 32) + self.integers(0, 1 << 32, size, device=device)


def default_rng(seed=None):
    """A Generator: over seed when it is a BitGenerator, seed itself when it is a Generator (NumPy's
    rules), else seeded by seed (an int >= 0, a sequence of them, a SeedSequence; None: OS entropy)."""
    return seed if isinstance(seed, Generator) else Generator(seed)


# The process' stream (cgrad.manual_seed, cgrad.rand) as NumPy's hidden global RandomState: the
# module-level functions are its methods.
_global = RandomState(BitGenerator._over(_cgrad._default_generator()))


def seed(seed=None):
    """Seeds the process' stream, as RandomState.seed; any int below 2**64 too (cgrad.manual_seed's
    range; seed(s) is manual_seed(s))."""
    _global._bit._reseed(_legacy_seed(seed, (1 << 64) - 1))


def get_bit_generator():
    """The process' stream as a BitGenerator (its state is the stream's: a view, not a copy)."""
    return _global._bit


def set_bit_generator(bit_generator):
    """Puts the process' stream at bit_generator's state and seed sequence. A copy: drawing from
    bit_generator afterwards does not move the process' stream (NumPy's shares the object)."""
    if not isinstance(bit_generator, BitGenerator):
        raise TypeError(f"set_bit_generator: needs a BitGenerator, got {type(bit_generator).__name__}")
    _global._bit.state = bit_generator.state
    _global._bit._seq = _copy.copy(bit_generator.seed_seq)


get_state = _global.get_state
set_state = _global.set_state
# the module-level functions: the global stream's methods
random = _global.random
uniform = _global.uniform
normal = _global.normal
standard_normal = _global.standard_normal
lognormal = _global.lognormal
exponential = _global.exponential
standard_exponential = _global.standard_exponential
laplace = _global.laplace
logistic = _global.logistic
gumbel = _global.gumbel
standard_cauchy = _global.standard_cauchy
rayleigh = _global.rayleigh
weibull = _global.weibull
pareto = _global.pareto
power = _global.power
triangular = _global.triangular
wald = _global.wald
standard_gamma = _global.standard_gamma
gamma = _global.gamma
beta = _global.beta
chisquare = _global.chisquare
noncentral_chisquare = _global.noncentral_chisquare
noncentral_f = _global.noncentral_f
bytes = _global.bytes
standard_t = _global.standard_t
f = _global.f
dirichlet = _global.dirichlet
multivariate_normal = _global.multivariate_normal
geometric = _global.geometric
poisson = _global.poisson
binomial = _global.binomial
negative_binomial = _global.negative_binomial
hypergeometric = _global.hypergeometric
multinomial = _global.multinomial
zipf = _global.zipf
logseries = _global.logseries
vonmises = _global.vonmises
integers = _global.integers
permutation = _global.permutation
permuted = _global.permuted
shuffle = _global.shuffle
choice = _global.choice
random_sample = sample = ranf = _global.random_sample  # NumPy's legacy aliases
rand = _global.rand
randn = _global.randn
randint = _global.randint
random_integers = _global.random_integers



# NumPy's bit generators by algorithm, and its submodules: not here, with why and what to use
_NOT_HERE = {name: f"cgrad.random has no {name}: cgrad's generators all run cgrad's counter-based stream "
             f"(docs/semantics.md, 'Random numbers'), not NumPy's algorithms, so a class of that name would give "
             f"other numbers than NumPy's {name}; seed instead: default_rng(seed), Generator(BitGenerator(seed)) "
             f"or RandomState(seed), seed an int, a sequence of ints or a SeedSequence"
             for name in ("MT19937", "PCG64", "PCG64DXSM", "Philox", "SFC64")}
_NOT_HERE["mtrand"] = "cgrad.random has no mtrand submodule: RandomState and the legacy functions are in cgrad.random"
_NOT_HERE["bit_generator"] = ("cgrad.random has no bit_generator submodule: BitGenerator and SeedSequence are in "
                              "cgrad.random")


def __getattr__(name):
    if name in _NOT_HERE:
        raise AttributeError(_NOT_HERE[name])
    raise AttributeError(f"module 'cgrad.random' has no attribute {name!r}")
