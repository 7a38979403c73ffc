"""`gradtrace explain`: the story of a run, derived from the engine's trace, in en and zh.

Golden files live in tests/golden/explain/<script>.<lang>.txt, rendered at a fixed width
without colour. Regenerate them (after checking the change is right) with
GRADTRACE_UPDATE_GOLDEN=1 pytest tests/test_explain.py.
"""
from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console

from gradtrace.render import explain as ex
from gradtrace.render.catalogs import CATALOGS, TIDY, Catalog, fields
from gradtrace.render.explain.derivation import replay_call
from gradtrace.runner import load_source, run_source, run_text
from gradtrace.summary import Summary

HERE = Path(__file__).parent
ROOT = HERE.parent
GOLDEN = HERE / "golden" / "explain"
HINTS_SOURCE = ROOT / "gradtrace" / "render" / "hints.py"
SAMPLES = sorted((ROOT / "samples").glob("*.gt"))
CASES = sorted((HERE / "conformance").glob("*.gt"))
REALWORLD = sorted((HERE / "conformance_realworld").glob("*.gt"))[5::10]
WIDTH = 100
UPDATE = os.environ.get("GRADTRACE_UPDATE_GOLDEN") == "1"

GOLDEN_SCRIPTS = {
    "02_mul_requires_grad": ROOT / "samples" / "02_mul_requires_grad.gt",
    "03_chain_two_muls": ROOT / "samples" / "03_chain_two_muls.gt",
    "04_version_counter": ROOT / "samples" / "04_version_counter.gt",
    "05_unbind": ROOT / "samples" / "05_unbind.gt",
    "11_branch_only_f": ROOT / "samples" / "11_branch_only_f.gt",
    "12_data_mutation": ROOT / "samples" / "12_data_mutation.gt",
    "version_uncaught": GOLDEN / "version_uncaught.gt",
    "backward_twice": GOLDEN / "backward_twice.gt",
    # issue 14: names (items 1, 7), per-operand math (4), broadcasting (5), formulas (6)
    "alias_rebind": GOLDEN / "alias_rebind.gt",
    "14_rebind_name": ROOT / "samples" / "14_rebind_name.gt",
    "mul_self": GOLDEN / "mul_self.gt",
    "broadcast_add": GOLDEN / "broadcast_add.gt",
    "pow_tensor": GOLDEN / "pow_tensor.gt",
    "hook_create_graph": HERE / "golden" / "hook_create_graph.gt",
    # the nn ops' formulas: transposed convolution, max-pool routing, normalization,
    # sort/topk scattering back, index_add_, reflect padding; tensors only a node saved
    "conv_pool_loss": GOLDEN / "conv_pool_loss.gt",
    "layer_norm": GOLDEN / "layer_norm.gt",
    "sort_index_add_pad": GOLDEN / "sort_index_add_pad.gt",
    # issue 12: a custom Function's backward told as the script's own lines running;
    # saved tensors packed by saved_tensors_hooks and inference mode
    "custom_function_backward": GOLDEN / "custom_function_backward.gt",
    "saved_hooks_inference": GOLDEN / "saved_hooks_inference.gt",
}


def run(path: Path):
    return run_source(load_source(str(path)), trace=True)


def explained(path: Path, lang: str = "en") -> ex.Explanation:
    return ex.explain(run(path), lang)


def steps_of(explanation: ex.Explanation, kind: str) -> list[ex.Step]:
    return [s for s in explanation.steps if s.kind == kind]


# ---------------------------------------------------------------- golden explanations


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", list(GOLDEN_SCRIPTS))
def test_golden_explanation(name: str, lang: str):
    text = ex.render_text(explained(GOLDEN_SCRIPTS[name], lang), WIDTH)
    golden = GOLDEN / f"{name}.{lang}.txt"
    if UPDATE or not golden.exists():
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_golden_text_is_plain_and_fits_the_width():
    for golden in GOLDEN.glob("*.txt"):
        text = golden.read_text(encoding="utf-8")
        assert "\x1b[" not in text
        for line in text.splitlines():
            assert cell_len(line) <= WIDTH, (golden.name, line)


# ---------------------------------------------------------------- every script, both languages


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("script", SAMPLES + CASES,
                         ids=[p.stem for p in SAMPLES] + [f"conf-{p.stem}" for p in CASES])
def test_every_script_explains_in_both_languages(script: Path, lang: str):
    assert_explains(script, lang)


