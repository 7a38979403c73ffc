"""Forward-mode AD (torch.autograd.forward_ad): dual levels, dual tensors, tangent propagation.

A tensor's tangent lives in its `_fw_grad` slot. torch supports one level at a time (entering
a second raises), so the slot holds the tangent of level 0, and leaving the level clears
every tangent made in it (`FW.duals`).

Each op's forward-derivative formula lives with the op (its `jvp` method, torch's
derivatives.yaml `result:` entry, or `jvp = auto_linear` for ops that are linear in their
first input); `propagate` runs it after the op's forward when an input has a tangent.

torch evaluates a formula with an undefined tangent replaced by an "efficient zero tensor"
(ZeroTensor): mul/div by one, a view of one, and the sum of two stay zero tensors; add/sub
of one return the other operand unchanged; every other op sees plain zeros. Autograd still
records each of those ops, so a tangent formula that multiplies a zero tangent by a primal
requiring grad gives a tangent with a grad_fn (the tutorial's `jvp` prints one). Here a zero
tangent is a tensor of zeros whose `_fw_grad` slot holds `ZERO`; while a formula runs
(`FW.computing`), `propagate` applies those rules to the results of the ops it calls.
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NotSupportedError, ScriptError, TorchRuntimeError
from .events import muted

if TYPE_CHECKING:
    from collections.abc import Callable

    from .node import Function
    from .tensor import Tensor


class _State:
    """The forward-AD level (-1: none entered) and whether a tangent formula is running."""

    __slots__ = ("level", "computing", "hidden", "duals", "fallback", "functorch")

    def __init__(self) -> None:
        self.level = -1
        self.computing = False
        self.hidden = False
        self.duals: list[weakref.ref] = []
        # torch.func.jvp's level: an op without a formula here (torch has one) takes its
        # tangent from its own double backward instead of refusing (it ran so before
        # forward-mode AD existed)
        self.fallback = False
        # torch.func's jvp level: make_dual and the primal views the tangent formulas read
        # are alias views there (AliasBackward0 in the caller's graph, measured), not the
        # view and `_fw_primal` (Identity) torch.autograd.forward_ad makes
        self.functorch = False


FW = _State()
ZERO = object()  # in a tensor's _fw_grad slot: the tensor is an efficient zero tensor

NESTED = "Nested forward mode AD is not supported at the moment"
NO_JVP_MESSAGE = (
    "Trying to use forward AD with {name} that does not support it because it has not been "
    "implemented yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/"
    "issues/new?template=feature-request.yml so that we can prioritize its implementation or "
    "submit a PR adding the implementation to derivatives.yaml")


# -- levels ------------------------------------------------------------------------------


def enter_dual_level() -> int:
    """torch._C._enter_dual_level: the new level (always 0: nesting is refused)."""
    if FW.level >= 0:
        raise TorchRuntimeError(NESTED)
    FW.level = 0
    return 0


def exit_dual_level(level: int) -> None:
    """torch._C._exit_dual_level: drop every tangent of the level."""
    if level < 0:
        raise TorchRuntimeError("Dual level must be a positive number.")
    if level != FW.level:
        raise TorchRuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported.")
    for ref in FW.duals:
        t = ref()
        if t is not None:
            t._fw_grad = None
    FW.duals = []
    FW.level = -1


def reset() -> None:
    """A run starts or ends with no dual level (one a limit stopped inside `dual_level()`
    must not carry into the next run in the same process)."""
    if FW.level >= 0:
        exit_dual_level(FW.level)
    FW.computing = FW.hidden = FW.fallback = False


def _check_level(level: int | None, op: str) -> None:
    if level is not None and level != FW.level:
        raise TorchRuntimeError(f"Invalid level given to {op}")


def tangent_of(t: Any) -> Tensor | None:
    """`t`'s tangent at the current level, or None."""
    g = getattr(t, "_fw_grad", None)
    return None if g is None or g is ZERO or FW.hidden else g


def set_tangent(t: Tensor, tangent: Tensor) -> None:
    if tangent._fw_grad is ZERO:  # a formula's zero tensor is stored as plain zeros
        tangent._fw_grad = None
    if t._fw_grad is None:
        FW.duals.append(weakref.ref(t))
    t._fw_grad = tangent


