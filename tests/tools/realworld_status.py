"""Write tests/conformance_realworld/STATUS.md: where today's gradtrace stops on each real
snippet, grouped by feature, and everything the corpus calls.

Run with the worktree on the path (no torch needed):

    PYTHONPATH=. python tests/tools/realworld_status.py [--jobs N] [tests/conformance_realworld]

Each case runs in-process through gradtrace.runner.run_source under the CPU capability
MANIFEST.json records, exactly as tests/test_conformance_realworld.py runs it. A case passes
when its stdout equals NAME.out and its uncaught error equals NAME.err (or both are absent),
or, on a CPU whose MKL kernels differ from the recording machines' (record_conformance.py),
what torch 2.13 prints for it on this machine.
Otherwise its first blocker is gradtrace's error (kind, message, line) or, when the script
ran on, the first line it printed differently. The inventory is read from the scripts' syntax
(Python's ast): the torch APIs with the keywords passed, the methods and attributes used,
the imports and the language constructs, each with the cases that use it. A hand-written
`behaviours.md` beside the cases, if present, is appended: the behaviours the cases rely on
that no call list shows (print formats, iteration orders, generator use).
"""
from __future__ import annotations

import argparse
import ast
import builtins
import json
import multiprocessing
import os
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from gradtrace.engine import capability, onednn
from gradtrace.interpreter import Limits
from gradtrace.runner import load_source, run_source

sys.path.insert(0, str(Path(__file__).parent))
from record_conformance import (  # noqa: E402
    RECORDED_CPU_VENDOR,
    as_recorded,
    other_mkl_kernels,
    torch_here,
)

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?")

# first matching (label, pattern on "Kind: message") names the feature a blocker belongs to
GROUPS: list[tuple[str, str]] = [
    ("`class` statements (nn.Module / autograd.Function subclasses, plain classes)",
     r"`class` definitions"),
    ("decorators (@staticmethod, @torch.no_grad(), ...)", r"decorators are not supported"),
    ("generators (`yield`)", r"`yield`"),
    ("dict comprehensions", r"dict comprehensions"),
    ("imports", r"import of '|cannot import name"),
    ("torch.nn modules and losses", r"'torch\.nn\.[A-Z]\w*' is not supported"),
    ("torch.Tensor(...) / torch.device / other torch names", r"'torch\.\w+' is not supported"),
    ("torch.autograd.functional", r"autograd\.functional"),
    ("Tensor methods", r"'Tensor' object has no attribute"),
    ("keyword arguments of supported functions", r"unexpected keyword argument"),
]


def skeleton(line: str) -> str:
    """A printed line with its numbers and spacing blurred: equal skeletons differ only in
    values."""
    return " ".join(NUMBER.sub("#", line).split())


@dataclass
class Outcome:
    case: str
    passed: bool
    group: str = ""
    line: int | None = None
    detail: str = ""


def run_case(case: Path, recorded: str, vendor: str) -> Outcome:
    os.environ["ATEN_CPU_CAPABILITY"] = recorded
    capability.CAPABILITY = recorded
    # record_conformance.py caps oneDNN with ATen (its ISA is the CPU's, not ATen's)
    os.environ["ONEDNN_MAX_CPU_ISA"] = "AVX2" if recorded == "avx2" else ""
    onednn.AVX512_CORE = onednn.uses_avx512_core()
    result = run_source(load_source(str(case)), limits=Limits(timeout=600))  # (parity, not speed)
    stdout = ADDRESS.sub("0x?", as_recorded(result.stdout))
    expected = case.with_suffix(".out").read_text()
    err_file = case.with_suffix(".err")
    expected_err = err_file.read_text().strip() if err_file.exists() else None
    error = result.error
    got_err = f"{error.printed_kind}: {error.uncaught_message}".strip() if error else None
    if (stdout, got_err) != (expected, expected_err) and other_mkl_kernels(vendor):
        measured = torch_here(case, recorded)  # (this CPU's MKL kernels: torch run here)
        if measured is not None:
            expected, expected_err = measured
    if stdout == expected and got_err == expected_err:
        return Outcome(case.stem, True)
    if error is not None and got_err != expected_err:
        line = error.span.line if error.span else None
        text = f"{error.printed_kind}: {error.uncaught_message}"
        if line:
            text += f" — `{case.read_text().splitlines()[line - 1].strip()}`"
        group = next((label for label, pat in GROUPS if re.search(pat, text)),
                     f"{error.kind} where torch ran on" if expected_err is None
                     else "a different error than torch's")
        return Outcome(case.stem, False, group, line, text)
    got, want = stdout.splitlines(), expected.splitlines()
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            group = "numbers differ (torch's random generator or float32 kernels, issue 13)" \
                if skeleton(g) == skeleton(w) else "prints something else than torch"
            return Outcome(case.stem, False, group, None,
                           f"output line {i + 1}: torch `{w[:90]}`, gradtrace `{g[:90]}`")
    if len(got) != len(want):
        return Outcome(case.stem, False, "prints something else than torch", None,
                       f"{len(got)} output lines, torch printed {len(want)}")
    return Outcome(case.stem, False, "a different error than torch's", None,
                   f"torch: {expected_err}; gradtrace: {got_err}")


