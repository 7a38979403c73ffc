"""gradtrace's random numbers are torch 2.13's, bit for bit, without torch installed.

`tests/data/random_cases.json` holds, per case of `tests/tools/record_random.py`'s
`cases()`, a digest of every tensor (dtype, shape, bytes) and number the case emitted under
real torch, recorded with ATEN_CPU_CAPABILITY=avx2 and =default. Here the same case code
runs on gradtrace's engine with the same capability forced. Cases cover every random
function, sizes 1-70 and 1,000, float32/float64 and integer dtypes, the default generator
and torch.Generator objects, extra draws after each case (so consumption is checked),
seeds and get/set_rng_state round trips.
"""
from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from gradtrace import stdlib, torch_namespace
from gradtrace.engine import capability, generator
from gradtrace.engine.ops import sampling
from gradtrace.engine.tensor import Tensor

sys.path.insert(0, str(Path(__file__).parent / "tools"))
from record_random import cases, run_cases  # noqa: E402

DATA = json.loads((Path(__file__).parent / "data" / "random_cases.json").read_text())


class _Module:
    """`torch.x.y` for case code: gradtrace's namespaces as Python attributes."""

    def __init__(self, namespace: stdlib.Namespace):
        self._table = namespace.table

    def __getattr__(self, name: str):
        if name == "Generator":
            return _ScriptGenerator
        value = self._table[name]
        return _Module(value) if isinstance(value, stdlib.Namespace) else value


def _to_numpy(x):
    if isinstance(x, Tensor):
        return x.array
    if isinstance(x, generator.Generator):
        return "generator"
    return x


class _ScriptGenerator(generator.Generator):
    """A Generator with the methods scripts see (stdlib's table): states are Tensors."""

    __slots__ = ()

    def get_state(self):
        return Tensor._wrap(generator.Generator.get_state(self))

    def set_state(self, state):
        generator.Generator.set_state(self, sampling._state_bytes(state))
        return self


@pytest.mark.parametrize("cap", ["avx2", "default"])
def test_every_random_function_draws_torchs_numbers(cap, monkeypatch):
    monkeypatch.setattr(capability, "CAPABILITY", cap)
    torch = _Module(torch_namespace.TORCH)
    got = run_cases({"torch": torch, "F": torch.nn.functional}, _to_numpy)
    expected = DATA["digests"][cap]
    assert len(got) == len(expected)
    totals: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    failures = []
    for case, mine, theirs in zip(cases(), got, expected):
        key = f"{case['function']} [{case['generator']}]"
        totals[key][0] += mine == theirs
        totals[key][1] += 1
        if mine != theirs:
            failures.append(case["code"])
    report = "\n".join(f"{k}: {ok}/{n}" for k, (ok, n) in sorted(totals.items()))
    print(f"match rates under {cap}:\n{report}")
    assert not failures, f"{len(failures)} cases differ, first:\n{failures[0]}\n{report}"


def test_manual_seed_returns_the_default_generator_printed_like_torchs():
    g = generator.manual_seed(3)
    assert g is generator.DEFAULT
    assert repr(g).startswith("<torch._C.Generator object at 0x")


def test_unseeded_generators_differ_run_to_run():
    a = generator.Generator().manual_seed(generator.nondeterministic_seed())
    b = generator.Generator().manual_seed(generator.nondeterministic_seed())
    assert a.initial_seed() != b.initial_seed()
    assert not np.array_equal(a.draw32(8), b.draw32(8))


def test_seed_reseeds_from_the_os_with_64_bits():
    g = generator.Generator()
    seeds = {g.seed() for _ in range(4)}
    assert len(seeds) == 4 and max(seeds) >= 2 ** 32


def test_a_state_set_by_hand_yields_its_untwisted_words_first():
    g = generator.Generator().manual_seed(11)
    state = g.get_state()
    state[8:12] = np.frombuffer(np.int32(5).tobytes(), np.uint8)  # left_ = 5, next_ = 0
    g.set_state(state)
    first = g.draw32(4)
    assert g.get_state()[8] == 1 and g.get_state()[16] == 4
    fresh = generator.Generator().manual_seed(11)
    key = generator.seed_key(11).astype(np.uint64)
    assert np.array_equal(first, generator._temper(key[:4]))
    assert not np.array_equal(first, fresh.draw32(4))


def test_randperm_matches_the_sequential_shuffle():
    for n in (2, 3, 10, 257, 5000):
        g1, g2 = generator.Generator().manual_seed(n), generator.Generator().manual_seed(n)
        fast = sampling.dist.randperm(g1, n)
        draws = g2.draw32(n - 1)
        slow = list(range(n))
        for i in range(n - 1):
            z = i + int(draws[i]) % (n - i)
            slow[i], slow[z] = slow[z], slow[i]
        assert fast.tolist() == slow


# ---------------------------------------------------------------- scripts (and hostile ones)

def _run(text: str):
    from gradtrace.runner import run_text

    return run_text("import torch\nimport torch.nn.functional as F\n" + text)


def test_scripts_print_torchs_generator_and_its_methods():
    result = _run("g = torch.Generator()\nprint(g.initial_seed(), g.device)\n"
                  "print(g.manual_seed(3) is g, g.initial_seed())\n"
                  "print(torch.manual_seed(0))\n")
    assert result.error is None
    lines = result.stdout.splitlines()
    assert lines[:2] == ["67280421310721 cpu", "True 3"]
    assert lines[2].startswith("<torch._C.Generator object at 0x")


@pytest.mark.parametrize("expr", ["g._bits", "g.__class__.__dict__", "g._seed", "g.__init__",
                                  "torch.default_generator._pending", "g.get_state.__self__",
                                  "torch.nn.init.__dict__['__builtins__']"])
def test_generators_and_init_expose_no_python_internals(expr):
    result = _run(f"g = torch.Generator()\nx = {expr}\n")
    assert result.error is not None
    assert result.error.kind in ("NotSupportedError", "AttributeError")
    assert result.stdout == ""


def test_bad_seeds_and_states_raise_torchs_errors():
    cases = {
        "torch.manual_seed(2 ** 64)": ("ValueError", "Overflow when unpacking long long"),
        "torch.Generator().manual_seed(1.5)": (
            "RuntimeError", "manual_seed expected a long, but got float"),
        "torch.set_rng_state(torch.zeros(5056))": (
            "TypeError", "RNG state must be a torch.ByteTensor"),
        "torch.set_rng_state(torch.zeros(10, dtype=torch.uint8))": (
            "RuntimeError", "Expected a CPUGeneratorImplState of size 5056 but found the input "
                            "RNG state size to be 10"),
        "F.dropout(torch.ones(2), 1.5)": (
            "ValueError", "dropout probability has to be between 0 and 1, but got 1.5"),
    }
    for code, (kind, message) in cases.items():
        error = _run(code + "\n").error
        assert (error.kind, error.message) == (kind, message), code


def test_sampling_factories_return_version_zero_tensors():
    # torch 2.13: each prints 0 (its factories fill new tensors below autograd); gradtrace's
    # normal(mean, std, size) and randint fill theirs with the in-place samplers
    gen = generator.Generator().manual_seed(0)
    made = [sampling.normal(0.0, 1.0, (3, 2), generator=gen),
            sampling.normal(Tensor._wrap(np.zeros(2, np.float32)), 1.0, generator=gen),
            sampling.randint(0, 5, (2,), generator=gen),
            sampling.randint_like(Tensor._wrap(np.zeros(2, np.float32)), 3, generator=gen),
            sampling.randn(2, generator=gen), sampling.randperm(3, generator=gen)]
    assert [t._version for t in made] == [0] * len(made)
