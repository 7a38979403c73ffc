"""`gradtrace explain`: a run told as a story, statement by statement, backward step by step.

Everything here is derived from the tracer's record of the run (`RunResult.trace`):
which tensors were made and bound to which names, which nodes the engine recorded
and what they saved, every in-place change and version bump, and for each backward
call the gradient each node received and sent. The explainer turns that record into
structured steps (a message id, the script line, plain facts) and renders each step
through a message catalog (`render/catalogs/<lang>.py`); the language never changes
what is said, only how.

Local derivatives are described from a table keyed by node name (`RULES`): a formula
template per input, and a numpy function that computes the same thing from the saved
values. The function lets the explainer show the value of ∂out/∂input at record time
and replay a backward pass with the values as they were saved, which is how it can tell
what a gradient would have been had `.data` not changed a saved tensor. Nodes without
a rule are described generically from the engine's numbers.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.node import FREED_MESSAGE, AccumulateGrad
from ..engine.tensor import NONLEAF_REQUIRES_GRAD, ONLY_FLOAT_GRAD
from ..errors import GtSyntaxError, LimitExceeded, NotSupportedError
from ..summary import FULL_LIMIT, HEAD, Summary, same_values
from .catalogs import LANGUAGES, Catalog, fields

SCHEMA = "gradtrace-explain/1"
MAX_REPEATS = 2  # a statement explained this many times; later visits are only counted
MAX_STEPS_PER_SECTION = 80
MAX_ELEMENTS = 8  # values with more elements are shown abbreviated
MAX_EXPRESSION = 40
MAX_LISTED = 5

__all__ = ["LANGUAGES", "SCHEMA", "Explanation", "Section", "Step", "explain",
           "print_explanation", "to_json", "render_text"]


# ---------------------------------------------------------------- the result


@dataclass
class Step:
    """One thing said: a message id, the script line, plain facts and the rendered text."""

    kind: str
    line: int | None
    facts: dict[str, Any]
    text: str
    tone: str = "info"  # info | note | warn | error
    # what it tells about: {"event": i} (the trace's i-th event), {"call": c, "step": s}
    # (step s of backward call c; 0 its start, len(steps) + 1 its end), {"error": true}
    # (the error that ended the run); lets a view put the sentence beside the moment
    at: dict[str, Any] | None = None


@dataclass
class Section:
    """The steps of one statement (or one backward call), with the statement's source."""

    kind: str  # statement | backward | error | repeat
    line: int | None
    source: str
    title: str
    steps: list[Step] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass
class Explanation:
    script: str
    lang: str
    sections: list[Section]
    exit_code: int

    @property
    def steps(self) -> list[Step]:
        return [s for section in self.sections for s in section.steps]


# ---------------------------------------------------------------- numbers


def fmt_number(x: Any) -> str:
    """A number the way a person writes it: 3, 2.5, 0.1, 1e-05, nan."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = x if isinstance(x, np.floating) else np.float64(x)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0" if not np.signbit(x) else "-0"
    magnitude = abs(float(x))
    if magnitude >= 1e6 or magnitude < 1e-4:
        return np.format_float_scientific(x, trim="-", unique=True, exp_digits=1)
    return np.format_float_positional(x, trim="-", unique=True)


def fmt_shape(shape: Any) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def fmt_value(value: Any) -> str:
    """A tensor's values on one line: `3`, `[2, 1, 3]`, `[[1, 2], [3, 4]]`, or abbreviated."""
    if value is None:
        return "None"
    if isinstance(value, Summary):  # a large array: always abbreviated
        head = ", ".join(fmt_number(v) for v in value.head[:4])
        return f"[{head}, …] {fmt_shape(value.shape)}"
    a = np.asarray(value)
    if a.ndim == 0:
        return fmt_number(a[()])
    if a.size > MAX_ELEMENTS:
        head = ", ".join(fmt_number(v) for v in a.reshape(-1)[:4])
        return f"[{head}, …] {fmt_shape(a.shape)}"

    def nest(x: np.ndarray) -> str:
        if x.ndim == 1:
            return "[" + ", ".join(fmt_number(v) for v in x) + "]"
        return "[" + ", ".join(nest(row) for row in x) + "]"

    return nest(a)


def jsonable(value: Any) -> Any:
    """Facts as strict JSON: arrays become (nested) lists, non-finite floats strings."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        kind = value.dtype.kind
        if kind in "biu" or (kind == "f" and bool(np.isfinite(value).all())):
            return value.tolist()  # already plain bools, ints and finite floats
        return jsonable(value.tolist())
    if isinstance(value, Summary):  # a large array: what the trace kept of it
        summary: dict[str, Any] = {"first": jsonable(value.head)}
        if value.corners is not None:
            summary["corners"] = jsonable(value.corners)
        if value.uniform is not None:
            summary["all_equal"] = value.uniform
        return {"shape": list(value.shape), "dtype": str(value.dtype), "summary": summary}
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return v if np.isfinite(v) else fmt_number(v)
    return value


def _uniform(value: Any) -> str:
    """A value whose elements are all equal is shown as one number."""
    if isinstance(value, Summary):
        return fmt_number(value.head[0]) if value.uniform else fmt_value(value)
    a = np.asarray(value)
    if a.ndim and a.size and np.all(a == a.reshape(-1)[0]):
        return fmt_number(a.reshape(-1)[0])
    return fmt_value(a)


def _signed(d: Any) -> int:
    """torch shows dims saved as unsigned 64-bit ints; -1 comes back as 2**64 - 1."""
    d = int(d)
    return d - (1 << 64) if d >= 1 << 63 else d


def _sum_to(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Reduce a broadcast gradient back to an input's shape (what backward does)."""
    g = np.asarray(g)
    if g.shape == tuple(shape):
        return g
    lead = g.ndim - len(shape)
    if lead > 0:
        g = g.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


# -- values the trace kept as summaries (large arrays, see gradtrace.summary) ---------


def _is_summary(value: Any) -> bool:
    return isinstance(value, Summary)


def _is_uniform(value: Any) -> bool:
    """All elements equal (a summary knows it)."""
    if isinstance(value, Summary):
        return bool(value.uniform)
    a = np.asarray(value)
    return bool(a.size == 0 or np.all(a == a.reshape(-1)[0]))


def _total(parts: list[Any]) -> Any:
    """The sum of gradients in float64; of summaries, the sum of what they kept."""
    if not any(isinstance(p, Summary) for p in parts):
        return sum(np.asarray(p, dtype=np.float64) for p in parts)
    if len({tuple(p.shape) for p in parts}) != 1 or not all(
            isinstance(p, Summary) for p in parts):
        return None
    head = sum(p.head.astype(np.float64) for p in parts)
    corners = None if any(p.corners is None for p in parts) else sum(
        p.corners.astype(np.float64) for p in parts)
    return Summary(parts[0].shape, np.dtype(np.float64), head, corners, None)


def _close(a: Any, b: Any) -> bool:
    """np.allclose for gradients of the same shape; summaries compare what they kept."""
    if tuple(np.shape(a) if not isinstance(a, Summary) else a.shape) != tuple(
            np.shape(b) if not isinstance(b, Summary) else b.shape):
        return False
    if isinstance(a, Summary) or isinstance(b, Summary):
        a = a if isinstance(a, Summary) else Summary.of(np.asarray(a))
        b = b if isinstance(b, Summary) else Summary.of(np.asarray(b))
        if not np.allclose(a.head, b.head, rtol=1e-5, atol=1e-6):
            return False
        return a.corners is None or b.corners is None or bool(
            np.allclose(a.corners, b.corners, rtol=1e-5, atol=1e-6))
    return bool(np.allclose(a, b, rtol=1e-5, atol=1e-6))


def _as_dtype(value: Any, dtype: Any) -> Any:
    if isinstance(value, Summary):
        return Summary(value.shape, dtype, value.head.astype(dtype),
                       None if value.corners is None else value.corners.astype(dtype),
                       value.uniform)
    return value.astype(dtype)


# ---------------------------------------------------------------- local derivatives


GradFn = Callable[[list, dict, dict], list]


@dataclass(frozen=True)
class Rule:
    """How a node's backward works, per input.

    `local` and `chain` are templates: math with operand names in braces (`{other}`),
    or `@message.id` for a catalog message when words are needed. Operands: `grad`
    (what the node received), `inp`/`out` (the input's and output's labels), saved
    tensors by their `_saved_` name, and the derived names in `_operands`. `fn`
    computes the gradient sent to each input from (grads, saved values, attrs).
    `elementwise` rules show the value of the local derivative itself.
    """

    local: tuple[str, ...]
    chain: tuple[str, ...]
    fn: GradFn
    elementwise: bool = True

    def uses(self, i: int) -> set[str]:
        """Operand names input i's gradient needs."""
        return set(re.findall(r"{(\w+)}", self.chain[i])) | set(
            re.findall(r"{(\w+)}", self.local[i]))


def _need(*arrays: Any) -> bool:
    return all(a is not None for a in arrays)


def _mul(g: list, s: dict, a: dict) -> list:
    other, self_ = s.get("other"), s.get("self")
    return [g[0] * other if _need(other) else None, g[0] * self_ if _need(self_) else None]


def _div(g: list, s: dict, a: dict) -> list:
    other, self_ = s.get("other"), s.get("self")
    return [g[0] / other if _need(other) else None,
            -g[0] * self_ / (other * other) if _need(self_, other) else None]


def _pow0(g: list, s: dict, a: dict) -> list:
    e, x = a.get("exponent"), s.get("self")
    if not _need(e, x):
        return [None]
    return [np.zeros_like(x) if e == 0 else g[0] * e * np.power(x, e - 1)]


