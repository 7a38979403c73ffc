"""Nanoseconds per element of gradtrace's float32 (or, with --dtype float64, float64)
elementwise kernels (engine/kernels.py), against the float64 evaluation rounded once that
they replaced (`precise`; numpy's float64 function for float64) and numpy's own function.
Minimum over repeated runs of the process's CPU time, so other processes on a busy machine
add noise, not waiting time.

    PYTHONPATH=. python benchmarks/kernels.py            # 65,536 contiguous elements
    PYTHONPATH=. python benchmarks/kernels.py --n 1000 --repeat 50
    PYTHONPATH=. python benchmarks/kernels.py --dtype float64    # SLEEF's double kernels

Prints one markdown row per function: kernel path, ns/element, precise, numpy.
Whether MKL is loaded (`pip install gradtrace[exact]`) decides the MKL rows' path.
"""
from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import numpy as np

from gradtrace.engine import capability, kernels


def _erf64(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _sigmoid64(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


# name -> (gradtrace kernel, float64 reference evaluated by `precise`, numpy float32 or None)
CASES: dict[str, tuple[Callable, Callable, Callable | None]] = {
    "exp": (lambda x: kernels.unary("exp", x), np.exp, np.exp),
    "log": (lambda x: kernels.unary("log", np.abs(x)), np.log, np.log),
    "sin": (lambda x: kernels.unary("sin", x), np.sin, np.sin),
    "cos": (lambda x: kernels.unary("cos", x), np.cos, np.cos),
    "tan": (lambda x: kernels.unary("tan", x), np.tan, np.tan),
    "tanh": (lambda x: kernels.unary("tanh", x), np.tanh, np.tanh),
    "sqrt": (lambda x: kernels.unary("sqrt", np.abs(x)), np.sqrt, np.sqrt),
    "erf": (lambda x: kernels.unary("erf", x), _erf64, None),
    "expm1": (lambda x: kernels.unary("expm1", x), np.expm1, np.expm1),
    "log1p": (lambda x: kernels.unary("log1p", np.abs(x)), np.log1p, np.log1p),
    "sigmoid": (lambda x: kernels.unary("sigmoid", x), _sigmoid64, None),
    "silu": (kernels.silu, lambda x: x * _sigmoid64(x), None),
    "softplus": (lambda x: kernels.softplus(x, 1, 20),
                 lambda x: np.log1p(np.exp(x)), None),
    "elu": (lambda x: kernels.elu(x, 1.0, 1, 1), lambda x: np.where(x > 0, x, np.expm1(x)),
            None),
    "gelu": (lambda x: kernels.gelu(x, "none"), lambda x: x * 0.5 * (1 + _erf64(x / 2**.5)),
             None),
    "gelu_tanh": (lambda x: kernels.gelu(x, "tanh"),
                  lambda x: 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x**3))),
                  None),
    "pow 1.7": (lambda x: kernels.pow_scalar(np.abs(x), 1.7), lambda x: np.abs(x) ** 1.7,
                None),
    "mish": (kernels.mish, lambda x: x * np.tanh(np.log1p(np.exp(x))), None),
    "log_sigmoid": (lambda x: kernels.log_sigmoid(x)[0],
                    lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))), None),
}


def best_ns(fn: Callable, x: np.ndarray, repeat: int) -> float:
    best = math.inf
    with np.errstate(all="ignore"):
        for _ in range(repeat):
            t0 = time.process_time()
            fn(x)
            best = min(best, time.process_time() - t0)
    return best / x.size * 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=65536)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    args = ap.parse_args()
    x = (np.random.default_rng(0).standard_normal(args.n) * 3).astype(args.dtype)
    reason = kernels.mkl_unavailable_reason()
    print(f"capability {capability.CAPABILITY}, {args.dtype}, n={args.n}, "
          f"MKL: {reason or 'loaded'}")
    print(f"| function | gradtrace ns/el | precise ns/el | ratio | numpy {args.dtype} ns/el |")
    print("|---|---:|---:|---:|---:|")
    for name, (fn, ref, f32) in CASES.items():
        ours = best_ns(fn, x, args.repeat)
        old = best_ns(lambda v, r=ref: kernels.precise(r, v), x, args.repeat)
        plain = f"{best_ns(f32, x, args.repeat):.1f}" if f32 is not None else ""
        print(f"| {name} | {ours:.1f} | {old:.1f} | {ours / old:.2f} | {plain} |")


if __name__ == "__main__":
    main()
