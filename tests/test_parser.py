"""Tests for gradtrace.parser: AST shapes, spans, precedence, errors and limits.

Many tests compare against CPython's own `ast` module through `normalise_py`,
which maps Python's tree onto gradtrace's node names and spans, so "what Python
does" is checked rather than restated by hand.
"""
from __future__ import annotations

import ast as pyast
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradtrace import syntax as S
from gradtrace.errors import GtSyntaxError, NotSupportedError
from gradtrace.parser import MAX_NESTING, parse, parse_expression
from gradtrace.source import Source, Span

REPO = Path(__file__).resolve().parent.parent
CONFORMANCE = Path(__file__).resolve().parent / "conformance"


# --------------------------------------------------------------------- helpers


def parse_text(text: str) -> S.Module:
    return parse(Source("test.gt", text))


def stmts(text: str) -> tuple[S.Stmt, ...]:
    return parse_text(text).body


def one(text: str) -> S.Stmt:
    body = stmts(text)
    assert len(body) == 1, body
    return body[0]


def expr(text: str) -> S.Expr:
    return parse_expression(Source("<expr>", text))


def value(text: str) -> S.Expr:
    """The value of `x = <text>`."""
    node = one(f"x = {text}\n")
    assert isinstance(node, S.Assign)
    return node.value


def error(text: str, kind: type = GtSyntaxError) -> Any:
    with pytest.raises(kind) as info:
        parse_text(text)
    assert type(info.value) is kind, info.value
    return info.value


def at(line: int, column: int, end_line: int, end_column: int) -> Span:
    return Span(line, column, end_line, end_column)


_PY_OPS = {
    "Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "FloorDiv": "//", "Mod": "%",
    "Pow": "**", "MatMult": "@", "BitAnd": "&", "BitOr": "|", "BitXor": "^",
    "USub": "-", "UAdd": "+", "Invert": "~", "Not": "not", "And": "and", "Or": "or",
    "Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=",
    "Is": "is", "IsNot": "is not", "In": "in", "NotIn": "not in",
}


def _py_span(node: pyast.AST) -> tuple[int, int, int, int]:
    return (node.lineno, node.col_offset + 1, node.end_lineno, node.end_col_offset + 1)


