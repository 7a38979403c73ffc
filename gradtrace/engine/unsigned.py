"""torch's "barebones" unsigned dtypes (uint16, uint32, uint64): which ops run on them.

torch 2.13 gives these dtypes tensors, printing, casts and views, but builds only some
kernels for them: `a * b` and `a.sum()` run, `a + b` raises `"add_stub" not implemented for
'UInt16'`. Which is which was measured op by op with torch (tests/conformance_extra/
unsigned_dtypes_*.gt record it), and is this one table:

- `KERNELS`: the ops whose kernel torch lacks, by the kernel name its NotImplementedError
  gives (`check_op` raises it, with the tensor's ScalarType name);
- `RUNS`: the ops measured to run on these dtypes (or to fail on a check gradtrace's op
  makes too), whose engine op then computes what torch computes;
- any other op on such a tensor is refused (NotSupportedError): not measured, so never a
  silently different answer.

An op whose operands may promote (`u16 + 1.5` is float32, which has every kernel) is judged
by the dtype it computes in: `BINARY` lists those.
"""
from __future__ import annotations

from typing import Any

from ..errors import NotSupportedError, ScriptError
from . import dtypes
from .dtypes import DType

_KERNEL_TABLE = {
    "GroupNormKernelImpl": "group_norm",
    "LayerNormKernelImpl": "layer_norm",
    "abs_cpu": "abs abs_ absolute absolute_",
    "adaptive_max_pool2d": "adaptive_max_pool1d adaptive_max_pool2d",
    "add_stub": "add add_ cumulative_trapezoid gradient hinge_embedding_loss rsub sub sub_ "
                "subtract subtract_ trapezoid trapz diff dist pairwise_distance",
    "addcmul_cpu_out": "addcmul addcmul_",
    "addmm_impl_cpu_": "addmm inner linear matmul mm tensordot",
    "addmv_impl_cpu": "addmv mv",
    "addr_cpu": "addr",
    "aminmax_cpu": "aminmax histc",
    "arange_cpu": "arange",
    "argmax_cpu": "argmax",
    "argmin_cpu": "argmin",
    "avg_pool2d": "avg_pool1d avg_pool2d",
    "baddbmm": "baddbmm",
    "bincount_cpu": "bincount",
    "bitwise_not_cpu": "bitwise_not bitwise_not_",
    "bmm": "bmm einsum",
    "channel_shuffle": "channel_shuffle",
    "cholesky_cpu": "cholesky",
    "cholesky_inverse_out_cpu": "cholesky_inverse",
    "clamp_max_scalar_cpu": "clamp_max clamp_max_",
    "clamp_min_scalar_cpu": "clamp_min clamp_min_ relu relu_",
    "cummax_cpu": "cummax",
    "cummin_cpu": "cummin",
    "cumprod_out_cpu": "cumprod_",
    "cumsum_out_cpu": "cumsum_",
    "div_floor_cpu": "floor_divide floor_divide_",
    "dot": "dot vdot",
    "elu_cpu": "selu selu_",
    "eye": "eye matrix_power",
    "flip_cpu": "fliplr rot90",
    "fmod_cpu": "fmod fmod_",
    "frac_cpu": "frac frac_",
    "gcd_cpu": "gcd gcd_",
    "ge_cpu": "ge ge_ greater_equal greater_equal_",
    "geqrf_cpu": "geqrf",
    "gt_cpu": "greater greater_ gt gt_",
    "hardshrink_cpu": "hardshrink",
    "heaviside_cpu": "heaviside heaviside_",
    "histogramdd": "histogram histogramdd",
    "hypot_cpu": "hypot hypot_",
    "igamma_cpu": "igamma igamma_",
    "igammac_cpu": "igammac igammac_",
    "index_copy_cpu": "index_copy index_copy_",
    "index_fill_cpu": "index_fill index_fill_",
    "index_put": "index_put index_put_",
    "isin_default_cpu": "isin",
    "kthvalue_cpu": "kthvalue",
    "lcm_cpu": "lcm lcm_",
    "le_cpu": "le le_ less_equal less_equal_",
    "leaky_relu_cpu": "rrelu rrelu_",
    "lerp_kernel_scalar": "lerp lerp_",
    "linspace_cpu": "linspace",
    "log_sigmoid_cpu": "binary_cross_entropy_with_logits",
    "log_softmax_kernel_impl": "log_softmax",
    "logaddexp2_cpu": "logaddexp2",
    "logaddexp_cpu": "logaddexp",
    "logcumsumexp_out_cpu": "logcumsumexp",
    "logical_and_cpu": "logical_and logical_and_",
    "logical_not_cpu": "logical_not logical_not_",
    "logical_or_cpu": "logical_or logical_or_",
    "logical_xor_cpu": "logical_xor logical_xor_",
    "lshift_cpu": "bitwise_left_shift bitwise_left_shift_ __lshift__ __rlshift__",
    "lt_cpu": "less less_ lt lt_",
    "lu_cpu": "lu",
    "masked_fill": "masked_fill masked_fill_",
    "masked_scatter": "masked_scatter masked_scatter_",
    "masked_select": "masked_select combinations",
    "max_pool1d_impl": "max_pool1d",
    "max_values_cpu": "amax",
    "maximum_cpu": "fmax maximum",
    "min_values_cpu": "amin",
    "minimum_cpu": "fmin minimum",
    "mode_cpu": "mode",
    "neg_cpu": "neg neg_ negative negative_",
    "nextafter_cpu": "nextafter nextafter_",
    "nonzero_count_cpu": "argwhere count_nonzero nonzero",
    "pixel_shuffle": "pixel_shuffle",
    "pow": "pow pow_ square square_ __rpow__",
    "prelu_cpu": "prelu",
    "randperm": "randperm",
    "check_uniform_bounds": "rand",
    "range_cpu": "range",
    "remainder_cpu": "remainder remainder_",
    "rms_norm": "rms_norm",
    "rshift_cpu": "bitwise_right_shift bitwise_right_shift_ __rshift__ __rrshift__",
    "scatter_gather_tensor_cpu": "gather index_add index_add_ scatter scatter_ scatter_add "
                                 "scatter_add_ scatter_reduce scatter_reduce_ take_along_dim",
    "searchsorted_out_cpu": "bucketize searchsorted",
    "sign_cpu": "sgn sgn_ sign sign_",
    "slow_conv2d_cpu": "conv1d conv2d",
    "softmax_kernel_impl": "softmax",
    "take_cpu": "take",
    "take_put_cpu": "put put_",
    "threshold_cpu": "threshold threshold_",
    "topk_cpu": "topk",
    "trace": "trace",
    "tril": "tril tril_",
    "triu": "triu triu_",
}
KERNELS: dict[str, str] = {name: kernel for kernel, names in _KERNEL_TABLE.items()
                           for name in names.split()}

