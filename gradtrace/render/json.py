"""The run as one JSON document (`gradtrace run --json`, `gradtrace graph --format json`).

`document(result)` builds a plain dict that `json.dumps(..., allow_nan=False)` accepts;
`dumps(result)` gives the text. The document follows `trace_schema.json` (shipped next to
this module, see `schema()`), and `docs/json.md` describes every field.

Numbers are JSON numbers, never numpy reprs: float16/float32 values are written with the
shortest decimal that reads back to the same value in that type (0.1, not
0.10000000149011612); NaN and infinities, which JSON lacks, are the strings "nan",
"inf" and "-inf". Arrays the trace kept only as a summary (more than 1000 elements, see
gradtrace/summary.py) are written in the summarised form of schema 1.1.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import __version__
from ..engine.dtypes import is_bfloat16
from ..engine.meta import MetaArray
from ..errors import (
    GradtraceError,
    GtSyntaxError,
    InternalError,
    LimitExceeded,
    NotSupportedError,
    ScriptError,
    ScriptFileError,
)
from ..printable import json_text
from ..summary import Summary
from .graph import GraphView

if TYPE_CHECKING:
    from ..runner import RunResult
    from ..tracing import BackwardCall, NodeRecord, TensorRecord

SCHEMA_VERSION = "1.6"
SCHEMA_FILE = "trace_schema.json"


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema every document follows (loaded from the installed package)."""
    text = resources.files("gradtrace.render").joinpath(SCHEMA_FILE).read_text("utf-8")
    return json.loads(text)


# -- values --------------------------------------------------------------------------


def _nonfinite(value: float) -> str:
    if np.isnan(value):
        return "nan"
    return "inf" if value > 0 else "-inf"


# While `document` builds a document: the JSON data of every array converted so far, by
# content. A traced run keeps the same values many times (a training step's result is
# also a saved value, its gradient is received by one node and sent by another): the
# 200-step training loop's document holds 2.7 million array elements, 0.84 million of them
# distinct. Each distinct array is converted once and its lists are shared.
_converted: dict[tuple[Any, ...], Any] | None = None


def array_data(array: np.ndarray) -> Any:
    """A numpy array as nested lists of JSON values (a bare value for 0-d arrays)."""
    array = np.asarray(array)
    memo = _converted
    if memo is None:
        return _array_data(array)
    key = (array.dtype, array.shape, array.tobytes())
    data = memo.get(key)
    if data is None:
        data = memo[key] = _array_data(array)
    return data


def _array_data(array: np.ndarray) -> Any:
    if is_bfloat16(array.dtype):  # its values as the floats they are (exact in float32)
        array = array.astype(np.float32)
    kind = array.dtype.kind
    if kind == "b":
        return array.tolist()
    if kind in "iu":
        return array.astype(np.int64).tolist() if kind == "u" else array.tolist()
    if kind != "f":
        return np.vectorize(str, otypes=[object])(array).tolist()
    if array.size <= 16:  # small: element by element is quicker than the vector path
        short = array.dtype.itemsize < 8
        items = [(float(str(v)) if short else float(v)) if np.isfinite(v) else _nonfinite(v)
                 for v in array.ravel()]
        if array.ndim == 0:
            return items[0]
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out.reshape(array.shape).tolist()
    if array.dtype.itemsize < 8:  # shortest decimal of the float32/float16 value
        as_text = array.astype(str)
        finite = np.isfinite(array)
        numbers = np.where(finite, as_text, "0").astype(np.float64)
    else:
        finite = np.isfinite(array)
        numbers = array
    data = numbers.astype(object)
    if not finite.all():
        bad = ~finite
        data[bad] = [_nonfinite(v) for v in array[bad].astype(np.float64)]
    return data.tolist()


_DTYPE_TEXT: dict[np.dtype, str] = {}


def _dtype_text(dtype: np.dtype) -> str:
    """A value's `dtype` field: numpy's name (a Python-level property: ~18,000 values in
    the training loop's document), "bool" for booleans."""
    text = _DTYPE_TEXT.get(dtype)
    if text is None:
        text = _DTYPE_TEXT[dtype] = "bool" if dtype.kind == "b" else str(dtype)
    return text


def value(array: np.ndarray | Summary | None) -> dict[str, Any] | None:
    """`{"shape": [...], "dtype": "float32", "data": nested lists}`, or None.

    A large array the trace kept as a `Summary` is written in the summarised form:
    `{"shape", "dtype", "summary": {"first", "corners", "all_equal"}}` (docs/json.md).
    """
    if array is None:
        return None
    if type(array) is MetaArray or (isinstance(array, Summary) and array.no_data):
        return {"shape": [int(n) for n in array.shape],  # a meta tensor: no data
                "dtype": _dtype_text(array.dtype),
                "device": "meta"}
    if isinstance(array, Summary):
        summary: dict[str, Any] = {"first": array_data(array.head)}
        if array.corners is not None:
            summary["corners"] = array_data(array.corners)
        summary["all_equal"] = bool(array.uniform)
        return {
            "shape": list(array.shape),
            "dtype": _dtype_text(array.dtype),
            "summary": summary,
        }
    array = np.asarray(array)
    return {
        "shape": [int(n) for n in array.shape],
        "dtype": _dtype_text(array.dtype),
        "data": array_data(array),
    }


