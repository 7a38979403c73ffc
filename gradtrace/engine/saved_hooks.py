"""Default hooks for saved tensors: `torch.autograd.graph.saved_tensors_hooks(pack, unpack)`,
`save_on_cpu` and `disable_saved_tensors_hooks` (torch/autograd/graph.py over
SavedVariable.cpp).

Inside the context, every tensor a node saves for backward goes through `pack` once, at
save time, in the order the op saves them; the node keeps only what `pack` returned.
Reading the saved value (`grad_fn._saved_self`, or backward using it) calls `unpack` on
that object each time, and the tensor it returns is re-attached to the saved tensor's
place in the graph (its grad_fn, or the leaf's AccumulateGrad) as a new tensor. Versions
are not checked through hooks, as in torch.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import ScriptError, TorchRuntimeError, TorchTypeError
from .grad_mode import GRAD_MODE

if TYPE_CHECKING:
    from .node import Node
    from .tensor import Tensor

PACK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook.")


class _HookState:
    """The run's hook stack (innermost last), the message that forbids hooks, if any, and
    how many hook calls are running (the trace leaves their insides out: the views tell
    that a hook ran, and a hook's tensors would otherwise lend it their names)."""

    __slots__ = ("stack", "disabled", "running", "used")

    def __init__(self) -> None:
        self.stack: list[tuple[Any, Any]] = []
        self.disabled: str | None = None
        self.running = 0
        self.used = False  # a tensor was packed this run (backward then unpacks up front)


HOOKS = _HookState()
# what `torch.autograd.graph.allow_mutation_on_saved_tensors` watches in-place writes with
# (torch's _CloneArgBeforeMutateMode, a dispatch mode seeing every op that writes into an
# argument): each is told the tensor written and its version before the write
MUTATION_WATCHERS: list[Callable[[Tensor, int], None]] = []


def reset() -> None:
    """Every run starts with no hooks (like a new process)."""
    HOOKS.stack.clear()
    MUTATION_WATCHERS.clear()
    HOOKS.disabled = None
    HOOKS.running = 0
    HOOKS.used = False


class Packed:
    """What a saved tensor keeps under hooks: the pack hook's result, the unpack hook, and
    where an unpacked tensor goes in the graph (the saved tensor's grad_fn or leaf)."""

    __slots__ = ("value", "pack_hook", "unpack_hook", "grad_fn", "leaf", "order", "unpacked")

    def __init__(self, value: Any, pack_hook: Any, unpack_hook: Any, tensor: Tensor):
        self.order = next(_ORDER)  # torch unpacks a node's saved tensors in the order saved
        self.unpacked: Tensor | None = None  # while the node's backward runs
        self.value = value
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self.grad_fn = tensor.grad_fn
        self.leaf = tensor if tensor.grad_fn is None and tensor.requires_grad else None


_ORDER = itertools.count()


def unpack_all(node: Node) -> list[Packed]:
    """torch's generated backward unpacks every saved tensor of the node once, first, in
    the order they were saved: do that for the packed ones (the formulas then read these)."""
    saved = sorted((s for s in node.saved.values() if s is not None and s.packed is not None),
                   key=lambda s: s.packed.order) if node.saved else []
    done = []
    try:
        for s in saved:
            s.packed.unpacked = s.unpack(node)
            done.append(s.packed)
    except BaseException:
        forget(done)
        raise
    return done


def forget(packed: list[Packed]) -> None:
    for p in packed:
        p.unpacked = None


def pack(tensor: Tensor, hooks: tuple[Any, Any] | None = None,
         place: Tensor | None = None) -> Packed | None:
    """Run the innermost pack hook (or `hooks`' pack hook) on a tensor being saved (None
    without hooks); `place` is the saved tensor whose place in the graph an unpacked one
    takes, when `tensor` is its detached data. The hook runs with grad mode off, as torch
    runs it, and must not change its input in place."""
    if hooks is None and not HOOKS.stack:
        return None
    pack_hook, unpack_hook = HOOKS.stack[-1] if hooks is None else hooks
    version = tensor._version_counter.value
    enabled = GRAD_MODE.enabled
    GRAD_MODE.enabled = False
    HOOKS.running += 1
    try:
        value = pack_hook(tensor)
    finally:
        GRAD_MODE.enabled = enabled
        HOOKS.running -= 1
    if tensor._version_counter.value != version:
        raise TorchRuntimeError(PACK_INPLACE)
    HOOKS.used = True
    return Packed(value, pack_hook, unpack_hook, tensor if place is None else place)


def unpack(packed: Packed, node: Node, output_nr: int, is_output: bool,
           reattach: bool) -> Tensor:
    """Call the unpack hook and make its tensor a new tensor in the saved one's place."""
    from .tensor import Tensor, gradient_edge, type_name

    HOOKS.running += 1
    try:
        data = packed.unpack_hook(packed.value)
    finally:
        HOOKS.running -= 1
    if not isinstance(data, Tensor):
        raise TorchTypeError("Output of saved tensor unpack_hook expected to be a Tensor but "
                             f"got result of type {type_name(data)}")
    out = Tensor._wrap(data.array)
    out._version_counter = data._version_counter
    grad_fn = node if is_output else packed.grad_fn
    if grad_fn is not None and (reattach or not is_output):
        out.requires_grad = True
        out.grad_fn = grad_fn
        out.output_nr = output_nr
    elif packed.leaf is not None:
        gradient_edge(packed.leaf)  # the leaf's AccumulateGrad receives what flows here
        out.requires_grad = True
        out._accumulator = packed.leaf._accumulator
    return out


def hook_names(saved: Any) -> tuple[str, str] | None:
    """(pack hook, unpack hook) names of a saved tensor packed under hooks, for the views."""
    packed = getattr(saved, "packed", None)
    if packed is None:  # (before the import: the tracer asks this of every saved tensor)
        return None
    from .hooks import hook_name

    return hook_name(packed.pack_hook), hook_name(packed.unpack_hook)


CALLED_AFTER_FREE = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you "
    "need to access saved variables after calling backward.")