def normalise_py(node: Any, spans: bool = True) -> Any:
    """CPython's ast as (kind, span, fields...) tuples in gradtrace's vocabulary."""
    n = lambda x: normalise_py(x, spans)  # noqa: E731
    if isinstance(node, list):
        return tuple(n(x) for x in node)
    if node is None:
        return None
    kind = type(node).__name__
    span = _py_span(node) if spans and hasattr(node, "lineno") else None
    if isinstance(node, pyast.Module):
        return ("Module", n(node.body))
    if isinstance(node, pyast.Expression):
        return n(node.body)
    if isinstance(node, pyast.Expr):
        return ("ExprStmt", span, n(node.value))
    if isinstance(node, pyast.Assign):
        return ("Assign", span, n(node.targets), n(node.value))
    if isinstance(node, pyast.AugAssign):
        return ("AugAssign", span, n(node.target), _PY_OPS[type(node.op).__name__], n(node.value))
    if isinstance(node, (pyast.If, pyast.While)):
        return (kind, span, n(node.test), n(node.body), n(node.orelse))
    if isinstance(node, pyast.For):
        return ("For", span, n(node.target), n(node.iter), n(node.body), n(node.orelse))
    if isinstance(node, (pyast.Break, pyast.Continue, pyast.Pass)):
        return (kind, span)
    if isinstance(node, (pyast.FunctionDef, pyast.Lambda)):
        args = node.args
        positional = args.posonlyargs + args.args
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        kinds = ["positional_only"] * len(args.posonlyargs) + ["positional"] * len(args.args)
        params = [("Param", a.arg, n(d), k) for a, d, k in zip(positional, defaults, kinds,
                                                               strict=True)]
        if args.vararg is not None:
            params.append(("Param", args.vararg.arg, None, "var_positional"))
        params += [("Param", a.arg, n(d), "keyword_only")
                   for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
        if args.kwarg is not None:
            params.append(("Param", args.kwarg.arg, None, "var_keyword"))
        if isinstance(node, pyast.Lambda):
            return ("Lambda", span, tuple(params), n(node.body))
        return ("FunctionDef", span, node.name, tuple(params), n(node.body),
                n(node.decorator_list))
    if isinstance(node, pyast.ClassDef):
        return ("ClassDef", span, node.name, n(node.bases), n(node.keywords), n(node.body),
                n(node.decorator_list))
    if isinstance(node, (pyast.Global, pyast.Nonlocal)):
        return (kind, span, tuple(node.names))
    if isinstance(node, pyast.Delete):
        return ("Delete", span, n(node.targets))
    if isinstance(node, pyast.AnnAssign):
        return ("AnnAssign", span, n(node.target), n(node.annotation), n(node.value))
    if isinstance(node, (pyast.Yield, pyast.YieldFrom)):
        return (kind, span, n(node.value))
    if isinstance(node, pyast.Set):
        return ("SetExpr", span, n(node.elts))
    if isinstance(node, (pyast.SetComp, pyast.GeneratorExp)):
        return (kind, span, n(node.elt), n(node.generators))
    if isinstance(node, pyast.DictComp):
        return ("DictComp", span, n(node.key), n(node.value), n(node.generators))
    if isinstance(node, pyast.Return):
        return ("Return", span, n(node.value))
    if isinstance(node, pyast.With):
        items = tuple(("WithItem", n(i.context_expr), n(i.optional_vars)) for i in node.items)
        return ("With", span, items, n(node.body))
    if isinstance(node, pyast.Try):
        return ("Try", span, n(node.body), n(node.handlers), n(node.orelse), n(node.finalbody))
    if isinstance(node, pyast.ExceptHandler):
        return ("ExceptHandler", span, n(node.type), node.name, n(node.body))
    if isinstance(node, pyast.Raise):
        return ("Raise", span, n(node.exc), n(node.cause))
    if isinstance(node, pyast.Assert):
        return ("Assert", span, n(node.test), n(node.msg))
    if isinstance(node, pyast.Import):
        return ("Import", span, n(node.names))
    if isinstance(node, pyast.ImportFrom):
        return ("ImportFrom", span, node.module, n(node.names))
    if isinstance(node, pyast.alias):
        return ("Alias", span, node.name, node.asname)
    if isinstance(node, pyast.Constant):
        return ("Constant", span, type(node.value).__name__, node.value)
    if isinstance(node, pyast.JoinedStr):
        return ("FString", span, tuple(
            v.value if isinstance(v, pyast.Constant) else n(v) for v in node.values))
    if isinstance(node, pyast.FormattedValue):
        conversion = None if node.conversion == -1 else chr(node.conversion)
        spec = None
        if node.format_spec is not None:
            spec = "".join(v.value for v in node.format_spec.values)
        # CPython 3.11 gives FormattedValue the whole f-string's span: don't compare it.
        return ("FormattedValue", n(node.value), conversion, spec)
    if isinstance(node, pyast.Name):
        return ("Name", span, node.id)
    if isinstance(node, pyast.Attribute):
        return ("Attribute", span, n(node.value), node.attr)
    if isinstance(node, pyast.Subscript):
        return ("Subscript", span, n(node.value), n(node.slice))
    if isinstance(node, pyast.Slice):
        return ("Slice", span, n(node.lower), n(node.upper), n(node.step))
    if isinstance(node, pyast.Starred):
        return ("Starred", span, n(node.value))
    if isinstance(node, pyast.Call):
        return ("Call", span, n(node.func), n(node.args), n(node.keywords))
    if isinstance(node, pyast.keyword):
        return ("Keyword", span, node.arg, n(node.value))
    if isinstance(node, pyast.UnaryOp):
        return ("UnaryOp", span, _PY_OPS[type(node.op).__name__], n(node.operand))
    if isinstance(node, pyast.BinOp):
        return ("BinOp", span, n(node.left), _PY_OPS[type(node.op).__name__], n(node.right))
    if isinstance(node, pyast.BoolOp):
        return ("BoolOp", span, _PY_OPS[type(node.op).__name__], n(node.values))
    if isinstance(node, pyast.Compare):
        ops = tuple(_PY_OPS[type(o).__name__] for o in node.ops)
        return ("Compare", span, n(node.left), ops, n(node.comparators))
    if isinstance(node, pyast.IfExp):
        return ("IfExp", span, n(node.test), n(node.body), n(node.orelse))
    if isinstance(node, pyast.List):
        return ("ListExpr", span, n(node.elts))
    if isinstance(node, pyast.Tuple):
        return ("TupleExpr", span, n(node.elts))
    if isinstance(node, pyast.Dict):
        return ("DictExpr", span, n(node.keys), n(node.values))
    if isinstance(node, pyast.ListComp):
        return ("ListComp", span, n(node.elt), n(node.generators))
    if isinstance(node, pyast.NamedExpr):
        return ("NamedExpr", span, n(node.target), n(node.value))
    if isinstance(node, pyast.comprehension):  # CPython gives these no position
        return ("Comprehension", n(node.target), n(node.iter), n(node.ifs))
    raise AssertionError(f"no normaliser for {kind}")


def normalise(node: Any, spans: bool = True) -> Any:
    """gradtrace's AST in the same shape as normalise_py."""
    n = lambda x: normalise(x, spans)  # noqa: E731
    if isinstance(node, tuple):
        return tuple(n(x) for x in node)
    if not isinstance(node, S.Node):
        return node
    kind = type(node).__name__
    span = (node.span.line, node.span.column, node.span.end_line,
            node.span.end_column) if spans else None
    if isinstance(node, S.Module):
        return ("Module", n(node.body))
    if isinstance(node, S.Constant):
        return ("Constant", span, type(node.value).__name__, node.value)
    if isinstance(node, S.FString):
        return ("FString", span, tuple(p if isinstance(p, str) else n(p) for p in node.parts))
    if isinstance(node, S.FormattedValue):
        return ("FormattedValue", n(node.value), node.conversion, node.spec)
    if isinstance(node, (S.Lambda, S.FunctionDef)):
        params = tuple(("Param", p.name, n(p.default), p.kind) for p in node.params)
        if isinstance(node, S.Lambda):
            return ("Lambda", span, params, n(node.body))
        return ("FunctionDef", span, node.name, params, n(node.body), n(node.decorators))
    if isinstance(node, S.WithItem):
        return ("WithItem", n(node.context_expr), n(node.optional_vars))
    if isinstance(node, S.With):
        return ("With", span, n(node.items), n(node.body))
    if isinstance(node, S.Comprehension):
        return ("Comprehension", n(node.target), n(node.iter), n(node.ifs))
    fields = [f for f in type(node).fields if f != "span"]
    out: list[Any] = [kind, span]
    for name in fields:
        out.append(n(getattr(node, name)))
    return tuple(out)


def same_as_python(text: str, spans: bool = True) -> None:
    """Our AST (with spans) equals CPython's for the same script."""
    ours = normalise(parse_text(text), spans)
    theirs = normalise_py(pyast.parse(text), spans)
    assert ours == theirs


# ------------------------------------------------------------- basic behaviour


def test_empty_and_comment_only_files_parse_to_an_empty_module():
    for text in ["", "\n", "\n\n  \n", "# just a comment", "# a\n\n   # b\n\t\n"]:
        assert parse_text(text).body == ()


def test_module_span_covers_the_whole_text():
    assert parse_text("x = 1\ny = 22\n").span == at(1, 1, 2, 7)
    assert parse_text("").span == at(1, 1, 1, 1)


def test_file_without_trailing_newline_parses():
    assert isinstance(one("x = 1"), S.Assign)
    assert isinstance(one("if x:\n    y = 1"), S.If)
    assert isinstance(one("x = 1  # trailing comment"), S.Assign)


def test_crlf_and_cr_line_endings_parse_like_lf():
    lf = normalise(parse_text("if a:\n    b = 1\nc = 2\n"))
    assert normalise(parse_text("if a:\r\n    b = 1\r\nc = 2\r\n")) == lf
    assert normalise(parse_text("if a:\r    b = 1\rc = 2\r")) == lf


def test_tabs_indent_blocks():
    body = one("if a:\n\tb = 1\n\tc = 2\n").body
    assert [type(s) for s in body] == [S.Assign, S.Assign]
    assert body[1].span == at(3, 2, 3, 7)


def test_unicode_names_and_columns_count_characters():
    node = one("α = 'été' + β\n")
    assert normalise(node.targets[0]) == normalise(S.Name(at(1, 1, 1, 2), "α"))
    assert node.value.right.span == at(1, 13, 1, 14)


def test_byte_order_mark_is_ignored():
    assert one("\ufeffx = 1\n").span == at(1, 1, 1, 6)


def test_blank_lines_and_comments_between_statements_and_in_blocks():
    body = stmts("x = 1\n\n# c\n   # indented comment\nif x:\n\n    # c\n    y = 2\n\n    z = 3\n")
    assert [type(s) for s in body] == [S.Assign, S.If]
    assert len(body[1].body) == 2


def test_semicolons_separate_simple_statements():
    body = stmts("a = 1; b = 2; print(a);\n")
    assert [type(s) for s in body] == [S.Assign, S.Assign, S.ExprStmt]
    assert body[1].span == at(1, 8, 1, 13)


def test_single_line_suite_with_semicolons():
    node = one("if x: a = 1; b = 2\n")
    assert [type(s) for s in node.body] == [S.Assign, S.Assign]


def test_line_continuation_inside_brackets_and_with_backslash():
    node = one("x = (1 +\n     2) + \\\n    3\n")
    assert isinstance(node.value, S.BinOp)
    assert node.span == at(1, 1, 3, 6)
    node = one("f(a,\n  # comment inside\n  b,\n)\n")
    assert len(node.value.args) == 2


def test_parse_expression_reads_one_expression():
    node = expr("a + b * c")
    assert isinstance(node, S.BinOp) and node.op == "+"
    assert isinstance(expr("a, b"), S.TupleExpr)


def test_parser_is_built_once_per_process():
    from gradtrace.parser import driver as parser

    first = parser._get_parser()
    parse_text("x = 1\n")
    assert parser._get_parser() is first


def test_parser_finds_the_repository_grammar_and_no_copy_lives_in_the_package():
    from gradtrace.parser import driver as parser

    assert parser._grammar_text() == (REPO / "grammar" / "gradtrace.lark").read_text()
    assert not (REPO / "gradtrace" / "grammar").exists()


def test_parsing_with_the_grammar_cache_disabled_gives_the_same_tree(tmp_path):
    script = "import torch\nx = torch.ones(2, requires_grad=True)\nprint(f'{x.sum():.2f}')\n"
    code = (
        "import sys; from gradtrace.parser import parse; from gradtrace.source import Source;"
        f"print(repr(parse(Source('s', {script!r}))))"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO), GRADTRACE_PARSER_CACHE="0")
    fresh = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout
    assert fresh.strip() == repr(parse_text(script))
    assert list(tmp_path.iterdir()) == []  # nothing written to the working directory