class disabled:  # noqa: N801 - used like a function
    """torch's forward grad mode off (what a custom Function's forward runs in): tangents
    are not seen (unpack_dual, printing) nor propagated."""

    __slots__ = ("on", "before")

    def __init__(self, on: bool = True) -> None:
        self.on = on

    def __enter__(self) -> None:
        self.before = FW.hidden
        if self.on:
            FW.hidden = True

    def __exit__(self, *exc: object) -> None:
        FW.hidden = self.before


# -- make_dual / unpack_dual ---------------------------------------------------------------


def make_dual(tensor: Tensor, tangent: Tensor, level: int | None = None) -> Tensor:
    """torch._make_dual: a view of `tensor` carrying `tangent` (as-is when it has the primal's
    layout, else a copy with it)."""
    from .ops._util import INTERNAL_OVERLAP, internal_overlap
    from .ops.views import ViewBackward0
    from .tensor import wrap

    _check_level(level, "_make_dual")
    if tensor.array.shape != tangent.array.shape:
        raise TorchRuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size "
            f"[{', '.join(map(str, tensor.array.shape))}] while the given forward gradient is "
            f"of size [{', '.join(map(str, tangent.array.shape))}].")
    if tangent_of(tensor) is not None:
        raise TorchRuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
            f"same level {FW.level} is not supported.")
    relayout = tangent.array.strides != tensor.array.strides and tangent.array.size > 1
    overlapping = relayout and internal_overlap(tensor.array)
    if overlapping and not FW.functorch:
        # torch copies the tangent into a tensor of the primal's strides, which an
        # expanded primal's cannot take
        raise TorchRuntimeError(INTERNAL_OVERLAP)
    out = _primal_view(tensor) if FW.functorch else \
        ViewBackward0.call(tensor, shape=tensor.array.shape)
    if relayout and not overlapping:
        # (under functorch an expanded primal is an unbatched one standing in at a vmap
        # level: its batched tangent keeps its own layout, as torch's batched tangents do)
        layout = np.empty_like(tensor.array, dtype=tangent.array.dtype)
        layout[...] = tangent.array
        tangent = wrap(layout)
    set_tangent(out, tangent)
    return out


def unpack_dual(tensor: Tensor, level: int | None = None) -> tuple[Tensor, Tensor | None]:
    """torch._unpack_dual: (a view of the primal without its tangent, the tangent as-is)."""
    from .batching.batched import BatchedTensor
    from .ops.fw_primal import Identity

    _check_level(level, "_fw_primal")
    if isinstance(tensor, BatchedTensor):  # a vmap's dual: its physical tensor carries the
        # tangent (ops on batched duals run on the physical ones), batched as `tensor` is
        primal, tangent = unpack_dual(tensor.value)
        return (BatchedTensor(primal, tensor.bdim, tensor.level),
                None if tangent is None else BatchedTensor(tangent, tensor.bdim, tensor.level))
    tangent = tangent_of(tensor)
    primal = _primal_view(tensor) if FW.functorch else _without_tangent(tensor, Identity.call)
    return primal, tangent


def _without_tangent(t: Tensor, make: Callable[[Tensor], Tensor]) -> Tensor:
    """`make(t)` with t's tangent slot empty while it runs: the view it makes of a dual's
    primal carries no tangent."""
    slot = t._fw_grad
    t._fw_grad = None
    try:
        return make(t)
    finally:
        t._fw_grad = slot


def _primal_view(t: Tensor) -> Tensor:
    """functorch's view of a dual's primal (and of the tensor a dual is made of): an alias,
    without the tangent."""
    from .ops.views import AliasBackward0

    return _without_tangent(t, AliasBackward0.call)


# -- propagation ---------------------------------------------------------------------------


def check(cls: type[Function], inputs: tuple) -> None:
    """Before an op without a forward formula runs on a dual input: torch's error (raised
    before the op checks its arguments)."""
    if cls.jvp is None and not FW.hidden and not FW.computing and any(
            tangent_of(t) is not None for t in inputs):
        if FW.fallback and cls.no_forward_ad is None:
            return  # propagate takes the tangent from the op's double backward
        _no_formula(cls)


