"""Classes deriving from Python's builtin types (`class AttrDict(dict)`, `class Batch(list)`,
`class Mode(str, Enum)`, `class Color(int, Enum)`), class introspection (`__mro__`,
`__bases__`, `mro()`) and exception-chain assignment (`e.__cause__ = x`): each snippet is
run by the CPython running the tests and by gradtrace, and the output must match."""
from __future__ import annotations

import textwrap

import pytest
from test_python_gaps import SNIPPETS, gt_error, same_as_python

from gradtrace.runner import run_text


@pytest.mark.parametrize("name", ["builtin_subclasses", "str_enum_mixins",
                                  "class_introspection", "builtin_subclass_new",
                                  "builtin_subclass_pprint"])
def test_snippet_prints_what_cpython_prints(name):
    same_as_python((SNIPPETS / f"{name}.gt").read_text())


def test_a_dict_subclass_overriding_getitem_is_bypassed_by_plain_reads_as_in_cpython():
    # dict(x), **x, get() and json read the storage; x[k] and `in` go through the class
    same_as_python("""\
        import json
        class Upper(dict):
            def __getitem__(self, key):
                return super().__getitem__(key.upper())
            def __contains__(self, key):
                return super().__contains__(key.upper())
        u = Upper(A=1)
        print(u["a"], "a" in u, u.get("a"), dict(u), json.dumps(u))
        def f(**kw):
            return kw
        print(f(**u), {**u}, list(u), len(u), u.keys(), list(u.values()))
        """)


def test_a_list_subclass_overriding_iter_is_iterated_its_own_way():
    same_as_python("""\
        class Evens(list):
            def __iter__(self):
                return iter([x for x in super().__iter__() if x % 2 == 0])
        e = Evens([1, 2, 3, 4])
        print(list(e), sorted(e), sum(e), [x for x in e], len(e), e)
        """)


def test_builtin_subclass_instances_keep_their_own_attributes_and_methods():
    same_as_python("""\
        class Tagged(list):
            def __init__(self, items, tag):
                super().__init__(items)
                self.tag = tag
            def describe(self):
                return f"{self.tag}: {len(self)} items, first {self[0]}"
        t = Tagged([3, 1, 2], "nums")
        t.sort()
        print(t, t.tag, t.describe(), vars(t), t.copy(), type(t.copy()).__name__)
        class Name(str):
            def __init__(self, value):
                self.length = len(value)
        n = Name("alice")
        print(n, n.length, n.title(), type(n + "!").__name__, n.replace("a", "A"))
        class Meters(float):
            def __repr__(self):
                return f"{float(self)} m"
        m = Meters(2.5)
        print(m, m * 2, m + 1, isinstance(m, float), round(m), int(m), f"{m:.3f}")
        """)


def test_mutations_through_in_place_operators_keep_the_instance():
    same_as_python("""\
        class Bag(list):
            pass
        b = Bag([1])
        alias = b
        b += [2, 3]
        b *= 2
        print(b, alias is b, type(b).__name__)
        class Conf(dict):
            pass
        c = Conf(a=1)
        keep = c
        c |= {"b": 2}
        print(c, keep is c, type(c).__name__, c | {"z": 0}, type(c | {}).__name__)
        """)


def test_copies_keep_the_class_and_the_items():
    same_as_python("""\
        import copy
        class Conf(dict):
            def __init__(self, *a, **kw):
                super().__init__(*a, **kw)
                self.tag = "t"
        c = Conf(a=[1], b=2)
        d = copy.deepcopy(c)
        d["a"].append(5)
        e = copy.copy(c)
        e["b"] = 3
        print(c, d, e, type(d).__name__, d.tag, e.tag, vars(e))
        class Easy(dict):
            def __init__(self, *a, **kw):
                super().__init__(*a, **kw)
                self.__dict__ = self
        x = Easy(a=[1], b=2)
        y = copy.copy(x)
        y.b = 3  # the copy's __dict__ is no longer the copy
        z = copy.deepcopy(x)
        print(x, y, y.b, vars(y), z, vars(z), hasattr(z, "a"))
        """)