def test_a_parser_read_back_from_the_cache_parses_and_reports_errors_as_a_fresh_one(tmp_path):
    """The cache holds the built parser pickled whole (grammar_cache.py): what it reads back
    must parse, and explain syntax errors, as a parser built in the process does; a cache
    file that cannot be read is built again and replaced."""
    scripts = ["import torch\nx = torch.ones(2, requires_grad=True)\nprint(f'{x.sum():.2f}')\n",
               "class M(nn.Module):\n    def forward(self, x):\n        return x @ x.T\n",
               "match p:\n    case [a, *rest] if a > 0:\n        pass\n",
               "x = (1,\n", "def f(:\n    pass\n", "if x\n    y = 1\n", "a = 1 +* 2\n"]
    code = (
        "from gradtrace.parser import parse; from gradtrace.source import Source\n"
        "from gradtrace.errors import GradtraceError\n"
        f"for text in {scripts!r}:\n"
        "    try:\n        print(repr(parse(Source('s', text))))\n"
        "    except GradtraceError as e:\n        print(type(e).__name__, e.span, e)\n"
    )

    def run(**env: str) -> str:
        env = dict(os.environ, PYTHONPATH=str(REPO), XDG_CACHE_HOME=str(tmp_path), **env)
        return subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                              capture_output=True, text=True, check=True).stdout

    fresh = run(GRADTRACE_PARSER_CACHE="0")
    assert not (tmp_path / "gradtrace").exists()
    assert run() == fresh  # built, then stored
    [stored] = (tmp_path / "gradtrace").iterdir()
    written = stored.stat().st_mtime_ns
    assert run() == fresh  # read back
    assert stored.stat().st_mtime_ns == written
    stored.write_bytes(stored.read_bytes()[:1000])  # cut short
    assert run() == fresh
    assert stored.stat().st_size > 1000  # replaced
    assert [p.name for p in (tmp_path / "gradtrace").iterdir()] == [stored.name]


# ------------------------------------------------------------------ statements


def test_expression_statement():
    node = one("print(1)\n")
    assert isinstance(node, S.ExprStmt) and isinstance(node.value, S.Call)
    assert node.span == at(1, 1, 1, 9)


def test_chained_assignment_keeps_targets_in_order():
    node = one("a = b = 3\n")
    assert [t.id for t in node.targets] == ["a", "b"]
    assert normalise(node.value) == normalise(S.Constant(at(1, 9, 1, 10), 3))


def test_tuple_and_list_unpacking_targets():
    node = one("a, (b, c) = t\n")
    (target,) = node.targets
    assert isinstance(target, S.TupleExpr) and isinstance(target.elts[1], S.TupleExpr)
    assert target.span == at(1, 1, 1, 10)
    (target,) = one("(g,) = grads\n").targets
    assert isinstance(target, S.TupleExpr) and len(target.elts) == 1
    (target,) = one("[a, b] = pair\n").targets
    assert isinstance(target, S.ListExpr)
    same_as_python("a, (b, c) = t\n(g,) = grads\n[a, [b]] = pair\nx, = y\n")


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**", "@"])
def test_augmented_assignment_stores_the_binary_operator(op):
    node = one(f"x {op}= 2\n")
    assert isinstance(node, S.AugAssign) and node.op == op
    same_as_python(f"x.grad {op}= y[0]\n")


def test_attribute_and_subscript_targets():
    same_as_python("x.grad = None\nt[0] = 5.0\nt[0, 1:] = v\nx.data[::2] = 0\n")
    (target,) = one("t[0, 1:] = v\n").targets
    assert isinstance(target, S.Subscript) and isinstance(target.index, S.TupleExpr)


def test_if_elif_else_nests_elif_in_orelse_with_spans():
    node = one("if a:\n    x = 1\nelif b:\n    x = 2\nelif c:\n    x = 3\nelse:\n    x = 4\n")
    assert node.span == at(1, 1, 8, 10)
    (second,) = node.orelse
    assert isinstance(second, S.If) and second.test.id == "b"
    assert second.span == at(3, 1, 8, 10)
    (third,) = second.orelse
    assert third.test.id == "c" and isinstance(third.orelse[0], S.Assign)
    same_as_python("if a:\n    x = 1\nelif b:\n    x = 2\nelif c:\n    x = 3\nelse:\n    x = 4\n")


def test_for_and_while_with_else_break_continue_pass():
    text = (
        "for i, x in enumerate(xs):\n    if x:\n        continue\n    break\nelse:\n    pass\n"
        "while n > 0:\n    n -= 1\nelse:\n    done = True\n"
    )
    same_as_python(text)
    loop = stmts(text)[0]
    assert isinstance(loop, S.For) and isinstance(loop.target, S.TupleExpr)
    assert isinstance(loop.orelse[0], S.Pass)


def test_for_over_a_bare_tuple():
    same_as_python("for x in a, b:\n    pass\n")


def test_def_with_defaults_and_return():
    text = "def f(x, y=2):\n    return x * y\ndef g():\n    return\ndef h(a,):\n    return a, 1\n"
    same_as_python(text)
    node = stmts(text)[0]
    assert [p.name for p in node.params] == ["x", "y"]
    assert normalise(node.params[1].default) == normalise(S.Constant(at(1, 12, 1, 13), 2))
    assert node.params[1].span == at(1, 10, 1, 13)


def test_lambda_with_and_without_parameters():
    same_as_python("f = lambda x, y=1: x * y\ng = lambda: 3\n")
    node = value("lambda x, y=1: x * y")
    assert isinstance(node, S.Lambda) and [p.name for p in node.params] == ["x", "y"]


def test_with_items_and_as_targets():
    text = "with torch.no_grad():\n    pass\nwith A() as b, C():\n    pass\n"
    same_as_python(text)
    node = stmts(text)[1]
    assert normalise(node.items[0].optional_vars) == normalise(S.Name(at(3, 13, 3, 14), "b"))
    assert node.items[1].optional_vars is None
    assert node.items[0].span == at(3, 6, 3, 14)


