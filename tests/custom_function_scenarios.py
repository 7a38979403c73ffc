"""Custom autograd Function scenarios, written once and run on torch or on gradtrace.

Each scenario drives `torch.autograd.Function`s from Python through a backend (real
torch, or gradtrace's engine) and logs what a user would see: printed tensors, node
names, next_functions, versions, gradients, warnings and errors. The torch logs are
recorded in tests/data/custom_function_cases.json (tests/tools/record_custom_functions.py);
tests/test_custom_function.py compares gradtrace's logs with them, and with live torch.
once_differentiable is library code that only scripts reach: its cases are scripts
(tests/conformance_extra/function_ctx_features.gt).
"""
from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


class GradtraceBackend:
    """`torch` as gradtrace's engine offers it to scripts."""

    def __init__(self) -> None:
        from ops_helpers import Namespace

        from gradtrace.engine import api
        from gradtrace.engine.custom_function import AutogradFunction
        from gradtrace.engine.ops.creation import WARNINGS

        self._warnings = WARNINGS
        self._function = AutogradFunction
        autograd = Namespace({**api.AUTOGRAD_FUNCTIONS,
                              "functional": Namespace(api.AUTOGRAD_FUNCTIONAL)})
        self.torch = Namespace({**api.TORCH_FUNCTIONS, **api.DTYPES, "autograd": autograd})

    def function(self, name: str, **attrs: Any) -> Any:
        return self._function(name, attrs.get)

    def error(self, err: BaseException) -> str | None:
        from gradtrace.errors import ScriptError

        if isinstance(err, ScriptError):
            return f"{err.kind}: {err.message}"
        if isinstance(err, AttributeError):  # FunctionCtx.__getattr__, from Python
            return f"AttributeError: {err}"
        return None

    def warnings(self) -> list[str]:
        out = list(self._warnings)
        self._warnings.clear()
        return out


class TorchBackend:
    def __init__(self) -> None:
        import torch

        self.torch = torch
        self._caught: list[Any] = []

    def function(self, name: str, **attrs: Any) -> Any:
        body = {k: staticmethod(v) if callable(v) else v for k, v in attrs.items()}
        return type(name, (self.torch.autograd.Function,), body)

    def error(self, err: BaseException) -> str | None:
        if isinstance(err, (RuntimeError, TypeError, ValueError, AttributeError,
                            NotImplementedError, AssertionError)):
            return f"{type(err).__name__}: {err}"
        return None

    def warnings(self) -> list[str]:
        out = [f"{w.category.__name__}: {w.message}" for w in self._caught]
        self._caught.clear()
        return out

    def run(self, scenario: Callable[..., None], log: Callable[..., None]) -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self._caught = caught
            scenario(self, log)


def observe(backend: Any, scenario: Callable[..., None]) -> list[str]:
    """What a scenario showed: its log lines, warnings and errors as they happened."""
    lines: list[str] = []

    def log(*values: Any) -> None:
        lines.extend(f"warning: {w}" for w in backend.warnings())
        lines.append(ADDRESS.sub("0x?", " ".join(str(v) for v in values)))

    def attempt(fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except Exception as err:  # noqa: BLE001 - every error is an observation
            message = backend.error(err)
            if message is None:
                raise
            log("error:", message)
            return None

    def run(t: Any, log_: Any) -> None:
        scenario(t, log_, attempt)

    if isinstance(backend, TorchBackend):
        backend.run(run, log)
    else:
        run(backend, log)
    lines.extend(f"warning: {w}" for w in backend.warnings())
    return lines


# ---------------------------------------------------------------------------- scenarios


def legendre(t: Any, log: Any, attempt: Any) -> None:
    """'Learning PyTorch with Examples': P3(x) = (5x^3 - 3x) / 2 as a custom Function."""
    torch = t.torch

    def forward(ctx, input):
        log("grad mode in forward:", torch.is_grad_enabled(), input.requires_grad)
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    def backward(ctx, grad_output):
        log("grad mode in backward:", torch.is_grad_enabled())
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)

    P3 = t.function("LegendrePolynomial3", forward=forward, backward=backward)
    a = torch.tensor(0.25, requires_grad=True)
    b = torch.tensor(-0.5, requires_grad=True)
    x = torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0])
    y_pred = a + b * P3.apply(x * 0.75 + a)
    log(y_pred)
    node = y_pred.grad_fn.next_functions[1][0].next_functions[1][0]
    log(node, node.name(), type(node).__name__, node.next_functions)
    log(node.saved_tensors, node.needs_input_grad, node.requires_grad, node.metadata)
    loss = (y_pred ** 2).sum()
    loss.backward()
    log(a.grad, b.grad)
    attempt(lambda: node.saved_tensors)
    attempt(lambda: loss.backward())