RUNS = frozenset("""
    acos acosh adjoint alias_copy all allclose any arccos arccosh arcsin arcsinh arctan
    arctan2 arctanh argsort as_strided as_tensor asarray asin asinh atan atan2 atanh atleast_1d
    atleast_2d atleast_3d bitwise_and bitwise_and_ bitwise_or bitwise_or_ bitwise_xor
    bitwise_xor_ block_diag bool broadcast_tensors broadcast_to byte can_cast cartesian_prod cat
    ceil ceil_ chain_matmul char chunk clone column_stack concat concatenate constant_pad_nd
    contiguous copy_ copysign corrcoef cos cosh cov cpu cumprod cumsum deg2rad detach detach_
    detach_copy diag diag_embed diagflat diagonal diagonal_copy diagonal_scatter digamma dim
    div divide double dsplit element_size empty empty_like eq eq_ equal erf erfc erfinv exp
    exp2 expand expand_as expand_copy expm1 fill fill_ fill_diagonal_ finfo fix fix_ flatten
    flip flipud float float_power floor floor_ full full_like ger half hsplit hstack i0 iinfo
    index_select int is_complex is_contiguous is_floating_point is_nonzero is_same_size
    is_signed is_tensor isclose isfinite isinf isnan isneginf isposinf isreal item kron ldexp
    lgamma log log10 log1p log2 logit logsumexp long meshgrid moveaxis movedim msort mul mul_
    multiply multiply_ mvlgamma nan_to_num nan_to_num_ nansum narrow ndimension ne ne_
    nelement new new_empty new_full new_ones new_tensor new_zeros not_equal not_equal_ numel
    one_hot ones ones_like outer pad permute polygamma positive prod promote_types rad2deg
    randint ravel reciprocal repeat repeat_interleave requires_grad_ reshape reshape_as
    result_type roll round round_ row_stack rsqrt scalar_tensor select select_copy
    select_scatter set_default_dtype short sigmoid signbit sin sinc sinh size slice_copy
    slice_scatter sort split split_with_sizes sqrt squeeze squeeze_ squeeze_copy stack stride
    sum swapaxes swapaxes_ swapdims swapdims_ t t_ t_copy tan tanh tensor tensor_split tile to
    tolist transpose transpose_ transpose_copy true_divide trunc trunc_ type type_as unbind
    unbind_copy unflatten unfold unique unique_consecutive unsafe_chunk unsafe_split unsqueeze
    unsqueeze_ unsqueeze_copy view view_as view_copy vsplit vstack where xlogy zero_ zeros
    zeros_like embedding
""".split()) | frozenset(
    # floating-point ops in place on an integer tensor, and floating-only ops: torch's dtype
    # checks (`result type Float can't be cast to the desired output type UInt16`, `std and
    # var only support floating point and complex dtypes`), which gradtrace's ops make too
    f"{name}_" for name in """acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin
    asinh atan atan2 atanh copysign cos cosh deg2rad digamma div divide erf erfc erfinv exp
    exp2 expm1 float_power i0 lgamma log log10 log1p log2 logit polygamma rad2deg reciprocal
    rsqrt sigmoid sin sinc sinh sqrt tan tanh true_divide xlogy""".split()) | frozenset(
    """cdist det frexp inverse kl_div mean nanmean norm pdist pinverse quantile nanquantile
    std var std_mean var_mean logdet slogdet""".split())

