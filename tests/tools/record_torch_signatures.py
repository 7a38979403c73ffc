"""Record the signatures torch 2.13's Python argument parser checks calls against, for
every torch function and Tensor method gradtrace has, into gradtrace/torch_signatures.json:
gradtrace checks a call's arguments against them as torch does (interpreter/
torch_arguments.py), with torch's own messages.

torch keeps the parser's signature strings ("sum(Tensor input, IntArrayRef[1]? dim, bool
keepdim=False, *, ScalarType? dtype=None, Tensor out=None)") in libtorch_python.so. Which of
a name's strings make up `torch.X`'s parser and which `Tensor.X`'s is not written there, so
each candidate set is kept only if gradtrace's parser, given it, words torch's own errors
for probe calls exactly (too many arguments, none, a wrong type first). A name whose set
cannot be told is left out (and so not checked). Run with torch installed:
python tests/tools/record_torch_signatures.py"""
from __future__ import annotations

import json
import pathlib
import re
import subprocess

import numpy as np
import torch

from gradtrace import stdlib, torch_namespace
from gradtrace.engine.tensor import Tensor
from gradtrace.interpreter import torch_arguments

OUT = pathlib.Path(__file__).resolve().parents[2] / "gradtrace" / "torch_signatures.json"
# torch's messages for calls with wrong arguments of every kind, for tests/test_torch_arguments
MESSAGES = pathlib.Path(__file__).resolve().parents[1] / "data" / "torch_argument_messages.json"
LIBRARY = pathlib.Path(torch.__file__).parent / "lib" / "libtorch_python.so"
SIGNATURE = re.compile(r"^([a-z_][a-z0-9_]*)\((.*)\)(\|hidden|\|deprecated)?$")


class Probe:
    """A value of a type no signature takes (torch and gradtrace both name it `Probe`)."""


def _candidates() -> dict[str, list[str]]:
    text = subprocess.run(["strings", "-n", "4", str(LIBRARY)], capture_output=True,
                          text=True, check=True).stdout
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        match = SIGNATURE.match(line)
        if match and line not in found.setdefault(match.group(1), []):
            found[match.group(1)].append(line)
    return found


def _torch_message(fn, args) -> str | None:
    try:
        fn(*args)
    except TypeError as err:
        # (the parser's messages name the function; Tensor.type's "dtype must be a type,
        # str, or dtype object" is its body's, after the parser took the arguments)
        return str(err) if "(" in str(err) else None
    except Exception:  # noqa: BLE001 (the kernel ran: the parser took the arguments)
        return None
    return None


def _method_call(name: str):
    """`t.name(a, b)` written out, as scripts call it: Python names the method's class,
    TensorBase, in its own messages only when called so (not through `*args`)."""
    def call(t, *args):
        listed = ", ".join(f"a[{i}]" for i in range(len(args)))
        return eval(f"t.{name}({listed})", {"t": t, "a": args})  # noqa: S307
    return call


def _ours(name: str, strings: list[str], args) -> str | None:
    return torch_arguments.Parser(name, strings).message(list(args), {})


PROBES = [(), (Probe(),), (Probe(),) * 40]
ONES = Tensor(np.ones(2, dtype=np.float32))  # torch.ones(2) as gradtrace's parser sees it


def _fits(fn, name: str, strings: list[str], bound: tuple) -> bool:
    # (a method without a parser: Python words 40 arguments through another call path)
    probes = PROBES if strings or not bound else PROBES[:2]
    return all(_ours(name, strings, probe) == _torch_message(fn, (*bound, *probe))
               for probe in probes)


def _printed_order(message: str | None) -> list[str] | None:
    """The signatures torch lists in an "invalid combination" message, in its order."""
    if message is None or "received an invalid combination" not in message:
        return None
    if "expected one of:\n" not in message:
        return [message.rpartition("but expected ")[2]]
    return [line[3:] for line in message.split("\n") if line.startswith(" * ")]


