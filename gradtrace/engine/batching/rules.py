"""Batching rules, by pattern rather than one per op (functorch's BatchRules*.cpp):

- pointwise: batch dims moved to the front, each batched operand padded (a view with 1s
  after its batch dim) to the common logical rank, so broadcasting lines up;
- reductions and other ops with a `dim` argument: batch dim to the front, logical dims
  shifted by one (no dim: every logical dim);
- views: dims and shapes shifted past the batch dim;
- the matmul family: torch's dot/mv/mm/bmm rules, matmul and linear decomposed into them.
Every rule calls ops through `call`, so a value still batched at an outer level dispatches
again."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import levels
from ..ops import views
from ..shapes import wrap_dim
from ..tensor import Tensor
from .batched import TRANSFORMS, BatchedTensor, unwrap
from .dispatch import RULES, call, fallback, wrap

_INSTALLED: list[bool] = []


def _ops() -> Any:
    from .. import ops

    return ops


def front(t: Any, bdim: int | None) -> Any:
    """moveBatchDimToFront."""
    if bdim is None or bdim == 0:
        return t
    return call(_ops().movedim, t, bdim, 0)


def pad(t: Any, rank: int) -> Any:
    """maybePadToLogicalRank for a front-batched value: a view with 1s after the batch dim."""
    have = t.ndim - 1
    if have >= rank:
        return t
    shape = (t.shape[0],) + (1,) * (rank - have) + tuple(t.shape[1:])
    return call(_ops().view, t, shape)


def ensure_has_bdim(t: Any, size: int) -> Any:
    """BatchRulesHelper's ensure_has_bdim: an unbatched operand expanded to a front batch
    dim of `size` (one expand)."""
    return call(_ops().expand, t, (size, *t.shape))


def ensure_batched(t: Any, size: int) -> Any:
    """An unbatched operand given a front batch dim of `size` (unsqueeze + expand)."""
    ops = _ops()
    return call(ops.expand, call(ops.unsqueeze, t, 0), (size, *t.shape))


# -- pointwise ---------------------------------------------------------------------------


def pointwise(fn: Callable[..., Any], level: int, args: list[Any],
              kwargs: dict[str, Any]) -> Any:
    keys = [("a", i) for i, a in enumerate(args) if isinstance(a, Tensor)]
    keys += [("k", k) for k, v in kwargs.items() if isinstance(v, Tensor)]
    args, kwargs = list(args), dict(kwargs)

    def get(key: tuple[str, Any]) -> Any:
        return args[key[1]] if key[0] == "a" else kwargs[key[1]]

    def put(key: tuple[str, Any], value: Any) -> None:
        if key[0] == "a":
            args[key[1]] = value
        else:
            kwargs[key[1]] = value

    parts = {key: unwrap(get(key), level) for key in keys}
    rank = max(v.ndim - (b is not None) for v, b in parts.values())
    name = getattr(fn, "__name__", "")
    inplace = name.endswith("_") and not name.endswith("__") and args and \
        isinstance(args[0], Tensor)
    if inplace and parts[("a", 0)][1] is None:
        from .dispatch import _refuse_unbatched_inplace

        _refuse_unbatched_inplace(args[0], TRANSFORMS.batch_size(level), name)
    original = args[0] if args else None
    if len(parts) == 1 and name not in _SCALAR_AS_TENSOR:
        # basic_unary_batch_rule: the op on the value, its bdim kept
        (key, (value, bdim)), = parts.items()
        put(key, value)
        result = call(fn, *args, **kwargs)
        return original if inplace else wrap(result, bdim, level)
    for key, (value, bdim) in parts.items():
        if bdim is not None:
            put(key, pad(front(value, bdim), rank))
        else:
            put(key, value)
    result = call(fn, *args, **kwargs)
    if inplace:
        return original
    return wrap(result, 0, level)


# ops whose Python-number operand torch wraps as a tensor (the binary rule, batch dim to the
# front); any other op with one tensor keeps its batch dim where it is (measured)
_SCALAR_AS_TENSOR = frozenset((
    "add", "sub", "mul", "div", "rdiv", "rpow", "true_divide", "multiply", "subtract",
    "divide", "add_", "sub_", "mul_", "div_"))


# -- ops with dims ------------------------------------------------------------------------


def _shift(d: Any, rank: int) -> Any:
    if isinstance(d, (list, tuple)):
        return type(d)(wrap_dim(x, max(rank, 1)) + 1 for x in d)
    return wrap_dim(d, max(rank, 1)) + 1


def with_dim(position: int, name: str = "dim", absent: str = "all",
             nested: bool = False) -> Callable[..., Any]:
    """A rule for an op whose `dim` is argument `position` (or keyword `name`). `absent`
    says what no dim means: "all" (every logical dim at once), "flat" (the op reduces a
    flattened tensor: flatten the logical dims first), "last" (dim -1, unchanged), "zero"
    (logical dim 0)."""

    def rule(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
        value, bdim = unwrap(args[0], level)
        if bdim is None:
            return fallback(fn, level, args, kwargs)
        args, kwargs = list(args), dict(kwargs)
        x = front(value, bdim)
        rank = x.ndim - 1
        if name in kwargs:
            dim = kwargs[name]
        elif len(args) > position:
            dim = args[position]
        else:
            dim = None
        if dim is None:
            if absent == "last":
                args[0] = x
                return wrap(call(fn, *args, **kwargs), 0, level)
            if absent == "zero":
                dim = 0
            elif rank == 0:
                x = call(_ops().unsqueeze, x, 1)
                dim = 1
            elif absent == "flat" or rank == 1:
                if rank > 1:
                    x = call(_ops().flatten, x, 1)
                dim = 1
            else:
                dim = tuple(range(1, rank + 1))
        else:
            if rank == 0 and not isinstance(dim, (list, tuple)):
                wrap_dim(dim, 1)
                x = call(_ops().unsqueeze, x, 1)
                dim = 1
            else:
                dim = _shift(dim, rank)
        args[0] = x
        if name in kwargs or len(args) <= position:
            kwargs[name] = dim
        else:
            args[position] = dim
        return wrap(call(fn, *args, **kwargs), 0, level)
    return rule


def two_dims(p0: int, p1: int) -> Callable[..., Any]:
    """transpose(d0, d1) and friends: both dims shifted."""

    def rule(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
        value, bdim = unwrap(args[0], level)
        x = front(value, bdim)
        rank = x.ndim - 1
        args = list(args)
        args[0] = x
        for p in (p0, p1):
            if len(args) > p:
                args[p] = _shift(args[p], rank)
        return wrap(call(fn, *args, **kwargs), 0, level)
    return rule


def _diagonal(fn: Callable[..., Any], level: int, args: list[Any],
              kwargs: dict[str, Any]) -> Any:
    """BatchRulesViews.cpp's diagonal_batching_rule: dim1 and dim2 (0 and 1 when not
    given) wrapped against the logical rank and shifted past the front batch dim."""
    value, bdim = unwrap(args[0], level)
    x = front(value, bdim)
    rank = x.ndim - 1
    named = dict(zip(("offset", "dim1", "dim2"), args[1:]))
    named.update(kwargs)
    offset = named.get("offset", 0)
    dim1, dim2 = _shift(named.get("dim1", 0), rank), _shift(named.get("dim2", 1), rank)
    return wrap(call(fn, x, offset, dim1, dim2), 0, level)


def _trace(fn: Callable[..., Any], level: int, args: list[Any],
           kwargs: dict[str, Any]) -> Any:
    """functorch's trace_decomp: the logical matrix's diagonal().sum(), each a batched op
    (so SumBackward1 over DiagonalBackward0, and a bool matrix sums to int64)."""
    from ...errors import TorchRuntimeError

    value, bdim = unwrap(args[0], level)
    rank = value.ndim - (bdim is not None)
    if rank != 2:
        raise TorchRuntimeError(f"trace: expected a matrix, but got tensor with dim {rank}")
    ops = _ops()
    return call(ops.sum, call(ops.TENSOR_METHODS["diagonal"], args[0]))


def _unsqueeze(fn: Callable[..., Any], level: int, args: list[Any],
               kwargs: dict[str, Any]) -> Any:
    value, bdim = unwrap(args[0], level)
    x = front(value, bdim)
    d = kwargs.pop("dim", args[1] if len(args) > 1 else None)
    d = wrap_dim(d, x.ndim) + 1
    return wrap(call(fn, x, d), 0, level)


def _squeeze(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
    value, bdim = unwrap(args[0], level)
    x = front(value, bdim)
    rank = x.ndim - 1
    d = kwargs.pop("dim", args[1] if len(args) > 1 else None)
    if d is None:  # squeeze_batch_rule: a view without the logical size-1 dims
        sizes = [s for i, s in enumerate(value.shape) if s != 1 or i == bdim]
        new_bdim = sum(1 for i, s in enumerate(value.shape[:bdim]) if s != 1)
        return wrap(call(_ops().view, value, tuple(sizes)), new_bdim, level)
    if bdim is None:
        return wrap(call(fn, x, _shift(d, rank)), 0, level)
    # squeeze_dims_batch_rule (squeeze.dim goes through it too): squeeze.dims of the value
    # with the dims past the batch dim shifted, the batch dim kept; a logical scalar's alias
    if value.ndim == 1:
        return wrap(call(_ops().alias, value), bdim, level)
    dims = d if isinstance(d, (list, tuple)) else (d,)
    adjusted, new_bdim = [], bdim
    for one in dims:
        actual = wrap_dim(one, value.ndim - 1)
        if actual < bdim:
            adjusted.append(actual)
            if value.shape[actual] == 1:  # (a size-1 dim before the batch dim goes)
                new_bdim -= 1
        else:
            adjusted.append(actual + 1)
    return wrap(call(fn, value, tuple(adjusted)), new_bdim, level)


def _t(fn: Callable[..., Any], level: int, args: list[Any], kwargs: dict[str, Any]) -> Any:
    value, bdim = unwrap(args[0], level)
    x = front(value, bdim)
    if x.ndim - 1 < 2:
        return wrap(call(_ops().alias, x), 0, level)
    return wrap(call(_ops().transpose, x, 1, 2), 0, level)


def _permute(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
    value, bdim = unwrap(args[0], level)
    x = front(value, bdim)
    dims = kwargs.get("dims", args[1:])
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    return wrap(call(_ops().permute, x, (0, *_shift(tuple(dims), x.ndim - 1))), 0, level)


def _shape_args(args: Sequence[Any], kwargs: dict[str, Any], key: str) -> tuple[Any, ...]:
    shape = kwargs.get(key, args)
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = shape[0]
    return tuple(shape)


def _view(fn: Callable[..., Any], level: int, args: list[Any], kwargs: dict[str, Any]) -> Any:
    value, bdim = unwrap(args[0], level)
    x = front(value, bdim)
    key = "shape" if "shape" in kwargs else "size"
    shape = _shape_args(args[1:], kwargs, key)
    numel = args[0].numel()
    known = 1
    for s in shape:
        known *= s if s != -1 else 1
    if (-1 not in shape and known != numel) or (-1 in shape and known and numel % known):
        from ...errors import TorchRuntimeError

        raise TorchRuntimeError(f"shape '[{', '.join(str(s) for s in shape)}]' is invalid for "
                                f"input of size {numel}")
    return wrap(call(fn, x, (x.shape[0], *shape)), 0, level)


def _as(target: Callable[..., Any]) -> Callable[..., Any]:
    """view_as/reshape_as/expand_as: the op with the other tensor's logical shape."""

    def rule(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
        other = args[1] if len(args) > 1 else kwargs["other"]
        return call(target(), args[0], tuple(other.shape))
    return rule


def _expand(fn: Callable[..., Any], level: int, args: list[Any],
            kwargs: dict[str, Any]) -> Any:
    value, bdim = unwrap(args[0], level)
    x = front(value, bdim)
    shape = _shape_args(args[1:], kwargs, "size")
    x = pad(x, len(shape))
    return wrap(call(_ops().expand, x, (x.shape[0], *shape)), 0, level)


def _repeat(fn: Callable[..., Any], level: int, args: list[Any],
            kwargs: dict[str, Any]) -> Any:
    value, bdim = unwrap(args[0], level)
    x = front(value, bdim)
    sizes = _shape_args(args[1:], kwargs, "repeats")
    x = pad(x, len(sizes))
    return wrap(call(_ops().repeat, x, (1, *sizes)), 0, level)


def _getitem(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
    value, bdim = unwrap(args[0], level)
    index = args[1]
    items = index if type(index) is tuple else (index,)
    tensors = [i for i, it in enumerate(items) if isinstance(it, Tensor) or
               isinstance(it, list)]
    if bdim is None or any(isinstance(it, BatchedTensor) for it in items) or len(tensors) > 1:
        return fallback(fn, level, args, kwargs)
    x = front(value, bdim)
    return wrap(call(fn, x, (slice(None), *items)), 0, level)


def _joined(stacking: bool) -> Callable[..., Any]:
    def rule(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
        tensors = args[0] if args else kwargs.pop("tensors")
        dim = kwargs.pop("dim", args[1] if len(args) > 1 else 0)
        size = TRANSFORMS.batch_size(level)
        parts = []
        rank = None
        for t in tensors:
            value, bdim = unwrap(t, level)
            parts.append(front(value, bdim) if bdim is not None else
                         ensure_batched(value, size))
            if rank is None:
                rank = t.ndim
        dim = wrap_dim(dim, (rank or 0) + (1 if stacking else 0)) + 1
        return wrap(call(fn, parts, dim), 0, level)
    return rule


# -- the matmul family -------------------------------------------------------------------


def _dot(level: int, a: Any, b: Any) -> Any:
    ops = _ops()
    av, ab = unwrap(a, level)
    bv, bb = unwrap(b, level)
    a_, b_ = front(av, ab), front(bv, bb)
    if ab is not None and bb is not None and a.expanded != b.expanded and \
            not isinstance(a_, BatchedTensor) and not isinstance(b_, BatchedTensor):
        # a grad transform's expanded input: torch's unbatched-vector rule and dot's formula
        from .nodes import MvBackward0

        batched, unbatched = (b_, a) if a.expanded else (a_, b)
        out = MvBackward0.call(batched, b_ if unbatched is b else a_)
        if unbatched.shadow is not None and out.grad_fn is not None:
            # torch's rule, matmul(A, B.t()) on the unbatched vector, in the caller's graph
            levels.set_outer_node(out.grad_fn,
                                  ops.matmul(batched, ops.t(unbatched.shadow)))
        return out
    if ab is not None and bb is not None:
        r = call(ops.matmul, call(ops.unsqueeze, a_, -2), call(ops.unsqueeze, b_, -1))
        return call(ops.squeeze, call(ops.squeeze, r, -1), -1)
    return call(ops.matmul, a_, call(ops.t, b_))


def _tv(level: int, a: Any, b: Any) -> tuple[Any, int]:
    ops = _ops()
    av, ab = unwrap(a, level)
    bv, bb = unwrap(b, level)
    if ab is not None and bb is not None:
        a_ = call(ops.movedim, av, ab, -3)
        b_ = call(ops.unsqueeze, front(bv, bb), -1)
        r = call(ops.squeeze, call(ops.matmul, a_, b_), -1)
        return r, r.ndim - 2
    if ab is not None:
        return call(ops.matmul, front(av, ab), bv), 0
    return call(ops.matmul, av, call(ops.movedim, bv, bb, -1)), 1


def _mm(level: int, a: Any, b: Any) -> Any:
    av, ab = unwrap(a, level)
    bv, bb = unwrap(b, level)
    a_, b_ = front(av, ab), front(bv, bb)
    if (ab is not None and bb is not None and not isinstance(a_, BatchedTensor)
            and not isinstance(b_, BatchedTensor) and a_.ndim == 3 and b_.ndim == 3
            and b_.array.strides[0] == 0 and a_.array.strides[0] != 0
            and a_.dtype is b_.dtype and b_.array.shape[0] > 1):
        # b is an unbatched matrix a grad transform expanded along the batch
        from .nodes import BmmBackward0  # torch's rule: one mm with the unbatched matrix

        out = BmmBackward0.call(a_, b_)
        if isinstance(b, BatchedTensor) and b.shadow is not None and out.grad_fn is not None:
            levels.set_outer_node(out.grad_fn, _ops().matmul(a_, b.shadow))  # (its graph)
        return out
    return call(_ops().matmul, a_, b_)


def _dot_rule(fn: Callable[..., Any], level: int, args: list[Any],
              kwargs: dict[str, Any]) -> Any:
    return wrap(_dot(level, args[0], args[1] if len(args) > 1 else kwargs["tensor"]), 0, level)


def _mv_rule(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
    result, bdim = _tv(level, args[0], args[1] if len(args) > 1 else kwargs["vec"])
    return wrap(result, bdim, level)


def _mm_rule(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
    return wrap(_mm(level, args[0], args[1] if len(args) > 1 else kwargs["mat2"]), 0, level)


def matmul_logical(level: int, a: Any, b: Any) -> Any:
    """at::matmul's decomposition on the logical ranks, into the rules above."""
    ops = _ops()
    ra, rb = a.ndim, b.ndim
    if ra == 1 and rb == 1:
        return wrap(_dot(level, a, b), 0, level)
    if ra == 2 and rb == 1:
        result, bdim = _tv(level, a, b)
        return wrap(result, bdim, level)
    if ra == 1 and rb == 2:  # tensor1.unsqueeze(0).mm(tensor2).squeeze_(0)
        result = matmul_logical(level, call(ops.unsqueeze, a, 0), b)
        return call(ops.TENSOR_METHODS["squeeze_"], result, 0)
    if ra == 2 and rb == 2:
        return wrap(_mm(level, a, b), 0, level)
    if ra >= 3 and rb <= 2 and (b.requires_grad or _folds_as_view(a)):
        # should_fold: the larger operand folded into a matrix, one mm (mv), viewed back
        lead = tuple(a.shape[:-1])
        rows = 1
        for n in lead:
            rows *= n
        out = matmul_logical(level, call(ops.reshape, a, (rows, a.shape[-1])), b)
        return call(views.unsafe_view, out, lead + ((b.shape[-1],) if rb == 2 else ()))
    av, ab = unwrap(a, level)
    bv, bb = unwrap(b, level)
    if ra < 2 or rb < 2:
        raise NotImplementedError
    rank = max(ra, rb)
    a_ = pad(front(av, ab), rank) if ab is not None else av
    b_ = pad(front(bv, bb), rank) if bb is not None else bv
    if ab is None:
        a_ = call(ops.unsqueeze, a_, 0) if a_.ndim < rank + 1 else a_
    if bb is None:
        b_ = call(ops.unsqueeze, b_, 0) if b_.ndim < rank + 1 else b_
    return wrap(call(ops.matmul, a_, b_), 0, level)


def _logical_strides(t: Any) -> list[int]:
    """The strides (in elements) of `t`'s logical tensor: its value's without the batch dim."""
    if isinstance(t, BatchedTensor):
        strides = _logical_strides(t.value)
        del strides[t.bdim]
        return strides
    return [s // t.array.itemsize for s in t.array.strides]


def _logically_contiguous(t: Any) -> bool:
    expected = 1
    for size, stride in zip(reversed(t.shape), reversed(_logical_strides(t)), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _folds_as_view(t: Any) -> bool:
    """should_fold's stride test: `t`'s leading dims fold into one without a copy."""
    if t.numel() == 0:
        return True
    shape, strides = t.shape, _logical_strides(t)
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _matmul_rule(fn: Callable[..., Any], level: int, args: list[Any],
                 kwargs: dict[str, Any]) -> Any:
    b = args[1] if len(args) > 1 else kwargs["other"]
    try:
        return matmul_logical(level, args[0], b)
    except NotImplementedError:
        return fallback(fn, level, args, kwargs)


def _rmatmul_rule(fn: Callable[..., Any], level: int, args: list[Any],
                  kwargs: dict[str, Any]) -> Any:
    return _matmul_rule(fn, level, [args[1], args[0]], {})


def _linear_rule(fn: Callable[..., Any], level: int, args: list[Any],
                 kwargs: dict[str, Any]) -> Any:
    """at::linear: addmm for a 2-d input with a bias, else matmul then add."""
    ops = _ops()
    x, weight = args[0], args[1] if len(args) > 1 else kwargs["weight"]
    bias = args[2] if len(args) > 2 else kwargs.get("bias")
    if x.ndim == 2 and bias is not None:
        return _addmm_decomposed(level, bias, x, call(ops.t, weight), 1, 1)
    if bias is not None and x.ndim == 3 and _logically_contiguous(x):
        # _flatten_nd_linear (a contiguous 3-d input; torch 2.13 under vmap takes it for no
        # other rank, measured): addmm on the input flattened to a matrix, viewed back
        lead = tuple(x.shape[:-1])
        flat = 1
        for n in lead:
            flat *= n
        out = _addmm_decomposed(level, bias, call(ops.reshape, x, (flat, x.shape[-1])),
                                call(ops.t, weight), 1, 1)
        return call(ops.view, out, (*lead, out.shape[-1]))
    out = call(ops.matmul, x, call(ops.t, weight))
    if bias is not None:
        out = call(ops.add, out, bias)
    return out


def _addmm_decomposed(level: int, bias: Any, m1: Any, m2: Any, beta: Any, alpha: Any) -> Any:
    """addmm_decomp: at::add(self * beta, at::mm(mat1, mat2), alpha), `* beta` the Scalar
    overload (MulBackward1)."""
    from ..ops.scalar import mul_scalar

    ops = _ops()
    return call(ops.add, call(mul_scalar, bias, beta), call(ops.mm, m1, m2), alpha=alpha)


def _addmm_rule(fn: Callable[..., Any], level: int, args: list[Any],
                kwargs: dict[str, Any]) -> Any:
    bias, m1, m2 = args[:3]
    return _addmm_decomposed(level, bias, m1, m2, kwargs.get("beta", 1),
                             kwargs.get("alpha", 1))


def _outer_rule(fn: Callable[..., Any], level: int, args: list[Any],
                kwargs: dict[str, Any]) -> Any:
    """at::outer: self.reshape({self.size(0), 1}) * vec2."""
    ops = _ops()
    return call(ops.mul, call(ops.reshape, args[0], (args[0].shape[0], 1)), args[1])


def _squeeze_inplace(fn: Callable[..., Any], level: int, args: list[Any],
                     kwargs: dict[str, Any]) -> Any:
    """squeeze_(dim) of a BatchedTensor: its value squeezed in place (SqueezeBackward5)."""
    t = args[0]
    value, bdim = unwrap(t, level)
    d = kwargs.get("dim", args[1] if len(args) > 1 else None)
    if bdim is None or d is None or isinstance(d, (list, tuple)):
        return fallback(fn, level, args, kwargs)
    d = wrap_dim(d, max(t.ndim, 1))
    physical_dim = d + 1 if d >= bdim else d
    if value.shape[physical_dim] == 1:
        call(fn, value, (physical_dim,))
        if physical_dim < bdim:
            t.bdim = bdim - 1
    return t


def _contiguous_rule(fn: Callable[..., Any], level: int, args: list[Any],
                     kwargs: dict[str, Any]) -> Any:
    """contiguous: the logical tensor laid out contiguously (batch dim moved to the front)."""
    value, bdim = unwrap(args[0], level)
    return wrap(call(fn, front(value, bdim), **kwargs), 0, level)


def _detach_rule(fn: Callable[..., Any], level: int, args: list[Any],
                 kwargs: dict[str, Any]) -> Any:
    value, bdim = unwrap(args[0], level)
    return wrap(call(fn, value), bdim, level)


_CONV_PARAMS = ("weight", "bias", "stride", "padding", "dilation", "groups")


def _conv_rule(spatial: int) -> Callable[..., Any]:
    """convNd as torch's convolution_batch_rule (BatchRulesConvolution.cpp): a batched input
    with an unbatched weight folds the batch into the input's N; a batched weight with an
    unbatched input into the weight's out-channels (within each group's); both batched, the
    batch goes into the input's channels and the weight's out-channels and the groups are
    multiplied by it (one grouped convolution, so its bits). A bias goes into the
    convolution only when neither it nor the weight is batched, else it is added after.
    Anything else falls back."""

    def rule(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
        x = args[0]
        params = dict(zip(_CONV_PARAMS, args[1:]))
        params.update(kwargs)
        weight, bias = params.get("weight"), params.get("bias")
        groups = params.get("groups", 1)
        xv, xb = unwrap(x, level)
        wv, wb = unwrap(weight, level)
        bv, bb = unwrap(bias, level)
        if any(isinstance(t, BatchedTensor) for t in (xv, wv, bv)) or \
                x.ndim not in (spatial + 1, spatial + 2) or not isinstance(weight, Tensor) \
                or weight.ndim != spatial + 2 or (xb is None and wb is None):
            return fallback(fn, level, args, kwargs)
        ops = _ops()
        separate = bb is not None or (wb is not None and bias is not None)
        if xb is not None and wb is None and not separate:
            x_ = front(xv, xb)
            if x.ndim == spatial + 1:  # an unbatched input: the vmap batch is conv's N
                return wrap(call(fn, x_, *args[1:], **kwargs), 0, level)
            b, n = x_.shape[0], x_.shape[1]
            folded = call(ops.reshape, x_, (b * n, *x_.shape[2:]))
            out = call(fn, folded, *args[1:], **kwargs)
            return wrap(call(ops.reshape, out, (b, n, *out.shape[1:])), 0, level)
        rest = {k: params[k] for k in ("stride", "padding", "dilation") if k in params}
        unbatched_input = x.ndim == spatial + 1
        conv_bias = None if separate else bias
        if xb is not None:
            x_ = front(xv, xb)
            if unbatched_input:  # (conv's batchify: the logical input's unsqueeze(0))
                x_ = call(ops.unsqueeze, x_, 1)
        else:
            x_ = call(ops.unsqueeze, xv, 0) if unbatched_input else xv
        if wb is None:  # the input alone is batched (its bias is added after)
            b, n = x_.shape[0], x_.shape[1]
            out = call(fn, call(ops.reshape, x_, (b * n, *x_.shape[2:])), weight, conv_bias,
                       groups=groups, **rest)
            out, bdim = call(ops.reshape, out, (b, n, *out.shape[1:])), 0
        else:
            w_ = front(wv, wb)
            b = w_.shape[0]
            folded_w = call(ops.reshape, w_, (b * w_.shape[1], *w_.shape[2:]))
            if xb is None and groups == 1:
                out = call(fn, x_, folded_w, conv_bias, groups=1, **rest)
            elif xb is None:  # (the batch inside each group's out-channels)
                co = w_.shape[1]
                split = call(ops.reshape, w_, (b, groups, co // groups, *w_.shape[2:]))
                moved = call(ops.movedim, split, 0, 1)
                grouped_w = call(ops.reshape, call(ops.reshape, moved, (
                    groups, b * (co // groups), *w_.shape[2:])), (b * co, *w_.shape[2:]))
                out = call(fn, x_, grouped_w, conv_bias, groups=groups, **rest)
                out = call(ops.reshape, out, (out.shape[0], groups, b, co // groups,
                                              *out.shape[2:]))
                out = call(ops.movedim, out, 1, 2)
                out = call(ops.reshape, out, (out.shape[0], b, co, *out.shape[4:]))
            else:
                n = x_.shape[1]
                folded_x = call(ops.reshape, call(ops.movedim, x_, 0, 1),
                                (n, b * x_.shape[2], *x_.shape[3:]))
                out = call(fn, folded_x, folded_w, conv_bias, groups=groups * b, **rest)
            if xb is not None or groups == 1:
                out = call(ops.reshape, out, (out.shape[0], b, -1, *out.shape[2:]))
            bdim = 1
        if separate:
            out = front(out, bdim)
            bias_ = front(bv, bb) if bb is not None else bv
            for _ in range(spatial):
                bias_ = call(ops.unsqueeze, bias_, -1)
            if bb is not None:
                bias_ = pad(bias_, out.ndim - 1)
            out, bdim = call(ops.add, out, bias_), 0
        if unbatched_input:  # (conv's unbatchify: squeeze(0) of the logical output)
            out = call(ops.squeeze, out, 1 if bdim == 0 else 0)
            bdim = 0
        return wrap(out, bdim, level)
    return rule


def _one_hot_rule(fn: Callable[..., Any], level: int, args: list[Any],
                  kwargs: dict[str, Any]) -> Any:
    """functorch's one_hot_decomposition_hack: eq(self.unsqueeze(-1), arange(num_classes))
    as int64, without one_hot's range checks; num_classes must be given (measured: its
    dtype check's own text comes first)."""
    from ...errors import TorchRuntimeError
    from .. import dtypes
    from ..ops.creation import arange

    ops = _ops()
    x = args[0] if args else kwargs["tensor"]
    n = args[1] if len(args) > 1 else kwargs.get("num_classes", -1)
    if x.dtype is not dtypes.int64:
        raise TorchRuntimeError("one_hot is only applicable to index tensor.")
    if n <= 0:
        raise TorchRuntimeError("When vmap-ing torch.nn.functional.one_hot, please provide an "
                                "explicit positive num_classes argument.")
    hot = call(ops.eq, call(ops.unsqueeze, x, -1), arange(n, dtype=x.dtype))
    return call(ops.TENSOR_METHODS["to"], hot, dtype=dtypes.int64)


# -- losses --------------------------------------------------------------------------------


def _flatten_logical(t: Any, bdim: int | None) -> Any:
    ops = _ops()
    if bdim is None:
        return call(ops.flatten, t)
    t = front(t, bdim)
    return call(ops.flatten, t, 1) if t.ndim > 1 else t


def _mse_rule(fn: Callable[..., Any], level: int, args: list[Any],
              kwargs: dict[str, Any]) -> Any:
    """BatchRulesLoss.cpp's mse_loss: the unreduced loss of the front-batched operands
    flattened per example, then mean/sum over the last dim (or reshaped back)."""
    ops = _ops()
    x, target = args[0], args[1] if len(args) > 1 else kwargs["target"]
    reduction = kwargs.get("reduction", args[4] if len(args) > 4 else "mean")
    xv, xb = unwrap(x, level)
    tv, tb = unwrap(target, level)
    x_, t_ = _flatten_logical(xv, xb), _flatten_logical(tv, tb)
    loss = call(fn, x_, t_, reduction="none")
    if loss.ndim == 1:
        return wrap(loss, 0, level)
    if reduction == "none":
        shape = front(xv, xb).shape if xb is not None else front(tv, tb).shape
        return wrap(call(ops.reshape, loss, tuple(shape)), 0, level)
    return wrap(call(ops.mean if reduction == "mean" else ops.sum, loss, -1), 0, level)


def _gather_rule(fn: Callable[..., Any], level: int, args: list[Any],
                 kwargs: dict[str, Any]) -> Any:
    """gather_batch_rule: self and index front-batched (an unbatched one expanded to the
    batch, a logical scalar unsqueezed at the end), gathered along the shifted dim, and the
    unsqueezed index's extra dim squeezed again."""
    ops = _ops()
    params = dict(zip(("dim", "index"), args[1:]))
    params.update(kwargs)
    if params.get("sparse_grad") or "out" in params or len(args) > 3:
        return fallback(fn, level, args, kwargs)
    x, index, dim = args[0], params["index"], params["dim"]
    xv, xb = unwrap(x, level)
    iv, ib = unwrap(index, level)
    if isinstance(xv, BatchedTensor) or isinstance(iv, BatchedTensor) or \
            not isinstance(dim, int):
        return fallback(fn, level, args, kwargs)
    size = TRANSFORMS.batch_size(level)
    x_, i_ = front(xv, xb), front(iv, ib)
    if x.ndim == 0:
        x_ = call(ops.unsqueeze, x_, -1)
    if index.ndim == 0:
        i_ = call(ops.unsqueeze, i_, -1)
    if xb is None:
        x_ = ensure_has_bdim(x_, size)
    if ib is None:
        i_ = ensure_has_bdim(i_, size)
    out = call(fn, x_, wrap_dim(dim, max(x.ndim, 1)) + 1, i_)
    if index.ndim == 0:
        out = call(ops.squeeze, out, -1)
    return wrap(out, 0, level)


_NLL_PARAMS = ("target", "weight", "size_average", "ignore_index", "reduce", "reduction")


def _nll_rule(fn: Callable[..., Any], level: int, args: list[Any],
              kwargs: dict[str, Any]) -> Any:
    """nll_loss of a [N, C] or [C] input under vmap: torch 2.13 runs its decomposition
    (torch/_decomp/decompositions.py's _nll_loss_forward) op by op on the batched tensors:
    the input scaled by the weight, -gather of the targets (ignored ones read as class 0 and
    zeroed by where), summed and divided by the total weight for 'mean'. Legacy reduction
    arguments and inputs of more dimensions fall back."""
    params = dict(zip(_NLL_PARAMS, args[1:]))
    params.update(kwargs)
    x, target, weight = args[0], params["target"], params.get("weight")
    if x.ndim > 2 or params.get("size_average") is not None or \
            params.get("reduce") is not None:
        return fallback(fn, level, args, kwargs)
    ops = _ops()
    ignore_index = params.get("ignore_index", -100)
    reduction = params.get("reduction", "mean")
    n_dims = x.ndim
    channel_dim = 0 if n_dims < 2 else 1
    w = weight
    if weight is not None:
        if n_dims > 1:
            shape = [1] * n_dims
            shape[channel_dim] = weight.shape[0]
            w = call(ops.view, weight, tuple(shape))
        x = call(ops.mul, x, w)
    kept = call(ops.ne, target, ignore_index)
    safe_target = call(ops.unsqueeze, call(ops.where, kept, target, 0), channel_dim)
    picked = call(ops.squeeze, call(ops.gather, x, channel_dim, safe_target), channel_dim)
    result = call(ops.where, kept, call(ops.neg, picked), 0)
    if reduction == "none" and n_dims > 1:
        return result
    if weight is not None:
        w = call(ops.expand, w, tuple(x.shape))
        wsum = call(ops.squeeze, call(ops.gather, w, channel_dim, safe_target), channel_dim)
        total_weight = call(ops.sum, call(ops.where, kept, wsum, 0))
    else:
        total_weight = call(ops.TENSOR_METHODS["to"], call(ops.sum, kept), x.dtype)
    if reduction == "sum":
        return call(ops.sum, result)
    if reduction == "mean":
        return call(ops.div, call(ops.sum, result), total_weight)
    return result


def _cross_entropy_rule(fn: Callable[..., Any], level: int, args: list[Any],
                        kwargs: dict[str, Any]) -> Any:
    """cross_entropy of class indices (torch's composite cross_entropy_loss): log_softmax
    over the class dim, then nll_loss, each through its own rule; probabilities, label
    smoothing and legacy reduction arguments fall back."""
    from .. import api
    from ..ops.nll import nll_loss

    names = ("target", "weight", "size_average", "ignore_index", "reduce", "reduction",
             "label_smoothing")
    params = dict(zip(names, args[1:]))
    params.update(kwargs)
    x, target = args[0], params["target"]
    if params.get("label_smoothing", 0.0) != 0.0 or params.get("size_average") is not None \
            or params.get("reduce") is not None or tuple(target.shape) == tuple(x.shape):
        return fallback(fn, level, args, kwargs)
    logp = call(api.FUNCTIONAL["log_softmax"], x, 0 if x.ndim == 1 else 1)
    return call(nll_loss, logp, target, params.get("weight"),
                ignore_index=params.get("ignore_index", -100),
                reduction=params.get("reduction", "mean"))


# -- the table -------------------------------------------------------------------------------

_POINTWISE = (
    "add sub mul div neg pow remainder floor_divide rsub eq ne lt le gt ge logical_not "
    "logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor bitwise_not exp log "
    "log1p expm1 sin cos tanh sigmoid logit relu sqrt abs reciprocal clamp clamp_min clamp_max "
    "clip floor ceil round trunc sign sgn square isnan isinf isfinite rsqrt where atan2 hypot "
    "logaddexp xlogy lerp addcmul addcdiv fmod maximum minimum clone to type_as "
    "float double half long int bool alias positive copysign fmax fmin nan_to_num heaviside "
    "float_power deg2rad rad2deg signbit tan asin acos atan sinh cosh asinh acosh atanh log2 "
    "log10 exp2 erf erfc erfinv lgamma digamma sinc frac masked_fill absolute negative fix "
    "multiply subtract divide true_divide greater greater_equal less less_equal not_equal "
    "add_ sub_ mul_ div_ pow_ exp_ relu_ tanh_ sigmoid_ clamp_ zero_ fill_ copy_ masked_fill_ "
    "addcmul_ addcdiv_ lerp_ neg_ abs_ sqrt_ log_ sin_ cos_ floor_ ceil_ round_ trunc_ conj "
    "resolve_conj")
_FUNCTIONAL_POINTWISE = (
    "relu relu6 gelu silu elu selu celu leaky_relu hardtanh hardsigmoid hardswish softplus "
    "softsign mish tanhshrink softshrink hardshrink logsigmoid threshold sigmoid tanh")
_DIMS = {
    # name: (position, keyword, absent)
    "sum": (1, "dim", "all"), "mean": (1, "dim", "all"), "nansum": (1, "dim", "all"),
    "nanmean": (1, "dim", "all"), "amax": (1, "dim", "all"), "amin": (1, "dim", "all"),
    "logsumexp": (1, "dim", "all"), "prod": (1, "dim", "flat"), "argmax": (1, "dim", "flat"),
    "argmin": (1, "dim", "flat"), "any": (1, "dim", "all"), "all": (1, "dim", "all"),
    "count_nonzero": (1, "dim", "all"), "var": (1, "dim", "all"), "std": (1, "dim", "all"),
    "norm": (2, "dim", "all"), "softmax": (1, "dim", "last"), "log_softmax": (1, "dim", "last"),
    "cumsum": (1, "dim", "last"), "cumprod": (1, "dim", "last"), "max": (1, "dim", "flat"),
    "min": (1, "dim", "flat"), "sort": (1, "dim", "last"), "argsort": (1, "dim", "last"),
    "topk": (2, "dim", "last"), "select": (1, "dim", "zero"), "narrow": (1, "dim", "zero"),
    "unbind": (1, "dim", "zero"), "split": (2, "dim", "zero"), "chunk": (2, "dim", "zero"),
    "unflatten": (1, "dim", "zero"), "index_select": (1, "dim", "zero"),
    "logcumsumexp": (1, "dim", "last"), "flip": (1, "dims", "zero"),
    "split_with_sizes": (2, "dim", "zero"), "normalize": (2, "dim", "zero"),
    "cosine_similarity": (2, "dim", "zero"),
}
_TWO_DIMS = {"transpose": (1, 2), "swapaxes": (1, 2), "swapdims": (1, 2), "movedim": (1, 2),
             "moveaxis": (1, 2), "flatten": (1, 2)}


_GRAD_PARAMS = ("outputs", "inputs", "grad_outputs", "retain_graph", "create_graph")


def _autograd_grad(fn: Callable[..., Any], level: int, args: list[Any],
                   kwargs: dict[str, Any]) -> Any:
    """torch.autograd.grad with batched grad_outputs (vmap over a vjp, as the vmap
    docstring computes a Jacobian): torch runs one backward with batched gradients, which
    frees the graph once; here one backward per example keeps the graph until the last."""
    named = dict(zip(_GRAD_PARAMS[2:], args[2:]))
    named.update(kwargs)
    return fallback(fn, level, list(args[:2]), named, until_last={"retain_graph": True})


def install() -> None:
    """Fill RULES from the engine's tables (once: rules key on the function objects)."""
    if _INSTALLED:
        return
    _INSTALLED.append(True)
    from .. import api

    ops = _ops()
    methods = ops.TENSOR_METHODS
    functional = api.FUNCTIONAL
    torch = api.TORCH_FUNCTIONS

    def put(name: str, rule: Callable[..., Any], *tables: dict[str, Any]) -> None:
        for table in tables or (methods, torch):
            fn = table.get(name)
            if fn is None:
                continue
            while hasattr(fn, "__wrapped__"):
                fn = fn.__wrapped__
            RULES.setdefault(fn, rule)

    for name in _POINTWISE.split():
        put(name, pointwise)
    for name in _FUNCTIONAL_POINTWISE.split():
        put(name, pointwise, functional)
    for name, (pos, key, absent) in _DIMS.items():
        if name in ("max", "min"):
            put(name, _max_min(with_dim(pos, key, absent)))
            continue
        put(name, with_dim(pos, key, absent), methods, torch, functional)
    flatten_rule = with_dim(1, "start_dim", "zero")
    for name, (p0, p1) in _TWO_DIMS.items():
        put(name, two_dims(p0, p1) if name != "flatten" else _flatten(flatten_rule))
    for name, rule in (("unsqueeze", _unsqueeze), ("squeeze", _squeeze), ("t", _t),
                       ("permute", _permute), ("view", _view), ("reshape", _view),
                       ("expand", _expand), ("repeat", _repeat), ("dot", _dot_rule),
                       ("inner", _dot_rule), ("mv", _mv_rule), ("mm", _mm_rule),
                       ("bmm", _mm_rule), ("matmul", _matmul_rule), ("addmm", _addmm_rule),
                       ("outer", _outer_rule), ("ger", _outer_rule), ("detach", _detach_rule),
                       ("broadcast_to", _expand), ("diagonal", _diagonal), ("trace", _trace)):
        put(name, rule)
    put("squeeze_", _squeeze_inplace)
    put("contiguous", _contiguous_rule)
    put("view_as", _as(lambda: ops.view))
    put("reshape_as", _as(lambda: ops.reshape))
    put("expand_as", _as(lambda: ops.expand))
    put("linear", _linear_rule, functional, torch)
    put("mse_loss", _mse_rule, functional)
    put("nll_loss", _nll_rule, functional)
    put("gather", _gather_rule)
    put("cross_entropy", _cross_entropy_rule, functional)
    put("one_hot", _one_hot_rule, functional)
    for spatial in (1, 2, 3):
        put(f"conv{spatial}d", _conv_rule(spatial), functional, torch)
    put("stack", _joined(True))
    put("cat", _joined(False))
    put("concat", _joined(False))
    put("concatenate", _joined(False))
    from .. import backward

    RULES[backward.grad] = _autograd_grad
    RULES[ops.getitem] = _getitem
    RULES[views.unsafe_view] = _view
    RULES[ops.rdiv] = RULES[ops.rpow] = pointwise
    from ..ops import scalar

    for fn in (scalar.add_scalar, scalar.sub_scalar, scalar.mul_scalar, scalar.div_scalar):
        RULES[fn] = pointwise  # C++'s Scalar overloads: the batch dim stays where it is
    RULES[ops.stack] = _joined(True)
    RULES[ops.cat] = _joined(False)
    from ..tensor import Tensor as _T

    RULES[_T.detach] = _detach_rule
    RULES[_T.__matmul__] = _matmul_rule
    if hasattr(_T, "__rmatmul__"):
        RULES[_T.__rmatmul__] = _rmatmul_rule
    for dunder in ("__add__", "__sub__", "__rsub__", "__mul__", "__truediv__", "__rtruediv__",
                   "__neg__", "__pow__", "__rpow__", "__floordiv__", "__rfloordiv__",
                   "__mod__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                   "__and__", "__or__", "__xor__", "__invert__", "__abs__", "__radd__",
                   "__rmul__"):
        fn = _T.__dict__.get(dunder)
        if fn is not None:
            RULES.setdefault(fn, pointwise)


def _max_min(dim_rule: Callable[..., Any]) -> Callable[..., Any]:
    """max/min: with a tensor `other`, pointwise; else a reduction."""

    def rule(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
        other = args[1] if len(args) > 1 else kwargs.get("other")
        if isinstance(other, Tensor):
            return pointwise(fn, level, args, kwargs)
        return dim_rule(fn, level, args, kwargs)
    return rule


def _flatten(dim_rule: Callable[..., Any]) -> Callable[..., Any]:
    def rule(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any]) -> Any:
        value, bdim = unwrap(args[0], level)
        x = front(value, bdim)
        rank = x.ndim - 1
        start = kwargs.get("start_dim", args[1] if len(args) > 1 else 0)
        end = kwargs.get("end_dim", args[2] if len(args) > 2 else -1)
        if rank == 0:
            return wrap(call(fn, x, 1, 1) if x.ndim > 1 else
                        call(_ops().unsqueeze, x, 1), 0, level)
        return wrap(call(fn, x, _shift(start, rank), _shift(end, rank)), 0, level)
    return rule
