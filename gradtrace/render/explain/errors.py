"""Telling an error: what was raised, why (from the trace), and what to do about it."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from ...engine.node import FREED_MESSAGE, reachable_nodes
from ...engine.tensor import NONLEAF_REQUIRES_GRAD, ONLY_FLOAT_GRAD
from ...errors import GtSyntaxError, LimitExceeded, NotSupportedError
from .. import hints
from .model import Step
from .numbers import fmt_shape
from .saved import saved_attr

if TYPE_CHECKING:
    from .story import Story

VERSION_MESSAGE = ("one of the variables needed for gradient computation has been modified "
                   "by an inplace operation")
LEAF_INPLACE = ("a leaf Variable that requires grad is being used in an in-place operation",
                "a view of a leaf Variable that requires grad")


class ErrorTeller:
    def __init__(self, story: Story):
        self.s = story

    def error(self, steps: list[Step], kind: str, message: str, line: int | None,
              events: list[tuple[int, Any]], handler_line: int | None = None,
              uncaught: bool = False) -> None:
        s = self.s
        s.say(steps, "error.raised", line, "error", kind=kind, message=message)
        self.cause(steps, kind, message, line, events)
        if uncaught:
            s.say(steps, "error.uncaught", line, "error")
        else:
            s.say(steps, "error.caught", line, "note", handler_line=handler_line)

    def failed_tensor(self, events: list[tuple[int, Any]], message: str) -> int | None:
        for _, ev in reversed(events):
            if ev.kind in ("method", "attr_write") and ev.facts.get("error") and \
                    ev.facts["error"]["message"] == message:
                return ev.facts["tensor"]
        return None

    def cause(self, steps: list[Step], kind: str, message: str, line: int | None,
              events: list[tuple[int, Any]]) -> None:
        s = self.s
        statement = s.source_of(s.stmt(line))
        if message.startswith(VERSION_MESSAGE):
            self.version_error(steps, message, line)
        elif message == FREED_MESSAGE:
            self.freed_error(steps, message, line)
        elif message.startswith("grad can be implicitly created only for scalar outputs"):
            tid = self.failed_tensor(events, message)
            if tid is not None:
                shape = s.tensors[tid].tensor.shape
                s.say(steps, "error.nonscalar", line, tensor=s.label(tid),
                      shape=fmt_shape(shape), numel=int(np.prod(shape)))
            else:
                s.say(steps, "error.nonscalar.unknown", line)
        elif message.startswith(LEAF_INPLACE):
            s.say(steps, "error.leaf_inplace", line, statement=statement)
        elif message == NONLEAF_REQUIRES_GRAD:
            tid = self.failed_tensor(events, message)
            record = s.tensors.get(tid) if tid is not None else None
            node = record.tensor.grad_fn.name() if record and record.tensor.grad_fn else "?"
            s.say(steps, "error.requires_grad_nonleaf", line, tensor=s.label(tid), node=node)
        elif message in (ONLY_FLOAT_GRAD,
                         "only Tensors of floating point dtype can require gradients"):
            s.say(steps, "error.int_requires_grad", line)
        elif re.match(r"element \d+ of tensors does not require grad", message):
            s.say(steps, "error.no_grad_fn", line,
                  tensor=s.label(self.failed_tensor(events, message)))
        elif message.startswith("can't retain_grad on Tensor that has requires_grad=False"):
            s.say(steps, "error.retain_grad", line,
                  tensor=s.label(self.failed_tensor(events, message)))
        elif message.startswith("One of the differentiated Tensors does not require grad"):
            s.say(steps, "error.grad_input", line)
        elif re.match(r"The differentiated Tensor at index \d+ appears to not have been used",
                      message):
            s.say(steps, "error.unused_input", line)

    def call_for_error(self, message: str, line: int | None) -> Any:
        s = self.s
        for call in reversed(s.trace.backward_calls if s.trace else []):
            if call.error_message == message and (line is None or s.stmt(call.line) ==
                                                  s.stmt(line)):
                return call
        return None

    def version_error(self, steps: list[Step], message: str, line: int | None) -> None:
        s = self.s
        call = self.call_for_error(message, line)
        stale = call.stale[0] if call is not None and call.stale else None
        if stale is None or stale.get("tensor") is None:
            s.say(steps, "error.version.unknown", line)
            return
        tid = stale["tensor"]
        record = s.nodes.get(stale["node"])
        counter = s.tensors[tid].counter
        bumps = [(ln, expr, t) for _, t, v, ln, expr in s.inplace_log
                 if s.tensors[t].counter == counter and stale["saved_version"] < v
                 <= stale["version"]]
        tensor = s.label(tid)
        fields = dict(node=record.name if record else "?", tensor=tensor, key=stale["saved"],
                      saved_version=stale["saved_version"], version=stale["version"])
        text = {"node": s.node_ref(record.id) if record else "?",
                "attr": saved_attr(record, stale["saved"])}
        if bumps:
            bump_line, bump_expr, bumped = bumps[0]
            fields.update(bump_line=bump_line, bump=bump_expr)
            if bumped != tid:
                fields["through"] = s.label(bumped)
                s.say(steps, "error.version.shared", line, text=text, **fields)
            else:
                s.say(steps, "error.version", line, text=text, **fields)
        else:
            s.say(steps, "error.version.nobump", line, text=text, **fields)
        s.say(steps, "error.version.fix", line, "note", tensor=tensor)

    def freed_error(self, steps: list[Step], message: str, line: int | None) -> None:
        s = self.s
        call = self.call_for_error(message, line)
        earlier = node_id = None
        if call is not None:
            reachable = self.reachable(call)
            for previous in s.trace.backward_calls[: call.index - 1]:
                node_id = next((st.node_id for st in previous.steps
                                if st.released and st.node_id in reachable), None)
                if node_id is not None:
                    earlier = previous
                    break
        if earlier is None:
            s.say(steps, "error.freed.unknown", line)
            return
        s.say(steps, "error.freed", line, first_line=earlier.line,
              node=s.nodes[node_id].name, text={"node": s.node_ref(node_id)})

    def reachable(self, call: Any) -> set[int]:
        s = self.s
        reached = reachable_nodes(s.nodes[n].node for n, _ in call.roots if n is not None)
        return {s.node_of[key].id for key in reached if key in s.node_of}

    def uncaught(self) -> tuple[int | None, list[Step]]:
        """The steps telling the error that ended the run, and its statement's line."""
        s = self.s
        err = s.result.error
        if err is None:
            return None, []
        line = err.span.line if err.span is not None else None
        steps: list[Step] = []
        s.at = {"error": True}
        if isinstance(err, (GtSyntaxError, NotSupportedError, LimitExceeded)) or \
                s.trace is None:
            s.say(steps, "error.raised", line, "error", kind=err.kind, message=err.message)
            self.hint(steps, err, line)
            s.say(steps, "error.stopped", line, "error")
        else:
            events = list(enumerate(s.trace.events))[-40:]
            self.error(steps, err.kind, err.message, line, events, uncaught=True)
            self.hint(steps, err, line, before=len(steps) - 1)
        return s.stmt(line), steps

    def hint(self, steps: list[Step], err: Any, line: int | None,
             before: int | None = None) -> None:
        """A hint for a common slip (render/hints.py), before the closing step."""
        found = hints.find(err, self.s.source)
        if found is None:
            return
        key, fields = found
        said: list[Step] = []
        self.s.say(said, key, line, "note", **fields)
        if before is None:
            steps.extend(said)
        else:
            steps[before:before] = said