def test_try_except_else_finally():
    text = (
        "try:\n    f()\nexcept RuntimeError as e:\n    print(e)\nexcept (A, B) as e:\n    pass\n"
        "except ValueError:\n    pass\nexcept:\n    raise\nelse:\n    x = 1\nfinally:\n    y = 2\n"
        "try:\n    pass\nfinally:\n    pass\n"
    )
    same_as_python(text)
    node = stmts(text)[0]
    assert [h.name for h in node.handlers] == ["e", "e", None, None]
    assert isinstance(node.handlers[1].type, S.TupleExpr)
    assert node.handlers[3].type is None


def test_raise_assert_and_imports():
    same_as_python(
        "raise\nraise ValueError('bad')\nraise ValueError('bad') from err\n"
        "assert x\nassert x > 0, 'positive'\n"
        "import torch\nimport torch.nn.functional as F\nimport numpy as np, math\n"
        "from torch.nn import functional as F\nfrom torch import nn\n"
        "from torch import (nn, autograd as ag,)\n"
    )
    node = one("import torch.nn.functional as F\n")
    expected = (S.Alias(at(1, 8, 1, 32), "torch.nn.functional", "F"),)
    assert normalise(node.names) == normalise(expected)
    node = one("from torch.nn import functional as F\n")
    assert node.module == "torch.nn" and node.names[0].asname == "F"


# ----------------------------------------------------------------- expressions


def test_integer_literals():
    assert normalise(value("42")) == normalise(S.Constant(at(1, 5, 1, 7), 42))
    assert value("0xFF").value == 255
    assert value("1_000_000").value == 1000000
    assert value("0o17").value == 15 and value("0b101").value == 5
    assert value("0").value == 0 and value("00").value == 0


@pytest.mark.parametrize("text, expected", [
    ("1.", 1.0), (".5", 0.5), ("1e-5", 1e-5), ("1_000.0", 1000.0), ("2.5E3", 2500.0),
    ("1.e2", 100.0),
])
def test_float_literals(text, expected):
    node = value(text)
    assert isinstance(node.value, float) and node.value == expected


def test_bool_none_and_ellipsis_constants():
    assert [value(t).value for t in ["True", "False", "None"]] == [True, False, None]
    ellipsis = value("x[..., 0]").index.elts[0]
    assert normalise(ellipsis) == normalise(S.Constant(at(1, 7, 1, 10), Ellipsis))


@pytest.mark.parametrize("text", [
    r"'single'", r'"double"', r"'''triple\nquoted'''", '"""multi\nline"""',
    r"'esc\n\t\\ \' \" \x41 \u00e9 \N{GREEK SMALL LETTER ALPHA} \101'",
    r"r'raw\n\d'", r"R'C:\path'", r"'unknown \d escape'", "'a' 'b' \"c\"",
    r"u'unicode'", "'line\\\ncontinued'", "'é ünïcode'",
])
def test_string_literals_match_python(text):
    node = value(text)
    assert isinstance(node, S.Constant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Python warns about '\\d'
        assert node.value == pyast.literal_eval(text)


def test_adjacent_strings_span_all_of_them():
    assert value("'a'  \"b\"").span == at(1, 5, 1, 13)
    node = one("x = ('a'\n     'b')\n").value
    assert node.value == "ab" and node.span == at(1, 6, 2, 9)


def test_fstrings_with_conversion_spec_and_brace_escapes():
    node = value("f'{x} and {y!r} = {z:.4f} {{literal}} {w!s:>10}'")
    assert isinstance(node, S.FString)
    x, and_, y, eq, z, lit, w = node.parts
    assert (and_, eq, lit) == (" and ", " = ", " {literal} ")
    assert (x.conversion, x.spec) == (None, None)
    assert (y.conversion, z.spec, w.conversion, w.spec) == ("r", ".4f", "s", ">10")
    assert [p.value.id for p in (x, y, z, w)] == ["x", "y", "z", "w"]


def test_fstrings_match_python():
    same_as_python(
        "print(f'{x} and {y!r} = {z:.4f} {{literal}} {w!s:>10}')\n"
        "print(f\"{a['k'] + 1:>10}\" if False else f'{t.grad}\\n')\n"
    )
    same_as_python("print('a' f'{b}' 'c' rf'\\d{e}')\n")


def test_fstring_field_spans_point_into_the_file():
    node = value("f'ab {x + y:.2f} {t.grad!r}'")
    first, second = node.parts[1], node.parts[3]
    assert first.span == at(1, 10, 1, 21)  # the whole {x + y:.2f}
    assert first.value.span == at(1, 11, 1, 16)
    assert first.value.left.span == at(1, 11, 1, 12)
    assert first.value.right.span == at(1, 15, 1, 16)
    assert second.value.span == at(1, 23, 1, 29)
    assert second.value.value.span == at(1, 23, 1, 24)


def test_fstring_spans_in_triple_quoted_multiline_strings():
    node = one("x = f'''line one\n  {a +\n b} end'''\n").value
    field = node.parts[1]
    assert field.value.span == at(2, 4, 3, 3)
    assert field.value.right.span == at(3, 2, 3, 3)


def test_fstring_spec_with_fields_is_an_fstring_of_text_and_fields():
    (field,) = value("f'{x:>{w}.{d}f}'").parts
    spec = field.spec
    assert isinstance(spec, S.FString)
    assert [p if isinstance(p, str) else p.value.id for p in spec.parts] == [">", "w", ".", "d",
                                                                           "f"]
    assert spec.parts[1].span == at(1, 11, 1, 14)  # the whole {w}
    assert value("f'{x:>10}'").parts[0].spec == ">10"  # text alone stays text


def test_fstring_self_documenting_field():
    node = value("f'{x=} {y = :.1f}'")
    assert node.parts[0] == "x="
    assert node.parts[1].conversion == "r"
    assert node.parts[2] == " y = "
    assert (node.parts[3].conversion, node.parts[3].spec) == (None, ".1f")


def test_nested_fstring_in_a_field():
    node = value("f'{f\"{x}\"}'")
    inner = node.parts[0].value
    assert isinstance(inner, S.FString) and inner.parts[0].value.span == at(1, 11, 1, 12)


def test_lists_tuples_and_dicts():
    same_as_python(
        "a = []\nb = [1, 2,]\nc = ()\nd = (1,)\ne = 1, 2\nf = (1, 2)\n"
        "g = {}\nh = {'k': 1, 2: [3]}\ni = [*xs, 1]\nreturn_it = (a, *b)\n"
    )
    assert value("()").span == at(1, 5, 1, 7)
    assert value("(1,)").span == at(1, 5, 1, 9)
    assert value("1, 2").span == at(1, 5, 1, 9)
    same_as_python("x = 1, 2,\ny = [1, 2,]\nz = {1: 2,}\n")


def test_return_of_a_bare_tuple():
    node = one("def f():\n    return a, b\n").body[0]
    assert isinstance(node.value, S.TupleExpr) and node.value.span == at(2, 12, 2, 16)


def test_list_comprehensions_with_several_for_and_if():
    text = "y = [x * y for x in xs if x if x > 1 for y in range(x) if y]\nz = [i for i, v in e]\n"
    same_as_python(text)
    node = stmts(text)[0].value
    assert len(node.generators) == 2 and len(node.generators[0].ifs) == 2
    assert node.generators[0].span == at(1, 12, 1, 37)


def test_generator_expression_as_sole_argument():
    node = value("sum(x * x for x in xs)")
    (arg,) = node.args
    # CPython's span also covers the call's parentheses; ours is the expression's own
    assert isinstance(arg, S.GeneratorExp) and arg.span == at(1, 9, 1, 26)
    assert node.span == at(1, 5, 1, 27)
    same_as_python("print(sum(x for x in y if x), max((a * b for a, b in z), default=0))\n",
                   spans=False)


def test_indexing_and_slicing():
    same_as_python(
        "a = x[0]\nb = x[:, 1]\nc = x[1:3]\nd = x[::2]\ne = x[None]\nf = x[..., 0]\n"
        "g = x[1:2, ::-1, None]\nh = x[:]\ni = x[a:b:c]\nj = x[(1, 2)]\nk = x[i][j]\n"
    )


def test_attribute_access_and_calls():
    same_as_python(
        "torch.nn.functional.relu(x)\nf(1, b, *args, k=2)\nf()\ng(a)(b)\n"
        "x.grad_fn.next_functions[0][0]\nf(*a, k=1, *b)\nprint(*[1, 2], sep='')\n"
    )


def test_unary_and_binary_operators():
    same_as_python(
        "a = -x + +y - ~z\nb = not x\nc = a + b - c * d / e // f % g ** h @ i\n"
        "d = a & b | c ^ d\n"
    )


def test_comparisons_including_chains_and_negated_operators():
    same_as_python(
        "a = x < y < z\nb = x is None\nc = x is not None\nd = x in y\ne = x not in y\n"
        "f = a == b != c <= d >= e > f\n"
    )
    node = value("a < b < c")
    assert node.ops == ("<", "<") and len(node.comparators) == 2


def test_boolean_operators_flatten_chains():
    node = value("a and b and c or d")
    assert node.op == "or" and len(node.values) == 2
    assert node.values[0].op == "and" and len(node.values[0].values) == 3
    same_as_python("x = a and b and c or d or e\ny = (a and b) and c\n")


def test_conditional_expression():
    same_as_python("x = a if c else b if d else e\ny = (lambda: 1) if c else 2\n")


# ------------------------------------------------------------------ precedence


@pytest.mark.parametrize("text", [
    "-x ** 2", "2 ** -1", "a ** b ** c", "not a == b", "not a and b", "a or b and c",
    "-a * b", "a + b * c", "(a + b) * c", "a - b - c", "a / b / c", "a | b ^ c & d",
    "a & b + c", "a + b @ c", "-x.y", "-f(x)[0]", "~a ** b", "a if b else c if d else e",
    "lambda: a if b else c", "x == -1", "not not a", "a < b == c", "a is not -b",
    "a in b or c not in d", "(a, b)[0]", "a.b.c(d)(e)", "2 ** -x ** 2", "+-~a",
])
def test_precedence_and_associativity_match_python(text):
    assert normalise(expr(text)) == normalise_py(pyast.parse(text, mode="eval"))


_NAMES = st.sampled_from(["a", "b", "x", "y1", "z_2"])
_NUMBERS = st.one_of(st.integers(0, 999).map(str), st.sampled_from(["1.5", "0.25", "1e3", ".5"]))
_BINARY = ["+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^"]
_COMPARE = ["<", "<=", "==", "!=", ">", ">=", "in", "not in", "is", "is not"]


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, st.sampled_from(_BINARY), inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(inner, st.sampled_from(_COMPARE), inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(" ".join),
        st.tuples(st.sampled_from(["-", "+", "~", "not "]), inner).map("".join),
        st.tuples(inner, inner, inner).map(lambda t: f"{t[0]} if {t[1]} else {t[2]}"),
        inner.map(lambda s: f"({s})"),
        st.tuples(inner, inner).map(lambda t: f"({t[0]}, {t[1]})"),
        st.tuples(inner, _NAMES).map(lambda t: f"{t[0]}.{t[1]}"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}:]"),
        st.tuples(inner, st.lists(inner, max_size=2)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.lists(inner, max_size=3).map(lambda xs: f"[{', '.join(xs)}]"),
    )


_EXPRESSIONS = st.recursive(st.one_of(_NAMES, _NUMBERS), _extend, max_leaves=12)


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_EXPRESSIONS)
def test_random_expressions_parse_exactly_like_python_including_spans(text):
    try:
        theirs = normalise_py(pyast.parse(text, mode="eval"))
    except SyntaxError:
        with pytest.raises((GtSyntaxError, NotSupportedError)):
            expr(text)
        return
    assert normalise(expr(text)) == theirs