@pytest.mark.parametrize("script", REALWORLD, ids=[p.stem for p in REALWORLD])
def test_real_world_scripts_explain(script: Path):
    """Real code (modules, optimizers, custom Functions, data loaders) must be explained,
    not only run: one case in ten of the real-world corpus, in English."""
    assert_explains(script, "en")


def assert_explains(script: Path, lang: str) -> None:
    """The story renders, its JSON validates, and each sentence points into the trace."""
    result = run(script)
    explanation = ex.explain(result, lang)
    text = ex.render_text(explanation, 80)
    assert text.strip()  # scripts that touch no tensor get a one-line note
    document = ex.to_json(explanation)
    json.dumps(document, allow_nan=False, ensure_ascii=False)
    trace = result.trace
    for section in document["sections"]:
        for step in section["steps"]:
            assert set(step) == {"kind", "line", "tone", "at", "facts", "text"}
            assert step["kind"] in CATALOGS[lang]
            assert step["text"]
            at = step["at"]  # what the sentence tells about (the view page's timeline)
            if at is None or "error" in at:
                continue
            if "event" in at:
                assert 0 <= at["event"] < len(trace.events)
            else:
                call = trace.backward_calls[at["call"] - 1]
                assert 0 <= at["step"] <= len(call.steps) + 1


def test_english_and_chinese_say_the_same_steps():
    for script in SAMPLES:
        en, zh = explained(script, "en"), explained(script, "zh")
        assert [(s.kind, s.line, s.facts) for s in en.steps] == \
               [(s.kind, s.line, s.facts) for s in zh.steps], script.name
        assert [s.text for s in en.steps] != [s.text for s in zh.steps]


# ---------------------------------------------------------------- catalogs


def test_catalogs_define_the_same_messages_with_the_same_fields():
    en, zh = CATALOGS["en"], CATALOGS["zh"]
    assert set(en) == set(zh)
    for key in en:
        assert fields(en[key]) == fields(zh[key]), key


def test_chinese_catalog_is_chinese():
    cjk = re.compile(r"[\u4e00-\u9fff]")
    untranslated = [k for k, v in CATALOGS["zh"].items()
                    if not cjk.search(v) and CATALOGS["en"][k] == v
                    and re.search(r"[a-z]{4,} [a-z]{3,}", v)]
    # only formulas and names may be shared, never English sentences
    assert untranslated == []
    english = re.compile(r"[A-Za-z]+ [a-z]+ [a-z]+")
    sentences = [k for k, v in CATALOGS["en"].items()
                 if english.search(re.sub(r"{\w+}", "", v))]
    assert all(cjk.search(CATALOGS["zh"][k]) for k in sentences)


EXPLAINER_SOURCES = sorted(Path(ex.__file__).parent.glob("*.py"))


def test_the_explainer_has_no_language_branches():
    for path in EXPLAINER_SOURCES:
        source = path.read_text(encoding="utf-8")
        assert '"zh"' not in source and "'zh'" not in source, path.name
        assert "lang ==" not in source, path.name


def test_every_message_the_explainer_names_exists():
    named: set[str] = set()
    for path in EXPLAINER_SOURCES + [HINTS_SOURCE]:
        named |= set(re.findall(r'"((?:[a-z_]+\.)+[a-z_]+)"', path.read_text(encoding="utf-8")))
    ids = {n for n in named if n.split(".")[0] in {
        "section", "leaf", "bind", "grad_mode", "data", "op", "next", "result", "inplace",
        "hazard", "detach", "requires_grad", "retain_grad", "hook", "grad", "backward",
        "edge", "error", "math", "saved", "ref", "list", "explain", "brief", "summary"}}
    assert len(ids) > 100
    missing = ids - set(CATALOGS["en"])
    assert not missing


def test_chinese_typography_has_no_space_beside_full_width_punctuation():
    text = ex.render_text(explained(ROOT / "samples" / "12_data_mutation.gt", "zh"), 200)
    assert not re.search(r" [，。、；：）]|[（，。、；：] ", text)
    assert TIDY["en"] == [(r"(\d)\.\.(?=\s|$)", r"\1.")]  # `12..` at the end of a sentence


def test_unknown_language_is_refused():
    with pytest.raises(ValueError, match="unknown language"):
        Catalog("fr")


# ---------------------------------------------------------------- what is said, from the trace


