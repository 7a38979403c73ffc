"""Deep nesting ends in a located RecursionError limit, never in a C stack overflow
(issue 16): tuples are measured before Python hashes them, zip/enumerate nests are
counted against the recursion limit, and the C stack is made big enough for the
recursion limit (gradtrace/interpreter/nesting.py). Run in-process: a crash here would
take pytest down, which is what these tests must show cannot happen."""
from __future__ import annotations

import resource

import pytest

from gradtrace.errors import LimitExceeded
from gradtrace.interpreter import Limits
from gradtrace.interpreter.nesting import BYTES_PER_LEVEL, reserve_stack
from gradtrace.runner import run_text

# deeper than the default recursion limit (2000 + 60 * --max-call-depth): unguarded,
# Python would hash it without error (and at ~150,000 levels overflow an 8 MiB stack)
DEEP = 20_000
DEEP_TUPLE = f"t = ()\nfor i in range({DEEP}):\n    t = (t,)\nd = {{(1, 2): 1}}\ns = {{1}}\n"


def _run(text: str, limits: Limits | None = None):
    return run_text(text, "nesting.gt", limits=limits or Limits(timeout=120))


def _recursion_limit(result) -> None:
    assert isinstance(result.error, LimitExceeded), result.error
    assert "maximum recursion depth exceeded" in str(result.error)


@pytest.mark.parametrize("statement", [
    "d[t] = 1", "d[t]", "del d[t]", "t in d", "t not in s", "hash(t)", "{t}", "{t: 1}",
    "set([t])", "frozenset([t])", "dict([(t, 1)])", "d.get(t)", "d.pop(t, 0)",
    "d.setdefault(t)", "s.add(t)", "s.discard(t)", "s.union([t])", "d.update([(t, 1)])",
    "{k for k in [t]}", "{k: 1 for k in [t]}", "set(v for v in [t])", "d.keys() | [t]",
    "d.items() & [(t, 1)]", "d.keys() - [t]",
])
def test_a_deep_tuple_is_measured_before_python_hashes_it(statement: str):
    result = _run(DEEP_TUPLE + statement + "\n")
    _recursion_limit(result)
    assert result.error.span.line == 6


def test_shallow_tuples_hash_as_python_hashes_them():
    result = _run("d = {(1, (2, (3,))): 'a'}\nk = (1, (2, (3,)))\n"
                  "print(d[k], k in d, {k} == {k}, hash(k) == hash((1, (2, (3,)))),\n"
                  "      dict([(k, 2)]), d.keys() | [(4,)], sorted(set([(2,), (1,)])))\n")
    assert result.error is None, result.error
    assert result.stdout == ("a True True True {(1, (2, (3,))): 2} {(1, (2, (3,))), (4,)} "
                             "[(1,), (2,)]\n")


@pytest.mark.parametrize("wrap", ["zip(z)", "enumerate(z)", "zip(enumerate(z), [0])",
                                  "map(lambda v: v, z)", "filter(None, z)",
                                  "(v for v in z)"])
def test_a_deep_chain_of_iterators_is_a_recursion_limit_when_iterated(wrap: str):
    result = _run(f"z = [1]\nfor i in range(30000):\n    z = {wrap}\nprint('built')\n"
                  "x = list(z)\n")
    assert result.stdout == "built\n"
    if wrap.startswith("("):  # a generator expression: the script's RecursionError
        assert result.error.kind == "RecursionError", result.error
    else:
        _recursion_limit(result)
    assert result.error.span.line == 5


def test_nested_iterators_give_python_s_items():
    result = _run("z = zip(enumerate(zip([1, 2], 'ab')), [7, 8, 9])\nprint(list(z))\n"
                  "m = map(lambda a, b: a + b, [1, 2, 3], [10, 20])\n"
                  "print(list(filter(None, [0, 1, None, 2])), list(m), next(m, 'end'))\n"
                  "print(type(zip()), type(enumerate([])), type(map(str, [])))\n")
    assert result.error is None, result.error
    assert result.stdout == ("[((0, (1, 'a')), 7), ((1, (2, 'b')), 8)]\n[1, 2] [11, 22] end\n"
                             "<class 'zip'> <class 'enumerate'> <class 'map'>\n")


@pytest.mark.parametrize("shape", [
    "x = []\nfor i in range(DEPTH):\n    x = [x]\ny = repr(x)\n",
    "a = {}\nb = {}\nfor i in range(DEPTH):\n    a = {1: a}\n    b = {1: b}\ny = a == b\n",
    "a = []\nb = []\nfor i in range(DEPTH):\n    a = [a]\n    b = [b]\ny = sorted([a, b])\n",
    "a = []\nb = []\nfor i in range(DEPTH):\n    a = [a]\n    b = [b]\ny = a in [b]\n",
])
def test_deep_lists_and_dicts_reach_the_recursion_limit_within_the_c_stack(shape: str):
    """With --max-call-depth 1000 the recursion limit is 62,000: deeper than an 8 MiB
    C stack holds for repr and == (they overflowed there, at 40,000-80,000 levels),
    so the stack must have been made room for."""
    result = _run(shape.replace("DEPTH", "70000"), Limits(timeout=120, max_call_depth=1000))
    _recursion_limit(result)


def test_the_recursion_limit_never_exceeds_what_the_stack_holds():
    levels = reserve_stack(2000 + 60 * 1000)
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if soft != resource.RLIM_INFINITY:
        assert levels * BYTES_PER_LEVEL <= soft
    if hard == resource.RLIM_INFINITY:  # room was made for all of them
        assert levels == 62_000
