"""The `view` page's own words, in English and Chinese (`--lang`).

The narration beside the graph is `explain`'s (its catalogs); these are the page's
labels and the one-line titles of the timeline's positions. Templates use `str.format`
fields; both languages define the same keys with the same fields (a test checks this).
"""
from __future__ import annotations

EN: dict[str, str] = {
    # the page around the graph
    "ui.source": "Source",
    "ui.step": "This step",
    "ui.narration": "What happened (explain)",
    "ui.facts": "Facts",
    "ui.facts.hint": "Click a box in the graph to see its facts, as in the JSON.",
    "ui.prev": "◀ Back",
    "ui.next": "Next ▶",
    "ui.keys": "← → step, Home/End, click a source line to jump to it",
    "ui.zoom_in": "Zoom in",
    "ui.zoom_out": "Zoom out",
    "ui.fit": "Fit",
    "ui.position": "{n} / {total}",
    "ui.told_before": "This line runs the same way each time; explain told it at its first "
                      "run:",
    "ui.no_narration": "explain says nothing more at this step.",
    "ui.collapse": "collapse",
    "ui.expand": "expand",
    "ui.module": "module {name}",
    "ui.layout.dot": "Layout: Graphviz dot, at build time.",
    "ui.layout.layered": "Layout: gradtrace's layered layout, drawn by Graphviz (the graph "
                         "is too large for dot to lay out quickly).",
    "ui.layout.builtin": "Graphviz was not found when this page was built: the graph uses "
                         "gradtrace's simpler built-in layout. Install Graphviz (apt-get "
                         "install graphviz, brew install graphviz) for a tidier one.",
    "ui.layout.failed": "Graphviz could not draw this graph ({error}): it uses gradtrace's "
                        "simpler built-in layout.",
    "ui.received": "grad_output {grad}",
    "ui.freed": "freed",
    # the timeline's positions
    "pos.start": "Start: nothing recorded yet from line {line} on",
    "pos.start.none": "Start",
    "pos.leaf": "line {line} · leaf {tensor} = {value} (requires_grad=True)",
    "pos.op": "line {line} · {expr}: recorded {node}, the grad_fn of {out}",
    "pos.op.hidden": "line {line} · {expr}: recorded {node} (not drawn here)",
    "pos.op.none": "line {line} · {expr}: nothing recorded (grad mode is off, or no input "
                   "requires grad)",
    "pos.inplace": "line {line} · {expr}: {tensor} changed in place, now version {version}",
    "pos.data": "line {line} · {tensor}.data written: no version bump, nothing recorded",
    "pos.backward": "line {line} · backward #{call} starts at {root} with gradient {grad}",
    "pos.step": "backward #{call} · step {step} of {steps} · {node} received {grad}",
    "pos.accumulate": "backward #{call} · step {step} of {steps} · {node}: {tensor}.grad "
                      "{before} → {after}",
    "pos.failed": "backward #{call} raised {kind}: {message}",
    "pos.caught": "line {line} · {kind} raised (and caught): {message}",
    "pos.error": "line {line} · the script stopped: {kind}: {message}",
    # the step card's facts
    "fact.next": "next_functions: {items}",
    "fact.saved": "saved: {items}",
    "fact.saved.item": "{name} = {tensor} (version {version})",
    "fact.received": "grad_output (what it received): {grad}",
    "fact.sent": "[{index}] → {target}: {grad}",
    "fact.sent.none": "[{index}] → None: nothing sent (that input needs no grad)",
    "fact.released": "Its saved tensors were freed after this step (retain_graph=False).",
    "fact.accumulated": "{tensor}.grad: {before} → {after}",
    "fact.stale": "{name} = {tensor} was saved at version {then}, now {now}: backward through "
                  "this node raises",
    "fact.silent": "{name} = {tensor} changed through .data at line {line}: no version bump, "
                   "backward will silently use the new values",
}