def test_mul_saved_value_and_local_derivative_come_from_the_engine():
    e = explained(ROOT / "samples" / "02_mul_requires_grad.gt")
    saved = steps_of(e, "op.saved")[0]
    assert saved.facts["saved"] == [{"key": "other", "tensor": "b", "value": 3.0,
                                     "version": 0, "is_output": False}]
    assert "∂c/∂a = b = 3." in saved.text
    none = steps_of(e, "next.none")[0]
    assert none.facts == {"index": 1, "input": "b"}
    assert "b does not require grad, so next_functions has None in its place" in none.text
    node = steps_of(e, "backward.node")[0]
    assert node.facts["sent"] == [{"to": "a", "grad": 3.0}]
    assert "→ a: 1. × b (=3.) = 3." in node.text


def test_chain_rule_numbers():
    e = explained(ROOT / "samples" / "03_chain_two_muls.gt")
    accumulated = {s.facts["tensor"]: s.facts["after"]
                   for s in steps_of(e, "backward.accumulate.first")}
    assert accumulated == {"a": 12.0, "b": 8.0, "d": 6.0}
    texts = [s.text for s in steps_of(e, "backward.node")]
    assert any("→ c: 1. × d (=4.) = 4." in t for t in texts)
    assert any("→ a: 4. × b (=3.) = 12." in t for t in texts)


def test_unbind_outputs_and_stacking():
    e = explained(ROOT / "samples" / "05_unbind.gt")
    multi = steps_of(e, "result.multi")[0]
    assert multi.facts["outputs"] == ["b", "c", "d"] and multi.facts["count"] == 3
    outputs = [s.facts for s in steps_of(e, "next.output")]
    assert {(f["input"], f["output_nr"]) for f in outputs} == {("b", 0), ("c", 1), ("d", 2)}
    stack = [s for s in steps_of(e, "backward.node") if s.facts["node"] == "UnbindBackward0"][0]
    assert stack.facts["received"] == [3.0, 6.0, 2.0]
    assert stack.facts["sent"] == [{"to": "a", "grad": [3.0, 6.0, 2.0]}]


def test_version_error_names_the_bumping_line_and_the_saving_node():
    e = explained(ROOT / "samples" / "04_version_counter.gt")
    bump = steps_of(e, "inplace.recorded")[0]
    assert (bump.line, bump.facts["before"], bump.facts["after"]) == (11, 0, 1)
    stale = steps_of(e, "inplace.stale")[0]
    assert stale.facts == {"node": "MulBackward0", "tensor": "c", "key": "self", "version": 0,
                           "now": 1}
    cause = steps_of(e, "error.version")[0]
    assert cause.facts["bump_line"] == 11 and cause.facts["bump"] == "c += 1"
    assert cause.facts["saved_version"] == 0 and cause.facts["version"] == 1
    assert "(line 10)" in cause.text  # the node that saved c: e = c * d
    assert steps_of(e, "error.caught")[0].facts["handler_line"] == 16


def test_uncaught_version_error_stops_the_script():
    e = explained(GOLDEN / "version_uncaught.gt")
    assert e.exit_code == 1
    assert steps_of(e, "error.uncaught")
    assert steps_of(e, "error.version")[0].facts["bump_line"] == 9


def test_version_bump_through_a_detached_tensor():
    e = explained(ROOT / "samples" / "13_detach_mutation_error.gt")
    cause = steps_of(e, "error.version.shared")[0]
    assert cause.facts["through"] == "xx" and cause.facts["tensor"] == "x"
    assert steps_of(e, "detach")[0].facts == {"tensor": "x", "result": "xx"}


def test_second_backward_points_at_the_first_one():
    e = explained(GOLDEN / "backward_twice.gt")
    freed = steps_of(e, "error.freed")[0]
    assert freed.facts["first_line"] == 7 and freed.line == 10
    assert "retain_graph=True" in freed.text
    assert steps_of(e, "backward.retained")


def test_data_hazard_says_800_instead_of_8():
    e = explained(ROOT / "samples" / "12_data_mutation.gt")
    hazard = steps_of(e, "inplace.hazard.result")[0]
    assert hazard.line == 10 and hazard.tone == "warn"
    assert hazard.facts["actual"] == {"x.grad": [800.0]}
    assert hazard.facts["expected"] == {"x.grad": [8.0]}
    assert "x.grad = [800.] instead of [8.]" in hazard.text
    used = steps_of(e, "backward.stale_value")[0]
    assert used.facts["now"] == [100.0] and used.facts["then"] == [1.0]


