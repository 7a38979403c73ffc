"""Running an op on BatchedTensors: the rule for the op at the highest vmap level among its
arguments (rules.py), or torch's fallback (BatchedFallback.cpp): the op once per example,
the results stacked, with torch's performance warning. A rule calls ops through `call`,
which dispatches again while lower vmap levels remain, as functorch's levels do."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import levels
from ..node import next_sequence_nr
from ..tensor import Tensor
from .batched import TRANSFORMS, BatchedTensor, max_level, unwrap

Rule = Callable[[Callable[..., Any], int, list[Any], dict[str, Any]], Any]
RULES: dict[Any, Rule] = {}
"""engine function -> its batching rule (filled by rules.py)."""

TORCH_FALLS_BACK = frozenset((
    "histc", "quantile", "nanquantile", "renorm", "renorm_", "put", "put_", "take", "pdist",
    "masked_scatter", "masked_scatter_"))
"""The ops torch 2.13 itself runs through its fallback (measured): only these warn; any other
op gradtrace has no rule for runs the same loop silently, as torch's rule gives no warning."""

FALLBACK_MESSAGE = (
    "There is a performance drop because we have not yet implemented the batching rule for "
    "aten::{name}. Please file us an issue on GitHub so that we can prioritize its "
    "implementation. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/functorch/"
    "BatchedFallback.cpp:82.)")
DYNAMIC_SHAPE = ("vmap: We do not support batching operators that can output dynamic shape. "
                 "Attempted to vmap over aten::{name}. Please file an issue at "
                 "https://github.com/pytorch/pytorch/issues if you need this feature.")
DYNAMIC_OPS = frozenset(("nonzero", "argwhere", "masked_select", "unique", "bincount"))


def has_batched(args: Any, kwargs: dict[str, Any] | None = None) -> bool:
    """Whether a BatchedTensor is among `args` (one list level deep) or `kwargs`' values."""
    for a in args:
        if isinstance(a, BatchedTensor):
            return True
        if type(a) in (list, tuple):
            for b in a:
                if isinstance(b, BatchedTensor):
                    return True
    if kwargs:
        return has_batched(kwargs.values())
    return False