def identity(t: Any, log: Any, attempt: Any) -> None:
    """An input returned as-is comes back as a new view of it (or a detached alias)."""
    torch = t.torch
    Id = t.function("Id", forward=lambda ctx, x: x, backward=lambda ctx, g: g * 2)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Id.apply(x)
    log(y is x, y._base is x, y._version, y.grad_fn, y.is_leaf, y.requires_grad, y.output_nr)
    y.sum().backward()
    log(x.grad)
    x2 = torch.tensor([1.0, 2.0])
    y2 = Id.apply(x2)
    log(y2 is x2, y2._base is x2, y2.requires_grad, y2.grad_fn)
    with torch.no_grad():
        y3 = Id.apply(x)
    log(y3 is x, y3._base is x, y3.requires_grad, y3.grad_fn)
    attempt(lambda: y.mul_(2))


def multi_output(t: Any, log: Any, attempt: Any) -> None:
    """Non-tensor arguments and outputs: next_functions skip them, output_nr counts them."""
    torch = t.torch

    def forward(ctx, x, k, y):
        log("needs_input_grad", ctx.needs_input_grad)
        return x * k, 7, y + 1, "s"

    def backward(ctx, ga, gb, gc, gd):
        log("grads:", ga, gb, gc, gd)
        return ga * 3, None, gc

    Multi = t.function("Multi", forward=forward, backward=backward)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor(3.0)
    a, b, c, d = Multi.apply(x, 5, y)
    log(a, b, c, d)
    log(a.grad_fn.next_functions, a.output_nr, c.output_nr, c.requires_grad, c.grad_fn)
    a.sum().backward()
    log(x.grad)
    y = torch.tensor(3.0, requires_grad=True)
    a, b, c, d = Multi.apply(x, 5, y)
    (a.sum() + c).backward()
    log(x.grad, y.grad)


def gradient_count_errors(t: Any, log: Any, attempt: Any) -> None:
    torch = t.torch
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    cases = [
        ("WrongCount", lambda ctx, x, y: x * y, lambda ctx, g: g, (x, x)),
        ("TooMany", lambda ctx, x: x * 2, lambda ctx, g: (g, None, None), (x,)),
        ("TooMany2", lambda ctx, x: x * 2, lambda ctx, g: (g, g), (x,)),
        ("BadShape", lambda ctx, x: x * 2, lambda ctx, g: torch.ones(3), (x,)),
        ("Broadcast", lambda ctx, x: x * 2,
         lambda ctx, g: torch.ones(3, 2, dtype=torch.float64), (x,)),
        ("NonTensorGrad", lambda ctx, x, k: x * k, lambda ctx, g: (g, g), (x, 2)),
        ("ReturnsNumber", lambda ctx, x: x * 2, lambda ctx, g: 1.0, (x,)),
        ("ReturnsList", lambda ctx, x: x * 2, lambda ctx, g: [g], (x,)),
    ]
    for name, fwd, bwd, args in cases:
        fn = t.function(name, forward=fwd, backward=bwd)
        x.grad = None
        attempt(lambda fn=fn, args=args: fn.apply(*args).sum().backward())
        log(name, x.grad)


def forward_results(t: Any, log: Any, attempt: Any) -> None:
    """A list or None from forward is a non-tensor output; missing methods raise."""
    torch = t.torch
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    FwdList = t.function("FwdList", forward=lambda ctx, x: [x * 2, x * 3],
                         backward=lambda ctx, g: g)
    r = FwdList.apply(x)
    log(type(r).__name__, r)
    FwdNone = t.function("FwdNone", forward=lambda ctx, x: None, backward=lambda ctx, g: g)
    log(FwdNone.apply(x))
    NoBackward = t.function("NoBackward", forward=lambda ctx, x: x * 2)
    r = NoBackward.apply(x)
    log(r)
    attempt(lambda: r.sum().backward())
    NoForward = t.function("NoForward", backward=lambda ctx, g: g)
    attempt(lambda: NoForward.apply(x))


def keyword_arguments(t: Any, log: Any, attempt: Any) -> None:
    torch = t.torch

    def forward(ctx, x, scale, shift):
        return x * scale + shift

    Affine = t.function("Affine", forward=forward,
                        backward=lambda ctx, g: (g, None, None))
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    log(Affine.apply(x, 2.0, shift=1.0))
    log(Affine.apply(x, shift=1.0, scale=3.0))
    attempt(lambda: Affine.apply(x, 2.0, offset=1.0))
    attempt(lambda: Affine.apply(x, 2.0, scale=1.0))
    attempt(lambda: Affine.apply(x, shift=1.0))


