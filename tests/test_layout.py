"""`CompactTable` prints what rich's `Table` prints with the report's settings, and
`CompactTree` what rich's `Tree` prints, byte for byte.

Each case is rendered by both at many widths, without colour, in truecolor, and on an ASCII
console (where rich swaps the box, and the tree guides, for ASCII ones).
"""
from __future__ import annotations

import io
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich import box
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.panel import Panel
from rich.style import Style
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from gradtrace.interpreter import Limits
from gradtrace.render import graph as graph_render
from gradtrace.render.layout import CompactTable, CompactTree, Justify
from gradtrace.runner import load_source, run_source

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


# -- CompactTree ----------------------------------------------------------------------

ROOT = Path(__file__).parent.parent
TREE_WIDTHS = (20, 23, 31, 40, 57, 80, 100, 133, 160, 200)


def _tree_consoles(width: int) -> Iterator[Console]:
    yield from _consoles(width)
    yield Console(file=io.StringIO(), width=width, color_system="truecolor", force_terminal=True,
                  legacy_windows=True)  # rich draws the plain guides on legacy Windows


@dataclass
class TreeSpec:
    """A tree as (parent index, label) pairs in the order the nodes are added; the root is
    node 0 and has parent -1."""

    nodes: list[tuple[int, RenderableType]]

    def build(self, make: Callable[[RenderableType], Tree | CompactTree]) -> Tree | CompactTree:
        built: list[Tree | CompactTree] = []
        for parent, label in self.nodes:
            label = label.copy() if isinstance(label, Text) else label
            built.append(make(label) if parent < 0 else built[parent].add(label))
        return built[0]


def _assert_same_tree(spec: TreeSpec, widths: tuple[int, ...] = TREE_WIDTHS,
                      **print_options) -> int:
    """Print `spec` through rich's Tree and CompactTree; returns the outputs compared."""
    compared = 0
    for width in widths:
        for expected, actual in zip(_tree_consoles(width), _tree_consoles(width), strict=True):
            expected.print(spec.build(Tree), **print_options)
            actual.print(spec.build(CompactTree), **print_options)
            assert actual.file.getvalue() == expected.file.getvalue(), (width, expected.file)
            compared += 1
    return compared


def _random_label(rng: random.Random) -> Text:
    pieces = ["a", "bc", " ", "  ", "…", "→", "漢字", "👍", "\n", "[1.]", "-0.5", "x" * 13,
              "👩‍💻", "❤️", "MulBackward0 #12", "(shown above)", "e\u0301"]
    styles: list[str | Style] = ["", "", "", "bold", "dim", "green", "dim italic",
                                 "bold red", "on blue", Style(color="magenta", underline=True),
                                 "not-a-style"]
    text = Text(style=rng.choice(["", "", "", "bold", "dim yellow", "on blue"]))
    for _ in range(rng.choice([0, 1, 2, 3, 5, 8, 20])):
        text.append("".join(rng.choices(pieces, k=rng.randrange(1, 6))), style=rng.choice(styles))
    return text


def _random_tree(rng: random.Random, size: int) -> TreeSpec:
    labels = [*_cells(), Text("no end", end=""), Text("[bold]markup[/] as text")]
    nodes: list[tuple[int, RenderableType]] = [(-1, _random_label(rng))]
    for _ in range(size - 1):
        shape = rng.random()
        if shape < 0.4:
            parent = len(nodes) - 1  # deeper
        elif shape < 0.7:
            parent = nodes[-1][0] if nodes[-1][0] >= 0 else 0  # a sibling
        else:
            parent = rng.randrange(len(nodes))
        label = rng.choice(labels) if rng.random() < 0.2 else _random_label(rng)
        nodes.append((parent, label))
    return TreeSpec(nodes)


@pytest.mark.parametrize("seed", range(30))
def test_random_trees_print_as_rich_tree(seed: int):
    rng = random.Random(seed)
    spec = _random_tree(rng, rng.choice([1, 2, 5, 12, 30, 60]))
    _assert_same_tree(spec, tuple(rng.sample(TREE_WIDTHS, 3)) + (rng.randrange(20, 201),))


def test_deep_chain_of_long_labels_wraps_and_vanishes_past_the_width_as_rich_does():
    rng = random.Random(7)
    long = _spans(("[0] (", "dim"), ("MulBackward0 #3", "bold"), (", 0)", "dim"), (" → ", ""),
                  ("a label long enough to wrap " * 3, "green"), ("漢字のテキスト", "red"))
    nodes: list[tuple[int, RenderableType]] = [(-1, long)]
    for depth in range(1, 31):
        nodes.append((depth - 1, long if depth % 3 else _random_label(rng)))
        nodes.append((depth - 1, Text("")))  # an empty label, a sibling of the next level
    chain = TreeSpec(nodes)
    _assert_same_tree(chain, tuple(range(20, 201, 9)))


def test_many_siblings_with_children_print_as_rich_tree():
    rng = random.Random(11)
    nodes: list[tuple[int, RenderableType]] = [(-1, Text("root", style="bold green"))]
    for _ in range(150):
        nodes.append((0, _random_label(rng)))
        parent = len(nodes) - 1
        for _ in range(rng.randrange(3)):
            nodes.append((parent, _random_label(rng)))
    _assert_same_tree(TreeSpec(nodes), (20, 80, 200))


