"""A fast layered layout for graphs too large for Graphviz's `dot`, or without Graphviz.

`dot` orders and places vertices with network simplex, which grows much faster than the
graph: 2,000 recorded ops (about 6,000 boxes with their saved tensors) take it about two
minutes. This is the plain Sugiyama scheme in linear passes: ranks by longest path from
the sources, a few barycentre sweeps to untangle each rank, then x positions that follow
the parents while keeping boxes apart. Its results are rougher than dot's but a chain of
20,000 nodes is laid out in about a second.
"""
from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass

RANK_GAP = 46.0  # points between ranks
BOX_GAP = 18.0  # points between boxes of a rank
SWEEPS = 4


@dataclass
class Box:
    id: str
    width: float  # points
    height: float


def text_width(text: str, size: float = 11.0) -> float:
    """An estimate of a Helvetica line's width in points (wide characters count double)."""
    wide = sum(1 for ch in text if ord(ch) > 0x2E80)
    return (len(text) + wide) * size * 0.56


def box_for(vertex_id: str, lines: list[str], *, size: float = 11.0, shape: str = "box") -> Box:
    width = max((text_width(line, size) for line in lines), default=0.0) + 16.0
    height = len(lines) * size * 1.25 + 10.0
    if shape == "ellipse":
        width, height = width * 1.3, height * 1.2
    return Box(vertex_id, max(width, 40.0), max(height, 24.0))


def layout(boxes: list[Box], edges: list[tuple[str, str]]) -> dict[str, tuple[float, float]]:
    """Centre of every box, in points, y growing downwards, ranks top to bottom."""
    ids = [b.id for b in boxes]
    size = {b.id: b for b in boxes}
    children: dict[str, list[str]] = defaultdict(list)
    parents: dict[str, list[str]] = defaultdict(list)
    for source, target in edges:
        if source in size and target in size and source != target:
            children[source].append(target)
            parents[target].append(source)
    rank = _ranks(ids, children, parents)
    ranks: list[list[str]] = [[] for _ in range(max(rank.values(), default=-1) + 1)]
    for vid in _discovery_order(ids, children, parents):
        ranks[rank[vid]].append(vid)
    _untangle(ranks, children, parents)
    x = _place(ranks, size, parents, children)
    shift = min((x[v] - size[v].width / 2 for v in ids), default=0.0)
    centres = {}
    y = 0.0
    for row in ranks:
        height = max(size[v].height for v in row)
        for vid in row:
            centres[vid] = (x[vid] - shift, y + height / 2)
        y += height + RANK_GAP
    return centres


def _ranks(ids: list[str], children: dict, parents: dict) -> dict[str, int]:
    """Longest path from the sources (Kahn's order); vertices on a cycle go last."""
    indegree = {v: len(parents[v]) for v in ids}
    queue = deque(v for v in ids if indegree[v] == 0)
    rank = {v: 0 for v in ids}
    done = 0
    while queue:
        vid = queue.popleft()
        done += 1
        for child in children[vid]:
            rank[child] = max(rank[child], rank[vid] + 1)
            indegree[child] -= 1
            if indegree[child] == 0:
                queue.append(child)
    if done < len(ids):  # a cycle (a drawing never has one): put what is left below
        bottom = max(rank.values(), default=0) + 1
        for vid in ids:
            if indegree[vid] > 0:
                rank[vid] = bottom
    return rank


def _discovery_order(ids: list[str], children: dict, parents: dict) -> list[str]:
    """Depth-first from the sources: siblings start next to each other."""
    order: list[str] = []
    seen: set[str] = set()
    for start in [v for v in ids if not parents[v]] + ids:
        stack = [start]
        while stack:
            vid = stack.pop()
            if vid in seen:
                continue
            seen.add(vid)
            order.append(vid)
            stack.extend(reversed(children[vid]))
    return order


def _untangle(ranks: list[list[str]], children: dict, parents: dict) -> None:
    """Barycentre sweeps, down then up: each vertex moves to the mean position of its
    neighbours in the rank before (a stable sort keeps ties in place)."""
    for sweep in range(SWEEPS):
        down = sweep % 2 == 0
        rows = range(1, len(ranks)) if down else range(len(ranks) - 2, -1, -1)
        for r in rows:
            other = ranks[r - 1] if down else ranks[r + 1]
            if len(ranks[r]) < 2:
                continue
            where = {v: i for i, v in enumerate(other)}
            near = parents if down else children
            current = {v: i for i, v in enumerate(ranks[r])}

            def key(vid: str, where: dict = where, near: dict = near,
                    current: dict = current) -> float:
                spots = [where[n] for n in near[vid] if n in where]
                return sum(spots) / len(spots) if spots else current[vid]

            ranks[r].sort(key=key)


def _place(ranks: list[list[str]], size: dict[str, Box], parents: dict,
           children: dict) -> dict[str, float]:
    """x of each centre: packed left to right, then pulled towards the parents (down)
    and the children (up) without overlapping."""
    x: dict[str, float] = {}
    for row in ranks:
        left = 0.0
        for vid in row:
            x[vid] = left + size[vid].width / 2
            left += size[vid].width + BOX_GAP
    for sweep in range(SWEEPS):
        down = sweep % 2 == 0
        order = ranks if down else list(reversed(ranks))
        near = parents if down else children
        for row in order:
            wanted = []
            for vid in row:
                spots = [x[n] for n in near[vid] if n in x]
                wanted.append(sum(spots) / len(spots) if spots else x[vid])
            _fit(row, wanted, size, x)
    return x


def _fit(row: list[str], wanted: list[float], size: dict[str, Box], x: dict[str, float]) -> None:
    """Put the row's boxes near `wanted` in their order without overlaps: the mean of
    two feasible placements, one pushing overlapping boxes right, one pushing them left
    (both keep every gap, so their mean does too)."""
    gaps = [(size[a].width + size[b].width) / 2 + BOX_GAP for a, b in zip(row, row[1:])]
    right = list(wanted)
    for i, gap in enumerate(gaps):
        right[i + 1] = max(right[i + 1], right[i] + gap)
    left = list(wanted)
    for i in range(len(gaps) - 1, -1, -1):
        left[i] = min(left[i], left[i + 1] - gaps[i])
    for vid, a, b in zip(row, right, left):
        x[vid] = (a + b) / 2