def _choose(fn, name: str, candidates: list[str], method: bool) -> list[str] | None:
    def takes_input(s: str) -> bool:
        return " input" in s or "Scalar self" in s
    bound = (torch.ones(2),) if method else ()
    printed = _printed_order(_torch_message(fn, (*bound, *PROBES[2])))
    if printed is not None:  # overloads: the listed ones in torch's order, then the
        shown = {torch_arguments.Signature(s).printed(): s for s in candidates  # hidden
                 if not torch_arguments.Signature(s).hidden}
        if not all(line in shown for line in printed):
            return None
        hidden = [s for s in candidates if torch_arguments.Signature(s).hidden
                  and takes_input(s) is not method]
        options = [[shown[line] for line in printed] + hidden]
    else:
        with_input = [s for s in candidates if takes_input(s)]
        without = [s for s in candidates if not takes_input(s)]
        # a method that takes nothing has no parser: Python's "takes no arguments" ([])
        options = [without, []] if method else [with_input, without, candidates]
    for strings in options:
        if (strings or method) and _fits(fn, name, strings, bound):
            return strings
    return None


def _takes_numbers(fn, name: str, strings: list[str], method: bool) -> bool:
    """Whether torch's parser takes a Python number for a Tensor here: a call that
    gradtrace's parser, not taking them, refuses for that alone, and torch does not."""
    parser = torch_arguments.Parser(name, strings)
    bound = (torch.ones(2),) if method else ()
    for probe in [(2,), (2.5,), (torch.ones(2), 2), (2, torch.ones(2)), (2, 2)]:
        ours = parser.message([ONES if isinstance(x, torch.Tensor) else x for x in probe], {})
        refused = ours and ("must be Tensor, not" in ours or "invalid combination" in ours)
        if refused and _runs(fn, (*bound, *probe)):
            return True
    return False


def _runs(fn, args) -> bool:
    try:
        fn(*args)
    except Exception:  # noqa: BLE001
        return False
    return True