def _no_formula(cls: type[Function]) -> None:
    if cls.no_forward_ad is not None:  # torch has no formula either
        raise ScriptError(NO_JVP_MESSAGE.format(name=cls.no_forward_ad),
                          kind="NotImplementedError")
    raise NotSupportedError(
        f"forward-mode AD through {cls.__name__}'s op is not supported by gradtrace yet "
        "(torch has a formula for it)")


def propagate(cls: type[Function], node: Function, inputs: tuple, params: dict,
              outs: list[Tensor]) -> None:
    """After `cls`'s forward: give its outputs their tangents (an input has one), or, inside
    a tangent formula, apply the zero-tensor rules."""
    if FW.hidden:
        return
    if FW.computing:
        _zero_rules(cls, inputs, params, outs)
        return
    found = False
    for t in inputs:
        g = getattr(t, "_fw_grad", None)
        if g is not None and g is not ZERO:
            found = True
            break
    if not found:
        return
    jvp = cls.jvp
    if jvp is None:
        if not (FW.fallback and cls.no_forward_ad is None):
            _no_formula(cls)
        jvp = _double_backward_jvp
    tangents = [_tangent_or_zero(t) for t in inputs]
    FW.computing = True
    try:
        with muted():
            result = jvp(node, tangents, outs, _primals(inputs), params)
    finally:
        FW.computing = False
    results = result if cls.multi_output else [result]
    for out, tangent in zip(outs, results):
        if tangent is not None and (out.dtype.is_floating_point or out.dtype.is_complex):
            set_tangent(out, tangent)
    _tangents_of_saved_outputs(node, outs)


def _tangents_of_saved_outputs(node: Function, outs: list[Tensor]) -> None:
    """A saved output keeps its output's tangent (torch's SavedVariable saves the forward
    grad): what forward-over-reverse (jacfwd of a gradient) differentiates through."""
    if not node.recording or not node.saved:
        return
    for saved in node.saved.values():
        if saved is None or not saved.is_output or saved.output_nr >= len(outs):
            continue
        tangent = outs[saved.output_nr]._fw_grad
        if tangent is not None and tangent is not ZERO and saved.tensor._fw_grad is None:
            set_tangent(saved.tensor, tangent)


def _double_backward_jvp(node: Function, tangents: list, outs: list, inputs: tuple,
                         params: dict) -> Any:
    """An op's tangent from its backward, for torch.func.jvp on an op without a formula
    here: the op run again on fresh leaves, then d/du <vjp(u), tangents> at u = 0 (the trick
    torch.autograd.functional.jvp uses). Where a primal or tangent requires grad (grad mode
    on), the leaves are views of the primals and the tangent keeps its graph, as torch's
    formula's result does (jacfwd over jacrev of inputs that require grad: the Hessian
    stays differentiable)."""
    from .backward import grad
    from .grad_mode import enable_grad, is_grad_enabled
    from .tensor import Tensor, wrap

    cls = type(node)
    keep = is_grad_enabled() and any(
        isinstance(t, Tensor) and t.requires_grad for t in (*inputs, *tangents))
    with disabled(), enable_grad():
        leaves = [_differentiable_leaf(t, keep) if isinstance(t, Tensor)
                  and t.dtype.is_floating_point else t for t in inputs]
        result = cls.call(*leaves, **params)
        outputs = list(result) if cls.multi_output else [result]
        diff = [o for o in outputs if o.requires_grad]
        wrt = [(i, t) for i, t in enumerate(leaves) if isinstance(t, Tensor) and t.requires_grad]
        if not diff or not wrt:
            return [None] * len(outs) if cls.multi_output else None
        dummies = [_scratch(np.zeros_like(o.array), keep) for o in diff]
        grads = grad(diff, [t for _, t in wrt], dummies, create_graph=True, allow_unused=True)
        used = [(g, tangents[i]) for g, (i, _) in zip(grads, wrt) if g is not None]
        if not used:
            return [None] * len(outs) if cls.multi_output else None
        tangent_outs = grad([g for g, _ in used], dummies, [t for _, t in used],
                            create_graph=keep, allow_unused=True)
    found = iter(tangent_outs)
    results = [next(found) if o.requires_grad else None for o in outputs]
    if not keep:
        results = [None if r is None else wrap(r.array) for r in results]
    return results if cls.multi_output else results[0]


