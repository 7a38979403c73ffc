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

from gradtrace import stdlib
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
        return str(err)
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
        if ours and "must be Tensor, not" in ours and _runs(fn, (*bound, *probe)):
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
]


def record_messages() -> None:
    recorded = []
    for call in CALLS:
        try:
            eval(call, {"torch": torch, "t": torch.ones(2, 2)})  # noqa: S307 (literals)
            recorded.append([call, None])
        except TypeError as err:
            recorded.append([call, str(err)])
    MESSAGES.write_text(json.dumps({"torch": torch.__version__, "calls": recorded},
                                   indent=1) + "\n")
    print(f"{MESSAGES}: {len(recorded)} calls")


def main() -> None:
    candidates = _candidates()
    table: dict[str, list[str]] = {}
    missed: list[str] = []
    numbers: list[str] = []
    wanted = [(f"torch.{n}", n, getattr(torch, n, None), False)
              for n in stdlib.TORCH.table] + \
             [(f"Tensor.{n}", n, getattr(torch.Tensor, n, None), True)
              for n in stdlib.TENSOR_METHODS]
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
               "numbers_as_tensors": sorted(numbers)}
    OUT.write_text(json.dumps(payload, indent=0) + "\n")
    print(f"{OUT}: {len(table)} functions and methods; not told apart: {', '.join(missed)}")


if __name__ == "__main__":
    main()
    record_messages()
