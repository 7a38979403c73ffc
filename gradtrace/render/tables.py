"""Rich tables for `gradtrace run`."""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from ..engine.tensor import Tensor
from .values import node_cell, tensor_cell


def named_tensors(variables: dict[str, Any]) -> list[tuple[str, Tensor]]:
    """The script's top-level names bound to tensors, in binding order."""
    return [(name, value) for name, value in variables.items() if isinstance(value, Tensor)]


def tensors_table(variables: dict[str, Any]) -> Table:
    table = Table(title="Tensors", title_justify="left", header_style="bold")
    for column in ("name", "value", "requires_grad", "is_leaf", "grad_fn", "grad", "_version"):
        table.add_column(column, overflow="fold")
    for name, t in named_tensors(variables):
        table.add_row(
            name, tensor_cell(t), str(t.requires_grad), str(t.is_leaf), node_cell(t.grad_fn),
            tensor_cell(t.grad), str(t._version))
    return table


def print_summary(console: Console, variables: dict[str, Any]) -> None:
    if not named_tensors(variables):
        console.print("[dim]The script named no tensors.[/dim]")
        return
    console.print(tensors_table(variables))
