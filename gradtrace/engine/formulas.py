"""Each op's derivative as data, beside its backward: what `gradtrace explain` shows.

torch keeps every op's derivative in `derivatives.yaml`, next to its kernels. gradtrace
keeps it on the op's node class: `Function.formulas` holds one `Formula` per input, in
next_functions order, and the numbers come from the op's own `backward` (`replay`), so
the views never carry a second copy of the math.

The convention every op follows (a test checks it for every Function subclass):

- `formulas` is a tuple on the class, one entry per input, named as torch names the
  argument (`self`, `other`, `exponent`, `mat2`, `grad_output`, ...).
- `local(input, math)`: the derivative of the result with respect to that input, element
  by element (∂result/∂input). The gradient sent is `grad × math`, broadcast as numpy
  broadcasts, then summed over the dimensions the input was broadcast along. Use it for
  elementwise ops, and for reductions to a single value (sum, mean, a loss).
- `vjp(input, math)`: the gradient sent to that input, as an expression of the incoming
  `{grad}` (a vector-Jacobian product, as derivatives.yaml writes it). Use it when the
  gradient moves values around (matmul, views, indexing, reductions over a dim).
- `each(input, math)`: one `vjp` for every input of a variadic op (cat, stack); `{i}` is
  the input's position.
- `undefined(input)`: torch has no derivative for it (backward raises).
- `math` is language-neutral: math and PyTorch notation, never English words. Operands in
  braces are filled in by the views: `{grad}` (the gradient the node received; the list
  of them for a multi-output node), `{result}` (its output), each input by its name,
  each saved tensor by its `_saved_` name, and each saved attribute (`{alpha}`, `{dim}`).
- `when=(("reduction", 1),)` makes a formula apply only when the node's attributes have
  those values (a saved tensor's name with `None` means: that slot is empty); the first
  formula of an input whose conditions hold is the one shown. `when=(COMPLEX,)`: the node
  computed in a complex dtype (an input or its result complex), where torch's formulas
  take conjugates (conjugate Wirtinger calculus).

`replay(node, grads, saved)` runs the node's own backward on given numpy values (the
values as they were saved, or ones to get the local derivative) and returns numpy arrays.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .node import Node

LOCAL, VJP, UNDEFINED = "local", "vjp", "undefined"
_OPERAND = re.compile(r"{(\w+)}")


@dataclass(frozen=True)
class Formula:
    """The derivative of an op's result with respect to one input (see the module doc)."""

    input: str
    math: str
    kind: str = LOCAL  # local | vjp | undefined
    each: bool = False  # one formula for every input (variadic ops)
    when: tuple[tuple[str, Any], ...] = ()

    @property
    def operands(self) -> tuple[str, ...]:
        """The names in braces, in order of first use."""
        return tuple(dict.fromkeys(_OPERAND.findall(self.math)))

    def holds(self, node: Node) -> bool:
        """Whether the formula's conditions hold for this recorded node."""
        attrs = node.attrs or {}
        saved = node.saved or {}
        for name, expected in self.when:
            if name == _COMPLEX_KEY:
                if _computes_in_complex(node) != expected:
                    return False
            elif name in attrs:
                if attrs[name] != expected:
                    return False
            elif expected is None:
                if name in saved and saved[name] is not None:
                    return False
            elif expected is PRESENT:
                if saved.get(name) is None:
                    return False
            else:
                return False
        return True


class _Present:
    def __repr__(self) -> str:
        return "PRESENT"


PRESENT = _Present()  # `when` value: the saved tensor of that name is there

_COMPLEX_KEY = "(complex)"  # (not a name any node saves)
COMPLEX = (_COMPLEX_KEY, True)  # `when` entry: the node computed in a complex dtype


def _computes_in_complex(node: Node) -> bool:
    return any(meta is not None and meta[1].is_complex
               for meta in (*node.input_meta, *node.output_meta))


def local(input: str, math: str, *, when: tuple[tuple[str, Any], ...] = ()) -> Formula:  # noqa: A002
    """∂result/∂input element by element; the gradient sent is grad × math (see above)."""
    return Formula(input, math, LOCAL, when=when)