def mark_dirty(t: Any, log: Any, attempt: Any) -> None:
    """In-place forward: the dirty input keeps its identity, its history is rebased."""
    torch = t.torch

    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    AddOne_ = t.function("AddOne_", forward=forward, backward=lambda ctx, g: g * 1)
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    log(b._version, b.grad_fn)
    c = AddOne_.apply(b)
    log(c is b, c._version, b._version, c.grad_fn, c.grad_fn.next_functions, c.output_nr)
    log(c)
    c.sum().backward()
    log(a.grad)
    attempt(lambda: AddOne_.apply(torch.tensor([1.0, 2.0], requires_grad=True)))
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    d = b * b
    AddOne_.apply(b)
    attempt(lambda: d.sum().backward())
    plain = torch.tensor([1.0, 2.0])
    r = AddOne_.apply(plain)
    log(r is plain, r.requires_grad, r.grad_fn, plain._version)


def mark_dirty_view(t: Any, log: Any, attempt: Any) -> None:
    torch = t.torch

    def forward(ctx, x):
        x.mul_(3)
        ctx.mark_dirty(x)
        return x

    Triple_ = t.function("Triple_", forward=forward, backward=lambda ctx, g: g * 3)
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a.clone()
    v = b[0:1]
    r = Triple_.apply(v)
    log(r is v, r.grad_fn.name(), b.grad_fn.name(), b._version, v._version, b)
    b.sum().backward()
    log(a.grad)


