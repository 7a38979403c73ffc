"""Survey, bit for bit, where gradtrace's values differ from torch's.

Run under a Python that has torch 2.13 (from the repository root):

    PYTHONPATH=. python tests/tools/bit_survey.py [float32|float64] [SEEDS]

Every code string of tests/test_ops_torch_diff.py and tests/test_ops_added_torch_diff.py
(their tests compare with a tolerance) runs on those files' inputs, cast to the dtype,
under torch and under gradtrace's engine; the forward values and the first-order
gradients of every float input are compared bit for bit (NaN equals NaN). Prints each
code that differs with its seed and the count of differing forward and gradient elements.
ATEN_CPU_CAPABILITY sets torch's kernels, and gradtrace's (engine/capability.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parents[1]))
import test_ops_added_torch_diff as added  # noqa: E402
import test_ops_torch_diff as base  # noqa: E402

from gradtrace.engine.backward import grad as gt_grad  # noqa: E402
from gradtrace.engine.tensor import Tensor  # noqa: E402


def differing(a: np.ndarray, b: np.ndarray) -> int:
    if a.shape != b.shape:
        return a.size
    return int(((a != b) & ~(np.isnan(a) & np.isnan(b))).sum())


def survey(dtype: str, seeds: int) -> list[tuple[str, int, int, int]]:
    codes = list(dict.fromkeys(base.CASES + base.SECOND_ORDER + getattr(added, "CASES", [])
                               + getattr(added, "SECOND_NN", [])))
    found = []
    for seed in range(seeds):
        arrays = {k: v.astype(dtype) if v.dtype.kind == "f" else v
                  for k, v in base._inputs(seed).items()}
        names = [k for k in arrays if k not in base.NO_GRAD and arrays[k].dtype.kind == "f"]
        for code in codes:
            tenv, genv = base._torch_env(arrays), base._gt_env(arrays)
            try:
                touts = base._tensors(base._run(code, tenv))
                gouts = base._tensors(base._run(code, genv))
            except Exception:  # noqa: BLE001 (an error case: test_ops_torch_diff's to judge)
                continue
            if not touts or len(touts) != len(gouts):
                continue
            forward = sum(differing(t.detach().numpy(), g.array)
                          for t, g in zip(touts, gouts, strict=True)
                          if t.dtype.is_floating_point)
            backward = 0
            t0, g0 = touts[0], gouts[0]
            if t0.requires_grad and t0.dtype.is_floating_point:
                w = np.random.default_rng(5).standard_normal(tuple(t0.shape)).astype(dtype)
                try:
                    tg = torch.autograd.grad((t0 * torch.from_numpy(w)).sum(),
                                             [tenv[n] for n in names], allow_unused=True)
                    gg = gt_grad((g0 * Tensor(w)).sum(), [genv[n] for n in names],
                                 allow_unused=True)
                except Exception:  # noqa: BLE001 (a backward that raises: as above)
                    tg = gg = ()
                backward = sum(differing(a.numpy(), b.array) for a, b in zip(tg, gg, strict=True)
                               if a is not None and b is not None)
            if forward or backward:
                found.append((code, seed, forward, backward))
    return found


def main() -> None:
    dtype = sys.argv[1] if len(sys.argv) > 1 else "float32"
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    found = survey(dtype, seeds)
    for code, seed, forward, backward in found:
        print(f"{code}  seed {seed}: forward {forward}, gradients {backward}")
    print(f"{len({f[0] for f in found})} codes differ ({dtype}, {seeds} seeds)")


if __name__ == "__main__":
    main()