# `t` is torch.ones(2, 2); every parameter kind, keyword-only and optional ones, unknown
# keywords, too many or too few arguments, methods without arguments and overloads
CALLS = [
    'torch.exp(3)', 'torch.exp(input=[1.0])', "torch.sum(t, 'a')", "t.sum('a')", "t.view('a')",
    "t.clamp(min='a')", 'torch.tensor(1., requires_grad=None)', 'torch.exp(t, foo=1)', 't.exp(1)',
    't.exp(foo=1)', 'torch.exp()', 'torch.mm()', "torch.add(t, 'a')", 'torch.add(t, 2)',
    't.unsqueeze(1.5)', 't.unsqueeze(True)', 't.unsqueeze(None)', "torch.ones(2, dtype='float32')",
    'torch.ones(2, dtype=float)', 'torch.ones(2, device=1.5)', "torch.ones(2, device='cpu')",
    "torch.randn('a')", 'torch.ones(2.0)', "torch.arange('a')", "t.transpose(0, 'a')",
    "t.pow('a')", 't.pow(2)', 'torch.mm(t, 2)', 'torch.sum(t, 0, True, False)',
    'torch.exp(t, input=t)', "torch.dropout(t, 'a', False)", 'torch.dropout(t, 0.5, train=None)',
    'torch.full((2,), None)', "torch.full((2,), 'a')", 't.sum(dim=None)', 't.sum(axis=0)',
    't.sum(0, keepdims=1)', 'torch.cat(t)', "torch.cat([t, t], dim='a')", 't.view(-1)',
    't.view(2, 2)', "t.clamp('a', 'b')", "t.pow(exponent='a')", "t.view(dtype='a')",
    "t.view(foo='a')", "t.max('a')", "torch.where(t > 0, t, 'a')", "torch.ones(2).to('cpu', 'a')",
    'torch.softmax(t, dim=1.0)', "t.softmax('a')", 'torch.zeros_like(t, dtype=1)',
    "t.new_zeros('a')", 'torch.matmul(t, [1])', "t.masked_fill(t > 0, 'a')",
    # int lists: the first item is checked while parsing, the others when unpacked
    't.view(2, "a")', 'torch.zeros([2, 1.5])', 't.permute([0, None])', 't.permute(0, None)',
    'torch.zeros([1.5, 2])', 'torch.zeros(size=[1.5, 2])', 't.view(size=(2, 1.5))',
    't.sum((0, "a"))', 't.sum(dim=(0, "a"))', 't.view(2, 2, "a", None)', 't.expand(2, 2.0)',
    'torch.ones([2, True])', 'torch.zeros([True, 2])', 't.view(2, torch.tensor(2))',
    't.view(torch.tensor([2]), 2)', 't.view(2, torch.tensor(2.))', 't.view(2, (2,))',
    't.flip(0, "a")', 't.repeat(2, "a")', 't.sum([0, 1], "a")', 't.new_ones(t.shape)',
    't.view(t.shape)', 'torch.zeros(t.shape)', 'torch.cat((t, t), dim=t.dim() - 1)',
    # Tensor lists: every item while parsing
    'torch.cat([t, 2])', 'torch.stack([t, "a"])', 'torch.cat((t, None))', 'torch.cat([2, t])',
    # generator, layout, memory format and string parameters
    'torch.randn(2, generator=3)', 'torch.rand(2, generator="a")', 't.uniform_(generator=3)',
    'torch.multinomial(t, 1, generator=3)', 't.contiguous(memory_format=1)',
    't.clone(memory_format=1)', 'torch.zeros(2, layout="x")', 'torch.empty(2, memory_format="a")',
    'torch.ones_like(t, memory_format=2)', 'torch.div(t, 2, rounding_mode=1)',
    't.div(2, rounding_mode=1)', 'torch.einsum(1, t)', 't.clone(memory_format=None)',
    # an nn.Parameter is named so, and is no "Tensor" in an invalid-combination message
    'torch.add(p, "a")', 'torch.sum(p, "a")', 'p.sum("a")', 'torch.cat(p)', 'torch.max(p, "a")',
    'torch.where(p > 0, p, "a")',
    # functions torch.nn.functional has as the same builtin, and index_put / type
    'torch.conv1d(3, t)', 'torch.conv2d(t, 3)', 'torch.nn.functional.conv1d(3, t)',
    'torch.nn.functional.conv2d(t, 3)', 't.index_put((t > 0,), 2)', 't.index_put(3, t)',
    'torch.index_put(t, (t > 0,), 2)', 't.index_put((2,), t)', 't.type(torch.float64, 3)',
    't.type(torch.float64, non_blocking=1)', 't.type(torch.float64, 3, 4)', 't.type(foo=3)',
    # torch.nn.functional's Python-level functions: only their inner calls' bool checks
    'torch.nn.functional.relu(t, 1)', 'torch.nn.functional.relu(t, inplace=None)',
    'torch.nn.functional.dropout(t, 0.5, 1)', 'torch.nn.functional.dropout(t, training=None)',
    'torch.nn.functional.dropout(t, 0.5, False, 1)', 'torch.nn.functional.leaky_relu(t, 0.1, 2)',
    'torch.nn.functional.max_pool1d(t.view(1, 1, 4), 2, ceil_mode=1)',
    'torch.nn.functional.threshold(t, 0.5, 0.0, 1)',
    # torch.nn.functional's own builtins
    'torch.nn.functional.gelu(t, approximate=1)', 'torch.nn.functional.linear(t, 2)',
    'torch.nn.functional.softplus(t, "a")', 'torch.nn.functional.one_hot(2)',
    'torch.nn.functional.avg_pool2d(t.view(1, 1, 2, 2), 2, 2, 0, 1)',
    # Python-level functions that hand their parameters on to torch._C._nn's builtin
    'torch.nn.functional.pad(t, 1)', 'torch.nn.functional.pad(t, pad=1)',
    'torch.nn.functional.pad(t, (1.5, 1))', 'torch.nn.functional.pad(t, [1, "a"])',
    'torch.nn.functional.pad(t, (True, 1))', 'torch.nn.functional.pad(t, t)',
    'torch.nn.functional.pad(t, (1, 1), 2)', 'torch.nn.functional.pad(t, (1, 1), "constant", "a")',
    'torch.nn.functional.pad(t)', 'torch.nn.functional.pad(t, (1, 1), "constant", 0, 1)',
    'torch.nn.functional.glu(t, "a")',
    # a tensor for an int list: a one-element integer one where a single int is taken
    'torch.flip(t, torch.tensor([0]))', 't.permute(torch.tensor([1, 0]))',
    't.view(torch.tensor([4]))', 't.view(torch.tensor(4))', 'torch.zeros(torch.tensor([2, 3]))',
    'torch.zeros(torch.tensor(2))', 't.reshape(torch.tensor([4, 1]))',
    't.expand(torch.tensor([2, 2]))', 't.repeat(torch.tensor([2, 1]))',
    'torch.nn.functional.avg_pool2d(t.view(1, 1, 2, 2), torch.tensor([2, 1]))',
    # Tensor methods torch writes in Python: Python's own words, with the class's name
    't.unflatten(1)', 't.unflatten()', 't.unflatten(1, (2, 1), 3)', 't.unique(foo=1)',
    't.norm(2, 1, False, None, 3)',
    't.register_hook()', 't.backward(None, None, False, None, 5)',
]
# calls torch refuses with another kind than TypeError: ints past int64 where the parser
# unpacks an int (ValueError); a non-Tensor input to torch.nn.functional's Python-level
# functions (in the words of whatever inside meets it first)
OTHER_KIND_CALLS = [
    't.sum(2 ** 70)', 't.unsqueeze(2 ** 80)', 'torch.randint(2 ** 80, (2,))', 't.topk(2 ** 70)',
    't.sum(0)', 't.sum(-2 ** 63)', 't.transpose(0, -2 ** 64)',
    'torch.nn.functional.relu(3)', 'torch.nn.functional.sigmoid(3)',
    'torch.nn.functional.tanh("a")', 'torch.nn.functional.mse_loss(2.5, t)',
    'torch.nn.functional.softmax([1.0], 0)', 'torch.nn.functional.cross_entropy(None, t)',
    'torch.nn.functional.relu(input=t)',
    # ints past int64 in int lists (TypeError at the item's position), indices and tensor
    # data (ValueError), numbers past uint64 (OverflowError); torch.tensor's range checks
    'torch.zeros([2 ** 63])', 't.view(2 ** 64)', 't.view(2, 2 ** 64)',
    'torch.zeros(2, 3, 2 ** 63)', 't.reshape(2 ** 63)', 't.roll(2 ** 63)', 't.roll([2 ** 63])',
    't.expand(-2 ** 63 - 1)', 't[2 ** 63]', 't[..., 2 ** 64]', 't[0, [2 ** 63]]',
    'torch.tensor([1, 2 ** 63])', 'torch.tensor([300], dtype=torch.uint8)',
    'torch.tensor([-1, -255], dtype=torch.uint8)', 'torch.tensor([-256], dtype=torch.uint8)',
    'torch.tensor([2 ** 63], dtype=torch.int32)', 'torch.tensor([2 ** 40], dtype=torch.int32)',
    'torch.tensor([2 ** 1030], dtype=torch.float64)',
    'torch.tensor([2 ** 64], dtype=torch.float64)',
    't + 2 ** 64', 't - (-2 ** 63 - 1)', 't + 2 ** 63', 'torch.ones(2, dtype=torch.bool) + 2 ** 63',
    # F.softmax, F.log_softmax and F.softmin are Python calling Tensor.softmax
    'torch.nn.functional.softmax(t, "a")', 'torch.nn.functional.softmax(t, True)',
    'torch.nn.functional.log_softmax(t, 1.0)', 'torch.nn.functional.softmin(t, "a")',
    'torch.nn.functional.softmin(3, 1)', 'torch.nn.functional.softmax(3)',
    'torch.nn.functional.softmin("a", 0)', 'torch.nn.functional.softmax(t, 0, dtype="a")',
    'torch.nn.functional.softmax(t, torch.tensor(1))',
]