def plain(obj: Any) -> Any:
    """A JSON-safe copy of a plain Python/numpy value (attributes, event facts)."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return obj if np.isfinite(obj) else _nonfinite(obj)
    if isinstance(obj, (np.ndarray, Summary)):
        return value(obj)
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    return str(obj)


# -- parts of the document -------------------------------------------------------------


def _category(error: GradtraceError) -> str:
    if isinstance(error, ScriptError):
        return "script"
    if isinstance(error, GtSyntaxError):
        return "syntax"
    if isinstance(error, NotSupportedError):
        return "not_supported"
    if isinstance(error, LimitExceeded):
        return "limit"
    if isinstance(error, InternalError):
        return "internal"
    if isinstance(error, ScriptFileError):
        return "usage"
    return "other"


def error_document(result: RunResult) -> dict[str, Any] | None:
    error = result.error
    if error is None:
        return None
    span = error.span
    return {
        "type": error.kind,
        "message": error.message,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "end_line": span.end_line if span else None,
        "end_column": span.end_column if span else None,
        "category": _category(error),
        "text": error.format(result.source),
    }


def tensor_document(view: GraphView, record: TensorRecord) -> dict[str, Any]:
    t = record.tensor
    doc = {
        "id": record.id,
        "label": view.tensor_label(record.id),
        "names": list(record.names),
        "expression": record.expression,
        "line": record.line,
        "shape": [int(n) for n in t.shape],
        "dtype": t.dtype.name,
        "value": value(t.array),
        "requires_grad": bool(t.requires_grad),
        "is_leaf": bool(t.is_leaf),
        "grad_fn": view.node_id(t.grad_fn),
        "output_nr": int(t.output_nr),
        "grad": value(t.grad.array) if t.grad is not None else None,
        "version": int(t._version_counter.value),
        "retains_grad": bool(t.retains_grad),
        "is_view": t._base is not None,
        "python_number": bool(t._wrapped),
        "is_inference": t.is_inference(),
        "bindings": [{"name": b.name, "line": b.line, "until": b.until, "local": b.local,
                      "holds": b.open} for b in view.naming.bindings(record.id)],
        "made_by": _made_by(record.made_by),
    }
    return _with_module(doc, record)


def _with_module(doc: dict[str, Any], record: Any) -> dict[str, Any]:
    """Add the optional `module` path (schema 1.4) when the trace knows one."""
    module = getattr(record, "module", None)
    if module is not None:
        doc["module"] = module
    return doc


def _made_by(made_by: tuple[int, int] | None) -> dict[str, int] | None:
    """The backward call and node whose backward made a tensor or node (create_graph)."""
    return None if made_by is None else {"backward": made_by[0], "node": made_by[1]}


def node_document(view: GraphView, record: NodeRecord) -> dict[str, Any]:
    saved = []
    attrs: dict[str, Any] = {}
    saved_values = {s.name: s.value for s in record.saved}
    for info in view.saved(record):
        if info.is_attr:
            attrs[info.name] = plain(info.value)
            continue
        saved.append({
            "name": info.name,
            "tensor": info.tensor_id,
            "version": info.version,
            "current_version": info.current,
            "is_output": info.is_output,
            "modified": info.modified,
            "changed_silently": info.changed_silently,
            "value": value(saved_values.get(info.name)),
            "packed": None if info.packed is None else {
                "pack_hook": info.packed[0], "unpack_hook": info.packed[1]},
        })
    leaf = view.is_leaf_node(record)
    return _with_module({
        "id": record.id,
        "name": record.name,
        "kind": "accumulate_grad" if leaf else "op",
        "line": record.line,
        "expression": record.expression,
        "outputs": list(record.outputs),
        "inputs": list(record.inputs),
        "variable": view.variable_id(record) if leaf else None,
        "next_functions": [[nid, nr] for nid, nr in view.next_functions(record)],
        "saved": saved,
        "attrs": attrs,
        "released": view.is_freed(record),
        "freed_by": view.freed_by.get(record.id),
        "made_by": _made_by(record.made_by),
    }, record)


def backward_document(call: BackwardCall, nodes: set[int] | None = None) -> dict[str, Any]:
    """One backward call; with `nodes`, only the steps of those nodes."""
    steps = []
    for step in call.steps:
        if nodes is not None and step.node_id not in nodes:
            continue
        accumulated = None
        if step.accumulated is not None:
            tensor_id, before, after = step.accumulated
            accumulated = {"tensor": tensor_id, "before": value(before), "after": value(after)}
        steps.append({
            "index": step.index,
            "node": step.node_id,
            "event": step.event_index,
            "received": [value(g) for g in step.received],
            "sent": [{"index": f.index, "node": f.node_id, "output_nr": f.input_nr,
                      "grad": value(f.grad)} for f in step.sent],
            "accumulated": accumulated,
            "released": step.released,
            "script": None if step.script is None else [
                {"line": entry["line"], "code": entry["code"], "result": value(entry["result"]),
                 "names": {name: value(v) for name, v in entry["names"].items()}}
                for entry in step.script],
        })
    error = None
    if call.error is not None:
        error = {"type": call.error_type or "Error", "message": call.error_message or call.error}
    return {
        "index": call.index,
        "line": call.line,
        "roots": [[nid, nr] for nid, nr in call.roots],
        "root_grads": [value(g) for g in call.root_grads],
        "retain_graph": call.retain_graph,
        "create_graph": call.create_graph,
        "accumulate": call.accumulate,
        "error": error,
        "steps": steps,
    }


def numerics_document(result: RunResult) -> dict[str, Any]:
    """The CPU capability and BLAS family the run's float results follow, and why some
    values may still differ from torch's last bits."""
    from ..engine import capability

    return {"cpu_capability": capability.CAPABILITY, "blas": capability.BLAS_PLATFORM,
            "inexact": list(result.inexact)}


