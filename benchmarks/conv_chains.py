"""Milliseconds per call of the oneDNN convolution orders gradtrace reproduces step by step
(engine/conv_kernels.py through fp32.FmaChain), for the shapes of real training scripts,
side by side for this checkout and another (`--against DIR`, e.g. a `git worktree` of the
base commit), alternating processes. CPU time, minimum over rounds: other processes on a
busy machine add noise, not waiting time. Also prints ns per element-step (accumulator
elements x chained multiply-adds: the unit of `exactness.EMULATION_BUDGET`) and checks
that both checkouts give the same bits.

    python benchmarks/conv_chains.py                       # this checkout alone
    python benchmarks/conv_chains.py --against /work/wt-base --rounds 3
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# name -> (input shape, weight shape, stride, padding): 2-D views, as torch runs them
SHAPES = {
    "Conv1d(256, 512, 5, padding=2) on (16, 256, 4) (MoA 1D-CNN)":
        ((16, 256, 1, 4), (512, 256, 1, 5), (1, 1), (0, 2)),
    "Conv2d(32, 64, 3) on (16, 32, 26, 26) (MNIST example's conv2)":
        ((16, 32, 26, 26), (64, 32, 3, 3), (1, 1), (0, 0)),
    "Conv2d(64, 128, 4, stride=2, padding=1) on (4, 64, 16, 16) (DCGAN discriminator)":
        ((4, 64, 16, 16), (128, 64, 4, 4), (2, 2), (1, 1)),
}

CHILD = r"""
import hashlib, json, sys, time
import numpy as np
from gradtrace.engine import conv_kernels as ck
rng = np.random.default_rng(0)
shapes, rounds = json.loads(sys.argv[1]), int(sys.argv[2])
out = {}
for name, (xs, ws, stride, pad) in shapes.items():
    x = np.maximum(rng.standard_normal(xs), 0).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    y = ck.forward(x, w, None, tuple(stride), tuple(pad), (1, 1))
    g = rng.standard_normal(y.shape).astype(np.float32)
    calls = {
        "forward": lambda: ck.forward(x, w, None, tuple(stride), tuple(pad), (1, 1)),
        "input": lambda: ck.backward_input(g, w, x.shape, tuple(stride), tuple(pad), (1, 1)),
        "weight": lambda: ck.backward_weight(g, x, w.shape, tuple(stride), tuple(pad), (1, 1)),
    }
    for direction, call in calls.items():
        best, digest = float("inf"), ""
        for _ in range(rounds):
            t0 = time.process_time()
            r = call()
            best = min(best, time.process_time() - t0)
            digest = hashlib.sha1(np.ascontiguousarray(r).tobytes()).hexdigest()[:12]
        out[f"{name}|{direction}"] = [best, digest, ck.chain_steps(x.shape, w.shape)]
print(json.dumps(out))
"""


def measure(tree: pathlib.Path, rounds: int) -> dict[str, list]:
    env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1",
               ATEN_CPU_CAPABILITY=os.environ.get("ATEN_CPU_CAPABILITY", "avx2"),
               ONEDNN_MAX_CPU_ISA=os.environ.get("ONEDNN_MAX_CPU_ISA", "AVX2"))
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(SHAPES), str(rounds)],
                          capture_output=True, text=True, env=env, check=True, cwd=tree)
    return json.loads(done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--against", type=pathlib.Path, help="another gradtrace checkout")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    trees = [ROOT] + ([args.against.resolve()] if args.against else [])
    best: list[dict[str, list]] = [{} for _ in trees]
    for r in range(args.rounds):  # alternate the checkouts, one process each per round
        for i in (range(len(trees)) if r % 2 == 0 else reversed(range(len(trees)))):
            for key, row in measure(trees[i], 1).items():
                if key not in best[i] or row[0] < best[i][key][0]:
                    best[i][key] = row
    other = f" | {trees[1].name} ms | this / other | same bits" if len(trees) > 1 else ""
    print(f"| convolution | direction | this ms | ns per element-step{other} |")
    print("|---|---|---:|---:|" + ("---:|---:|---|" if len(trees) > 1 else ""))
    for key, (seconds, digest, steps) in best[0].items():
        name, direction = key.split("|")
        row = f"| {name} | {direction} | {seconds * 1e3:.1f} | {seconds / steps * 1e9:.2f} |"
        if len(trees) > 1:
            theirs, their_digest, _ = best[1][key]
            row += (f" {theirs * 1e3:.1f} | {seconds / theirs:.2f} | "
                    f"{'yes' if digest == their_digest else 'NO'} |")
        print(row)


if __name__ == "__main__":
    main()
