"""`gradtrace check`: run a script under gradtrace and under real PyTorch, and compare.

gradtrace runs the script in-process (it never hands script text to Python). The torch
side runs in a separate Python that has torch installed: a small driver
(check_driver.py, passed with `python -c`) reads the script text from stdin, executes it
with real torch, and writes one JSON document: what the script printed, the exception it
raised (type and message), and every top-level variable that is a tensor (values,
grad, requires_grad, is_leaf, grad_fn name, the next_functions graph, _version, dtype,
shape). The same document is built from gradtrace's run, and the two are compared.

Exit statuses (see `EXIT_*`): 0 when everything agrees, 1 when something differs,
2 when the script cannot be read or parsed (or gradtrace refused it), 3 when gradtrace's
run hit a limit, 4 when no Python with torch was found, 5 when the torch run itself
failed (crashed, timed out, produced no report).
Note that the torch side runs the script as ordinary Python, so only check scripts
you trust.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .check_driver import MARK, MAX_NODES, clean, graph
from .errors import EXCEPTION_NAMES

EXIT_AGREE = 0
EXIT_DIFFER = 1
EXIT_USAGE = 2
EXIT_NO_TORCH = 4
EXIT_TORCH_FAILED = 5
EXIT_LIMIT = 3

INSTALL_HINT = "pip install 'gradtrace[torch]'"
TORCH_VERSION = "2.13"
DEFAULT_TIMEOUT = 120.0

# Values are compared exactly. A float difference of at most ROUNDING_ULPS units in the last
# place of its dtype (of the value, or of the tensor's largest value: rounding differences
# that went through a cancellation) is a rounding difference: labelled with its known cause
# when the run has one (engine/exactness.py, or a CPU capability unlike torch's), else
# reported as such with "no known cause". Anything larger is a plain difference.
ROUNDING_ULPS = 64
# (bfloat16 values are compared as the float32 values they are: a difference shows in ulps of
# float32, 2**16 to one of bfloat16's)
FLOAT_DTYPES = {"torch.float32": np.float32, "torch.float64": np.float64,
                "torch.float16": np.float16, "torch.bfloat16": np.float32}
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")

# The torch side is check_driver.py's text, run with `python -c` (the script's folder
# first on sys.path, as before): self-contained, since that Python need not have gradtrace.
DRIVER = Path(__file__).with_name("check_driver.py")


# ---------------------------------------------------------------- the report


@dataclass
class Row:
    """One comparison: what was compared, whether it agrees, and both sides in short."""

    item: str
    agree: bool
    gradtrace: str = ""
    torch: str = ""
    note: str = ""
    rounding: bool = False  # differs only in float rounding, for a known cause (in `note`)


@dataclass
class CheckReport:
    script: str
    status: str  # agree | rounding | differ | no_torch | torch_failed | not_run | limited
    rows: list[Row] = field(default_factory=list)
    torch_python: str | None = None
    torch_version: str | None = None
    message: str = ""
    capability: str = ""  # the CPU capability gradtrace computed for
    torch_capability: str = ""  # what the torch run reported

    @property
    def agree(self) -> bool:
        return self.status == "agree"

    @property
    def differences(self) -> list[Row]:
        return [r for r in self.rows if not r.agree]

    @property
    def exit_code(self) -> int:
        return {"agree": EXIT_AGREE, "rounding": EXIT_DIFFER, "differ": EXIT_DIFFER,
                "no_torch": EXIT_NO_TORCH, "torch_failed": EXIT_TORCH_FAILED,
                "not_run": EXIT_USAGE, "limited": EXIT_LIMIT}[self.status]

    def to_json(self) -> dict[str, Any]:
        """The comparison as a JSON document (check_schema.json, docs/json.md)."""
        return {"schema": SCHEMA, "script": self.script, "status": self.status,
                "exit_code": self.exit_code,
                "torch_python": self.torch_python, "torch_version": self.torch_version,
                "cpu_capability": {"gradtrace": self.capability, "torch": self.torch_capability},
                "message": self.message, "comparison": comparison_text(),
                "rows": [{"item": r.item, "agree": r.agree, "rounding": r.rounding,
                          "gradtrace": r.gradtrace, "torch": r.torch, "note": r.note}
                         for r in self.rows]}


SCHEMA = "gradtrace-check/1"
SCHEMA_FILE = "check_schema.json"


def schema() -> dict[str, Any]:
    """The JSON Schema of `CheckReport.to_json` documents, shipped in the package."""
    from importlib import resources

    return json.loads(resources.files("gradtrace").joinpath(SCHEMA_FILE).read_text("utf-8"))


def comparison_text() -> str:
    return (f"values exact; float differences of at most {ROUNDING_ULPS} units in the last "
            "place are labelled as rounding, with their cause where gradtrace knows it; "
            "values from uninitialised memory (torch.empty, empty_like, new_empty, "
            "empty_strided, what resize_ grows) or from a generator the script did not seed "
            "(torch's default generator, Python's random), found by running gradtrace again "
            "with another fill and other seeds, are not compared")


# ---------------------------------------------------------------- finding torch


@functools.lru_cache(maxsize=8)
def _has_torch(python: str, timeout: float = 60.0) -> bool:
    try:
        done = subprocess.run([python, "-c", "import torch"], capture_output=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def find_torch_python(python: str | None = None) -> str | None:
    """The Python to run torch with: the one given, else this one, else `python3`."""
    if python:
        path = shutil.which(python) or (python if os.path.exists(python) else None)
        return path if path and _has_torch(path) else None
    if importlib.util.find_spec("torch") is not None:
        return sys.executable
    path = shutil.which("python3")
    if path and os.path.realpath(path) != os.path.realpath(sys.executable) and _has_torch(path):
        return path
    return None


class TorchRunError(Exception):
    """The torch side did not produce a report."""


def run_torch_many(jobs: list[tuple[str, str]], python: str,
                   timeout: float = DEFAULT_TIMEOUT) -> list[dict[str, Any] | TorchRunError]:
    """Run scripts (text, name) with real torch in `python`: one report (or error) each.

    One process imports torch once and runs every script in a fresh forked child, each in
    an empty folder of a temporary one removed afterwards: the files a script writes with
    torch.save go where gradtrace's go (nowhere), and no script finds another's.
    """
    import tempfile

    payload = json.dumps({"timeout": timeout,
                          "jobs": [{"source": text, "name": name} for text, name in jobs]})
    try:
        with tempfile.TemporaryDirectory(prefix="gradtrace-check-") as folder:
            driver = DRIVER.read_text(encoding="utf-8")
            done = subprocess.run([python, "-c", driver], input=payload, capture_output=True,
                                  text=True, encoding="utf-8", cwd=folder,
                                  timeout=60 + timeout * len(jobs))
    except subprocess.TimeoutExpired:
        return [TorchRunError(f"the torch run took longer than {timeout:g} s")] * len(jobs)
    except OSError as err:
        return [TorchRunError(f"cannot run {python}: {err.strerror}")] * len(jobs)
    reports: list[dict[str, Any] | TorchRunError] = []
    for chunk in done.stdout.split(MARK)[1:]:
        report = json.loads(chunk)
        failed = report.get("failed")
        reports.append(TorchRunError(failed) if failed else report)
    if len(reports) < len(jobs):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        reports += [TorchRunError(f"the torch run exited with status {done.returncode}: "
                                  f"{last}")] * (len(jobs) - len(reports))
    return reports


def run_torch(source_text: str, name: str, python: str,
              timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """Run one script with real torch in `python`; its report as a dict."""
    report = run_torch_many([(source_text, name)], python, timeout)[0]
    if isinstance(report, TorchRunError):
        raise report
    return report


# ---------------------------------------------------------------- gradtrace's side


def _values(t: Any) -> dict[str, Any]:
    """As the torch side's `values`: a meta tensor's are None."""
    return {"shape": list(t.shape), "dtype": str(t.dtype), "device": str(t.device),
            "values": None if t.is_meta else clean(t.array.tolist())}


def _error(result: Any) -> dict[str, str] | None:
    if result.error is None:  # a sys.exit() status other than 0 is compared as torch's is
        return {"kind": "exit status", "message": str(result.status)} if result.status else None
    # the class's __name__, as the torch side reports `type(exc).__name__`
    kind = EXCEPTION_NAMES.get(result.error.kind, result.error.kind).rpartition(".")[2]
    return {"kind": kind, "message": result.error.message}


def dump_result(result: Any, refilled: Any = None,
                sources: tuple[str, ...] = ()) -> dict[str, Any]:
    """gradtrace's run in the driver's format. `refilled` is the same script run with
    another fill of uninitialised memory and other seeds of the generators the script did
    not seed (`engine/unreproducible.py`), when it used any: what differs between the two
    runs is marked as coming from them."""
    from .engine.tensor import Tensor

    tensors = {}
    for name, t in result.variables.items():
        if not isinstance(t, Tensor) or name.startswith("__"):
            continue
        d = _values(t)
        d.update(requires_grad=t.requires_grad, is_leaf=t.is_leaf,
                 grad_fn=None if t.grad_fn is None else t.grad_fn.name(),
                 next_functions=graph(t.grad_fn, 0, [MAX_NODES]),
                 version=None if t.is_inference() else t._version,
                 retains_grad=t.retains_grad, grad=None if t.grad is None else _values(t.grad))
        tensors[name] = d
    from .engine import capability

    doc = {"stdout": result.stdout, "error": _error(result), "tensors": tensors,
           "cpu_capability": capability.CAPABILITY, "inexact": list(result.inexact)}
    if refilled is not None:
        _mark_unreproducible(doc, dump_result(refilled), sources)
    return doc


def _unstable(a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[bool] | None:
    """Which elements of a tensor's values changed in the run with another fill and seeds
    (flat, in row-major order); None when none did."""
    if a is None or b is None:
        return None
    if a["shape"] != b["shape"] or a["dtype"] != b["dtype"]:
        return [True] * max(1, int(np.prod(a["shape"])))
    if a["values"] is None:  # meta tensors: no values to differ
        return None
    x, y = _array(a["values"]).reshape(-1), _array(b["values"]).reshape(-1)
    same = [p == q or (p != p and q != q) for p, q in zip(x.tolist(), y.tolist(), strict=True)]
    return None if all(same) else [not s for s in same]


def _mark_unreproducible(doc: dict[str, Any], other: dict[str, Any],
                         sources: tuple[str, ...]) -> None:
    """Mark in `doc` what differs from `other`, the run with another fill of uninitialised
    memory and other seeds (what changed came from `sources`): tensor elements
    (`unreproducible`, `grad_unreproducible`), printed lines (`unreproducible_lines`, and
    `unreproducible_from` where the outputs part for good) and the error
    (`unreproducible_error`)."""
    doc["unreproducible_sources"] = list(sources)
    for name, d in doc["tensors"].items():
        e = other["tensors"].get(name)
        d["unreproducible"] = _unstable(d, e)
        d["grad_unreproducible"] = _unstable(d["grad"], e and e["grad"])
    mine, theirs = (ADDRESS.sub("0x?", doc["stdout"]).splitlines(),
                    ADDRESS.sub("0x?", other["stdout"]).splitlines())  # as compare() reads them
    doc["unreproducible_lines"] = [i for i, (p, q) in enumerate(zip(mine, theirs)) if p != q]
    if len(mine) != len(theirs):
        doc["unreproducible_from"] = min([*doc["unreproducible_lines"], len(mine),
                                          len(theirs)])
    doc["unreproducible_error"] = doc["error"] != other["error"]


# ---------------------------------------------------------------- comparing


def _array(values: Any) -> np.ndarray:
    def num(v: Any) -> Any:
        if isinstance(v, list):
            return [num(x) for x in v]
        if isinstance(v, str):
            return float(v)
        return v

    return np.asarray(num(values), dtype=object)


def _floats(values: Any, np_type: Any) -> np.ndarray:
    return _array(values).astype(np.float64).astype(np_type)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> int:
    """The largest distance in units in the last place between equal-shaped float arrays
    (NaN matches NaN; a NaN against a number, or infinities that differ, count as far)."""
    if a.size == 0:
        return 0
    both_nan = np.isnan(a) & np.isnan(b)
    if (np.isnan(a) ^ np.isnan(b)).any():
        return np.iinfo(np.int64).max
    same = (a == b) | both_nan
    if same.all():
        return 0
    if (np.isinf(a) | np.isinf(b))[~same].any():
        return np.iinfo(np.int64).max
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia = a.view(bits).astype(np.int64)
    ib = b.view(bits).astype(np.int64)
    # map the sign-magnitude encoding onto a line of consecutive integers
    top = np.int64(1) << (8 * a.dtype.itemsize - 1)
    ia = np.where(ia < 0, -(ia + top), ia)
    ib = np.where(ib < 0, -(ib + top), ib)
    return int(np.abs(ia - ib)[~same].max())


def _scaled_ulps(a: np.ndarray, b: np.ndarray) -> int:
    """The largest difference in units in the last place of the tensor's largest value."""
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(a) & np.isfinite(b)
        if not finite.all() or not a.size:
            return np.iinfo(np.int64).max
        top = np.max(np.abs(b)).astype(a.dtype)
        unit = np.spacing(top) if top else np.spacing(a.dtype.type(1))
        return int(np.ceil(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))
                           / float(unit)))