@dataclass
class Part:
    """The part of a run a view shows (the `view` page): the document keeps only these
    nodes, tensors and backward calls (and their steps through these nodes), and the
    events in [start, stop)."""

    nodes: set[int]
    tensors: set[int]
    calls: set[int]
    events: tuple[int, int]


def document(result: RunResult, *, stderr: str | None = None,
             part: Part | None = None) -> dict[str, Any]:
    """The whole run as a JSON-ready dict (see docs/json.md); with `part`, only that part
    (the same fields, fewer entries)."""
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "gradtrace_version": __version__,
        "numerics": numerics_document(result),
        "script": result.source.name,
        "exit_code": result.exit_code,
        "stdout": result.stdout,
        "stderr": stderr if stderr is not None else "",
        "error": error_document(result),
        "variables": {},
        "tensors": [],
        "nodes": [],
        "edges": [],
        "roots": [],
        "backward": [],
        "events": [],
    }
    trace = result.trace
    if trace is None:
        return doc
    global _converted
    outer, _converted = _converted, {} if _converted is None else _converted
    try:
        _fill(doc, trace, part)
    finally:
        _converted = outer
    return doc


def _fill(doc: dict[str, Any], trace: Any, part: Part | None) -> None:
    """`document`'s tensors, nodes, edges, roots, backward calls and events."""
    view = GraphView(trace)
    doc["variables"] = {name: record.id for name, record in view.named
                        if part is None or record.id in part.tensors}
    # tensors first: asking for a grad_fn id may register a node the ops never showed
    doc["tensors"] = [tensor_document(view, r) for r in list(trace.tensors.values())
                      if part is None or r.id in part.tensors]
    nodes = [view.nodes[nid] for nid in view.all_node_ids() if part is None or nid in part.nodes]
    doc["nodes"] = [node_document(view, r) for r in nodes]
    doc["edges"] = [
        {"from": node["id"], "to": nid, "index": index, "output_nr": nr}
        for node in doc["nodes"] for index, (nid, nr) in enumerate(node["next_functions"])
    ]
    doc["roots"] = [{"node": r.node_id, "output_nr": r.output_nr, "label": r.tensor_label,
                     "backward": r.backward} for r in view.roots()
                    if part is None or r.node_id in part.nodes]
    doc["backward"] = [backward_document(c, None if part is None else part.nodes)
                       for c in trace.backward_calls if part is None or c.index in part.calls]
    events = trace.events if part is None else trace.events[part.events[0]:part.events[1]]
    doc["events"] = [{"kind": e.kind, "line": e.line, "facts": plain(e.facts)} for e in events]


COMPACT_ABOVE = 2000  # tensors + nodes: larger documents are written on one line


def dumps(result: RunResult, *, indent: int | None | str = "auto",
          stderr: str | None = None) -> str:
    """The JSON text of `document(result)`; NaN never reaches the output unquoted.

    indent "auto": 2 for ordinary runs, none (one line, much faster to write) past
    COMPACT_ABOVE tensors and nodes.
    """
    doc = document(result, stderr=stderr)
    if indent == "auto":
        indent = None if len(doc["tensors"]) + len(doc["nodes"]) > COMPACT_ABOVE else 2
    return json_text(json.dumps(doc, indent=indent, ensure_ascii=False,  # type: ignore[arg-type]
                                allow_nan=False))


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(schema())
    return jsonschema.Draft202012Validator(schema())


def validate(doc: dict[str, Any]) -> None:
    """Check a document against the shipped schema (needs the `jsonschema` package);
    raises jsonschema.ValidationError naming the first field that does not fit."""
    _validator().validate(doc)