# ops whose operands promote: judged by the dtype they compute in (a float one runs)
BINARY = frozenset("""
    add add_ sub sub_ subtract subtract_ rsub remainder remainder_ fmod fmod_ floor_divide
    floor_divide_ maximum minimum fmax fmin lt lt_ le le_ gt gt_ ge ge_ less less_ less_equal
    less_equal_ greater greater_ greater_equal greater_equal_ bitwise_left_shift
    bitwise_left_shift_ bitwise_right_shift bitwise_right_shift_ hypot hypot_ logaddexp
    logaddexp2 igamma igamma_ igammac igammac_ nextafter nextafter_ gcd gcd_ lcm lcm_
    heaviside heaviside_ logical_and logical_and_ logical_or logical_or_ logical_xor
    logical_xor_ pow pow_ __rpow__ __lshift__ __rlshift__ __rshift__ __rrshift__
    dot vdot matmul mm bmm inner outer
""".split())


def not_implemented(kernel: str, dtype: DType) -> ScriptError:
    """torch's NotImplementedError for a kernel it has no `dtype` version of."""
    return ScriptError(f"\"{kernel}\" not implemented for '{dtype.scalar_type}'",
                       kind="NotImplementedError")


def check_op(name: str, args: Any, kwargs: dict[str, Any], dtype: DType) -> None:
    """A call of torch op `name` whose arguments hold barebones `dtype` (a tensor of it, or
    the dtype itself): torch's NotImplementedError where it has no kernel, nothing where the
    op runs, NotSupportedError where gradtrace has not measured it. (Python's operators,
    dunders included, are checked by the engine's ops, which know the dtype they compute in.)"""
    if name.startswith("__"):
        return
    reduced = kwargs.get("dtype")
    if name in REDUCING and type(reduced) is DType and reduced.barebones:
        raise not_implemented(REDUCING[name], reduced)  # (the dtype it reduces into)
    if name in BINARY:
        computed = _computed_dtype(args)
        if computed is None or not computed.barebones:
            return  # a float result (every kernel), or the engine's promotion error
        dtype = computed
    variant = _variant(name, args, kwargs)
    if variant == "":
        return
    if variant is not None:
        raise not_implemented(variant, dtype)
    if name in KERNELS:
        raise not_implemented(KERNELS[name], dtype)
    if name not in RUNS and name not in BINARY:
        raise NotSupportedError(f"{name}() on a torch.{dtype.name} tensor is not supported by "
                                f"gradtrace (torch builds only some kernels for {dtype.name}; "
                                "this op was not measured)")


