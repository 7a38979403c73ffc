"""torch.jit's C++ side for lib/torch/jit/: running a traced or scripted callable's graph.

gradtrace runs the callable's Python again under engine/jit.py's `running`, which makes the
nodes torch's graph makes (Scalar overloads, a traced convolution's ConvolutionBackward1)
and refuses every node not measured to be recorded alike. What keeps a re-run equal to
torch's graph run is checked by the library (lib/torch/jit/_trace.gt): the same ops in the
same order as at trace time, on inputs of the same shapes, prints not made (torch runs no
Python then).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine import jit
from ..engine.tensor import Tensor
from ..errors import NotSupportedError
from .library import intrinsic
from .objects import Method, UserFunction

if TYPE_CHECKING:
    from .core import Interpreter


@intrinsic
def jit_run(interp: Interpreter, fn: Any, args: tuple, kwargs: dict[str, Any], mode: str,
            tracing: bool = False, replaying: bool = False) -> tuple:
    """`fn(*args, **kwargs)` as one run of a jit graph: (result, the ops it ran by name, the
    number of autograd nodes it recorded)."""
    if mode not in ("trace", "script"):
        raise NotSupportedError("jit_run() takes mode 'trace' or 'script'")
    with jit.running(mode, tracing=bool(tracing), replaying=bool(replaying)) as recorder:
        result = interp.call(fn, args, kwargs, None)
    return result, tuple(recorder.ops), recorder.nodes


@intrinsic
def jit_state(interp: Interpreter) -> tuple:
    """(mode, tracing, replaying) of the jit graph running now: mode "trace", "script" or
    None outside any (see engine/jit.py's JitState)."""
    state = jit.JIT
    return state.mode, state.tracing, state.replaying


@intrinsic
def jit_signature(interp: Interpreter, args: Any) -> tuple:
    """What a traced graph was specialised to: each argument's shape and dtype (tensors),
    or its type and value (anything else)."""
    return tuple((tuple(a.array.shape), a.dtype.name) if type(a) is Tensor
                 else (type(a).__name__, a if isinstance(a, (int, float, bool, str)) else None)
                 for a in args)


@intrinsic
def jit_scriptable(interp: Interpreter, fn: Any) -> str:
    """The name TorchScript compiles `fn` under, after refusing what gradtrace does not
    follow TorchScript's compiler in (generators, *args, **kwargs, builtins)."""
    function = fn.function if type(fn) is Method else fn
    if type(function) is not UserFunction:
        raise NotSupportedError(f"torch.jit.script of {type(fn).__name__} objects is not "
                                "supported by gradtrace (only functions defined in the script "
                                "and nn.Module instances)")
    if function.name == "<lambda>":  # torch: "Expected a single top-level function"
        raise NotSupportedError("torch.jit.script of a lambda is not supported by gradtrace")
    if function.is_generator:
        raise NotSupportedError("torch.jit.script of a generator function is not supported "
                                "by gradtrace")
    signature = function.signature
    if signature.varargs is not None or signature.varkw is not None:
        raise NotSupportedError("torch.jit.script of a function with *args or **kwargs is "
                                "not supported by gradtrace")
    return function.name


@intrinsic
def bound_self(interp: Interpreter, fn: Any) -> Any:
    """A bound method's object (`fn.__self__`), None for anything else."""
    return fn.obj if type(fn) is Method else None