ZH: dict[str, str] = {
    "ui.source": "源代码",
    "ui.step": "这一步",
    "ui.narration": "发生了什么（explain）",
    "ui.facts": "详细信息",
    "ui.facts.hint": "点击图中的方框，查看它的详细信息（与 JSON 相同）。",
    "ui.prev": "◀ 上一步",
    "ui.next": "下一步 ▶",
    "ui.keys": "← → 逐步，Home/End 跳到首尾，点击源代码行可跳到该行",
    "ui.zoom_in": "放大",
    "ui.zoom_out": "缩小",
    "ui.fit": "适应窗口",
    "ui.position": "{n} / {total}",
    "ui.told_before": "这一行每次执行的方式相同；explain 在它第一次执行时的解释如下：",
    "ui.no_narration": "explain 在这一步没有更多说明。",
    "ui.collapse": "折叠",
    "ui.expand": "展开",
    "ui.module": "模块 {name}",
    "ui.layout.dot": "布局：构建页面时由 Graphviz dot 计算。",
    "ui.layout.layered": "布局：gradtrace 的分层布局，由 Graphviz 绘制"
                         "（图太大，dot 无法很快完成布局）。",
    "ui.layout.builtin": "构建此页面时没有找到 Graphviz：图使用 gradtrace 内置的简单布局。"
                         "安装 Graphviz（apt-get install graphviz 或 brew install graphviz）"
                         "可得到更整齐的布局。",
    "ui.layout.failed": "Graphviz 无法绘制这张图（{error}）：图使用 gradtrace 内置的简单布局。",
    "ui.received": "grad_output {grad}",
    "ui.freed": "已释放",
    "pos.start": "开始：从第 {line} 行起，还没有记录任何操作",
    "pos.start.none": "开始",
    "pos.leaf": "第 {line} 行 · 叶子张量 {tensor} = {value}（requires_grad=True）",
    "pos.op": "第 {line} 行 · {expr}：记录了 {node}，它是 {out} 的 grad_fn",
    "pos.op.hidden": "第 {line} 行 · {expr}：记录了 {node}（此处未画出）",
    "pos.op.none": "第 {line} 行 · {expr}：没有记录（梯度模式已关闭，或没有输入需要梯度）",
    "pos.inplace": "第 {line} 行 · {expr}：原地修改了 {tensor}，版本变为 {version}",
    "pos.data": "第 {line} 行 · 写入了 {tensor}.data：版本号不变，也没有记录",
    "pos.backward": "第 {line} 行 · 第 {call} 次反向传播从 {root} 开始，初始梯度为 {grad}",
    "pos.step": "第 {call} 次反向传播 · 第 {step}/{steps} 步 · {node} 收到 {grad}",
    "pos.accumulate": "第 {call} 次反向传播 · 第 {step}/{steps} 步 · {node}：{tensor}.grad "
                      "{before} → {after}",
    "pos.failed": "第 {call} 次反向传播出错 {kind}：{message}",
    "pos.caught": "第 {line} 行 · 抛出（并被捕获）{kind}：{message}",
    "pos.error": "第 {line} 行 · 脚本终止：{kind}：{message}",
    "fact.next": "next_functions：{items}",
    "fact.saved": "保存的张量：{items}",
    "fact.saved.item": "{name} = {tensor}（版本 {version}）",
    "fact.received": "grad_output（收到的梯度）：{grad}",
    "fact.sent": "[{index}] → {target}：{grad}",
    "fact.sent.none": "[{index}] → None：不传梯度（该输入不需要梯度）",
    "fact.released": "这一步之后，它保存的张量被释放了（retain_graph=False）。",
    "fact.accumulated": "{tensor}.grad：{before} → {after}",
    "fact.stale": "{name} = {tensor} 保存时是版本 {then}，现在是 {now}："
                  "经过这个节点的反向传播会报错",
    "fact.silent": "{name} = {tensor} 在第 {line} 行通过 .data 被修改："
                   "版本号不变，反向传播会悄悄使用新的值",
}

STRINGS = {"en": EN, "zh": ZH}


class Words:
    """The page's words in one language."""

    def __init__(self, lang: str):
        if lang not in STRINGS:
            raise ValueError(f"unknown language {lang!r} (choose from {', '.join(STRINGS)})")
        self.lang = lang
        self.table = STRINGS[lang]

    def __call__(self, key: str, /, **fields: object) -> str:
        return self.table[key].format(**fields)

    def ui(self) -> dict[str, str]:
        """The labels the page's script shows (the `ui.*` keys without the prefix; the
        layout notes are formatted here, see page_data's `layout_note`)."""
        return {k[3:]: v for k, v in self.table.items()
                if k.startswith("ui.") and not k.startswith("ui.layout.")}