# ------------------------------------------------------------------------ spans


def test_spans_are_one_based_and_end_exclusive():
    node = one("total = alpha + 10\n")
    assert node.span == at(1, 1, 1, 19)
    assert node.targets[0].span == at(1, 1, 1, 6)
    assert node.value.span == at(1, 9, 1, 19)
    assert node.value.left.span == at(1, 9, 1, 14)
    assert node.value.right.span == at(1, 17, 1, 19)


def test_parenthesised_expression_spans_exclude_parens_but_parents_include_them():
    node = value("(a + b) * c")
    assert node.span == at(1, 5, 1, 16)
    assert node.left.span == at(1, 6, 1, 11)
    node = value("f((a))")
    assert node.args[0].span == at(1, 8, 1, 9)
    assert node.span == at(1, 5, 1, 11)


def test_call_subscript_attribute_spans():
    node = value("t.sum(dim=0)[1].grad")
    assert node.span == at(1, 5, 1, 25)
    sub = node.value
    assert sub.span == at(1, 5, 1, 20)
    call = sub.value
    assert call.span == at(1, 5, 1, 17)
    assert call.keywords[0].span == at(1, 11, 1, 16)
    assert call.func.span == at(1, 5, 1, 10)


def test_compound_statement_spans_cover_their_blocks():
    text = "def f(x):\n    y = x\n\n    return y  # done\n\nz = 1\n"
    func, assign = stmts(text)
    assert func.span == at(1, 1, 4, 13)
    assert func.body[1].span == at(4, 5, 4, 13)
    assert assign.span == at(6, 1, 6, 6)


def test_statement_spans_match_python_for_all_statement_kinds():
    same_as_python(
        "import torch\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "for i in range(3):\n"
        "    if i % 2 == 0:\n"
        "        x.grad = None\n"
        "    elif i:\n"
        "        continue\n"
        "    else:\n"
        "        break\n"
        "while False:\n"
        "    pass\n"
        "with torch.no_grad():\n"
        "    x += 1\n"
        "try:\n"
        "    assert x is not None, 'x'\n"
        "except RuntimeError as err:\n"
        "    raise\n"
        "finally:\n"
        "    print(f'{x.sum():.3f}')\n"
        "def loss(a, b=2):\n"
        "    return (a - b) ** 2\n"
        "y = [v * 2 for v in x.tolist() if v]\n"
    )


# --------------------------------------------------------------- conformance


CONFORMANCE_SCRIPTS = sorted(CONFORMANCE.glob("*.gt"))


def test_conformance_cases_are_present():
    assert len(CONFORMANCE_SCRIPTS) >= 40


@pytest.mark.parametrize("path", CONFORMANCE_SCRIPTS, ids=lambda p: p.stem)
def test_conformance_script_parses_like_python(path):
    text = path.read_text(encoding="utf-8")
    same_as_python(text)