def _sum0(g: list, s: dict, a: dict) -> list:
    return [np.broadcast_to(g[0], a["self_sym_sizes"]).copy()]


def _mean0(g: list, s: dict, a: dict) -> list:
    return [np.broadcast_to(g[0], a["self_sym_sizes"]) / a["self_sym_numel"]]


def _reshape(g: list, s: dict, a: dict) -> list:
    return [np.reshape(g[0], a["self_sym_sizes"])]


def _unbind(g: list, s: dict, a: dict) -> list:
    shapes = [x.shape for x in g if x is not None]
    if not shapes:
        return [None]
    parts = [x if x is not None else np.zeros(shapes[0]) for x in g]
    return [np.stack(parts, axis=_signed(a["dim"]))]


def _select(g: list, s: dict, a: dict) -> list:
    sizes = a["self_sym_sizes"]
    out = np.zeros(sizes, dtype=np.result_type(g[0]))
    d = _signed(a["dim"]) % len(sizes)
    out[(slice(None),) * d + (_signed(a["index"]),)] = g[0]
    return [out]


def _mm(g: list, s: dict, a: dict) -> list:
    mat2, self_ = s.get("mat2"), s.get("self")
    return [g[0] @ mat2.T if _need(mat2) else None, self_.T @ g[0] if _need(self_) else None]


def _one(fn: Callable[[np.ndarray, dict, dict], Any]) -> GradFn:
    def run(g: list, s: dict, a: dict) -> list:
        try:
            return [fn(g[0], s, a)]
        except (KeyError, TypeError):
            return [None]
    return run


RULES: dict[str, Rule] = {
    "MulBackward0": Rule(("{other}", "{self}"), ("{grad} × {other}", "{grad} × {self}"), _mul),
    "AddBackward0": Rule(("1", "{alpha}"), ("{grad}", "{grad} × {alpha}"),
                         lambda g, s, a: [g[0], g[0] * a.get("alpha", 1)]),
    "SubBackward0": Rule(("1", "-{alpha}"), ("{grad}", "-{grad} × {alpha}"),
                         lambda g, s, a: [g[0], -g[0] * a.get("alpha", 1)]),
    "RsubBackward1": Rule(("-{alpha}",), ("-{grad} × {alpha}",),
                          lambda g, s, a: [-g[0] * a.get("alpha", 1)]),
    "NegBackward0": Rule(("-1",), ("-{grad}",), lambda g, s, a: [-g[0]]),
    "DivBackward0": Rule(("1 / {other}", "-{self} / {other}²"),
                         ("{grad} / {other}", "-{grad} × {self} / {other}²"), _div),
    "PowBackward0": Rule(("{exponent} × {self}^{exponent_m1}",),
                         ("{grad} × {exponent} × {self}^{exponent_m1}",), _pow0),
    "ExpBackward0": Rule(("exp({inp}) = {result}",), ("{grad} × {result}",),
                         _one(lambda g, s, a: g * s["result"])),
    "LogBackward0": Rule(("1 / {self}",), ("{grad} / {self}",),
                         _one(lambda g, s, a: g / s["self"])),
    "SinBackward0": Rule(("cos({self})",), ("{grad} × cos({self})",),
                         _one(lambda g, s, a: g * np.cos(s["self"]))),
    "CosBackward0": Rule(("-sin({self})",), ("-{grad} × sin({self})",),
                         _one(lambda g, s, a: -g * np.sin(s["self"]))),
    "TanhBackward0": Rule(("1 - {result}²",), ("{grad} × (1 - {result}²)",),
                          _one(lambda g, s, a: g * (1 - s["result"] ** 2))),
    "SigmoidBackward0": Rule(("{result} × (1 - {result})",),
                             ("{grad} × {result} × (1 - {result})",),
                             _one(lambda g, s, a: g * s["result"] * (1 - s["result"]))),
    "ReluBackward0": Rule(("@math.relu_local",), ("@math.relu_chain",),
                          _one(lambda g, s, a: np.where(s["result"] > 0, g, 0))),
    "SqrtBackward0": Rule(("1 / (2 × {result})",), ("{grad} / (2 × {result})",),
                          _one(lambda g, s, a: g / (2 * s["result"]))),
    "AbsBackward0": Rule(("sign({self})",), ("{grad} × sign({self})",),
                         _one(lambda g, s, a: g * np.sign(s["self"]))),
    "ReciprocalBackward0": Rule(("-{result}²",), ("-{grad} × {result}²",),
                                _one(lambda g, s, a: -g * s["result"] ** 2)),
    "CloneBackward0": Rule(("1",), ("{grad}",), lambda g, s, a: [g[0]]),
    "SumBackward0": Rule(("@math.sum_local",), ("@math.sum_chain",), _sum0, elementwise=False),
    "MeanBackward0": Rule(("@math.mean_local",), ("@math.mean_chain",), _mean0,
                          elementwise=False),
    "ViewBackward0": Rule(("@math.view_local",), ("@math.view_chain",), _reshape,
                          elementwise=False),
    "UnsafeViewBackward0": Rule(("@math.view_local",), ("@math.view_chain",), _reshape,
                                elementwise=False),
    "ReshapeAliasBackward0": Rule(("@math.view_local",), ("@math.view_chain",), _reshape,
                                  elementwise=False),
    "UnbindBackward0": Rule(("@math.unbind_local",), ("@math.unbind_chain",), _unbind,
                            elementwise=False),
    "SelectBackward0": Rule(("@math.select_local",), ("@math.select_chain",), _select,
                            elementwise=False),
    "MmBackward0": Rule(("@math.mm_local_self", "@math.mm_local_mat2"),
                        ("{grad} @ {mat2}ᵀ", "{self}ᵀ @ {grad}"), _mm, elementwise=False),
}


def _operands(attrs: dict[str, Any]) -> dict[str, str]:
    """Values derived from a node's saved attributes, for the templates."""
    out: dict[str, str] = {}
    if "alpha" in attrs:
        out["alpha"] = fmt_number(attrs["alpha"])
    if "exponent" in attrs and not isinstance(attrs["exponent"], np.ndarray):
        out["exponent"] = fmt_number(attrs["exponent"])
        out["exponent_m1"] = fmt_number(attrs["exponent"] - 1)
    if "self_sym_numel" in attrs:
        out["n"] = str(attrs["self_sym_numel"])
    if "self_sym_sizes" in attrs:
        out["sizes"] = fmt_shape(attrs["self_sym_sizes"])
    if "dim" in attrs and isinstance(attrs["dim"], (int, np.integer)):
        out["dim"] = str(_signed(attrs["dim"]))
    if "index" in attrs and isinstance(attrs["index"], (int, np.integer)):
        out["index"] = str(_signed(attrs["index"]))
    return out


EXACT_LIMIT = 1 << 20  # a local derivative with more elements is worked out from a probe


def _probe(value: Any, shape: tuple[int, ...], index: tuple[np.ndarray, ...]) -> Any:
    """An operand broadcast to `shape`, at the output positions `index` (a 1-d array).

    A summary answers from its first values: broadcasting maps the first output
    positions to the first positions of an operand.
    """
    if value is None:
        return None
    vshape = tuple(value.shape)
    if not vshape:
        return value
    lead = len(shape) - len(vshape)
    if lead < 0:
        raise ValueError("operand has more dimensions than the output")
    coords = []
    for d, n in enumerate(vshape):
        if n == shape[lead + d]:
            coords.append(index[lead + d])
        elif n == 1:
            coords.append(np.zeros_like(index[lead + d]))
        else:
            raise ValueError("operand does not broadcast to the output")
    if isinstance(value, Summary):
        flat = np.ravel_multi_index(tuple(coords), vshape)
        if flat.size and int(flat.max()) >= value.head.size:
            raise ValueError("beyond the values the summary kept")
        return value.head[flat]
    return np.asarray(value)[tuple(coords)]


def _depends_on(rule: Rule, i: int, values: dict[str, Any]) -> list[str]:
    """The saved operands input i's local derivative uses (all, for a worded rule)."""
    template = rule.local[i] if i < len(rule.local) else "@"
    if template.startswith("@"):
        return list(values)
    return [name for name in rule.uses(i) if name in values]


def _local_values(rule: Rule, node: Any, values: dict[str, Any]) -> list[Any]:
    """The local derivative of an elementwise rule for each input, at record time.

    From whole saved values when the trace kept them (a large result is summarised:
    `_uniform` shows it the same); from the first output positions when a saved value
    is a summary, then all-equal only when every operand it uses is.
    """
    attrs = node.attrs or {}
    summarised = any(isinstance(v, Summary) for v in values.values())
    if not summarised and all(int(np.prod(shape)) <= EXACT_LIMIT
                              for shape, _ in node.output_meta):
        ones = [np.ones(shape, dtype=dtype.np) for shape, dtype in node.output_meta]
        try:
            out = rule.fn(ones, values, attrs)
        except (TypeError, ValueError, KeyError):
            return [None] * len(node.next_functions)
        return [v if v is None or np.size(v) <= FULL_LIMIT else Summary.of(np.asarray(v))
                for v in out]
    shape, dtype = node.output_meta[0]
    shape = tuple(shape)
    k = min(HEAD, int(np.prod(shape)))
    if k == 0:
        return [None] * len(node.next_functions)
    index = np.unravel_index(np.arange(k), shape)
    try:
        probes = {key: _probe(v, shape, index) for key, v in values.items()}
        out = rule.fn([np.ones(k, dtype=dtype.np)], probes, attrs)
    except (TypeError, ValueError, KeyError, IndexError):
        return [None] * len(node.next_functions)
    results: list[Any] = []
    for i, v in enumerate(out):
        if v is None:
            results.append(None)
            continue
        head = np.array(np.broadcast_to(np.asarray(v), (k,)))
        uniform = all(_is_uniform(values[name]) for name in _depends_on(rule, i, values)
                      if values.get(name) is not None)
        results.append(Summary(shape, head.dtype, head, None, uniform))
    return results