def _differentiable_leaf(t: Tensor, keep: bool) -> Tensor:
    """The double-backward trick's stand-in for a primal: a fresh leaf, or (the tangent's
    graph kept) a view of a primal that requires grad, so the tangent reaches it."""
    if keep and t.requires_grad:
        return _without_tangent(t, lambda primal: primal.view_as(primal))
    return _scratch(t.array.copy(), keep)


def _scratch(array: np.ndarray, keep: bool) -> Tensor:
    """A fresh leaf of the trick; where the tangent's graph is kept, one known as scratch
    (engine/levels.py), so torch.func does not take it for a leaf of the caller's autograd."""
    from .levels import scratch_leaf
    from .tensor import wrap

    return scratch_leaf(array) if keep else wrap(array).requires_grad_()


def _primals(inputs: tuple) -> tuple:
    """The formula's `self_p`: a dual input that requires grad as its `_fw_primal` view
    (torch's Identity node, which the tangent's graph then shows; under torch.func's jvp
    every input that requires grad, as an alias); others as they are."""
    from .ops.fw_primal import Identity

    if FW.functorch:  # (functorch reads every input that requires grad through an alias)
        return tuple(_primal_view(t) if getattr(t, "requires_grad", False) else t
                     for t in inputs)
    if not any(getattr(t, "requires_grad", False) and tangent_of(t) is not None
               for t in inputs):
        return inputs
    return tuple(Identity.call(t) if getattr(t, "requires_grad", False)
                 and tangent_of(t) is not None else t for t in inputs)


def _tangent_or_zero(t: Any) -> Tensor | None:
    from .tensor import Tensor

    if not isinstance(t, Tensor):
        return None
    g = t._fw_grad
    if g is not None and g is not ZERO:
        return g
    return zero_tangent(t.array.shape, t.array.dtype)


def zero_tangent(shape: tuple[int, ...], dtype: Any) -> Tensor:
    """An efficient zero tensor (torch's _efficientzerotensor)."""
    from .tensor import wrap

    z = wrap(np.zeros(shape, dtype=dtype))
    z._fw_grad = ZERO
    return z


def is_zero(t: Any) -> bool:
    return getattr(t, "_fw_grad", None) is ZERO


_PRODUCTS = frozenset({"MulBackward0", "MulBackward1"})
_QUOTIENTS = frozenset({"DivBackward0", "DivBackward1"})
_SUMS = frozenset({"AddBackward0", "AddBackward1"})
_DIFFERENCES = frozenset({"SubBackward0", "SubBackward1"})


def _zero_rules(cls: type[Function], inputs: tuple, params: dict, outs: list[Tensor]) -> None:
    """torch's ZeroTensor kernels, applied to an op's result inside a tangent formula."""
    zeros = [is_zero(t) for t in inputs]
    if not any(zeros):
        return
    out = outs[0]
    name = cls.__name__
    if cls.returns_view:
        if zeros[0]:
            for o in outs:
                o._fw_grad = ZERO
        return
    if name in _PRODUCTS or (name in _QUOTIENTS and zeros[0]):
        _set_data(out, np.zeros_like(out.array))
        out._fw_grad = ZERO
        return
    if name in _SUMS or name in _DIFFERENCES:
        if len(zeros) < 2:
            return
        if zeros[0] and zeros[1]:
            _set_data(out, np.zeros_like(out.array))
            out._fw_grad = ZERO
            return
        alpha = params.get("alpha", 1)
        if zeros[1]:  # self + 0: self
            data = inputs[0].array
        else:  # 0 + alpha * other; 0 - alpha * other
            data = inputs[1].array if alpha == 1 else inputs[1].array * alpha
            if name in _DIFFERENCES:
                data = np.negative(data)
        _set_data(out, np.broadcast_to(data.astype(out.array.dtype, copy=False),
                                       out.array.shape).copy())


def _set_data(t: Tensor, data: np.ndarray) -> None:
    if t.array.flags.writeable and t.array.shape == data.shape:
        np.copyto(t.array, data)
    else:
        t.array = data


