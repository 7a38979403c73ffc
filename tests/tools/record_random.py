"""Record torch 2.13's random numbers for tests/test_random_parity.py.

Run under a Python that has torch 2.13 (the project venv does not):

    python tests/tools/record_random.py > tests/data/random_cases.json

It runs every case of `cases()` under each CPU capability this machine can force
(ATEN_CPU_CAPABILITY=avx2 and default, in subprocesses) and stores, per case, the
SHA-256 of everything the case emitted: each tensor's dtype, shape and raw bytes (or a
number's repr), in order. A case ends with extra draws, so a wrong number of draws shows.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

SIZES = list(range(1, 71)) + [1000]
FLOATS = ("float32", "float64")
SEEDS = (0, 42)
STATE_SEEDS = (0, 1, 42, 2**32 + 5, 2**63 + 7, 2**64 - 1, -1)


def _variants(body: str, seed: int) -> list[tuple[str, str]]:
    """The body drawing from the default generator, and from a torch.Generator (`G`)."""
    tail = "out(torch.rand(3)); out(torch.randn(2, dtype=torch.float64))"
    default = (f"torch.manual_seed({seed})\n"
               + body.replace("GENONLY", "").replace("GEN", "") + "\n" + tail)
    own = (f"torch.manual_seed(5); g = torch.Generator().manual_seed({seed})\n"
           + body.replace("GENONLY", "generator=g").replace("GEN", ", generator=g")
           + f"\n{tail}\nout(torch.rand(4, generator=g))")
    return [("default", default), ("generator", own)]


def cases() -> list[dict]:
    out: list[dict] = []

    def add(function: str, body: str, seeds: tuple[int, ...] = (0,)) -> None:
        for seed in seeds:
            for gen, code in _variants(body, seed):
                out.append({"function": function, "generator": gen, "code": code})

    for n in SIZES:
        for dt in FLOATS:
            d = f"dtype=torch.{dt}"
            add("rand", f"out(torch.rand({n}, {d}GEN)); out(torch.rand(2, {n}, {d}GEN))", SEEDS)
            add("randn", f"out(torch.randn({n}, {d}GEN)); out(torch.randn({n}, 2, {d}GEN))", SEEDS)
            add("normal(float, float, size)", f"out(torch.normal(0.5, 2.5, ({n},), {d}GEN))")
            add("normal(Tensor, Tensor)", f"m = torch.arange({n}, {d}) / 7\n"
                f"s = torch.arange({n}, {d}) / 11 + 0.5\nout(torch.normal(m, sGEN))")
            add("normal(Tensor, float)",
                f"out(torch.normal(torch.arange({n}, {d}) / 3, 0.7GEN))")
            add("normal(float, Tensor)",
                f"out(torch.normal(-0.3, torch.arange({n}, {d}) / 5 + 1GEN))")
            add("Tensor.uniform_", f"out(torch.empty({n}, {d}).uniform_(-0.37, 1.91GEN))")
            add("Tensor.normal_", f"out(torch.empty({n}, {d}).normal_(0.3, 1.7GEN))")
            add("Tensor.exponential_", f"out(torch.empty({n}, {d}).exponential_(2.5GEN))")
            add("Tensor.cauchy_", f"out(torch.empty({n}, {d}).cauchy_(0.5, 1.5GEN))")
            add("Tensor.bernoulli_(p)", f"out(torch.empty({n}, {d}).bernoulli_(0.3GEN))")
            add("bernoulli(Tensor)",
                f"p = torch.linspace(0, 1, {n}, {d})\nout(torch.bernoulli(pGEN))\n"
                f"out(torch.zeros({n}).bernoulli_(pGEN))")
            add("rand_like/randn_like", f"x = torch.zeros({n}, 2, {d})\n"
                f"out(torch.rand_like(x)); out(torch.randn_like(x))\n"
                f"out(torch.rand_like(x.t())); out(torch.randn_like(x.t()))\n"
                f"out(torch.randint_like(x.t(), 9))")
            add("Tensor.random_", f"out(torch.empty({n}, {d}).random_(GENONLY))\n"
                f"out(torch.empty({n}, {d}).random_(7GEN))\n"
                f"out(torch.empty({n}, {d}).random_(-3, 9GEN))")
            add("F.dropout", f"x = torch.arange(1, {n} + 1, {d})\n"
                f"out(F.dropout(x, 0.3)); out(F.dropout(x.reshape(1, {n}), 0.5))")
            add("nn.init", f"w = torch.empty({n}, 3, {d})\n"
                f"out(torch.nn.init.uniform_(w, -0.5, 0.5GEN))\n"
                f"out(torch.nn.init.normal_(w, 0.1, 0.2GEN))\n"
                f"out(torch.nn.init.xavier_uniform_(wGEN)); "
                f"out(torch.nn.init.xavier_normal_(wGEN))\n"
                f"out(torch.nn.init.kaiming_uniform_(w, a=5 ** 0.5GEN))\n"
                f"out(torch.nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu'GEN))")
            add("nn.init.trunc_normal_", f"w = torch.empty({n}, 3, {d})\n"
                f"out(torch.nn.init.trunc_normal_(wGEN))\n"
                f"out(torch.nn.init.trunc_normal_(w, std=0.02GEN))\n"
                f"out(torch.nn.init.trunc_normal_(w, 0.5, 2.0, -0.1, 0.3GEN))\n"
                f"out(torch.nn.init.trunc_normal_(w, 3.0, 0.5, -1.0, 1.0GEN))\n"
                f"out(torch.nn.init.trunc_normal_(w.t(), -1.0, 1.0, 0.0, 4.0GEN))", SEEDS)
            add("nn.init.sparse_", f"w = torch.empty({n}, 3, {d})\n"
                f"out(torch.nn.init.sparse_(w, 0.3GEN)); out(torch.nn.init.sparse_(w, 0.9))")
        for it in ("int64", "int32", "int16", "int8", "uint8", "bool"):
            add("Tensor.random_ (integer)",
                f"out(torch.empty({n}, dtype=torch.{it}).random_(GENONLY))\n"
                f"out(torch.empty({n}, dtype=torch.{it}).random_(2GEN))")
        for it in ("int64", "int32", "float32", "float64"):
            add("randint", f"out(torch.randint(3, 17, ({n},), dtype=torch.{it}GEN))\n"
                f"out(torch.randint(5, ({n},), dtype=torch.{it}GEN))\n"
                f"out(torch.randint(-2**40, 2**40, ({n},), dtype=torch.{it}GEN))"
                if it in ("int64", "float64") else
                f"out(torch.randint(3, 17, ({n},), dtype=torch.{it}GEN))\n"
                f"out(torch.randint(5, ({n},), dtype=torch.{it}GEN))")
        add("randint(size=)", f"out(torch.randint(10, size=({n},)GEN))\n"
            f"out(torch.randint(low=2, high=9, size=(2, {n})GEN))\n"
            f"out(torch.randint_like(torch.zeros({n}), 4)); "
            f"out(torch.randint_like(torch.zeros({n}), 2, 6))")
        add("randperm", f"out(torch.randperm({n}GEN)); "
            f"out(torch.randperm({n}, dtype=torch.float32GEN))",
            SEEDS)
        add("multinomial", f"p = torch.arange(1, {n} + 1, dtype=torch.float32) ** 0.5\n"
            f"out(torch.multinomial(p, 1GEN)); out(torch.multinomial(p, {min(n, 5)}GEN))\n"
            f"out(torch.multinomial(p, 7, replacement=TrueGEN))\n"
            f"out(torch.multinomial(p, 1, replacement=TrueGEN))\n"
            f"out(torch.multinomial(torch.stack([p, p.flip(0)]), {min(n, 3)}GEN))\n"
            f"out(torch.multinomial(torch.stack([p, p.flip(0)]).to(torch.float64), 4, True GEN))")
    for n in (16, 48, 1000):
        add("F.dropout2d", f"x = torch.ones(2, {n // 16}, 4, 4)\nout(F.dropout2d(x, 0.4))")
    for seed in STATE_SEEDS:
        out.append({"function": "seeds and state", "generator": "default", "code":
                    f"out(torch.manual_seed({seed}).initial_seed()); out(torch.initial_seed())\n"
                    "out(torch.get_rng_state()); out(torch.randn(5)); out(torch.get_rng_state())\n"
                    "s = torch.get_rng_state(); a = torch.randn(40); b = torch.rand(700)\n"
                    "torch.set_rng_state(s); out(torch.randn(40)); out(torch.rand(700))\n"
                    "out(torch.get_rng_state())"})
        out.append({"function": "seeds and state", "generator": "generator", "code":
                    f"g = torch.Generator(); out(g.initial_seed()); out(g.get_state())\n"
                    f"g.manual_seed({seed}); out(g.initial_seed()); "
                    "out(torch.randn(3, generator=g))\n"
                    "s = g.get_state(); out(s); a = torch.rand(1000, generator=g)\n"
                    "g.set_state(s); out(torch.rand(1000, generator=g)); out(g.get_state())\n"
                    "h = torch.Generator().set_state(s); out(torch.randn(7, generator=h))"})
    for seed in SEEDS:
        out.append({"function": "interleaved", "generator": "default", "code":
                    f"torch.manual_seed({seed})\n"
                    "for n in [1, 3, 15, 16, 17, 2, 33, 1, 5, 64, 7]:\n"
                    "    out(torch.randn(n)); out(torch.rand(1)); "
                    "out(torch.randn(n, dtype=torch.float64))\n"
                    "    out(torch.randint(0, 1000, (n,))); out(torch.randperm(n))\n"
                    "    out(torch.empty(n).normal_()); out(torch.get_rng_state())"})
    return out


def _digest(values: list) -> str:
    import numpy as np

    h = hashlib.sha256()
    for v in values:
        if isinstance(v, np.ndarray):
            h.update(f"{v.dtype.name}{v.shape}".encode())
            h.update(np.ascontiguousarray(v).tobytes())
        else:
            h.update(repr(v).encode())
    return h.hexdigest()[:16]


def run_cases(namespace: dict, to_numpy) -> list[str]:
    """Run every case, `out(x)` collecting x; return one digest per case."""
    digests = []
    for case in cases():
        values: list = []
        namespace["out"] = lambda x, values=values: values.append(to_numpy(x))
        exec(case["code"], dict(namespace))
        digests.append(_digest(values))
    return digests


def _record_here() -> None:
    import torch
    import torch.nn.functional as F

    def to_numpy(x):
        return x.numpy() if isinstance(x, torch.Tensor) else x

    print(json.dumps(run_cases({"torch": torch, "F": F}, to_numpy)))


def main() -> None:
    if sys.argv[1:] == ["--here"]:
        _record_here()
        return
    import torch

    recorded = {}
    for cap in ("avx2", "default"):
        env = dict(os.environ, ATEN_CPU_CAPABILITY=cap)
        result = subprocess.run([sys.executable, __file__, "--here"], env=env, check=True,
                                capture_output=True, text=True)
        recorded[cap] = json.loads(result.stdout)
    json.dump({"torch": torch.__version__, "digests": recorded}, sys.stdout, indent=0)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