def record_messages() -> None:
    recorded = []
    for call in CALLS:
        try:
            eval(call, {"torch": torch, "t": torch.ones(2, 2),  # noqa: S307 (literals)
                        "p": torch.nn.Parameter(torch.ones(2, 2))})
            recorded.append([call, None])
        except TypeError as err:
            recorded.append([call, str(err)])
    other_kinds = []
    for call in OTHER_KIND_CALLS:
        try:
            eval(call, {"torch": torch, "t": torch.ones(2, 2)})  # noqa: S307 (literals)
            other_kinds.append([call, None])
        except Exception as err:  # noqa: BLE001 (what torch raises is what is recorded)
            # (the first line: torch's overflow messages go on with the C++ backtrace of
            # the build that raised them)
            first = str(err).split("\n", 1)[0]
            other_kinds.append([call, f"{type(err).__name__}: {first}"])
    MESSAGES.write_text(json.dumps({"torch": torch.__version__, "calls": recorded,
                                    "other_kinds": other_kinds}, indent=1) + "\n")
    print(f"{MESSAGES}: {len(recorded)} calls")


# torch.nn.functional's Python-level functions gradtrace has, called with their required
# arguments: a bool parameter is checked only if the torch call inside checks it, and a
# non-Tensor input is refused in the words of whatever inside meets it first (softmax,
# log_softmax and softmin check their own arguments, as torch's Python does: not here)
FUNCTIONAL_CALLS = {
    "adaptive_avg_pool2d": "(X4, 2)", "adaptive_max_pool1d": "(X3, 2)",
    "adaptive_max_pool2d": "(X4, 2)", "batch_norm": "(X4, torch.zeros(2), torch.ones(2))",
    "binary_cross_entropy": "(X4, X4)", "binary_cross_entropy_with_logits": "(X4, X4)",
    "celu": "(X4)", "cosine_embedding_loss": "(X4, X4, X4)", "cross_entropy": "(X4, X4)",
    "dropout": "(X4)", "dropout2d": "(X4)", "elu": "(X4)",
    "embedding": "(torch.tensor([0, 1]), torch.ones(5, 3))", "fold": "(X3, (2, 2), 1)",
    "glu": "(X4)", "group_norm": "(X4, 1)", "hardsigmoid": "(X4)", "hardswish": "(X4)",
    "hardtanh": "(X4)", "huber_loss": "(X4, X4)", "interpolate": "(X4, None, 2.0, 'bilinear')",
    "kl_div": "(X4, X4)", "l1_loss": "(X4, X4)", "layer_norm": "(X4, (4,))",
    "leaky_relu": "(X4)", "margin_ranking_loss": "(X4, X4, X4)",
    "max_pool1d": "(X3, 2)", "max_pool2d": "(X4, 2)", "mish": "(X4)", "mse_loss": "(X4, X4)",
    "nll_loss": "(X4, X4)", "normalize": "(X4)", "pad": "(X4, (1, 1))", "relu": "(X4)",
    "relu6": "(X4)", "rrelu": "(X4)", "selu": "(X4)", "sigmoid": "(X4)", "silu": "(X4)",
    "smooth_l1_loss": "(X4, X4)", "soft_margin_loss": "(X4, X4)", "softsign": "(X4)",
    "tanh": "(X4)", "tanhshrink": "(X4)",
    "threshold": "(X4, 0.5, 0.0)", "unfold": "(X4, 2)",
}