_FIELDS: dict[tuple[str, str], frozenset[str]] = {}


def _message_fields(catalog: Catalog, message: str) -> frozenset[str]:
    """The fields a message's template uses (their base names)."""
    key = (catalog.lang, message)
    names = _FIELDS.get(key)
    if names is None:
        names = _FIELDS[key] = frozenset(re.split(r"[.\[]", name)[0]
                                         for name in fields(catalog.messages[message]))
    return names


# ---------------------------------------------------------------- statements of the script


def _statement_lines(source: Any, module: Any) -> tuple[dict[int, int], dict[int, str]]:
    """Map each line to the line of the innermost statement containing it, plus its text.

    `module` is the run's parsed script; None (it did not parse) groups nothing."""
    from .. import syntax

    if module is None:
        return {}, {}
    compound = (syntax.If, syntax.For, syntax.While, syntax.With, syntax.Try,
                syntax.FunctionDef)
    owner: dict[int, tuple[int, int]] = {}  # line -> (size, statement line)
    texts: dict[int, str] = {}

    def visit(stmts: Any) -> None:
        for stmt in stmts:
            span = stmt.span
            size = span.end_line - span.line
            for line in range(span.line, span.end_line + 1):
                if line not in owner or size <= owner[line][0]:
                    owner[line] = (size, span.line)
            text = source.line_text(span.line).strip()
            if size and not isinstance(stmt, compound):
                text += " …"
            texts[span.line] = text
            for attr in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, attr, None)
                if isinstance(inner, tuple):
                    visit(inner)
            for handler in getattr(stmt, "handlers", ()) or ():
                visit(handler.body)

    visit(module.body)
    return {line: stmt for line, (_, stmt) in owner.items()}, texts


# ---------------------------------------------------------------- the explainer


@dataclass
class _Visit:
    kind: str  # statement | backward
    line: int | None
    events: list[tuple[int, Any]] = field(default_factory=list)
    call: Any = None
    begin: int = 0
    closed: bool = False


