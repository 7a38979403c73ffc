"""One naming rule for every view: which words stand for a tensor the trace recorded.

The run report's tables and graph, the graph files (DOT, Mermaid, JSON) and `explain` all
name tensors through `Naming`, so a tensor has the same name everywhere:

1. a Python number an op wrapped: the number as Python prints it (`0.001`);
2. a name that holds the tensor when the view is drawn (the end of the run for the
   report and the graph files; the statement being told for `explain`), the first one
   bound if several do (`y = x` keeps calling the leaf `x`). A tensor stored on an
   instance is bound to the target's text (`self.w`) and, at the end, held by its path
   from a module-level name (`model.w`, `model.layer.b`; tracing.script_tensors);
3. else the last name that held it, with the line that bound it: `x@5` ("the x of line
   5"). Views introduce such a name before they use it (`introduction`);
4. else, for a tensor a node's backward made (create_graph), that node and the backward
   call: `⟨MulBackward0 #3 in backward #1⟩`;
5. else, for a tensor an op made only to save it (max_pool2d's indices, layer_norm's
   mean), how torch reaches it: `p.grad_fn._saved_result1` (`saved_tensors[0]` of a custom
   Function), after the op's output's name;
6. else, for a parameter or buffer bundled library code made (nn.Linear's weight), the
   path by which a top-level name holds it at the end (`model.conv1.weight`), even before
   the script binds that name (a model's __init__ initialising its layers' weights);
   else, for a tensor bundled library code (nn's layers, F's Python, optim) made and did
   not return to the script: the module call that returned it (`model.0(x)` inside
   `model(x)`), else the op that made it after its node (`t(model.0.weight)`), with its
   inputs' names; cut to 40 characters. So too for a tensor one of the ops of a single
   torch call made and the call did not return (`unsqueeze(x)` in `torch.matmul(x, w)`);
7. else the source of the sub-expression that made it (`x > 0`), cut to 40 characters;
8. else `t<id>`.

Names bound inside a function stop holding their tensor when the run ends.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tracing import Tracer

VALUE, NAME, OLD_NAME, BACKWARD, SAVED, EXPRESSION, ID = (
    "value", "name", "old_name", "backward", "saved", "expression", "id")
MAX_EXPRESSION = 40
MAX_NESTING = 6  # how deep rule 6 names inputs inside inputs before writing `…`


@dataclass(slots=True)
class Binding:
    """A script name bound to a tensor on `line`, until `until` (None: it still holds it,
    or, for a name inside a function, until the function returned)."""

    name: str
    line: int | None
    until: int | None = None
    local: bool = False
    open: bool = True  # the name still holds the tensor


def cut_expression(text: str) -> str:
    return text if len(text) <= MAX_EXPRESSION else text[: MAX_EXPRESSION - 1] + "…"


class Naming:
    """Names of a trace's tensors, as of a moment of the run (see the module docstring).

    `bind` moves the moment forward one binding at a time (what `explain` does as it
    tells the run); `at_end` gives the names as of the end of the run.
    """

    def __init__(self, trace: Tracer):
        self.trace = trace
        self.records = trace.tensors  # record id -> TensorRecord
        self.holds: dict[str, int] = {}  # module-scope name -> tensor it holds
        self.local_holds: dict[str, int] = {}  # a function's name -> tensor (approximate)
        self.history: dict[int, list[Binding]] = defaultdict(list)
        self.same_as: dict[int, int] = {}  # a temporary shown as another tensor
        self._cache: dict[int, tuple[str, str]] = {}
        self._nodes: dict[int, Any] | None = None
        self._library_ops: dict[int, tuple[str, list[int | None], str]] | None = None
        self._final_paths: dict[int, str] | None = None  # see _final_path
        self._nesting = 0  # rule 6's depth: names made deeper are not cached

    @classmethod
    def at_end(cls, trace: Tracer) -> Naming:
        """The names as of the end of the run: every binding replayed, then the module's
        names as the run left them; names inside functions no longer hold anything."""
        naming = cls(trace)
        for event in trace.events:
            if event.kind == "bind":
                naming.bind(event.facts["name"], event.facts["tensor"], event.line,
                            bool(event.facts.get("local")))
        final = {name: record.id for name, record in trace.named_tensors()}
        for tid, bindings in naming.history.items():
            for b in bindings:
                if b.open and (b.local or final.get(b.name) != tid):
                    b.open = False
        for name, tid in final.items():  # an instance's attribute path (`model.w`) is only
            if not any(b.open and b.name == name for b in naming.history[tid]):  # known now
                naming.history[tid].append(Binding(name, None))
        naming.holds = final
        naming.local_holds = {}
        naming._cache.clear()
        return naming

    # -- moving through the run ----------------------------------------------------

    def bind(self, name: str, tid: int, line: int | None, local: bool = False) -> int | None:
        """`name` now holds tensor `tid`; returns the tensor it held before, if another."""
        holds = self.local_holds if local else self.holds
        old = holds.get(name)
        if old == tid:
            return None
        holds[name] = tid
        if old is not None:
            for b in reversed(self.history[old]):
                if b.name == name and b.open and b.local == local:
                    b.open, b.until = False, line
                    break
            self._cache.pop(old, None)
        self.history[tid].append(Binding(name, line, local=local))
        self._cache.pop(tid, None)
        return old

    def show_as(self, tid: int, other: int) -> None:
        """Name tensor `tid` (an engine temporary) as tensor `other`."""
        if tid != other:
            self.same_as[tid] = other
            self._cache.pop(tid, None)

    # -- names ---------------------------------------------------------------------

    def label(self, tid: int | None) -> str:
        if tid is None:
            return "None"
        return self.describe(tid)[1]

    def kind(self, tid: int) -> str:
        return self.describe(tid)[0]

    def describe(self, tid: int) -> tuple[str, str]:
        """(kind, text) of the tensor's name: kind is one of VALUE, NAME, OLD_NAME,
        BACKWARD, SAVED, EXPRESSION, ID (a SAVED name after an expression is one too)."""
        found = self._cache.get(tid)
        if found is None:
            found = self._describe(tid)
            record = self.records.get(tid)
            if (record is None or record.saved_as is None) and not self._nesting:
                self._cache[tid] = found  # (a saved tensor's follows the output's name)
        return found

    def _describe(self, tid: int) -> tuple[str, str]:
        if tid in self.same_as:
            return self.describe(self.same_as[tid])
        record = self.records.get(tid)
        if record is None:
            return ID, f"t{tid}"
        if record.tensor._wrapped:
            return VALUE, python_number(record.tensor.array)
        bindings = self.history.get(tid, ())
        for local in (False, True):
            for b in bindings:
                if b.open and b.local == local:
                    return NAME, b.name
        if bindings:
            b = bindings[-1]
            return OLD_NAME, f"{b.name}@{b.line}" if b.line is not None else b.name
        if record.made_by is not None:
            call, node = record.made_by
            node_record = self.node_records().get(node)
            title = node_record.name.replace("torch::autograd::", "") if node_record else "?"
            return BACKWARD, f"⟨{title} #{node} in backward #{call}⟩"
        output = self._saving_output(tid)
        if output is not None:
            kind, text = self.describe(output)
            saver = self.node_records()[record.saved_as[0]].node
            text = f"{text}.grad_fn.{saver.saved_attribute(record.saved_as[1])}"
            return (EXPRESSION if kind == EXPRESSION else SAVED), text
        if record.library and not bindings:
            path = self._final_path(tid)
            if path is not None:  # a library-made parameter or buffer, before the script
                return NAME, path  # holds its module: the path it has at the end
        if record.library and not record.surfaced or record.internal:
            made = self._library_made(record)
            if made is not None:
                return EXPRESSION, cut_expression(made)
        if record.expression:
            return EXPRESSION, cut_expression(record.expression)
        return ID, f"t{tid}"

    def _final_path(self, tid: int) -> str | None:
        """The path (`model.conv1.weight`) by which a top-level name holds the tensor at the
        end of the run, if one does."""
        if self._final_paths is None:
            self._final_paths = {}
            for name, record in self.trace.named_tensors():
                if "." in name:
                    self._final_paths.setdefault(record.id, name)
        return self._final_paths.get(tid)

    def _library_made(self, record: Any) -> str | None:
        """Rule 6: `model.0(x)` or `t(model.0.weight)`, the inputs named in turn until the
        text is longer than a name is shown."""
        position = ""
        if record.returned_by is not None and record.returned_by[0] is not None:
            head, inputs = record.returned_by
        else:
            if self._library_ops is None:
                self._library_ops = {}
                for event in self.trace.events:
                    if event.kind == "op":
                        op = op_name(event.facts["name"])
                        outputs = event.facts["outputs"]
                        for i, out in enumerate(outputs):  # (linalg_qr's Q and R: [0], [1])
                            self._library_ops.setdefault(
                                out, (op, event.facts["inputs"], f"[{i}]" if len(outputs) > 1
                                      else ""))
            made = self._library_ops.get(record.id)
            if made is None:
                return None
            head, inputs, position = made
        if self._nesting >= MAX_NESTING:
            return f"{head}(…){position}"
        parts: list[str] = []
        length = len(head)
        self._nesting += 1
        try:
            for tid in inputs:
                if length > MAX_EXPRESSION:
                    parts.append("…")
                    break
                parts.append(self.label(tid) if tid != record.id else "…")
                length += len(parts[-1]) + 2
        finally:
            self._nesting -= 1
        return f"{head}({', '.join(parts)}){position}"

    def _saving_output(self, tid: int) -> int | None:
        """For a tensor an op made only to save it, and that no name ever held, the op's
        first output (its name is `<output>.grad_fn._saved_<key>`)."""
        record = self.records.get(tid)
        if record is None or record.saved_as is None or self.history.get(tid) \
                or record.made_by is not None:
            return None
        node_record = self.node_records().get(record.saved_as[0])
        return node_record.outputs[0] if node_record is not None and node_record.outputs \
            else None

    def made_to_save(self, tid: int) -> bool:
        """Whether the tensor is named after the node that saved it (rule 5)."""
        return self._saving_output(tid) is not None

    def node_records(self) -> dict[int, Any]:
        """The trace's node records by id (built once)."""
        if self._nodes is None or len(self._nodes) != len(self.trace.nodes):
            self._nodes = {r.id: r for r in self.trace.nodes.values()}
        return self._nodes

    def introduction(self, tid: int) -> Binding | None:
        """The binding an `x@5` name stands for (None for other names)."""
        if self.kind(tid) != OLD_NAME:
            return None
        return self.history[tid][-1]

    def bindings(self, tid: int) -> list[Binding]:
        return list(self.history.get(tid, ()))


