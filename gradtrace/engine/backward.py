"""The backward pass: torch's engine, iteratively (no recursion, any graph depth).

Like torch, nodes run in dependency order; among ready nodes the most recently
created runs first (AccumulateGrad as soon as it is ready), which fixes the order
hooks fire and trace events appear.
"""
from __future__ import annotations

import heapq
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import (
    NotSupportedError,
    ScriptError,
    TorchRuntimeError,
    TorchTypeError,
    TorchValueError,
)
from . import anomaly
from .anomaly import ANOMALY
from .dtypes import fits_int64
from .events import OBSERVERS, emit
from .grad_mode import GRAD_MODE, set_grad_enabled
from .grad_reuse import add_to_buffer
from .hooks import node_hook_result, tensor_hook_result
from .node import AccumulateGrad, Node
from .ops.creation import zeros_like
from .ops.views import sum_to
from .shapes import Size, is_expandable_to
from .tensor import Tensor, gradient_edge, type_name

Edge = tuple[Node | None, int]



def _flag(value: Any) -> bool | None:
    """retain_graph / create_graph as torch's argument parser reads them (a C++ bool from
    any integer), so only a bool or None goes further (into the trace and its JSON)."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point or value.array.size != 1:
            raise TorchTypeError(
                "only integer tensors of a single element can be converted to an index")
        return bool(value.array.item())
    if not isinstance(value, int):
        raise TorchTypeError(f"'{type_name(value)}' object cannot be interpreted as an integer")
    if not fits_int64(value):
        raise ScriptError("Python int too large to convert to C long", kind="OverflowError")
    return bool(value)


def backward(tensors: Sequence[Tensor], grad_tensors: Sequence[Any] | None = None,
             retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables: Any = None, inputs: Any = None) -> None:
    """torch.autograd.backward: accumulate gradients of `tensors` into leaves' `.grad`."""
    if grad_variables is not None:
        from .ops.creation import WARNINGS

        WARNINGS.append(
            "FutureWarning: `grad_variables` is deprecated. Use `grad_tensors` instead.")
        if grad_tensors is not None:
            raise TorchRuntimeError(
                "`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                "`backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    retain_graph, create_graph = _flag(retain_graph), bool(_flag(create_graph))
    if inputs is not None:
        inputs = ([inputs] if isinstance(inputs, Tensor) or is_gradient_edge(inputs) else
                  list(inputs.values()) if type(inputs) is dict else list(inputs))
        if not inputs:
            raise TorchRuntimeError("`inputs` argument to `backward()` cannot be empty.")
    roots, grads = _roots_and_grads(tensors, grad_tensors, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    targets = None if inputs is None else [_edge(t) for t in inputs]
    for t in inputs or ():
        if isinstance(t, Tensor) and t.grad_fn is not None:
            t.retain_grad()  # torch: a non-leaf input gets its .grad through retain_grad
    if create_graph:
        from .ops.creation import WARNINGS, PlacedWarning

        WARNINGS.append(PlacedWarning(CREATE_GRAPH_WARNING, *RUN_BACKWARD_PLACE))
    _run(roots, grads, retain_graph, create_graph, targets, accumulate=True, inputs=inputs)


# the engine's warning for backward(create_graph=True) (engine.cpp:1307), which Python
# attributes to the run_backward call in torch 2.13's torch/autograd/graph.py (measured): so
# shown once per run under the default filter, whichever script line called backward()
CREATE_GRAPH_WARNING = (
    "UserWarning: Using backward() with create_graph=True will create a reference cycle "
    "between the parameter and its gradient which can cause a memory leak. We recommend "
    "using autograd.grad when creating the graph to avoid this. If you have to use this "
    "function, make sure to reset the .grad fields of your parameters to None after use to "
    "break the cycle and avoid the leak. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)")
RUN_BACKWARD_PLACE = ("torch.autograd.graph", 979)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> Any:
    """torch.autograd.grad: the gradients of `outputs` with respect to `inputs`, nothing stored.

    `is_grads_batched`: torch vmaps the backward over the first dimension of each
    grad_output; here it runs once per batch entry and stacks the results (the same
    numbers; hooks see one entry at a time). With create_graph, gradients that need no graph
    (nothing in the backward requires grad) are torch's plain tensors; ones that do are
    refused, because the recorded vmapped graph would not be torch's.
    """
    if materialize_grads and allow_unused is False:
        raise TorchValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False.")
    retain_graph, create_graph = _flag(retain_graph), bool(_flag(create_graph))
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = ([outputs] if isinstance(outputs, Tensor) or is_gradient_edge(outputs)
               else list(outputs))
    keys = list(inputs) if type(inputs) is dict else None
    inputs = ([inputs] if isinstance(inputs, Tensor) or is_gradient_edge(inputs) else
              list(inputs.values()) if keys is not None else list(inputs))
    if not inputs:
        raise TorchRuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        from .ops.creation import WARNINGS

        WARNINGS.append(ONLY_INPUTS_WARNING)
    if grad_outputs is not None:
        grad_outputs = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        result = _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                               allow_unused)
    else:
        result = _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)
    if materialize_grads:
        if any(g is None and not isinstance(t, Tensor) for g, t in zip(result, inputs)):
            raise TorchRuntimeError(
                "materialize_grads cannot be used when the given input is a GradientEdge")
        result = [g if g is not None else zeros_like(t, requires_grad=create_graph)
                  for g, t in zip(result, inputs)]
    if keys is not None:
        return dict(zip(keys, result))
    return tuple(result)


ONLY_INPUTS_WARNING = (
    "FutureWarning: only_inputs argument is deprecated and is ignored now (defaults to True). "
    "To accumulate gradient for other parts of the graph, please use torch.autograd.backward.")


def _grad(outputs: list[Any], inputs: list[Tensor], grad_outputs: list[Any] | None,
          retain_graph: bool, create_graph: bool, allow_unused: bool) -> list[Tensor | None]:
    """One run of the engine that captures the gradients reaching `inputs`."""
    roots, grads = _roots_and_grads(outputs, grad_outputs, create_graph)
    for t in inputs:  # the engine checks the inputs after the outputs
        if is_gradient_edge(t):
            continue
        if not isinstance(t, Tensor):
            raise TorchRuntimeError(
                f"all inputs have to be Tensors or GradientEdges, but got {type_name(t)}")
        if not t.requires_grad:
            raise TorchRuntimeError("One of the differentiated Tensors does not require grad")
    targets = [_edge(t) for t in inputs]
    captured = _run(roots, grads, retain_graph, create_graph, targets, accumulate=False)
    if not allow_unused:
        for i, g in enumerate(captured):
            if g is None:
                raise TorchRuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
    return captured


def _batched_grad(outputs: list[Any], inputs: list[Tensor], grad_outputs: list[Any] | None,
                  retain_graph: bool, create_graph: bool,
                  allow_unused: bool) -> list[Tensor | None]:
    if grad_outputs is None or any(not isinstance(g, Tensor) for g in grad_outputs):
        raise NotSupportedError(
            "is_grads_batched=True needs a batched Tensor in grad_outputs for every output")
    sizes = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, Tensor) and not is_gradient_edge(out):
            raise ScriptError(NOT_A_TENSOR_OUTPUT, kind="AssertionError")
        if not isinstance(out, Tensor) or g.ndim == 0 or g.shape[1:] != out.shape:
            shape = Size(g.shape[2:])  # (sic: torch drops one dimension too many here)
            raise TorchRuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {shape!r} and output[{i}] has a "
                f"shape of {Size(out.shape)!r}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap.")
        sizes.append(g.shape[0])
    if len(set(sizes)) > 1:
        raise TorchValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension")
    rows = []
    for b in range(sizes[0]):
        last = b == sizes[0] - 1
        rows.append(_grad(outputs, inputs, [g[b] for g in grad_outputs],
                          retain_graph or not last, create_graph, allow_unused))
    if create_graph and any(g is not None and g.requires_grad for row in rows for g in row):
        raise NotSupportedError(
            "torch.autograd.grad(..., is_grads_batched=True, create_graph=True) whose "
            "gradients need a graph is not supported: torch records one vmapped backward, "
            "which gradtrace cannot reproduce")
    result: list[Tensor | None] = []
    for i in range(len(inputs)):
        column = [row[i] for row in rows]
        if any(g is None for g in column):
            result.append(None)
        else:
            result.append(Tensor._wrap(np.stack([g.array for g in column])))
    return result


def _roots_and_grads(tensors: Sequence[Any], grad_tensors: Sequence[Any] | None,
                     create_graph: bool) -> tuple[list[Edge], list[Tensor]]:
    """torch's _make_grads over (output, gradient) pairs (zip: extra gradients are dropped),
    then the engine's checks: as many gradients as outputs, each output requiring grad."""
    tensors = ([tensors] if isinstance(tensors, Tensor) or is_gradient_edge(tensors)
               else list(tensors))
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    elif isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors]
    grads = [_made_grad(t, g, i)
             for i, (t, g) in enumerate(zip(tensors, grad_tensors))]
    if len(grads) != len(tensors):
        raise TorchRuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    roots = []
    for i, t in enumerate(tensors):
        if not is_gradient_edge(t) and not t.requires_grad:
            raise TorchRuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append((t.node, t.output_nr) if is_gradient_edge(t) else gradient_edge(t))
    return roots, grads


NOT_A_TENSOR_OUTPUT = "Expected output to be a torch.Tensor"


def _made_grad(t: Any, g: Any, i: int) -> Any:
    """_make_grads for one output: the given gradient checked against it, or ones for a
    scalar that requires grad (None for one that does not: the engine refuses it next)."""
    if is_gradient_edge(t):
        return _edge_grad(t, g, i)
    if not isinstance(t, Tensor):  # (torch 2.13's _make_grads, before any gradient check)
        raise ScriptError(NOT_A_TENSOR_OUTPUT, kind="AssertionError")
    if g is None:
        if not t.requires_grad:
            return None
        if t.array.size != 1:
            raise TorchRuntimeError("grad can be implicitly created only for scalar outputs")
        if not t.dtype.is_floating_point:
            raise TorchRuntimeError(
                "grad can be implicitly created only for real scalar outputs but got "
                f"{t.dtype!r}")
        return Tensor._wrap(np.ones_like(t.array))
    if not isinstance(g, Tensor):
        g = Tensor(np.asarray(g, dtype=t.dtype.np))
    if g.shape != t.shape:
        raise TorchRuntimeError(
            f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g.shape)!r} and "
            f"output[{i}] has a shape of {Size(t.shape)!r}.")
    return g


def _edge_grad(edge: Any, g: Any, i: int) -> Tensor:
    """The gradient flowing into a GradientEdge output: given, or ones for a scalar."""
    shape, dtype = edge.node.output_meta[edge.output_nr]
    if g is None:
        if any(n != 1 for n in shape):
            raise TorchRuntimeError("grad can be implicitly created only for scalar outputs")
        if not dtype.is_floating_point:
            raise TorchRuntimeError("grad can be implicitly created only for real scalar "
                                    f"outputs but got {dtype!r}")
        return Tensor._wrap(np.ones(shape, dtype=dtype.np))
    if not isinstance(g, Tensor):
        g = Tensor(np.asarray(g, dtype=dtype.np))
    if g.shape != shape:
        raise TorchRuntimeError(
            f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g.shape)!r} and "
            f"output[{i}] has a shape of {Size(shape)!r}.")
    return g


def _dependencies(roots: list[Edge]) -> dict[Node, int]:
    """How many edges point at each node reachable from the roots."""
    deps: dict[Node, int] = {}
    seen = set()
    stack = []
    for node, _ in roots:
        if node is not None and node not in seen:
            seen.add(node)
            stack.append(node)
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps


def _needed(roots: list[Edge], targets: list[Edge], accumulate: bool = True) -> set[Node]:
    """Nodes that run (torch's exec_info `needed_`): those on a path from the roots to a
    target edge. autograd.grad only captures what reaches a target: its node runs only
    when a target lies beyond it."""
    target_nodes = {node for node, _ in targets if node is not None}
    needed: set[Node] = set()
    state: dict[Node, int] = {}  # 1 = on the stack, 2 = finished
    for root, _ in roots:
        if root is None or root in state:
            continue
        stack = [(root, iter(root.next_functions))]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            advanced = False
            for child, _ in children:
                if child is not None and child not in state:
                    state[child] = 1
                    stack.append((child, iter(child.next_functions)))
                    advanced = True
                    break
            if advanced:
                continue
            stack.pop()
            state[node] = 2
            if accumulate and node in target_nodes or any(
                    c in needed or c in target_nodes
                    for c, _ in node.next_functions if c is not None):
                needed.add(node)
    return needed


def _accumulate(buffer: list[Tensor | None], index: int, grad: Tensor) -> None:
    old = buffer[index]
    buffer[index] = grad if old is None else old + grad


def _validate(node: Node, grads: tuple[Tensor | None, ...]) -> tuple[Tensor | None, ...]:
    """torch's validate_outputs: no gradient for an input that needs none (a formula may
    compute one anyway; torch's skips it, and post-hooks see None), and each gradient
    reduced to its input's shape and cast to its dtype."""
    for g, edge, meta in zip(grads, node.next_functions, node.input_meta):
        if g is not None and (edge[0] is None or g.dtype is not meta[1]
                              or g.array.shape != meta[0]):
            break
    else:
        return grads  # the common case, checked without building anything
    out: list[Tensor | None] | None = None
    for i, (g, (nxt, _), meta) in enumerate(zip(grads, node.next_functions, node.input_meta)):
        if g is None:
            continue
        if nxt is None:
            if out is None:
                out = list(grads)
            out[i] = None
            continue
        array = g.array
        shape, dtype = meta
        if array.shape == shape and g.dtype is dtype:
            continue
        if array.shape != shape:
            if not is_expandable_to(shape, array.shape):
                raise TorchRuntimeError(
                    f"Function {node.name()} returned an invalid gradient at index {i} - got "
                    f"{list(array.shape)} but expected shape compatible with {list(shape)}")
            g = sum_to(g, shape)
        if g.dtype is not dtype:
            g = g.to(dtype)
        if out is None:
            out = list(grads)
        out[i] = g
    return grads if out is None else tuple(out)


# Whether each running backward (innermost last) was asked for all gradients: torch's
# graph task's `checkpoint_valid`, false under autograd.grad or backward(inputs=...),
# where a reentrant torch.utils.checkpoint cannot work.
CHECKPOINT_VALID: list[bool] = []


def is_checkpoint_valid() -> bool:
    """torch.autograd._is_checkpoint_valid(): True outside a backward."""
    return CHECKPOINT_VALID[-1] if CHECKPOINT_VALID else True


# The running graph tasks (innermost last): (id, nodes in the graph, nodes that will run
# or capture when `inputs` were given, else None), for torch._C._current_graph_task_id and
# _will_engine_execute_node (what register_multi_grad_hook asks).
TASKS: list[tuple[int, set[Node], set[Node] | None, bool]] = []
_TASK_IDS = [0]

# The classes torch.autograd.graph.GradientEdge is in each run (a library namedtuple).
GRADIENT_EDGE_TYPES: weakref.WeakSet = weakref.WeakSet()


def is_gradient_edge(value: Any) -> bool:
    return type(value) in GRADIENT_EDGE_TYPES


def current_graph_task_id() -> int:
    """torch._C._current_graph_task_id(): -1 outside a backward."""
    return TASKS[-1][0] if TASKS else -1


def will_engine_execute_node(node: Any) -> bool:
    """torch._C._will_engine_execute_node: whether the running backward runs `node`."""
    if not TASKS:
        raise TorchRuntimeError(
            "_will_engine_execute_node should only be called during the backward pass")
    if not isinstance(node, Node):
        raise TorchRuntimeError(
            "_will_engine_execute_node expects an grad_fn, but got a non-grad_fn object")
    _, in_graph, needed, accumulate = TASKS[-1]
    if not accumulate and isinstance(node, AccumulateGrad):
        raise TorchRuntimeError(
            "A leaf node was passed to _will_engine_execute_node but we are currently "
            "running autograd.grad(). This is currently not supported.")
    return node in (in_graph if needed is None else needed)


def _edge(value: Any) -> Edge:
    """Where a gradient goes: a tensor's edge, or a GradientEdge's own."""
    if is_gradient_edge(value):
        return (value.node, value.output_nr)
    return gradient_edge(value)


def _run(roots: list[Edge], grads: list[Tensor], retain_graph: bool, create_graph: bool,
         targets: list[Edge] | None, accumulate: bool,
         inputs: list[Tensor] | None = None) -> list[Tensor | None]:
    deps = _dependencies(roots)
    needed = None if targets is None else _needed(roots, targets, accumulate)
    # autograd.grad captures what arrives at each target edge instead of accumulating
    capture: dict[tuple[Node, int], list[int]] = {}
    captured: list[Tensor | None] = []
    if targets is not None and not accumulate:
        for i, (node, nr) in enumerate(targets):
            capture.setdefault((node, nr), []).append(i)
            captured.append(None)
    target_nodes = {node for node, _ in targets} if targets is not None else set()

    buffers: dict[Node, list[Tensor | None]] = {}
    ready: list[tuple[int, int, Node]] = []
    for (node, nr), g in zip(roots, grads):
        if node is None:
            continue
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * max(1, len(node.output_meta))
        _accumulate(buf, nr, g)
    for order, node in enumerate(buffers):
        if deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node.sequence_nr, order, node))

    if OBSERVERS:
        emit("backward_begin", roots=roots, grads=grads, retain_graph=retain_graph,
             create_graph=create_graph, accumulate=accumulate)
    parent = ANOMALY.evaluating
    CHECKPOINT_VALID.append(targets is None)
    _TASK_IDS[0] += 1
    TASKS.append((_TASK_IDS[0], set(deps) | set(buffers),
                  None if needed is None else needed | target_nodes, accumulate))
    try:
        with set_grad_enabled(create_graph):
            _execute(ready, buffers, deps, needed, capture, captured, targets, target_nodes,
                     accumulate, inputs, retain_graph)
    finally:
        CHECKPOINT_VALID.pop()
        TASKS.pop()
        ANOMALY.evaluating = parent
        if OBSERVERS:
            emit("backward_end")
    return captured


def _execute(ready: list, buffers: dict, deps: dict, needed: set | None, capture: dict,
             captured: list, targets: list | None, target_nodes: set, accumulate: bool,
             inputs: list | None, retain_graph: bool) -> None:
    """Run ready nodes until none is left; with anomaly detection on, an error in a node
    first warns with the forward traceback of the node that raised (torch's engine)."""
    try:
        _loop(ready, buffers, deps, needed, capture, captured, targets, target_nodes,
              accumulate, inputs, retain_graph)
    except ScriptError:
        if ANOMALY.enabled and ANOMALY.evaluating is not None:
            anomaly.warn_error(ANOMALY.evaluating)
        raise


def _loop(ready: list, buffers: dict, deps: dict, needed: set | None, capture: dict,
          captured: list, targets: list | None, target_nodes: set, accumulate: bool,
          inputs: list | None, retain_graph: bool) -> None:
    """Run ready nodes until none is left (the engine's main loop)."""
    order = len(ready)
    pop, push = heapq.heappop, heapq.heappush
    while ready:
        node = pop(ready)[2]
        ANOMALY.evaluating = node
        buf = buffers.pop(node)
        is_sink = type(node) is AccumulateGrad
        if (node.tensor_pre_hooks or node.retains_grad_hooks or node.pre_hooks
                or is_sink and node.variable._hooks):
            buf = _call_pre_hooks(node, buf)
        if capture:
            for nr, g in enumerate(buf):
                for i in capture.get((node, nr), ()):
                    captured[i] = g
        if needed is not None and node not in needed:
            continue
        if is_sink:
            if not accumulate or (targets is not None and node not in target_nodes):
                continue
            before = node.variable.grad
            if OBSERVERS:
                if before is not None:
                    before = before.detach_copy()  # apply may add into it in place
                for observer in OBSERVERS:
                    observer.on_node_begin(node=node)
            node.apply(buf)
            if OBSERVERS:
                for observer in OBSERVERS:
                    observer.on_accumulate(node=node, grad=buf[0], before=before)
            post = node.variable._post_accumulate_hooks
            if post and buf[0] is not None:
                for hook in list(post):  # torch passes the tensor; a result is not used
                    tensor_hook_result(hook, node.variable, hook(node.variable))
            if node.hooks:
                _call_post_hooks(node, (), buf)
            continue
        if OBSERVERS:  # (emit's work inline in this loop: ~5 events a node)
            for observer in OBSERVERS:
                observer.on_node_begin(node=node)
        grads_in = _validate(node, node.apply(buf))
        if needed is not None:
            grads_in = _unwanted_dropped(node, grads_in, needed, target_nodes)
        if OBSERVERS:
            for observer in OBSERVERS:
                observer.on_node(node=node, grad_outputs=buf, grad_inputs=grads_in)
        if not retain_graph and (node.saved is not None or node.saved_lists):
            node.release()
            if OBSERVERS:
                for observer in OBSERVERS:
                    observer.on_release(node=node)
        if node.hooks:
            grads_in = _call_post_hooks(node, grads_in, buf)
        if ANOMALY.enabled and ANOMALY.check_nan:
            anomaly.check_nan(node, grads_in)
        if OBSERVERS:  # adding into the next nodes' buffers is this node's work too
            for observer in OBSERVERS:
                observer.on_node_begin(node=node)
        # Like torch, the node's inputs are gone now and each output is moved into its
        # buffer, so reference counts say which gradients may be added to in place.
        buf = None
        grads_in = list(grads_in)
        n_out = len(grads_in)
        for i, (nxt, nr) in enumerate(node.next_functions):
            if nxt is None:
                continue
            nbuf = buffers.get(nxt)
            if nbuf is None:
                nbuf = buffers[nxt] = [None] * (len(nxt.output_meta) or 1)
            if i < n_out and grads_in[i] is not None:
                if nbuf[nr] is None:
                    nbuf[nr] = grads_in[i]
                    grads_in[i] = None
                else:
                    g = grads_in[i]
                    grads_in[i] = None
                    add_to_buffer(nbuf, nr, g)
                    g = None
            left = deps[nxt] - 1
            deps[nxt] = left
            if left == 0:
                push(ready, (-nxt.sequence_nr, order, nxt))
                order += 1
        if OBSERVERS:
            for observer in OBSERVERS:
                observer.on_node_end(node=node)


def _unwanted_dropped(node: Node, grads: Sequence[Tensor | None], needed: set,
                      target_nodes: set) -> Sequence[Tensor | None]:
    """No gradient toward a node this backward neither runs nor captures: torch's
    formulas do not compute it (should_compute_output), so hooks there see none."""
    out = None
    for i, (nxt, _) in enumerate(node.next_functions):
        if (i < len(grads) and grads[i] is not None and nxt is not None
                and nxt not in needed and nxt not in target_nodes):
            if out is None:
                out = list(grads)
            out[i] = None
    return grads if out is None else tuple(out)


def _call_pre_hooks(node: Node, buf: list[Tensor | None]) -> list[Tensor | None]:
    """Tensor hooks, retain_grad, then the node's own pre-hooks, in torch's order."""
    if isinstance(node, AccumulateGrad):
        hooks = node.variable._hooks
        if hooks and buf[0] is not None:
            for hook in list(hooks):
                new = tensor_hook_result(hook, buf[0], hook(buf[0]))
                if OBSERVERS:
                    emit("hook", node=node, output_nr=0, hook=hook, grad=buf[0], result=new)
                if new is not None:
                    buf[0] = new
    if node.tensor_pre_hooks:
        for nr, hooks in node.tensor_pre_hooks.items():
            for hook in list(hooks):
                if buf[nr] is None:
                    continue
                new = tensor_hook_result(hook, buf[nr], hook(buf[nr]))
                if OBSERVERS:
                    emit("hook", node=node, output_nr=nr, hook=hook, grad=buf[nr], result=new)
                if new is not None:
                    buf[nr] = new
    if node.retains_grad_hooks:
        for nr, ref in node.retains_grad_hooks.items():
            t = ref()
            g = buf[nr]
            if t is None or g is None or t.grad_fn is not node:
                continue
            if t.grad is None:  # torch: grad.clone() (CloneBackward0 under create_graph)
                t.grad = g.clone() if GRAD_MODE.enabled else g.detach_copy()
            else:
                t.grad = t.grad + g
            if OBSERVERS:
                emit("retain_grad", tensor=t, grad=t.grad)
    if node.pre_hooks:
        for hook in list(node.pre_hooks):
            new = node_hook_result(hook, buf, hook(tuple(buf)))
            if new is not None:
                buf = new
    return buf


def _call_post_hooks(node: Node, grads_in: Sequence[Tensor | None],
                     grads_out: Sequence[Tensor | None]) -> Sequence[Tensor | None]:
    """The node's post-hooks; a hook may return replacement gradients for its inputs."""
    if node.hooks:
        for hook in list(node.hooks):
            new = node_hook_result(hook, grads_in, hook(tuple(grads_in), tuple(grads_out)))
            if new is not None:
                grads_in = new
    return grads_in