def test_branch_not_reached_and_grad_stays_none():
    e = explained(ROOT / "samples" / "11_branch_only_f.gt")
    unreached = steps_of(e, "backward.unreached")
    assert [(s.facts["node"], s.facts["node_line"]) for s in unreached] == [("MulBackward0", 11)]
    assert "g (line 11)" in unreached[0].text
    assert [s.facts["tensor"] for s in steps_of(e, "backward.grad_none")] == ["e"]


def test_the_same_node_left_unreached_many_times_is_one_sentence_with_its_count(tmp_path):
    # (gradcheck's forward calls leave thousands of such nodes: one line each drowned the story)
    script = tmp_path / "unreached.gt"
    script.write_text("import torch\n"
                      "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                      "for i in range(4):\n"
                      "    y = x * 2\n"
                      "w = x.exp()\n"
                      "z = (x * 3).sum()\n"
                      "z.backward()\n")
    for lang, words in (("en", "recorded 3 times"), ("zh", "记录了 3 次")):
        e = explained(script, lang)
        alike = steps_of(e, "backward.unreached_alike")
        assert [(s.facts["node"], s.facts["node_line"], s.facts["count"]) for s in alike] == [
            ("MulBackward0", 4, 3)]
        assert words in alike[0].text and "y@4" in alike[0].text
        single = steps_of(e, "backward.unreached")
        assert [(s.facts["node"], s.facts["node_line"]) for s in single] == [
            ("MulBackward0", 4), ("ExpBackward0", 5)]


def test_nonscalar_backward_names_the_gradient_argument():
    e = explained(ROOT / "samples" / "09_nonscalar_backward.gt")
    cause = steps_of(e, "error.nonscalar")[0]
    assert cause.facts == {"tensor": "y", "shape": "[3]", "numel": 3}
    assert "gradient=" in cause.text
    start = steps_of(e, "backward.start.given")[0]
    assert start.facts["grad"] == pytest.approx([1.0, 0.1, 0.01])


def test_nonleaf_grad_read_suggests_retain_grad():
    e = explained(ROOT / "samples" / "14_rebind_name.gt")
    warn = steps_of(e, "grad.nonleaf")[0]
    assert warn.facts == {"tensor": "x"} and "x.retain_grad()" in warn.text
    rebind = steps_of(e, "bind.rebind")[0]
    assert rebind.facts == {"name": "x", "old": "x@5", "since": 5}


def test_leaf_inplace_error_suggests_no_grad():
    e = explained(HERE / "conformance" / "seed_leaf_inplace_error.gt")
    assert "torch.no_grad()" in steps_of(e, "error.leaf_inplace")[0].text


def test_no_grad_block_and_detach():
    e = explained(ROOT / "samples" / "08_detach_vs_no_grad.gt")
    assert [s.kind for s in e.steps if s.kind.startswith("grad_mode")] == \
        ["grad_mode.off", "grad_mode.on"]
    unrecorded = steps_of(e, "op.unrecorded.mode")[0]
    assert unrecorded.facts["inputs"] == ["x"] and unrecorded.facts["out"] == "z"


def test_accumulation_across_backward_calls_and_repeats_are_counted():
    e = explained(ROOT / "samples" / "10_grad_accumulates.gt")
    add = steps_of(e, "backward.accumulate.add")[0]
    assert add.facts["before"] == [2.0, -4.0] and add.facts["after"] == [4.0, -8.0]
    summary = [s for s in e.sections if s.kind == "summary"]
    assert len(summary) == 1 and e.sections[-1] is summary[0]
    repeats = steps_of(e, "summary.repeats")[0]
    assert repeats.facts["max"] == ex.MAX_REPEATS and repeats.facts["count"] >= 1
    assert steps_of(e, "grad.cleared")


def test_requires_grad_flags_retain_grad_and_hooks():
    result = run_text(
        "import torch\n"
        "x = torch.tensor([1.0, 2.0])\n"
        "x.requires_grad_(True)\n"
        "y = x * 3\n"
        "y.retain_grad()\n"
        "y.register_hook(lambda g: g * 10)\n"
        "y.sum().backward()\n"
        "print(y.grad, x.grad)\n"
        "try:\n"
        "    y.requires_grad_(False)\n"
        "except RuntimeError:\n"
        "    pass\n", trace=True)
    assert result.stdout == "tensor([10., 10.]) tensor([30., 30.])\n"
    e = ex.explain(result)
    assert steps_of(e, "requires_grad.on")[0].facts == {"tensor": "x"}
    assert steps_of(e, "retain_grad")[0].facts == {"tensor": "y"}
    assert steps_of(e, "hook.registered")[0].facts == {"tensor": "y"}
    hook = steps_of(e, "backward.hook.replaced")[0]
    assert hook.facts["grad"] == [1.0, 1.0] and hook.facts["result"] == [10.0, 10.0]
    assert steps_of(e, "backward.retain_grad")[0].facts["grad"] == [10.0, 10.0]
    assert steps_of(e, "error.requires_grad_nonleaf")[0].facts["tensor"] == "y"