_BACKWARD = re.compile(r"Backward\d*$")
_WORD = re.compile(r"(?<!^)(?=[A-Z])")


def op_name(node_name: str) -> str:
    """The op a node class stands for, as torch's functions spell it: `TBackward0` ->
    `t`, `MseLossBackward0` -> `mse_loss`, a view's copy `DiagonalBackward0_copy` ->
    `diagonal_copy` (a name without `Backward` is kept)."""
    copy = node_name.endswith(_COPY)
    stem = node_name[:-len(_COPY)] if copy else node_name
    base = _BACKWARD.sub("", stem)
    if base == stem or not base:
        return node_name
    return _WORD.sub("_", base).lower() + ("_copy" if copy else "")


_COPY = "_copy"  # copies.py's `<ViewNode>_copy` node classes


def python_number(array: Any) -> str:
    """A wrapped Python number as Python prints it: 0.001, 3, True."""
    return repr(array.item()) if getattr(array, "size", 0) == 1 else repr(array)


def introduce(label: str, binding: Binding) -> str:
    """`x@5: the tensor x named on line 5, until line 7 bound x to another tensor` (the
    report's and the graph files' words; `explain` says it in its own language)."""
    where = f"on line {binding.line}" if binding.line is not None else "earlier"
    text = f"{label}: the tensor {binding.name} named {where}"
    if binding.until == binding.line:
        return f"{text}, until that line ran again and bound {binding.name} to another tensor"
    if binding.until is not None:
        return f"{text}, until line {binding.until} bound {binding.name} to another tensor"
    if binding.local:
        return f"{text}, inside a function"
    return f"{text}; {binding.name} names another tensor now"


def held(binding: Binding) -> str:
    """`x, lines 5-7`: a short form of `introduce` for a graph drawing's box."""
    if binding.until is not None and binding.until != binding.line:
        return f"{binding.name}, lines {binding.line}-{binding.until}"
    return f"{binding.name}, line {binding.line}"
