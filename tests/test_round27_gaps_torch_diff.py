"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 27
(university course assignments) found:

* the DCGAN's 128->64 ConvTranspose2d(4, stride 2, padding 1) from 7x7 maps (CS231n's
  build_dc_generator) and the input gradient of its mirror, Conv2d(64, 128, 4, 2, 1) on
  14x14 maps: oneDNN 3.12 skips brgconv_strided for these shapes (its
  `is_regression_shape` list) and runs jit:avx2's direct data-gradient kernel, whose order
  gradtrace now follows there;
* inspect.getsource of a script's own function (the DeepLearning.AI GAN notebook's graders
  search a solution's source with re), with Python's block rules: decorators, a one-line
  body, trailing comments indented as the body.

Skipped unless torch is importable.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from script_runs import file_runs, gradtrace_output, torch_output

torch = pytest.importorskip("torch")


def bits(expression: str) -> str:
    """A print of `expression`'s float32 bit patterns summed: equal only for (almost
    surely) the same bits."""
    return f"print({expression}.view(torch.int32).long().sum().item())\n"


DECLINED_SHAPES = (
    "import torch\n"
    "torch.manual_seed(0)\n"
    "ct = torch.nn.ConvTranspose2d(128, 64, 4, 2, padding=1)\n"
    "for n in (1, 3):\n"
    "    y = ct(torch.randn(n, 128, 7, 7))\n"
    "    " + bits("y") +
    "    print(y[0, 0, :2, :5])\n"
    "c = torch.nn.Conv2d(64, 128, 4, 2, 1)\n"
    "x = torch.randn(2, 64, 14, 14, requires_grad=True)\n"
    "(c(x) ** 2).sum().backward()\n" + bits("x.grad") +
    "print(x.grad[1, 5, :2, :6])\n"
    # a neighbouring shape still runs brgconv_strided
    "ct = torch.nn.ConvTranspose2d(112, 64, 4, 2, padding=1)\n"
    "y = ct(torch.randn(2, 112, 7, 7))\n" + bits("y")
)


def test_brgconv_strided_declined_shapes_run_jit_avx2_order() -> None:
    assert gradtrace_output(DECLINED_SHAPES) == torch_output(DECLINED_SHAPES)


GETSOURCE = '''import inspect, re
import torch

@torch.no_grad()
def f(x,
      y=2):
    # inside
    z = (x +
         y)  # tail
    return z
    # trailing comment, as indented as the body

# not f's
class A:
    def m(self):
        return 1
def g(): return 3  # one line
# after g
def h():
    """doc"""
    if True:
        pass
# lower than the body: skipped, not an end
        # deeper again: h's
print(repr(inspect.getsource(f)))
print(repr(inspect.getsource(A.m)), repr(inspect.getsource(A().m)))
print(repr(inspect.getsource(g)), repr(inspect.getsource(h)))
lines = inspect.getsource(f)
print(re.search(r"to\\(.cuda.\\)", lines), re.search(r"x \\+", lines).span())
'''


def test_getsource_of_script_functions_matches_python(tmp_path: Path) -> None:
    python, gradtrace, _ = file_runs(GETSOURCE, tmp_path, "getsource", check=True)
    assert gradtrace.error is None
    assert gradtrace.stdout == python.stdout


def test_getsource_refuses_what_is_not_the_scripts_text() -> None:
    for target in ("torch.nn.Linear.forward", "lambda x: x", "len", "torch.add"):
        script = f"import inspect, torch\ninspect.getsource({target})\n"
        assert gradtrace_output(script).startswith("NotSupportedError inspect.getsource of a")
