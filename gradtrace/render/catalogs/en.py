"""English messages for `gradtrace explain` (message id -> str.format template)."""

MESSAGES: dict[str, str] = {
    # -- layout -----------------------------------------------------------------------
    "section.statement": "line {line}",
    "section.backward": "line {line} · backward pass #{n}",
    "section.more_steps": "… {count} more steps not shown (--statement {number} shows them "
                          "all).",
    "section.summary": "not shown",
    "summary.repeats": "Statements in loops are told for their first {max} runs: {count} later "
                       "runs (of the statements on lines {lines}) are only counted.",
    "summary.budget": "The story stops after about {budget} lines: the {count} statement runs "
                      "after it (runs {first} to {last}, lines {first_line} to {last_line}) are "
                      "not told.",
    "summary.deadline": "The story stops at statement run {number} of {count}: telling the "
                        "rest would take longer than a report may (--timeout).",
    "summary.how": "--full tells everything, --brief gives one line per statement run, and "
                   "--statement N or --lines A-B tells one part in full.",
    "explain.none_selected": "No statement run matches the --statement or --lines you asked "
                             "for.",
    "brief.recorded": "records {nodes}",
    "brief.inplace": "changes {tensors} in place",
    "brief.updated": "{optimizer} updates {tensors}",
    "brief.leaf": "creates the leaf {tensors}",
    "brief.requires_grad": "{tensors} now requires grad",
    "brief.backward": "{count} nodes ran",
    "brief.grads": "{grads} changed",
    "brief.warnings": "⚠ {count} warning(s)",
    "brief.error": "✗ {kind}",
    "explain.empty": "{script}: nothing in this script touched a tensor, so there is nothing "
                     "to explain.",
    "list.sep": ", ",
    "list.last": " and ",
    "list.more": "{count} more",
    "list.edges": "; ",
    # -- references -------------------------------------------------------------------
    "ref.node": "{node} of {out} (line {line})",
    "ref.node.backward": "{node} of {out} (made by backward #{call}, line {line})",
    "ref.accumulate": "AccumulateGrad of {tensor}",
    "ref.operand": "{tensor} as {operand}",
    # -- math fragments ---------------------------------------------------------------
    "math.operand": "{label} (={value})",
    "math.derivative": "∂{out}/∂{inp} = {formula}",
    "math.equals": "{left} = {value}",
    "math.after_hook": "{received}, which a hook changed to {grad}",
    "math.pair": "{label}: {value}",
    "math.vjp": "{inp} gets {formula}",
    "math.undefined": "{inp} gets no gradient ({node} has no derivative for it: backward "
                      "raises)",
    "saved.entry": "{attr} = {tensor} ({value}, version {version})",
    "saved.entry.number": "{attr} = {tensor}",
    "saved.entry.own": "{attr} = {value} (the op made it for its backward, version "
                       "{version})",
    # -- statements -------------------------------------------------------------------
    "leaf.requires_grad": "{tensor} = {value} is a leaf tensor you created with "
                          "requires_grad=True: autograd will record every operation that uses "
                          "it, and backward will store its gradient in {tensor}.grad.",
    "leaf.parameter": "{tensor} = {value} is a parameter of {module} (an nn.Parameter: a leaf "
                      "that requires grad): autograd will record every operation that uses "
                      "it, and backward will store its gradient in {tensor}.grad.",
    "leaf.plain": "{tensor} = {value} is a leaf tensor that does not require grad "
                  "(requires_grad=False): operations that use only such tensors are not "
                  "recorded, and {tensor}.grad stays None.",
    "bind.grad_result": "{tensor} = {value} is a gradient returned by torch.autograd.grad; "
                        "it does not require grad (the backward was not recorded).",
    "bind.grad_result.graph": "{tensor} = {value} is a gradient returned by "
                              "torch.autograd.grad. Because of create_graph=True it has "
                              "grad_fn={node}, so it can be differentiated again.",
    "bind.rebind": "This line binds the name {name} to a new tensor. The graph still holds "
                   "the tensor {name} named since line {since}; from here on it is called "
                   "{old}.",
    "module.call": "{module} ({type}) runs its forward: what it records is filed under "
                   "{module}, at this line.",
    "module.call.inner": "Inside it, {module} ({type}) runs its forward.",
    "module.call.unnamed": "A {type} module runs its forward.",
    "grad_mode.off": "Grad mode is now off (torch.no_grad()): operations are not recorded and "
                     "their results do not require grad.",
    "grad_mode.forward.off": "{function}.apply runs {function}'s forward with grad mode off: "
                             "the operations inside it are not recorded; autograd records "
                             "{function}Backward for its outputs instead, and its backward is the "
                             "one the class defines.",
    "grad_mode.forward.on": "{function}'s forward returned, and grad mode is on again.",
    "grad_mode.on": "Grad mode is on again: operations on tensors that require grad are "
                    "recorded.",
    "backward.function.ran": "{function}.backward is the script's own code, not a formula: "
                             "it ran these {count} lines, in order:",
    "backward.function.line": "line {at} │ {code}{made}",
    "grad_mode.inference.off": "Inference mode is now on (torch.inference_mode()): grad mode is "
                               "off, and every tensor made here is an inference tensor: it has "
                               "no version counter (reading _version raises), it cannot be "
                               "saved for backward, and outside inference mode it cannot be "
                               "changed in place.",
    "grad_mode.inference.on": "Inference mode is over: grad mode is on again, and new tensors "
                              "are normal ones.",
    "data.read": "{tensor}.data is a tensor that shares {tensor}'s storage but has "
                 "requires_grad=False and its own version counter, so autograd does not see "
                 "changes made through it.",
    "data.write": "Writing through {tensor}.data changes the values of {tensor} without bumping "
                  "its version counter and without recording anything.",
    "op.unrecorded": "`{expr}`: no input requires grad, so autograd recorded nothing: {out} "
                     "= {value} is a leaf with requires_grad=False and grad_fn=None.",
    "op.unrecorded.mode": "`{expr}` ran with grad mode off, so nothing was recorded although "
                          "{inputs} requires grad: {out} = {value} has requires_grad=False and "
                          "is a leaf.",
    "op.tangent": "Forward-mode AD: {out} carries the tangent {value}, its directional "
                  "derivative along the dual inputs' tangents.",
    "op.recorded.one": "`{expr}`: {inputs} requires grad, so autograd recorded {node} as the "
                       "grad_fn of {out}.",
    "op.recorded.many": "`{expr}`: {inputs} require grad, so autograd recorded {node} as the "
                        "grad_fn of {out}.",
    "next.accumulate": "next_functions[{index}] = (AccumulateGrad, 0): {input} is a leaf that "
                       "requires grad, so the gradient for it goes to an AccumulateGrad node, "
                       "which adds it into {input}.grad.",
    "next.accumulate.again": "next_functions[{index}] = (AccumulateGrad, 0) for the leaf "
                             "{input}.",
    "next.node": "next_functions[{index}] = ({node}, 0): {input} was computed by {ref}, so "
                 "the gradient flows on into that node.",
    "next.output": "next_functions[{index}] = ({node}, {output_nr}): {input} is output "
                   "{output_nr} of {ref}, so its gradient arrives at that node as the gradient "
                   "of output {output_nr}.",
    "next.none": "next_functions[{index}] = (None, 0): {input} does not require grad, so "
                 "next_functions has None in its place and no gradient is computed for it.",
    "next.number": "next_functions[{index}] = (None, 0): {input} is a plain Python number, so "
                   "no gradient goes to it.",
    "op.saved": "{node} saved {saved}: backward needs the values for the local derivatives "
                "{derivatives}.",
    "op.saved.vjp": "{node} saved {saved}: backward needs the values for the gradients: "
                    "{derivatives}.",
    "op.same_leaf": "{operands} are the same tensor {tensor}: backward sends {tensor} a "
                    "gradient through each, and {tensor}'s AccumulateGrad adds them up.",
    "op.same_leaf.total": "{operands} are the same tensor {tensor}: backward sends {tensor} a "
                          "gradient through each, and {tensor}'s AccumulateGrad adds them up: "
                          "in total ∂{out}/∂{tensor} = {total}.",
    "op.same_tensor": "{operands} are the same tensor {tensor}: backward sends {tensor} a "
                      "gradient through each, and the engine adds them up before passing the "
                      "sum on.",
    "op.same_tensor.total": "{operands} are the same tensor {tensor}: backward sends {tensor} a "
                            "gradient through each, and the engine adds them up before passing "
                            "the sum on: in total ∂{out}/∂{tensor} = {total}.",
    "op.saved.generic": "{node} saved {saved} for its backward.",
    "op.saved.packed": "Inside saved_tensors_hooks, the pack hook {pack_hook} ran once on "
                       "each of {saved} when {node} saved it, with grad mode off: the node "
                       "keeps what the hook "
                       "returned, and every read (backward, grad_fn._saved_*) calls "
                       "{unpack_hook} to get a tensor back. torch checks no versions through "
                       "the hooks.",
    "op.saved.nothing": "{node} saved no tensors: {derivatives}, which does not depend on the "
                        "values.",
    "op.saved.skipped": "{attr} is None: it is only needed for the gradient of "
                        "{inputs}, which does not require grad.",
    "op.saved.skipped.number": "{attr} is None: it would only be needed for a gradient "
                               "with respect to the number {inputs}, and numbers get none.",
    "result.nonleaf": "{tensor} = {value}: requires_grad=True, is_leaf=False, grad_fn={node}. "
                      "It is not a leaf, so backward will not fill {tensor}.grad (unless you "
                      "call {tensor}.retain_grad()).",
    "result.nonleaf.again": "{tensor} = {value}: requires_grad=True, is_leaf=False, "
                            "grad_fn={node}.",
    "result.multi": "{outputs} are the {count} outputs of one {node} node: each has it as "
                    "grad_fn, and output_nr 0 to {last} tells them apart.",
    "inplace.recorded": "`{expr}` changed {tensor} in place: its version counter went from "
                        "{before} to {after}, and {node} was recorded as its new grad_fn.",
    "inplace.plain": "`{expr}` changed {tensor} in place: its version counter went from "
                     "{before} to {after} (nothing was recorded).",
    "inplace.shared": "{tensor} shares its version counter with {others} (views or detach() "
                      "of the same data), so their _version is {version} too.",
    "inplace.stale": "{node} saved {tensor} as {attr} at version {version}; it is now at "
                     "version {now}, so a backward through that node will raise the "
                     "\"modified by an inplace operation\" error.",
    "inplace.hazard": "Hazard: {tensor} shares storage with {saved_tensor}, which {node} saved "
                      "as {keys}, but not its version counter. Backward cannot notice this "
                      "change and will silently use the new values, so the gradient will be "
                      "wrong.",
    "inplace.hazard.result": "Hazard: {tensor} shares storage with {saved_tensor}, which {node} "
                             "saved as {keys}, but not its version counter. Backward cannot "
                             "notice this change and will silently use the new values: the "
                             "backward on line {line} gives {grads}.",
    "hazard.grad": "{tensor} = {actual} instead of {expected}",
    "detach": "{result} = {tensor}.detach() is a new leaf with requires_grad=False that shares "
              "{tensor}'s data and its version counter: in-place changes through either one "
              "bump the same _version, so backward still notices them.",
    "detach_": "{tensor}.detach_() cut {tensor} out of the graph in place: it is now a leaf "
               "with requires_grad=False.",
    "requires_grad.on": "{tensor}.requires_grad is now True: {tensor} is a leaf, so the flag "
                        "can change, and operations that use it from now on are recorded.",
    "requires_grad.off": "{tensor}.requires_grad is now False: operations that use it are no "
                         "longer recorded.",
    "requires_grad.same": "{tensor}.requires_grad stays {value}.",
    "retain_grad": "{tensor}.retain_grad(): {tensor} is not a leaf, but backward will now also "
                   "store its gradient in {tensor}.grad.",
    "retain_grad.leaf": "{tensor}.retain_grad() changes nothing: {tensor} is a leaf, and "
                        "leaves get their .grad anyway.",
    "hook.registered": "A hook was registered on {tensor}: during backward it is called with "
                       "the gradient of {tensor}; if it returns a tensor, that replaces the "
                       "gradient.",
    "grad.nonleaf": "{tensor} is not a leaf, so {tensor}.grad is None (torch warns about it): "
                    "backward only stores gradients of leaves. Call {tensor}.retain_grad() "
                    "before backward to keep it.",
    "grad.cleared": "{tensor}.grad = None drops the accumulated gradient; the next backward "
                    "starts from None again.",
    "optimizer.update": "{optimizer}.step() updated {tensor} in place by {rule} ({numbers}), "
                        "with {tensor}.grad = {grad}: {before} → {after} (version "
                        "{version_before} → {version}; the step runs under no_grad, so "
                        "autograd recorded nothing).",
    "optimizer.update.recorded": "{optimizer}.step() updated {tensor} in place by {rule} "
                                 "({numbers}), with {tensor}.grad = {grad}: {before} → "
                                 "{after} (version {version_before} → {version}; "
                                 "differentiable=True, so autograd recorded the update).",
    "optimizer.no_update": "{optimizer}.step() changed no parameter: none of them has a "
                           "gradient (.grad is None), and a parameter without one is skipped.",
    "grad.cleared.library": "`{expr}` set {grads} to None: the accumulated gradients are "
                            "dropped, and the next backward starts from None again.",
    "grad.assigned": "{tensor}.grad was set to {value} by assignment.",
    # -- backward ----------------------------------------------------------------------
    "backward.start.scalar": "Backward starts at {root}: it is a single value, so the starting "
                             "gradient is 1 (the derivative of {root} with respect to itself).",
    "backward.start.given": "Backward starts at {root} with the given gradient {grad} (shape "
                            "{shape}): each element of {root} is weighted by it.",
    "backward.start.grad": "torch.autograd.grad starts at {root} with gradient {grad}; it "
                           "returns the gradients instead of storing them in .grad.",
    "backward.node": "{node} received {received} and applied the chain rule: {edges}.",
    "backward.node.end": "{node} received {received}; none of its inputs needs a gradient.",
    "backward.function": "{node} received {received} and ran {function}.backward, the backward "
                         "your class defines; it returned: {edges}.",
    "backward.function.end": "{node} received {received} and ran {function}.backward, the "
                             "backward your class defines; none of its inputs needs a gradient.",
    "backward.function.torch": "{node} received {received} and ran {function}.backward, torch's "
                               "own backward written in Python ({module}); it returned: {edges}.",
    "backward.function.torch.end": "{node} received {received} and ran {function}.backward, "
                                   "torch's own backward written in Python ({module}); none of "
                                   "its inputs needs a gradient.",
    "edge.formula": "→ {to}: {formula} = {value}",
    "edge.summed": "→ {to}: {formula}, summed over dim {dims} ({to} was broadcast from "
                   "{shape} to {out_shape}) = {value}",
    "edge.expanded": "→ {to}: {formula} at each element of {to} (shape {shape}) = {value}",
    "edge.plain": "→ {to}: {value}",
    "edge.nothing": "→ {to}: nothing (not needed)",
    "backward.accumulate.first": "{tensor}'s AccumulateGrad received {received}: {tensor}.grad "
                                 "was None, so it is now {after}.",
    "backward.accumulate.add": "{tensor}'s AccumulateGrad received {received}: {tensor}.grad = "
                               "{before} + {grad} = {after} (gradients add up until you zero "
                               "them).",
    "backward.stale_value": "{node} used {tensor} = {now}, but it was {then} when it was saved "
                            "(line {saved_line}). The change bypassed the version counter, so "
                            "no error is raised and this gradient is silently wrong.",
    "backward.retain_grad": "{tensor}.grad = {grad}, kept because of {tensor}.retain_grad().",
    "backward.hook.replaced": "The hook on {tensor} received {grad} and returned {result}, "
                              "which replaces the gradient.",
    "backward.hook.kept": "The hook on {tensor} received {grad} and returned None, so the "
                          "gradient is unchanged.",
    "backward.create_graph": "create_graph=True: the backward computation itself was recorded "
                             "({count} new nodes), so the gradients have a grad_fn and can be "
                             "differentiated again.",
    "backward.freed": "retain_graph=False (the default): the saved tensors of {nodes} were "
                      "freed after use. Another backward through them would raise an error.",
    "backward.retained": "retain_graph=True: the saved tensors were kept, so backward can run "
                         "through this graph again.",
    "backward.returned": "The gradients were returned by torch.autograd.grad; no .grad was "
                         "changed.",
    "backward.failed": "Backward stopped with an error (nodes that ran before it: {after}).",
    "backward.unreached": "{node} was not reached: it is not on any path from {root}, so it "
                          "did not run.",
    "backward.unreached_alike": "{node}, recorded {count} times, was not reached: none of "
                                "them is on a path from {root}, so they did not run.",
    "backward.grad_none": "{tensor}.grad stays None: no path from {root} leads to {tensor}.",
    # -- errors ------------------------------------------------------------------------
    "error.raised": "{kind}: {message}",
    "error.caught": "The script's except clause (line {handler_line}) caught the error, so the "
                    "script went on.",
    "error.uncaught": "Nothing caught the error, so the script stops here (exit status 1).",
    "error.stopped": "The script stops here.",
    "error.version": "Why: {node} saved {tensor} as {attr} when it was at version "
                     "{saved_version}. Then `{bump}` on line {bump_line} changed {tensor} in "
                     "place, so it is at version {version}. Backward checks the version of "
                     "every saved tensor and refuses to use a changed one.",
    "error.version.shared": "Why: {node} saved {tensor} as {attr} when it was at version "
                            "{saved_version}. Then `{bump}` on line {bump_line} changed "
                            "{through} in place; {through} shares its version counter with "
                            "{tensor}, so {tensor} is at version {version}. Backward checks "
                            "the version of every saved tensor and refuses to use a changed "
                            "one.",
    "error.version.nobump": "Why: {node} saved {tensor} as {attr} at version "
                            "{saved_version}, and it is now at version {version}.",
    "error.version.unknown": "Why: a tensor that a node saved for backward was changed in "
                             "place after it was saved.",
    "error.version.fix": "Fix: do not change {tensor} in place before backward; write an "
                         "out-of-place version (e.g. `x = x + 1` instead of `x += 1`), or "
                         "change it after backward.",
    "error.freed": "Why: the backward on line {first_line} already went through this graph and "
                   "freed the saved tensors of {node} (retain_graph is False by default). Fix: "
                   "pass retain_graph=True to that first backward if you need another one, or "
                   "recompute the forward pass.",
    "error.freed.unknown": "Why: an earlier backward freed the saved tensors of this graph. "
                           "Pass retain_graph=True to it, or recompute the forward pass.",
    "error.nonscalar": "Why: {tensor} has {numel} elements (shape {shape}). backward() can only "
                       "create the starting gradient 1 by itself for a single value. Pass "
                       "gradient=, a tensor of shape {shape} that weights each element (the "
                       "vector in a vector-Jacobian product), or reduce first, e.g. "
                       "{tensor}.sum().backward().",
    "error.nonscalar.unknown": "Why: backward() can only create the starting gradient 1 by "
                               "itself for a single value; pass a gradient for each output.",
    "error.leaf_inplace": "Why: `{statement}` changes a leaf that requires grad in place, which "
                          "would destroy the values autograd needs. Make such updates inside "
                          "`with torch.no_grad():` (as optimizers do).",
    "error.requires_grad_nonleaf": "Why: {tensor} was computed by an operation (grad_fn={node}); "
                                   "only a leaf's requires_grad can be changed. Use "
                                   "{tensor}.detach() for a tensor that does not require grad.",
    "error.int_requires_grad": "Why: only floating point (and complex) tensors can require "
                               "grad; gradients of integer values are not defined. Use a float "
                               "dtype, e.g. torch.tensor(1.0).",
    "error.no_grad_fn": "Why: {tensor} does not require grad and has no grad_fn: nothing it "
                        "came from required grad, or it was computed under torch.no_grad(). "
                        "Set requires_grad=True on the leaves before computing it.",
    "error.retain_grad": "Why: {tensor} does not require grad, so there is no gradient to "
                         "retain.",
    "error.grad_input": "Why: torch.autograd.grad was asked for the gradient of a tensor that "
                        "does not require grad.",
    "hint.grad_none": "Hint: {tensor}.grad is None until a backward pass reaches {tensor} "
                      "(and a non-leaf's stays None unless you call {tensor}.retain_grad()). "
                      "Call backward first, or write `if {tensor}.grad is not None: "
                      "{tensor}.grad.{attr}()`.",
    "hint.planned": "Hint: {name} is not supported yet. The README's \"The language\" section "
                    "lists what is supported and what is planned (issue {issue}).",
    "error.unused_input": "Why: one of the inputs given to torch.autograd.grad is not on any "
                          "path from the outputs. Pass allow_unused=True to get None for it.",
}

# A value torch prints with a trailing point (`12.`) ends the sentence with that point.
TIDY: list[tuple[str, str]] = [(r"(\d)\.\.(?=\s|$)", r"\1.")]