def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)`, through the batching rules while an argument is batched."""
    if has_batched(args, kwargs):
        return batched_call(fn, list(args), kwargs)
    return fn(*args, **kwargs)


def resolve(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Callable[..., Any]:
    """The engine function under torch-namespace wrappers (`accepting_out`)."""
    while kwargs.get("out") is None and hasattr(fn, "__wrapped__") and \
            getattr(fn, "__module__", "").startswith("gradtrace.engine"):
        fn = fn.__wrapped__
    return fn


def batched_call(fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    """Run `fn` on arguments some of which are BatchedTensors."""
    from . import rules

    rules.install()
    fn = resolve(fn, kwargs)
    own = _OVERRIDES.get(getattr(fn, "__name__", ""))
    if own is not None and fn is getattr(Tensor, fn.__name__, None) and args and \
            isinstance(args[0], BatchedTensor):
        return own(*args, **kwargs)
    if args and isinstance(args[0], BatchedTensor) and fn in _storage_readers():
        return fn(*args, **kwargs)  # (they refuse it: functorch's BatchedTensorImpl has none)
    level = max_level([*args, *kwargs.values()])
    rule = RULES.get(fn)
    if rule is None:
        return fallback(fn, level, args, kwargs)
    if not levels.INPUTS:
        return rule(fn, level, args, kwargs)
    first = next_sequence_nr()
    return shadowed(fn, level, args, kwargs, rule(fn, level, args, kwargs), first)


def _batched_args(args: list[Any], kwargs: dict[str, Any]) -> list[BatchedTensor]:
    items = [*args, *kwargs.values()]
    items += [b for a in items if type(a) in (list, tuple) for b in a]
    return [a for a in items if isinstance(a, BatchedTensor)]


def _unshadow(a: Any, level: int) -> Any:
    if isinstance(a, BatchedTensor) and a.level == level:
        return a.shadow
    if type(a) in (list, tuple):
        return type(a)(_unshadow(b, level) for b in a)
    return a


_MUTATING = frozenset(("setitem", "__setitem__", "__iadd__", "__isub__", "__imul__",
                       "__itruediv__", "__ipow__"))


def _same(a: Any, b: Any) -> bool:
    """Equal generator snapshots (tuples and dicts of numbers and arrays)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def shadowed(fn: Callable[..., Any], level: int, args: list[Any], kwargs: dict[str, Any],
             result: Any, first: int) -> Any:
    """An op whose batched arguments all stand for unbatched tensors a grad transform
    expanded (`shadow`s): torch runs it on the unbatched tensors, so it is run on them too.
    Its batched result (the level's graph) takes their values, stands for the unbatched
    result, and, when the level ends, the caller's graph has the unbatched op's node where
    the batched one was (engine/levels.py): torch's nodes, and the batch summed where the
    unbatched result first meets a batched tensor."""
    from .. import generator

    batched = _batched_args(args, kwargs)
    name = getattr(fn, "__name__", "")
    if name.endswith("_") or name in _MUTATING or kwargs.get("out") is not None:
        for t in (args[0] if args else None, kwargs.get("out")):
            if isinstance(t, BatchedTensor):
                t.shadow = None  # (its value changed: it no longer stands for the tensor)
        return result
    if not batched or any(b.level != level or b.shadow is None for b in batched) or \
            not isinstance(result, BatchedTensor) or result.level != level or \
            isinstance(result.value, BatchedTensor):
        return result
    state = generator.DEFAULT.snapshot()
    shadow = fn(*[_unshadow(a, level) for a in args],
                **{k: _unshadow(v, level) for k, v in kwargs.items()})
    if not _same(generator.DEFAULT.snapshot(), state):  # (a random op: drawn per example)
        generator.DEFAULT.restore(state)
        return result
    if not isinstance(shadow, Tensor) or isinstance(shadow, BatchedTensor):
        return result
    value = result.value
    expected = np.expand_dims(shadow.array, result.bdim)
    if value._base is None and value.array.flags.writeable and \
            value.array.dtype == expected.dtype and \
            value.array.shape == np.broadcast_shapes(value.array.shape, expected.shape):
        np.copyto(value.array, expected)  # (torch's values: the op ran on the unbatched tensors)
    result.expanded = True
    result.shadow = shadow
    node = value.grad_fn
    if node is not None and node.sequence_nr >= first:
        levels.set_outer_node(node, shadow)
    return result


_OVERRIDES: dict[str, Callable[..., Any]] = {
    name: getattr(BatchedTensor, name)
    for name in ("size", "dim", "numel", "item", "tolist", "__len__", "__bool__", "__float__",
                 "__int__")}


@functools.cache
def _storage_readers() -> frozenset[Callable[..., Any]]:
    """numpy(), data_ptr(), storage(), untyped_storage(): they read the memory, which a
    BatchedTensor has none of (the fallback would run them per example and hand out the
    first example's)."""
    from ..ndarray import tensor_numpy
    from ..storage import data_ptr, storage, untyped_storage

    return frozenset((tensor_numpy, data_ptr, storage, untyped_storage))


def wrap(t: Any, bdim: int | None, level: int) -> Any:
    """A rule's result: tensors batched at `level` along `bdim` (None: not batched)."""
    if bdim is None:
        return t
    if isinstance(t, Tensor):
        return BatchedTensor(t, bdim, level)
    if isinstance(t, tuple):
        items = [wrap(x, bdim, level) for x in t]
        return tuple(items) if type(t) is tuple else type(t)(*items)
    if isinstance(t, list):
        return [wrap(x, bdim, level) for x in t]
    return t


def _select(t: Any, level: int, i: int) -> Any:
    from ..ops import select

    if isinstance(t, BatchedTensor) and t.level == level:
        return call(select, t.value, t.bdim, i)
    if type(t) in (list, tuple):
        return type(t)(_select(x, level, i) for x in t)
    return t


def fallback(fn: Callable[..., Any], level: int, args: list[Any],
             kwargs: dict[str, Any], *, until_last: dict[str, Any] | None = None) -> Any:
    """torch's batched fallback: `fn` once per example along `level`, results stacked;
    `until_last` overrides keyword arguments for every example but the last."""
    from ..ops import stack
    from ..ops.views import warn

    name = getattr(fn, "__name__", "op").strip("_") if not getattr(
        fn, "__name__", "").endswith("_") else fn.__name__
    if name in DYNAMIC_OPS:
        raise TorchRuntimeError(DYNAMIC_SHAPE.format(name=name))
    if name in TORCH_FALLS_BACK:
        warn(FALLBACK_MESSAGE.format(name=name))
    size = TRANSFORMS.batch_size(level)
    inplace = getattr(fn, "__name__", "").endswith("_") and args and \
        isinstance(args[0], Tensor)
    if inplace:
        _self, self_bdim = unwrap(args[0], level)
        if self_bdim is None:
            _refuse_unbatched_inplace(args[0], size, fn.__name__)
    from .. import generator

    same = any(v.level == level and v.randomness == "same" for v in TRANSFORMS.vmaps)
    start = generator.DEFAULT.snapshot() if same else None
    results = []
    for i in range(size):
        if same and i:  # randomness="same": every example draws what the first drew
            generator.DEFAULT.restore(start)
        chosen = {k: _select(v, level, i) for k, v in kwargs.items()}
        if until_last and i < size - 1:
            chosen.update(until_last)
        results.append(call(fn, *[_select(a, level, i) for a in args], **chosen))
    if inplace:
        return args[0]
    first = results[0]
    if isinstance(first, Tensor):
        return wrap(call(stack, results), 0, level)
    if isinstance(first, tuple) and all(isinstance(x, Tensor) for x in first):
        parts = [wrap(call(stack, [r[j] for r in results]), 0, level)
                 for j in range(len(first))]
        return tuple(parts) if type(first) is tuple else type(first)(*parts)
    return first


INPLACE_ARITHMETIC = (
    "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
    "Tensor `other` in extra_args that has more elements than `self`. This happened due to "
    "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try to "
    "use out-of-place operators instead of inplace arithmetic. If said operator is being "
    "called inside the PyTorch framework, please file a bug report instead.")


def _refuse_unbatched_inplace(t: Tensor, size: int, name: str = "add_") -> None:
    """An in-place op on an unbatched tensor with a batched operand: torch's in-place batch
    rules refuse it (mul_, copy_, clamp_min_, ... measured); add_ runs on and fails its
    broadcast check."""
    if name != "add_":
        raise TorchRuntimeError(INPLACE_ARITHMETIC)
    shape = ", ".join(str(s) for s in t.shape)
    full = ", ".join(str(s) for s in (size, *t.shape))
    raise TorchRuntimeError(f"output with shape [{shape}] doesn't match the broadcast shape "
                            f"[{full}]")


def random_factory(fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    """torch.rand/randn inside vmap(randomness="different"): one draw of the batched size
    (every such level's batch in front, outermost first), a sample per example; None when
    `fn` is not one of them or no level draws differently."""
    from ..ops import sampling

    target = resolve(fn, kwargs)
    if target not in (sampling.rand, sampling.randn):
        return None
    levels = [v for v in TRANSFORMS.vmaps if v.randomness == "different"]
    if not levels:
        return None
    size = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) \
        else tuple(args)
    result = target(*[v.batch_size for v in levels], *size, **kwargs)
    for v in levels:
        result = BatchedTensor(result, 0, v.level)
    return result
