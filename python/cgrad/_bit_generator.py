"""cgrad.random's seeds: NumPy's `SeedSequence` (the published design: Melissa O'Neill's
seed_seq-style hashing of the entropy into a pool, then of the pool into words), and `BitGenerator`,
the owner of one cgrad stream (a C++ `cgrad::Generator`: a 64-bit seed and a draw counter) that
Generator and RandomState draw from.

Every seed becomes a SeedSequence, and a SeedSequence becomes the stream's 64-bit seed (`_stream_seed`):
its entropy itself where that is one int below 2**64 (unspawned, default pool), so that
`default_rng(s)` stays the global stream after `seed(s)`; otherwise the first 64-bit word of its
`generate_state`. So `default_rng(x)` and `default_rng(SeedSequence(x))` are the same stream, as NumPy's."""
import numbers as _numbers
import operator as _operator

from . import _api
from . import _cgrad
from . import _dtypes as _dt

_MASK = 0xFFFFFFFF
_POOL_SIZE = 4
# The hash constants of the design (NumPy's bit_generator.pyx uses the same, so states agree bit for bit)
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875  # hashing entropy into the pool
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED  # hashing the pool into output words
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715  # combining two pool words


def _words32(x):
    """x, an int >= 0 or a (nested) sequence of them, as 32-bit words, least significant first (0 is one
    word; a sequence's words are its elements' words in order)."""
    if isinstance(x, _numbers.Integral):
        n = _operator.index(x)
        if n < 0:
            raise ValueError("expected non-negative integer")
        words = [n & _MASK]
        while n > _MASK:
            n >>= 32
            words.append(n & _MASK)
        return words
    if isinstance(x, (_numbers.Number, str, bytes)):
        raise TypeError(f"seed must be integer, got {x!r}")
    if hasattr(x, "tolist") and not isinstance(x, (list, tuple, range)):  # NumPy and cgrad arrays
        return _words32(x.tolist())
    return [w for v in x for w in _words32(v)]


class _Hash:
    """The multiplicative hash whose multiplier moves on at every use (the design's hashmix)."""

    def __init__(self, init, mult):
        self.const, self.mult = init, mult

    def __call__(self, value):
        value ^= self.const
        self.const = (self.const * self.mult) & _MASK
        value = (value * self.const) & _MASK
        return value ^ (value >> 16)


def _mix(x, y):
    r = (_MIX_L * x - _MIX_R * y) & _MASK
    return r ^ (r >> 16)