# ---------------------------------------------------------------------- errors


@pytest.mark.parametrize("text, message, line, column", [
    ("x = (1 +\n", "unexpected end of script: '(' was never closed", 1, 5),
    ("print(f(x)\n", "unexpected end of script: '(' was never closed", 1, 6),
    ("x = )\n", "unmatched ')'", 1, 5),
    ("print(1))\n", "unmatched ')'", 1, 9),
    ("x = (1, 2]\n", "closing parenthesis ']' does not match opening parenthesis '('", 1, 10),
    ("x = \n", "expected an expression, found end of line", 1, 4),
    ("x = (1 + )\n", "expected an expression, found ')'", 1, 10),
    ("y = 2 * * 3\n", "expected an expression, found '*'", 1, 9),
    ("if x > 1\n    pass\n", "expected ':'", 1, 9),
    ("def f(x)\n    pass\n", "expected ':'", 1, 9),
    ("while x\n    pass\n", "expected ':'", 1, 8),
    ("else:\n    pass\n", "unexpected 'else'", 1, 1),
    ("def (x):\n    pass\n", "expected a name, found '('", 1, 5),
    ("x.if = 3\n", "expected a name, found 'if'", 1, 3),
    ("x = [1 2]\n", "unexpected number 2; perhaps you forgot a comma?", 1, 8),
    ("f(a b)\n", "unexpected name 'b'; perhaps you forgot a comma?", 1, 5),
    ("x = 1 2\n", "unexpected number 2", 1, 7),
    ("pass x\n", "expected end of line, found name 'x'", 1, 6),
    ("if x = 1:\n    pass\n", "expected ':', found '=' (did you mean '=='?)", 1, 6),
    ("x = 1 if y\n", "expected 'else' after 'if' expression, found end of line", 1, 11),
    ("try:\n    pass\nx = 1\n", "expected 'except' or 'finally' block, found name 'x'", 3, 1),
    ("for x inrange(3):\n    pass\n",
     "unexpected name 'inrange' (missing a space after 'in'?)", 1, 7),
    ('print "hi"\n', "missing parentheses in call to 'print'; did you mean print(...)?", 1, 1),
    ("x = [1, 2\ny = 3\n",
     "unexpected name 'y': '[' on line 1 was never closed (or a comma is missing before this)",
     2, 1),
    ("x = (1 +\ny = 2\n", "'(' was never closed", 1, 5),
    ("f(a,\n  b\n  c)\n", "unexpected name 'c'; perhaps you forgot a comma?", 3, 3),
    ("x = foo(1,\n  2 +* 3)\n", "expected an expression, found '*'", 2, 6),
    ("x = ('(',\n  2 +* 3)  # )\n", "expected an expression, found '*'", 2, 6),
    ("x = $\n", "invalid character '$'", 1, 5),
    ("x = 1 ? 2\n", "invalid character '?'", 1, 7),
    ("print(\u201chi\u201d)\n",
     "invalid character '\u201c' (U+201C); use a straight quote ' or \" instead", 1, 7),
    ("x = 1 \u00a0+ 2\n", "invalid non-printable character U+00A0", 1, 7),
    ("x = \\ 1\n", "unexpected character after line continuation character", 1, 5),
    ('x = "abc\n', "unterminated string literal", 1, 5),
    ("x = 'abc\\'\n", "unterminated string literal", 1, 5),
    ('x = 1\ny = """abc\n\n', "unterminated triple-quoted string literal", 2, 5),
    ("x = 007\n", "leading zeros in decimal integer literals are not permitted", 1, 5),
    ("x = '\\x4'\n", "invalid \\x escape", 1, 6),
    ("x = '\\N{NOT A NAME}'\n", "unknown Unicode character name", 1, 6),
    ("f() = 3\n", "cannot assign to function call", 1, 1),
    ("(a, 1) = t\n", "cannot assign to literal", 1, 5),
    ("None = 1\n", "cannot assign to None", 1, 1),
    ("x + 1 = 2\n", "cannot assign to expression", 1, 1),
    ("for f() in x:\n    pass\n", "cannot assign to function call", 1, 5),
    ("a, b += 1\n", "'tuple' is an illegal expression for augmented assignment", 1, 1),
    ("def f(a=1, b):\n    pass\n", "non-default argument follows default argument", 1, 12),
    ("def f(a, a):\n    pass\n", "duplicate argument 'a' in function definition", 1, 10),
    ("f(a=1, b)\n", "positional argument follows keyword argument", 1, 8),
    ("f(a=1, a=2)\n", "keyword argument repeated: a", 1, 8),
    ("f(a.b=1)\n", 'expression cannot contain assignment, perhaps you meant "=="?', 1, 3),
    ("x = *a\n", "can't use starred expression here", 1, 5),
    ("x = [*a for a in b]\n", "iterable unpacking cannot be used in comprehension", 1, 6),
    ("return 5\n", "'return' outside function", 1, 1),
    ("for i in x:\n    pass\nbreak\n", "'break' outside loop", 3, 1),
    ("for x in y:\n    pass\nelse:\n    continue\n", "'continue' not properly in loop", 4, 5),
    ("def f():\n    for x in y:\n        def g():\n            break\n", "'break' outside loop",
     4, 13),
    ("try:\n    pass\nexcept:\n    pass\nexcept A:\n    pass\n",
     "default 'except:' must be last", 3, 1),
    ("x = f'{}'\n", "f-string: empty expression not allowed", 1, 7),
    ("x = f'{x!z}'\n", "f-string: invalid conversion character", 1, 9),
    ("x = f'{x'\n", "f-string: expecting '}'", 1, 7),
    ("x = f'}'\n", "f-string: single '}' is not allowed", 1, 7),
    ("x = f'{a)}'\n", "f-string: unmatched ')'", 1, 9),
    ("x = f'{a + }'\n", "expected an expression, found the end of the f-string expression",
     1, 12),
    ("x = f'{a b}'\n", "unexpected name 'b'", 1, 10),
    ("x = f'''\n{a +\n}'''\n", "expected an expression", 3, 1),
    ("x = f'{a:{b:{c}}}'\n", "f-string: expressions nested too deeply", 1, 13),
])
def test_syntax_errors_are_explained_in_words_at_the_right_place(text, message, line, column):
    err = error(text, GtSyntaxError)
    assert message in err.message
    assert (err.span.line, err.span.column) == (line, column), err.message
    assert "$END" not in err.message and "_NEWLINE" not in err.message


@pytest.mark.parametrize("text, message, line, column", [
    ("  x = 1\n", "unexpected indent", 1, 3),
    ("x = 1\n    y = 2\n", "unexpected indent", 2, 5),
    ("if x:\n    a = 1\n  b = 2\n", "unindent does not match any outer indentation level", 3, 3),
    ("if x:\npass\n", "expected an indented block after 'if' statement on line 1", 2, 1),
    ("def f():\n", "expected an indented block after function definition on line 1", 1, 9),
    ("for i in x:\n    while y:\n    pass\n",
     "expected an indented block after 'while' statement on line 2", 3, 5),
])
def test_indentation_errors(text, message, line, column):
    err = error(text)
    assert err.kind == "IndentationError"
    assert err.message == message
    assert (err.span.line, err.span.column) == (line, column)


