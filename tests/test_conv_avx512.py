"""Bit-exactness against live torch 2.13 of oneDNN's AVX-512 convolution orders
(engine/conv_avx512.py): forward, input and weight gradients and the bias gradient of
float32 convolutions torch sends to oneDNN, with 1 and 2 threads. The suite caps oneDNN
at AVX2 (conftest), so torch runs here in a subprocess without the cap; the test skips
without torch or on a CPU without AVX-512."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gradtrace.engine import capability, exactness, onednn
from gradtrace.engine.backward import grad as gt_grad
from gradtrace.engine.ops import conv
from gradtrace.engine.tensor import Tensor

pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not onednn.uses_avx512_core(environ={}),
                                reason="the CPU has no AVX-512: oneDNN runs its AVX2 kernels")

CASES = [  # (input shape, weight shape, stride, padding, dilation)
    ((2, 3, 8, 8), (4, 3, 3, 3), 1, 0, 1),
    ((4, 16, 10, 10), (32, 16, 3, 3), 1, 1, 1),
    ((2, 20, 9, 9), (24, 20, 5, 5), 1, 2, 1),
    ((16, 1, 28, 28), (16, 1, 5, 5), 1, 0, 1),
    ((2, 32, 8, 8), (32, 32, 3, 3), 1, 0, 2),
    ((3, 40, 7, 7), (17, 40, 3, 3), 1, 1, 1),
    ((5, 8, 9, 9), (20, 8, 2, 2), 1, 0, 1),
    ((2, 48, 6, 6), (48, 48, 3, 3), 1, 1, 1),
    ((3, 20, 11, 11), (24, 20, 3, 3), 2, 1, 1),
    ((8, 3, 12, 12), (6, 3, 4, 4), 1, 0, 1),
    ((1, 32, 30, 30), (32, 32, 3, 3), 1, 0, 1),
    ((4, 64, 16, 16), (64, 64, 3, 3), 1, 1, 1),
    ((7, 1, 28, 28), (32, 1, 3, 3), 1, 1, 1),
    ((5, 6, 14, 14), (16, 6, 5, 5), 1, 0, 1),
    ((2, 128, 8, 8), (16, 128, 3, 3), 1, 1, 1),
    ((3, 2, 13, 11), (5, 2, 2, 3), (2, 1), (1, 0), 1),
    ((2, 16, 1, 40), (32, 16, 1, 5), 1, (0, 2), 1),
    ((4, 3, 25), (8, 3, 3), 1, 1, 1),
    ((3, 16, 30), (16, 16, 5), 2, 2, 1),
    ((2, 20, 18), (20, 20, 3), 1, 0, 3),
    ((4, 8, 10, 10), (16, 8, 3, 3), 1, 1, 1),  # 4-15 channels: AVX2 weight kernel
    ((6, 12, 11, 11), (24, 12, 3, 3), 1, 1, 1),
    ((3, 6, 9, 9), (8, 6, 3, 3), 2, 1, 1),
    ((2, 20, 9, 9), (24, 20, 9, 9), 1, 8, 1),  # padding just under the kernel
    ((2, 16, 10, 10), (16, 16, 3, 3), 1, 2, 1),  # AVX-512 weight kernel declines: AVX2's
    ((2, 16, 20, 40), (16, 16, 3, 13), 1, 0, 1),
    ((2, 16, 8, 8), (16, 16, 8, 8), 1, 1, 1),
    ((4, 16, 14, 14), (16, 16, 3, 3), 2, 1, 1),  # brgconv_strided:avx512_core input grads
    ((4, 1, 28, 28), (16, 1, 3, 3), 2, 1, 1),
    ((2, 64, 16, 16), (128, 64, 3, 3), 2, 1, 1),
    ((2, 32, 8, 8), (384, 32, 4, 4), 2, 1, 1),
    ((2, 16, 9, 9), (24, 16, 3, 3), 2, 0, 1),
    ((2, 16, 8, 8), (16, 16, 4, 4), 4, 0, 1),
]
# shapes oneDNN sends to other kernels for some direction (gemm:jit for padding as wide as
# the kernel or kernels 14 and wider, inner products for a kernel the input's size,
# brgconv_strided): their results either have torch's bits or the run notes why not (which
# of them gradtrace knows depends on the CPU: brgconv_strided's split test reads its L2 size)
EDGE = [
    ((2, 3, 16, 16), (8, 3, 3, 3), 1, 3, 1),
    ((2, 32, 8, 8), (512, 32, 4, 4), 2, 1, 1),  # brgconv_strided's split: known for a 2 MiB L2
    ((2, 4, 1, 60), (8, 4, 1, 20), 1, (0, 5), 1),
    ((2, 16, 10, 10), (16, 16, 3, 3), 1, (1, 3), 1),
    ((2, 16, 14, 14), (16, 16, 14, 14), 1, 0, 1),
    ((2, 1, 5, 40), (4, 1, 2, 15), 1, 0, 1),
    ((2, 16, 20, 40), (16, 16, 3, 14), 1, 0, 1),
    ((2, 4, 20, 40), (8, 4, 3, 14), 1, 0, 1),
    ((2, 16, 10, 10), (16, 16, 5, 5), 1, 5, 1),
]

_TORCH = textwrap.dedent("""
    import sys
    import numpy as np
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(int(sys.argv[2]))
    data = dict(np.load(sys.argv[1]))
    out = {}
    for i in range(int(data["count"])):
        x, w, b, g = (torch.from_numpy(data[f"{k}{i}"]).requires_grad_(k != "g")
                      for k in "xwbg")
        st, pad, dil = (tuple(int(v) for v in data[f"{k}{i}"]) for k in ("st", "pad", "dil"))
        if x.dim() == 3:
            y = F.conv1d(x, w, b, st[1], pad[1], dil[1])
        else:
            y = F.conv2d(x, w, b, st, pad, dil)
        grads = torch.autograd.grad(y, (x, w, b), g)
        for k, v in zip(("y", "gx", "gw", "gb"), (y.detach(),) + grads):
            out[f"{k}{i}"] = v.numpy()
    np.savez(sys.argv[1], **out)