def compare_values(ours: dict[str, Any], theirs: dict[str, Any]) -> tuple[str, int | str]:
    """'same', 'rounding' (a float difference of at most ROUNDING_ULPS ulps: the distance
    is returned, as text when it is in ulps of the tensor's largest value), or which of
    dtype / shape / values differs."""
    if ours["dtype"] != theirs["dtype"]:
        return "dtype", 0
    if ours["shape"] != theirs["shape"]:
        return "shape", 0
    if ours.get("device") != theirs.get("device"):
        return "device", 0
    if ours["values"] is None:  # both on the meta device
        return "same", 0
    np_type = FLOAT_DTYPES.get(ours["dtype"])
    if np_type is not None:
        a, b = _floats(ours["values"], np_type), _floats(theirs["values"], np_type)
        ulps = ulp_distance(a, b)
        if ulps == 0:
            return "same", 0
        if ulps <= ROUNDING_ULPS:
            return "rounding", ulps
        scaled = _scaled_ulps(a, b)
        if scaled <= ROUNDING_ULPS:
            return "rounding", f"{scaled} ulp{'s' if scaled != 1 else ''} of its largest value"
        return "values", ulps
    a, b = _array(ours["values"]), _array(theirs["values"])
    ok = a.shape == b.shape and bool(np.all(a == b))
    return ("same" if ok else "values"), 0


