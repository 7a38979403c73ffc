"""`CompactTable` prints what rich's `Table` prints with the report's settings, byte for byte.

Each case is rendered by both at many widths, without colour, in truecolor, and on an ASCII
console (where rich swaps the box for an ASCII one).
"""
from __future__ import annotations

import io
import random
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from gradtrace.render.layout import CompactTable, Justify

WIDTHS = (1, 2, 5, 9, 13, 20, 31, 40, 60, 80, 100, 140, 200)


def _spans(*parts: tuple[str, str]) -> Text:
    text = Text()
    for part, style in parts:
        text.append(part, style=style)
    return text


def _cells() -> list[Text]:
    sent = _spans(("[0] ", "dim"), ("[[-4.2163e-03], [ 2.7168e-04]…", "bold"),
                  (" → SubBackward0 #10", ""), ("\n", ""), ("[1] ", "dim"), ("None", "dim"))
    styled_base = Text("base ", style="italic")
    styled_base.append("and bold", style="bold")
    return [
        Text(""), Text("7"), Text("…"), Text("a → b"), Text("[[-4.2163e-03], [ 2.7168e-04]…"),
        Text("MulBackward0 #1 (X @ W1)"), Text("averyveryverylongwordwithoutanyspaces"),
        Text("漢字のテキスト、とても長いです"), Text("👍 ok"), Text("👩‍💻 dev x"), Text("❤️ love"),
        Text("e\u0301te\u0301 accents"), Text("x\u200d y"), Text("tab\there"), Text("trailing   "),
        Text("   leading"), Text("a\n\nb"), Text("end\n"), Text("\n"), Text("line one\nline two"),
        Text("bold", style="bold"), Text("… 12 more", style="yellow"),
        Text("on blue", style="on blue"), Text("spaces   inside   ", style="reverse"), sent,
        styled_base,
        _spans(("x.grad: ", ""), ("None", "dim"), (" → ", ""), ("[5., 8.]", "bold green")),
        _spans(("saved freed", "dim")), _spans(("漢字", "red"), ("→", "blue"), ("👍", "")),
        Text("centred", justify="center"), Text("must not wrap at all", no_wrap=True),
        Text("cut with an ellipsis", overflow="ellipsis"), Text("wrapped anyway", no_wrap=False),
    ]


@dataclass
class Spec:
    gap: int
    columns: list[tuple[str, int | None, Justify, bool]]  # header, width, justify, no_wrap
    rows: list[list[Text]]
    title: Text | None = None
    caption: Text | None = None

    def rich_table(self) -> Table:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                      padding=(0, self.gap - 1), collapse_padding=True, header_style="bold",
                      title=self.title and self.title.copy(), title_justify="left",
                      caption=self.caption and self.caption.copy(), caption_justify="left")
        for header, width, justify, no_wrap in self.columns:
            table.add_column(header, width=width, justify=justify, no_wrap=no_wrap,
                             overflow="fold")
        for row in self.rows:
            table.add_row(*(cell.copy() for cell in row))
        return table

    def compact_table(self) -> CompactTable:
        table = CompactTable(self.gap, title=self.title and self.title.copy(),
                             caption=self.caption and self.caption.copy())
        for header, width, justify, no_wrap in self.columns:
            table.add_column(header, width=width, justify=justify, no_wrap=no_wrap)
        for row in self.rows:
            table.add_row(*(cell.copy() for cell in row))
        return table


class _AsciiFile(io.StringIO):
    encoding = "ascii"  # rich draws an ASCII box for a console that cannot encode "─"


def _consoles(width: int) -> Iterator[Console]:
    options = {"width": width, "soft_wrap": False, "legacy_windows": False}
    yield Console(file=io.StringIO(), color_system=None, **options)
    yield Console(file=io.StringIO(), color_system="truecolor", force_terminal=True, **options)
    yield Console(file=_AsciiFile(), color_system="256", force_terminal=True, **options)


