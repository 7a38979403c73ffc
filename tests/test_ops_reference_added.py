# ruff: noqa: E501  (the recorded rows are kept verbatim)
"""Reference rows (recorded with torch 2.13 by tests/tools/record_reference.py) for the ops
added for real code: each expression's node, next_functions (name:output_nr) and saved
values, checked against gradtrace without torch."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ops_helpers import TORCH, F
from test_ops_reference import (
    check_saved,
    expected_next,
    expected_saved,
    make_env,
    parse_rows,
    saved_values,
    short_name,
)

from gradtrace.engine.tensor import Tensor


def reference_inputs() -> dict[str, np.ndarray]:
    """The inputs of the rows beyond test_ops_reference's x, y, v, u, M, tgt."""
    f32 = np.float32
    return {
        "x": np.array([[0.5, 1.5, 2.0], [0.2, 0.8, 1.2]], dtype=f32),
        "y": np.array([[1.0, 2.0, 0.5], [2.5, 1.5, 0.3]], dtype=f32),
        "v": np.array([0.3, -1.2, 0.7], dtype=f32),
        "M": np.array([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]], dtype=f32),
        "tgt": np.array([0, 2], dtype=np.int64),
        "img": np.arange(50, dtype=f32).reshape(1, 2, 5, 5) / 10,
        "ker": np.arange(36, dtype=f32).reshape(2, 2, 3, 3) / 20,
        "b2": np.array([0.1, -0.2], dtype=f32),
        "seq": np.arange(14, dtype=f32).reshape(1, 2, 7) / 5,
        "emb": np.arange(15, dtype=f32).reshape(5, 3) / 4,
        "ids": np.array([[0, 3], [4, 3]], dtype=np.int64),
        "rm": np.zeros(3, dtype=f32),
        "rv": np.ones(3, dtype=f32),
        "idx": np.array([[0, 2], [1, 0]], dtype=np.int64),
    }