class _Explainer:
    def __init__(self, result: Any, catalog: Catalog):
        self.result = result
        self.t = catalog
        self.source = result.source
        trace = result.trace
        self.trace = trace
        self.tensors = {r.id: r for r in trace.tensors.values()} if trace else {}
        self.nodes = {r.id: r for r in trace.nodes.values()} if trace else {}
        self.node_of = {id(r.node): r for r in trace.nodes.values()} if trace else {}
        self.stmt_of, self.stmt_text = _statement_lines(self.source, result.module)
        self.labels: dict[int, str] = {}
        self.bound: set[int] = set()
        self.name_of: dict[str, int] = {}
        self.produced: set[int] = set()
        self.grad_enabled = True
        self.executed: set[int] = set()
        self.reported: set[tuple[str, int]] = set()
        self.has_grad: set[int] = set()  # leaves whose .grad is not None
        self.node_created: dict[int, int] = {}  # node id -> event index of its op
        self.inplace_log: list[tuple[int, int, int, int | None, str]] = []
        # (event index, tensor id, version after, line, expression)
        self.sections: list[Section] = []
        self.released: set[int] = set()  # nodes whose saved tensors a backward freed
        self.quiet = False  # a repeated statement: say only warnings and errors
        self.at: dict[str, Any] | None = None  # what the steps said now tell about
        self.grad_results: set[int] = set()  # tensors torch.autograd.grad returned
        self.in_graph: set[int] = set()
        for record in self.nodes.values():
            self.in_graph.update(i for i in record.inputs if i is not None)
        self.begin_of: dict[int, int] = {}  # backward call -> index of its backward_begin
        if trace:
            for idx, ev in enumerate(trace.events):
                if ev.kind == "op" and ev.facts.get("node") is not None:
                    self.node_created.setdefault(ev.facts["node"], idx)
                elif ev.kind == "backward_begin":
                    self.begin_of[ev.facts["call"]] = idx
        # indexes, so that long loops stay linear
        self.tensors_by_counter: dict[int, list[int]] = defaultdict(list)
        for record in self.tensors.values():
            self.tensors_by_counter[record.counter].append(record.id)
        self.saved_by_counter: dict[int, list[tuple[Any, Any]]] = defaultdict(list)
        first_use: dict[int, int] = {}
        for record in self.nodes.values():
            created = self.node_created.get(record.id)
            if created is not None:
                for tid in record.inputs:
                    if tid is not None and created < first_use.get(tid, 1 << 62):
                        first_use[tid] = created
        self.node_order = sorted(self.node_created.items(), key=lambda item: item[1])
        self.leaf_order = sorted(
            ((r.id, r.outputs[0], first_use[r.outputs[0]]) for r in self.nodes.values()
             if isinstance(r.node, AccumulateGrad) and r.outputs and r.outputs[0] in first_use),
            key=lambda item: item[2])
        self.pending_nodes: dict[int, None] = {}
        self.pending_leaves: dict[int, int] = {}  # AccumulateGrad id -> tensor id
        self.node_cursor = self.leaf_cursor = 0

    # -- naming ---------------------------------------------------------------

    def stmt(self, line: int | None) -> int | None:
        return None if line is None else self.stmt_of.get(line, line)

    def source_of(self, line: int | None) -> str:
        if line is None:
            return ""
        return self.stmt_text.get(line) or self.source.line_text(line).strip()

    def label(self, tid: int | None) -> str:
        if tid is None:
            return "None"
        if tid in self.labels:
            return self.labels[tid]
        record = self.tensors.get(tid)
        if record is None:
            return f"t{tid}"
        if record.tensor._wrapped:
            return fmt_value(record.tensor.array)
        expr = record.expression
        if expr:
            if len(expr) > MAX_EXPRESSION:
                expr = expr[: MAX_EXPRESSION - 1] + "…"
            return f"`{expr}`"
        return f"t{tid}"

    def node_ref(self, nid: int | None) -> str:
        if nid is None:
            return "None"
        record = self.nodes[nid]
        if isinstance(record.node, AccumulateGrad):
            tid = record.outputs[0] if record.outputs else None
            return self.t("ref.accumulate", tensor=self.label(tid))
        outs = ", ".join(self.label(o) for o in record.outputs) or "?"
        return self.t("ref.node", node=record.name, out=outs, line=record.line or "?")

    def node_fact(self, nid: int) -> dict[str, Any]:
        """A node as plain facts: its name, what it made, and its line."""
        record = self.nodes[nid]
        return {"node": record.name, "outputs": [self.label(o) for o in record.outputs],
                "line": record.line}

    def short_name(self, record: Any) -> str:
        return record.name.replace("torch::autograd::", "")

    def once(self, key: str) -> bool:
        """True the first time a general remark is due (later ones would repeat it)."""
        if ("once", key) in self.reported:
            return False
        self.reported.add(("once", key))
        return True

    # -- steps --------------------------------------------------------------------

    def say(self, steps: list[Step], message: str, line: int | None, tone: str = "info", /,
            *, text: dict[str, str] | None = None, **facts: Any) -> None:
        if self.quiet and tone not in ("warn", "error"):
            return
        text = text or {}
        used = _message_fields(self.t, message)
        fields = {k: self.fmt(v) for k, v in facts.items() if k not in text and k in used}
        fields.update(text)
        steps.append(Step(message, line, jsonable(facts), self.t(message, **fields), tone,
                          self.at))

    @staticmethod
    def fmt(value: Any) -> str:
        if isinstance(value, str):
            return value
        if value is None:
            return "None"
        if isinstance(value, (bool, np.bool_)):
            return str(bool(value))
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return ", ".join(value)
        if isinstance(value, (int, np.integer)):
            return str(int(value))
        if isinstance(value, dict) or (isinstance(value, (list, tuple)) and any(
                isinstance(v, (dict, str)) or v is None for v in value)):
            return str(jsonable(value))
        return fmt_value(value)

    # -- the walk -------------------------------------------------------------------

    def visits(self) -> list[_Visit]:
        out: list[_Visit] = []
        current: _Visit | None = None
        depth = 0
        for idx, ev in enumerate(self.trace.events):
            key = self.stmt(ev.line)
            if ev.kind == "backward_begin":
                if depth == 0:
                    call = self.trace.backward_calls[ev.facts["call"] - 1]
                    current = _Visit("backward", key, call=call, begin=idx)
                    out.append(current)
                else:
                    current.events.append((idx, ev))
                depth += 1
                continue
            if ev.kind == "backward_end":
                depth -= 1
                if depth == 0:
                    current.closed = True
                else:
                    current.events.append((idx, ev))
                continue
            if depth:
                current.events.append((idx, ev))
                continue
            if current is not None and current.kind == "backward" and current.closed and (
                    key == current.line and ev.kind in ("method", "caught")):
                current.events.append((idx, ev))
                continue
            if current is None or current.kind == "backward" or key != current.line:
                current = _Visit("statement", key)
                out.append(current)
            current.events.append((idx, ev))
        return out

    def build(self) -> list[Section]:
        """All sections. A statement (or backward line) is told MAX_REPEATS times; later
        runs of it only report warnings and errors, and are otherwise counted."""
        seen: dict[tuple[str, int | None], int] = defaultdict(int)
        holders: dict[tuple[str, int | None], Section] = {}
        if self.trace is not None:
            for visit in self.visits():
                key = (visit.kind, visit.line)
                seen[key] += 1
                self.quiet = seen[key] > MAX_REPEATS
                steps = (self.backward_steps(visit) if visit.kind == "backward"
                         else self.statement_steps(visit))
                self.quiet = False
                if not steps:
                    if seen[key] > MAX_REPEATS:
                        holder = holders.get(key)
                        if holder is None:
                            title = self.t("section.statement", line=visit.line or "?")
                            holder = holders[key] = Section(
                                "repeat", visit.line, self.source_of(visit.line), title, [],
                                {"count": 0})
                            self.sections.append(holder)
                        holder.facts["count"] += 1
                    continue
                if len(steps) > MAX_STEPS_PER_SECTION:
                    hidden = len(steps) - MAX_STEPS_PER_SECTION
                    steps = steps[:MAX_STEPS_PER_SECTION]
                    self.at = None
                    self.say(steps, "section.more_steps", visit.line, "note", count=hidden)
                self.sections.append(self.section(visit, steps))
        self.at = None
        for holder in holders.values():
            self.say(holder.steps, "section.repeat", holder.line, "note",
                     count=holder.facts["count"])
        self.uncaught()
        return self.sections

    def section(self, visit: _Visit, steps: list[Step]) -> Section:
        line = visit.line
        if visit.kind == "backward":
            call = visit.call
            title = self.t("section.backward", line=line or "?", n=call.index)
            facts = {"call": call.index, "retain_graph": call.retain_graph,
                     "create_graph": call.create_graph, "accumulate": call.accumulate}
            return Section("backward", line, self.source_of(line), title, steps, facts)
        title = self.t("section.statement", line=line or "?")
        return Section("statement", line, self.source_of(line), title, steps)

    # -- statements -------------------------------------------------------------------

    def statement_steps(self, visit: _Visit) -> list[Step]:
        steps: list[Step] = []
        events = visit.events
        for _, ev in events:  # names bound in this statement label what it made
            if ev.kind == "bind" and ev.facts["tensor"] not in self.bound:
                name, tid = ev.facts["name"], ev.facts["tensor"]
                old = self.name_of.get(name)
                if old is not None and old != tid and self.labels.get(old) == name:
                    self.labels[old] = f"{name}@{self.tensors[old].line}"
                self.labels[tid] = name
        k = 0
        while k < len(events):
            idx, ev = events[k]
            kind, facts, line = ev.kind, ev.facts, ev.line
            self.at = {"event": idx}
            if kind == "op":
                nxt = events[k + 1][1] if k + 1 < len(events) else None
                if nxt is not None and nxt.kind == "inplace" and nxt.facts["name"] == facts["name"]:
                    self.inplace(steps, ev, nxt, events[k + 1][0])
                    k += 2
                    continue
                self.op(steps, ev)
            elif kind == "inplace":
                self.inplace(steps, None, ev, idx)
            elif kind == "bind":
                self.bind(steps, ev)
            elif kind == "grad_mode":
                self.grad_enabled = facts["enabled"]
                self.say(steps, "grad_mode.on" if facts["enabled"] else "grad_mode.off", line)
            elif kind == "data_write":
                self.say(steps, "data.write", line, "note", tensor=self.label(facts["tensor"]))
            elif kind == "method":
                self.method(steps, ev)
            elif kind == "attr_read":
                self.attr_read(steps, ev)
            elif kind == "attr_write":
                self.attr_write(steps, ev)
            elif kind == "caught":
                self.error(steps, facts["kind"], facts["message"], line, events,
                           handler_line=facts["handler_line"])
            k += 1
        return steps

    def bind(self, steps: list[Step], ev: Any) -> None:
        name, tid, line = ev.facts["name"], ev.facts["tensor"], ev.line
        old = self.name_of.get(name)
        if old is not None and old != tid:
            if self.labels.get(old) == name:
                self.labels[old] = f"{name}@{self.tensors[old].line}"
            if old in self.in_graph:
                self.say(steps, "bind.rebind", line, "note", name=name, old=self.label(old))
        self.name_of[name] = tid
        first = tid not in self.bound
        self.bound.add(tid)
        if not first or (tid in self.produced and tid not in self.grad_results):
            return
        self.produced.add(tid)
        value = ev.facts.get("value")
        record = self.tensors[tid]
        if tid in self.grad_results:
            kind = "bind.grad_result" if ev.facts.get("is_leaf") else "bind.grad_result.graph"
            grad_fn = record.tensor.grad_fn
            self.say(steps, kind, line, tensor=name, value=value,
                     node=grad_fn.name() if grad_fn is not None else None)
        elif not ev.facts.get("is_leaf"):
            return
        elif ev.facts.get("requires_grad"):
            self.say(steps, "leaf.requires_grad", line, tensor=name, value=value,
                     dtype=str(record.tensor.dtype))
        else:
            self.say(steps, "leaf.plain", line, tensor=name, value=value,
                     dtype=str(record.tensor.dtype))

    def inputs_of(self, record: Any) -> list[int | None]:
        return list(record.inputs) + [None] * (len(record.node.next_functions) - len(record.inputs))

    def op(self, steps: list[Step], ev: Any) -> None:
        facts, line = ev.facts, ev.line
        outs, ins = facts["outputs"], facts["inputs"]
        values = facts.get("values") or [None] * len(outs)
        self.produced.update(outs)
        nid = facts["node"]
        if self.quiet:  # a repeated statement: keep the state, say nothing
            if nid is not None:
                self.index_saved(nid)
                self.next_functions_seen(self.nodes[nid])
                self.results_seen(outs)
            return
        expr = self.expression(outs[0] if outs else None, line)
        if nid is None:
            out = ", ".join(self.label(o) for o in outs)
            wanting = [self.label(i) for i in ins
                       if i is not None and self.tensors[i].tensor.requires_grad
                       and not self.tensors[i].tensor._wrapped]
            if not self.grad_enabled and wanting:
                self.say(steps, "op.unrecorded.mode", line, expr=expr, out=out,
                         value=values[0], inputs=wanting)
            else:
                self.say(steps, "op.unrecorded", line, expr=expr, out=out, value=values[0])
            return
        record = self.nodes[nid]
        self.index_saved(nid)
        out_labels = [self.label(o) for o in outs]
        self.recorded(steps, record, expr, out_labels, line)
        self.next_functions(steps, record, line)
        self.saved(steps, record, out_labels, line)
        self.results(steps, record, outs, values, line)

    def expression(self, tid: int | None, line: int | None) -> str:
        record = self.tensors.get(tid) if tid is not None else None
        expr = record.expression if record is not None and record.expression else None
        return expr or self.source.line_text(line or 0).strip()

    def recorded(self, steps: list[Step], record: Any, expr: str, out_labels: list[str],
                 line: int | None, inplace_target: str | None = None) -> None:
        wanting = []
        for (nxt, _), tid in zip(record.node.next_functions, self.inputs_of(record), strict=False):
            if nxt is not None and tid is not None and self.label(tid) not in wanting:
                wanting.append(self.label(tid))
        kind = "op.recorded.one" if len(wanting) == 1 else "op.recorded.many"
        self.say(steps, kind, line, expr=expr, node=record.name, out=out_labels,
                 inputs=wanting, text={"inputs": self.t.join(wanting)})

    def next_functions(self, steps: list[Step], record: Any, line: int | None) -> None:
        for i, ((nxt, nr), tid) in enumerate(zip(record.node.next_functions,
                                                 self.inputs_of(record), strict=False)):
            inp = self.label(tid)
            if nxt is None:
                wrapped = tid is not None and self.tensors[tid].tensor._wrapped
                self.say(steps, "next.number" if wrapped else "next.none", line, index=i,
                         input=inp)
                continue
            target = self.node_of.get(id(nxt))
            if isinstance(nxt, AccumulateGrad):
                kind = "next.accumulate" if self.once("next.accumulate") else \
                    "next.accumulate.again"
                self.say(steps, kind, line, index=i, input=inp)
            elif len(nxt.output_meta) > 1 or nr:
                self.say(steps, "next.output", line, index=i, input=inp,
                         node=nxt.name(), output_nr=nr,
                         text={"ref": self.node_ref(target.id) if target else nxt.name()})
            else:
                self.say(steps, "next.node", line, index=i, input=inp, node=nxt.name(),
                         text={"ref": self.node_ref(target.id) if target else nxt.name()})

    def next_functions_seen(self, record: Any) -> None:
        """What `next_functions` remembers, for a repeated statement that says nothing."""
        if any(isinstance(nxt, AccumulateGrad) for nxt, _ in record.node.next_functions):
            self.once("next.accumulate")

    def results_seen(self, outs: list[int]) -> None:
        """What `results` remembers, for a repeated statement that says nothing."""
        if len(outs) > 1:
            return
        if not self.label(outs[0]).startswith("`"):
            self.once("result.nonleaf")

    def saved_values(self, record: Any) -> dict[str, Any]:
        return {s.name: s.value for s in record.saved}

    def operand_labels(self, record: Any, out: str, inp: str) -> dict[str, str]:
        fields = dict(_operands(record.node.attrs or {}))
        for s in record.saved:
            fields[s.name] = self.label(s.tensor_id) if s.tensor_id is not None else "None"
        fields.update(out=out, inp=inp)
        return fields

    def operand_values(self, record: Any, values: dict[str, Any], out: str, inp: str,
                       grad: str, template: str = "") -> dict[str, str]:
        """Operands for a chain formula: `d (=4)`, or just the number when it is one.

        In a formula that powers an operand or uses it twice, only the numbers are shown.
        """
        fields = dict(_operands(record.node.attrs or {}))
        names = re.findall(r"{(\w+)}", template)
        bare = "^" in template or "²" in template or len(names) != len(set(names))
        for s in record.saved:
            value = values.get(s.name)
            label = self.label(s.tensor_id) if s.tensor_id is not None else "None"
            shown = fmt_value(value) if value is not None else None
            if shown is not None and bare:
                fields[s.name] = shown
            elif shown is None or shown == label:
                fields[s.name] = label
            else:
                fields[s.name] = self.t("math.operand", label=label, value=shown)
        fields.update(out=out, inp=inp, grad=grad)
        return fields

    def template(self, template: str, fields: dict[str, str]) -> str:
        if template.startswith("@"):
            return self.t(template[1:], **fields)
        return template.format(**fields)

    def local_derivatives(self, record: Any, out_labels: list[str]
                          ) -> tuple[list[str], list[dict[str, Any]]]:
        """`∂c/∂a = b = 3` for each input that needs a gradient (rule nodes only).

        Returns the rendered texts and, as facts, the input, the formula's operand names
        and the derivative's value (for elementwise rules).
        """
        rule = RULES.get(record.name)
        if rule is None:
            return [], []
        node = record.node
        out = out_labels[0] if len(out_labels) == 1 else "(" + ", ".join(out_labels) + ")"
        values = self.saved_values(record)
        local_values: list[Any] = [None] * len(node.next_functions)
        if rule.elementwise and node.output_meta:
            local_values = _local_values(rule, node, values)
        out_parts = []
        facts = []
        pairs = zip(node.next_functions, self.inputs_of(record), strict=False)
        for i, ((nxt, _), tid) in enumerate(pairs):
            if nxt is None or i >= len(rule.local):
                continue
            inp = self.label(tid)
            fields = self.operand_labels(record, out, inp)
            formula = self.template(rule.local[i], fields)
            text = self.t("math.derivative", out=out, inp=inp, formula=formula)
            value = local_values[i] if i < len(local_values) else None
            if value is not None:
                shown = _uniform(value)
                if shown != formula and not formula.endswith(f"= {shown}"):
                    text = self.t("math.equals", left=text, value=shown)
            out_parts.append(text)
            facts.append({"input": inp, "index": i, "uses": sorted(rule.uses(i) - {"grad"}),
                          "value": value})
        return out_parts, facts

    def saved(self, steps: list[Step], record: Any, out_labels: list[str],
              line: int | None) -> None:
        derivs, deriv_facts = self.local_derivatives(record, out_labels)
        kept = [s for s in record.saved if s.tensor_id is not None]
        entries = []
        for s in kept:
            label = self.label(s.tensor_id)
            if self.tensors[s.tensor_id].tensor._wrapped:
                entries.append(self.t("saved.entry.number", key=s.name, tensor=label))
            else:
                entries.append(self.t("saved.entry", key=s.name, tensor=label,
                                      value=fmt_value(s.value), version=s.version))
        facts_saved = [{"key": s.name, "tensor": self.label(s.tensor_id), "value": s.value,
                        "version": s.version, "is_output": s.is_output} for s in kept]
        rule = RULES.get(record.name)
        if kept and derivs:
            self.say(steps, "op.saved", line, node=record.name, saved=facts_saved,
                     derivatives=deriv_facts, text={"saved": self.t.join(entries),
                                               "derivatives": self.t.join(derivs)})
        elif kept:
            self.say(steps, "op.saved.generic", line, node=record.name, saved=facts_saved,
                     text={"saved": self.t.join(entries)})
        elif derivs:
            self.say(steps, "op.saved.nothing", line, node=record.name,
                     derivatives=deriv_facts, text={"derivatives": self.t.join(derivs)})
        if rule is None:
            return
        # a saved slot left empty: only the gradient of an input that needs none would use it
        inputs = self.inputs_of(record)
        for s in record.saved:
            if s.tensor_id is not None:
                continue
            users = [i for i in range(len(rule.chain)) if s.name in rule.uses(i)]
            if users and all(record.node.next_functions[i][0] is None for i in users
                             if i < len(inputs)):
                users = [i for i in users if i < len(inputs)]
                names = [self.label(inputs[i]) for i in users]
                numbers = all(inputs[i] is not None and self.tensors[inputs[i]].tensor._wrapped
                              for i in users)
                self.say(steps, "op.saved.skipped.number" if numbers else "op.saved.skipped",
                         line, key=s.name, inputs=names, text={"inputs": self.t.join(names)})

    def results(self, steps: list[Step], record: Any, outs: list[int], values: list[Any],
                line: int | None) -> None:
        if len(outs) > 1:
            labels = [self.label(o) for o in outs]
            self.say(steps, "result.multi", line, outputs=labels, node=record.name,
                     count=len(outs), last=len(outs) - 1,
                     text={"outputs": self.t.join(labels)})
            return
        named = not self.label(outs[0]).startswith("`")
        kind = "result.nonleaf" if named and self.once("result.nonleaf") else \
            "result.nonleaf.again"
        self.say(steps, kind, line, tensor=self.label(outs[0]), value=values[0],
                 node=record.name)

    def inplace(self, steps: list[Step], op_ev: Any, ev: Any, idx: int) -> None:
        facts, line = ev.facts, ev.line
        tid = facts["tensor"]
        target = self.label(tid)
        version = facts["version"]
        expr = self.source.line_text(line or 0).strip()
        if op_ev is not None:
            self.produced.update(op_ev.facts["outputs"])
            ins = op_ev.facts["inputs"]
            if ins and ins[0] is not None and ins[0] not in self.bound and ins[0] != tid:
                self.labels[ins[0]] = target  # the op read a snapshot of the old values
        self.inplace_log.append((idx, tid, version, line, expr))
        nid = facts["node"]
        self.index_saved(nid)
        counter = self.tensors[tid].counter
        if self.quiet:  # a repeated statement: only what may warn
            if nid is not None:
                self.next_functions_seen(self.nodes[nid])
            self.stale_after_inplace(steps, tid, counter, version, nid, line)
            self.hazards(steps, ev, idx)
            return
        if nid is not None:
            record = self.nodes[nid]
            self.say(steps, "inplace.recorded", line, expr=expr, tensor=target,
                     node=record.name, before=version - 1, after=version)
            self.next_functions(steps, record, line)
            self.saved(steps, record, [target], line)
        else:
            self.say(steps, "inplace.plain", line, expr=expr, tensor=target,
                     before=version - 1, after=version)
        sharing = [self.labels[t] for t in self.tensors_by_counter.get(counter, ())
                   if t != tid and t in self.bound and t in self.labels]
        if sharing:
            self.say(steps, "inplace.shared", line, tensor=target, others=sharing,
                     version=version, text={"others": self.t.join(sharing)})
        self.stale_after_inplace(steps, tid, counter, version, nid, line)
        self.hazards(steps, ev, idx)

    def index_saved(self, nid: int | None) -> None:
        """Remember what a just-recorded node saved, by version counter."""
        if nid is None or nid not in self.nodes:
            return
        record = self.nodes[nid]
        for saved in record.saved:
            if saved.tensor_id is not None:
                counter = self.tensors[saved.tensor_id].counter
                self.saved_by_counter[counter].append((record, saved))

    def stale_after_inplace(self, steps: list[Step], tid: int, counter: int, version: int,
                            own: int | None, line: int | None) -> None:
        candidates = self.saved_by_counter.get(counter, [])
        live = [(r, s) for r, s in candidates
                if r.id not in self.released and ("stale", r.id) not in self.reported]
        self.saved_by_counter[counter] = live  # freed or reported nodes need no more checks
        for record, s in live:
            if record.id == own or record.id not in self.node_created:
                continue
            if s.version >= version or ("stale", record.id) in self.reported:
                continue
            self.reported.add(("stale", record.id))
            self.say(steps, "inplace.stale", line, "warn", node=self.short_name(record),
                     tensor=self.label(s.tensor_id), key=s.name, version=s.version,
                     now=version, text={"node": self.node_ref(record.id)})

    def hazards(self, steps: list[Step], ev: Any, idx: int) -> None:
        found = ev.facts.get("hazards") or []
        by_node: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for h in found:
            by_node[h["node"]].append(h)
        for nid, items in by_node.items():
            record = self.nodes[nid]
            keys = [f"_saved_{h['saved']}" for h in items]
            saved_label = self.label(items[0]["tensor"])
            consequence = self.consequence(nid, idx)
            text = {"node": self.node_ref(nid), "keys": self.t.join(keys)}
            facts = dict(tensor=self.label(ev.facts["tensor"]), saved_tensor=saved_label,
                         node_name=record.name, keys=keys)
            if consequence is None:
                self.say(steps, "inplace.hazard", ev.line, "warn", text=text, **facts)
            else:
                call, actual, expected = consequence
                grads = [self.t("hazard.grad", tensor=name, actual=fmt_value(a),
                                expected=fmt_value(e)) for name, a, e in
                         zip(actual, actual.values(), expected.values(), strict=False)]
                text.update(grads=self.t.join(grads), line=str(call.line))
                self.say(steps, "inplace.hazard.result", ev.line, "warn", text=text,
                         backward_line=call.line, actual=actual, expected=expected, **facts)

    def consequence(self, nid: int, idx: int) -> tuple[Any, dict, dict] | None:
        """The first later backward through node `nid`: leaf grads it gave vs. with saved values."""
        for call in self.trace.backward_calls:
            begin = self.begin_of.get(call.index, -1)
            if begin < idx or not any(s.node_id == nid for s in call.steps):
                continue
            replayed = replay(call, self.nodes)
            if replayed is None:
                return None
            actual, expected = {}, {}
            for step in call.steps:
                if step.accumulated is None:
                    continue
                tid = step.accumulated[0]
                got = step.received[0]
                want = replayed.get(tid)
                if got is None or want is None:
                    continue
                if not (_close(got, want) if _is_summary(got) else
                        np.allclose(got, want, rtol=1e-5, atol=1e-6)):
                    name = f"{self.label(tid)}.grad"
                    actual[name], expected[name] = got, want
            return (call, actual, expected) if actual else None
        return None

    def method(self, steps: list[Step], ev: Any) -> None:
        facts, line = ev.facts, ev.line
        if facts.get("error"):
            return  # explained with the error
        name = facts["method"]
        tid = facts["tensor"]
        tensor = self.label(tid)
        result = facts.get("result")
        if name == "detach" and result is not None:
            self.produced.add(result)
            self.say(steps, "detach", line, tensor=tensor, result=self.label(result))
        elif name == "detach_":
            self.say(steps, "detach_", line, tensor=tensor)
        elif name == "requires_grad_":
            after = facts.get("requires_grad_after")
            if after == facts.get("requires_grad_before"):
                self.say(steps, "requires_grad.same", line, tensor=tensor, value=after)
            else:
                self.say(steps, "requires_grad.on" if after else "requires_grad.off", line,
                         tensor=tensor)
        elif name == "retain_grad":
            record = self.tensors.get(tid)
            leaf = record is None or record.tensor.grad_fn is None
            self.say(steps, "retain_grad.leaf" if leaf else "retain_grad", line, tensor=tensor)
        elif name == "register_hook":
            self.say(steps, "hook.registered", line, tensor=tensor)

    def attr_read(self, steps: list[Step], ev: Any) -> None:
        facts, line = ev.facts, ev.line
        tid, result = facts["tensor"], facts["result"]
        tensor = self.label(tid)
        if result is not None:
            self.produced.add(result)
            if result not in self.bound:
                self.labels[result] = f"{tensor}.{facts['attr']}"
        if facts["attr"] == "data" and ("data", tid) not in self.reported:
            self.reported.add(("data", tid))
            self.say(steps, "data.read", line, tensor=tensor)
        elif facts["attr"] == "grad" and not facts["is_leaf"] and not facts["retains_grad"]:
            if ("nonleaf_grad", tid) not in self.reported:
                self.reported.add(("nonleaf_grad", tid))
                self.say(steps, "grad.nonleaf", line, "warn", tensor=tensor)

    def attr_write(self, steps: list[Step], ev: Any) -> None:
        facts, line = ev.facts, ev.line
        if facts.get("error"):
            return
        tensor = self.label(facts["tensor"])
        value = facts["value"]
        if facts["attr"] == "grad":
            if value is None:
                self.has_grad.discard(facts["tensor"])
                self.say(steps, "grad.cleared", line, tensor=tensor)
            else:
                self.has_grad.add(facts["tensor"])
                self.say(steps, "grad.assigned", line, tensor=tensor,
                         value=self.label(value) if isinstance(value, int)
                         and not isinstance(value, bool) else str(value))
        elif facts["attr"] == "requires_grad":
            self.say(steps, "requires_grad.on" if value is True else "requires_grad.off",
                     line, tensor=tensor)

    # -- backward -----------------------------------------------------------------------

    def root_label(self, nid: int | None, nr: int) -> str:
        if nid is None:
            return "None"
        record = self.nodes[nid]
        if nr < len(record.outputs):
            return self.label(record.outputs[nr])
        return self.node_ref(nid)

    def backward_steps(self, visit: _Visit) -> list[Step]:
        call = visit.call
        steps: list[Step] = []
        line = visit.line
        contributions: dict[tuple[int, int], list[Any]] = defaultdict(list)
        self.at = {"call": call.index, "step": 0}
        starts = [] if self.quiet else zip(call.roots, call.root_grads, strict=False)
        for (nid, nr), grad in starts:
            root = self.root_label(nid, nr)
            if nid is not None:
                contributions[(nid, nr)].append(grad)
            if not call.accumulate:
                kind = "backward.start.grad"
            elif grad is not None and grad.size == 1 and float(grad.reshape(-1)[0]) == 1.0:
                kind = "backward.start.scalar"
            else:
                kind = "backward.start.given"
            self.say(steps, kind, line, root=root, grad=grad,
                     shape=fmt_shape(grad.shape) if grad is not None else "[]")
        items: list[tuple[tuple[int, int, int], str, Any]] = []
        for step in call.steps:
            items.append(((step.event_index, 0, step.index), "step", step))
        end_events = []
        for idx, ev in visit.events:
            if ev.kind in ("method", "caught"):
                end_events.append((idx, ev))
            else:
                items.append(((idx, 1, 0), "event", ev))
        items.sort(key=lambda item: item[0])
        if not call.accumulate:
            self.grad_results.update(self.returned_by(call))
        released: list[int] = []
        recorded = 0
        for (idx, _, _), what, obj in items:
            self.at = {"call": call.index, "step": obj.index} if what == "step" else {
                "event": idx}
            if what == "step":
                self.executed.add(obj.node_id)
                if obj.released:
                    released.append(obj.node_id)
                self.backward_step(steps, call, obj, contributions, line)
            elif obj.kind == "op":
                # the backward's own arithmetic, recorded because create_graph=True
                self.index_saved(obj.facts.get("node"))
                for k, tid in enumerate(obj.facts["outputs"]):
                    self.produced.add(tid)
                    if tid not in self.labels:
                        self.labels[tid] = f"[{obj.facts['name']} #{call.index}.{recorded + k}]"
                for tid in obj.facts["inputs"]:
                    if tid is not None and tid not in self.labels and tid not in self.bound:
                        self.labels[tid] = fmt_value(self.tensors[tid].tensor.array)
                recorded += obj.facts.get("node") is not None
            elif obj.kind == "retain_grad":
                self.say(steps, "backward.retain_grad", line,
                         tensor=self.label(obj.facts["tensor"]), grad=obj.facts.get("grad"))
            elif obj.kind == "hook":
                self.hook_fired(steps, obj, line)
        self.released.update(released)
        self.at = {"call": call.index, "step": len(call.steps) + 1}
        if call.create_graph and recorded:
            self.say(steps, "backward.create_graph", line, count=recorded)
        if call.error is None:
            self.unreached(steps, call, visit.begin, line)
            if released:
                if not self.quiet:  # (naming the freed nodes is the costly part)
                    refs = [self.node_ref(n) for n in released]
                    shown = refs[:MAX_LISTED]
                    more = len(refs) - len(shown)
                    text = self.t.join(shown + ([self.t("list.more", count=more)] if more
                                                else []))
                    self.say(steps, "backward.freed", line, nodes=[
                        self.node_fact(n) for n in released], text={"nodes": text})
            elif call.retain_graph:
                self.say(steps, "backward.retained", line)
            if not call.accumulate:
                self.say(steps, "backward.returned", line)
        else:
            self.say(steps, "backward.failed", line, "error", after=len(call.steps))
        for idx, ev in end_events:
            self.at = {"event": idx}
            if ev.kind == "caught":
                self.error(steps, ev.facts["kind"], ev.facts["message"], ev.line,
                           visit.events, handler_line=ev.facts["handler_line"])
        return steps

    def returned_by(self, call: Any) -> set[int]:
        """Tensors bound right after an autograd.grad call that no op in the script made."""
        events = self.trace.events
        found = set()
        depth = 0
        for i in range(self.begin_of[call.index], len(events)):
            ev = events[i]
            if ev.kind == "backward_begin":
                depth += 1
            elif ev.kind == "backward_end":
                depth -= 1
            elif depth == 0:
                if ev.kind != "bind" or self.stmt(ev.line) != self.stmt(call.line):
                    break
                found.add(ev.facts["tensor"])
        return found

    def received_text(self, contributions: dict, key: tuple[int, int], grad: Any) -> str:
        parts = [p for p in contributions.get(key) or [] if p is not None]
        shown = fmt_value(grad)
        total = None
        if parts:
            try:
                total = _total(parts)
            except (TypeError, ValueError):
                total = None
        if total is not None and grad is not None and not _close(total, grad):
            # a hook (or retain_grad's caller) changed the gradient on its way in
            summed = " + ".join(fmt_value(p) for p in parts)
            if len(parts) > 1:
                summed += " = " + fmt_value(_as_dtype(total, grad.dtype))
            return self.t("math.after_hook", received=summed, grad=shown)
        if len(parts) > 1:
            return " + ".join(fmt_value(p) for p in parts) + f" = {shown}"
        return shown

    def backward_step(self, steps: list[Step], call: Any, step: Any, contributions: dict,
                      line: int | None) -> None:
        record = self.nodes[step.node_id]
        if self.quiet:  # a repeated backward: only what may warn
            if step.accumulated is not None:
                self.has_grad.add(step.accumulated[0])
            else:
                self.stale_values(steps, record, step, line)
            return
        if step.accumulated is not None:
            tid, before, after = step.accumulated
            tensor = self.label(tid)
            grad = step.received[0]
            received = self.received_text(contributions, (step.node_id, 0), grad)
            self.has_grad.add(tid)
            if before is None:
                self.say(steps, "backward.accumulate.first", line, tensor=tensor, grad=grad,
                         after=after, text={"received": received})
            else:
                self.say(steps, "backward.accumulate.add", line, tensor=tensor, grad=grad,
                         before=before, after=after, text={"received": received})
            return
        node = record.node
        rule = RULES.get(record.name)
        used = dict(self.saved_values(record))
        used.update({k: v for k, v in step.saved.items() if v is not None})
        outs = [self.label(o) for o in record.outputs]
        out = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
        if len(step.received) > 1:
            pairs = [self.t("math.pair", label=outs[i] if i < len(outs) else str(i),
                            value=self.received_text(contributions, (step.node_id, i), g))
                     for i, g in enumerate(step.received)]
            grad_text = "(" + ", ".join(fmt_value(g) for g in step.received) + ")"
            received = self.t.join(pairs)
        else:
            grad_text = fmt_value(step.received[0]) if step.received else "None"
            received = self.received_text(contributions, (step.node_id, 0),
                                          step.received[0] if step.received else None)
        inputs = self.inputs_of(record)
        edges = []
        sent_facts = []
        for flow in step.sent:
            nxt = node.next_functions[flow.index][0] if flow.index < len(
                node.next_functions) else None
            if nxt is None:
                continue
            if flow.node_id is not None:
                contributions[(flow.node_id, flow.input_nr)].append(flow.grad)
            to = self.label(inputs[flow.index]) if flow.index < len(inputs) else "?"
            sent_facts.append({"to": to, "grad": flow.grad})
            if flow.grad is None:
                edges.append(self.t("edge.nothing", to=to))
                continue
            if rule is not None and flow.index < len(rule.chain):
                chain = rule.chain[flow.index]
                fields = self.operand_values(record, used, out, to, grad_text, chain)
                formula = self.template(chain, fields)
                value = fmt_value(flow.grad)
                edges.append(self.t("edge.plain", to=to, value=value) if formula == value
                             else self.t("edge.formula", to=to, formula=formula, value=value))
            else:
                edges.append(self.t("edge.plain", to=to, value=fmt_value(flow.grad)))
        kind = "backward.node" if edges else "backward.node.end"
        self.say(steps, kind, line, node=record.name, received=list(step.received),
                 sent=sent_facts, text={"node": self.node_ref(record.id), "received": received,
                                        "edges": self.t("list.edges").join(edges)})
        self.stale_values(steps, record, step, line)

    def stale_values(self, steps: list[Step], record: Any, step: Any, line: int | None) -> None:
        """A saved value that changed without a version bump (the `.data` trap)."""
        done = set()
        for s in record.saved:
            now = step.saved.get(s.name)
            if s.value is None or now is None or s.tensor_id in done:
                continue
            if _is_summary(now) or _is_summary(s.value):
                if same_values(now, s.value):
                    continue
            elif np.array_equal(now, s.value, equal_nan=True):
                continue
            done.add(s.tensor_id)
            self.say(steps, "backward.stale_value", line, "warn", node=record.name,
                     tensor=self.label(s.tensor_id), now=now, then=s.value,
                     saved_line=record.line, text={"node": self.node_ref(record.id)})

    def hook_fired(self, steps: list[Step], ev: Any, line: int | None) -> None:
        record = self.nodes.get(ev.facts["node"])
        if record is None:
            return
        nr = ev.facts.get("output_nr", 0)
        tid = record.outputs[nr] if nr < len(record.outputs) else None
        tensor = self.label(tid)
        if ev.facts.get("replaced"):
            self.say(steps, "backward.hook.replaced", line, tensor=tensor,
                     grad=ev.facts.get("grad"), result=ev.facts.get("result"))
        else:
            self.say(steps, "backward.hook.kept", line, tensor=tensor, grad=ev.facts.get("grad"))

    def unreached(self, steps: list[Step], call: Any, begin: int, line: int | None) -> None:
        """Nodes recorded before this call that no backward ran, and leaves left without grad.

        Each is reported once, at the first backward call after it was recorded.
        """
        root = self.root_label(*call.roots[0]) if call.roots else "?"
        while self.node_cursor < len(self.node_order) and \
                self.node_order[self.node_cursor][1] < begin:
            nid = self.node_order[self.node_cursor][0]
            if not isinstance(self.nodes[nid].node, AccumulateGrad):
                self.pending_nodes[nid] = None
            self.node_cursor += 1
        for nid in list(self.pending_nodes):
            del self.pending_nodes[nid]
            if nid in self.executed:
                continue
            record = self.nodes[nid]
            self.say(steps, "backward.unreached", line, node=record.name, root=root,
                     node_line=record.line, text={"node": self.node_ref(nid)})
        if not call.accumulate:
            return
        while self.leaf_cursor < len(self.leaf_order) and \
                self.leaf_order[self.leaf_cursor][2] < begin:
            nid, tid, _ = self.leaf_order[self.leaf_cursor]
            self.pending_leaves[nid] = tid
            self.leaf_cursor += 1
        for nid, tid in list(self.pending_leaves.items()):
            del self.pending_leaves[nid]
            if nid in self.executed or tid in self.has_grad or \
                    ("grad_none", tid) in self.reported:
                continue
            self.reported.add(("grad_none", tid))
            self.say(steps, "backward.grad_none", line, tensor=self.label(tid), root=root)

    # -- errors ----------------------------------------------------------------------------

    def error(self, steps: list[Step], kind: str, message: str, line: int | None,
              events: list[tuple[int, Any]], handler_line: int | None = None,
              uncaught: bool = False) -> None:
        self.say(steps, "error.raised", line, "error", kind=kind, message=message)
        self.error_cause(steps, kind, message, line, events)
        if uncaught:
            self.say(steps, "error.uncaught", line, "error")
        else:
            self.say(steps, "error.caught", line, "note", handler_line=handler_line)

    def failed_tensor(self, events: list[tuple[int, Any]], message: str) -> int | None:
        for _, ev in reversed(events):
            if ev.kind in ("method", "attr_write") and ev.facts.get("error") and \
                    ev.facts["error"]["message"] == message:
                return ev.facts["tensor"]
        return None

    def error_cause(self, steps: list[Step], kind: str, message: str, line: int | None,
                    events: list[tuple[int, Any]]) -> None:
        statement = self.source_of(self.stmt(line))
        if message.startswith("one of the variables needed for gradient computation has been "
                              "modified by an inplace operation"):
            self.version_error(steps, message, line)
        elif message == FREED_MESSAGE:
            self.freed_error(steps, message, line)
        elif message.startswith("grad can be implicitly created only for scalar outputs"):
            tid = self.failed_tensor(events, message)
            if tid is not None:
                shape = self.tensors[tid].tensor.shape
                self.say(steps, "error.nonscalar", line, tensor=self.label(tid),
                         shape=fmt_shape(shape), numel=int(np.prod(shape)))
            else:
                self.say(steps, "error.nonscalar.unknown", line)
        elif message.startswith("a leaf Variable that requires grad is being used in an "
                                "in-place operation") or message.startswith(
                                    "a view of a leaf Variable that requires grad"):
            self.say(steps, "error.leaf_inplace", line, statement=statement)
        elif message == NONLEAF_REQUIRES_GRAD:
            tid = self.failed_tensor(events, message)
            record = self.tensors.get(tid) if tid is not None else None
            node = record.tensor.grad_fn.name() if record and record.tensor.grad_fn else "?"
            self.say(steps, "error.requires_grad_nonleaf", line, tensor=self.label(tid),
                     node=node)
        elif message in (ONLY_FLOAT_GRAD,
                         "only Tensors of floating point dtype can require gradients"):
            self.say(steps, "error.int_requires_grad", line)
        elif re.match(r"element \d+ of tensors does not require grad", message):
            tid = self.failed_tensor(events, message)
            self.say(steps, "error.no_grad_fn", line, tensor=self.label(tid))
        elif message.startswith("can't retain_grad on Tensor that has requires_grad=False"):
            self.say(steps, "error.retain_grad", line, tensor=self.label(
                self.failed_tensor(events, message)))
        elif message.startswith("One of the differentiated Tensors does not require grad"):
            self.say(steps, "error.grad_input", line)
        elif re.match(r"The differentiated Tensor at index \d+ appears to not have been used",
                      message):
            self.say(steps, "error.unused_input", line)

    def call_for_error(self, message: str, line: int | None) -> Any:
        for call in reversed(self.trace.backward_calls if self.trace else []):
            if call.error_message == message and (line is None or self.stmt(call.line) ==
                                                  self.stmt(line)):
                return call
        return None

    def version_error(self, steps: list[Step], message: str, line: int | None) -> None:
        call = self.call_for_error(message, line)
        stale = call.stale[0] if call is not None and call.stale else None
        if stale is None or stale.get("tensor") is None:
            self.say(steps, "error.version.unknown", line)
            return
        tid = stale["tensor"]
        record = self.nodes.get(stale["node"])
        counter = self.tensors[tid].counter
        bumps = [(ln, expr, t) for _, t, v, ln, expr in self.inplace_log
                 if self.tensors[t].counter == counter and stale["saved_version"] < v
                 <= stale["version"]]
        tensor = self.label(tid)
        fields = dict(node=record.name if record else "?", tensor=tensor, key=stale["saved"],
                      saved_version=stale["saved_version"], version=stale["version"])
        text = {"node": self.node_ref(record.id) if record else "?"}
        if bumps:
            bump_line, bump_expr, bumped = bumps[0]
            fields.update(bump_line=bump_line, bump=bump_expr)
            if bumped != tid:
                fields["through"] = self.label(bumped)
                self.say(steps, "error.version.shared", line, text=text, **fields)
            else:
                self.say(steps, "error.version", line, text=text, **fields)
        else:
            self.say(steps, "error.version.nobump", line, text=text, **fields)
        self.say(steps, "error.version.fix", line, "note", tensor=tensor)

    def freed_error(self, steps: list[Step], message: str, line: int | None) -> None:
        call = self.call_for_error(message, line)
        earlier = None
        node_id = None
        if call is not None:
            reachable = self.reachable(call)
            for previous in self.trace.backward_calls[: call.index - 1]:
                for step in previous.steps:
                    if step.released and step.node_id in reachable:
                        earlier, node_id = previous, step.node_id
                        break
                if earlier is not None:
                    break
        if earlier is None:
            self.say(steps, "error.freed.unknown", line)
            return
        self.say(steps, "error.freed", line, first_line=earlier.line,
                 node=self.nodes[node_id].name, text={"node": self.node_ref(node_id)})

    def reachable(self, call: Any) -> set[int]:
        stack = [self.nodes[n].node for n, _ in call.roots if n is not None]
        seen: set[int] = set()
        out = set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            record = self.node_of.get(id(node))
            if record is not None:
                out.add(record.id)
            stack.extend(n for n, _ in node.next_functions if n is not None)
        return out

    def uncaught(self) -> None:
        err = self.result.error
        if err is None:
            return
        line = err.span.line if err.span is not None else None
        steps: list[Step] = []
        self.at = {"error": True}
        if isinstance(err, (GtSyntaxError, NotSupportedError, LimitExceeded)) or \
                self.trace is None:
            self.say(steps, "error.raised", line, "error", kind=err.kind, message=err.message)
            self.say(steps, "error.stopped", line, "error")
        else:
            events = list(enumerate(self.trace.events))[-40:]
            self.error(steps, err.kind, err.message, line, events, uncaught=True)
        key = self.stmt(line)
        if self.sections and self.sections[-1].line == key and self.sections[-1].kind in (
                "statement", "backward"):
            self.sections[-1].steps.extend(steps)
            return
        title = self.t("section.statement", line=key or "?")
        self.sections.append(Section("error", key, self.source_of(key), title, steps))


