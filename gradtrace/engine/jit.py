"""What running a torch.jit traced or scripted callable changes in the autograd graph, and
the guards that keep gradtrace to what it reproduces exactly (torch 2.13, measured).

torch runs such a callable's graph (TorchScript IR), not its Python, and that graph calls
aten ops as the tracer recorded them or the compiler emitted them:

- A Python number in `x * 2`, `2 * x`, `x + 1`, `x - 1.5`, `x / 2`, `torch.mul(x, 2)`,
  `x.add(1)` is a Scalar argument there, so the node is the Scalar overload's
  (MulBackward1, AddBackward1, SubBackward1, DivBackward1) where eager Python wraps the
  number in a tensor (MulBackward0, ...). Scripted `1 - x` compiles to `neg(x) + 1`
  (AddBackward1 over NegBackward0); traced it stays `rsub` (RsubBackward1).
- The tracer does not record conv1d/2d/3d, conv_transpose1d/2d/3d nor convolution
  (tools/autograd/gen_trace_type.py, DONT_RECORD_TRACE) but the `aten::_convolution` they
  call, and replaying that op makes derivatives.yaml's `_convolution` node,
  ConvolutionBackward1 (same saved values and formula as ConvolutionBackward0). Scripted
  code calls `aten::conv2d`: ConvolutionBackward0, as eager.
- A full slice `x[:, 1]` is an `aten::slice` node (SliceBackward0) in the graph, which eager
  indexing skips (engine/ops/subscript.py keeps it there).
- Traced callables run on the simple executor: every call runs the same graph. Scripted
  ones run on the profiling executor: the first call in grad mode profiles and records
  eager's nodes; later calls, and a first call under no_grad, run the optimized graph,
  whose ops autodiff supports are merged into DifferentiableGraphs as soon as a tensor
  requires grad (node `torch::jit::(anonymous namespace)::DifferentiableGraphBackward`,
  even under no_grad), which gradtrace does not reproduce: lib/torch/jit/_script.gt
  refuses such calls.

Every node recorded while a jit callable runs must be one measured to be recorded the same
way by torch (`TRACE_NODES`, `SCRIPT_NODES`): anything else is refused with a
NotSupportedError instead of a graph torch would not build.
"""
from __future__ import annotations

from typing import Any

from ..errors import NotSupportedError
from . import events
from .grad_mode import GRAD_MODE

_SAME = frozenset((
    "AbsBackward0 AddBackward0 AddmmBackward0 AvgPool2DBackward0 CatBackward0 "
    "ClampBackward1 CloneBackward0 DivBackward0 EluBackward0 EmbeddingBackward0 "
    "ExpBackward0 ExpandBackward0 GeluBackward0 LeakyReluBackward0 LogBackward0 "
    "LogSoftmaxBackward0 MaskedFillBackward0 MaxBackward0 MaxBackward1 "
    "MaxPool2DWithIndicesBackward0 MeanBackward0 MeanBackward1 MinBackward1 MmBackward0 "
    "MseLossBackward0 MulBackward0 MvBackward0 NativeBatchNormBackward0 "
    "NativeLayerNormBackward0 NegBackward0 NllLossBackward0 PermuteBackward0 PowBackward0 "
    "PowBackward2 ReciprocalBackward0 ReluBackward0 RsqrtBackward0 SelectBackward0 "
    "SigmoidBackward0 SiluBackward0 SinBackward0 SoftmaxBackward0 SoftplusBackward0 "
    "SplitBackward0 SqrtBackward0 SqueezeBackward0 StackBackward0 StdBackward0 "
    "SubBackward0 SumBackward0 SumBackward1 TBackward0 TanhBackward0 ToCopyBackward0 "
    "TransposeBackward0 UnbindBackward0 UnsqueezeBackward0 VarBackward0 ViewBackward0 "
    "WhereBackward0 SliceBackward0 AddBackward1 SubBackward1 MulBackward1 "
    "DivBackward1 BmmBackward0 CosBackward0 ReshapeAliasBackward0 SqueezeBackward1 "
    "UnsafeViewBackward0").split())
