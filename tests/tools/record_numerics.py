"""Record torch 2.13's float results, bit for bit, for gradtrace's numerics tests.

Run under a Python that has torch 2.13 (from the repository root):

    python tests/tools/record_numerics.py [CAPABILITY ...]

For each CPU capability (default: every one this CPU can run: `default`, `avx2`, and
`avx512` on a CPU with AVX-512; torch can be forced down, never up) it starts a fresh
Python with ATEN_CPU_CAPABILITY set, checks that torch reports that capability, and writes
`tests/data/numerics/<capability>/<family>.npz` for the families `reductions`, `softmax`,
`matmul`, `fused` and `training` (the cases of tests/training_cases.py: products, norms,
losses, convolutions, activations and statistics, forward and backward). Each file holds
the cases (JSON in the `cases` entry: op, arguments, input seeds, which arrays) and
torch's outputs as arrays; results of the transcendental functions the order-dependent
kernels call (SLEEF's vector exp, libm's scalar exp, the log of each softmax row's sum) are
recorded as lookup tables, so the tests can check the order around them apart from the
functions themselves.

Inputs are not stored: tests/numerics_data.py builds them from integer bit patterns, the
same on every platform, for the recorder and the tests alike. Sizes stay below 32,768
elements (torch splits larger reductions across threads).
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np

from gradtrace import _numpy_avx512_features

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
import numerics_data as nd  # noqa: E402  (shared with the tests)
import training_cases as tc  # noqa: E402

OUT = nd.DATA


class Recorder:
    """Collects torch's arrays (one flat buffer per dtype) and the cases that refer to them
    as [dtype, offset, shape] (numerics_data.load turns them back into arrays)."""

    def __init__(self) -> None:
        self.buffers: dict[str, list[np.ndarray]] = {"float32": [], "float64": []}
        self.sizes = {"float32": 0, "float64": 0}
        self.cases: list[dict] = []

    def array(self, value: np.ndarray) -> list:
        value = np.array(value, order="C")  # (ascontiguousarray would make 0-d arrays 1-d)
        kind = value.dtype.name
        ref = [kind, self.sizes[kind], list(value.shape)]
        self.buffers[kind].append(value.reshape(-1))
        self.sizes[kind] += value.size
        return ref

    def case(self, **fields) -> None:
        self.cases.append(fields)

    def save(self, path: pathlib.Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        flat = {kind: np.concatenate(parts) if parts else np.zeros(0, kind)
                for kind, parts in self.buffers.items()}
        np.savez_compressed(path, cases=np.array(json.dumps(self.cases)), **flat)
        print(f"{path}: {len(self.cases)} cases, "
              f"{sum(self.sizes.values())} values")


def tensor(torch, base: np.ndarray, layout: str, shape: tuple[int, ...]):
    """The torch view a case works on, as numerics_data.view builds it in numpy."""
    t = torch.from_numpy(base.copy())
    if layout == "transposed":
        return t.permute(*range(len(shape) - 1, -1, -1))
    if layout == "sliced":
        return t[::2]
    if layout == "expanded":
        return t.expand(*shape)
    return t


def record_reductions(torch) -> Recorder:
    rec = Recorder()
    for seed, shape, layout in nd.reduction_sources():
        base = nd.floats(seed, nd.base_shape(shape, layout))
        x = tensor(torch, base, layout, shape)
        near_one = tensor(torch, (1 + base / np.float32(64)).astype(np.float32), layout, shape)
        source = dict(seed=seed, shape=shape, layout=layout)
        for dims in nd.dim_sets(len(shape)):
            kw = {} if dims is None else {"dim": dims}
            for op, fn in (("sum", lambda t, **k: t.sum(**k)),
                           ("mean", lambda t, **k: t.mean(**k)),
                           ("norm2", lambda t, **k: torch.linalg.vector_norm(t, 2, **k)),
                           ("var", lambda t, **k: t.var(**k)),
                           ("std", lambda t, **k: t.std(**k))):
                rec.case(op=op, dims=dims, out=rec.array(fn(x, **kw).numpy()), **source)
            if dims is not None and len(dims) == 1:
                rec.case(op="sum", dims=dims, keepdim=True,
                         out=rec.array(x.sum(dims, keepdim=True).numpy()), **source)
                one_dim = {"norm1": torch.linalg.vector_norm(x, 1, dims),
                           "norminf": torch.linalg.vector_norm(x, float("inf"), dims),
                           "var0": x.var(dims, correction=0), "prod": near_one.prod(dims[0])}
                for op, value in one_dim.items():
                    rec.case(op=op, dims=dims, out=rec.array(value.numpy()), **source)
                if x.numel() <= nd.CUMSUM_MAX:
                    rec.case(op="cumsum", dims=dims, out=rec.array(x.cumsum(dims[0]).numpy()),
                             **source)
        rec.case(op="prod", dims=None, out=rec.array(near_one.prod().numpy()), **source)
    return rec


def vector_exps(torch, values: np.ndarray) -> np.ndarray:
    """The lastdim log_softmax backward kernel's Vectorized<float>::exp of `values`:
    rows [0, v] with grad [1, 0] give -exp(v) exactly (g - exp(y) * sum(g), sum = 1)."""
    y = np.zeros((values.size, 2), np.float32)
    y[:, 1] = values
    g = np.zeros_like(y)
    g[:, 0] = 1
    out = torch._log_softmax_backward_data(torch.from_numpy(g), torch.from_numpy(y), 1,
                                           torch.float32)
    return -out.numpy()[:, 1]


def scalar_exps(torch, values: np.ndarray) -> np.ndarray:
    """std::exp of `values`, from the other-dim kernel's scalar positions (inner < lanes)."""
    pad = (-values.size) % 7
    v = np.concatenate([values, np.zeros(pad, np.float32)]).reshape(-1, 7)
    y = np.zeros((v.shape[0], 2, 7), np.float32)
    y[:, 1] = v
    g = np.zeros_like(y)
    g[:, 0] = 1
    out = torch._log_softmax_backward_data(torch.from_numpy(g), torch.from_numpy(y), 1,
                                           torch.float32)
    return -out.numpy()[:, 1].reshape(-1)[:values.size]