def _computed_dtype(args: Any) -> DType | None:
    """The dtype a pointwise op on `args` computes in; None when they do not promote."""
    from ..errors import TorchRuntimeError
    from .tensor import Tensor

    tensors = [(a.dtype, a.array.ndim) for a in args if isinstance(a, Tensor)]
    numbers = [a for a in args if type(a) in (bool, int, float)]
    try:
        return dtypes.result_type(tensors, numbers)
    except TorchRuntimeError:
        return None


def _variant(name: str, args: Any, kwargs: dict[str, Any]) -> str | None:
    """Kernels that depend on the call's form (measured): max() vs max(dim), clamp's bounds,
    div's rounding mode, matmul's ranks, where(cond) alone; "" where the form runs (x ** 0
    and x ** 1 are a fill and a copy, count_nonzero(dim) a sum, isin of a number ==)."""
    from .tensor import Tensor

    rest = args[1:]
    if name in ("max", "min") and rest and isinstance(rest[0], Tensor):
        return f"{name}imum_cpu"  # max(a, b) is maximum
    if name in ("max", "min"):
        return f"{name}_all" if not rest and "dim" not in kwargs else f"{name}_cpu"
    if name in ("median", "nanmedian"):
        return "median_cpu" if not rest and "dim" not in kwargs else "median_out"
    if name in ("clamp", "clamp_", "clip", "clip_"):
        low = rest[0] if rest else kwargs.get("min")
        high = rest[1] if len(rest) > 1 else kwargs.get("max")
        if isinstance(low, Tensor) or isinstance(high, Tensor):
            if low is not None and high is not None:
                raise NotSupportedError(f"{name}() of a barebones unsigned tensor with tensor "
                                        "bounds is not supported by gradtrace")
            return "maximum_cpu" if high is None else "minimum_cpu"
        if low is not None and high is not None:
            return "clamp_scalar_cpu"
        return "clamp_min_scalar_cpu" if high is None else "clamp_max_scalar_cpu"
    if name in ("div", "div_", "divide", "divide_"):
        mode = kwargs.get("rounding_mode")
        return f"div_{mode}_cpu" if mode in ("floor", "trunc") else None
    if name == "matmul" and len(args) == 2 and all(isinstance(a, Tensor) for a in args):
        return matmul_kernel(args[0].array.ndim, args[1].array.ndim)
    if name in ("pow", "pow_") and len(args) > 1 and type(args[1]) in (int, bool) \
            and args[1] in (0, 1):
        return ""
    if name == "where" and len(args) == 1:
        return "nonzero_count_cpu"
    if name == "count_nonzero" and (rest or "dim" in kwargs):
        return ""  # counted along a dim: a sum of `!= 0`, which runs
    if name == "isin" and not (isinstance(args[0], Tensor) and isinstance(args[-1], Tensor)):
        return ""  # against a number: `==`, which runs
    return None


def matmul_kernel(left: int, right: int) -> str:
    """The kernel torch's matmul reaches for operands of these ranks (measured)."""
    if left == 1 and right == 1:
        return "dot"
    return "addmv_impl_cpu" if right == 1 else "addmm_impl_cpu_"


REDUCING = {"sum": "sum_cpu", "prod": "prod_out_cpu", "cumsum": "cumsum_out_cpu",
            "cumprod": "cumprod_out_cpu"}