TABLE = r"""
| `x.tan()` | TanBackward0 | AccumulateGrad:0 | result=tensor[2, 3] |
| `x.asin()` | AsinBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `x.erf()` | ErfBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `x.erfinv()` | ErfinvBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `x.exp2()` | Exp2Backward0 | AccumulateGrad:0 | result=tensor[2, 3] |
| `x.log2()` | Log2Backward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `x.frac()` | FracBackward0 | AccumulateGrad:0 |  |
| `torch.atan2(x, y)` | Atan2Backward0 | AccumulateGrad:0, AccumulateGrad:0 | other=tensor[2, 3]; self=tensor[2, 3] |
| `torch.hypot(x, y)` | HypotBackward0 | AccumulateGrad:0, AccumulateGrad:0 | other=tensor[2, 3]; result=tensor[2, 3]; self=tensor[2, 3] |
| `torch.logaddexp(x, y)` | LogaddexpBackward0 | AccumulateGrad:0, AccumulateGrad:0 | other=tensor[2, 3]; self=tensor[2, 3] |
| `torch.xlogy(x, y)` | XlogyBackward0 | AccumulateGrad:0, AccumulateGrad:0 | other=tensor[2, 3]; self=tensor[2, 3] |
| `torch.lerp(x, y, 0.3)` | LerpBackward0 | AccumulateGrad:0, AccumulateGrad:0 | weight=0.3 |
| `torch.lerp(x, y, y)` | LerpBackward1 | AccumulateGrad:0, AccumulateGrad:0, AccumulateGrad:0 | end=tensor[2, 3]; self=tensor[2, 3]; weight=tensor[2, 3] |
| `torch.addcmul(x, x, y, value=2)` | AddcmulBackward0 | AccumulateGrad:0, AccumulateGrad:0, AccumulateGrad:0 | tensor1=tensor[2, 3]; tensor2=tensor[2, 3]; value=2 |
| `torch.addcdiv(x, x, y)` | AddcdivBackward0 | AccumulateGrad:0, AccumulateGrad:0, AccumulateGrad:0 | tensor1=tensor[2, 3]; tensor2=tensor[2, 3]; value=1 |
| `torch.fmod(x, y)` | FmodBackward1 | AccumulateGrad:0, AccumulateGrad:0 | other=tensor[2, 3]; self=tensor[2, 3] |
| `x.clamp(v, y)` | ClampBackward0 | AccumulateGrad:0, AccumulateGrad:0, AccumulateGrad:0 | max=tensor[2, 3]; min=tensor[3]; self=tensor[2, 3] |
| `x.clamp_min(0.5)` | ClampMinBackward0 | AccumulateGrad:0 | min=0.5; self=tensor[2, 3] |
| `x.clamp_max(y)` | ClampMaxBackward1 | AccumulateGrad:0, AccumulateGrad:0 | max=tensor[2, 3]; self=tensor[2, 3] |
| `(x * 1).cos_()` | CosBackward0 | MulBackward0:0 | self=tensor[2, 3] |
| `(x * 1).sqrt_()` | SqrtBackward0 | MulBackward0:0 | result=tensor[2, 3] |
| `(x * 1).asinh_()` | AsinhBackward1 | MulBackward0:0 |  |
| `(x * 1).lerp_(y, 0.5)` | LerpBackward0 | MulBackward0:0, AccumulateGrad:0 | weight=0.5 |
| `(x * 1).t_()` | TBackward1 | MulBackward0:0 |  |
| `(x * 1).unsqueeze_(0)` | UnsqueezeBackward1 | MulBackward0:0 | dim=0 |
| `(x * 1).squeeze_()` | SqueezeBackward3 | MulBackward0:0 | self_sym_sizes=(2, 3) |
| `F.conv2d(img, ker, b2, padding=1)` | ConvolutionBackward0 | AccumulateGrad:0, AccumulateGrad:0, AccumulateGrad:0 | bias_sym_sizes_opt=(2,); dilation=(1, 1); groups=1; input=tensor[1, 2, 5, 5]; output_padding=(0, 0); padding=(1, 1); stride=(1, 1); transposed=False; weight=tensor[2, 2, 3, 3] |
| `F.conv2d(img, ker, stride=2)` | ConvolutionBackward0 | AccumulateGrad:0, AccumulateGrad:0, None | bias_sym_sizes_opt=(0,); dilation=(1, 1); groups=1; input=tensor[1, 2, 5, 5]; output_padding=(0, 0); padding=(0, 0); stride=(2, 2); transposed=False; weight=tensor[2, 2, 3, 3] |
| `F.conv1d(seq, ker[:, :, 0], b2)` | ConvolutionBackward0 | AccumulateGrad:0, SelectBackward0:0, AccumulateGrad:0 | bias_sym_sizes_opt=(2,); dilation=(1,); groups=1; input=tensor[1, 2, 7]; output_padding=(0,); padding=(0,); stride=(1,); transposed=False; weight=tensor[2, 2, 3] |
| `F.max_pool2d(img, 2)` | MaxPool2DWithIndicesBackward0 | AccumulateGrad:0 | ceil_mode=False; dilation=(1, 1); kernel_size=(2, 2); padding=(0, 0); result1=tensor[1, 2, 2, 2]; self=tensor[1, 2, 5, 5]; stride=() |
| `F.max_pool1d(seq, 2)` | SqueezeBackward1 | MaxPool2DWithIndicesBackward0:0 | dim=18446744073709551614; self_sym_sizes=(1, 2, 1, 3) |
| `F.avg_pool2d(img, 3, stride=2, padding=1)` | AvgPool2DBackward0 | AccumulateGrad:0 | ceil_mode=False; count_include_pad=True; divisor_override=None; kernel_size=(3, 3); padding=(1, 1); self=tensor[1, 2, 5, 5]; stride=(2, 2) |
| `F.adaptive_avg_pool2d(img, (2, 3))` | AdaptiveAvgPool2DBackward0 | AccumulateGrad:0 | self=tensor[1, 2, 5, 5] |
| `F.adaptive_max_pool2d(img, 2)` | AdaptiveMaxPool2DBackward0 | AccumulateGrad:0 | result1=tensor[1, 2, 2, 2]; self=tensor[1, 2, 5, 5] |
| `F.pad(img, (1, 2))` | ConstantPadNdBackward0 | AccumulateGrad:0 | pad=(1, 2) |
| `F.pad(img, (1, 1, 2, 0), mode='reflect')` | ReflectionPad2DBackward0 | AccumulateGrad:0 | padding=(1, 1, 2, 0); self=tensor[1, 2, 5, 5] |
| `F.pad(seq, (2, 1), mode='replicate')` | ReplicationPad1DBackward0 | AccumulateGrad:0 | padding=(2, 1); self=tensor[1, 2, 7] |
| `F.layer_norm(x, (3,), v, v)` | NativeLayerNormBackward0 | AccumulateGrad:0, AccumulateGrad:0, AccumulateGrad:0 | bias=tensor[3]; input=tensor[2, 3]; normalized_shape=(3,); result1=tensor[2, 1]; result2=tensor[2, 1]; weight=tensor[3] |
| `F.batch_norm(x.t(), rm[:2], rv[:2], training=True)` | NativeBatchNormBackward0 | TBackward0:0, None, None | eps=1e-05; input=tensor[3, 2]; result1=tensor[2]; result2=tensor[2]; running_mean=tensor[2]; running_var=tensor[2]; training=True; weight=None |
| `F.batch_norm(x.t(), rm[:2], rv[:2])` | NativeBatchNormBackward0 | TBackward0:0, None, None | eps=1e-05; input=tensor[3, 2]; result1=tensor[0]; result2=tensor[0]; running_mean=tensor[2]; running_var=tensor[2]; training=False; weight=None |
| `F.group_norm(img, 2)` | NativeGroupNormBackward0 | AccumulateGrad:0, None, None | C=2; HxW=25; N=1; eps=1e-05; group=2; input=tensor[1, 2, 5, 5]; result1=tensor[1, 2]; result2=tensor[1, 2]; weight=None |
| `F.embedding(ids, emb, padding_idx=3)` | EmbeddingBackward0 | AccumulateGrad:0 | indices=tensor[2, 2]; padding_idx=3; scale_grad_by_freq=False; sparse=False; weight_sym_argsize_0=5 |
| `F.relu6(x)` | HardtanhBackward0 | AccumulateGrad:0 | max_val=6; min_val=0; self=tensor[2, 3] |
| `F.hardtanh(x)` | HardtanhBackward0 | AccumulateGrad:0 | max_val=1.0; min_val=-1.0; self=tensor[2, 3] |
| `F.threshold(x, 0.6, 0.0)` | ThresholdBackward0 | AccumulateGrad:0 | self=tensor[2, 3]; threshold=0.6 |
| `F.logsigmoid(x)` | LogSigmoidBackward0 | AccumulateGrad:0 | buffer=tensor[2, 3]; self=tensor[2, 3] |
| `F.hardsigmoid(x)` | HardsigmoidBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `F.hardswish(x)` | HardswishBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `F.mish(x)` | MishBackward0 | AccumulateGrad:0 | self=tensor[2, 3] |
| `F.glu(M, 1)` | GluBackward0 | AccumulateGrad:0 | dim=1; self=tensor[3, 2] |
| `F.elu(x * 1, inplace=True)` | EluBackward1 | MulBackward0:0 | alpha=1.0; input_scale=1; result=tensor[2, 3]; scale=1 |
| `F.leaky_relu(x * 1, 0.1, inplace=True)` | LeakyReluBackward1 | MulBackward0:0 | negative_slope=0.1; result=tensor[2, 3] |
| `F.softshrink(x, 0.6)` | SoftshrinkBackward0 | AccumulateGrad:0 | lambd=0.6; self=tensor[2, 3] |
| `F.smooth_l1_loss(x, y)` | SmoothL1LossBackward0 | AccumulateGrad:0, AccumulateGrad:0 | beta=1.0; reduction=1; self=tensor[2, 3]; target=tensor[2, 3] |
| `F.huber_loss(x, y, delta=0.5)` | HuberLossBackward0 | AccumulateGrad:0, AccumulateGrad:0 | delta=0.5; reduction=1; self=tensor[2, 3]; target=tensor[2, 3] |
| `F.soft_margin_loss(x, y.detach())` | SoftMarginLossBackward0 | AccumulateGrad:0 | reduction=1; self=tensor[2, 3]; target=tensor[2, 3] |
| `F.cross_entropy(x, tgt, label_smoothing=0.1)` | AddBackward0 | MulBackward1:0, MulBackward1:0 | alpha=1 |
| `F.cross_entropy(img[:, :, :2], torch.zeros(1, 2, 5, dtype=torch.long))` | NllLoss2DBackward0 | LogSoftmaxBackward0:0 | ignore_index=18446744073709551516; reduction=1; self=tensor[1, 2, 2, 5]; target=tensor[1, 2, 5]; total_weight=tensor[]; weight=None |
| `F.kl_div(x, y, reduction='batchmean')` | DivBackward0 | SumBackward0:0, None | other=tensor[]; self=None |
| `x.sort(1)` | SortBackward0 | AccumulateGrad:0 | dim=1; indices=tensor[2, 3]; self_sym_sizes=(2, 3) |
| `x.topk(2)` | TopkBackward0 | AccumulateGrad:0 | dim=18446744073709551615; indices=tensor[2, 2]; self_sym_sizes=(2, 3) |
| `x.kthvalue(2)` | KthvalueBackward0 | AccumulateGrad:0 | dim=18446744073709551615; indices=tensor[2]; keepdim=False; self_sym_sizes=(2, 3) |
| `x.median()` | MedianBackward0 | AccumulateGrad:0 | result=tensor[]; self=tensor[2, 3] |
| `x.median(1)` | MedianBackward1 | AccumulateGrad:0 | dim=1; indices=tensor[2]; keepdim=False; self_sym_sizes=(2, 3) |
| `x.mode(1)` | ModeBackward0 | AccumulateGrad:0 | dim=1; indices=tensor[2]; keepdim=False; self_sym_sizes=(2, 3) |
| `x.tril()` | TrilBackward0 | AccumulateGrad:0 | diagonal=0 |
| `x.diagonal()` | DiagonalBackward0 | AccumulateGrad:0 | dim1=0; dim2=1; offset=0; self_sym_sizes=(2, 3) |
| `x.diag()` | DiagonalBackward0_copy | AccumulateGrad:0 | dim1=0; dim2=1; offset=0; self_sym_sizes=(2, 3) |
| `v.diag()` | DiagEmbedBackward0 | AccumulateGrad:0 | dim1=18446744073709551614; dim2=18446744073709551615; offset=0 |
| `torch.diag_embed(v)` | DiagEmbedBackward0 | AccumulateGrad:0 | dim1=18446744073709551614; dim2=18446744073709551615; offset=0 |
| `x.trace()` | TraceBackward0 | AccumulateGrad:0 | self_sym_sizes=(2, 3) |
| `x.roll(1, 1)` | RollBackward0 | AccumulateGrad:0 | dims=(1,); shifts=(1,) |
| `x.cumprod(1)` | CumprodBackward0 | AccumulateGrad:0 | dim=1; result=tensor[2, 3]; self=tensor[2, 3] |
| `x.cummax(1)` | CummaxBackward0 | AccumulateGrad:0 | dim=1; indices=tensor[2, 3]; self=tensor[2, 3] |
| `F.prelu(img, b2)` | PreluKernelBackward0 | AccumulateGrad:0, ViewBackward0:0 | self=tensor[1, 2, 5, 5]; weight=tensor[1, 2, 1, 1] |
| `F.prelu(x, v[:1])` | PreluKernelBackward0 | AccumulateGrad:0, ViewBackward0:0 | self=tensor[2, 3]; weight=tensor[1, 1] |
| `F.bilinear(x, y, ker[:, 0], b2)` | AddBackward0 | ViewBackward0:0, AccumulateGrad:0 | alpha=1 |
| `F.bilinear(x, y.detach(), ker[:, 0].detach())` | ViewBackward0 | TrilinearBackward0:0 | self_sym_sizes=(2, 2) |
| `F.pad(img, (1, 2, 0, 1), mode='circular')` | torch::autograd::CopySlices | torch::autograd::CopySlices:0, SliceBackward0:0 |  |
| `F.conv_transpose2d(img, ker, b2, stride=2, padding=1, output_padding=1)` | ConvolutionBackward0 | AccumulateGrad:0, AccumulateGrad:0, AccumulateGrad:0 | bias_sym_sizes_opt=(2,); dilation=(1, 1); groups=1; input=tensor[1, 2, 5, 5]; output_padding=(1, 1); padding=(1, 1); stride=(2, 2); transposed=True; weight=tensor[2, 2, 3, 3] |
| `F.conv_transpose1d(seq, ker[:, :, 0])` | ConvolutionBackward0 | AccumulateGrad:0, SelectBackward0:0, None | bias_sym_sizes_opt=(0,); dilation=(1,); groups=1; input=tensor[1, 2, 7]; output_padding=(0,); padding=(0,); stride=(1,); transposed=True; weight=tensor[2, 2, 3] |
| `F.interpolate(img, scale_factor=2)` | UpsampleNearest2DBackward0 | AccumulateGrad:0 | output_size=(10, 10); scales_h=2.0; scales_w=2.0; self_sym_sizes=(1, 2, 5, 5) |
| `F.interpolate(seq, size=9)` | UpsampleNearest1DBackward0 | AccumulateGrad:0 | output_size=(9,); scales=None; self_sym_sizes=(1, 2, 7) |
| `F.interpolate(img, size=(3, 7), mode='nearest-exact')` | UpsampleNearestExact2DBackward0 | AccumulateGrad:0 | output_size=(3, 7); scales_h=None; scales_w=None; self_sym_sizes=(1, 2, 5, 5) |
| `F.interpolate(img, scale_factor=1.5, mode='bilinear', align_corners=True)` | UpsampleBilinear2DBackward0 | AccumulateGrad:0 | align_corners=True; output_size=(7, 7); scales_h=1.5; scales_w=1.5; self_sym_sizes=(1, 2, 5, 5) |
| `F.interpolate(seq, scale_factor=2, mode='linear')` | UpsampleLinear1DBackward0 | AccumulateGrad:0 | align_corners=False; output_size=(14,); scales=2.0; self_sym_sizes=(1, 2, 7) |
| `x.unsafe_chunk(3, 1)[0]` | UnsafeSplitBackward0 | AccumulateGrad:0 | dim=1; self_sym_sizes=(2, 3); split_size=1 |
| `torch.unsafe_split(x, 2, 1)[1]` | UnsafeSplitBackward0 | AccumulateGrad:0 | dim=1; self_sym_sizes=(2, 3); split_size=2 |
| `torch.std_mean(x, 1)` | StdMeanBackward0 | AccumulateGrad:0 | correction=1; dim=(1,); keepdim=False; result0=tensor[2]; self=tensor[2, 3] |
| `torch.var_mean(x)` | VarMeanBackward0 | AccumulateGrad:0 | correction=None; dim=None; keepdim=False; self=tensor[2, 3] |
| `x.index_copy(1, tgt, y[:, :2])` | IndexCopyBackward0 | AccumulateGrad:0, SliceBackward0:0 | dim=1; index=tensor[2]; source=tensor[2, 2]; source_dim=2 |
| `x.index_add(0, tgt[:1], y[:1], alpha=2)` | IndexAddBackward0 | AccumulateGrad:0, SliceBackward0:0 | alpha=2; dim=0; index=tensor[1]; source=tensor[1, 3]; source_dim=2 |
| `x.index_fill(1, tgt, 0.0)` | IndexFillBackward0 | AccumulateGrad:0 | dim=1; index=tensor[2] |
| `x.index_fill(1, tgt, v.sum())` | IndexFillBackward1 | AccumulateGrad:0, SumBackward0:0 | dim=1; index=tensor[2] |
| `x.scatter(1, idx, y)` | ScatterBackward0 | AccumulateGrad:0, AccumulateGrad:0 | dim=1; index=tensor[2, 2] |
| `x.scatter(1, idx, 0.5)` | ScatterBackward1 | AccumulateGrad:0 | dim=1; index=tensor[2, 2] |
| `x.masked_select(x > 1)` | MaskedSelectBackward0 | AccumulateGrad:0 | mask=tensor[2, 3]; self=tensor[2, 3] |
| `x.masked_scatter(x > 1, y)` | MaskedScatterBackward0 | AccumulateGrad:0, AccumulateGrad:0 | mask=tensor[2, 3]; source_sym_sizes=(2, 3) |
| `torch.einsum('ij,jk->ik', x, M)` | ViewBackward0 | PermuteBackward0:0 | self_sym_sizes=(2, 2, 1) |
| `torch.einsum('ij->', x)` | SumBackward1 | PermuteBackward0:0 | dim=(0, 1); keepdim=False; self_sym_sizes=(2, 3) |
| `torch.einsum('i,j->ij', v, v)` | MulBackward0 | PermuteBackward0:0, PermuteBackward0:0 | other=tensor[1, 3]; self=tensor[3, 1] |
| `torch.einsum('ij,ij->i', x, y)` | ViewBackward0 | PermuteBackward0:0 | self_sym_sizes=(2, 1) |
| `x[range(2)]` | IndexBackward0 | AccumulateGrad:0 | indices=(tensor([0, 1]),); self_sym_sizes=(2, 3) |
| `x[[0, 1], [2, 0]]` | IndexBackward0 | AccumulateGrad:0 | indices=(tensor([0, 1]), tensor([2, 0])); self_sym_sizes=(2, 3) |
"""

ROWS = parse_rows(TABLE)


def added_env() -> dict[str, Any]:
    env = make_env()
    for name, array in reference_inputs().items():
        if name not in env:
            env[name] = Tensor(array.copy(), requires_grad=array.dtype.kind == "f"
                               and name not in ("rm", "rv"))
    env["torch"], env["F"] = TORCH, F
    return env


@pytest.mark.parametrize(("expr", "node", "nexts", "saved"), ROWS, ids=[r[0] for r in ROWS])
def test_reference_row(expr: str, node: str, nexts: str, saved: str) -> None:
    result = eval(expr, added_env())  # noqa: S307 - the table's fixed expressions
    if isinstance(result, tuple):
        result = result[0]
    fn = result.grad_fn
    assert fn is not None and fn.name() == node
    got_next = [(short_name(n), None if n is None else nr) for n, nr in fn.next_functions]
    assert got_next == expected_next(nexts)
    want = expected_saved(saved)
    got = saved_values(fn)
    assert sorted(got) == sorted(want)
    for key, text in want.items():
        check_saved(key, got[key], text)
