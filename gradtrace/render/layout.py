"""`CompactTable` and `CompactTree`: the report's tables and graph trees, laid out in one pass.

It prints what rich's `Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
padding=(0, gap - 1), collapse_padding=True, header_style="bold")` prints for `Text` cells
(title and caption justified left), byte for byte, with and without colour:
tests/test_layout.py holds it to that. rich's Table sends every cell through `Padding`, two
`render_lines` passes, `split_and_crop_lines` and `set_shape`, and most of a report's time
went there. Here each cell is cut into lines once, at rich's own line breaks
(`divide_line`), and each line becomes segments already as wide as its column: a cell in one
style as plain strings, a cell with styled parts as one `Text` per line. Only cells with a
tab or their own justify/overflow/no_wrap go through `Text.wrap` itself.

`CompactTree` prints what rich's `Tree` prints for `Text` labels (default styles, expanded,
root shown), byte for byte, with and without colour. rich renders every label through
`console.render_lines(Styled(label, style))`: `Text.wrap`, `Text.join`, `Text.render`,
`Segment.split_and_crop_lines`. Here a label is cut at the same line breaks and each line
into the segments `Text.render` would cut (a style laid over the tree styles each segment on
its own, so they are never joined); labels that are not plain `Text`, have overlapping spans
or ask for their own justify, overflow, wrapping, tabs or line ending, and consoles printing
with a justify, overflow or no_wrap of their own, go through rich's `render_lines` as before.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rich import box
from rich._wrap import divide_line  # the line breaks of Text.wrap
from rich.cells import cell_len, set_cell_size
from rich.containers import Lines
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style, StyleStack, StyleType
from rich.styled import Styled
from rich.text import Span, Text
from rich.tree import Tree

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType

Justify = Literal["left", "right"]
_HEADER_STYLE = "bold"
_NEW_LINE = Segment.line()
_TRAILING_SPACE = re.compile(r"\s+$")  # as in Text.rstrip_end


@dataclass(frozen=True)
class _Column:
    header: Text
    width: int | None  # None: as wide as the widest cell (rich's measurement)
    justify: Justify
    no_wrap: bool


class CompactTable:
    """A header, a rule under it, rows of `Text` cells `gap` spaces apart, no border.

    Cells are `Text`, never markup; a cell longer than its column folds onto more lines.
    """

    def __init__(self, gap: int = 1, *, title: Text | None = None,
                 caption: Text | None = None) -> None:
        if gap < 1:
            raise ValueError(f"gap must be at least 1, not {gap}")
        self.gap = gap
        self.title = title
        self.caption = caption
        self._columns: list[_Column] = []
        self._rows: list[tuple[Text, ...]] = []

    def add_column(self, header: str, *, width: int | None = None, justify: Justify = "left",
                   no_wrap: bool = False) -> None:
        """`header` is literal text (rich's Table would read a string as markup); `width`
        None sizes the column to its widest cell, shrunk if the table is too wide."""
        self._columns.append(_Column(Text(header), width, justify, no_wrap))

    def add_row(self, *cells: Text) -> None:
        if len(cells) != len(self._columns):
            raise ValueError(f"{len(cells)} cells for {len(self._columns)} columns")
        self._rows.append(cells)

    def _pads(self) -> list[int]:
        """Spaces after each column's cells: `gap - 1`, none after the last one (the column
        divider is the gap's last space)."""
        pads = [self.gap - 1] * len(self._columns)
        pads[-1] = 0
        return pads

    def _widths(self, limit: int) -> list[int]:
        """Column widths, padding included, within `limit` as rich's Table computes them for
        a table that does not expand: natural widths, then the wrappable columns shrunk
        (widest first), then every column shrunk evenly."""
        naturals = []
        for index, (column, pad) in enumerate(zip(self._columns, self._pads(), strict=True)):
            if column.width is not None:
                naturals.append(column.width + pad)
            else:
                cells = [column.header, *(row[index] for row in self._rows)]
                naturals.append(max(_text_width(cell) for cell in cells) + pad)
        widths = [max(0, min(natural, limit)) or 1 for natural in naturals]
        if sum(widths) > limit:
            wrappable = [c.width is None and not c.no_wrap for c in self._columns]
            widths = _collapse_widths(widths, wrappable, limit)
            if sum(widths) > limit:
                widths = _ratio_reduce(sum(widths) - limit, [1] * len(widths), widths, widths)
            widths = [max(0, min(natural, width)) for natural, width in zip(naturals, widths,
                                                                             strict=True)]
        return widths

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> list[Segment]:
        columns = self._columns
        if not columns:
            return [_NEW_LINE]
        widths = self._widths(max(0, options.max_width - (len(columns) - 1)))
        table_width = sum(widths) + len(columns) - 1
        annotation_options = options.update(width=table_width, highlight=False, height=None,
                                            justify="left")
        out: list[Segment] = []
        if self.title:
            out.extend(console.render(self.title, annotation_options))
        table_box = box.SIMPLE_HEAD.substitute(options, safe=console.safe_box)
        header_style = console.get_style(_HEADER_STYLE)
        dividers = (table_box.head_vertical, table_box.mid_vertical, table_box.foot_vertical)
        rows = [tuple(c.header for c in columns), *self._rows]
        for index, row in enumerate(rows):
            header = index == 0
            style = header_style if header else None
            cells = [_cell_lines(console, cell, width, pad, column, style)
                     for cell, width, pad, column in zip(row, widths, self._pads(), columns,
                                                         strict=True)]
            height = max(len(lines) for lines in cells)
            divider = Segment(dividers[0 if header else 2 if index == len(rows) - 1 else 1])
            for line_no in range(max(1, height)):
                for column_no, (lines, width) in enumerate(zip(cells, widths, strict=True)):
                    if column_no:
                        out.append(divider)
                    # short cells: blank lines below (above in the header row, which rich
                    # aligns to the bottom); a row of empty cells still prints one line
                    blank_above = height - len(lines) if header else 0
                    if blank_above <= line_no < blank_above + len(lines):
                        out.extend(lines[line_no - blank_above])
                    else:
                        out.append(Segment(" " * width, style if height else None))
                out.append(_NEW_LINE)
            if header:
                out.append(Segment(table_box.get_row(widths, "head", edge=False)))
                out.append(_NEW_LINE)
        if self.caption:
            out.extend(console.render(self.caption, annotation_options))
        return _join_unstyled(out)


def _join_unstyled(segments: list[Segment]) -> list[Segment]:
    """`segments` with each run of unstyled ones joined into one: they print the same
    text, and `Console.print` spends time on every segment."""
    joined: list[Segment] = []
    run: list[str] = []
    for segment in segments:
        if segment.style or segment.control:
            if run:
                joined.append(Segment("".join(run)))
                run.clear()
            joined.append(segment)
        else:
            run.append(segment.text)
    if run:
        joined.append(Segment("".join(run)))
    return joined


def _text_width(text: Text) -> int:
    """The widest line of `text`, in terminal cells."""
    return max((cell_len(line) for line in text.plain.splitlines()), default=0)


def _cell_lines(console: Console, cell: Text, width: int, pad: int, column: _Column,
                style: Style | None) -> list[list[Segment]]:
    """The lines of one cell, each `width` cells wide: what rich's Table renders through
    `Padding(cell, (0, pad, 0, 0))` and `Text.__rich_console__`, styled with `style`."""
    inner = width - pad
    if inner < 1:
        return []
    plain = cell.plain
    if ("\t" in plain or cell.justify is not None or cell.overflow is not None
            or cell.no_wrap is not None):  # rare: rich's own wrapping
        no_wrap = column.no_wrap if cell.no_wrap is None else cell.no_wrap
        tab_size = (console.tab_size if cell.tab_size is None else cell.tab_size) or 8
        wrapped = cell.wrap(console, inner, justify=cell.justify or column.justify,
                            overflow=cell.overflow or "fold", tab_size=tab_size, no_wrap=no_wrap)
        fitted = [_line_segments(console, line, inner) for line in wrapped]
    elif cell.spans:
        fitted = [_line_segments(console, _styled_line(console, line, inner, column.justify),
                                 inner)
                  for line in _text_slices(cell, _line_ranges(plain, inner, column.no_wrap))]
    else:  # all in one style: strings
        base = console.get_style(cell.style, default=Style.null()) if cell.style else None
        fitted = [[Segment(_justified(plain[start:end], inner, column.justify), base)]
                  for start, end in _line_ranges(plain, inner, column.no_wrap)]
        for line_no, segments in enumerate(fitted):
            if cell_len(segments[0].text) != inner:  # a wide character cut at the edge
                fitted[line_no] = Segment.adjust_line_length(segments, inner)
    lines = []
    for segments in fitted:
        if pad:
            segments.append(Segment(" " * pad))
        lines.append(list(Segment.apply_style(segments, style)) if style else segments)
    return lines


def _line_segments(console: Console, line: Text, width: int) -> list[Segment]:
    """A wrapped line's segments, `width` cells wide."""
    segments = _rendered_line(console, line)
    if cell_len(line.plain) != width:
        segments = Segment.adjust_line_length(segments, width)
    return segments


def _rendered_line(console: Console, line: Text) -> list[Segment]:
    """A wrapped line's segments, as wide as its text.

    rich renders a cell's (or a label's) lines joined into one `Text`, where each line's own
    style becomes a span: a line with a style but no spans still comes out styled.
    """
    if line.spans:
        return list(line.render(console))
    if line.style:
        return [Segment(line.plain, console.get_style(line.style, default=Style.null()))]
    return [Segment(line.plain)]


def _fits(text: str, width: int) -> bool:
    """Whether wrapping leaves `text` (one line) whole: `divide_line` adds up the widths of
    its words, which add up to the width of the text unless a zero-width joiner or a
    variation selector joins characters."""
    return (len(text) <= width and cell_len(text) <= width
            and "\u200d" not in text and "\ufe0f" not in text)


def _line_ranges(text: str, width: int, no_wrap: bool) -> list[tuple[int, int]]:
    """Where `Text.wrap` cuts `text` (without tabs) into lines, as (start, end) offsets:
    at each newline, at rich's own line breaks (`divide_line`), without the spaces
    `Text.rstrip_end` trims at a break."""
    ranges = []
    offset = 0
    for line in text.split("\n"):  # as Text.split(allow_blank=True)
        if no_wrap or _fits(line, width):
            ranges.append((offset, offset + len(line)))
        else:
            bounds = [0, *divide_line(line, width, fold=True), len(line)]
            for start, end in zip(bounds, bounds[1:]):
                excess = end - start - width
                if excess > 0 and (space := _TRAILING_SPACE.search(line[start:end])):
                    end -= min(len(space.group()), excess)
                ranges.append((offset + start, offset + end))
        offset += len(line) + 1
    return ranges


def _justified(text: str, width: int, justify: Justify) -> str:
    """A line of text justified in `width` cells, cropped if wider, as `Lines.justify`
    leaves it."""
    if justify == "right":
        text = text.rstrip()
        if cell_len(text) > width:
            text = set_cell_size(text, width)
        return " " * (width - cell_len(text)) + text
    size = cell_len(text)
    return set_cell_size(text, width) if size > width else text + " " * (width - size)


def _styled_line(console: Console, line: Text, width: int, justify: Justify) -> Text:
    """A cell's line (a `_text_slices` slice), justified in `width` cells, as `Text.wrap`
    leaves the line."""
    Lines([line]).justify(console, width, justify=justify, overflow="fold")
    return line


def _text_slices(text: Text, ranges: list[tuple[int, int]]) -> list[Text]:
    """`text[start:end]` for each of the increasing `ranges`, with its style and the parts
    of its spans inside the slice, as `Text.divide` cuts lines. One sweep over the spans
    (sorted by start, kept in their order within a line: a later span's style wins), so a
    cell of many styled lines costs no more than its spans and lines."""
    order = sorted(range(len(text.spans)), key=lambda i: text.spans[i].start)
    spans, active, next_span, out = text.spans, [], 0, []
    for start, end in ranges:
        while next_span < len(order) and spans[order[next_span]].start < end:
            active.append(order[next_span])
            next_span += 1
        active = [i for i in active if spans[i].end > start]
        cut = [Span(max(spans[i].start, start) - start, min(spans[i].end, end) - start,
                    spans[i].style)
               for i in sorted(active) if min(spans[i].end, end) > max(spans[i].start, start)]
        out.append(Text(text.plain[start:end], style=text.style, spans=cut))
    return out


def _collapse_widths(widths: list[int], wrappable: list[bool], limit: int) -> list[int]:
    """Shrink the widest wrappable columns toward the next widest until the total fits
    `limit` (rich's `Table._collapse_widths`)."""
    total = sum(widths)
    excess = total - limit
    if not any(wrappable):
        return widths
    while total and excess > 0:
        widest = max(w for w, wrap in zip(widths, wrappable, strict=True) if wrap)
        second = max(w if wrap and w != widest else 0
                     for w, wrap in zip(widths, wrappable, strict=True))
        ratios = [1 if w == widest and wrap else 0
                  for w, wrap in zip(widths, wrappable, strict=True)]
        if not any(ratios) or not widest - second:
            break
        widths = _ratio_reduce(excess, ratios, [min(excess, widest - second)] * len(widths),
                               widths)
        total = sum(widths)
        excess = total - limit
    return widths


def _ratio_reduce(total: int, ratios: list[int], maximums: list[int],
                  values: list[int]) -> list[int]:
    """Take `total` from `values` in proportion to `ratios`, at most `maximums` from each
    (rich's `ratio_reduce`, rounding included)."""
    ratios = [ratio if maximum else 0 for ratio, maximum in zip(ratios, maximums, strict=True)]
    total_ratio = sum(ratios)
    if not total_ratio:
        return values[:]
    remaining = total
    result = []
    for ratio, maximum, value in zip(ratios, maximums, values, strict=True):
        if ratio and total_ratio > 0:
            distributed = min(maximum, round(ratio * remaining / total_ratio))
            result.append(value - distributed)
            remaining -= distributed
            total_ratio -= ratio
        else:
            result.append(value)
    return result


# -- trees -------------------------------------------------------------------------

_TREE_STYLE = "tree"  # rich's Tree defaults, for every node
_TREE_GUIDE_STYLE = "tree.line"
_SPACE, _CONTINUE, _FORK, _END = range(4)  # the guides of Tree.TREE_GUIDES, in order
_REMOVE_GUIDE_STYLES = Style(bold=False, underline2=False)
_JOINERS = ("\u200d", "\ufe0f")  # characters `cell_len` measures with their neighbours


def _guide_width() -> int:
    """The cells each of rich's guides takes (4), or 0 if they differ (then the guides
    before a label are measured one by one)."""
    widths = {cell_len(guide) for guides in (Tree.ASCII_GUIDES, *Tree.TREE_GUIDES)
              for guide in guides}
    return widths.pop() if len(widths) == 1 else 0


_GUIDE_WIDTH = _guide_width()


class CompactTree:
    """A tree of labels, drawn as rich's `Tree(label)` with children added by `.add(label)`:
    the styles "tree" and "tree.line", every node expanded, the root shown.

    Labels are `Text` (any other renderable is rendered by rich, as its Tree would); a label
    too long for the room left of its guides wraps under itself.
    """

    def __init__(self, label: RenderableType) -> None:
        self.label = label
        self.children: list[CompactTree] = []

    def add(self, label: RenderableType) -> CompactTree:
        """Add a child after this node's other children; returns it (to add to)."""
        node = CompactTree(label)
        self.children.append(node)
        return node

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> list[Segment]:
        # rich's Tree.__rich_console__ step for step, without recursion: `stack` holds
        # (siblings, position) where rich holds iterators, `levels` the guides of the current
        # node's ancestors (the first one never printed)
        get_style = console.get_style
        null_style = Style.null()
        node_style = get_style(_TREE_STYLE)
        node_guide_style = get_style(_TREE_GUIDE_STYLE)
        guides: dict[tuple[int, Style], Segment] = {}
        restyled: dict[tuple[Segment, Style], Segment] = {}
        backgrounds: dict[Style, Style] = {}
        span_styles: dict[tuple[StyleType, StyleType], Style] = {}

        def guide(index: int, style: Style) -> Segment:
            """One level of guide lines (as Tree's `make_guide`)."""
            segment = guides.get((index, style))
            if segment is None:
                if options.ascii_only:
                    line = Tree.ASCII_GUIDES[index]
                else:
                    kind = 1 if style.bold else (2 if style.underline2 else 0)
                    line = Tree.TREE_GUIDES[0 if options.legacy_windows else kind][index]
                segment = guides[index, style] = Segment(line, style)
            return segment

        def printed(level: Segment, background: Style) -> Segment:
            """A guide as printed before a label: `Segment.apply_style(prefix, background,
            post_style=_REMOVE_GUIDE_STYLES)` of one segment."""
            segment = restyled.get((level, background))
            if segment is None:
                style = background + level.style if background else level.style
                style = style + _REMOVE_GUIDE_STYLES if style else _REMOVE_GUIDE_STYLES
                segment = restyled[level, background] = Segment(level.text, style)
            return segment

        plain_options = (options.justify is None and options.overflow in (None, "fold")
                         and not options.no_wrap)
        levels = [guide(_CONTINUE, get_style(_TREE_GUIDE_STYLE, default="") or null_style)]
        guide_styles = StyleStack(node_guide_style)
        styles = StyleStack(node_style)
        out: list[Segment] = []
        stack: list[tuple[list[CompactTree], int]] = [([self], 0)]
        while stack:
            siblings, position = stack.pop()
            if position == len(siblings):
                levels.pop()
                if levels:
                    levels[-1] = guide(_FORK, levels[-1].style or null_style)
                    guide_styles.pop()
                    styles.pop()
                continue
            stack.append((siblings, position + 1))
            node = siblings[position]
            last = position == len(siblings) - 1
            if last:
                levels[-1] = guide(_END, levels[-1].style or null_style)
            guide_style = guide_styles.current + node_guide_style
            style = styles.current + node_style
            prefix = levels[1:]
            width = options.max_width - (len(prefix) * _GUIDE_WIDTH if _GUIDE_WIDTH else
                                         sum(level.cell_length for level in prefix))
            lines = _label_lines(console, options, node.label, style, width, plain_options,
                                 span_styles)
            if prefix and lines:
                background = backgrounds.get(style)
                if background is None:
                    background = backgrounds[style] = style.background_style
                printed_prefix = [printed(level, background) for level in prefix]
                for line_no, line in enumerate(lines):
                    out.extend(printed_prefix)
                    out.extend(line)
                    out.append(_NEW_LINE)
                    if not line_no:  # under the first line: the guide goes on, or stops
                        prefix[-1] = guide(_SPACE if last else _CONTINUE,
                                           prefix[-1].style or null_style)
                        printed_prefix[-1] = printed(prefix[-1], background)
            else:
                for line in lines:
                    out.extend(line)
                    out.append(_NEW_LINE)
            if node.children:
                levels[-1] = guide(_SPACE if last else _CONTINUE,
                                   levels[-1].style or null_style)
                levels.append(guide(_END if len(node.children) == 1 else _FORK, guide_style))
                styles.push(node_style)
                guide_styles.push(node_guide_style)
                stack.append((node.children, 0))
        # segments cut where rich cuts them, unstyled ones too: a style laid over the tree
        # (`print(style=...)`, a Panel's) styles each segment on its own
        return out

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        """As rich's Tree measures: the widest label plus four cells a level."""
        minimum = maximum = 0
        stack: list[tuple[CompactTree, int]] = [(self, 0)]
        while stack:
            node, level = stack.pop()
            low, high = Measurement.get(console, options, node.label)
            minimum = max(low + level * 4, minimum)
            maximum = max(high + level * 4, maximum)
            stack.extend((child, level + 1) for child in node.children)
        return Measurement(minimum, maximum)


def _label_lines(console: Console, options: ConsoleOptions, label: RenderableType,
                 style: Style, width: int, plain_options: bool,
                 styles: dict[tuple[StyleType, StyleType], Style]) -> list[list[Segment]]:
    """The lines of a tree label in `width` cells, none padded: what rich's Tree gets from
    `console.render_lines(Styled(label, style), ...)`.

    A `Text` without tabs, overlapping spans, or its own justify, overflow, wrapping or line
    ending is cut at `Text.wrap`'s line breaks here, and each line cut into segments where
    `Text.render` cuts it; anything else goes through rich (`plain_options` is False when
    the console prints with a justify, overflow or no_wrap of its own). `styles` caches
    `_span_style`.
    """
    if width < 1:
        return []  # `Console.render` renders nothing without room
    if not (plain_options and type(label) is Text and label.end == "\n"
            and label.justify is None and label.overflow in (None, "fold")
            and not label.no_wrap and "\t" not in label.plain
            and _in_order(label.spans, len(label))):
        return console.render_lines(
            Styled(label, style), options.update(width=width, highlight=False, height=None),
            pad=options.justify is not None)
    plain = label.plain
    spans = label.spans
    ends = [span.end for span in spans]
    # without spans, rich's lines are one string each, styled only if the label is
    base = _span_style(console, styles, label.style, None) if spans or label.style else None
    lines: list[list[Segment]] = []
    for start, end in _line_ranges(plain, width, False):
        text = plain[start:end]
        if cell_len(text) > width:  # a wide character folded alone: Text.truncate crops it
            line = _text_slices(label, [(start, end)])[0]
            line.truncate(width, overflow="fold")
            segments = _rendered_line(console, line)
        elif spans:
            segments = _span_segments(console, styles, label, start, end, base, ends)
        else:
            segments = [Segment(text, base)]
        if len(segments) > 1 and any(joiner in text for joiner in _JOINERS):
            # segment by segment the line can measure wider than it does whole
            segments = Segment.adjust_line_length(segments, width, pad=False)
        lines.append(segments)
    if style:  # Styled: the tree's style under the label's own
        lines = [list(Segment.apply_style(line, style)) for line in lines]
    return lines


def _in_order(spans: list[Span], length: int) -> bool:
    """Whether `spans` follow one another inside the text, none empty, none overlapping."""
    end = 0
    for span in spans:
        if span.start < end or span.end <= span.start:
            return False
        end = span.end
    return end <= length


def _span_style(console: Console, styles: dict[tuple[StyleType, StyleType], Style],
                base: StyleType, span: StyleType | None) -> Style:
    """The style `Text.render` gives text in a span (`None`: in none) of a text styled
    `base`: the two combined, each through `console.get_style`."""
    key = (base, span)
    style = styles.get(key)
    if style is None:
        style = console.get_style(base, default=Style.null())
        if span is not None:
            style = Style.combine((style, console.get_style(span, default=Style.null())))
        styles[key] = style
    return style


def _span_segments(console: Console, styles: dict[tuple[StyleType, StyleType], Style],
                   label: Text, start: int, end: int, base: Style | None,
                   ends: list[int]) -> list[Segment]:
    """The segments `Text.render` cuts from the line `label[start:end]`, for spans in order
    (`_in_order`, so `ends`, the spans' ends, increase): the text between spans in `base`,
    each span's part in its own style."""
    plain = label.plain
    segments: list[Segment] = []
    position = start
    spans = label.spans
    for index in range(bisect_right(ends, start), len(spans)):
        span_start, span_end, span_style = spans[index]
        if span_start >= end:
            break
        span_start = max(span_start, start)
        span_end = min(span_end, end)
        if span_start > position:
            segments.append(Segment(plain[position:span_start], base))
        segments.append(Segment(plain[span_start:span_end],
                                _span_style(console, styles, label.style, span_style)))
        position = span_end
    if position < end:
        segments.append(Segment(plain[position:end], base))
    return segments