# -- formula helpers -----------------------------------------------------------------------


def auto_linear(node: Function, tangents: list, outs: list, inputs: tuple,
                params: dict) -> Any:
    """derivatives.yaml's `result: auto_linear`: the op applied to the first input's tangent,
    with the other arguments as they were."""
    return type(node).call(tangents[0], *inputs[1:], **params)


def linear_in_all(node: Function, tangents: list, outs: list, inputs: tuple,
                  params: dict) -> Any:
    """A formula that is the op itself on every input's tangent (zeros for one without):
    cat_jvp, stack_jvp, where(condition, self_t, other_t)."""
    return type(node).call(*tangents, **params)


def auto_element_wise(node: Function, tangents: list, outs: list, inputs: tuple,
                      params: dict) -> Any:
    """derivatives.yaml's `result: auto_element_wise`: the op's backward formula with the
    tangent for `grad` (so torch's arithmetic, in its order). The node saved what backward
    reads even when nothing requires grad (Function.call); it is then no graph node, so its
    saved result is read as the plain tensor it is, not re-attached to the node."""
    if not node.next_functions:  # not a node of the graph (no primal requires grad)
        for saved in (node.saved or {}).values():
            if saved is not None:
                saved.is_output = False
    return node.backward(tangents[0])


def has_tangent(inputs: tuple) -> bool:
    return any(tangent_of(t) is not None for t in inputs)


def maybe_multiply(t: Tensor, scalar: Any) -> Tensor:
    """torch's maybe_multiply: `t * scalar` unless the scalar is 1."""
    if isinstance(scalar, (int, float)) and not isinstance(scalar, bool) and scalar == 1:
        return t
    return t * scalar


def inplace_tangent(self: Tensor, out: Tensor) -> None:
    """An in-place op's tangent: written into `self`'s tangent when it has one (torch's
    `self_t.copy_(...)`, so views of that tangent see it), else `out`'s becomes `self`'s.
    A view without a tangent writes through its base's: torch's set_fw_grad for an in-place
    op on a view gives a base without one a zero tangent first, and the view's tangent is
    the same window of the base's (`y = torch.zeros(2); y[0] = dual` makes y a dual)."""
    tangent = tangent_of(out)
    if tangent is None:
        return
    own = tangent_of(self)
    if own is None and self._base is not None:
        own = _view_tangent(self, tangent)
    if own is not None and own is not tangent:
        from .ops.view_inplace import copy_

        with muted():
            copy_(own, tangent)
    else:
        set_tangent(self, tangent)


def _view_tangent(view_: Tensor, tangent: Tensor) -> Tensor:
    """The window of `view_`'s base's tangent that `view_` is of its base (the base given a
    zero tangent of its own layout when it has none), now `view_`'s tangent."""
    from .ops.as_strided import as_strided
    from .ops.view_inplace import _geometry
    from .tensor import wrap

    base = view_._base
    base_t = tangent_of(base)
    with muted():
        if base_t is None:
            base_t = wrap(np.zeros_like(base.array, dtype=tangent.array.dtype))
            set_tangent(base, base_t)
        size, stride, offset = _geometry(view_)
        own = as_strided(base_t, size, stride, offset)
    set_tangent(view_, own)
    return own


def add_tangent_inplace(t: Tensor, other: Tensor) -> None:
    """`t += other`'s tangent, when the values were added without an op (AccumulateGrad)."""
    other_t = tangent_of(other)
    if other_t is None:
        return
    own = tangent_of(t)
    with muted():
        set_tangent(t, other_t if own is None else own + other_t)


def add_tangent_into_buffer(t: Tensor, other: Tensor) -> None:
    """The tangent of an input buffer's in-place `old.add_(new)` (torch's add_ formula):
    self_t + other_t as a new tensor (a zero tensor for an undefined side), never one of
    the operands' own tangents."""
    from .tensor import wrap

    own, other_t = tangent_of(t), tangent_of(other)
    if own is None and other_t is None:
        return
    with muted():
        if own is None:
            tangent = wrap(other_t.array.copy())
        elif other_t is None:
            tangent = wrap(own.array.copy())
        else:
            tangent = own + other_t
    set_tangent(t, tangent)
