"""torch.func's C++ side for lib/torch/_functorch/apis.gt: vmap levels (torch._C._functorch's
_vmap_increment_nesting, _add_batch_dim, _remove_batch_dim) and what a grad transform
inside vmap needs to run the engine's autograd on the physical tensors."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine import levels, ops
from ..engine.batching import TRANSFORMS, BatchedTensor, call, physical
from ..engine.grad_mode import no_grad
from ..engine.shapes import wrap_dim
from ..engine.tensor import Tensor
from .library import intrinsic

if TYPE_CHECKING:
    from .core import Interpreter


@intrinsic
def vmap_enter(interp: Interpreter, batch_size: int, randomness: str) -> int:
    """A vmap level starts: its level number (shared with grad transforms, as torch's)."""
    from ..engine.batching import install_operators

    if not TRANSFORMS.vmaps:
        install_operators()
    return TRANSFORMS.push_vmap(batch_size, randomness)


@intrinsic
def vmap_exit(interp: Interpreter) -> None:
    TRANSFORMS.pop_vmap()


@intrinsic
def transform_enter(interp: Interpreter) -> None:
    """A grad-like transform starts: it takes a level number, as in torch."""
    TRANSFORMS.depth += 1


@intrinsic
def transform_exit(interp: Interpreter) -> None:
    TRANSFORMS.depth -= 1


@intrinsic
def vmap_active(interp: Interpreter) -> bool:
    return bool(TRANSFORMS.vmaps)


@intrinsic
def add_batch_dim(interp: Interpreter, t: Tensor, bdim: int, level: int) -> BatchedTensor:
    return BatchedTensor(t, wrap_dim(bdim, t.ndim), level)


@intrinsic
def is_batched_at(interp: Interpreter, t: Any, level: int) -> bool:
    return isinstance(t, BatchedTensor) and t.level == level


@intrinsic
def remove_batch_dim(interp: Interpreter, t: Tensor, level: int, batch_size: int,
                     out_dim: int) -> Tensor:
    """The tensor with vmap `level`'s batch dim at `out_dim` (expanded when the function's
    result did not depend on it)."""
    if isinstance(t, BatchedTensor) and t.level == level:
        out = wrap_dim(out_dim, t.value.ndim)
        if out == t.bdim:
            return t.value
        return call(ops.movedim, t.value, t.bdim, out)
    out = wrap_dim(out_dim, t.ndim + 1)
    shape = list(t.shape)
    shape.insert(out, batch_size)
    # torch's _remove_batch_dim: self.expand(sizes), no unsqueeze (so an out_dim other than
    # 0 fails with expand's error unless the sizes happen to line up)
    return call(ops.expand, t, tuple(shape))


@intrinsic
def batch_all(interp: Interpreter, t: Tensor) -> Tensor:
    """`t` batched at every running vmap level (expanded at those it is not batched at): a
    grad transform inside vmap differentiates per example."""
    levels = [v for v in TRANSFORMS.vmaps]
    have = set()
    u = t
    while isinstance(u, BatchedTensor):
        have.add(u.level)
        u = u.value
    for v in levels:
        if v.level in have:
            continue
        t = _insert_level(t, v.level, v.batch_size)
    return t


def _insert_level(t: Tensor, level: int, size: int) -> Tensor:
    """Add vmap level `level` (not yet in `t`) at its place in the nesting, by expansion."""
    if isinstance(t, BatchedTensor) and t.level > level:
        return BatchedTensor(_insert_level(t.value, level, size), t.bdim, t.level)
    expanded = call(ops.expand, call(ops.unsqueeze, t, 0), (size, *t.shape))
    return BatchedTensor(expanded, 0, level, expanded=True)


def _dim_labels(spec: list[tuple[int, int, bool]], physical_ndim: int) -> list[Any]:
    """What each physical dim of a tensor with batch levels `spec` (outside in) is: a
    logical dim's index, or ("level", n)."""
    labels: list[Any] = list(range(physical_ndim - len(spec)))
    for bdim, level, _ in spec:
        labels.insert(bdim, ("level", level))
    return labels


@intrinsic
def physical_like(interp: Interpreter, v: Tensor, like: Tensor,
                  spec: list[tuple[int, int, bool]]) -> Tensor:
    """A cotangent `v` of a batched output's logical shape (batched at none or some of its
    levels `spec`) laid out as the output's physical tensor `like`: every example of a level
    `v` is not batched at gets the same cotangent."""
    have = set()
    u = v
    while isinstance(u, BatchedTensor):
        have.add(u.level)
        u = u.value
    for _, level, _ in spec:
        if level not in have:
            v = _insert_level(v, level, TRANSFORMS.batch_size(level))
    p, v_spec = unwrap_batched(interp, v)
    order = _dim_labels(v_spec, p.ndim)
    perm = tuple(order.index(label) for label in _dim_labels(spec, like.ndim))
    if perm != tuple(range(len(perm))):
        p = call(ops.permute, p, perm)
    return p


@intrinsic
def transform_levels(interp: Interpreter) -> list[tuple[int, str, int, str]]:
    """The running functorch transforms from the innermost out, as torch's interpreter
    stack: (level, "vmap" or "grad", a vmap's batch size and randomness)."""
    vmaps = {v.level: v for v in TRANSFORMS.vmaps}
    return [(d, "vmap", vmaps[d].batch_size, vmaps[d].randomness) if d in vmaps
            else (d, "grad", 0, "") for d in range(TRANSFORMS.depth, 0, -1)]


@intrinsic
def unwrap_at(interp: Interpreter, t: Any, level: int) -> tuple[Any, int | None]:
    """functorch's unwrap_batched of one operand at `level`: (its value, its batch dim),
    or (it, None) when it is not batched there."""
    if isinstance(t, BatchedTensor) and t.level == level:
        return t.value, t.bdim
    return t, None


@intrinsic
def top_vmap_level(interp: Interpreter) -> int:
    """The innermost running vmap's level (0 outside vmap)."""
    return TRANSFORMS.vmaps[-1].level if TRANSFORMS.vmaps else 0


@intrinsic
def batched_level(interp: Interpreter, tree: Any) -> int:
    """The highest vmap level a tensor of `tree` (tuples, lists, dicts) is batched at."""
    return _top_level(tree)


@intrinsic
def unwrap_batched(interp: Interpreter, t: Any) -> tuple[Any, list[tuple[int, int, bool]]]:
    """(the plain tensor under `t`, its levels from the outside in as (bdim, level,
    expanded))."""
    spec = []
    while isinstance(t, BatchedTensor):
        spec.append((t.bdim, t.level, t.expanded))
        t = t.value
    return t, spec


@intrinsic
def rewrap(interp: Interpreter, t: Any, spec: list[tuple[int, int, bool]],
           keep_expanded: bool = True) -> Any:
    """unwrap_batched's inverse (a gradient is never an expansion: keep_expanded=False)."""
    if not isinstance(t, Tensor):
        return t
    entry = levels.entry_of(t) if len(spec) == 1 and keep_expanded else None
    for bdim, level, expanded in reversed(spec):
        # (an expanded level input stands for its original: ops on it alone run unbatched)
        t = BatchedTensor(t, bdim, level, expanded and keep_expanded,
                          entry.original if entry is not None and expanded else None)
    return t


@intrinsic
def unshadowed(interp: Interpreter, t: Any) -> Any:
    """The unbatched tensor a batched result stands for (batching/dispatch.shadowed), else
    `t`."""
    if isinstance(t, BatchedTensor) and t.shadow is not None:
        return t.shadow
    return t


@intrinsic
def has_batched_args(interp: Interpreter, args: Any) -> bool:
    """Whether a BatchedTensor is among `args` (one level of tuples, lists, dicts deep)."""
    for a in args:
        if isinstance(a, BatchedTensor):
            return True
        items = a.values() if isinstance(a, dict) else a if isinstance(a, (list, tuple)) \
            else ()
        if any(isinstance(b, BatchedTensor) for b in items):
            return True
    return False


def _slice(tree: Any, level: int, i: int) -> Any:
    if isinstance(tree, BatchedTensor) and tree.level == level:
        return call(ops.select, tree.value, tree.bdim, i)
    if isinstance(tree, dict):
        return {k: _slice(v, level, i) for k, v in tree.items()}
    if type(tree) in (list, tuple):
        return type(tree)(_slice(v, level, i) for v in tree)
    return tree


def _stack(results: list[Any], level: int) -> Any:
    first = results[0]
    if isinstance(first, Tensor):
        return BatchedTensor(call(ops.stack, results), 0, level)
    if isinstance(first, dict):
        return {k: _stack([r[k] for r in results], level) for k in first}
    if type(first) in (list, tuple):
        return type(first)(_stack([r[j] for r in results], level) for j in range(len(first)))
    return first


def _top_level(tree: Any) -> int:
    if isinstance(tree, BatchedTensor):
        return tree.level
    items = tree.values() if isinstance(tree, dict) else tree \
        if type(tree) in (list, tuple) else ()
    return max((_top_level(v) for v in items), default=0)


@intrinsic
def per_example(interp: Interpreter, fn: Any, args: tuple, kwargs: dict) -> Any:
    """`fn` (a transform gradtrace does not batch: jacrev, jacfwd, jvp, hessian) run once per
    example of the innermost vmap among `args`, its results stacked as that level's
    BatchedTensors (torch's fallback, at the level of the transform)."""
    level = _top_level(list(args))
    size = TRANSFORMS.batch_size(level)
    results = [interp.call(fn, [_slice(a, level, i) for a in args],
                           {k: _slice(v, level, i) for k, v in kwargs.items()}, None)
               for i in range(size)]
    return _stack(results, level)


@intrinsic
def same_tuple(interp: Interpreter, template: tuple, items: list) -> tuple:
    """A tuple of `template`'s kind (a torch.return_types named tuple stays one) holding
    `items`: what pytree's unflatten rebuilds."""
    if type(template) is tuple:
        return tuple(items)
    return type(template)(*items)


@intrinsic
def jvp_fallback(interp: Interpreter, on: bool) -> bool:
    """torch.func.jvp's forward-AD run: an op without a formula in gradtrace (torch has one)
    takes its tangent from its double backward instead of refusing, and duals and their
    primals are functorch's alias views. The previous setting."""
    from ..engine.forward_ad import FW

    before = FW.fallback
    FW.fallback = FW.functorch = bool(on)
    return before


# -- grad levels (engine/levels.py) ------------------------------------------------------


@intrinsic
def is_scratch(interp: Interpreter, t: Any) -> bool:
    """Whether `t` is a scratch leaf of a double-backward tangent (engine/levels.py): no leaf
    of the caller's autograd."""
    return levels.is_scratch(t)


@intrinsic
def level_input(interp: Interpreter, t: Tensor) -> Tensor:
    """A grad transform's input: a fresh leaf standing for `t` at the new level."""
    return levels.level_input(t)


@intrinsic
def level_input_batched(interp: Interpreter, t: Tensor) -> tuple[Tensor, list]:
    """A grad transform's input inside vmap: the fresh leaf of `t`'s physical tensor batched
    at every running vmap level (expanded where `t` is not), and its levels (as
    unwrap_batched); the leaf stands for `t`'s own physical tensor."""
    with no_grad():
        batched = batch_all(interp, t)
    p, spec = unwrap_batched(interp, batched)
    return levels.level_input(physical(t), p.array), spec


@intrinsic
def level_end(interp: Interpreter, leaves: list, roots: list) -> None:
    """A grad level ends: the graph of `roots` (its results) reaches what its inputs
    `leaves` stand for, as torch's outer graph does."""
    levels.end([t for t in leaves if isinstance(t, Tensor)],
                      [physical(t) for t in roots if isinstance(t, Tensor)])


@intrinsic
def level_restore(interp: Interpreter, leaves: list, level_edges: bool) -> None:
    """vjp's function differentiates at its ended level: its edges back, then the outer."""
    levels.restore([t for t in leaves if isinstance(t, Tensor)], bool(level_edges))