def record_softmax(torch) -> Recorder:
    rec = Recorder()
    for i, shape in enumerate(nd.SOFTMAX_SHAPES):
        base = nd.floats(3000 + i, shape, -3, 3)
        grad = nd.floats(4000 + i, shape, -3, 1)
        x, g = torch.from_numpy(base), torch.from_numpy(grad)
        for d in range(len(shape)):
            source = dict(seed=3000 + i, grad_seed=4000 + i, shape=shape, dim=d)
            shifted = (x - x.amax(d, keepdim=True)).numpy().reshape(-1)
            tables = dict(vexp=rec.array(vector_exps(torch, shifted)),
                          sexp=rec.array(scalar_exps(torch, shifted)))
            y = torch.softmax(x, d)
            yl = torch.log_softmax(x, d)
            # log of each row's sum, read off the max position: (x - max) - L = -L there
            logs = -torch.gather(yl, d, x.argmax(d, keepdim=True)).numpy()
            rec.case(op="softmax", out=rec.array(y.numpy()), **tables, **source)
            rec.case(op="log_softmax", out=rec.array(yl.numpy()), logs=rec.array(logs),
                     **tables, **source)
            rec.case(op="softmax_backward", y=rec.array(y.numpy()),
                     out=rec.array(torch._softmax_backward_data(g, y, d, torch.float32).numpy()),
                     **source)
            yflat = yl.numpy().reshape(-1)
            rec.case(op="log_softmax_backward", y=rec.array(yl.numpy()),
                     out=rec.array(torch._log_softmax_backward_data(g, yl, d,
                                                                    torch.float32).numpy()),
                     vexp=rec.array(vector_exps(torch, yflat)),
                     sexp=rec.array(scalar_exps(torch, yflat)), **source)
            # logsumexp is composite: torch.exp and torch.log tensors, recorded as tables
            e = (x - x.amax(d, keepdim=True)).exp()
            s = e.sum(d)
            rec.case(op="logsumexp", out=rec.array(torch.logsumexp(x, d).numpy()),
                     exp_out=rec.array(e.numpy()), log_in=rec.array(s.numpy()),
                     log_out=rec.array(s.log().numpy()), **source)
    return rec