def _functional_checks(candidates: dict[str, list[str]]) -> dict[str, dict]:
    """For each of FUNCTIONAL_CALLS: `bools`, each bool parameter gradtrace's function
    declares -> torch's message for a non-bool there (`{}` for its type's name) or None
    (unchecked); `input`, [kind, message] for a non-Tensor input; `forwarded`, for a
    function that hands its parameters on to torch._C._nn's builtin of its name (F.pad),
    that builtin's signatures: its parser checks them, all given by position."""
    import warnings

    import torch.nn.functional as F  # noqa: N812
    found: dict[str, dict] = {}
    namespace = {"torch": torch, "F": F, "X3": torch.ones(1, 2, 4), "X4": torch.ones(1, 2, 4, 4),
                 "Probe": Probe}

    def outcome(call: str, probe: str = "Probe") -> tuple[str, str] | None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                eval(call, namespace)  # noqa: S307 (the table's own literal calls)
            except Exception as err:  # noqa: BLE001 (whatever torch raises is recorded)
                return type(err).__name__, str(err).replace(probe, "{}")
        return None

    def input_outcome(name: str, rest: list[str]) -> tuple[str, str] | None:
        """The same words for a Probe, an int, a float and a string (softmin negates its
        input first, which an int survives), else None: not recorded."""
        seen = {outcome(f"F.{name}({', '.join([value, *rest])})", probe)
                for value, probe in (("Probe()", "Probe"), ("3", "int"), ("2.5", "float"),
                                     ("'a'", "str"))}
        return seen.pop() if len(seen) == 1 else None

    for name, arguments in FUNCTIONAL_CALLS.items():
        ours = torch_namespace.MODULES["torch.nn.functional"].table[name]
        fn = getattr(ours, "__func__", ours)
        bools: dict[str, str | None] = {}
        for parameter, _ in torch_arguments._bool_parameters(fn):
            got = outcome(f"F.{name}{arguments[:-1]}, {parameter}=Probe())")
            checked = got is not None and got[0] == "TypeError" and \
                got[1].endswith("must be bool, not {}")
            bools[parameter] = got[1] if checked else None
        rest = torch_arguments._split(arguments[1:-1])[1:]
        found[f"torch.nn.functional.{name}"] = {
            "bools": bools, "input": input_outcome(name, rest)}
        if _forwards_to_builtin(name):
            chosen = _choose(getattr(torch._C._nn, name), name, candidates[name], False)
            if chosen is not None:
                found[f"torch.nn.functional.{name}"]["forwarded"] = chosen
    return found


