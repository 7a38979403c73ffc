"""Fuzzing: whatever text a script holds, gradtrace answers with its own errors only.

Programs are drawn from the grammar itself (`hypothesis.extra.lark.from_lark`) and
from random text/bytes; running them must never raise a Python exception or an
InternalError. The budget is small here; `GRADTRACE_FUZZ_EXAMPLES=5000 pytest
tests/test_fuzz.py` runs a longer campaign locally (see README).
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from gradtrace.errors import GradtraceError, InternalError
from gradtrace.interpreter import Limits
from gradtrace.parser import parse
from gradtrace.parser.driver import _grammar_text
from gradtrace.runner import run_text
from gradtrace.source import Source

EXAMPLES = int(os.environ.get("GRADTRACE_FUZZ_EXAMPLES", "150"))
_CHECKS = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=_CHECKS)
# drawing from the grammar is slow (~0.4 s an example), so it gets a fifth of the budget
GRAMMAR_FUZZ = settings(max_examples=max(EXAMPLES // 5, 10), deadline=None,
                        suppress_health_check=_CHECKS)
SMALL = Limits(timeout=5.0, max_steps=20_000, max_call_depth=50, max_sequence=100_000,
               max_elements=100_000, max_memory=64 << 20)


def _grammar_strategy(start: str) -> st.SearchStrategy[str]:
    grammar = Lark(_grammar_text(), parser="lalr", lexer="contextual", start=start)
    layout = {"_INDENT": st.just("    "), "_DEDENT": st.just(""), "_NEWLINE": st.just("\n"),
              "MATCH": st.just("match "), "CASE": st.just("case ")}  # soft keywords
    return from_lark(grammar, start=start, explicit=layout)


def assert_only_gradtrace_errors(text: str) -> None:
    result = run_text(text, limits=SMALL)
    if result.error is not None:
        assert isinstance(result.error, GradtraceError)
        assert not isinstance(result.error, InternalError), result.error.format(result.source)
        assert result.error.message


@GRAMMAR_FUZZ
@given(_grammar_strategy("expr_input"))
def test_grammar_generated_expressions_run_or_fail_cleanly(text: str):
    assert_only_gradtrace_errors("import torch\nimport torch.nn.functional as F\nx = torch."
                                 "ones(2, requires_grad=True)\nprint(" + text.strip() + ")\n")


@GRAMMAR_FUZZ
@given(_grammar_strategy("file_input"))
def test_grammar_generated_programs_run_or_fail_cleanly(text: str):
    assert_only_gradtrace_errors(text)


@FUZZ
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_random_text_never_escapes_as_a_python_exception(text: str):
    try:
        parse(Source("<fuzz>", text))
    except GradtraceError as err:
        assert err.span is not None and err.message


TOKENS = ["x", "torch", ".", "(", ")", "[", "]", ",", ":", "=", "+", "*", "**", "-", "1",
          "2.5", "'s'", "\n", "    ", "if", "for", "in", "def", "lambda", "return", "not",
          "ones", "tensor", "sum", "backward", "grad", "requires_grad", "True", "None",
          "__class__", "@", "with", "try", "except", "f'{x}'", "[i for i in x]"]


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join))
def test_token_soup_runs_or_fails_cleanly(text: str):
    assert_only_gradtrace_errors("import torch\nx = torch.ones(3, requires_grad=True)\n" + text)


@pytest.mark.parametrize("text", [
    "(" * 5000 + ")" * 5000,
    "x = " + "-" * 20000 + "1",
    "x = " + "[" * 3000 + "]" * 3000,
    "x = 1" + " + 1" * 5000,
    "def f():\n" + "".join("    " * i + "if True:\n" for i in range(1, 150))
    + "    " * 150 + "pass\n",
])
def test_deeply_nested_scripts_are_refused_or_run(text: str):
    assert_only_gradtrace_errors(text)


# -- the shapes of issue 16 ----------------------------------------------------------------
# Each is drawn small enough to run in a fraction of a second, in-process: a C stack
# overflow or a fatal MemoryError here would take pytest down with it.
SHAPES = settings(max_examples=max(EXAMPLES // 5, 20), deadline=None,
                  suppress_health_check=_CHECKS)
ROOMY = Limits(timeout=20.0, max_steps=2_000_000, max_sequence=100_000,
               max_elements=100_000, max_memory=64 << 20)

# one level of nesting around `z`, for every container and lazy iterator
WRAPPERS = ["(z,)", "[z]", "{1: z}", "{'k': [z]}", "(z, 1)", "zip(z)", "zip(z, [1])",
            "enumerate(z)", "map(lambda v: v, z)", "filter(None, z)", "(v for v in z)",
            "iter(z)", "g(z)", "zip(iter(z))"]
# what walks the nest (hashing, repr, comparison, sorting, iteration, the views)
CONSUMERS = ["d = {}\nd[z] = 1", "hash(z)", "print(repr(z)[:20])", "print(z == z)",
             "print(sorted([z, z]) is None)", "print(z in [z])", "print(len(list(z)))",
             "print(len(set([z])))", "print(str(z)[:10])", "print(z in {1: 2})",
             "print({z} | {1})", "print([z] == [z])"]


@SHAPES
@given(st.sampled_from(WRAPPERS), st.sampled_from([1, 50, 3_000, 20_000]),
       st.sampled_from(CONSUMERS))
def test_deep_nesting_of_every_container_and_iterator_fails_cleanly(wrap: str, depth: int,
                                                                     consume: str):
    text = ("def g(it):\n    yield from it\nz = [1]\n"
            f"for i in range({depth}):\n    z = {wrap}\n{consume}\n")
    result = run_text(text, "nest.gt", limits=ROOMY)
    if result.error is not None:
        assert isinstance(result.error, GradtraceError)
        assert not isinstance(result.error, InternalError), result.error.format(result.source)


# integers as the script's own expressions (a 100,000-bit literal would make a 30 kB repr)
BIG = st.one_of(st.integers(-(10**6), 10**6).map(str),
                st.sampled_from(["2 ** 31", "2 ** 63", "-2 ** 63 - 1", "10 ** 100", "2 ** 5000",
                                 "-2 ** 5000", "10 ** 4000", "900000000", "2 ** 99999"]))
FORMATS = ["('{:' + str(N) + '}').format(1)", "format(1, str(N))", "f'{1:{N}}'",
           "('%' + str(N) + 'd') % 7", "'%*d' % (N, 7)", "'a'.ljust(N)", "'a'.rjust(N)",
           "'a'.center(N)", "'7'.zfill(N)", "('{:.' + str(N) + 'f}').format(1.5)",
           "format(1.5, '.' + str(N) + 'e')", "'x' * N", "[0] * N", "' '.join(['a'] * N)",
           "('%.' + str(N) + 'f') % 2.5", "('%-' + str(N) + 's') % 'a'"]


@SHAPES
@given(st.sampled_from(FORMATS), BIG)
def test_huge_formats_and_widths_are_limited_or_run(form: str, n: str):
    assert_only_gradtrace_errors(f"N = {n}\ny = {form}\nprint(len(y))\n")


BIG_INT_USES = ["torch.tensor(N)", "torch.ones(N)", "torch.ones(3)[N]", "torch.ones(2, 2).sum(N)",
                "range(N)", "torch.full((2,), N)", "torch.ones(4).view(N)", "round(1.5, N)",
                "chr(N)", "hash(N)", "N << 3", "3 << N", "N ** 3", "N // 7", "N % 7",
                "{N: 1}[N]", "str(N)[:5]", "f'{N!r}'[:5]", "float(N)", "int(str(N)[:100])",
                "torch.ones(2, requires_grad=N)", "torch.randn(N)", "torch.arange(N)",
                "torch.ones(3) * N", "torch.ones(3).pow(N)", "torch.zeros(2).fill_(N)",
                "max(N, 1)", "sum([N, N])", "divmod(N, 3)", "abs(-N)", "[1, 2][N:N + 1]"]


@SHAPES
@given(st.sampled_from(BIG_INT_USES), BIG)
def test_big_ints_everywhere_give_python_or_torch_errors(use: str, n: str):
    assert_only_gradtrace_errors(f"import torch\nN = {n}\ny = {use.replace('N', '(N)')}\n"
                                 "print(y)\n")


def _literal(text: str) -> str:
    """A string literal for any text, lone surrogates and control characters included."""
    return "'" + "".join(c if " " <= c <= "~" and c not in "'\\" else f"\\U{ord(c):08x}"
                         for c in text) + "'"


UNSAFE = st.text(st.one_of(st.characters(min_codepoint=0, max_codepoint=0x9f),
                           st.sampled_from("\u2028\u202e\u200f\ud800\udcff\udfff\x1b\x9b"),
                           st.characters()), max_size=12)
STRING_PLACES = ["print(S)", "raise ValueError(S)", "assert False, S", "x = {S: S}\nprint(x)",
                 "print(f'{S}{S!r}')", "t = torch.ones(2, requires_grad=True)\nname = S\n"
                 "y = (t * 2).sum()\ny.backward()\nprint(name, t.grad)",
                 "class E(Exception):\n    pass\nraise E(S)", "print(repr(S), ascii(S))",
                 "x = [S] * 3\nd = {'k': S}", "print(S.upper(), S.split(), S.encode)"]


@SHAPES
@given(st.sampled_from(STRING_PLACES), UNSAFE)
def test_surrogates_and_control_characters_reach_the_views_escaped(place: str, text: str):
    """Whatever a script's strings hold, the report, the explanation and the JSON are
    strict UTF-8 and hold no control character but newline and tab."""
    import io
    import json

    from gradtrace.printable import json_text
    from gradtrace.render import trace_frozen
    from gradtrace.render.explain import Options, explain, print_explanation, to_json
    from gradtrace.render.json import dumps
    from gradtrace.render.tables import SECTIONS, print_report
    from gradtrace.render.terminal import console

    script = "import torch\n" + place.replace("S", _literal(text)) + "\n"
    result = run_text(script, "strings.gt", limits=SMALL, trace=True)
    assert not isinstance(result.error, InternalError), result.error
    texts = []
    with trace_frozen():
        out = io.StringIO()
        print_report(console(100, file=out), result, SECTIONS)
        texts.append(out.getvalue())
        explanation = explain(result, "en", Options(width=100))
        out = io.StringIO()
        print_explanation(console(100, file=out, highlight=False), explanation)
        texts.append(out.getvalue())
        documents = [dumps(result), json_text(json.dumps(to_json(explanation),
                                                         ensure_ascii=False))]
    for doc in documents:
        json.loads(doc.encode("utf-8").decode("utf-8"))  # strict: no lone surrogate
    for shown in texts + documents:
        shown.encode("utf-8")
        bad = [c for c in shown if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) < 0xa0]
        assert not bad, (bad, shown[:300])