HOOKS_ALREADY_SET = ("Calling register_hooks on a saved tensor whose hooks have already been "
                     "set. Hint: only one pair of hooks is allowed at a time.")
SAVED_NONE = "Calling register_hooks on a saved tensor with value None is forbidden"


class RawSavedTensor:
    """`grad_fn._raw_saved_<key>`: torch's SavedTensor object for one saved tensor of a node
    (SavedVariable), whose `register_hooks(pack_hook, unpack_hook)` packs it at once
    (SavedVariable::register_hooks): from then on the node keeps only what `pack_hook`
    returned and every read, `_saved_<key>` or backward, calls `unpack_hook`, as under
    saved_tensors_hooks. torch hands `pack_hook` the saved data detached."""

    __slots__ = ("node", "key")
    SCRIPT_CLASS = ("torch._C._autograd", "SavedTensor")  # torch's class, as type() shows it
    python_type_name = ".".join(SCRIPT_CLASS)  # pybind's tp_name, Python's messages' name

    def __init__(self, node: Node, key: str):
        self.node = node
        self.key = key

    def __repr__(self) -> str:
        return f"<{self.python_type_name} object at {id(self):#x}>"

    def register_hooks(self, pack_hook: Any, unpack_hook: Any) -> None:
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TorchTypeError(incompatible_arguments(
                "register_hooks", f"self: {self.python_type_name}, ",
                (self, pack_hook, unpack_hook)))
        node = self.node
        saved = node.saved.get(self.key) if node.saved else None
        if saved is not None and (saved.packed is not None or id(saved) in _PACKING):
            raise TorchRuntimeError(HOOKS_ALREADY_SET)  # (torch sets them before packing)
        if node.released:
            raise TorchRuntimeError(CALLED_AFTER_FREE)
        if saved is None:
            raise TorchRuntimeError(SAVED_NONE)
        _PACKING.add(id(saved))
        try:
            saved.packed = pack(saved.tensor.detach(), (pack_hook, unpack_hook), saved.tensor)
        finally:
            _PACKING.discard(id(saved))


_PACKING: set[int] = set()  # the saved tensors whose register_hooks is running its pack hook