def mark_dirty_errors(t: Any, log: Any, attempt: Any) -> None:
    torch = t.torch

    def not_returned(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x * 2

    def not_input(ctx, x):
        y = x * 2
        ctx.mark_dirty(y)
        return y

    def bad_arg(ctx, x):
        ctx.mark_dirty(3)
        return x * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for name, fwd in [("DirtyNotReturned", not_returned), ("DirtyNonInput", not_input),
                      ("DirtyBadArg", bad_arg)]:
        fn = t.function(name, forward=fwd, backward=lambda ctx, g: g)
        log(name, attempt(lambda fn=fn: fn.apply(x.clone())))


def non_differentiable(t: Any, log: Any, attempt: Any) -> None:
    """mark_non_differentiable outputs have no history; backward still gets zeros for them."""
    torch = t.torch

    def forward(ctx, x):
        a = x * 2
        b = x * 3
        idx = (x > 1).to(torch.int64)
        ctx.mark_non_differentiable(b, idx)
        return a, b, idx

    def backward(ctx, ga, gb, gi):
        log("grads", ga, gb, gi)
        return ga + gb

    NonDiff = t.function("NonDiff", forward=forward, backward=backward)
    x = torch.tensor([3.0, 1.0], requires_grad=True)
    a, b, idx = NonDiff.apply(x)
    log(a, b, idx, b.requires_grad, b.grad_fn, b.is_leaf, idx.output_nr, b.output_nr)
    a.sum().backward()
    log(x.grad)

    def input_forward(ctx, x):
        ctx.mark_non_differentiable(x)
        return x

    NonDiffInput = t.function("NonDiffInput", forward=input_forward,
                              backward=lambda ctx, g: g)
    r = NonDiffInput.apply(x)
    log(r, r is x, r._base is x, r.requires_grad, r.grad_fn)

    def bad_forward(ctx, x):
        ctx.mark_non_differentiable(3)
        return x * 1

    NonDiffBad = t.function("NonDiffBad", forward=bad_forward, backward=lambda ctx, g: g)
    attempt(lambda: NonDiffBad.apply(x))


def materialize_grads(t: Any, log: Any, attempt: Any) -> None:
    """set_materialize_grads(False): backward gets None for outputs that got no gradient."""
    torch = t.torch

    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone(), x.clone()

    def backward(ctx, g1, g2):
        log("g1 g2", g1, g2)
        r = torch.zeros_like(g1 if g1 is not None else g2)
        if g1 is not None:
            r = r + g1
        if g2 is not None:
            r = r + g2
        return r

    NoMat = t.function("NoMat", forward=forward, backward=backward)
    x = torch.tensor([3.0, 1.0], requires_grad=True)
    a, b = NoMat.apply(x)
    a.sum().backward()
    log(x.grad)

    def bad(ctx, x):
        ctx.set_materialize_grads(1)
        return x.clone()

    attempt(lambda: t.function("BadMat", forward=bad, backward=lambda ctx, g: g).apply(x))

    def no_grad_backward(ctx, g):
        log("NoGrad called with", g)
        return None

    def z_forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone()

    def z_backward(ctx, g):
        log("Z called with", g)
        return g

    def clone_forward(ctx, x):
        return x.clone()

    def clone_backward(ctx, g):
        log("Clone called with", g)
        return g

    NoGrad = t.function("NoGrad", forward=clone_forward, backward=no_grad_backward)
    Z = t.function("Z", forward=z_forward, backward=z_backward)
    Clone = t.function("Clone", forward=clone_forward, backward=clone_backward)
    x.grad = None
    (NoGrad.apply(Z.apply(x)) * 2 + x).sum().backward()
    log(x.grad)
    (NoGrad.apply(Clone.apply(x)) * 2 + x).sum().backward()
    log(x.grad)


def create_graph(t: Any, log: Any, attempt: Any) -> None:
    """create_graph=True: backward runs in grad mode and its ops are recorded."""
    torch = t.torch

    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    def backward(ctx, g):
        log("grad mode in backward:", torch.is_grad_enabled())
        x, = ctx.saved_tensors
        log("saved", x, x.grad_fn, x.requires_grad)
        return g * 3 * x ** 2

    Cube = t.function("Cube", forward=forward, backward=backward)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    g, = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    log(g, g.grad_fn, g.grad_fn.next_functions)
    g2, = torch.autograd.grad(g.sum(), x)
    log(g2)


def saved_outputs(t: Any, log: Any, attempt: Any) -> None:
    """A saved output comes back with the node as grad_fn; changing it in place is caught."""
    torch = t.torch

    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    def backward(ctx, g):
        y, = ctx.saved_tensors
        log("saved out", y, y.grad_fn, y.requires_grad)
        return g * y

    SaveOut = t.function("SaveOut", forward=forward, backward=backward)
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = SaveOut.apply(x)
    log(y.grad_fn.saved_tensors[0].grad_fn)
    y.sum().backward(retain_graph=True)
    log(x.grad)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    log(g, g.grad_fn)
    y.mul_(2)
    attempt(lambda: y.sum().backward())


def saved_tensor_rules(t: Any, log: Any, attempt: Any) -> None:
    torch = t.torch

    def cube_forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    def cube_backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2

    Cube = t.function("Cube", forward=cube_forward, backward=cube_backward)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x)
    with torch.no_grad():
        x.mul_(2)
    attempt(lambda: y.grad_fn.saved_tensors)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = x * 1
    y = Cube.apply(z)
    z.mul_(2)
    attempt(lambda: y.sum().backward())

    def save_none(ctx, x):
        ctx.save_for_backward(None, x)
        return x * 2

    def show_saved(ctx, g):
        log("saved", ctx.saved_tensors)
        return g

    t.function("SaveNone", forward=save_none, backward=show_saved).apply(
        torch.tensor([1.0, 2.0], requires_grad=True)).sum().backward()

    def save_int(ctx, x):
        ctx.save_for_backward(x, 3)
        return x * 2

    SaveInt = t.function("SaveInt", forward=save_int, backward=lambda ctx, g: g)
    attempt(lambda: SaveInt.apply(torch.ones(2, requires_grad=True)))
    log(SaveInt.apply(torch.ones(2)))

    def save_twice(ctx, x, y):
        ctx.save_for_backward(x)
        ctx.save_for_backward(y)
        return x * y

    def show_two(ctx, g):
        log("saved", ctx.saved_tensors)
        return g, g

    t.function("SaveTwice", forward=save_twice, backward=show_two).apply(
        torch.ones(2, requires_grad=True), torch.zeros(2)).sum().backward()

    NoSave = t.function("NoSave", forward=lambda ctx, x: x * 2, backward=show_saved)
    y = NoSave.apply(torch.ones(2, requires_grad=True))
    log(y.grad_fn.saved_tensors)
    y.sum().backward()
    attempt(lambda: y.grad_fn.saved_tensors)
    with torch.no_grad():
        y = Cube.apply(torch.ones(2, requires_grad=True))
    log(y, y.grad_fn)


