"""F.scaled_dot_product_attention as torch 2.13 runs it on the CPU.

`_fused_sdp_choice` picks the flash-attention kernel (one node,
ScaledDotProductFlashAttentionForCpuBackward0, kernels in engine/attention_kernels.py)
for 4-d floating inputs with equal head sizes, unit last strides, no dropout and no mask
or a 2-d/4-d mask that does not require grad (its output laid out as empty_like(query));
everything else runs
`_scaled_dot_product_attention_math`: scale q and k by sqrt(scale), matmul, add the mask
in place, `_safe_softmax` (SafeSoftmaxBackward0), dropout, matmul (measured on torch
2.13.0+cpu).
"""
from __future__ import annotations

import math

import numpy as np

from ...errors import TorchRuntimeError
from .. import attention_kernels as kernels
from ..formulas import PRESENT, Formula, vjp
from ..node import Function
from ..tensor import Tensor
from .clones import empty_laid_out, preserved_strides
from .softmax import softmax_backward_values, softmax_values
from .views import saved_int, signed


def _flash_formulas() -> tuple[Formula, ...]:
    """The attention weights P = softmax(scale × q @ kᵀ + mask) written out, one variant
    for each way scale and the mask were given (the first that holds is shown)."""
    out: list[Formula] = []
    for scale_when, scale in (((("scale", None),), "{query}.shape[-1] ** -0.5"),
                              ((), "{scale}")):
        causal = " + causal_mask({query}.shape[-2], {key}.shape[-2])"
        for mask_when, mask in (((("is_causal", True),), causal),
                                ((("attn_mask", PRESENT),), " + {attn_mask}"),
                                ((), "")):
            when = scale_when + mask_when
            p = f"softmax({scale} × {{query}} @ {{key}}.mT{mask}, -1)"
            ds = (f"{p} ⊙ ({{grad}} @ {{value}}.mT - ({{grad}} ⊙ {{output}})"
                  ".sum(-1, keepdim=True))")
            out += [vjp("query", f"{scale} × ({ds}) @ {{key}}", when=when),
                    vjp("key", f"{scale} × ({ds}).mT @ {{query}}", when=when),
                    vjp("value", f"{p}.mT @ {{grad}}", when=when)]
    return tuple(out)