# ---------------------------------------------------------------- inventory (syntax only)

MODULES = {"torch", "math", "random", "collections", "os"}  # calls through these are listed


def dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class Inventory(ast.NodeVisitor):
    """Collects, per case, the calls, attributes, imports and constructs it uses."""

    def __init__(self) -> None:
        self.calls: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.methods: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.attributes: dict[str, set[str]] = defaultdict(set)
        self.imports: dict[str, set[str]] = defaultdict(set)
        self.constructs: dict[str, set[str]] = defaultdict(set)
        self.aliases: dict[str, str] = {}
        self.own: set[str] = set()
        self.case = ""

    def scan(self, case: str, tree: ast.AST) -> None:
        """Visit one script; names it defines itself (methods, `self.x` fields) are not
        listed as methods or attributes."""
        self.case, self.aliases = case, {}
        self.own = {n.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                    for n in c.body if isinstance(n, ast.FunctionDef)}
        self.own |= {t.attr for t in ast.walk(tree) if isinstance(t, ast.Attribute)
                     and isinstance(t.ctx, ast.Store) and isinstance(t.value, ast.Name)
                     and t.value.id == "self"}
        self.visit(tree)

    def construct(self, name: str) -> None:
        self.constructs[name].add(self.case)

    def resolve(self, name: str) -> str:
        head, _, rest = name.partition(".")
        full = self.aliases.get(head, head)
        return f"{full}.{rest}" if rest else full

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else \
                a.name.split(".")[0]
            self.imports[f"import {a.name}" + (f" as {a.asname}" if a.asname else "")].add(
                self.case)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in node.names)
        self.imports[f"from {node.module} import {names}"].add(self.case)
        for a in node.names:
            self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = ", ".join(self.resolve(dotted(b) or "?") for b in node.bases)
        self.construct(f"class with base {bases}" if bases else "class with no base")
        for d in node.decorator_list:
            self.construct(f"class decorator @{ast.unparse(d)}")
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:
            self.construct(f"decorator @{ast.unparse(d)}")
        a = node.args
        if a.vararg:
            self.construct("def f(*args)")
        if a.kwarg:
            self.construct("def f(**kwargs)")
        if a.defaults or a.kw_defaults:
            self.construct("default argument values")
        if any(x.annotation for x in a.args) or node.returns:
            self.construct("annotations")
        if node.name.startswith("__") and node.name.endswith("__"):
            self.construct(f"dunder method {node.name}")
        elif node.name.startswith("_"):
            self.construct("names starting with _")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = dotted(node.func)
        keywords = sorted(k.arg or "**" for k in node.keywords)
        sig = f"({len(node.args)} positional{', ' if keywords else ''}" \
              f"{', '.join(k + '=' for k in keywords)})"
        if any(isinstance(x, ast.Starred) for x in node.args):
            self.construct("call with *args")
        if any(k.arg is None for k in node.keywords):
            self.construct("call with **kwargs")
        if name is not None:
            full = self.resolve(name)
            if name.split(".")[0] in self.aliases and full.split(".")[0] in MODULES:
                self.calls[full][sig].add(self.case)
            elif isinstance(node.func, ast.Attribute):
                if node.func.attr not in self.own:
                    self.methods[f".{node.func.attr}()"][sig].add(self.case)
            elif isinstance(node.func, ast.Name) and hasattr(builtins, name):
                self.construct(f"builtin {name}()")
        elif isinstance(node.func, ast.Attribute) and node.func.attr not in self.own:
            self.methods[f".{node.func.attr}()"][sig].add(self.case)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not isinstance(getattr(node, "parent_call", None), ast.Call):
            name = dotted(node)
            if node.attr not in self.own and (name is None
                                              or name.split(".")[0] not in self.aliases):
                self.attributes[f".{node.attr}"].add(self.case)
        self.generic_visit(node)

    def generic_visit(self, node: ast.AST) -> None:
        kind = {ast.Yield: "yield", ast.YieldFrom: "yield from", ast.Lambda: "lambda",
                ast.DictComp: "dict comprehension", ast.SetComp: "set comprehension",
                ast.ListComp: "list comprehension", ast.GeneratorExp: "generator expression",
                ast.Try: "try/except", ast.With: "with", ast.Global: "global",
                ast.Nonlocal: "nonlocal", ast.Delete: "del", ast.Assert: "assert",
                ast.Raise: "raise", ast.Starred: "starred expression",
                ast.JoinedStr: "f-string", ast.IfExp: "conditional expression",
                ast.While: "while", ast.AugAssign: "augmented assignment"}.get(type(node))
        if kind:
            self.construct(kind)
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            self.construct("f-string format spec")
        if isinstance(node, ast.Compare) and any(isinstance(o, (ast.Is, ast.IsNot))
                                                 for o in node.ops):
            self.construct("`is` comparison")
        if isinstance(node, ast.Call):
            node.func.parent_call = node  # type: ignore[attr-defined]
        super().generic_visit(node)


