"""torch.utils.swap_tensors' C++ half: how many references torch's TensorImpl of a tensor
has (`Tensor._use_count()`), and the swap of two tensors' whole contents
(`torch._C._swap_tensor_impl`). The Python half, with its checks and errors, is
lib/torch/utils.gt, as torch/utils/__init__.py is torch's.

A tensor's impl is referenced by its Python object, by the AccumulateGrad node of a leaf
while the node lives, by every view of it (a view holds its base) and by every node that
saved it for backward (saved outputs keep only their data, as torch's SavedVariable does).
"""
from __future__ import annotations

import gc

from ..errors import NotSupportedError
from .events import OBSERVERS
from .node import SavedTensor
from .ops.views import _VIEWS
from .tensor import Parameter, Tensor

_SWAPPABLE = (Tensor, Parameter)
_SLOTS = tuple(name for name in Tensor.__slots__ if name != "__weakref__")


def use_count(t: Tensor) -> int:
    """`t._use_count()`: the references to t's impl, its own object's included. With an
    observer attached (the tracer keeps every node a run recorded), only the nodes the
    script itself still reaches count, as torch's graph lives no longer than that."""
    reached = next((observer.program_graph() for observer in OBSERVERS), None)
    count = 1
    accumulator = t._accumulator() if t._accumulator is not None else None
    if accumulator is not None and (reached is None or id(accumulator) in reached):
        count += 1
    entry = _VIEWS.get(id(t))
    if entry is not None and entry[0]() is t:
        count += sum(1 for ref in entry[1] if (view := ref()) is not None and view._base is t)
    # the nodes that saved t itself: those reached, or (rare calls) a scan of what refers to t
    holders = gc.get_referrers(t) if reached is None else [
        saved for node in reached.values() if node.saved for saved in node.saved.values()]
    return count + sum(1 for saved in holders
                       if type(saved) is SavedTensor and saved.tensor is t)


def swap_tensor_impl(t1: Tensor, t2: Tensor) -> None:
    """Every slot and the class (Tensor or Parameter) of t1 and t2 exchanged: each object
    keeps its identity and takes the other's data, history and gradient. A live
    AccumulateGrad node follows the impl it accumulates into, as torch's does."""
    for t in (t1, t2):
        if type(t) not in _SWAPPABLE:
            raise NotSupportedError(f"torch.utils.swap_tensors of a {type(t).__name__} is "
                                    "not supported by gradtrace")
    if t1 is t2:
        return
    accumulators = [t._accumulator() if t._accumulator is not None else None
                    for t in (t1, t2)]
    for name in _SLOTS:
        first = getattr(t1, name)
        setattr(t1, name, getattr(t2, name))
        setattr(t2, name, first)
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    for node, now in zip(accumulators, (t2, t1), strict=True):
        if node is not None:
            node.variable = now