# ---------------------------------------------------------------- replay


def replay(call: Any, nodes: dict[int, Any]) -> dict[int, np.ndarray] | None:
    """Rerun a backward call with the values as they were saved; leaf grads by tensor id.

    None when a node on the way has no rule. Used to tell what a gradient should have
    been when a saved tensor was changed behind the version counter.
    """
    buffers: dict[tuple[int, int], np.ndarray] = {}

    def add(key: tuple[int, int], g: np.ndarray) -> None:
        buffers[key] = g if key not in buffers else buffers[key] + g

    if any(_is_summary(g) for g in call.root_grads):
        return None  # a large gradient the trace only summarised
    for (nid, nr), g in zip(call.roots, call.root_grads, strict=False):
        if nid is not None and g is not None:
            add((nid, nr), np.asarray(g, dtype=np.float64))
    leaves: dict[int, np.ndarray] = {}
    for step in call.steps:
        record = nodes[step.node_id]
        node = record.node
        if step.accumulated is not None:
            g = buffers.get((step.node_id, 0))
            if g is not None:
                leaves[step.accumulated[0]] = g
            continue
        rule = RULES.get(record.name)
        if rule is None:
            return None
        n_out = max(1, len(node.output_meta))
        grads = [buffers.get((step.node_id, i)) for i in range(n_out)]
        if n_out == 1 and grads[0] is None:
            continue
        if any(_is_summary(s.value) for s in record.saved):
            return None
        saved = {s.name: (None if s.value is None else np.asarray(s.value, dtype=np.float64))
                 for s in record.saved}
        try:
            sent = rule.fn(grads, saved, node.attrs or {})
        except (KeyError, TypeError, ValueError):
            return None
        for i, ((nxt, nr), g) in enumerate(zip(node.next_functions, sent, strict=False)):
            if nxt is None or g is None:
                continue
            meta = node.input_meta[i] if i < len(node.input_meta) else None
            if meta is not None:
                g = _sum_to(g, meta[0])
            target = next((r.id for r in nodes.values() if r.node is nxt), None)
            if target is not None:
                add((target, nr), g)
    return leaves


