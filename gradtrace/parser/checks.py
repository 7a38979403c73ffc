"""Python's compile-time context checks on the AST, before anything runs."""
from __future__ import annotations

from typing import Any

from .. import syntax as ast
from ..errors import GtSyntaxError


def _check_context(body: tuple[ast.Stmt, ...]) -> None:
    """`break`/`continue` only in loops and `return` only in functions (Python's
    compile-time checks, so a script fails before running, as in Python)."""
    pending: list[tuple[Any, bool, bool]] = [(s, False, False) for s in reversed(body)]
    while pending:
        stmt, in_loop, in_function = pending.pop()
        if isinstance(stmt, ast.Break) and not in_loop:
            raise GtSyntaxError("'break' outside loop", stmt.span)
        if isinstance(stmt, ast.Continue) and not in_loop:
            raise GtSyntaxError("'continue' not properly in loop", stmt.span)
        if isinstance(stmt, ast.Return) and not in_function:
            raise GtSyntaxError("'return' outside function", stmt.span)
        blocks: list[tuple[tuple, bool, bool]] = []
        if isinstance(stmt, ast.FunctionDef):
            blocks.append((stmt.body, False, True))
        elif isinstance(stmt, (ast.For, ast.While)):
            blocks += [(stmt.body, True, in_function), (stmt.orelse, in_loop, in_function)]
        elif isinstance(stmt, ast.If):
            blocks += [(stmt.body, in_loop, in_function), (stmt.orelse, in_loop, in_function)]
        elif isinstance(stmt, ast.With):
            blocks.append((stmt.body, in_loop, in_function))
        elif isinstance(stmt, ast.Try):
            blocks.append((stmt.body, in_loop, in_function))
            blocks += [(h.body, in_loop, in_function) for h in stmt.handlers]
            blocks += [(stmt.orelse, in_loop, in_function), (stmt.finalbody, in_loop, in_function)]
        for block, loop, function in reversed(blocks):
            pending.extend((s, loop, function) for s in reversed(block))