def cases_cell(cases: set[str], limit: int = 6) -> str:
    names = sorted(cases)
    shown = ", ".join(names[:limit])
    return f"{len(names)}: {shown}" + (", ..." if len(names) > limit else "")


def render(outcomes: list[Outcome], inv: Inventory, manifest: dict, commit: str) -> str:
    passed = [o for o in outcomes if o.passed]
    failed = [o for o in outcomes if not o.passed]
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in failed:
        groups[o.group].append(o)
    caps = sorted({e["capability"] for e in manifest.values()})
    out = [
        "# Real-world corpus: status under today's gradtrace",
        "",
        f"Generated by `tests/tools/realworld_status.py` on gradtrace at {commit} (the last "
        f"commit that changed gradtrace/); every case ran "
        f"under the capability it was recorded with ({', '.join(caps)}), torch "
        f"{next(iter(manifest.values()))['torch']}.",
        "",
        f"**{len(passed)} of {len(outcomes)} pass** (stdout and uncaught error identical to "
        f"torch's): {', '.join(o.case for o in passed) or 'none'}.",
        "",
        "A case's first blocker is where gradtrace stops (or first prints something else); "
        "fixing it shows the next one. The inventory below lists everything the corpus "
        "uses, whatever stops first.",
        "",
        "## First blocker, by feature",
        "",
        "| feature | cases |",
        "|---|---|",
    ]
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    out += [f"| {label} | {len(items)} |" for label, items in ordered]
    for label, items in ordered:
        out += ["", f"### {label} ({len(items)})", "", "| case | line | gradtrace |",
                "|---|---|---|"]
        for o in sorted(items, key=lambda o: o.case):
            detail = o.detail.replace("|", "\\|").replace("\n", " ")
            out.append(f"| {o.case} | {o.line or ''} | {detail} |")

    out += ["", "## What the corpus uses", "",
            "Counted from the scripts' syntax; `N: cases` is how many cases use it and the "
            "first few of them. Signatures show the number of positional arguments and the "
            "keywords passed.", "", "### torch functions, classes and modules called", "",
            "| call | signatures used | cases |", "|---|---|---|"]
    for name in sorted(inv.calls):
        sigs = inv.calls[name]
        used = set().union(*sigs.values())
        out.append(f"| `{name}` | {'; '.join(f'`{s}`' for s in sorted(sigs))} | "
                   f"{cases_cell(used)} |")
    out += ["", "### Methods called on objects (tensors, modules, optimizers, ctx, lists, ...)",
            "", "| method | signatures used | cases |", "|---|---|---|"]
    for name in sorted(inv.methods):
        sigs = inv.methods[name]
        used = set().union(*sigs.values())
        out.append(f"| `{name}` | {'; '.join(f'`{s}`' for s in sorted(sigs))} | "
                   f"{cases_cell(used)} |")
    out += ["", "### Attributes read or assigned", "", "| attribute | cases |", "|---|---|"]
    out += [f"| `{a}` | {cases_cell(c)} |" for a, c in sorted(inv.attributes.items())]
    out += ["", "### Imports", "", "| import | cases |", "|---|---|"]
    out += [f"| `{i}` | {cases_cell(c)} |" for i, c in sorted(inv.imports.items())]
    out += ["", "### Language constructs", "", "| construct | cases |", "|---|---|"]
    out += [f"| {k} | {cases_cell(c)} |"
            for k, c in sorted(inv.constructs.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
    return "\n".join(out) + "\n"


def _run_entry(job: tuple[Path, dict]) -> Outcome:
    case, entry = job
    return run_case(case, entry["capability"], entry.get("cpu_vendor", RECORDED_CPU_VENDOR))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", default="tests/conformance_realworld")
    parser.add_argument("--jobs", type=int, default=1,
                        help="cases run at once in forked processes (the corpus takes "
                             "20-30 minutes on one core)")
    args = parser.parse_args()
    here = Path(args.corpus)
    manifest = {e["case"]: e for e in json.loads((here / "MANIFEST.json").read_text())}
    cases = sorted(here.glob("*.gt"))
    inv = Inventory()
    for case in cases:
        inv.scan(case.stem, ast.parse(case.read_text()))
    jobs = [(case, manifest[case.stem]) for case in cases]
    outcomes = []
    with multiprocessing.get_context("fork").Pool(args.jobs, maxtasksperchild=50) as pool:
        for outcome in pool.imap(_run_entry, jobs):  # (in the cases' order)
            print(outcome.case,
                  "pass" if outcome.passed else f"{outcome.group}: {outcome.detail}"[:150],
                  flush=True)
            outcomes.append(outcome)
    commit = os.popen("git log -1 --format=%h -- gradtrace").read().strip() or "?"
    text = render(outcomes, inv, manifest, commit)
    notes = here / "behaviours.md"
    if notes.exists():  # hand-written: what the cases depend on beyond the calls they make
        text += "\n" + notes.read_text()
    (here / "STATUS.md").write_text(text)


if __name__ == "__main__":
    main()