def vjp(input: str, math: str, *, when: tuple[tuple[str, Any], ...] = ()) -> Formula:  # noqa: A002
    """The gradient sent to `input`, as an expression of `{grad}`."""
    return Formula(input, math, VJP, when=when)


def each(input: str, math: str) -> Formula:  # noqa: A002
    """The gradient sent to every input of a variadic op; `{i}` is the input's position."""
    return Formula(input, math, VJP, each=True)


def undefined(input: str, *, each: bool = False) -> Formula:  # noqa: A002
    """No derivative: torch's backward raises for this input."""
    return Formula(input, "", UNDEFINED, each=each)


def formulas_of(node: Node) -> list[Formula | None]:
    """The formula shown for each of a recorded node's inputs (next_functions order).

    A variadic formula serves every input from its position on; an input with no formula
    whose conditions hold gets None (a test makes sure that never happens).
    """
    table = getattr(type(node), "formulas", ())
    names = list(dict.fromkeys(f.input for f in table))
    variadic = next((f for f in table if f.each), None)
    out: list[Formula | None] = []
    for i in range(len(node.next_functions)):
        if i >= len(names):
            out.append(variadic)
            continue
        out.append(next((f for f in table if f.input == names[i] and f.holds(node)), None))
    return out


def input_name(formula: Formula | None, index: int) -> str | None:
    """How the formula names input `index`: `self`, or `tensors[2]` for a variadic op."""
    if formula is None:
        return None
    return f"{formula.input}[{index}]" if formula.each else formula.input


# -- replay: the op's own backward on given values --------------------------------------


def _slots(cls: type) -> list[str]:
    names = []
    for klass in cls.__mro__:
        for name in klass.__dict__.get("__slots__", ()):
            if name != "__weakref__" and name not in names:
                names.append(name)
    return names


class ReplayError(Exception):
    """The node's backward could not run on the given values (a summarised value, a
    freed inner node, an op without a derivative)."""


def replay(node: Node, grads: list[np.ndarray | None], saved: dict[str, Any], *,
           reduce: bool = True, create_graph: bool = False) -> list[np.ndarray | None]:
    """What `node`'s backward sends for `grads`, with its saved tensors replaced by `saved`.

    A copy of the node runs with no observer, so nothing is traced, and with grad mode as
    the backward had it (`create_graph`): some backwards pick their kernel by grad mode,
    as torch's derivatives.yaml does (group_norm's), and the nodes a create_graph replay
    records are dropped with it. `reduce` sums each gradient to its input's shape and
    dtype as the engine does after a node ran; without it, an elementwise op gives its
    gradient in the output's shape (with ones as `grads`: the local derivative at each
    element).
    Raises ReplayError when it cannot run.
    """
    from . import events
    from .backward import _validate
    from .grad_mode import set_grad_enabled
    from .node import SavedTensor
    from .tensor import Tensor

    copy = object.__new__(type(node))
    for name in _slots(type(node)):
        if hasattr(node, name):
            setattr(copy, name, getattr(node, name))
    copy.released = False
    copy.pre_hooks = copy.hooks = copy.tensor_pre_hooks = copy.retains_grad_hooks = None
    observers = events.OBSERVERS[:]
    events.OBSERVERS.clear()
    try:
        # Wrapping counts against the run's memory limit: a replay too big for it is one
        # explain cannot show, not a crash.
        if node.saved is not None:
            copy.saved = {}
            for key in node.saved:
                value = saved.get(key)
                if value is not None and not isinstance(value, np.ndarray):
                    raise ReplayError(f"saved {key} is not an array")
                copy.saved[key] = None if value is None else SavedTensor(
                    Tensor._wrap(np.array(value)), False)
        inputs = [None if g is None else Tensor._wrap(np.array(g)) for g in grads]
        with set_grad_enabled(create_graph):
            sent = copy.apply(inputs)
            if reduce:
                sent = _validate(copy, tuple(sent))
    except Exception as err:  # a backward that raises (NotImplemented, freed inner node)
        raise ReplayError(str(err)) from err
    finally:
        events.OBSERVERS[:] = observers
    return [None if g is None else g.array for g in sent]
