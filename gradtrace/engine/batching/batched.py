"""functorch's BatchedTensor: a value (a plain tensor, or a BatchedTensor of an outer vmap
level) with one batch dim `bdim` at vmap level `level`. The script sees the logical tensor
(the value without its batch dim); ops on it run once on the value through a batching rule
(rules.py), so the autograd graph is the one of the physical ops, as in torch."""
from __future__ import annotations

from typing import Any

from ...errors import TorchRuntimeError
from ..shapes import Size
from ..tensor import Tensor

ITEM_MESSAGE = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
    "calling .item() on a Tensor, please try to rewrite what you're doing with other "
    "operations. If error is occurring somewhere inside PyTorch internals, please file a bug "
    "report.")
CONTROL_FLOW_MESSAGE = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
    "flow. We don't support that yet, please file an issue at "
    "https://github.com/pytorch/pytorch/issues .")
NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"
RANDOM_MESSAGE = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap")


class VmapLevel:
    """One running vmap: its level, batch size and randomness mode."""

    __slots__ = ("level", "batch_size", "randomness")

    def __init__(self, level: int, batch_size: int, randomness: str):
        self.level = level
        self.batch_size = batch_size
        self.randomness = randomness


class TransformStack:
    """The functorch transforms now running (vmap and grad levels share one counter, as
    torch's DynamicLayer stack does)."""

    def __init__(self) -> None:
        self.depth = 0
        self.vmaps: list[VmapLevel] = []

    def reset(self) -> None:
        """A run starts or ends outside every transform (a limit can stop one midway)."""
        self.depth = 0
        self.vmaps.clear()

    def push_vmap(self, batch_size: int, randomness: str) -> int:
        self.depth += 1
        self.vmaps.append(VmapLevel(self.depth, batch_size, randomness))
        return self.depth

    def pop_vmap(self) -> None:
        self.vmaps.pop()
        self.depth -= 1

    def batch_size(self, level: int) -> int:
        for v in self.vmaps:
            if v.level == level:
                return v.batch_size
        raise TorchRuntimeError(f"vmap: no vmap level {level} is running")

    def check_random(self) -> None:
        """A random op ran: torch refuses it under a vmap whose randomness is 'error'."""
        if self.vmaps and any(v.randomness == "error" for v in self.vmaps):
            raise TorchRuntimeError(RANDOM_MESSAGE)


TRANSFORMS = TransformStack()


class BatchedTensor(Tensor):
    """A tensor batched at one vmap level; hides the autograd state of its value (torch
    shows requires_grad=False and no grad_fn inside vmap)."""

    __slots__ = ("value", "bdim", "level", "expanded", "shadow")
    has_storage = False  # (its values are its value's, batched: numpy(), data_ptr() refuse)

    def __init__(self, value: Tensor, bdim: int, level: int, expanded: bool = False,
                 shadow: Tensor | None = None):
        # (Tensor.__init__ is skipped: no array of its own to admit). `expanded`: the value
        # is an unbatched tensor expanded along bdim for a grad transform inside vmap;
        # `shadow`, that unbatched tensor where it is known (dispatch.shadowed).
        self.value = value
        self.expanded = expanded
        self.shadow = shadow
        self.bdim = bdim
        self.level = level
        self.array = value.array
        self.dtype = value.dtype
        self.requires_grad = False
        self.grad = None
        self.grad_fn = None
        self.output_nr = 0
        self._version_counter = value._version_counter
        self._base = None
        self.retains_grad = False
        self._hooks = None
        self._post_accumulate_hooks = None
        self._accumulator = None
        self._wrapped = False
        self._fw_grad = None
        self.pyclass = None

    # -- the logical tensor ----------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        s = self.value.shape
        return tuple(s[:self.bdim]) + tuple(s[self.bdim + 1:])

    @property
    def ndim(self) -> int:
        return self.value.ndim - 1

    def size(self, dim: int | None = None) -> Any:
        from ..shapes import wrap_dim

        if dim is None:
            return Size(self.shape)
        return self.shape[wrap_dim(dim, self.ndim)]

    def dim(self) -> int:
        return self.value.ndim - 1

    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def item(self) -> Any:
        raise TorchRuntimeError(ITEM_MESSAGE)

    def tolist(self) -> Any:
        raise TorchRuntimeError(NO_STORAGE)

    def __float__(self) -> float:
        raise TorchRuntimeError(ITEM_MESSAGE)

    def __int__(self) -> int:
        raise TorchRuntimeError(ITEM_MESSAGE)

    def __bool__(self) -> bool:
        raise TorchRuntimeError(CONTROL_FLOW_MESSAGE)

    def __len__(self) -> int:
        from ...errors import TorchTypeError

        if self.ndim == 0:
            raise TorchTypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __repr__(self) -> str:
        inner = "\n".join("    " + line if line else line
                          for line in repr(self.value).split("\n"))
        return f"BatchedTensor(lvl={self.level}, bdim={self.bdim}, value=\n{inner}\n)"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    @property
    def is_leaf(self) -> bool:
        return True


def physical(t: Tensor) -> Tensor:
    """The plain tensor under every batch level of `t`."""
    while isinstance(t, BatchedTensor):
        t = t.value
    return t


def max_level(values: Any) -> int:
    """The highest vmap level among the BatchedTensors in `values` (a flat or one-deep
    nested sequence), 0 if none."""
    level = 0
    for v in values:
        if isinstance(v, BatchedTensor):
            level = max(level, v.level)
        elif isinstance(v, (list, tuple)):
            for w in v:
                if isinstance(w, BatchedTensor):
                    level = max(level, w.level)
    return level


def unwrap(t: Any, level: int) -> tuple[Any, int | None]:
    """(value, bdim) of `t` at `level`; (t, None) when `t` is not batched there."""
    if isinstance(t, BatchedTensor) and t.level == level:
        return t.value, t.bdim
    return t, None


def add_batch_dim(t: Tensor, bdim: int, level: int) -> BatchedTensor:
    """torch._C._functorch._add_batch_dim."""
    return BatchedTensor(t, bdim, level)