def values_agree(ours: dict[str, Any], theirs: dict[str, Any]) -> tuple[bool, str]:
    """Same shape, dtype and bit-identical values; a reason when not."""
    how, _ = compare_values(ours, theirs)
    return how == "same", "" if how == "same" else ("values" if how == "rounding" else how)


def printed_rounding(a: str, b: str) -> int | None:
    """If two printed lines differ only in numbers that are a few float32 ulps apart, the
    largest distance; else None."""
    na, nb = NUMBER.findall(a), NUMBER.findall(b)
    if len(na) != len(nb) or NUMBER.sub("#", a) != NUMBER.sub("#", b):
        return None
    x = np.array([float(v) for v in na], np.float64).astype(np.float32)
    y = np.array([float(v) for v in nb], np.float64).astype(np.float32)
    ulps = ulp_distance(x, y)
    return ulps if 0 < ulps <= ROUNDING_ULPS else None


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _graph_text(g: Any) -> str:
    if g is None:
        return "None"
    if g == "...":
        return "…"
    inner = ", ".join(f"({_graph_text(n)}, {nr})" for n, nr in g["next"])
    name = g["name"].replace("torch::autograd::", "")
    return f"{name}[{inner}]" if inner else name


def _first_difference(a: str, b: str) -> tuple[int, str, str]:
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<no line>"
        y = lb[i] if i < len(lb) else "<no line>"
        if x != y:
            return i + 1, x, y
    return 0, "", ""


