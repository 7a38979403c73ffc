"""The tracer's record of what the script did outside the engine's ops: optimizer steps and
parameter updates that bundled library modules declare, watched tensor methods and
attributes, caught errors, nn.Module calls, and the names and module paths at the end."""
from __future__ import annotations

from typing import Any

from ..engine.node import AccumulateGrad
from ..engine.saved_hooks import HOOKS
from ..engine.tensor import Tensor
from ..errors import GradtraceError
from ..interpreter.objects import Instance, type_name
from ..interpreter.runtime import named
from ..stdlib import BoundMethod
from ..summary import keep_tensor
from .records import Event, TensorRecord
from .script_objects import _module_tables, script_modules, script_tensors


class ScriptRecorder:
    """Tracer part: the interpreter's and the bundled libraries' calls into the tracer."""

    __slots__ = ()


    def optimizer_step(self, optimizer: Any, begin: bool) -> None:
        step = self._stepping
        name = optimizer.cls.name if type(optimizer) is Instance else type(optimizer).__name__
        if begin:
            step[0] += 1
            if step[0] == 1:
                step[1], step[2], step[3] = name, 0, 0
                self._event("optimizer_step", optimizer=name, phase="begin")
            return
        step[0] -= 1
        if step[0] == 0:
            self._update = None
            self._event("optimizer_step", optimizer=step[1], phase="end", updated=step[2],
                        changed=step[3])

    def update_begin(self, param: Tensor, grad: Tensor | None, rule: str,
                     numbers: dict[str, Any]) -> None:
        self._update = {
            "param": param, "rule": rule, "grad": keep_tensor(grad),
            "numbers": {k: v.tolist() if isinstance(v, Tensor) else v
                        for k, v in numbers.items()},
            "before": self._value(param.array), "version_before": param._version}

    def update_end(self, param: Tensor) -> None:
        update, self._update = self._update, None
        if update is None or update["param"] is not param:
            return
        self._stepping[2] += 1
        self._event("param_update", tensor=self.tensor(param).id, optimizer=self._stepping[1],
                    rule=update["rule"], numbers=update["numbers"], grad=update["grad"],
                    before=update["before"], after=self._value(param.array),
                    version_before=update["version_before"], version=param._version)

    # -- what the script did to tensors outside the engine's ops ------------------
    #
    # The engine does not see a script call `detach()`, read `.grad` of a non-leaf, set
    # `requires_grad`, or catch an error. While attached, the tracer wraps four of the
    # interpreter's methods on the instance (restored on exit) and records:
    #
    # - ``method``: tensor, method (one of WATCHED_METHODS), result (tensor id or None),
    #   requires_grad_before, error ({"kind", "message"} or None).
    # - ``attr_read``: tensor, attr ("grad" or "data"), result (tensor id or None), is_leaf,
    #   retains_grad.
    # - ``attr_write``: tensor, attr ("grad" or "requires_grad"), value (tensor id, bool or
    #   None), error.
    # - ``caught``: kind, message of an error a script's `except` caught; its line is where
    #   the error was raised, `handler_line` the except clause's.

    WATCHED_METHODS = frozenset({"backward", "detach", "detach_", "requires_grad_",
                                 "retain_grad", "register_hook"})

    def call(self, invoke: Any, fn: Any, args: list[Any], kwargs: dict[str, Any],
             span: Any) -> Any:
        """The interpreter calls a function: record the autograd-relevant tensor methods."""
        if HOOKS.running or not (isinstance(fn, BoundMethod) and isinstance(fn.obj, Tensor)
                                 and fn.name in self.WATCHED_METHODS):
            before = len(self.tensors)
            result = invoke(fn, args, kwargs, span)
            if isinstance(result, Tensor) and self._scripted():
                self.tensor(result, span)
            if len(self.tensors) > before + 1:
                self._internal_records(before, result, span)
            return result
        tensor = fn.obj
        facts = {"tensor": self.tensor(tensor).id, "method": fn.name,
                 "requires_grad_before": tensor.requires_grad, "result": None,
                 "error": None}
        try:
            result = invoke(fn, args, kwargs, span)
        except GradtraceError as err:
            facts["error"] = {"kind": err.kind, "message": err.message}
            self._event("method", **facts)
            raise
        if isinstance(result, Tensor):
            facts["result"] = self.tensor(result, span).id
        facts["requires_grad_after"] = tensor.requires_grad
        if self.interpreter.in_library:
            facts["library"] = True
        self._event("method", **facts)
        return result

    def _internal_records(self, before: int, result: Any, span: Any) -> None:
        """The records the call just made under its own source text, other than its
        result: the intermediates of one torch call's ops (a script function's, a hook's
        or a library module's own tensors carry their own lines or the library's mark)."""
        where = self._span_text(span)
        returned = result if type(result) in (tuple, list) else (result,)
        records = self.tensors
        for rid in range(before + 1, len(records) + 1):
            record = records[rid]
            if not record.library and (record.line, record.expression) == where and \
                    not any(record.tensor is r for r in returned):
                record.internal = True

    def attribute_read(self, obj: Any, name: str, result: Any) -> None:
        if isinstance(obj, Tensor) and name in ("grad", "data"):
            self._event("attr_read", tensor=self.tensor(obj).id, attr=name,
                        result=self.tensor(result).id if isinstance(result, Tensor)
                        else None, is_leaf=obj.is_leaf, retains_grad=obj.retains_grad)
            if self.interpreter.in_library:
                self.events[-1].facts["library"] = True

    def attribute_write(self, assign: Any, obj: Any, name: str, value: Any) -> None:
        if not (isinstance(obj, Tensor) and name in ("grad", "requires_grad")):
            assign(obj, name, value)
            return
        shown = self.tensor(value).id if isinstance(value, Tensor) else (
            value if isinstance(value, bool) or value is None else repr(value))
        facts = {"tensor": self.tensor(obj).id, "attr": name, "value": shown, "error": None}
        if self.interpreter.in_library:
            facts["library"] = True
        try:
            assign(obj, name, value)
        except GradtraceError as err:
            facts["error"] = {"kind": err.kind, "message": err.message}
            self._event("attr_write", **facts)
            raise
        self._event("attr_write", **facts)

    def caught(self, err: Any, span: Any) -> None:
        """A script's `except` caught `err` (its line is where it was raised)."""
        line = err.span.line if err.span is not None else None
        self.events.append(Event("caught", line, {
            "kind": err.kind, "message": err.message,
            "handler_line": span.line if span is not None else None}))

    # -- nn.Module calls ------------------------------------------------------

    def module_call(self, module: Instance, invoke: Any, forward: Any, args: tuple,
                    kwargs: dict[str, Any]) -> Any:
        """`module`'s forward runs (nn.Module.__call__): what it records belongs to it.
        A `module_call` event says so (its `module` path is filled in when the run ends)."""
        self._event("module_call", type=type_name(module), depth=len(self._module_calls),
                    module=None)
        self._module_events.append((self.events[-1], module))
        self._module_calls.append(module)
        try:
            result = invoke(forward, args, kwargs, None)
        finally:
            self._module_calls.pop()
        if isinstance(result, Tensor) and not HOOKS.running:
            record = self.record_of(result)
            if record is not None and record.returned_by is None:
                arguments = tuple(self.tensor(a).id for a in args if isinstance(a, Tensor))
                record.returned_by = (None, arguments)
                self._module_outputs.append((record, module))
        return result

    def _name_modules(self) -> None:
        """Give records their module's path from a script name (`model.0`): what a module
        call recorded, and each parameter and buffer (and its AccumulateGrad node)."""
        modules = script_modules(named(self.interpreter.globals.vars))
        paths = {id(module): path for path, module in modules}
        nodes = {record.id: record for record in self.nodes.values()} \
            if self._node_modules else {}
        for records, found in ((self.tensors, self._tensor_modules),
                               (nodes, self._node_modules)):
            for rid, module in found.items():
                records[rid].module = paths.get(id(module))
        for event, module in self._module_events:
            event.facts["module"] = paths.get(id(module))
        for record, module in self._module_outputs:
            if record.returned_by is not None:
                record.returned_by = (paths.get(id(module)), record.returned_by[1])
        owners: dict[int, tuple[Tensor, str]] = {}
        for path, module in modules:
            for table in _module_tables(module)[:2]:  # type: ignore[index] (a module)
                for value in table.values():
                    if isinstance(value, Tensor):
                        owners.setdefault(id(value), (value, path))
        if owners:  # (a run without modules has nothing to look up per record)
            for record in self.tensors.values():
                owner = owners.get(id(record.tensor))
                if owner is not None and owner[0] is record.tensor:
                    record.module = owner[1]
        for record in self.nodes.values():
            if isinstance(record.node, AccumulateGrad) and record.outputs:
                record.module = self.tensors[record.outputs[0]].module

    # -- the end state -------------------------------------------------------

    def named_tensors(self) -> list[tuple[str, TensorRecord]]:
        """(name, tensor) for the tensors the script's top-level names hold at the end
        (`script_tensors`)."""
        out = []
        for name, value in script_tensors(named(self.interpreter.globals.vars)):
            record = self.tensor(value)
            if name not in record.names:
                record.names.append(name)
            out.append((name, record))
        return out