def _same_in_torch() -> list[str]:
    """The module functions gradtrace shares with the torch namespace that are torch's
    own function there too (F.conv2d is torch.conv2d; F.threshold is a Python function):
    a call through either name has the same parser."""
    import importlib
    same = []
    for module, namespace in torch_namespace.MODULES.items():
        if namespace is torch_namespace.TORCH:
            continue
        try:
            python_module = importlib.import_module(module)
        except ImportError:
            continue
        for name, value in namespace.table.items():
            if torch_namespace.TORCH.table.get(name) is value and \
                    getattr(python_module, name, None) is getattr(torch, name, None):
                same.append(f"{module}.{name}")
    return sorted(same)


def _forwards_to_builtin(name: str) -> bool:
    """Whether torch.nn.functional.NAME is Python whose one torch call is
    `torch._C._nn.NAME(...)` of its own parameters, in order (F.pad)."""
    import inspect

    fn = getattr(torch.nn.functional, name, None)
    if type(fn).__name__ != "function" or not hasattr(torch._C._nn, name):
        return False
    parameters = list(inspect.signature(fn).parameters)
    return f"return torch._C._nn.{name}({', '.join(parameters)})" in inspect.getsource(fn)


def main() -> None:
    candidates = _candidates()
    table: dict[str, list[str]] = {}
    missed: list[str] = []
    numbers: list[str] = []
    wanted = [(f"torch.{n}", n, getattr(torch, n, None), False)
              for n in torch_namespace.TORCH.table] + \
             [(f"Tensor.{n}", n, getattr(torch.Tensor, n, None), True)
              for n in stdlib.TENSOR_METHODS]
    # torch.nn.functional's own builtins (torch._C._nn's: F.gelu, F.linear), not torch's
    functional = torch_namespace.MODULES["torch.nn.functional"].table
    wanted += [(f"torch.nn.functional.{n}", n, getattr(torch.nn.functional, n, None), False)
               for n, value in functional.items()
               if torch_namespace.TORCH.table.get(n) is not value
               and getattr(torch.nn.functional, n, None) is not getattr(torch, n, None)]
    for key, name, fn, method in wanted:
        if type(fn).__name__ not in ("builtin_function_or_method", "method_descriptor"):
            continue  # written in Python in torch: not the argument parser's
        if name not in candidates:
            continue
        call = _method_call(name) if method else fn
        chosen = _choose(call, name, candidates[name], method)
        if chosen is None:
            missed.append(key)
        else:
            table[key] = chosen
            if _takes_numbers(call, name, chosen, method):
                numbers.append(key)
    payload = {"torch": torch.__version__, "signatures": dict(sorted(table.items())),
               "numbers_as_tensors": sorted(numbers), "same_in_torch": _same_in_torch(),
               "functional_checks": _functional_checks(candidates),
               "python_methods": sorted(n for n in stdlib.TENSOR_METHODS
                                        if type(getattr(torch.Tensor, n, None)).__name__
                                        == "function")}
    OUT.write_text(json.dumps(payload, indent=0) + "\n")
    print(f"{OUT}: {len(table)} functions and methods; not told apart: {', '.join(missed)}")


if __name__ == "__main__":
    main()
    record_messages()