class ScaledDotProductFlashAttentionForCpuBackward0(Function):
    """_scaled_dot_product_flash_attention_for_cpu: (output, logsumexp); q, k, v are the
    inputs, the (float) mask a saved value."""

    __slots__ = ()
    multi_output = True
    formulas = _flash_formulas()

    def forward(self, q: Tensor, k: Tensor, v: Tensor, *, attn_mask: Tensor | None,
                is_causal: bool, scale: float | None) -> list[np.ndarray]:
        mask = None if attn_mask is None else _mask_4d(attn_mask.array, q.array.shape,
                                                       k.array.shape[2])
        out, lse = kernels.flash_forward(q.array, k.array, v.array, mask, is_causal,
                                         _scale(q, scale))
        strides = preserved_strides(q.array)
        if strides is not None:  # the output is empty_like(query): a (B, T, H, E) query's
            laid = empty_laid_out(out.shape, strides, out.dtype)  # layout, so a model's
            laid[...] = out  # transpose(1, 2).contiguous() copies nothing
            out = laid
        self.save("query", q)
        self.save("key", k)
        self.save("value", v)
        self.save("attn_mask", attn_mask)
        self.save_attr(dropout_p=0.0, is_causal=is_causal, scale=scale)
        return [out, lse]

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("output", outputs[0], is_output=True)
        self.save("logsumexp", outputs[1], is_output=True)
        self.show_saved_as("attn_mask", "key", "logsumexp", "output", "query", "value")

    def backward(self, grad: Tensor, _grad_lse: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        q, k, v = self.unpack("query"), self.unpack("key"), self.unpack("value")
        out, lse = self.unpack("output"), self.unpack("logsumexp")
        mask = self.unpack("attn_mask")
        mask4 = None if mask is None else _mask_4d(mask.array, q.array.shape, k.array.shape[2])
        scale = _scale(q, self.attrs["scale"])
        gq, gk, gv = kernels.flash_backward(grad.array, q.array, k.array, v.array, out.array,
                                            lse.array, mask4, self.attrs["is_causal"], scale)
        wrap = Tensor._wrap
        return wrap(gq), wrap(gk), wrap(gv)


class SafeSoftmaxBackward0(Function):
    """_safe_softmax: softmax whose rows of all -inf give zeros instead of NaN."""

    __slots__ = ()
    formulas = (vjp("self", "{result} × ({grad} - ({grad} × {result}).sum({dim}, keepdim=True))"),)

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        d = dim % a.array.ndim
        self.save_attr(dim=saved_int(dim))
        x = a.array
        with np.errstate(invalid="ignore"):
            out = softmax_values(x, d)
        masked = np.all(x == -np.inf, axis=d, keepdims=True)
        return np.where(masked, x.dtype.type(0), out)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        from .softmax import SoftmaxBackwardDataBackward0

        result = self.unpack("result")
        if grad.requires_grad or result.requires_grad:
            return SoftmaxBackwardDataBackward0.call(grad, result, dim=self.attrs["dim"])
        d = signed(self.attrs["dim"]) % result.array.ndim
        return Tensor._wrap(softmax_backward_values(grad.array.astype(result.array.dtype),
                                                    result.array, d))


def _scale(q: Tensor, scale: float | None) -> float:
    """sdp::calculate_scale: the given scale, else 1 / sqrt(head size), in double."""
    return float(scale) if scale is not None else 1.0 / math.sqrt(q.array.shape[-1])


def _mask_4d(mask: np.ndarray, q_shape: tuple[int, ...], kv_len: int) -> np.ndarray:
    """reshape_attn_mask_to_4d: the mask broadcast to (B, H, L, S)."""
    batch, heads, q_len = q_shape[:3]
    return np.broadcast_to(mask, (batch, heads, q_len, kv_len))


def _converted_mask(mask: Tensor | None, q: Tensor) -> Tensor | None:
    """convert_boolean_attn_mask: a bool mask becomes 0 where True, -inf where False, in
    the query's dtype; a float mask is used as it is."""
    if mask is None or mask.dtype.name != "bool":
        return mask
    dtype = q.array.dtype
    return Tensor._wrap(np.where(mask.array, dtype.type(0), dtype.type(-np.inf)))


def _use_flash(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, dropout_p: float,
               enable_gqa: bool) -> bool:
    """use_flash_attention_cpp's checks (sdp_utils_cpp.cpp), as measured."""
    arrays = (q.array, k.array, v.array)
    if any(a.ndim != 4 for a in arrays) or dropout_p > 0.0:
        return False
    if any(a.dtype not in (np.float32, np.float64) for a in arrays):
        return False
    if not q.array.dtype == k.array.dtype == v.array.dtype:
        return False
    if not q.array.shape[-1] == k.array.shape[-1] == v.array.shape[-1]:
        return False
    if any(a.shape[-1] > 1 and a.strides[-1] != a.itemsize for a in arrays):
        return False
    if any(a.shape[-2] == 0 for a in arrays):
        return False
    if mask is not None and (mask.array.ndim not in (2, 4) or mask.requires_grad):
        return False
    heads_q, heads_k = q.array.shape[1], k.array.shape[1]
    if heads_q != heads_k and not (enable_gqa and heads_q % heads_k == 0
                                   and k.array.shape[1] == v.array.shape[1]):
        return False
    return q.array.shape[0] == k.array.shape[0] == v.array.shape[0]


def _repeat_heads(x: Tensor, repeat: int) -> Tensor:
    """x.repeat_interleave(repeat, -3) as torch runs an int repeat: unsqueeze, expand,
    clone, flatten."""
    from . import TENSOR_METHODS as M

    dim = x.array.ndim - 3
    shape = list(x.array.shape)
    shape.insert(dim + 1, repeat)
    grown = M["clone"](M["expand"](M["unsqueeze"](x, dim + 1), shape))
    return M["flatten"](grown, dim, dim + 1)


def _math(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, dropout_p: float,
          is_causal: bool, scale: float | None, enable_gqa: bool) -> Tensor:
    """_scaled_dot_product_attention_math's composite ops."""
    from . import TENSOR_METHODS as M
    from .dropout import torch_dropout

    if is_causal:
        if mask is not None:
            raise TorchRuntimeError("_scaled_dot_product_attention: Explicit attn_mask should "
                                    "not be set when is_causal=True")
        rows, cols = q.array.shape[-2], k.array.shape[-2]
        mask = _converted_mask(Tensor._wrap(np.tril(np.ones((rows, cols), bool))), q)
    negative = scale is not None and scale < 0
    factor = math.sqrt(abs(scale) if negative else _scale(q, scale))
    query = M["mul"](q, -factor if negative else factor)
    if enable_gqa and q.array.ndim >= 3 and q.array.shape[-3] != k.array.shape[-3]:
        repeat = q.array.shape[-3] // k.array.shape[-3]
        k, v = _repeat_heads(k, repeat), _repeat_heads(v, repeat)
    attn = M["matmul"](query, M["mul"](M["transpose"](k, -2, -1), factor))
    if mask is not None:
        attn = M["add"](attn, mask) if mask.requires_grad else M["add_"](attn, mask)
    attn = SafeSoftmaxBackward0.call(attn, dim=-1)
    if dropout_p > 0.0:
        attn = torch_dropout(attn, dropout_p, True)
    return M["matmul"](attn, v)


# The global context's scaled-dot-product switches (torch.backends.cuda.enable_flash_sdp,
# enable_math_sdp, ..., and the sdp_kernel / sdpa_kernel context managers set them): on the
# CPU, select_sdp_backend_cpp takes the flash kernel only while it is enabled, then the math
# one while that is; the efficient-attention and cuDNN switches only read back. Each run
# starts from torch's defaults (reset_sdp_switches, from torch_namespace.reset_backend_flags).
SDP_DEFAULTS = {"flash": True, "math": True, "mem_efficient": True, "cudnn": True}
SDP_ENABLED = dict(SDP_DEFAULTS)


def reset_sdp_switches() -> None:
    SDP_ENABLED.update(SDP_DEFAULTS)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """F.scaled_dot_product_attention: softmax(q @ k.T * scale + mask) @ v."""
    mask = _converted_mask(attn_mask, query)
    flash = SDP_ENABLED["flash"]
    if flash and _use_flash(query, key, value, mask, float(dropout_p), enable_gqa):
        out, _lse = ScaledDotProductFlashAttentionForCpuBackward0.call(
            query, key, value, attn_mask=mask, is_causal=bool(is_causal), scale=scale)
        return out
    if not SDP_ENABLED["math"]:
        if not flash:  # _fused_sdp_choice_cpp's check (torch also warns why flash was not
            raise TorchRuntimeError(  # used, on stderr, when it was enabled)
                "No viable backend for scaled_dot_product_attention was found. This is "
                "likely due to turning off both the math kernel and the fused kernels.")
        raise TorchRuntimeError("No available kernel.  Aborting execution.")
    return _math(query, key, value, mask, float(dropout_p), bool(is_causal), scale,
                 enable_gqa)


__all__ = ["scaled_dot_product_attention"]
