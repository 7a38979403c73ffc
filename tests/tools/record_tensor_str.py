"""Record real torch tensor reprs as golden cases for gradtrace's tensor_str.

Run under a Python that has torch 2.13 (not the project venv):

    /work/torchenv/bin/python tests/tools/record_tensor_str.py > tests/data/tensor_str_cases.json

Each record holds how the tensor was built (`expr`), its exact values (`values` as nested
lists with nan/inf spelled as strings, or for big tensors `zb64`: base64 of the
zlib-compressed raw little-endian bytes),
`shape`, `dtype`, `grad_fn`, `requires_grad` and torch's `repr`.  The test rebuilds the
values with numpy in the same dtype and compares gradtrace's output byte for byte.
"""

from __future__ import annotations

import base64
import json
import math
import sys
import zlib

import numpy as np
import torch

# Tensors bigger than this are stored as raw bytes to keep the JSON file small.
LIST_LIMIT = 200

FIXED = [
    # print_formats.gt and the brief's examples
    "torch.tensor([1.0, 2.5, -3.25])",
    "torch.tensor([[1.0, 200.0], [3.5, -4.0]])",
    "torch.tensor([1e-5, 1.0, 1e5])",
    "torch.tensor([123456.0, 1.0])",
    "torch.tensor([0.1, 0.25, 1.0 / 3.0])",
    "torch.tensor(1e10)",
    "torch.tensor([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])",
    "torch.zeros(0)",
    "torch.arange(5)",
    "torch.tensor([-0.0, 0.0])",
    "torch.tensor(float('inf'))",
    "torch.tensor(float('nan'))",
    "torch.tensor(float('-inf'))",
    # 0-d
    "torch.tensor(0.0)",
    "torch.tensor(-0.0)",
    "torch.tensor(1.0)",
    "torch.tensor(-2.5)",
    "torch.tensor(1.0 / 3.0)",
    "torch.tensor(1e-10)",
    "torch.tensor(-1e-10, dtype=torch.float64)",
    "torch.tensor(123456.0)",
    "torch.tensor(1e8)",
    "torch.tensor(1.5e8)",
    "torch.tensor(99999999.0, dtype=torch.float64)",
    "torch.tensor(0.0001)",
    "torch.tensor(0.00009999)",
    "torch.tensor(3)",
    "torch.tensor(-7, dtype=torch.int8)",
    "torch.tensor(True)",
    "torch.tensor(False)",
    "torch.tensor(2.0, dtype=torch.float16)",
    "torch.tensor(1.0, requires_grad=True)",
    "torch.tensor(2.0, requires_grad=True) * 3",
    "torch.tensor(5, dtype=torch.uint8)",
    # int-valued floats, negative zero, non-finite
    "torch.tensor([1.0, 2.0])",
    "torch.tensor([-1.0, 2.0, -300.0])",
    "torch.tensor([0.0, 0.0, 0.0])",
    "torch.tensor([-0.0, -0.0])",
    "torch.tensor([-0.0, 1.5])",
    "torch.tensor([float('nan'), 1.0, 2.0])",
    "torch.tensor([float('nan'), 1.5, 2.0])",
    "torch.tensor([float('inf'), -1.0])",
    "torch.tensor([float('-inf'), 1.0, 10.0])",
    "torch.tensor([float('-inf'), 0.5, 1e-5])",
    "torch.tensor([float('nan'), float('inf'), float('-inf')])",
    "torch.tensor([float('nan'), 0.0])",
    "torch.tensor([float('-inf'), 1e10, 2.0])",
    "torch.tensor([1e-5, float('nan')])",
    "torch.tensor([[float('-inf'), 1.0], [2.0, float('nan')]])",
    # precision / rounding of float32 and float64
    "torch.tensor([0.1, 0.2, 0.3])",
    "torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)",
    "torch.tensor([1.0 / 3.0, 2.0 / 3.0], dtype=torch.float64)",
    "torch.tensor([0.00005, 0.00015, 0.00025])",
    "torch.tensor([1.00005, 2.00015, 3.00025])",
    "torch.tensor([1.00005, 2.00015, 3.00025], dtype=torch.float64)",
    "torch.tensor([0.12345, 0.98765, 9.99995])",
    "torch.tensor([9.99996, 1.0])",
    "torch.tensor([999.99995, 1.0])",
    "torch.tensor([123456789.0, 1.0], dtype=torch.float64)",
    "torch.tensor([1.0, 1000.0])",
    "torch.tensor([1.0, 1001.0])",
    "torch.tensor([1.5, 1000.5])",
    "torch.tensor([1.5, 1501.5])",
    "torch.tensor([0.0001, 0.1])",
    "torch.tensor([0.0001, 0.1], dtype=torch.float64)",
    "torch.tensor([0.0001, 0.2], dtype=torch.float64)",
    "torch.tensor([1e8, 2e8])",
    "torch.tensor([1e7, 2e7])",
    "torch.tensor([1e7, 2.5e7])",
    "torch.tensor([16777217.0, 1.0], dtype=torch.float64)",
    "torch.tensor([3.14159265358979, -2.718281828], dtype=torch.float64)",
    "torch.tensor([1e-12, 1e12], dtype=torch.float64)",
    "torch.tensor([1e-300, 1e300], dtype=torch.float64)",
    "torch.tensor([5e-324, 1.0], dtype=torch.float64)",
    "torch.tensor([1e-40, 1.0])",
    "torch.tensor([-1e-5, 1e5, 0.0, -0.0])",
    "torch.tensor([1e100, -1e100], dtype=torch.float64)",
    "torch.tensor([2.5, 3.5, -2.5, 0.5])",
    "torch.tensor([0.5, 1.5, 2.5], dtype=torch.float16)",
    "torch.tensor([0.1, 0.2, 65504.0], dtype=torch.float16)",
    "torch.tensor([1e-7, 1.0], dtype=torch.float16)",
    "torch.tensor([70000.0, 1.0], dtype=torch.float16)",
    # integers and bool
    "torch.tensor([1, 2], dtype=torch.int32)",
    "torch.tensor([1, -2, 300], dtype=torch.int16)",
    "torch.tensor([-128, 127], dtype=torch.int8)",
    "torch.tensor([0, 255], dtype=torch.uint8)",
    "torch.tensor([-9223372036854775808, 9223372036854775807])",
    "torch.tensor([[1, 22, 333], [-4444, 5, 6]])",
    "torch.tensor([True, False])",
    "torch.tensor([[True], [True]])",
    "torch.tensor([False, False])",
    "torch.arange(100)",
    "torch.arange(-50, 50, dtype=torch.int32)",
    "torch.arange(2000)",
    "torch.arange(1001)",
    "torch.arange(1000)",
    "torch.arange(1000.)",
    "torch.arange(1001.)",
    "torch.arange(1001.).reshape(7, 11, 13)",
    "torch.arange(1000000, 1003000, dtype=torch.int64)",
    "torch.ones(1001, dtype=torch.bool)",
    # empty
    "torch.tensor([], dtype=torch.int64)",
    "torch.tensor([], dtype=torch.float64)",
    "torch.zeros(0, 3)",
    "torch.zeros(2, 0, 3, dtype=torch.bool)",
    "torch.zeros(0, dtype=torch.int32)",
    "torch.zeros(0, requires_grad=True)",
    "torch.zeros(1, 0, dtype=torch.float16, requires_grad=True)",
    "torch.zeros(0, 0, 0, 0, dtype=torch.uint8)",
    # layout, wrapping, summarisation
    "torch.arange(2000.).reshape(40, 50)",
    "torch.arange(2000.).reshape(40, 50) / 7",
    "torch.arange(2000.).reshape(2, 1000)",
    "torch.arange(2000.).reshape(1000, 2)",
    "torch.arange(2000.).reshape(10, 10, 20)",
    "torch.arange(2000.).reshape(5, 4, 10, 10)",
    "torch.arange(1500.).reshape(3, 500) * 1e-6",
    "torch.arange(1500).reshape(3, 500)",
    "torch.linspace(0, 1, 1200)",
    "torch.linspace(-1, 1, 1100, dtype=torch.float64)",
    "torch.linspace(-1e6, 1e6, 3001)",
    "torch.full((1001,), 7.0)",
    "torch.full((1001,), 0.5)",
    "torch.full((2000,), float('nan'))",
    "torch.zeros(1001)",
    "torch.ones(2, 3, 4, 5)",
    "torch.ones(1, 1, 1, 1, 1)",
    "torch.zeros(3, 1, 2)",
    "torch.arange(24.).reshape(2, 3, 4)",
    "torch.arange(24.).reshape(2, 3, 4) / 3",
    "torch.arange(120.).reshape(2, 3, 4, 5) - 60",
    "torch.linspace(0, 1, 30)",
    "torch.linspace(0, 1, 30, dtype=torch.float64)",
    "torch.linspace(-1e5, 1e5, 25)",
    "torch.linspace(0, 1e-3, 40)",
    "torch.arange(50.)",
    "torch.arange(200.) * 1000",
    "torch.arange(60.).reshape(3, 20) * 1.5",
    "torch.arange(45).reshape(3, 15) * 10000000",
    "torch.arange(30).reshape(5, 6) - 15",
    "torch.full((2, 13), 123.456)",
    "torch.full((3, 3), -1e-8, dtype=torch.float64)",
    # suffixes and where they wrap
    "torch.tensor([1.0, 2.0], requires_grad=True)",
    "torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)",
    "torch.tensor([1.0, 2.0], requires_grad=True) * 2",
    "torch.tensor([1.0, 2.0], requires_grad=True) + 1",
    "torch.tensor([1.0, 2.0], requires_grad=True).sum()",
    "torch.tensor([1.0, 2.0], requires_grad=True).mean()",
    "torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) @ torch.ones(2, 2)",
    "torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True).exp()",
    "torch.tensor([4.0, 9.0], requires_grad=True).sqrt()",
    "torch.arange(12.).reshape(3, 4).requires_grad_().t()",
    "torch.arange(6.).requires_grad_().reshape(2, 3)",
    "torch.arange(18.).double().requires_grad_()",
    "torch.arange(19.).double().requires_grad_()",
    "torch.arange(20.).double().requires_grad_()",
    "torch.arange(40.).reshape(2, 20).double().requires_grad_()",
    "torch.arange(30.).reshape(3, 10) * 1e5 + torch.tensor(0.5, requires_grad=True)",
    "torch.arange(2000.).reshape(40, 50).double().requires_grad_()",
    "torch.arange(16.).double() * torch.tensor(1.0, dtype=torch.float64, requires_grad=True)",
    "torch.arange(1.0, 15.0, dtype=torch.float64) / 3",
]


