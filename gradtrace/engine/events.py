"""What the engine tells observers as it runs (the tracer is the only one).

Call sites test `if OBSERVERS:` first, so with no observer the cost is one list check.
An observer has a method `on_<kind>` for each event kind, called with the facts as
keyword arguments. The hot call sites (an op in `Function.call`, the backward loop's
per-node events) call `observer.on_<kind>(...)` themselves instead of `emit`: `emit`'s
name lookup and keyword dict cost ~4x the call itself, ~70 times a traced training step.
Event kinds and their facts:

- ``op``: an op ran. node (the recorded Node, or None when nothing was recorded),
  name (the node class name), inputs (tensors, in next_functions order), outputs.
- ``inplace``: tensor, version (after the bump), node (its new grad_fn or None), name.
- ``grad_mode``: enabled (the new mode), function (the custom Function whose forward
  turned it off, and back on after; None for torch.no_grad() and the like), and
  inference=True when torch.inference_mode() switched it.
- ``data_write``: tensor (whose `.data` was replaced).
- ``backward_begin``: roots (edges), grads, retain_graph, create_graph, accumulate.
- ``node_begin``: node (its backward, or adding what it sent into the next nodes'
  gradient buffers, is about to run: what the engine makes until ``node`` or
  ``node_end`` is that node's).
- ``node_end``: node (done with its outputs).
- ``node``: node, grad_outputs (received), grad_inputs (sent, one per next_function).
- ``accumulate``: node (AccumulateGrad), grad (added), before (the old .grad).
- ``retain_grad``: tensor, grad (its new .grad).
- ``hook``: node, output_nr, hook, grad (before), result (what the hook returned).
- ``release``: node (its saved tensors were freed).
- ``backward_end``.

An observer also answers one question: `program_graph()`, the nodes (by id) the script
itself still reaches (an observer that keeps recorded nodes alive must not make a tensor's
use count, torch.utils.swap_tensors' check, larger than torch's).
"""
from __future__ import annotations

from typing import Any

OBSERVERS: list[Any] = []


def emit(kind: str, **facts: Any) -> None:
    method = "on_" + kind
    for observer in OBSERVERS:
        getattr(observer, method)(**facts)


class muted:  # noqa: N801 - used like a function
    """Engine work the trace does not show: gradtrace's own bookkeeping around a script's
    code (gradcheck's perturbations and jacobian assembly)."""

    __slots__ = ("saved",)

    def __enter__(self) -> None:
        self.saved = OBSERVERS[:]
        OBSERVERS.clear()

    def __exit__(self, *exc: object) -> None:
        OBSERVERS[:] = self.saved
