"""A module's `__dict__` and `vars(module)` (gradtrace/interpreter/module_dicts.py): a
read-only, lookup-only view over the names the module's namespace offers.

What torch prints for the lookups scripts make is recorded in
tests/conformance_extra/module_dict_lookup.gt; here, against live torch where both can say
the same, and gradtrace's own rules where they cannot (its refusals: torch's dict holds
every name, dunder and submodule and is writable). The hostile side (dunders, writes,
recursion) is in tests/hostile/lang_module_dict_*.gt.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, run_text, torch_output, torch_outputs_in_child

from gradtrace import stdlib

MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.optim", "torch.nn.init",
           "torch.utils.data", "math", "random", "einops", "collections", "itertools")


def _refusal(script: str) -> tuple[str, str]:
    result = run_text(script)
    assert result.error is not None, result.stdout
    return result.error.kind, result.error.message


def test_lookups_are_attribute_lookups() -> None:
    """Every key of every module's view gives the very object attribute lookup gives, no
    key is a dunder, and each is `in` the view (one table read by both). (Under torch the
    keys include the dunders: this is gradtrace's rule.)"""
    imports = "\n".join(f"import {name}" for name in MODULES)
    script = imports + f"""
bad = []
for m in ({", ".join(MODULES[1:])},):
    d = m.__dict__
    for k in d:
        if d[k] is not getattr(m, k) or k.startswith("__") or k not in d:
            bad.append((m.__name__, k))
    if len(d) != len(list(d.keys())) or vars(m) is not d:
        bad.append(m.__name__)
print(bad)
"""
    assert gradtrace_output(script) == "[]\n"


def test_membership_answers_as_hasattr_does() -> None:
    """`name in module.__dict__` answers as `hasattr(module, name)`: a name torch 2.13's
    module has is in it even where gradtrace does not offer it (torch_names.json, recorded
    from dir(module), which holds the module dict's non-dunder keys), a name nobody has is
    not. Checked for every name torch's torch.optim and math have, and a few invented."""
    names = {module: sorted(stdlib._torch_names()[module]) + ["nope", "SGD2", "_nope"]
             for module in ("torch.optim", "math", "torch.nn.init")}
    checks = "\n".join(
        f"print([n for n in {names[module]!r} if (n in vars({module})) != "
        f"hasattr({module}, n)], [n for n in {names[module]!r} if n not in vars({module})])"
        for module in names)
    script = "import torch, math\nimport torch.optim, torch.nn.init\n" + checks + "\n"
    assert gradtrace_output(script) == torch_output(script)


def test_the_view_is_live_and_one_per_module() -> None:
    """The view reads the namespace when asked: a name the script adds to a torch module
    (`nn.MaskedLinear = ...`, pytorch-flows) is in it at once; `m.__dict__ is vars(m)`."""
    script = """import torch
import torch.nn as nn
d = nn.__dict__
before = len(d)
class MaskedLinear(nn.Linear):
    pass
nn.MaskedLinear = MaskedLinear
print("MaskedLinear" in d, d["MaskedLinear"] is MaskedLinear, len(d) - before,
      "MaskedLinear" in [k for k in d], d.get("MaskedLinear") is MaskedLinear)
print(d is nn.__dict__ is vars(nn), isinstance(d, dict), type(d).__name__)
"""
    # (torch in a child: the script writes into the real torch.nn, which this process's
    # other tests read)
    stdout, error = torch_outputs_in_child({"live": script})["live"]
    assert not error
    assert gradtrace_output(script) == stdout == "True True 1 True True\nTrue True dict\n"


def test_a_name_only_gradtrace_lacks_is_refused_as_getattr_refuses_it() -> None:
    """`d[name]` and `d.get(name)` of a name torch's module has but gradtrace does not offer
    raise what `getattr(module, name)` raises (torch.optim.Muon, a private helper)."""
    for name in ("Muon", "_functional"):
        expected = _refusal(f"import torch\ntorch.optim.{name}\n")
        assert expected[0] == "NotSupportedError"
        assert _refusal(f"import torch\ntorch.optim.__dict__[{name!r}]\n") == expected
        assert _refusal(f"import torch\nvars(torch.optim).get({name!r}, 0)\n") == expected


@pytest.mark.parametrize("expression", [
    "torch.__dict__['__builtins__']", "torch.nn.__dict__.get('__loader__')",
    "torch.optim.__dict__.get('__spec__', None)", "'__file__' in math.__dict__",
    "vars(math)['__name__']", "('__doc__', None) in vars(random).items()",
])
def test_dunder_keys_are_refused(expression: str) -> None:
    kind, message = _refusal(f"import torch, math, random\n{expression}\n")
    assert kind == "NotSupportedError"
    assert "of the __dict__ of module" in message and "Python's internals" in message


@pytest.mark.parametrize("statement, what", [
    ("torch.optim.__dict__['SGD'] = None", "item assignment"),
    ("del torch.optim.__dict__['SGD']", "item deletion"),
    ("vars(math).update(sqrt=print)", "update()"),
    ("vars(math).setdefault('x', 1)", "setdefault()"),
    ("torch.nn.__dict__.pop('Linear')", "pop()"),
    ("torch.nn.__dict__.popitem()", "popitem()"),
    ("random.__dict__.clear()", "clear()"),
])
def test_writes_are_refused(statement: str, what: str) -> None:
    """Writes are refused as not supported: under torch the write succeeds (a module's
    dict is a plain dict), so Python's TypeError for a read-only mapping would be wrong."""
    kind, message = _refusal(f"import torch, math, random\n{statement}\n")
    assert kind == "NotSupportedError"
    assert message.startswith(f"{what} on the __dict__ of module")
    assert "read-only in gradtrace scripts" in message


@pytest.mark.parametrize("statement", ["print(torch.optim.__dict__)",
                                       "repr(vars(math))", "print(torch.nn.__dict__.keys())",
                                       "f'{vars(random).items()}'"])
def test_printing_is_refused(statement: str) -> None:
    """torch prints every entry of the module (builtins, loader, functions' addresses)."""
    kind, message = _refusal(f"import torch, math, random\n{statement}\n")
    assert kind == "NotSupportedError" and message.startswith("printing the ")


def test_a_module_dict_in_a_class_attribute_and_through_star_star() -> None:
    script = """import torch
import torch.nn as nn
class Registry:
    table = vars(nn)
    def make(self, name, *args):
        return self.table[name](*args)
layer = Registry().make("Linear", 2, 3)
print(type(layer).__name__, layer.out_features, Registry.table is nn.__dict__)
def takes(**kw):
    return sorted(k for k in kw if k in ("Linear", "ReLU"))
print(takes(**nn.__dict__), sorted(k for k in dict(vars(nn)) if k in ("Conv1d", "Tanh")))
"""
    assert gradtrace_output(script) == torch_output(script)


def test_copies_merges_and_set_operators_are_pythons() -> None:
    """copy.copy and `|` give plain dicts, reversed() walks the names backwards, and the
    keys view is set-like (filtered to names both hold: torch's dict has more)."""
    script = """import copy, math
d = vars(math)
shallow = copy.copy(d)
print(type(shallow).__name__, shallow is d, shallow["pi"], type(d.copy()).__name__)
print([k for k in reversed(d) if k in ("pi", "sqrt", "e")], (d | {"x": 1})["x"],
      ({"x": 1} | d)["pi"], type(d | {}).__name__)
print(d.keys() & {"pi", "nope"}, sorted({"pi", "zz"} - d.keys()), "pi" in d.keys(),
      d.keys() == d.keys(), d.values() == d.values(), type(d.keys()).__name__,
      type(d.items()).__name__, type(d.values()).__name__)
"""
    assert gradtrace_output(script) == torch_output(script)


def test_augmented_or_is_a_write() -> None:
    """`d |= other` would write into the module's dict: refused, not rebound to a copy."""
    kind, message = _refusal("import math\nd = vars(math)\nd |= {'x': 1}\n")
    assert kind == "NotSupportedError" and message.startswith("|= on the __dict__")


def test_every_importable_module_has_a_view() -> None:
    """Each of the modules a script may import (206 namespaces: torch's, the standard
    library's, numpy's, einops', ...) iterates its names, holds each, yields no dunder,
    and answers `in` for a name nobody has without raising. (gradtrace runs one script
    file: there are no modules of the script's own.)"""
    from gradtrace.interpreter.core import Interpreter
    from gradtrace.source import Source

    interp = Interpreter(Source("<views>", "pass\n"))
    for name, namespace in interp.modules.items():
        view = interp.module_dict(namespace)
        names = list(view)
        assert len(view) == len(names) and all(n in view for n in names), name
        assert not any(n.startswith("__") and n.endswith("__") for n in names), name
        assert "no_such_name_zz" not in view and "_no_such_name" not in view, name
        assert interp.module_dict(namespace) is view


@pytest.mark.parametrize("expression", ["torch.backends.cuda.matmul.__dict__",
                                        "vars(torch.backends.cuda.matmul)"])
def test_an_object_torch_keeps_in_a_module_has_no_module_view(expression: str) -> None:
    """`torch.backends.cuda.matmul` is a namespace here but an object in torch (its
    `__dict__` is its own, empty): refused, not given the names of its switches."""
    kind, message = _refusal(f"import torch\n{expression}\n")
    assert kind == "NotSupportedError" and "'torch.backends.cuda.matmul'" in message