def encode_value(v: float | int | bool) -> float | int | bool | str:
    """JSON has no nan/inf: spell them as strings."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def encode_nested(x):
    if isinstance(x, list):
        return [encode_nested(v) for v in x]
    return encode_value(x)


def record(case_id: str, expr: str, t: torch.Tensor) -> dict:
    """One JSON record with everything the test needs to rebuild `t` without torch."""
    grad_fn = None if t.grad_fn is None else type(t.grad_fn).__name__
    rec = {
        "id": case_id,
        "expr": expr,
        "dtype": str(t.dtype).removeprefix("torch."),
        "shape": list(t.shape),
        "grad_fn": grad_fn,
        "requires_grad": bool(t.requires_grad and grad_fn is None),
    }
    d = t.detach()
    if d.numel() <= LIST_LIMIT:
        rec["values"] = encode_nested(d.tolist())
    else:
        raw = d.contiguous().numpy().astype(d.numpy().dtype.newbyteorder("<")).tobytes()
        rec["zb64"] = base64.b64encode(zlib.compress(raw, 9)).decode("ascii")
    rec["repr"] = repr(t)
    return rec


FLOATS = [torch.float32, torch.float32, torch.float32, torch.float64, torch.float64, torch.float16]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.int64]


def random_shape(rng: np.random.Generator) -> tuple[int, ...]:
    ndim = int(rng.integers(0, 5))
    if ndim == 0:
        return ()
    mode = rng.random()
    if mode < 0.08:  # an empty shape
        shape = [int(rng.integers(0, 4)) for _ in range(ndim)]
        shape[int(rng.integers(0, ndim))] = 0
        return tuple(shape)
    # aim for a total size: small most of the time, sometimes past the 1000 threshold
    target = int(rng.integers(1001, 1501)) if mode > 0.84 else int(10 ** rng.uniform(0, 2.1))
    shape = []
    rest = target
    for i in range(ndim):
        if i == ndim - 1:
            n = max(1, rest)
        else:
            n = max(1, int(round(rest ** rng.uniform(0.1, 0.7))))
        shape.append(n)
        rest = max(1, rest // n)
    rng.shuffle(shape)
    limit = 1500 if target > 1000 else 125
    while int(np.prod(shape)) > limit:
        shape[int(np.argmax(shape))] -= 1
    if target > 1000 and int(np.prod(shape)) <= 1000:  # make sure it is summarised
        shape[0] *= -(-1001 // int(np.prod(shape)))
    return tuple(shape)


def random_float_values(rng: np.random.Generator, n: int) -> np.ndarray:
    lo = rng.uniform(-12, 12)
    hi = min(12.0, lo + rng.choice([0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0]))
    if n > 1000:  # big tensors draw from a pool of values so that they compress well
        vals = (10 ** rng.uniform(lo, hi, size=32))[rng.integers(0, 32, size=n)]
    else:
        vals = 10 ** rng.uniform(lo, hi, size=n)
    if rng.random() < 0.6:
        vals *= rng.choice([-1.0, 1.0], size=n)
    style = rng.random()
    if style < 0.2:
        vals = np.round(vals)  # int mode candidates
    elif style < 0.35:
        vals = np.round(vals, int(rng.integers(0, 6)))
    if n and rng.random() < 0.3:  # sprinkle zeros, negative zeros and non-finite values
        for special in (0.0, -0.0, np.nan, np.inf, -np.inf):
            if rng.random() < 0.4:
                vals[rng.integers(0, n, size=int(rng.integers(1, 3)))] = special
    return vals


def random_int_values(rng: np.random.Generator, n: int, dtype: torch.dtype) -> np.ndarray:
    info = torch.iinfo(dtype)
    kind = rng.random()
    if kind < 0.4:
        lo, hi = -10, 10
    elif kind < 0.7:
        lo, hi = -(10 ** int(rng.integers(1, 7))), 10 ** int(rng.integers(1, 7))
    else:
        lo, hi = info.min, info.max
    lo, hi = max(lo, info.min), min(hi, info.max)
    if n > 1000:  # big tensors draw from a pool of values so that they compress well
        return rng.integers(lo, hi, size=32, endpoint=True, dtype=np.int64)[
            rng.integers(0, 32, size=n)
        ]
    return rng.integers(lo, hi, size=n, endpoint=True, dtype=np.int64)


GRAD_OPS = [
    ("x.clone()", lambda x: x.clone()),
    ("x * 1", lambda x: x * 1),
    ("x + 0", lambda x: x + 0),
    ("x.view(x.shape)", lambda x: x.view(x.shape)),
    ("x.reshape(x.shape)", lambda x: x.reshape(x.shape)),
    ("x.neg().neg()", lambda x: x.neg().neg()),
]


def random_case(seed: int) -> tuple[str, torch.Tensor]:
    rng = np.random.default_rng(seed)
    shape = random_shape(rng)
    n = int(np.prod(shape)) if shape else 1
    kind = rng.random()
    if kind < 0.65:
        dtype = FLOATS[int(rng.integers(0, len(FLOATS)))]
        vals = random_float_values(rng, n)
        with np.errstate(over="ignore"):
            t = torch.from_numpy(vals.reshape(shape)).to(dtype)
        desc = f"random floats seed={seed} shape={shape} dtype={dtype}"
        grad = rng.random()
        if grad < 0.15:
            t.requires_grad_()
            desc += " requires_grad"
        elif grad < 0.3:
            name, op = GRAD_OPS[int(rng.integers(0, len(GRAD_OPS)))]
            t = op(t.requires_grad_())
            desc += f" then {name}"
    elif kind < 0.92:
        dtype = INTS[int(rng.integers(0, len(INTS)))]
        vals = random_int_values(rng, n, dtype)
        t = torch.from_numpy(vals.reshape(shape)).to(dtype)
        desc = f"random ints seed={seed} shape={shape} dtype={dtype}"
    else:
        t = torch.from_numpy(rng.random(size=n).reshape(shape) < rng.random())
        desc = f"random bools seed={seed} shape={shape}"
    return desc, t


def main() -> None:
    records = []
    for i, expr in enumerate(FIXED):
        records.append(record(f"fixed{i:03d}", expr, eval(expr, {"torch": torch})))
    # 1-D rows of every width around the 80-column wrap, with and without suffixes
    for i, n in enumerate(range(1, 30, 2)):
        for dt, rg in (("torch.float64", False), ("torch.float32", True)):
            expr = f"torch.arange({n}.0, dtype={dt}) * 1.25 - 3"
            t = eval(expr, {"torch": torch})
            if rg:
                t = t.detach().requires_grad_()
                expr += " (requires_grad)"
            records.append(record(f"wrap{i:02d}{dt[-2:]}", expr, t))
    for seed in range(220):
        desc, t = random_case(seed)
        records.append(record(f"random{seed:03d}", desc, t))
    # one record per line: diffs stay readable and the file stays small
    out = sys.stdout
    out.write(f'{{"torch_version": {json.dumps(torch.__version__)}, "cases": [\n')
    out.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in records))
    out.write("\n]}\n")


if __name__ == "__main__":
    main()