class SeedSequence:
    """NumPy's SeedSequence: hashes entropy (an int >= 0 or a sequence of them; None: pool_size 32-bit
    words from the OS) and a spawn key into a pool of pool_size 32-bit words, from which
    `generate_state` makes any number of well-mixed words; `spawn` makes children with distinct spawn
    keys. Its words are NumPy's, bit for bit. A Generator, RandomState or BitGenerator takes one as a
    seed."""

    def __init__(self, entropy=None, *, spawn_key=(), pool_size=_POOL_SIZE, n_children_spawned=0):
        pool_size = _operator.index(pool_size)
        if pool_size < _POOL_SIZE:
            raise ValueError(f"The size of the entropy pool should be at least {_POOL_SIZE}")
        if entropy is None:
            import secrets  # (imported here: it pulls in hashlib and random, 2 ms of `import cgrad`)

            entropy = secrets.randbits(pool_size * 32)
        elif not isinstance(entropy, (_numbers.Integral, list, tuple, range)) and not hasattr(entropy, "tolist"):
            raise TypeError(f"SeedSequence expects int or sequence of ints for entropy not {entropy!r}")
        self.entropy = entropy
        self.spawn_key = tuple(spawn_key)
        self.pool_size = pool_size
        self.n_children_spawned = _operator.index(n_children_spawned)
        self._pool = self._mixed(self._assembled())

    def _assembled(self):
        """The entropy's words then the spawn key's; with a spawn key, the entropy is padded with zeros to
        the pool size first, so that a child's key cannot read as a parent's entropy (NumPy 1.19's rule)."""
        run, key = _words32(self.entropy), _words32(self.spawn_key)
        if key and len(run) < self.pool_size:
            run += [0] * (self.pool_size - len(run))
        return run + key

    def _mixed(self, words):
        """The pool: the first pool_size words hashed in (zeros past the entropy's end), every word mixed
        into every other so late words reach early ones, then the words past the pool mixed into each."""
        h, n = _Hash(_INIT_A, _MULT_A), self.pool_size
        pool = [h(words[i] if i < len(words) else 0) for i in range(n)]
        for src in range(n):
            for dst in range(n):
                if src != dst:
                    pool[dst] = _mix(pool[dst], h(pool[src]))
        for w in words[n:]:
            for dst in range(n):
                pool[dst] = _mix(pool[dst], h(w))
        return pool

    def _words(self, n_words):
        """n_words 32-bit words as Python ints: the pool, cycled, through the output hash."""
        h = _Hash(_INIT_B, _MULT_B)
        return [h(self._pool[i % self.pool_size]) for i in range(n_words)]

    def generate_state(self, n_words, dtype=_dt.uint32):
        """n_words words of state: a uint32 array, or a uint64 one (each word two 32-bit words, the
        first the low half, as NumPy's on every platform)."""
        d = _dt.as_dtype(dtype)
        if d not in (_dt.uint32, _dt.uint64):
            raise ValueError("only support uint32 or uint64")
        n = _operator.index(n_words)
        if n < 0:
            raise ValueError("negative dimensions are not allowed")
        w = self._words(n * (2 if d == _dt.uint64 else 1))
        words = w if d == _dt.uint32 else [w[2 * i] | w[2 * i + 1] << 32 for i in range(n)]
        return _api.asarray(words, dtype=d)

    def spawn(self, n_children):
        """n_children SeedSequences of this entropy whose spawn keys extend this one's by their index; a
        second spawn goes on from the children already spawned."""
        n = _operator.index(n_children)
        if n < 0:
            raise ValueError(f"n_children must be >= 0, got {n}")
        first, self.n_children_spawned = self.n_children_spawned, self.n_children_spawned + n
        return [type(self)(self.entropy, spawn_key=self.spawn_key + (i,), pool_size=self.pool_size)
                for i in range(first, first + n)]

    @property
    def state(self):
        return {"entropy": self.entropy, "spawn_key": self.spawn_key, "pool_size": self.pool_size,
                "n_children_spawned": self.n_children_spawned}

    def __repr__(self):
        lines = [f"    entropy={self.entropy!r},"]
        if self.spawn_key:
            lines.append(f"    spawn_key={self.spawn_key!r},")
        if self.pool_size != _POOL_SIZE:
            lines.append(f"    pool_size={self.pool_size!r},")
        if self.n_children_spawned:
            lines.append(f"    n_children_spawned={self.n_children_spawned!r},")
        return "SeedSequence(\n" + "\n".join(lines) + "\n)"


def _stream_seed(seq):
    """The 64-bit seed of the stream a SeedSequence gives (see the module's docstring)."""
    e = seq.entropy
    if not seq.spawn_key and seq.pool_size == _POOL_SIZE and isinstance(e, _numbers.Integral) and 0 <= e < 1 << 64:
        return int(e)
    lo, hi = seq._words(2)
    return lo | hi << 32


def _seed_sequence(seed):
    """A seed as Generator and default_rng take it (None, an int >= 0, a sequence of them, a SeedSequence)."""
    return seed if isinstance(seed, SeedSequence) else SeedSequence(seed)


