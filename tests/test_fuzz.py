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
    layout = {"_INDENT": st.just("    "), "_DEDENT": st.just(""), "_NEWLINE": st.just("\n")}
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