def test_a_str_enum_member_is_accepted_where_torch_wants_a_str():
    result = run_text(textwrap.dedent("""\
        import enum
        import torch
        import torch.nn.functional as F
        class Reduction(str, enum.Enum):
            MEAN = "mean"
            SUM = "sum"
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        print(F.mse_loss(a, torch.zeros(2), reduction=Reduction.SUM))
        """))
    assert result.error is None, result.error.format(result.source)
    assert result.stdout == "tensor(5., grad_fn=<MseLossBackward0>)\n"


@pytest.mark.parametrize(("text", "kind", "message"), [
    ("class S(set): pass\n", "NotSupportedError",
     "subclassing <class 'set'> is not supported (dict, list, str, int, float and tuple can "
     "be subclassed)"),
    ("class X(str, int): pass\n", "TypeError", "multiple bases have instance lay-out "
     "conflict"),
    ("class X(dict, ValueError): pass\n", "NotSupportedError", "a class deriving from both a "
     "builtin type and an exception is not supported"),
    ("import enum\nclass M(str, enum.Enum):\n    A = 'a'\nstr.__new__(M, 'b')\n",
     "NotSupportedError", "str.__new__ of an enumeration is not supported"),
    ("d = {}\ndict.__setitem__(d, 1, 2)\n", "NotSupportedError", "dict.__setitem__ of a "
     "plain dict is not supported (only of a subclass's instance)"),
])
def test_what_is_not_offered_is_refused_by_name(text, kind, message):
    err = gt_error(text)
    assert (err.kind if kind != "NotSupportedError" else type(err).__name__,
            err.message) == (kind, message)


def test_a_builtin_method_called_on_another_object_is_pythons_type_error():
    err = gt_error("class D(dict):\n    pass\nD.__getitem__(5, 0)\n")
    assert err.kind == "TypeError"
    assert err.message == ("descriptor '__getitem__' requires a 'dict' object but received "
                           "a 'int'")


def test_the_builtin_types_unbound_methods_take_subclass_instances():
    same_as_python("""\
        from enum import Enum
        class Mode(str, Enum):
            B = "b"
            A = "a"
        class L(list):
            pass
        l = L([1])
        L.append(l, 2)
        print(l, sorted([Mode.B, Mode.A], key=str.upper), str.upper(Mode.A))
        class D(dict):
            pass
        print(dict.keys(D(a=1)), D.get(D(a=2), "a"), L.count(l, 2))
        """)


def test_torch_and_formatting_take_subclass_instances_as_their_values():
    # the output torch 2.13 printed for the same script
    text = (SNIPPETS / "builtin_subclass_torch.gt").read_text()
    result = run_text(text)
    assert result.error is None, result.error.format(result.source)
    assert result.stdout == (
        "{'b': [1, 2], 'a': <Mode.A: 'a'>}\n"
        "Mode.A|2|[1] Mode.A-Color.RED\n"
        "tensor([1., 2.]) 3 tensor([0., 0.])\n"
        "tensor([3., 3.]) torch.Size([2, 3])\n"
        "{1} (1,) {'x': 1} (0, 5)\n")


def test_only_torch_calls_walk_their_arguments_for_subclass_instances(monkeypatch):
    # the walk of nested lists for builtin-subclass instances is for torch's calls only:
    # done for `len(a)` too, it made heapq, bisect and queue (whose every step calls len or
    # append on the whole list) cost as much as the list is long (a beam search's
    # PriorityQueue: quadratic)
    from gradtrace.interpreter import calls
    walked = []
    real = calls.builtin_instances_in

    def counting(args, kwargs):
        walked.append(len(args))
        return real(args, kwargs)

    monkeypatch.setattr(calls, "builtin_instances_in", counting)
    result = run_text(textwrap.dedent("""
        import heapq, random
        class Two(int):
            pass
        h = []
        for i in range(50):
            heapq.heappush(h, (random.random(), [i]))
        print(len(h), len([Two(1), Two(2)]), heapq.heappop(h)[1] == [h[0][1][0]] or True)
    """))
    assert result.error is None, result.error.format(result.source)
    assert walked == []
    result = run_text("import torch\nclass Two(int):\n    pass\n"
                      "print(torch.tensor([Two(1), Two(2)]))\n")
    assert result.error is None and result.stdout == "tensor([1, 2])\n"
    assert walked
