"""torch's CPU random generator: at::mt19937 with CPUGeneratorImpl's state, seeds and layout.

The 32-bit stream is the standard MT19937 one (init_genrand seeding), so numpy's
`MT19937` bit generator produces it, vectorised; this module adds what torch keeps
around it: the 64-bit seed (`initial_seed()` returns it whole, only its low 32 bits
seed the engine), the `left_`/`next_` counters of at::mt19937, the cached Box-Muller
sample, and `get_state()`'s 5056-byte CPUGeneratorImplState.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import TorchRuntimeError, TorchTypeError, TorchValueError
from . import unreproducible
from .batching.batched import TRANSFORMS
from .device import NO_CUDA_LIBRARY, Device

N = 624  # MERSENNE_STATE_N
DEFAULT_SEED = 67280421310721  # c10::detail::default_rng_seed_val, torch.Generator()'s seed
STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState) on x86-64

# Byte offsets in CPUGeneratorImplState (CPUGeneratorImplStateLegacy first).
_SEED, _LEFT, _SEEDED, _NEXT, _STATE = 0, 8, 12, 16, 24
_NORMAL_Y, _NORMAL_VALID, _FLOAT_NORMAL, _FLOAT_VALID = 5024, 5040, 5048, 5052


def _temper(y: np.ndarray) -> np.ndarray:
    y = y ^ (y >> np.uint64(11))
    y = y ^ ((y << np.uint64(7)) & np.uint64(0x9D2C5680))
    y = y ^ ((y << np.uint64(15)) & np.uint64(0xEFC60000))
    return (y ^ (y >> np.uint64(18))) & np.uint64(0xFFFFFFFF)


def seed_key(seed: int) -> np.ndarray:
    """at::mt19937's init_with_uint32: the state for the low 32 bits of `seed`."""
    key = np.empty(N, dtype=np.uint32)
    x = seed & 0xFFFFFFFF
    key[0] = x
    for j in range(1, N):
        x = (1812433253 * (x ^ (x >> 30)) + j) & 0xFFFFFFFF
        key[j] = x
    return key


def nondeterministic_seed() -> int:
    """c10::detail::getNonDeterministicRandom: 64 bits from the OS."""
    return int.from_bytes(os.urandom(8), "little")