def test_labels_that_are_not_plain_text_and_consoles_with_their_own_justify_print_as_rich():
    nodes: list[tuple[int, RenderableType]] = [
        (-1, "[bold]markup[/bold] in a str label"), (0, Text("tab\there and more")),
        (0, Text("centred and long enough to wrap at the narrow widths", justify="center")),
        (1, Text("cut with an ellipsis at the narrow widths", overflow="ellipsis")),
        (1, Text("must not wrap at all, even at the narrow widths", no_wrap=True)),
        (0, Group(Text("a group"), Text("of two lines"))), (5, Text("end", end=""))]
    spec = TreeSpec(nodes)
    for options in ({}, {"justify": "left"}, {"justify": "right"}, {"overflow": "ellipsis"},
                    {"no_wrap": True}, {"style": "bold"}):
        _assert_same_tree(spec, (20, 40, 80), **options)


def test_styles_laid_over_the_tree_reach_guides_and_labels_as_in_rich():
    spec = _random_tree(random.Random(3), 25)
    _assert_same_tree(spec, (30, 90), style="italic on red")
    for width in (30, 90):
        expected = Console(file=io.StringIO(), width=width, color_system="truecolor",
                           force_terminal=True)
        actual = Console(file=io.StringIO(), width=width, color_system="truecolor",
                         force_terminal=True)
        expected.print(Panel(spec.build(Tree), style="bold on blue", title="graph"))
        actual.print(Panel(spec.build(CompactTree), style="bold on blue", title="graph"))
        assert actual.file.getvalue() == expected.file.getvalue()


@pytest.mark.parametrize("seed", range(5))
def test_measures_as_rich_tree(seed: int):
    spec = _random_tree(random.Random(seed), 20)
    console = Console(file=io.StringIO(), width=80)
    for width in (20, 80, 200):
        options = console.options.update_width(width)
        assert Measurement.get(console, options, spec.build(CompactTree)) == \
            Measurement.get(console, options, spec.build(Tree))


def _chain(depth: int) -> TreeSpec:
    return TreeSpec([(-1, Text("root"))] + [(level, Text(f"level {level}", style="dim"))
                                            for level in range(depth)])


def test_a_tree_deeper_than_python_recursion_prints_as_rich_tree_without_recursing():
    assert _assert_same_tree(_chain(400), (100, 200)) == 8
    spec = _chain(5000)  # rich's Tree takes seconds to print this one (render_lines a node)
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(spec.build(CompactTree))
    lines = console.file.getvalue().splitlines()
    # a node prints only while its label has a cell left of the guides: 24 levels at 100
    assert len(lines) == 26 and lines[-2:] == [" " * 92 + "└── leve", " " * 96 + "l 23"]


def test_add_returns_the_child_and_keeps_the_order():
    root = CompactTree(Text("root"))
    first = root.add(Text("first"))
    second = root.add(Text("second"))
    grandchild = first.add(Text("grandchild"))
    assert root.children == [first, second] and first.children == [grandchild]
    assert grandchild.label.plain == "grandchild" and not second.children


# -- the report's graph section -----------------------------------------------------

# scripts larger than this are skipped (a generated script takes minutes in `run_source`)
MAX_SCRIPT_CHARS = 100_000
REPORT_WIDTHS = (44, 100, 160)


def _script_traces():
    """(path, trace) of each script in turn: a trace is dropped once it has been drawn, so
    the suite's process does not keep a thousand traces (it once held ~900 MB of them)."""
    # hostile scripts are left to tests/test_hostile*.py, which run them in a supervised
    # subprocess: in process, one long C call of theirs cannot be stopped by a timeout
    scripts = sorted((ROOT / "samples").glob("*.gt")) + sorted(
        p for p in (ROOT / "tests").rglob("*.gt") if "hostile" not in p.parts)
    for path in scripts:
        try:
            source = load_source(str(path))
        except Exception:  # not UTF-8, unreadable: nothing to draw
            continue
        if len(source.text) > MAX_SCRIPT_CHARS:
            continue
        result = run_source(source, stdout=io.StringIO(), trace=True,
                            limits=Limits(timeout=0.5, max_memory=256 << 20))
        if result.trace is not None:
            yield path.relative_to(ROOT), result.trace


def _graph_section(trace, width: int, colour: bool) -> str:
    console = Console(file=io.StringIO(), width=width, color_system="truecolor" if colour
                      else None, force_terminal=colour)
    graph_render.print_graph(console, trace)
    return console.file.getvalue()


def test_graph_section_of_every_script_prints_as_with_rich_tree(monkeypatch):
    """Each script at one of the widths in turn (all of them over the corpus: drawing
    every script at every width cost CI minutes and found nothing the rotation misses)."""
    scripts = drawn = 0
    for index, (path, trace) in enumerate(_script_traces()):
        scripts += 1
        width = REPORT_WIDTHS[index % len(REPORT_WIDTHS)]
        for colour in (False, True):
            actual = _graph_section(trace, width, colour)
            with monkeypatch.context() as patched:
                patched.setattr(graph_render, "CompactTree", Tree)
                expected = _graph_section(trace, width, colour)
            assert actual == expected, (path, width, colour)
            drawn += "──" in actual
    assert scripts > 150 and drawn > 300