"""Nodes torch 2.13 records alike in eager, traced and scripted code (first call), measured
over ~120 expressions and nn modules, plus the Scalar overloads the lowering makes, and a
3-D matmul's folded mm or bmm with its reshapes (tests/data/jit/jit_expression_nodes.gt)."""

TRACE_NODES = _SAME | {"ConvolutionBackward1", "RsubBackward1", "LinalgVectorNormBackward0"}
SCRIPT_NODES = _SAME | {"ConvolutionBackward0"}

SIMPLE, PROFILING = "simple", "profiling"


class JitState:
    """The jit callable running now, if any: `mode` is "trace" or "script" (None outside);
    `tracing` is True while torch.jit.trace runs the Python (torch.jit.is_tracing());
    `replaying` is True while a traced callable is called again (torch runs its graph, no
    Python: prints are not made)."""

    __slots__ = ("mode", "tracing", "replaying")

    def __init__(self) -> None:
        self.mode: str | None = None
        self.tracing = False
        self.replaying = False


JIT = JitState()


def lowers(a: Any, number: Any) -> bool:
    """Whether `a op number` is the graph's Scalar overload here: a jit callable runs, the
    node will be recorded, and `number` is a Python int or float."""
    if JIT.mode is None or not GRAD_MODE.enabled or not getattr(a, "requires_grad", False):
        return False
    kind = type(number)
    if kind is int or kind is float:
        return True
    if kind is bool or kind is complex:
        raise NotSupportedError(f"a {kind.__name__} operand inside a torch.jit {_kind()} "
                                "callable is not supported by gradtrace")
    return False


def _kind() -> str:
    """"traced" or "scripted", for messages."""
    return "traced" if JIT.mode == "trace" else "scripted"


def refuse(what: str) -> None:
    """Raise for what a jit callable would make differently from eager code, unreproduced."""
    raise NotSupportedError(f"{what} inside a torch.jit {_kind()} callable is not "
                            "supported by gradtrace")


class Recorder:
    """The engine observer of one jit call: the ops it ran (names, in order) and the nodes it
    recorded, each checked against the nodes torch records alike."""

    def __init__(self) -> None:
        self.ops: list[str] = []
        self.nodes = 0

    def on_op(self, node: Any, name: str, inputs: Any, outputs: Any) -> None:
        self.ops.append(name)
        if node is not None:
            self.nodes += 1  # (checked against the innermost graph's kind)
            if name not in (TRACE_NODES if JIT.mode == "trace" else SCRIPT_NODES):
                refuse(f"the autograd node {name}")

    def on_inplace(self, tensor: Any, version: int, node: Any, name: str) -> None:
        if node is not None:
            refuse(f"an in-place op recorded as {name}")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("on_"):
            return _ignore
        raise AttributeError(name)


def _ignore(**facts: Any) -> None:
    return None


class running:  # noqa: N801 - used like a function
    """`with running(mode, tracing=..., replaying=...) as recorder:` one call of a jit
    callable's graph (mode "trace" or "script"). A graph called from another one is
    inlined into it by torch and keeps its own kind (a traced module inside a scripted one
    still records ConvolutionBackward1); inside a replayed graph no Python runs."""

    __slots__ = ("mode", "tracing", "replaying", "recorder", "saved")

    def __init__(self, mode: str, *, tracing: bool = False, replaying: bool = False) -> None:
        self.mode = mode
        self.tracing = tracing
        self.replaying = replaying
        self.recorder = Recorder()

    def __enter__(self) -> Recorder:
        self.saved = (JIT.mode, JIT.tracing, JIT.replaying)
        JIT.mode = self.mode
        JIT.tracing = self.tracing
        JIT.replaying = self.replaying or JIT.replaying
        events.OBSERVERS.append(self.recorder)
        return self.recorder

    def __exit__(self, *exc: object) -> None:
        if self.recorder in events.OBSERVERS:
            events.OBSERVERS.remove(self.recorder)
        JIT.mode, JIT.tracing, JIT.replaying = self.saved


def reset() -> None:
    """A run starts outside any jit callable."""
    JIT.mode = None
    JIT.tracing = False
    JIT.replaying = False