def known_causes(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """Why this run's float values may differ from torch's: a CPU capability unlike the one
    torch ran with, and the causes gradtrace's kernels noted (engine/exactness.py)."""
    causes = []
    mine, other = ours.get("cpu_capability"), theirs.get("cpu_capability")
    if mine and other and mine != other:
        causes.append(f"gradtrace computed for CPU capability {mine}, torch ran {other}")
    causes.extend(ours.get("inexact", ()))
    return causes


def _rounding_row(item: str, gradtrace: str, torch: str, ulps: int | str, causes: list[str],
                  where: str = "") -> Row:
    """A float rounding difference: labelled with its causes, or said to have none known."""
    amount = ulps if isinstance(ulps, str) else f"{ulps} ulp{'s' if ulps != 1 else ''}"
    size = f"float rounding, {amount}{where}"
    if causes:
        return Row(item, False, gradtrace, torch, f"{size}: " + "; ".join(causes),
                   rounding=True)
    return Row(item, False, gradtrace, torch, f"{size}: no known cause")


def compare(ours: dict[str, Any], theirs: dict[str, Any]) -> list[Row]:
    """Every comparison between gradtrace's report and torch's."""
    rows: list[Row] = []
    causes = known_causes(ours, theirs)
    out_a, out_b, left_out = _stable_output(ours, ADDRESS.sub("0x?", ours["stdout"]),
                                            ADDRESS.sub("0x?", theirs["stdout"]))
    if out_a == out_b:
        rows.append(Row("printed output", True, f"{len(out_a.splitlines())} lines", "same",
                        "addresses normalised" + left_out))
    else:
        n, x, y = _first_difference(out_a, out_b)
        lines = list(zip(out_a.splitlines(), out_b.splitlines(), strict=False))
        same_count = len(out_a.splitlines()) == len(out_b.splitlines())
        ulps = [printed_rounding(p, q) for p, q in lines if p != q] if same_count else [None]
        if all(u is not None for u in ulps):
            rows.append(_rounding_row("printed output", _short(x), _short(y),
                                      max(u for u in ulps if u is not None), causes,
                                      f" in {len(ulps)} line{'s' if len(ulps) != 1 else ''}"
                                      f" from line {n}"))
        else:
            rows.append(Row("printed output", False, _short(x), _short(y), f"first difference "
                            f"on output line {n}"))
    err_a, err_b = ours.get("error"), theirs.get("error")
    text_a = "none" if err_a is None else f"{err_a['kind']}: {err_a['message']}"
    text_b = "none" if err_b is None else f"{err_b['kind']}: {err_b['message']}"
    if text_a == text_b:
        rows.append(Row("error raised", True, "none" if err_a is None else err_a["kind"],
                        "same", "" if err_a is None else "same message"))
    elif ours.get("unreproducible_error"):
        rows.append(Row("error raised", True, _short(text_a), _short(text_b),
                        f"not compared: it depends on {_unreproducible(ours)}"))
    else:
        rows.append(Row("error raised", False, _short(text_a), _short(text_b)))
    names = list(dict.fromkeys(list(ours["tensors"]) + list(theirs["tensors"])))
    for name in names:
        a, b = ours["tensors"].get(name), theirs["tensors"].get(name)
        if a is None or b is None:
            rows.append(Row(name, False, "tensor" if a else "missing",
                            "tensor" if b else "missing", "only one side has this tensor"))
            continue
        rows.extend(_compare_tensor(name, a, b, causes, _unreproducible(ours)))
    return rows


FIELDS = ("requires_grad", "is_leaf", "grad_fn", "version", "retains_grad")


def _unreproducible(ours: dict[str, Any]) -> str:
    """Where the values gradtrace's second run changed came from, for the notes."""
    return " or ".join(ours.get("unreproducible_sources", ())) or "another run"


def _stable_output(ours: dict[str, Any], out_a: str, out_b: str) -> tuple[str, str, str]:
    """Both printed outputs without the lines gradtrace's runs printed differently with
    another fill of uninitialised memory and other seeds, and a note saying how many were
    left out."""
    lines_a, lines_b = out_a.splitlines(), out_b.splitlines()
    cut = ours.get("unreproducible_from")
    skip = set(ours.get("unreproducible_lines", ()))
    if cut is None and (not skip or len(lines_a) != len(lines_b)):
        return out_a, out_b, ""
    if cut is not None:
        skip.update(range(cut, max(len(lines_a), len(lines_b))))
    keep_a = [x for i, x in enumerate(lines_a) if i not in skip]
    keep_b = [x for i, x in enumerate(lines_b) if i not in skip]
    n = len(lines_a) - len(keep_a)
    return ("\n".join(keep_a), "\n".join(keep_b),
            f"; {n} line{'s' if n != 1 else ''} printed from {_unreproducible(ours)} "
            "not compared")


def _masked(d: dict[str, Any], mask: list[bool]) -> dict[str, Any]:
    """`d` with the values at `mask` set to 0: elements not to compare."""
    flat = _array(d["values"]).reshape(-1)
    flat[np.asarray(mask, dtype=bool)] = 0
    return dict(d, values=flat.reshape(d["shape"]).tolist())


def _value_rows(item: str, a: dict[str, Any], b: dict[str, Any], causes: list[str],
                mask: list[bool] | None = None, source: str = "") -> tuple[list[Row], str]:
    """The rows for a difference in values, and a note on the elements not compared (at
    `mask`, from `source`)."""
    note = ""
    if mask and all(a.get(k) == b.get(k) for k in ("shape", "dtype", "device")):
        a, b = _masked(a, mask), _masked(b, mask)
        n = sum(mask)
        note = (f"values: {source}, shape and dtype compared" if n == len(mask)
                else f"{n} of {len(mask)} values from {source} not compared")
    how, ulps = compare_values(a, b)
    if how == "same":
        return [], note
    key = "values" if how == "rounding" else how
    mine, theirs = _short(a[key]), _short(b[key])
    if how == "rounding":
        return [_rounding_row(f"{item} values", mine, theirs, ulps, causes)], note
    return [Row(f"{item} {how}", False, mine, theirs, note)], note


def _compare_tensor(name: str, a: dict[str, Any], b: dict[str, Any], causes: list[str],
                    source: str) -> list[Row]:
    rows, note = _value_rows(name, a, b, causes, a.get("unreproducible"), source)
    for key in FIELDS:
        if a.get(key) != b.get(key):
            label = "_version" if key == "version" else key
            rows.append(Row(f"{name}.{label}", False, _short(a.get(key)), _short(b.get(key))))
    if a.get("next_functions") != b.get("next_functions"):
        rows.append(Row(f"{name}.grad_fn graph", False, _short(_graph_text(a["next_functions"])),
                        _short(_graph_text(b["next_functions"])), "next_functions differ"))
    ga, gb = a.get("grad"), b.get("grad")
    if (ga is None) != (gb is None):
        rows.append(Row(f"{name}.grad", False, "None" if ga is None else _short(ga["values"]),
                        "None" if gb is None else _short(gb["values"])))
    elif ga is not None:
        grad_rows, grad_note = _value_rows(f"{name}.grad", ga, gb, causes,
                                           a.get("grad_unreproducible"), source)
        rows.extend(grad_rows)
        note = "; ".join(filter(None, [note, grad_note and "grad: " + grad_note]))
    if rows:
        return rows
    summary = f"{a['dtype'].removeprefix('torch.')} {a['shape']}"
    grad = "" if ga is None else ", grad"
    return [Row(name, True, summary, "same", "values" + grad + ", requires_grad, is_leaf, "
                "grad_fn, next_functions, _version" + (f" ({note})" if note else ""))]


def build_report(script: str, ours: dict[str, Any], theirs: dict[str, Any],
                 python: str | None = None) -> CheckReport:
    rows = compare(ours, theirs)
    left = [r for r in rows if not r.agree]
    status = "agree" if not left else "rounding" if all(r.rounding for r in left) else "differ"
    return CheckReport(script, status, rows, python, theirs.get("torch_version"),
                       capability=ours.get("cpu_capability", ""),
                       torch_capability=theirs.get("cpu_capability", ""))


def _run_twice_if_unreproducible(text: str, name: str,
                                  limits: Any) -> tuple[Any, Any, tuple[str, ...]]:
    """gradtrace's run of a script, and, when it used values torch does not reproduce
    (`engine/unreproducible.py`) and ran to an end there is to compare, a second run with
    another fill of uninitialised memory and other seeds (else None), and what the first
    used.

    torch's side runs every script from its default generator as seeded from the OS, so
    gradtrace's is taken as seeded from the OS at the start of every script too; the second
    run starts it from the same state unless the script drew from it unseeded, and then
    from a new seed. Python's `random` is seeded from the OS in every run."""
    from .engine import generator, unreproducible
    from .errors import GtSyntaxError, LimitExceeded, NotSupportedError
    from .runner import run_text

    default = generator.DEFAULT
    state = default.get_state()
    default.seeded_by_os = True
    unreproducible.reset()
    result = run_text(text, name, trace=True, limits=limits)
    sources = unreproducible.used()
    if not sources or isinstance(result.error, (GtSyntaxError, NotSupportedError,
                                                LimitExceeded)):
        return result, None, sources
    after, after_seeded_by_os = default.get_state(), default.seeded_by_os
    default.set_state(state)
    if unreproducible.UNSEEDED_TORCH in sources:
        default.seed()
    with unreproducible.filled_with(unreproducible.CHECK_FILL):
        again = run_text(text, name, limits=limits)
    default.set_state(after)
    default.seeded_by_os = after_seeded_by_os
    return result, None if isinstance(again.error, LimitExceeded) else again, sources


def check_script(source_text: str, name: str, python: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT, limits: Any = None) -> CheckReport:
    """Run `source_text` under gradtrace and under torch (found from `python`); compare."""
    return check_scripts([(source_text, name)], python, timeout, limits)[0]


def check_scripts(scripts: list[tuple[str, str]], python: str | None = None,
                  timeout: float = DEFAULT_TIMEOUT, limits: Any = None) -> list[CheckReport]:
    """`check_script` for many (text, name) pairs, with one torch process for all.

    A script gradtrace did not parse, refused (NotSupportedError: it reaches for
    something outside the sandbox, or not built yet) or stopped at a limit is not run
    under torch: there is nothing to compare, and torch would run it unchecked."""
    from .errors import GtSyntaxError, LimitExceeded, NotSupportedError

    reports: list[CheckReport | None] = []
    ours: list[tuple[int, dict[str, Any]]] = []
    for i, (text, name) in enumerate(scripts):
        result, refilled, sources = _run_twice_if_unreproducible(text, name, limits)
        refused = {GtSyntaxError: ("not_run", "gradtrace cannot parse the script"),
                   NotSupportedError: ("not_run", "gradtrace refused the script"),
                   LimitExceeded: ("limited", "gradtrace's run of the script hit a limit")}
        why = next((v for k, v in refused.items() if isinstance(result.error, k)), None)
        if why is not None:
            reports.append(CheckReport(name, why[0], message=(
                f"{why[1]}, so it was not run under torch:\n"
                + result.error.format(result.source))))
            continue
        reports.append(None)
        ours.append((i, dump_result(result, refilled, sources)))
    if not ours:
        return [r for r in reports if r is not None]
    torch_python = find_torch_python(python)
    if torch_python is None:
        if python and not (shutil.which(python) or os.path.exists(python)):
            message = (f"--torch {python}: no such file or command, so there is nothing to "
                       "compare against. Pass the path of a Python that has torch 2.13 (e.g. "
                       f".venv/bin/python), or install it with: {INSTALL_HINT}")
        else:
            where = f"in {python}" if python else "in this Python or in python3"
            message = (f"PyTorch is not installed {where}, so there is nothing to compare "
                       f"against. Install it with: {INSTALL_HINT} (or pass --torch PYTHON for "
                       "a Python that has torch)")
        for i, _ in ours:
            reports[i] = CheckReport(scripts[i][1], "no_torch", message=message)
        return [r for r in reports if r is not None]
    theirs = run_torch_many([scripts[i] for i, _ in ours], torch_python, timeout)
    for (i, mine), other in zip(ours, theirs, strict=True):
        name = scripts[i][1]
        if isinstance(other, TorchRunError):
            reports[i] = CheckReport(name, "torch_failed", torch_python=torch_python,
                                     message=str(other))
        else:
            reports[i] = build_report(name, mine, other, torch_python)
    return [r for r in reports if r is not None]


# ---------------------------------------------------------------- output


def print_report(console: Any, report: CheckReport) -> None:
    """A table of agreements and differences (plain text when piped)."""
    from rich.table import Table
    from rich.text import Text

    if report.status in ("no_torch", "torch_failed", "not_run", "limited"):
        console.print(Text(f"gradtrace check: {report.message}",
                           style="yellow" if report.status == "no_torch" else "red"))
        return
    version = report.torch_version or "?"
    console.print(Text(f"{report.script}: gradtrace vs torch {version} "
                       f"({report.torch_python})", style="bold"))
    if not version.startswith(TORCH_VERSION):
        console.print(Text(f"note: gradtrace follows torch {TORCH_VERSION}; this is torch "
                           f"{version}", style="yellow"))
    console.print(Text(f"CPU capability: gradtrace {report.capability or '?'}, torch "
                       f"{report.torch_capability or '?'}", style="dim"))
    console.print(Text(f"comparison: {comparison_text()}", style="dim"))
    table = Table(header_style="bold", show_lines=False)
    for column in ("", "compared", "gradtrace", "torch", "note"):
        table.add_column(column, overflow="fold")
    for row in report.rows:
        mark = (Text("✓", style="green") if row.agree else Text("≈", style="yellow")
                if row.rounding else Text("✗", style="red"))
        cells = (row.item, row.gradtrace, row.torch, row.note)
        table.add_row(mark, *(Text(cell) for cell in cells))  # literal: no markup in values
    console.print(table)
    if report.agree:
        console.print(Text("gradtrace and torch agree.", style="bold green"))
    elif report.status == "rounding":
        n = len(report.differences)
        console.print(Text(f"{n} difference{'s' if n != 1 else ''} between gradtrace and torch, "
                           "all float rounding with known causes (see the notes).",
                           style="bold yellow"))
    else:
        n = len(report.differences)
        console.print(Text(f"{n} difference{'s' if n != 1 else ''} between gradtrace and torch.",
                           style="bold red"))