def ctx_attributes(t: Any, log: Any, attempt: Any) -> None:
    """What forward may set on ctx, and what it may not."""
    torch = t.torch

    def forward(ctx, x):
        ctx.constant = 3
        for name in ("saved_tensors", "next_functions", "requires_grad", "metadata"):
            attempt(lambda name=name: setattr(ctx, name, 1))
        ctx.needs_input_grad = (False,)
        ctx.to_save = (x,)
        return x * 2

    def backward(ctx, g):
        log(ctx.needs_input_grad, ctx.constant, ctx.saved_tensors)
        attempt(lambda: ctx.missing)
        return g

    Attr = t.function("Attr", forward=forward, backward=backward)
    y = Attr.apply(torch.tensor([1.0, 2.0], requires_grad=True))
    log(y.grad_fn.to_save, y.grad_fn.non_differentiable, y.grad_fn.dirty_tensors)
    y.sum().backward()
    log(y.grad_fn.constant)


def hooks(t: Any, log: Any, attempt: Any) -> None:
    torch = t.torch

    def forward(ctx, x):
        return x * 2

    def backward(ctx, g):
        log("backward", g)
        return g * 2

    Double = t.function("Double", forward=forward, backward=backward)
    x = torch.tensor([1.0, 1.0], requires_grad=True)
    y = Double.apply(x)
    y.grad_fn.register_hook(lambda gi, go: log("post hook", gi, go))
    y.grad_fn.register_prehook(lambda go: log("pre hook", go))
    y.register_hook(lambda g: log("tensor hook", g))
    y.sum().backward()
    log(x.grad)


def views(t: Any, log: Any, attempt: Any) -> None:
    """Views a Function returns may not be modified in place."""
    torch = t.torch

    def forward(ctx, x):
        return x[0:1], x.view(2, 1), x.detach()

    def backward(ctx, a, b, c):
        log("grads", a, b, c)
        return b.view(2) + c

    V = t.function("V", forward=forward, backward=backward)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b, c = V.apply(x)
    log(a._base is x, b._base is x, c._base is x, a.grad_fn.name(), c.output_nr)
    (a.sum() + b.sum() * 2 + c.sum() * 3).backward()
    log(x.grad)
    attempt(lambda: a.mul_(2))
    c.mul_(2)
    log(c._version, x._version)
    V1 = t.function("V1", forward=lambda ctx, x: x[0:1],
                    backward=lambda ctx, a: torch.cat([a, torch.zeros(1)]))
    y = x * 1
    v = V1.apply(y)
    log(v._base is y, v.grad_fn.name())
    attempt(lambda: v.mul_(2))


def setup_context(t: Any, log: Any, attempt: Any) -> None:
    """forward without ctx, then setup_context(ctx, inputs, output)."""
    torch = t.torch

    def forward(x, k):
        log("forward grad mode", torch.is_grad_enabled())
        return x * k

    def setup(ctx, inputs, output):
        log("setup", type(inputs).__name__, len(inputs), output, torch.is_grad_enabled())
        x, k = inputs
        ctx.save_for_backward(x)
        ctx.k = k

    def backward(ctx, g):
        return g * ctx.k, None

    SC = t.function("SC", forward=forward, setup_context=setup, backward=backward)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = SC.apply(x, 3)
    log(y)
    y.sum().backward()
    log(x.grad)
    log(SC.apply(x, k=4))

    def as_is(x):
        return x

    def save_input(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    AsIs = t.function("AsIs", forward=as_is, setup_context=save_input,
                      backward=lambda ctx, g: g)
    attempt(lambda: AsIs.apply(x))


def anomaly_in_backward(t: Any, log: Any, attempt: Any) -> None:
    """check_nan names the node; an error in a Function's backward is still the script's."""
    torch = t.torch

    def backward(ctx, g):
        return g * float("nan")

    NanBack = t.function("NanBack", forward=lambda ctx, x: x * 2, backward=backward)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.autograd.set_detect_anomaly(True)
    try:
        y = NanBack.apply(x)
        log(sorted(y.grad_fn.metadata))
        try:
            y.sum().backward()
        except Exception as err:  # noqa: BLE001
            # the forward traceback is Python's under torch, the script's in gradtrace
            log([w.splitlines()[0] for w in t.warnings()])
            log("error:", t.error(err))
    finally:
        torch.autograd.set_detect_anomaly(False)
    y = NanBack.apply(x)
    y.sum().backward()
    log(x.grad)


SCENARIOS: dict[str, Callable[..., None]] = {
    fn.__name__: fn for fn in (
        legendre, identity, multi_output, gradient_count_errors, forward_results,
        keyword_arguments, mark_dirty, mark_dirty_view, mark_dirty_errors, non_differentiable,
        materialize_grads, create_graph, saved_outputs,
        saved_tensor_rules, ctx_attributes, hooks, views, setup_context, anomaly_in_backward)
}