def test_a_custom_backward_that_raised_leaves_no_script_lines_for_later_nodes():
    """The Function's backward raised before its node ended: the tensors the script made
    after it are its own lines, not lines of a later node's backward."""
    result = run_text(
        "import torch\n"
        "class Boom(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return x.clone()\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        raise RuntimeError('Some error in backward')\n"
        "a = torch.ones(2, requires_grad=True)\n"
        "try:\n"
        "    Boom.apply(a).sum().backward()\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
        "b = torch.ones(2, requires_grad=True)\n"
        "(b * 2).sum().backward()\n", trace=True)
    assert result.stdout == "Some error in backward\n"
    e = ex.explain(result)
    assert not steps_of(e, "backward.function.ran")
    assert [s.facts["node"] for s in steps_of(e, "backward.node")][-2:] == [
        "SumBackward0", "MulBackward0"]


def test_autograd_grad_and_create_graph():
    e = explained(HERE / "conformance" / "autograd_grad_second_order.gt")
    assert steps_of(e, "backward.start.grad")
    assert steps_of(e, "backward.create_graph")[0].facts["count"] >= 1
    assert steps_of(e, "bind.grad_result.graph")[0].facts["tensor"] == "g"
    assert steps_of(e, "bind.grad_result")[0].facts["tensor"] == "g2"


def test_syntax_errors_and_empty_scripts():
    e = ex.explain(run_text("x = = 1\n", trace=True))
    assert [s.kind for s in e.steps] == ["error.raised", "error.stopped"]
    assert e.steps[0].facts["kind"] == "SyntaxError"
    empty = ex.explain(run_text("print(1)\n", trace=True))
    assert empty.sections == []
    out = io.StringIO()
    ex.print_explanation(Console(file=out, width=60), empty)
    assert "nothing" in out.getvalue()


def test_explain_with_nothing_to_explain_keeps_the_script_name_literally():
    empty = ex.explain(run_text("print(1)\n", name="[bold]:100:.gt", trace=True))
    out = io.StringIO()
    ex.print_explanation(Console(file=out, width=80, color_system=None), empty)
    assert out.getvalue().startswith("[bold]:100:.gt: nothing")


# ---------------------------------------------------------------- numbers and formulas


def test_replay_with_saved_values_matches_the_engine_when_nothing_changed():
    result = run(ROOT / "samples" / "03_chain_two_muls.gt")
    nodes = {r.id: r for r in result.trace.nodes.values()}
    call = result.trace.backward_calls[0]
    leaves = replay_call(call, nodes)
    got = {step.accumulated[0]: step.received[0] for step in call.steps if step.accumulated}
    assert set(leaves) == set(got)
    for tid, grad in got.items():
        np.testing.assert_allclose(leaves[tid], grad)


@pytest.mark.parametrize("value, text", [
    (3, "3"), (0.001, "0.001"), (2.5, "2.5"), (1e-05, "1e-05"), (np.int64(-4), "-4"),
    (float("nan"), "nan"), (True, "True"), (2**64 - 1, "-1"),
])
def test_python_numbers_are_written_as_python_prints_them(value, text):
    assert ex.fmt_number(value) == text


def test_tensor_values_are_written_as_torch_and_the_tables_write_them():
    assert ex.fmt_value(np.array([[1, 2], [3, 4]], dtype=np.float32)) == "[[1., 2.], [3., 4.]]"
    assert ex.fmt_value(np.float32(1) / 3) == "0.3333"
    assert ex.fmt_value(np.array([0.001, 2.0], dtype=np.float32)) == "[1.0000e-03, 2.0000e+00]"
    assert ex.fmt_value(None) == "None"


def test_large_tensors_are_shown_by_corner_values_and_shape_not_flattened():
    big = np.arange(10_000, dtype=np.float32).reshape(100, 100)
    text = ex.fmt_value(big)
    assert text.endswith("(shape [100, 100])") and text.startswith("[[0.0000e+00, ")
    assert "9.9990e+03]]" in text and len(text) < 80
    assert ex.fmt_value(Summary.of(big)) == text


