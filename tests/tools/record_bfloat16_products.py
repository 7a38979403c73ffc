"""Record torch 2.13's bfloat16 matrix products and 2-norms, bit for bit, for
tests/test_bfloat16.py.

Run under a Python with torch, on the corpus's recording capability (on AVX2 torch runs its
own gemm loops for bfloat16, not oneDNN's):

    ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 python tests/tools/record_bfloat16_products.py

Writes tests/data/bfloat16_products.npz: per case its operands' bfloat16 bit patterns (int16)
and torch's result's. The operands are chosen so that the order of the float32 additions
shows in the rounded result: products of 1, 2^-7, 2^-8 and values near 2^-24 (whose sum sits
on a bfloat16 rounding tie or off it by the few last float32 bits), and squares summing to a
tie of the square root; plus plain normal values of mixed magnitudes. Products are taken in
every operand layout addmm_impl_cpu_ tells apart (row-major, column-major: `.T.contiguous().T`,
and `.mT` views), with 1-row and 1-column shapes and k up to 300, bmm and batched `@`
(both sides of bmm's 400-product threshold); sums and means; and Muon's quintic
Newton-Schulz iteration (zeropower_via_newtonschulz5, in bfloat16) end to end.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).resolve().parents[1] / "data" / "bfloat16_products.npz"
SHAPES = ((4, 6, 4), (8, 16, 8), (6, 4, 6), (1, 37, 5), (5, 37, 1), (1, 300, 1), (16, 8, 16),
          (7, 300, 9), (33, 65, 17), (3, 3, 3), (2, 9, 2), (12, 40, 12), (5, 40, 5),
          (40, 40, 1), (1, 40, 40), (3, 130, 5), (4, 64, 4), (4, 79, 3), (2, 200, 2),
          (5, 17, 5), (5, 31, 5), (5, 48, 5), (3, 128, 3), (9, 64, 9), (1, 1, 7), (6, 1, 6))
BATCHED = ((3, 4, 6, 4), (2, 8, 16, 8), (2, 5, 37, 1), (2, 16, 8, 16), (2, 7, 300, 9),
           (2, 12, 40, 12), (2, 1, 300, 1), (2, 3, 9, 3), (4, 1, 1, 1))
LAYOUTS = ("nn", "tn", "nt", "tt")
_SUM_VALUES = np.array([1, 2**-8, 2**-7, 2**-24, 2**-25, 2**-23, 2**-26, 3 * 2**-25, 1.5,
                        2**-9], np.float32)
_TIE = np.array([1, 2**-8, 2**-7, 2**-24, 2**-25, 2**-23, 2**-26, 3 * 2**-25, 1.5], np.float32)


def _bits(t: torch.Tensor) -> np.ndarray:
    return t.contiguous().view(torch.int16).numpy().copy()


def _laid(x: torch.Tensor, letter: str) -> torch.Tensor:
    return x if letter == "n" else x.mT.contiguous().mT


def operands(rng: np.random.Generator, m: int, k: int, n: int, plain: bool
             ) -> tuple[torch.Tensor, torch.Tensor]:
    if plain:
        a = rng.standard_normal((m, k)) * 2.0 ** rng.integers(-12, 12, (m, k))
        b = rng.standard_normal((k, n)) * 2.0 ** rng.integers(-12, 12, (k, n))
    else:
        a = rng.choice(_TIE, (m, k)) * rng.choice([-1, 1], (m, k))
        b = rng.choice(np.array([1, 1, 1, 0.5, 2]), (k, n))
    return (torch.from_numpy(a.astype(np.float32)).bfloat16(),
            torch.from_numpy(b.astype(np.float32)).bfloat16())


def tie_norm_operand(rng: np.random.Generator) -> torch.Tensor:
    """Squares summing to (1 + 2^-8)^2, the square of a bfloat16 tie, plus squares near
    2^-24 that the float32 sum keeps or loses by its order."""
    n = int(rng.integers(4, 80))
    tiny = int(rng.integers(0, min(n - 4, 24) + 1))
    vals = np.array([1, 2**-4, 2**-4, 2**-8] + list(rng.choice(
        [2**-13, 2**-12, 1.5 * 2**-13], tiny)) + [0] * (n - 4 - tiny), np.float32)
    vals = vals * rng.choice([-1, 1], n)
    rng.shuffle(vals)
    rows = int(rng.choice([d for d in range(1, n + 1) if n % d == 0]))
    return torch.from_numpy(vals.reshape(rows, n // rows)).bfloat16()


def tie_sum_operand(rng: np.random.Generator) -> torch.Tensor:
    """1 to 3 dims (or one long row) of 1, 2^-7, 2^-8, 2^-9, 1.5 and values near 2^-24."""
    shape = tuple(int(s) for s in rng.integers(1, 21, int(rng.integers(1, 4))))
    if rng.random() < 0.3:
        shape = (int(rng.integers(1, 3000)),)
    v = rng.choice(_SUM_VALUES, shape) * rng.choice([-1, 1], shape)
    return torch.from_numpy(v.astype(np.float32)).bfloat16()


REDUCTIONS = {"sum": lambda x: x.sum(), "sum_last": lambda x: x.sum(-1),
              "sum_t": lambda x: x.mT.sum() if x.ndim > 1 else x.sum(),
              "mean": lambda x: x.mean(), "mean_last": lambda x: x.mean(-1),
              "mean_first": lambda x: x.mean(0),
              "mean_t": lambda x: x.mT.mean() if x.ndim > 1 else x.mean()}


def zeropower_via_newtonschulz5(G: torch.Tensor, steps: int) -> torch.Tensor:  # noqa: N803
    # (KellerJordan/Muon muon.py, MIT: the bfloat16 iteration this test checks)
    a, b, c = (3.4445, -4.7750, 2.0315)
    X = G.bfloat16()  # noqa: N806
    if G.size(-2) > G.size(-1):
        X = X.mT  # noqa: N806
    X = X / (X.norm(dim=(-2, -1), keepdim=True) + 1e-7)  # noqa: N806
    for _ in range(steps):
        A = X @ X.mT  # noqa: N806
        B = b * A + c * A @ A  # noqa: N806
        X = a * X + B @ X  # noqa: N806
    if G.size(-2) > G.size(-1):
        X = X.mT  # noqa: N806
    return X


def main() -> None:
    rng = np.random.default_rng(20261206)
    out: dict[str, np.ndarray] = {}
    for i, (m, k, n) in enumerate(SHAPES):
        for plain in (False, True):
            a, b = operands(rng, m, k, n, plain)
            key = f"mm{i}{'p' if plain else 't'}"
            out[f"{key}_a"], out[f"{key}_b"] = _bits(a), _bits(b)
            for lay in LAYOUTS:
                out[f"{key}_{lay}"] = _bits(_laid(a, lay[0]) @ _laid(b, lay[1]))
            out[f"{key}_mt"] = _bits(a @ a.mT)  # (Muon's X @ X.mT)
            out[f"{key}_vec"] = _bits(a[0] @ b)  # (1-D @ 2-D: mm of the unsqueezed row)
    for i, (bs, m, k, n) in enumerate(BATCHED):
        a, b = zip(*(operands(rng, m, k, n, False) for _ in range(bs)))
        a, b = torch.stack(a), torch.stack(b)
        key = f"bmm{i}"
        out[f"{key}_a"], out[f"{key}_b"] = _bits(a), _bits(b)
        for lay in LAYOUTS:
            out[f"{key}_{lay}"] = _bits(torch.bmm(_laid(a, lay[0]), _laid(b, lay[1])))
        out[f"{key}_fold"] = _bits(a @ b[0])  # (3-D @ 2-D: folded into one mm)
        out[f"{key}_left"] = _bits(a[0] @ b)  # (2-D @ 3-D: expanded to a bmm)
    # the norms' operands flattened one after another (their shapes in norm_shapes)
    xs = [tie_norm_operand(rng) for _ in range(300)]
    out["norm_shapes"] = np.array([x.shape for x in xs])
    out["norm_x"] = np.concatenate([_bits(x).ravel() for x in xs])
    for name, fn in (("all", lambda x: x.norm(dim=(-2, -1), keepdim=True)),
                     ("mt", lambda x: x.mT.norm(dim=(-2, -1), keepdim=True)),
                     ("none", lambda x: x.norm()), ("last", lambda x: x.norm(dim=-1))):
        out[f"norm_{name}"] = np.concatenate([_bits(fn(x)).ravel() for x in xs])
    # sums and means over every dim, the last, the first (a mean only: that sum's iterator
    # is not one row per output, refused) and a transpose's every dim, flattened likewise
    xs = [tie_sum_operand(rng) for _ in range(150)]
    out["sum_shapes"] = np.array([x.shape + (0,) * (3 - x.ndim) for x in xs])
    out["sum_x"] = np.concatenate([_bits(x).ravel() for x in xs])
    for name, fn in REDUCTIONS.items():
        out[f"sum_{name}"] = np.concatenate([_bits(fn(x)).ravel() for x in xs])
    for i, (rows, cols) in enumerate(((6, 4), (4, 6), (8, 16), (16, 8), (11, 11), (1, 9),
                                       (30, 20))):
        g = torch.from_numpy(rng.standard_normal((rows, cols)).astype(np.float32))
        out[f"muon{i}_g"] = g.numpy().copy()
        out[f"muon{i}_out"] = _bits(zeropower_via_newtonschulz5(g, steps=5))
    np.savez_compressed(OUT, **out,
                        capability=np.array(torch.backends.cpu.get_cpu_capability().lower()))
    print(f"wrote {OUT} ({len(out)} arrays)")


if __name__ == "__main__":
    main()