def _assert_same(spec: Spec, widths: tuple[int, ...] = WIDTHS) -> None:
    for width in widths:
        for expected, actual in zip(_consoles(width), _consoles(width), strict=True):
            expected.print(spec.rich_table())
            actual.print(spec.compact_table())
            assert actual.file.getvalue() == expected.file.getvalue(), (width, expected.file)


def _rows(cells: list[Text], columns: int, offset: int = 0) -> list[list[Text]]:
    return [[cells[(offset + r * columns + c) % len(cells)] for c in range(columns)]
            for r in range((len(cells) + columns - 1) // columns)]


def test_fixed_widths_as_in_the_backward_tables():
    title = _spans(("Backward #3", "bold"), (" · line 27: ", ""), ("loss.backward()", "italic"),
                   (" · from loss with grad 1.", ""))
    caption = _spans(("✗ backward raised ", "bold red"), ("RuntimeError: one of the variables "
                                                           "needed was modified", "red"))
    columns: list[tuple[str, int | None, Justify, bool]] = [
        ("step", 4, "right", False), ("node", 14, "left", False),
        ("grad received", 8, "left", False), ("grad sent", 20, "left", False),
        ("accumulated / freed", 12, "left", False)]
    for offset in range(3):
        _assert_same(Spec(2, columns, _rows(_cells(), 5, offset), title, caption))


def test_natural_widths_as_in_the_tensors_table():
    columns: list[tuple[str, int | None, Justify, bool]] = [
        ("name", None, "left", True), ("value", None, "left", False),
        ("shape", None, "left", True), ("grad", None, "left", False),
        ("retains_grad", None, "left", True)]
    for offset in range(2):
        _assert_same(Spec(2, columns, _rows(_cells(), 5, offset)))


def test_header_only_and_empty_cells():
    columns: list[tuple[str, int | None, Justify, bool]] = [
        ("a", None, "right", False), ("accumulated / freed", 5, "left", False),
        ("", None, "left", True)]
    _assert_same(Spec(2, columns, []))
    _assert_same(Spec(3, columns, [[Text(), Text(), Text()], [Text("x"), Text(), Text()]],
                      title=Text(""), caption=Text("a caption", style="dim")))


@pytest.mark.parametrize("seed", range(40))
def test_random_tables(seed: int):
    rng = random.Random(seed)
    pieces = ["a", "bc", " ", "  ", "…", "→", "漢", "👍", "\n", "[1.]", "-0.5", "x" * 13]
    cells = _cells()

    def cell() -> Text:
        if rng.random() < 0.4:
            return rng.choice(cells)
        text = Text(style=rng.choice(["", "", "bold", "dim yellow"]))
        for _ in range(rng.randrange(6)):
            text.append("".join(rng.choices(pieces, k=rng.randrange(1, 5))),
                        style=rng.choice(["", "", "bold", "red", "italic on blue"]))
        return text

    columns: list[tuple[str, int | None, Justify, bool]] = [
        (rng.choice(["step", "grad received", "値", "a…", "x"]),
         rng.choice([None, None, 1, 3, 8, 20]), rng.choice(["left", "right"]),
         rng.random() < 0.3)
        for _ in range(rng.randrange(1, 6))]
    rows = [[cell() for _ in columns] for _ in range(rng.randrange(4))]
    spec = Spec(rng.randrange(1, 4), columns, rows,
                title=cell() if rng.random() < 0.5 else None,
                caption=cell() if rng.random() < 0.3 else None)
    _assert_same(spec, tuple(rng.sample(WIDTHS, 4)))


def test_no_columns():
    _assert_same(Spec(2, [], []), (1, 80))


def test_a_row_needs_a_cell_per_column_and_the_gap_a_space():
    table = CompactTable(2)
    table.add_column("a")
    with pytest.raises(ValueError, match="2 cells for 1 columns"):
        table.add_row(Text("x"), Text("y"))
    with pytest.raises(ValueError, match="gap must be at least 1"):
        CompactTable(0)