def test_inconsistent_tabs_and_spaces_is_a_tab_error():
    err = error("if x:\n\tpass\n        pass\n")
    assert err.kind == "TabError"
    assert "inconsistent use of tabs and spaces" in err.message


def test_keywords_are_never_names():
    from gradtrace.parser import driver as parser

    for keyword in ["if", "else", "in", "not", "and", "lambda", "return", "pass", "def"]:
        with pytest.raises(GtSyntaxError):
            parse_text(f"x = {keyword}\n")
    from gradtrace.parser import tokens

    supported = tokens._KEYWORDS - set(tokens._UNSUPPORTED_KEYWORDS)
    assert supported <= set(parser._get_parser().postlex.keyword_types)


def test_keyword_glued_to_a_name_is_not_split():
    # The contextual lexer could read `elsex` as `else x`; it must stay one name.
    err = error("y = a if b elsex\n")
    assert "name 'elsex'" in err.message
    err = error("for i inrange(3):\n    pass\n")
    assert err.span == at(1, 7, 1, 14)
    assert value("a if b else x").orelse.id == "x"
    assert value("notx").id == "notx"


def test_backslash_continuing_into_the_end_of_the_script_is_an_error():
    for text in ["x = 1 \\\n", "\\", "x = 1 +\\"]:
        err = error(text)
        assert err.message == "unexpected end of script after a line continuation '\\'"
    assert isinstance(one("x = 1  # ends with a backslash \\\n"), S.Assign)


def test_parsing_from_several_threads_gives_the_same_trees():
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"x{i} = [f'{{a}}' for a in range({i})]\nif x{i}:\n    y = (1,\n  2)\n"
             for i in range(40)]
    expected = [normalise(parse_text(t)) for t in texts]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda t: normalise(parse_text(t)), texts * 3))
    assert results == expected * 3


def test_error_format_shows_the_line_and_a_caret():
    source = Source("bad.gt", "x = 1\ny = (2 +\n")
    with pytest.raises(GtSyntaxError) as info:
        parse(source)
    assert info.value.format(source) == (
        "bad.gt:2:5: SyntaxError: unexpected end of script: '(' was never closed\n"
        "    y = (2 +\n"
        "        ^"
    )


def test_no_lark_exception_escapes_for_garbage_input():
    for text in ["\x00", "))))", "((((", "def", "lambda", "x = [", "'''", "@", "\\",
                 "if:", "else", ":", "x = 1 +\\\n", "f(**)", "x[", "\t\tx", "a.", "1 .. 2"]:
        with pytest.raises((GtSyntaxError, NotSupportedError)):
            parse_text(text)


# ------------------------------------------------------------- not supported


@pytest.mark.parametrize("text, message", [
    ("async def f():\n    pass\n", "`async` is not supported"),
    ("x = await y\n", "`await` is not supported"),
    ("def f():\n    g = lambda: (yield)\n", "`yield` inside a lambda is not supported"),
    ("from . import x\n", "relative imports"),
])
def test_unsupported_python_is_rejected_by_name(text, message):
    err = error(text, NotSupportedError)
    assert message in err.message
    assert err.span is not None and err.span.line >= 1


def test_star_import_parses_at_module_level_and_nowhere_else():
    """`from M import *` is an ImportFrom of the one name "*"; in a function or a class body
    it is Python's compile-time SyntaxError, at the star."""
    node = one("from torch import *\n")
    assert type(node) is S.ImportFrom and node.module == "torch"
    assert [(a.name, a.asname) for a in node.names] == [("*", None)]
    one("if True:\n    from math import *\n")  # (still module level)
    for text in ("def f():\n    from math import *\n", "class A:\n    from math import *\n"):
        err = error(text, GtSyntaxError)
        assert err.message == "import * only allowed at module level"
        assert (err.span.line, err.span.column) == (2, 22)
    for text in ("from math import (*)\n", "from math import *, pi\n"):
        with pytest.raises(GtSyntaxError):
            parse_text(text)


def test_imaginary_literals_parse_as_complex_constants():
    """`2j`, `1_0.5e1J`: Python's complex numbers with no real part."""
    assert one("x = 2j\n").value.value == 2j
    assert one("x = 1_0.5e1J\n").value.value == complex("105J")


def test_match_and_case_are_soft_keywords():
    assert isinstance(one("match command:\n    case 1:\n        pass\n"), S.Match)
    assert isinstance(one("match = 3\n"), S.Assign)  # still an ordinary name
    assert isinstance(one("case = match.group(1)\n"), S.Assign)
    assert isinstance(one("match(x)\n"), S.ExprStmt)
    assert isinstance(one("match: int = 3\n"), S.AnnAssign)


def test_unsupported_keyword_error_points_at_the_keyword():
    err = error("x = 1\nif x:\n    await x\n", NotSupportedError)
    assert err.span == at(3, 5, 3, 10)


# ------------------------------------------------------------------- deep input