def local_grads(record: Any, step: Any) -> list[np.ndarray | None] | None:
    """What the rule says a backward step sent, from the values the step used (for tests)."""
    rule = RULES.get(record.name)
    if rule is None or step.accumulated is not None:
        return None
    saved = {s.name: s.value for s in record.saved}
    saved.update({k: v for k, v in step.saved.items() if v is not None})
    if any(_is_summary(v) for v in [*saved.values(), *step.received]):
        return None
    n_out = max(1, len(record.node.output_meta))
    grads = list(step.received) + [None] * (n_out - len(step.received))
    sent = rule.fn(grads, saved, record.node.attrs or {})
    out = []
    for i, g in enumerate(sent):
        meta = record.node.input_meta[i] if i < len(record.node.input_meta) else None
        out.append(None if g is None or meta is None else _sum_to(g, meta[0]))
    return out


# ---------------------------------------------------------------- API


def explain(result: Any, lang: str = "en") -> Explanation:
    """The explanation of a run made with `run_source(..., trace=True)`."""
    catalog = Catalog(lang)
    explainer = _Explainer(result, catalog)
    sections = explainer.build()
    return Explanation(result.source.name, lang, sections, result.exit_code)


def to_json(explanation: Explanation) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "script": explanation.script,
        "lang": explanation.lang,
        "exit_code": explanation.exit_code,
        "sections": [
            {"kind": s.kind, "line": s.line, "source": s.source, "title": s.title,
             "facts": jsonable(s.facts),
             "steps": [{"kind": st.kind, "line": st.line, "tone": st.tone, "at": st.at,
                        "facts": st.facts, "text": st.text} for st in s.steps]}
            for s in explanation.sections
        ],
    }