def incompatible_arguments(function: str, self_param: str, args: tuple[Any, ...]) -> str:
    """pybind11's TypeError for a hook pair that is not two callables."""
    return (f"{function}(): incompatible function arguments. The following argument types "
            f"are supported:\n    1. ({self_param}arg0: collections.abc.Callable, arg1: "
            f"collections.abc.Callable) -> None\n\nInvoked with: "
            + ", ".join(_arg_repr(a) for a in args))


class saved_tensors_hooks:  # noqa: N801 - torch's name
    """`with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):`"""

    __slots__ = ("pack_hook", "unpack_hook")
    __module__ = "torch.autograd.graph"  # torch's: its repr and its instances'

    def __init__(self, pack_hook: Any, unpack_hook: Any):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if HOOKS.disabled is not None:
            raise TorchRuntimeError(HOOKS.disabled)
        if not (callable(self.pack_hook) and callable(self.unpack_hook)):
            raise TorchTypeError(incompatible_arguments(
                "_push_saved_tensors_default_hooks", "", (self.pack_hook, self.unpack_hook)))
        HOOKS.stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc: object) -> None:
        if HOOKS.stack:
            HOOKS.stack.pop()


def _arg_repr(value: Any) -> str:
    from .tensor import Tensor

    return "tensor" if isinstance(value, Tensor) else repr(value)


def pack_to_cpu(tensor: Tensor) -> tuple[Any, Tensor]:
    return (tensor.device, tensor)


def unpack_from_cpu(packed: tuple[Any, Tensor]) -> Tensor:
    return packed[1]


def pack_to_pinned_cpu(tensor: Tensor) -> tuple[Any, Tensor]:
    from .tensor import Tensor

    return (tensor.device, Tensor._wrap(tensor.array.copy()))


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - torch's name
    """`torch.autograd.graph.save_on_cpu(pin_memory=False, device_type="cuda")`: on torch's
    CPU build the tensor itself is kept (pinned memory: a copy of it)."""

    __slots__ = ()
    __module__ = "torch.autograd.graph"

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        pack_hook: Callable[..., Any] = pack_to_pinned_cpu if pin_memory else pack_to_cpu
        super().__init__(pack_hook, unpack_from_cpu)


class disable_saved_tensors_hooks:  # noqa: N801 - torch's name
    """`with torch.autograd.graph.disable_saved_tensors_hooks(error_message):` saved tensor
    hooks raise `error_message` (entering it inside hooks raises it too).

    torch makes it with `contextlib.contextmanager`: one object enters once (a second
    `with` is Python's AttributeError), and used as a decorator it enters a fresh copy of
    itself (`clone`) around every call, without using itself up."""

    __slots__ = ("error_message", "prev", "entered")
    __module__ = "torch.autograd.graph"  # (a function there in torch)
    type_name = "_GeneratorContextManager"  # what Python calls the object torch returns
    python_type_name = type_name

    def __init__(self, error_message: Any):
        self.error_message = error_message
        self.entered = False

    def __enter__(self) -> None:
        if self.entered:  # its generator's arguments are gone after the first `with`
            raise ScriptError(f"'{self.type_name}' object has no attribute 'args'",
                              kind="AttributeError")
        self.entered = True
        if not isinstance(self.error_message, str):
            raise TorchTypeError(
                "_saved_tensors_hooks_disable(): incompatible function arguments. The "
                "following argument types are supported:\n    1. (error_message: str, "
                "fail_if_non_empty: bool = True) -> None\n\nInvoked with: "
                f"{_arg_repr(self.error_message)}")
        if HOOKS.stack:
            raise TorchRuntimeError(self.error_message)
        self.prev = HOOKS.disabled
        HOOKS.disabled = self.error_message

    def __exit__(self, *exc: object) -> None:
        HOOKS.disabled = self.prev

    def clone(self) -> disable_saved_tensors_hooks:
        """The fresh manager each call of a decorated function runs in."""
        return disable_saved_tensors_hooks(self.error_message)

    def release(self) -> None:
        """Decorating enters nothing (grad-mode managers' protocol)."""

    def __repr__(self) -> str:
        return f"<contextlib.{self.type_name} object at {id(self):#x}>"