def matmul_inputs(m: int, k: int, n: int) -> dict[str, np.ndarray]:
    seed = 100_000 + 10_000 * m + 100 * k + n
    return {"a": nd.floats(seed, (m, k), -3, 1), "b": nd.floats(seed + 1, (k, n), -3, 1),
            "bias": nd.floats(seed + 2, (n,), -3, 1),
            "batch": nd.floats(seed + 3, (3, m, k), -3, 1)}


def record_matmul(torch) -> Recorder:
    rec = Recorder()
    for m, k, n in nd.matmul_sizes():
        arrays = matmul_inputs(m, k, n)
        ta, tb, tbias = (torch.from_numpy(arrays[key]) for key in ("a", "b", "bias"))
        w = torch.from_numpy(np.ascontiguousarray(arrays["b"].T))
        at = torch.from_numpy(np.ascontiguousarray(arrays["a"].T))
        results = {"mm": ta @ tb, "mm_bt": ta @ w.t(), "mm_at": at.t() @ tb,
                   "addmm": torch.addmm(tbias, ta, tb),
                   "linear": torch.nn.functional.linear(ta, w, tbias),
                   "linear_nobias": torch.nn.functional.linear(ta, w)}
        if n == 1:
            results["mv"] = ta @ tb[:, 0]
        if m == 1:
            results["dot"] = ta[0] @ tb[:, 0]
            results["vecmat"] = ta[0] @ tb
        if k in nd.SOME_K and m * n <= 64:
            tbatch = torch.from_numpy(arrays["batch"])
            results["bmm"] = torch.bmm(tbatch, tb.expand(3, k, n).contiguous())
            results["matmul_3d_2d"] = tbatch @ tb
        if k == 1:
            results["outer"] = torch.outer(ta[:, 0], tb[0])
        for op, value in results.items():
            rec.case(op=op, m=m, k=k, n=n, out=rec.array(value.numpy()))
    return rec


def fused_inputs(dtype: str, size: int) -> dict[str, np.ndarray]:
    seed = 200_000 + 10 * size + (dtype == "float64")
    t = np.float32 if dtype == "float32" else np.float64
    return {"x": nd.floats(seed, (size,), -3, 2, t), "y": nd.floats(seed + 1, (size,), -3, 2, t),
            "z": nd.floats(seed + 2, (size,), -1, 1, t, positive=True),
            "w": nd.floats(seed + 3, (size,), -6, -1, t, positive=True)}


FUSED_OPS = ("add_alpha", "sub_alpha", "add_alpha_inplace", "addcmul", "addcmul_inplace",
             "addcdiv", "lerp_small", "lerp_large", "lerp_tensor", "mul", "add",
             "tanh_backward", "sigmoid_backward")


def record_fused(torch) -> Recorder:
    rec = Recorder()
    for dtype in ("float32", "float64"):
        for size in nd.FUSED_SIZES:
            tx, ty, tz, tw = (torch.from_numpy(v) for v in fused_inputs(dtype, size).values())
            ops = {"add_alpha": torch.add(tx, ty, alpha=0.3),
                   "sub_alpha": torch.sub(tx, ty, alpha=0.7),
                   "add_alpha_inplace": tx.clone().add_(ty, alpha=-0.01),
                   "addcmul": torch.addcmul(tx, ty, tz, value=0.1),
                   "addcmul_inplace": tx.clone().addcmul_(ty, ty, value=0.001),
                   "addcdiv": torch.addcdiv(tx, ty, tz, value=-0.01),
                   "lerp_small": torch.lerp(tx, ty, 0.1), "lerp_large": torch.lerp(tx, ty, 0.9),
                   "lerp_tensor": torch.lerp(tx, ty, tw), "mul": tx * ty, "add": tx + ty}
            tanh_y, sigmoid_y = (torch.from_numpy(v) for v in nd.activation_outputs(tx.numpy()))
            ops["tanh_backward"] = torch.ops.aten.tanh_backward(ty, tanh_y)
            ops["sigmoid_backward"] = torch.ops.aten.sigmoid_backward(ty, sigmoid_y)
            for op in FUSED_OPS:
                rec.case(op=op, size=size, dtype=dtype, out=rec.array(ops[op].numpy()))
    return rec