""")


def _pair(v: int | tuple[int, int]) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)


def _inputs(i: int, case: tuple) -> dict[str, np.ndarray]:
    xs, ws, st, pad, dil = case
    rng = np.random.default_rng(i)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    tail = len(xs) - 2
    out = [(xs[2 + d] + 2 * _pair(pad)[-tail + d] - _pair(dil)[-tail + d] * (ws[2 + d] - 1) - 1)
           // _pair(st)[-tail + d] + 1 for d in range(tail)]
    g = rng.standard_normal((xs[0], ws[0], *out)).astype(np.float32)
    return dict(x=x, w=w, b=b, g=g, st=np.array(_pair(st)), pad=np.array(_pair(pad)),
                dil=np.array(_pair(dil)))


@pytest.fixture(scope="module", params=[1, 2], ids=["1-thread", "2-threads"])
def torch_results(request, tmp_path_factory):
    """torch's results for every case, from a subprocess whose oneDNN is not capped."""
    threads = request.param
    path = tmp_path_factory.mktemp("avx512") / f"conv{threads}.npz"
    arrays: dict[str, np.ndarray] = {"count": np.array(len(CASES + EDGE))}
    for i, case in enumerate(CASES + EDGE):
        arrays.update({f"{k}{i}": v for k, v in _inputs(i, case).items()})
    np.savez(path, **arrays)
    env = {k: v for k, v in os.environ.items()
           if k not in ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA", "OMP_NUM_THREADS")}
    subprocess.run([sys.executable, "-c", _TORCH, str(path), str(threads)], env=env,
                   check=True, timeout=600)
    return threads, dict(np.load(path))


@pytest.fixture
def avx512_onednn(monkeypatch):
    monkeypatch.setattr(onednn, "AVX512_CORE", True)


def _run(index: int) -> list[np.ndarray]:
    """gradtrace's output and gradients (input, weight, bias) for case `index`."""
    xs, ws, st, pad, dil = (CASES + EDGE)[index]
    data = _inputs(index, (CASES + EDGE)[index])
    gs = [Tensor(data[k], requires_grad=True) for k in "xwb"]
    exactness.reset()
    if len(xs) == 3:
        out = conv.conv1d(*gs, stride=st, padding=pad, dilation=dil)
    else:
        out = conv.conv2d(*gs, stride=st, padding=pad, dilation=dil)
    return [out] + list(gt_grad((out * Tensor(data["g"])).sum(), gs))


@pytest.mark.parametrize("index", range(len(CASES)))
def test_float32_convolution_has_torchs_avx512_onednn_bits(index, torch_results, avx512_onednn,
                                                            monkeypatch):
    threads, expected = torch_results
    monkeypatch.setattr(capability, "num_threads", lambda environ=None: threads)
    out, *grads = _run(index)
    assert exactness.causes() == ()
    np.testing.assert_array_equal(out.array, expected[f"y{index}"], strict=True)
    for name, mine in zip(("gx", "gw", "gb"), grads, strict=True):
        np.testing.assert_array_equal(mine.array, expected[f"{name}{index}"], strict=True,
                                      err_msg=name)


@pytest.mark.parametrize("index", range(len(CASES), len(CASES + EDGE)))
def test_convolution_on_other_onednn_kernels_has_torchs_bits_or_notes_why_not(
        index, torch_results, avx512_onednn, monkeypatch):
    threads, expected = torch_results
    monkeypatch.setattr(capability, "num_threads", lambda environ=None: threads)
    results = _run(index)
    causes = " ".join(exactness.causes())
    for name, direction, mine in zip(("y", "gx", "gw", "gb"),
                                     ("forward", "input", "weight", "weight"), results,
                                     strict=True):
        if f"({direction})" not in causes:
            np.testing.assert_array_equal(mine.array, expected[f"{name}{index}"], strict=True,
                                          err_msg=name)