MARKS = {"info": "•", "note": "·", "warn": "⚠", "error": "✗"}
STYLES = {"info": "", "note": "dim", "warn": "yellow", "error": "red"}
CLOSING = set("，。、；：！？）」』】》,.;:!?)]}")
OPENING = set("（「『【《([{")


def _cells(text: str) -> int:
    from rich.cells import cell_len

    return cell_len(text)


def _wide(ch: str) -> bool:
    """A character two cells wide (CJK); ASCII never is, and is most of every line."""
    return not ch.isascii() and _cells(ch) == 2


def _segments(text: str) -> list[str]:
    """Pieces a line may break between: words, single spaces, and wide (CJK) characters.

    Closing punctuation sticks to what precedes it, opening punctuation to what follows.
    """
    if _narrow(text):  # one cell per character: words and spaces
        return [piece for piece in _SPACE.split(text) if piece]
    tokens: list[str] = []
    word = ""
    for ch in text:
        if ch == " " or _wide(ch):
            if word:
                tokens.append(word)
                word = ""
            tokens.append(ch)
        else:
            word += ch
    if word:
        tokens.append(word)
    segments: list[str] = []
    for token in tokens:
        if segments and token != " " and segments[-1] != " " and (
                token[0] in CLOSING or segments[-1][-1] in OPENING
                or (not _wide(token[0]) and not _wide(segments[-1][-1]))):
            segments[-1] += token
        else:
            segments.append(token)
    return segments