def record_training(torch) -> Recorder:
    """Each training case under torch: its outputs, then the gradient of every input that
    requires one after a backward of the first output with a fixed gradient."""
    import torch.nn.functional as F

    rec = Recorder()
    for index, case in enumerate(tc.training_cases()):
        arrays = case.arrays(index)
        tensors = {k: torch.from_numpy(v.copy()).requires_grad_(case.inputs[k].grad
                                                                 and v.dtype.kind == "f")
                   for k, v in arrays.items()}
        outs = case.fn(torch, F, **tensors)
        outs = outs if isinstance(outs, tuple) else (outs,)
        fields: dict = {"outs": [rec.array(o.detach().numpy()) for o in outs]}
        if outs[0].requires_grad:
            first = outs[0].detach().numpy()
            grad = nd.floats(tc.grad_seed(index), first.shape, -3, 1, first.dtype.type)
            outs[0].backward(torch.from_numpy(grad))
            fields["grads"] = {k: rec.array(t.grad.numpy()) for k, t in tensors.items()
                               if t.grad is not None}
        rec.case(family=case.family, name=case.name, **fields)
    return rec


FAMILIES = {"reductions": record_reductions, "softmax": record_softmax,
            "matmul": record_matmul, "fused": record_fused, "training": record_training}


def child(capability: str, families: list[str], out: pathlib.Path = OUT) -> None:
    import torch
    from record_conformance import cpu_vendor

    torch.set_num_threads(2)  # the thread count the matmul expectations were measured with
    reported = torch.backends.cpu.get_cpu_capability().lower()
    if reported != capability:
        sys.exit(f"asked for {capability}, torch runs {reported}")
    for name in families:
        FAMILIES[name](torch).save(out / capability / f"{name}.npz")
    meta = {"capability": capability, "torch": torch.__version__,
            "blas": "mkl" if torch.backends.mkl.is_available() else "other",
            "cpu_flags_avx512": "avx512f" in open("/proc/cpuinfo").read(), "threads": 2,
            "cpu_vendor": cpu_vendor()}
    (out / capability / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")


def runnable() -> list[str]:
    flags = open("/proc/cpuinfo").read()
    caps = ["default", "avx2"]
    if all(f in flags for f in ("avx512vl", "avx512bw", "avx512dq")):
        caps.append("avx512")
    return caps


def record(capability: str, families: list[str], out: pathlib.Path = OUT) -> None:
    """The families under torch in a fresh Python run as on a machine of `capability`:
    oneDNN capped at that ISA (AVX2, or the AVX-512 core gradtrace models); numpy without
    its AVX-512 loops, as gradtrace imports it (gradtrace/__init__.py), so the inputs built
    with numpy's exp (activation_outputs) are the tests' own."""
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability,
               NPY_DISABLE_CPU_FEATURES=_numpy_avx512_features(),
               ONEDNN_MAX_CPU_ISA="AVX512_CORE" if capability == "avx512" else "AVX2")
    subprocess.run([sys.executable, __file__, "--child", str(out), capability, *families],
                   env=env, check=True)


def main() -> None:
    """`record_numerics.py [--family NAME ...] [CAPABILITY ...]`: every family by default."""
    args = sys.argv[1:]
    if len(args) > 2 and args[0] == "--child":
        child(args[2], args[3:], pathlib.Path(args[1]))
        return
    families = []
    while len(args) > 1 and args[0] == "--family":
        families.append(args[1])
        args = args[2:]
    for capability in args or runnable():
        record(capability, families or list(FAMILIES))


if __name__ == "__main__":
    main()