@given(st.text(alphabet="ab 叶子节点，。（）x=1", min_size=0, max_size=120),
       st.integers(min_value=10, max_value=60))
def test_wrap_keeps_every_character_and_the_width(text, width):
    lines = ex.wrap(text, width)
    assert all(cell_len(line) <= width for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


# ---------------------------------------------------------------- output forms


def test_json_has_schema_sections_and_steps():
    document = ex.to_json(explained(ROOT / "samples" / "02_mul_requires_grad.gt", "zh"))
    assert document["schema"] == ex.SCHEMA and document["lang"] == "zh"
    kinds = [s["kind"] for s in document["sections"]]
    assert kinds == ["statement", "statement", "statement", "backward"]
    backward = document["sections"][-1]
    assert backward["line"] == 12 and backward["source"] == "c.backward()"
    assert backward["facts"] == {"call": 1, "retain_graph": False, "create_graph": False,
                                 "accumulate": True}
    first = document["sections"][0]["steps"][0]
    assert first["kind"] == "leaf.requires_grad" and first["facts"]["value"] == 2.0
    assert "叶子节点" in first["text"]


def test_terminal_output_is_coloured_and_pipes_get_plain_text():
    explanation = explained(ROOT / "samples" / "04_version_counter.gt")
    out = io.StringIO()
    ex.print_explanation(Console(file=out, width=WIDTH, force_terminal=True,
                                 color_system="truecolor"), explanation)
    assert "\x1b[" in out.getvalue()
    plain = ex.render_text(explanation, WIDTH)
    assert "\x1b[" not in plain
    assert re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue()).rstrip().splitlines() == \
        [line for line in plain.rstrip().splitlines()]


def test_a_torch_calls_intermediates_are_named_by_their_op_not_the_calls_text():
    """One torch call that runs several ops (matmul of a 1-D operand, cosine_similarity):
    what it made and did not return is named after the op that made it; its value keeps the
    name it is bound to, and a script function's own tensors keep their source text."""
    result = run_text("""import torch
import torch.nn.functional as F
x = torch.ones(5)
w = torch.ones(5, 3, requires_grad=True)
m = torch.matmul(x, w)
c = F.cosine_similarity(w[:2], w[2:4])
def twice(t):
    return (t * 2).sum()
s = twice(w)
""", trace=True)
    text = "\\n".join(step.text for step in ex.explain(result, "en").steps)
    assert "`unsqueeze(x)` = [[1., 1., 1., 1., 1.]]" in text
    assert "`linalg_vector_norm(w[:2])`" in text
    assert "`torch.matmul(x, w)` =" not in text and "`F.cosine_similarity(w[:2], w[2:4])` =" \
        not in text
    assert "`t * 2`" in text  # a script function's own expression


def test_a_layers_parameters_are_named_by_their_final_path_before_the_model_is_bound():
    """A model's __init__ initialising its layers (`for m in self.modules(): init(m.weight)`)
    changes parameters no top-level name holds yet: they are named by the path they have at
    the end (`model.conv.weight`), not by the text of the call that built the layer."""
    result = run_text("""import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.fc = nn.Linear(4, 2)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.zeros_(m.weight)
model = Net()
""", trace=True)
    text = "\\n".join(step.text for step in ex.explain(result, "en").steps)
    assert "changed model.conv.weight in place" in text
    assert "nn.Conv2d(1, 2, 3)" not in text


def test_each_output_of_a_multi_output_op_has_its_own_name():
    """linalg_qr's Q and R inside nn.init.orthogonal_ were both `linalg_qr(…)`; a view's
    copy node (DiagonalBackward0_copy) is named as torch spells the op (diagonal_copy)."""
    from gradtrace.naming import op_name

    assert op_name("DiagonalBackward0_copy") == "diagonal_copy"
    assert op_name("SelectBackward0_copy") == "select_copy" and op_name("TBackward0") == "t"
    result = run_text("""import torch
import torch.nn as nn
w = torch.empty(4, 3)
nn.init.orthogonal_(w)
""", trace=True)
    text = "\\n".join(step.text for step in ex.explain(result, "en").steps)
    assert "linalg_qr(" in text and ")[0]`" in text and ")[1]`" in text
    assert "diagonal_copy(" in text