_SPACE = re.compile("( )")


def _narrow(text: str) -> bool:
    """Printable ASCII: every character is one cell wide."""
    return text.isascii() and text.isprintable()


def wrap(text: str, width: int) -> list[str]:
    """Greedy line wrapping by display cells that also breaks between CJK characters."""
    width = max(width, 10)
    cells = len if _narrow(text) else _cells
    lines: list[str] = []
    current = ""
    used = 0  # cells(current), kept as the line grows: measuring it anew is quadratic
    for segment in _segments(text):
        if segment == " ":
            if current:
                current += " "
                used += 1
            continue
        size = cells(segment)
        if used + size > width and current.strip():
            lines.append(current.rstrip(" "))
            current, used = "", 0
        while size > width:  # a single piece wider than a line is folded
            cut = 1
            while cells(segment[: cut + 1]) <= width - used:
                cut += 1
            lines.append(current + segment[:cut])
            current, used, segment = "", 0, segment[cut:]
            size = cells(segment)
        current += segment
        used += size
    if current.strip() or not lines:
        lines.append(current.rstrip(" "))
    return lines


def print_explanation(console: Any, explanation: Explanation) -> None:
    """Grouped by statement, line numbers and source shown; plain text when piped.

    The whole explanation goes to rich as one `Text` (a print per line cost rich's
    per-call overhead 600 times for a training loop), and as `Text`, not a string: a
    string would still have `:name:` emoji codes replaced (a script named `:100:.gt`)
    even with markup off.
    """
    from rich.text import Text

    catalog = Catalog(explanation.lang)
    width = console.width
    text = Text()
    if not explanation.sections:
        text.append("\n".join(wrap(catalog("explain.empty", script=explanation.script), width)))
    for i, section in enumerate(explanation.sections):
        if i:
            text.append("\n\n")
        header = Text()
        header.append(section.title, style="bold magenta" if section.kind == "backward"
                      else "bold cyan")
        if section.source:
            header.append("  │  ", style="dim")
            header.append(section.source, style="bold")
        header.truncate(width, overflow="ellipsis")
        text.append_text(header)
        for step in section.steps:
            style = STYLES.get(step.tone, "")
            mark = MARKS.get(step.tone, "•")
            for k, line in enumerate(wrap(step.text, width - 2)):
                text.append("\n")
                text.append((mark if k == 0 else " ") + " " + line, style=style)
    console.print(text, no_wrap=True, overflow="ignore", highlight=False)


def render_text(explanation: Explanation, width: int = 100) -> str:
    """The explanation as plain text at a fixed width (what a pipe receives)."""
    import io

    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_terminal=False,
                      legacy_windows=False, emoji=False, highlight=False)
    print_explanation(console, explanation)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines()) + "\n"