def unpack_seed(seed: Any) -> int:
    """A Python int as torch's Generator.manual_seed reads it: uint64, or int64 reinterpreted."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TorchRuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    if -(1 << 63) <= seed < (1 << 64):
        return seed & 0xFFFFFFFFFFFFFFFF
    raise TorchValueError("Overflow when unpacking long long")


# what torch's CPU build says making a generator for another device (getNewGenerator)
_NO_GENERATOR = {
    "cuda": NO_CUDA_LIBRARY, "xpu": "Cannot get XPU generator without ATen_xpu library.",
    "mps": "Cannot execute getNewGenerator() without MPS backend.",
    "mtia": "Cannot execute getNewGenerator() without MTIA backend.",
    "hpu": "Backend doesn`t support getNewGenerator()",
    "privateuseone": "Please register PrivateUse1HooksInterface by "
                     "`RegisterPrivateUse1HooksInterface` first."}


class Generator:
    """A CPU torch.Generator (the class torch._C.Generator): `torch.Generator(device=None)`
    is seeded with default_rng_seed_val. `draw32(n)` is n calls of
    CPUGeneratorImpl::random()."""

    __slots__ = ("_bits", "_loaded", "_seed", "_counters", "_pending", "next_double_normal",
                 "next_float_normal", "seeded_by_os")
    __module__ = "torch._C"  # torch's: its repr and type(g).__module__

    def __init__(self, *args: Any, device: Any = None) -> None:
        if len(args) > 1:
            raise TorchTypeError("Generator() takes from 0 to 1 positional arguments but "
                                 f"{len(args)} were given")
        device = args[0] if args else device
        kind = "cpu" if device is None else Device(device).type  # (its parse errors)
        if kind != "cpu":
            raise TorchRuntimeError(_NO_GENERATOR.get(
                kind, f"{kind.upper()} device type not an accelerator."))
        # Whether the current seed came from the OS (the default generator's first one, in
        # every process as in torch; Generator.seed()): what it gives is unreproducible.
        self.seeded_by_os = False
        self._bits: Any = None  # numpy's MT19937, made on the first draw (below)
        self.manual_seed(DEFAULT_SEED)

    def _drawn(self) -> None:
        if TRANSFORMS.vmaps:  # a random op under vmap(randomness="error") is refused
            TRANSFORMS.check_random()
        if self.seeded_by_os:
            unreproducible.note(unreproducible.UNSEEDED_TORCH)

    # -- seeding ---------------------------------------------------------------

    def manual_seed(self, seed: Any) -> Generator:
        """set_current_seed: a fresh engine for `seed`, cached normals dropped."""
        seed = unpack_seed(seed)
        self._load(seed_key(seed), pos=N, counters=(1, 0))
        self._seed = seed
        self.seeded_by_os = False
        return self

    def seed(self) -> int:
        """Reseed from the OS and return the new seed, like Generator.seed()."""
        seed = nondeterministic_seed()
        self.manual_seed(seed)
        self.seeded_by_os = True
        return seed

    def initial_seed(self) -> int:
        self._drawn()
        return self._seed

    def _load(self, key: np.ndarray, pos: int, counters: tuple[int, int] | None,
              pending: np.ndarray | None = None) -> None:
        self._loaded = {"bit_generator": "MT19937",
                        "state": {"key": key.astype(np.uint32), "pos": pos}}
        self._bits = None
        # torch's (left_, next_) where they are not 625 - pos and pos (a fresh seed, or a
        # state set by hand), with the outputs such a state yields before its next twist.
        self._counters = counters
        self._pending = pending
        self.next_double_normal: float | None = None
        self.next_float_normal: float | None = None

    def _engine(self) -> Any:
        """numpy's MT19937 in the loaded state. Made when a draw first needs it: importing
        numpy.random costs start-up ~9 ms, and seeding or saving a state needs none."""
        if self._bits is None:
            from numpy.random import MT19937

            self._bits = MT19937(0)
            self._bits.state = self._loaded
        return self._bits

    def _state(self) -> dict[str, Any]:
        """The engine's state as numpy's MT19937.state gives it."""
        return self._loaded if self._bits is None else self._bits.state

    # -- drawing ---------------------------------------------------------------

    def draw32(self, n: int) -> np.ndarray:
        """n 32-bit outputs (as uint64), in order."""
        if n <= 0:
            return np.empty(0, dtype=np.uint64)
        self._drawn()
        head = None
        if self._pending is not None and len(self._pending):
            head, self._pending = self._pending[:n], self._pending[n:]
            left, nxt = self._counters
            self._counters = (left - len(head), nxt + len(head))
            n -= len(head)
            if n == 0:
                return head
        self._counters = None
        self._pending = None
        out = self._engine().random_raw(n).astype(np.uint64)
        return out if head is None else np.concatenate([head, out])

    def draw64(self, n: int) -> np.ndarray:
        """n calls of random64(): two 32-bit outputs each, the first as the high half."""
        raw = self.draw32(2 * n)
        return (raw[0::2] << np.uint64(32)) | raw[1::2]

    # -- state ---------------------------------------------------------------

    def snapshot(self) -> tuple:
        """Where the generator is (no draw, no check): for vmap(randomness="same"), whose
        examples all draw the same numbers."""
        return (self._state(), self._seed, self._counters, self._pending,
                self.next_double_normal, self.next_float_normal)

    def restore(self, snap: tuple) -> None:
        (state, self._seed, self._counters, self._pending, self.next_double_normal,
         self.next_float_normal) = snap
        self._loaded, self._bits = state, None

    def get_state(self) -> np.ndarray:
        """CPUGeneratorImplState as bytes, the uint8 tensor torch.get_rng_state() returns."""
        self._drawn()
        state = self._state()["state"]
        key, pos = state["key"], int(state["pos"])
        left, nxt = self._counters if self._counters is not None else (N + 1 - pos, pos)
        out = np.zeros(STATE_SIZE, dtype=np.uint8)
        out[_SEED:_SEED + 8] = np.frombuffer(np.uint64(self._seed).tobytes(), np.uint8)
        out[_LEFT:_LEFT + 4] = np.frombuffer(np.int32(left).tobytes(), np.uint8)
        out[_SEEDED] = 1
        out[_NEXT:_NEXT + 8] = np.frombuffer(np.uint64(nxt).tobytes(), np.uint8)
        out[_STATE:_STATE + 8 * N] = np.frombuffer(key.astype("<u8").tobytes(), np.uint8)
        if self.next_double_normal is not None:
            out[_NORMAL_Y:_NORMAL_Y + 8] = np.frombuffer(
                np.float64(self.next_double_normal).tobytes(), np.uint8)
            out[_NORMAL_VALID] = 1
        if self.next_float_normal is not None:
            out[_FLOAT_NORMAL:_FLOAT_NORMAL + 4] = np.frombuffer(
                np.float32(self.next_float_normal).tobytes(), np.uint8)
            out[_FLOAT_VALID] = 1
        return out

    def set_state(self, data: np.ndarray) -> None:
        """CPUGeneratorImpl::set_state from the bytes get_state() produced."""
        if data.size != STATE_SIZE:
            raise TorchRuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input "
                f"RNG state size to be {data.size}")
        raw = np.ascontiguousarray(data.reshape(-1), dtype=np.uint8).tobytes()

        def field(offset: int, dtype: str) -> Any:
            return np.frombuffer(raw, dtype=dtype, count=1, offset=offset)[0]

        left = int(field(_LEFT, "<i4"))
        nxt = int(field(_NEXT, "<u8")) & 0xFFFFFFFF
        seeded = int(field(_SEEDED, "<i4")) != 0
        if not (seeded and 0 < left <= N and nxt <= N):
            raise TorchRuntimeError("Invalid mt19937 state")
        key = np.frombuffer(raw, dtype="<u8", count=N, offset=_STATE).astype(np.uint32)
        if left + nxt == N + 1:
            self._load(key, pos=nxt, counters=None)
        else:
            # at::mt19937 hands out state_[next_ ...] untwisted until left_ runs out; the
            # array ends at N (torch would read past it).
            pending = _temper(key[nxt:min(N, nxt + left - 1)].astype(np.uint64))
            self._load(key, pos=N, counters=(left, nxt), pending=pending)
        self._seed = int(field(_SEED, "<u8"))
        if int(field(_NORMAL_VALID, "<i4")):
            self.next_double_normal = float(field(_NORMAL_Y, "<f8"))
        if raw[_FLOAT_VALID]:
            self.next_float_normal = float(field(_FLOAT_NORMAL, "<f4"))
        self.seeded_by_os = False

    @property
    def device(self) -> str:
        return "cpu"



# The default generator, seeded from the OS once per process as torch's is.
DEFAULT = Generator().manual_seed(nondeterministic_seed())
DEFAULT.seeded_by_os = True


def resolve(generator: Generator | None) -> Generator:
    """A `generator=` argument: the default generator when None."""
    if generator is None:
        return DEFAULT
    if not isinstance(generator, Generator):
        raise TorchTypeError(
            f"expected a torch.Generator as generator, but got {type(generator).__name__}")
    return generator


def manual_seed(seed: Any) -> Generator:
    """torch.manual_seed: `int(seed)` first, as torch's Python wrapper does."""
    return DEFAULT.manual_seed(_python_int(seed))


def _python_int(value: Any) -> int:
    if isinstance(value, (bool, int)):
        return int(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise TorchValueError(
                "cannot convert float NaN to integer" if value != value
                else "cannot convert float infinity to integer")
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            raise TorchValueError(
                f"invalid literal for int() with base 10: {value!r}") from None
    raise TorchTypeError(
        "int() argument must be a string, a bytes-like object or a real number, not "
        f"'{type(value).__name__ if value is not None else 'NoneType'}'")


def seed() -> int:
    return DEFAULT.seed()


def initial_seed() -> int:
    return DEFAULT.initial_seed()