def _legacy_seed(seed, high):
    """A seed as NumPy's RandomState.seed takes it, with its errors: None, an int in [0, high], a non-empty
    1-d sequence of them; a SeedSequence too (cgrad's)."""
    if seed is None or isinstance(seed, SeedSequence):
        return _seed_sequence(seed)
    if hasattr(seed, "squeeze"):  # an array: a one-element one reads as its element, as NumPy's
        seed = seed.squeeze().tolist()
    if isinstance(seed, _numbers.Integral):
        words, scalar = [_operator.index(seed)], True
    else:
        scalar = False
        try:
            if isinstance(seed, (str, bytes)):
                raise TypeError
            words = list(seed)
            if not words:
                raise ValueError("Seed must be non-empty")
            if any(isinstance(w, (list, tuple)) for w in words):
                raise ValueError("Seed array must be 1-d")
            words = [_operator.index(w) for w in words]
        except TypeError:
            raise TypeError(f"Seed must be an int or a 1-d sequence of ints, got {seed!r}") from None
    if any(not 0 <= w <= high for w in words):
        raise ValueError(f"Seed must be between 0 and 2**{high.bit_length()} - 1")
    return SeedSequence(words[0] if scalar else words)


class BitGenerator:
    """cgrad's bit generator: a counter-based stream (docs/semantics.md, "Random numbers": a 64-bit seed
    and a draw counter; each draw's elements are functions of (seed, counter, index)). NumPy's name for
    the base of its algorithms; cgrad has this one only, so BitGenerator(seed) is concrete (NumPy's is
    abstract). seed: None, an int >= 0, a sequence of them, or a SeedSequence (the stream's seed as the
    module's docstring says). Generators and RandomStates made over it share its stream."""

    def __init__(self, seed=None):
        seq = _seed_sequence(seed)
        self._gen = _cgrad._Generator(_stream_seed(seq))
        self._seq = seq

    @classmethod
    def _over(cls, gen):
        """A BitGenerator over an existing stream (the process' global one)."""
        b = cls.__new__(cls)
        b._gen, b._seq = gen, None
        return b

    def _reseed(self, seq):
        """Restarts the stream at seq's seed, draw 0 (RandomState.seed)."""
        self._gen.set_state(_stream_seed(seq), 0)
        self._seq = seq

    @property
    def seed_seq(self):
        """The SeedSequence the stream was seeded from; SeedSequence(seed) of its 64-bit seed where the
        stream has been moved to another seed since (set_state, manual_seed)."""
        if self._seq is None or _stream_seed(self._seq) != self._gen.seed:
            self._seq = SeedSequence(self._gen.seed)
        return self._seq

    @property
    def state(self):
        """{"bit_generator": "cgrad", "state": {"seed": s, "counter": draws}}; assigning one puts the stream
        back there."""
        return {"bit_generator": "cgrad", "state": {"seed": self._gen.seed, "counter": self._gen.counter}}

    @state.setter
    def state(self, value):
        if not isinstance(value, dict):
            raise TypeError("state must be a dict")
        inner = value.get("state")
        if (value.get("bit_generator") != "cgrad" or not isinstance(inner, dict)
                or not all(isinstance(inner.get(k), _numbers.Integral) and 0 <= inner[k] < 1 << 64
                           for k in ("seed", "counter"))):
            raise ValueError(f"state must be a cgrad BitGenerator's state, got {value!r}")
        self._gen.set_state(int(inner["seed"]), int(inner["counter"]))

    def spawn(self, n_children):
        """n_children BitGenerators over the children of seed_seq (NumPy's BitGenerator.spawn)."""
        return [type(self)(s) for s in self.seed_seq.spawn(n_children)]

    def __repr__(self):
        return f"BitGenerator(seed={self._gen.seed}, draws={self._gen.counter})"

    def __copy__(self):
        """An owning copy: continues from this stream's state on its own."""
        b = type(self).__new__(type(self))
        b._gen, b._seq = self._gen.__copy__(), SeedSequence(**self.seed_seq.state)
        return b

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __getstate__(self):
        return (self._gen.seed, self._gen.counter, self.seed_seq)

    def __setstate__(self, state):
        seed, draws, self._seq = state
        self._gen = _cgrad._Generator(seed)
        self._gen.set_state(seed, draws)
