"""中文消息：`gradtrace explain --lang zh`（消息 id -> str.format 模板）。

术语与中文 PyTorch 教程一致：叶子节点、计算图、梯度、反向传播、版本计数器、原地操作、链式法则。
"""

MESSAGES: dict[str, str] = {
    # -- 版式 ----------------------------------------------------------------------------
    "section.statement": "第 {line} 行",
    "section.backward": "第 {line} 行 · 第 {n} 次反向传播",
    "section.more_steps": "…… 另有 {count} 步未列出（--statement {number} 可全部列出）。",
    "section.summary": "未列出的部分",
    "summary.repeats": "循环里的语句只讲前 {max} 次执行：第 {lines} 行语句后面的 {count} 次执行"
                       "只计数，不再逐一讲解。",
    "summary.budget": "讲解在大约 {budget} 行后停止：之后的 {count} 次语句执行（第 {first} 到第 "
                      "{last} 次，第 {first_line} 到第 {last_line} 行）没有讲解。",
    "summary.deadline": "讲解在第 {number} 次语句执行处停止（共 {count} 次）：讲完其余部分所需的"
                        "时间超过报告允许的时间（--timeout）。",
    "summary.how": "--full 讲解全部内容，--brief 每次语句执行只占一行，--statement N 或 --lines "
                   "A-B 完整讲解其中一部分。",
    "explain.none_selected": "没有语句执行符合你给出的 --statement 或 --lines。",
    "brief.recorded": "记录了 {nodes}",
    "brief.inplace": "原地修改了 {tensors}",
    "brief.updated": "{optimizer} 更新了 {tensors}",
    "brief.leaf": "创建了叶子节点 {tensors}",
    "brief.requires_grad": "{tensors} 现在需要梯度",
    "brief.backward": "运行了 {count} 个节点",
    "brief.grads": "{grads} 改变了",
    "brief.warnings": "⚠ {count} 条警告",
    "brief.error": "✗ {kind}",
    "explain.empty": "{script}：脚本没有用到任何张量，没有可解释的内容。",
    "list.sep": "、",
    "list.last": " 和 ",
    "list.more": "另外 {count} 个",
    "list.edges": "；",
    # -- 引用 ----------------------------------------------------------------------------
    "ref.node": "{out} 的 {node}（第 {line} 行）",
    "ref.node.backward": "{out} 的 {node}（由第 {call} 次反向传播生成，第 {line} 行）",
    "ref.accumulate": "{tensor} 的 AccumulateGrad",
    "ref.operand": "{tensor}（作为 {operand}）",
    # -- 数学片段 ------------------------------------------------------------------------
    "math.operand": "{label}（={value}）",
    "math.derivative": "∂{out}/∂{inp} = {formula}",
    "math.equals": "{left} = {value}",
    "math.after_hook": "{received}（经钩子改为 {grad}）",
    "math.pair": "{label}: {value}",
    "math.vjp": "{inp} 得到 {formula}",
    "math.undefined": "{inp} 得不到梯度（{node} 对它没有导数：反向传播会报错）",
    "saved.entry": "{attr} = {tensor}（值 {value}，版本 {version}）",
    "saved.entry.number": "{attr} = {tensor}",
    "saved.entry.own": "{attr} = {value}（该运算为反向传播自己算出，版本 {version}）",
    # -- 语句 ----------------------------------------------------------------------------
    "leaf.requires_grad": "{tensor} = {value} 是你创建的叶子节点，requires_grad=True：autograd "
                          "会记录所有用到它的运算，反向传播时把它的梯度存进 {tensor}.grad。",
    "leaf.parameter": "{tensor} = {value} 是 {module} 的参数（nn.Parameter：需要梯度的叶子节点）："
                      "autograd 会记录所有用到它的运算，反向传播时把它的梯度存进 {tensor}.grad。",
    "leaf.plain": "{tensor} = {value} 是不需要梯度的叶子节点（requires_grad=False）：只用到这类"
                  "张量的运算不会被记录，{tensor}.grad 始终是 None。",
    "bind.grad_result": "{tensor} = {value} 是 torch.autograd.grad 返回的梯度；它不需要梯度"
                        "（这次反向传播没有被记录）。",
    "bind.grad_result.graph": "{tensor} = {value} 是 torch.autograd.grad 返回的梯度。因为 "
                              "create_graph=True，它带有 grad_fn={node}，可以再次求导。",
    "bind.rebind": "这一行让名字 {name} 指向一个新张量。计算图里仍然保存着 {name} 从第 {since} "
                   "行起指向的那个张量，下文称之为 {old}。",
    "module.call": "{module}（{type}）运行它的 forward：它记录的运算都归在 {module} 之下，"
                   "位于这一行。",
    "module.call.inner": "在其中，{module}（{type}）运行它的 forward。",
    "module.call.unnamed": "一个 {type} 模块运行它的 forward。",
    "grad_mode.off": "梯度模式已关闭（torch.no_grad()）：运算不会被记录，结果也不需要梯度。",
    "grad_mode.forward.off": "{function}.apply 在梯度模式关闭的情况下运行 {function} 的 forward："
                             "其中的运算不会被记录；autograd 会为它的输出记录 {function}Backward，"
                             "反向传播时运行的是这个类定义的 backward。",
    "grad_mode.forward.on": "{function} 的 forward 已返回，梯度模式重新打开。",
    "grad_mode.on": "梯度模式重新打开：对需要梯度的张量的运算又会被记录。",
    "backward.function.ran": "{function}.backward 是脚本自己的代码，不是公式：它依次运行了这 "
                             "{count} 行：",
    "backward.function.line": "第 {at} 行 │ {code}{made}",
    "grad_mode.inference.off": "推理模式已打开（torch.inference_mode()）：梯度模式关闭，在这里"
                               "创建的每个张量都是推理张量：它没有版本计数器（读取 _version 会"
                               "报错），不能保存给反向传播，离开推理模式后也不能原地修改。",
    "grad_mode.inference.on": "推理模式结束：梯度模式重新打开，新建的张量又是普通张量。",
    "data.read": "{tensor}.data 与 {tensor} 共享存储，但 requires_grad=False，并且有自己的版本"
                 "计数器，所以通过它做的修改 autograd 看不到。",
    "data.write": "通过 {tensor}.data 写入会改变 {tensor} 的数值，但不会增加它的版本计数器，"
                  "也不会记录任何东西。",
    "op.tangent": "前向模式自动微分：{out} 带有切向量 {value}，即它沿对偶输入切向量的方向导数。",
    "op.unrecorded": "`{expr}`：没有输入需要梯度，autograd 什么也没记录：{out} = {value} 是"
                     "叶子节点，requires_grad=False，grad_fn=None。",
    "op.unrecorded.mode": "`{expr}` 在梯度模式关闭时执行，所以即使 {inputs} 需要梯度，也没有"
                          "记录任何东西：{out} = {value} 的 requires_grad=False，是叶子节点。",
    "op.recorded.one": "`{expr}`：{inputs} 需要梯度，所以 autograd 记录了 {node}，作为 {out} "
                       "的 grad_fn。",
    "op.recorded.many": "`{expr}`：{inputs} 都需要梯度，所以 autograd 记录了 {node}，作为 "
                        "{out} 的 grad_fn。",
    "next.accumulate": "next_functions[{index}] = (AccumulateGrad, 0)：{input} 是需要梯度的"
                       "叶子节点，它的梯度会交给 AccumulateGrad 节点，累加到 {input}.grad 中。",
    "next.accumulate.again": "next_functions[{index}] = (AccumulateGrad, 0)，对应叶子节点 "
                             "{input}。",
    "next.node": "next_functions[{index}] = ({node}, 0)：{input} 是由 {ref} 计算出来的，梯度"
                 "会继续传进这个节点。",
    "next.output": "next_functions[{index}] = ({node}, {output_nr})：{input} 是 {ref} 的第 "
                   "{output_nr} 个输出，它的梯度会作为该节点第 {output_nr} 个输出的梯度传进去。",
    "next.none": "next_functions[{index}] = (None, 0)：{input} 不需要梯度，所以 "
                 "next_functions 在它的位置上是 None，也不会为它计算梯度。",
    "next.number": "next_functions[{index}] = (None, 0)：{input} 只是一个 Python 数字，不会有"
                   "梯度传给它。",
    "op.saved": "{node} 保存了 {saved}：反向传播要用这些值计算局部导数 {derivatives}。",
    "op.saved.vjp": "{node} 保存了 {saved}：反向传播要用这些值计算梯度：{derivatives}。",
    "op.same_leaf": "{operands} 是同一个张量 {tensor}：反向传播经每一处各给 {tensor} 一份梯度，"
                    "{tensor} 的 AccumulateGrad 把它们相加。",
    "op.same_leaf.total": "{operands} 是同一个张量 {tensor}：反向传播经每一处各给 {tensor} 一份"
                          "梯度，{tensor} 的 AccumulateGrad 把它们相加：合起来 ∂{out}/∂{tensor} = "
                          "{total}。",
    "op.same_tensor": "{operands} 是同一个张量 {tensor}：反向传播经每一处各给 {tensor} 一份梯度，"
                      "引擎先把它们相加再往下传。",
    "op.same_tensor.total": "{operands} 是同一个张量 {tensor}：反向传播经每一处各给 {tensor} 一份"
                            "梯度，引擎先把它们相加再往下传：合起来 ∂{out}/∂{tensor} = {total}。",
    "op.saved.generic": "{node} 为反向传播保存了 {saved}。",
    "op.saved.packed": "在 saved_tensors_hooks 之内，{node} 保存 {saved} 时运行了 pack 钩子 "
                       "{pack_hook}（此时梯度模式关闭）：节点只保留钩子返回的东西，每次读取"
                       "（反向传播、grad_fn._saved_*）都调用 {unpack_hook} 取回张量。经过钩子时 "
                       "torch 不检查版本号。",
    "op.saved.nothing": "{node} 没有保存任何张量：{derivatives}，与具体数值无关。",
    "op.saved.skipped": "{attr} 是 None：它只在计算 {inputs} 的梯度时才需要，而 "
                        "{inputs} 不需要梯度。",
    "op.saved.skipped.number": "{attr} 是 None：它只在对数字 {inputs} 求梯度时才需要，"
                               "而数字不会得到梯度。",
    "result.nonleaf": "{tensor} = {value}：requires_grad=True，is_leaf=False，"
                      "grad_fn={node}。它不是叶子节点，反向传播不会填充 {tensor}.grad"
                      "（除非调用 {tensor}.retain_grad()）。",
    "result.nonleaf.again": "{tensor} = {value}：requires_grad=True，is_leaf=False，"
                            "grad_fn={node}。",
    "result.multi": "{outputs} 是同一个 {node} 节点的 {count} 个输出：它们的 grad_fn 都是这个"
                    "节点，用 output_nr 0 到 {last} 区分。",
    "inplace.recorded": "`{expr}` 原地修改了 {tensor}：版本计数器从 {before} 变为 {after}，"
                        "并记录 {node} 作为它新的 grad_fn。",
    "inplace.plain": "`{expr}` 原地修改了 {tensor}：版本计数器从 {before} 变为 {after}"
                     "（没有记录任何节点）。",
    "inplace.shared": "{tensor} 与 {others} 共享版本计数器（同一份数据的视图或 detach() 结果），"
                      "所以它们的 _version 也变成了 {version}。",
    "inplace.stale": "{node} 以 {attr} 保存了版本 {version} 的 {tensor}；现在它的版本是 "
                     "{now}，所以反向传播经过这个节点时会报 “modified by an inplace "
                     "operation” 错误。",
    "inplace.hazard": "隐患：{tensor} 与 {saved_tensor} 共享存储，而 {node} 以 {keys} 保存了 "
                      "{saved_tensor}，但两者不共享版本计数器。反向传播察觉不到这次修改，会悄悄"
                      "用新值计算，得到错误的梯度。",
    "inplace.hazard.result": "隐患：{tensor} 与 {saved_tensor} 共享存储，而 {node} 以 {keys} "
                             "保存了 {saved_tensor}，但两者不共享版本计数器。反向传播察觉不到"
                             "这次修改，会悄悄用新值计算：第 {line} 行的反向传播会得到 "
                             "{grads}。",
    "hazard.grad": "{tensor} = {actual}，而正确值应为 {expected}",
    "detach": "{result} = {tensor}.detach() 是一个新的叶子节点，requires_grad=False，与 "
              "{tensor} 共享数据和版本计数器：通过任意一方做的原地修改都会增加同一个 "
              "_version，所以反向传播仍然能发现。",
    "detach_": "{tensor}.detach_() 原地把 {tensor} 从计算图中切断：它现在是 "
               "requires_grad=False 的叶子节点。",
    "requires_grad.on": "{tensor}.requires_grad 现在是 True：{tensor} 是叶子节点，所以可以修改"
                        "这个标志；从现在起用到它的运算都会被记录。",
    "requires_grad.off": "{tensor}.requires_grad 现在是 False：用到它的运算不再被记录。",
    "requires_grad.same": "{tensor}.requires_grad 仍然是 {value}。",
    "retain_grad": "{tensor}.retain_grad()：{tensor} 不是叶子节点，但反向传播现在也会把它的"
                   "梯度存进 {tensor}.grad。",
    "retain_grad.leaf": "{tensor}.retain_grad() 没有任何效果：{tensor} 是叶子节点，本来就会"
                        "得到 .grad。",
    "hook.registered": "在 {tensor} 上注册了一个钩子：反向传播时会以 {tensor} 的梯度调用它；"
                       "如果它返回一个张量，就用这个张量替换梯度。",
    "grad.nonleaf": "{tensor} 不是叶子节点，所以 {tensor}.grad 是 None（torch 会给出警告）："
                    "反向传播只保存叶子节点的梯度。如果需要，在反向传播之前调用 "
                    "{tensor}.retain_grad()。",
    "grad.cleared": "{tensor}.grad = None 丢弃了累加的梯度；下一次反向传播会从 None 重新开始。",
    "optimizer.update": "{optimizer}.step() 按 {rule}（{numbers}）原地更新了 {tensor}，"
                        "其中 {tensor}.grad = {grad}：{before} → {after}（版本 {version_before} → "
                        "{version}；这一步在 no_grad 下运行，自动求导没有记录任何运算）。",
    "optimizer.update.recorded": "{optimizer}.step() 按 {rule}（{numbers}）原地更新了 "
                                 "{tensor}，其中 {tensor}.grad = {grad}：{before} → {after}"
                                 "（版本 {version_before} → {version}；differentiable=True，"
                                 "所以自动求导记录了这次更新）。",
    "optimizer.no_update": "{optimizer}.step() 没有修改任何参数：它们都没有梯度（.grad 为 None），"
                           "没有梯度的参数会被跳过。",
    "grad.cleared.library": "`{expr}` 把 {grads} 设为 None：累加的梯度被丢弃，"
                            "下一次反向传播会从 None 重新开始。",
    "grad.assigned": "{tensor}.grad 被直接赋值为 {value}。",
    # -- 反向传播 ------------------------------------------------------------------------
    "backward.start.scalar": "反向传播从 {root} 开始：它是单个数值，所以初始梯度是 1"
                             "（{root} 对自身的导数）。",
    "backward.start.given": "反向传播从 {root} 开始，使用传入的梯度 {grad}（形状 {shape}）："
                            "{root} 的每个元素都按它加权。",
    "backward.start.grad": "torch.autograd.grad 从 {root} 开始，初始梯度为 {grad}；它把梯度"
                           "作为返回值，而不是存进 .grad。",
    "backward.node": "{node} 收到梯度 {received}，按链式法则计算：{edges}。",
    "backward.node.end": "{node} 收到梯度 {received}；它的输入都不需要梯度。",
    "backward.function": "{node} 收到梯度 {received}，运行了你的类定义的 {function}.backward，"
                         "它返回：{edges}。",
    "backward.function.end": "{node} 收到梯度 {received}，运行了你的类定义的 {function}.backward；"
                             "它的输入都不需要梯度。",
    "backward.function.torch": "{node} 收到梯度 {received}，运行了 torch 自己用 Python 写的 "
                               "{function}.backward（{module}），它返回：{edges}。",
    "backward.function.torch.end": "{node} 收到梯度 {received}，运行了 torch 自己用 Python 写的 "
                                   "{function}.backward（{module}）；它的输入都不需要梯度。",
    "edge.formula": "→ {to}：{formula} = {value}",
    "edge.summed": "→ {to}：{formula}，再沿第 {dims} 维求和（{to} 从形状 {shape} 广播成了 "
                   "{out_shape}）= {value}",
    "edge.expanded": "→ {to}：对 {to} 的每个元素（形状 {shape}）都是 {formula} = {value}",
    "edge.plain": "→ {to}：{value}",
    "edge.nothing": "→ {to}：无（不需要）",
    "backward.accumulate.first": "{tensor} 的 AccumulateGrad 收到 {received}：{tensor}.grad "
                                 "原来是 None，现在是 {after}。",
    "backward.accumulate.add": "{tensor} 的 AccumulateGrad 收到 {received}：{tensor}.grad = "
                               "{before} + {grad} = {after}（梯度会一直累加，直到你把它清零）。",
    "backward.stale_value": "{node} 用到的 {tensor} = {now}，但保存时（第 {saved_line} 行）它是 "
                            "{then}。这次修改绕过了版本计数器，所以没有报错，这个梯度悄悄地算错"
                            "了。",
    "backward.retain_grad": "{tensor}.grad = {grad}，因为调用过 {tensor}.retain_grad() 而保留。",
    "backward.hook.replaced": "{tensor} 上的钩子收到 {grad}，返回了 {result}，用它替换了梯度。",
    "backward.hook.kept": "{tensor} 上的钩子收到 {grad}，返回 None，梯度保持不变。",
    "backward.create_graph": "create_graph=True：反向传播本身也被记录了（新增 {count} 个节点），"
                             "所以得到的梯度带有 grad_fn，可以再次求导。",
    "backward.freed": "retain_graph=False（默认）：{nodes} 保存的张量用完后已被释放。再经过它们"
                      "做一次反向传播会报错。",
    "backward.retained": "retain_graph=True：保存的张量被保留，可以在这个计算图上再做一次反向"
                         "传播。",
    "backward.returned": "梯度由 torch.autograd.grad 返回，没有修改任何 .grad。",
    "backward.failed": "反向传播因错误而中止（此前已执行的节点数：{after}）。",
    "backward.unreached": "{node} 没有被执行：它不在从 {root} 出发的任何路径上。",
    "backward.unreached_alike": "{node} 记录了 {count} 次，都没有被执行：它们都不在从 {root} "
                                "出发的任何路径上。",
    "backward.grad_none": "{tensor}.grad 仍然是 None：从 {root} 出发没有路径通向 {tensor}。",
    # -- 错误 ----------------------------------------------------------------------------
    "error.raised": "{kind}: {message}",
    "error.caught": "脚本的 except 子句（第 {handler_line} 行）捕获了这个错误，脚本继续执行。",
    "error.uncaught": "没有代码捕获这个错误，脚本在此终止（退出状态 1）。",
    "error.stopped": "脚本在此终止。",
    "error.version": "原因：{node} 以 {attr} 保存 {tensor} 时，它的版本是 "
                     "{saved_version}。随后第 {bump_line} 行的 `{bump}` 原地修改了 {tensor}，"
                     "版本变成了 {version}。反向传播会检查每个保存的张量的版本，拒绝使用被修改"
                     "过的值。",
    "error.version.shared": "原因：{node} 以 {attr} 保存 {tensor} 时，它的版本是 "
                            "{saved_version}。随后第 {bump_line} 行的 `{bump}` 原地修改了 "
                            "{through}；{through} 与 {tensor} 共享版本计数器，所以 {tensor} 的"
                            "版本变成了 {version}。反向传播会检查每个保存的张量的版本，拒绝使用"
                            "被修改过的值。",
    "error.version.nobump": "原因：{node} 以 {attr} 保存了版本 {saved_version} 的 "
                            "{tensor}，而它现在的版本是 {version}。",
    "error.version.unknown": "原因：某个节点为反向传播保存的张量在保存之后被原地修改了。",
    "error.version.fix": "修改方法：不要在反向传播之前原地修改 {tensor}；改用非原地写法"
                         "（例如用 `x = x + 1` 代替 `x += 1`），或者等反向传播之后再修改。",
    "error.freed": "原因：第 {first_line} 行的反向传播已经走过这个计算图，并释放了 {node} 保存的"
                   "张量（retain_graph 默认为 False）。修改方法：如果需要再做一次反向传播，给第一次"
                   "反向传播传入 retain_graph=True，或者重新执行一遍前向计算。",
    "error.freed.unknown": "原因：之前的一次反向传播已经释放了这个计算图保存的张量。给它传入 "
                           "retain_graph=True，或者重新执行前向计算。",
    "error.nonscalar": "原因：{tensor} 有 {numel} 个元素（形状 {shape}）。只有单个数值时，"
                       "backward() 才能自动把初始梯度设为 1。请传入 gradient=，即形状为 {shape} "
                       "的张量，为每个元素加权（向量-雅可比积中的那个向量），或者先归约成标量，"
                       "例如 {tensor}.sum().backward()。",
    "error.nonscalar.unknown": "原因：只有单个数值时，backward() 才能自动把初始梯度设为 1；"
                               "请为每个输出传入梯度。",
    "error.leaf_inplace": "原因：`{statement}` 原地修改了一个需要梯度的叶子节点，这会破坏 "
                          "autograd 需要的数值。请把这类更新放在 `with torch.no_grad():` 中"
                          "（优化器就是这样做的）。",
    "error.requires_grad_nonleaf": "原因：{tensor} 是由运算得到的（grad_fn={node}），只有叶子"
                                   "节点的 requires_grad 可以修改。需要一个不要求梯度的张量时，"
                                   "使用 {tensor}.detach()。",
    "error.int_requires_grad": "原因：只有浮点（和复数）张量才能要求梯度，整数没有梯度可言。"
                               "请使用浮点类型，例如 torch.tensor(1.0)。",
    "error.no_grad_fn": "原因：{tensor} 不需要梯度，也没有 grad_fn：计算它的输入都不需要梯度，"
                        "或者它是在 torch.no_grad() 中算出来的。请在计算之前给叶子节点设置 "
                        "requires_grad=True。",
    "error.retain_grad": "原因：{tensor} 不需要梯度，没有可保留的梯度。",
    "error.grad_input": "原因：torch.autograd.grad 被要求对一个不需要梯度的张量求梯度。",
    "error.unused_input": "原因：传给 torch.autograd.grad 的某个输入不在从输出出发的任何路径"
                          "上。传入 allow_unused=True 可以让它得到 None。",
    "hint.grad_none": "提示：在反向传播到达 {tensor} 之前，{tensor}.grad 是 None（非叶子节点的 "
                      ".grad 一直是 None，除非调用 {tensor}.retain_grad()）。先调用 backward，"
                      "或者写成 `if {tensor}.grad is not None: {tensor}.grad.{attr}()`。",
    "hint.planned": "提示：gradtrace 还不支持 {name}。README 的“The language”一节列出了已支持和"
                    "计划支持的功能（issue {issue}）。",
}

# No space next to full-width punctuation (the templates put spaces around Latin text).
TIDY: list[tuple[str, str]] = [
    (r" +([，。、；：！？）」])", r"\1"),
    (r"([，。、；：！？（「）]) +", r"\1"),
]