def test_deeply_nested_parentheses_give_a_clear_error():
    err = error("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    assert "too many nested parentheses" in err.message
    assert err.span.line == 1


def test_many_unary_minuses_give_a_clear_error():
    err = error("x = " + "-" * 20000 + "1\n", NotSupportedError)
    assert err.message == f"expression nested too deeply (limit {MAX_NESTING})"


def test_long_operator_chains_and_deep_attribute_chains_are_limited():
    err = error("x = " + " + ".join(["a"] * 5000) + "\n", NotSupportedError)
    assert err.message.startswith("too many operators in one expression")
    text = "if x == 0:\n    pass\n" + "".join(f"elif x == {i}:\n    pass\n" for i in range(300))
    err = error(text, NotSupportedError)
    assert err.message.startswith("too many `elif` branches")
    assert len(stmts("x = " + " + ".join(["a"] * 150) + "\n")) == 1
    error("x = a" + ".b" * 5000 + "\n", NotSupportedError)
    error("x = " + "not " * 5000 + "a\n", NotSupportedError)
    error("x = " + "lambda: " * 5000 + "1\n", NotSupportedError)


def test_moderate_nesting_parses():
    node = value("(" * 50 + "1" + ")" * 50)
    assert node.value == 1
    node = value("-" * 150 + "1")
    assert isinstance(node, S.UnaryOp)
    node = value("[" * 100 + "]" * 100)
    assert isinstance(node, S.ListExpr)


def test_deep_block_nesting_is_limited():
    text = "".join(" " * i + "if x:\n" for i in range(120)) + " " * 120 + "pass\n"
    err = error(text)
    assert "too many levels of indentation" in err.message


def test_deeply_nested_fstrings_are_fine():
    node = value("f'{f\"{x}\"}'")
    assert isinstance(node.parts[0].value, S.FString)


def test_a_flat_chain_of_many_operators_is_refused_with_the_limit():
    # 20,000 terms: `x*` repetitions are collected in one list, not copied per term
    source = Source("long.gt", "x = " + " + ".join(["1"] * 20_000) + "\n")
    with pytest.raises(NotSupportedError) as info:
        parse(source)
    assert info.value.message.startswith("too many operators in one expression (limit 200)")


def test_error_format_shows_a_window_of_a_long_line():
    line = "x = " + " + ".join(["1"] * 2_000)
    source = Source("long.gt", line + "\n")
    with pytest.raises(NotSupportedError) as info:
        parse(source)
    text, caret = info.value.format(source).splitlines()[1:]
    assert text == "    " + line[:100] + "…"
    assert caret == "        " + "^" * 96


def test_snippet_window_follows_the_error_column_and_marks_both_cuts():
    from gradtrace.source import Span

    line = "".join(chr(ord("a") + i % 26) for i in range(500))
    source = Source("long.gt", line + "\n")
    text, caret = source.snippet(Span(1, 301, 1, 304)).splitlines()
    assert text == "    …" + line[280:380] + "…"
    assert caret == "    " + " " * 21 + "^^^"
    assert text[caret.index("^"):][:3] == line[300:303]


# ------------------------------------- classes, decorators, signatures, generators


@pytest.mark.parametrize("text", [
    "class A:\n    x: int = 1\n    y: int\n    def f(self, a, /, b=2, *args, c, d=3, **kw) -> None:"
    "\n        return a\n",
    "class B(A, metaclass=M):\n    pass\nclass C():\n    pass\nclass D(*bases, **kw):\n    pass\n",
    "@dec\n@dec2(1)\ndef f():\n    pass\n@a.b\nclass D(object):\n    '''doc'''\n",
    "@torch.no_grad()\ndef f(x):\n    return x\n",
    "def g():\n    yield\n    yield 1\n    yield 1, 2\n    x = yield 3\n    yield from range(3)\n"
    "    y = (yield)\n    print((yield x))\n    z += yield\n    w: int = yield\n",
    "global a, b\ndef h():\n    nonlocal q\n",
    "del a, b[1], c.d\ndel (a, b)\ndel [a, b]\ndel a,\n",
    "a, *b = x\n*a, b = x\n[a, *b] = x\nfor a, *b in c: pass\n*a, = x\n",
    "f(*a, **k)\nf(x, *a, y=1, **k, z=2)\nf(**a, **b)\nf(a=1, *y)\n",
    "d = {**a, 'b': 1, **c}\ns = {1, 2, *x}\nt = {x for x in y if x}\nu = {k: v for k, v in w}\n"
    "g = (x for x in y)\nh = (x for x in y for z in x if z)\n",
    "l = lambda *a, **k: 1\nm = lambda a, /, b, *, c: 1\nn = lambda *, a: a\n"
    "o = lambda a=1, *b: b\n",
    "x: int\nx.y: int = 1\nz[0]: list[int] = 2\n",
    "def f(*, a, b=1):\n    pass\ndef g(a, b=1, /, c=2, *d, e, f=3, **g):\n    pass\n",
])
def test_new_syntax_parses_to_what_cpython_parses(text):
    same_as_python(text)


def test_parameter_kinds_follow_slash_and_star():
    (fn,) = stmts("def f(a, /, b, *args, c, **kw):\n    pass\n")
    assert [(p.name, p.kind) for p in fn.params] == [
        ("a", S.POSITIONAL_ONLY), ("b", S.POSITIONAL), ("args", S.VAR_POSITIONAL),
        ("c", S.KEYWORD_ONLY), ("kw", S.VAR_KEYWORD)]


def test_decorators_are_kept_in_order_and_the_span_is_the_definitions():
    (fn,) = stmts("@first\n@second(1)\ndef f():\n    pass\n")
    assert [type(d).__name__ for d in fn.decorators] == ["Name", "Call"]
    assert fn.span.line == 3


@pytest.mark.parametrize("text, message", [
    ("def f(*): pass\n", "named arguments must follow bare *"),
    ("def f(*, **k): pass\n", "named arguments must follow bare *"),
    ("g = lambda *: 1\n", "named arguments must follow bare *"),
    ("def f(a, /, /): pass\n", "/ may appear only once"),
    ("def f(*, a, /): pass\n", "/ must be ahead of *"),
    ("def f(**k, a): pass\n", "arguments cannot follow var-keyword argument"),
    ("def f(*a, **k, c): pass\n", "arguments cannot follow var-keyword argument"),
    ("def f(*a, *b): pass\n", "* argument may appear only once"),
    ("def f(a=1, /, b): pass\n", "non-default argument follows default argument"),
    ("def f(a, *, a): pass\n", "duplicate argument 'a' in function definition"),
    ("x = yield 1\n", "'yield' outside function"),
    ("class A:\n    yield 1\n", "'yield' outside function"),
    ("class A:\n    return 1\n", "'return' outside function"),
    ("nonlocal x\n", "nonlocal declaration not allowed at module level"),
    ("def f():\n    [(yield x) for x in y]\n", "'yield' inside list comprehension"),
    ("def f():\n    ((yield x) for x in y)\n", "'yield' inside generator expression"),
    ("def f():\n    {(yield) for x in y}\n", "'yield' inside set comprehension"),
    ("def f():\n    {(yield): 1 for x in y}\n", "'yield' inside dict comprehension"),
    ("for x in y:\n    class A:\n        break\n", "'break' outside loop"),
    ("del f()\n", "cannot delete function call"),
    ("del *a\n", "cannot delete starred"),
    ("del x + 1\n", "cannot delete expression"),
    ("del None\n", "cannot delete None"),
    ("a, *b, *c = x\n", "multiple starred expressions in assignment"),
    ("*a = x\n", "starred assignment target must be in a list or tuple"),
    ("for *a in b: pass\n", "starred assignment target must be in a list or tuple"),
    ("f(**x, *y)\n", "iterable argument unpacking follows keyword argument unpacking"),
    ("f(**x, y)\n", "positional argument follows keyword argument unpacking"),
    ("(a, b): int = 1\n", "only single target (not tuple) can be annotated"),
    ("[a]: int = 1\n", "only single target (not list) can be annotated"),
    ("(yield) = 1\n", "cannot assign to yield expression"),
    ("{1, 2} = x\n", "cannot assign to set display"),
    ("(x for x in y) = 1\n", "cannot assign to generator expression"),
])
def test_new_syntax_errors_have_cpythons_words(text, message):
    err = error(text)
    assert err.message == message
    try:
        compile(text, "t", "exec")
    except SyntaxError as python:  # CPython may add a hint: "... here. Maybe you meant '=='"
        assert python.msg.startswith(message)
    else:
        raise AssertionError("CPython accepted it")


def test_expected_expression_message_does_not_offer_yield():
    assert error("x = \n").message == "expected an expression, found end of line"


def test_class_without_a_body_expects_an_indented_block():
    err = error("class A:\nx = 1\n")
    assert err.message == "expected an indented block after class definition on line 1"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["a", "b=1", "*args", "*", "c", "d=2", "/", "**kw", "e"]),
                max_size=6))
def test_parameter_lists_are_accepted_and_refused_as_cpython_does(parts):
    text = f"def f({', '.join(parts)}):\n    pass\n"
    try:
        compile(text, "t", "exec")
    except SyntaxError:
        with pytest.raises(GtSyntaxError):
            parse_text(text)
    else:
        same_as_python(text)
