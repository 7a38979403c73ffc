"""The JSON document (`run --json`, `graph --format json`): schema, values, facts.

Every sample and conformance case is run through every view: each exits as the script
does and the JSON validates against the shipped schema. Where torch is installed, the
facts for the seed examples are compared with live torch
(`python -m pytest tests/test_json.py -k torch` in an environment with torch 2.13).
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from click.testing import CliRunner

from gradtrace.cli import main
from gradtrace.render.json import SCHEMA_VERSION, document, dumps, schema, validate, value
from gradtrace.runner import load_source, run_source, run_text

HERE = Path(__file__).parent
ROOT = HERE.parent
CASES = sorted((HERE / "conformance").glob("*.gt"))
SAMPLES = sorted((ROOT / "samples").glob("*.gt"))
GOLDEN = sorted((HERE / "golden").glob("*.gt"))
ALL = CASES + SAMPLES + GOLDEN
IDS = [f"{p.parent.name}/{p.stem}" for p in ALL]
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def invoke(*args: str, **kwargs):
    return CliRunner().invoke(main, list(args), **kwargs)


def doc_of(path: Path | str) -> dict:
    result = run_source(load_source(str(path)), trace=True)
    doc = document(result)
    validate(doc)
    return doc


def expected_exit(script: Path) -> int:
    """What python + torch 2.13 did: conformance cases with a .err file raised."""
    return 1 if script.with_suffix(".err").exists() or script.parent.name == "golden" \
        and "uncaught" in script.stem else 0


# -- every script, every view --------------------------------------------------------------


@pytest.mark.parametrize("script", ALL, ids=IDS)
def test_views_exit_as_the_script_does_and_the_json_validates(script: Path):
    path = str(script.relative_to(ROOT))
    quiet = invoke("run", "--quiet", path)
    status = quiet.exit_code
    views = [["run"], ["run", "--json"], ["graph", "--format", "dot"],
             ["graph", "--format", "mermaid"], ["graph", "--format", "json"]]
    outputs = {}
    for args in views:
        r = invoke(*args, path)
        assert r.exit_code == status, (args, r.output)
        outputs[" ".join(args)] = r.stdout
    doc = json.loads(outputs["run --json"])  # stdout is the document and nothing else
    validate(doc)
    assert doc["exit_code"] == status
    assert ADDRESS.sub("0x?", doc["stdout"]) == ADDRESS.sub("0x?", quiet.stdout)
    same = json.loads(outputs["graph --format json"])  # the same document
    assert same.keys() == doc.keys() and same["nodes"] == doc["nodes"]
    assert outputs["graph --format dot"].startswith("digraph gradtrace {")
    assert outputs["graph --format mermaid"].startswith("flowchart TB")
    if status != expected_exit(script):
        error = json.loads(outputs["run --json"])["error"]
        if error is not None and error["category"] in ("internal", "not_supported"):
            pytest.xfail(f"gradtrace cannot run this script yet: {error['type']}: "
                         f"{error['message']}")
        pytest.fail(f"exit status {status}, torch's was {expected_exit(script)}: {error}")


# -- the schema and the values --------------------------------------------------------------


def test_schema_is_shipped_and_valid():
    s = schema()
    jsonschema.Draft202012Validator.check_schema(s)
    assert s["properties"]["schema_version"]["pattern"] == "^1\\.[0-9]+$"
    assert SCHEMA_VERSION == "1.6"
    # nan/inf are stated in the schema
    assert s["$defs"]["number"]["oneOf"][1] == {"enum": ["nan", "inf", "-inf"]}


def _without(doc: dict, path: tuple) -> dict:
    """A copy of `doc` without the field at `path` (keys and list indexes)."""
    copy = json.loads(json.dumps(doc))
    inner = copy
    for key in path[:-1]:
        inner = inner[key]
    del inner[path[-1]]
    return copy


def test_schema_requires_what_each_minor_version_added():
    """1.1 summaries, 1.2 bindings/made_by, 1.3 numerics, 1.4 the view page's fields, 1.5
    saved_tensors_hooks: a
    document without any of them does not validate, and docs/json.md lists each version."""
    doc = doc_of(ROOT / "samples" / "12_data_mutation.gt")  # a .data write, then backward
    events = doc["events"]
    data_write = next(i for i, e in enumerate(events) if e["kind"] == "data_write")
    assert events[data_write]["facts"]["value"]["data"] == [100.0]  # x after x.data *= 100
    inplace_doc = doc_of(ROOT / "samples" / "04_version_counter.gt")
    inplace = next(i for i, e in enumerate(inplace_doc["events"]) if e["kind"] == "inplace")
    assert inplace_doc["events"][inplace]["facts"]["value"]["data"] == 7.0  # c += 1
    saved_at = next((i, k) for i, n in enumerate(doc["nodes"]) for k, _ in enumerate(n["saved"]))
    required = {
        "1.2": [("tensors", 0, "bindings"), ("tensors", 0, "made_by"), ("nodes", 0, "made_by")],
        "1.3": [("numerics",)],
        "1.4": [("backward", 0, "steps", 0, "event"),
                ("nodes", saved_at[0], "saved", saved_at[1], "value"),
                ("events", data_write, "facts", "value")],
        "1.5": [("nodes", saved_at[0], "saved", saved_at[1], "packed"),
                ("tensors", 0, "is_inference"), ("backward", 0, "steps", 0, "script")],
    }
    for version, paths in required.items():
        for path in paths:
            with pytest.raises(jsonschema.ValidationError):
                validate(_without(doc, path))
                pytest.fail(f"a {version} document without {path} validated")
    with pytest.raises(jsonschema.ValidationError):
        validate(_without(inplace_doc, ("events", inplace, "facts", "value")))
    summarised = doc_of(HERE / "golden" / "big_tensor.gt")  # 1.1: the summarised form
    assert any("summary" in (t["value"] or {}) for t in summarised["tensors"])
    # `module` (1.4) is optional: a string where present
    with_module = json.loads(json.dumps(doc))
    with_module["tensors"][0]["module"] = "model.fc1"
    with_module["nodes"][0]["module"] = "model"
    validate(with_module)
    with_module["nodes"][0]["module"] = 3
    with pytest.raises(jsonschema.ValidationError):
        validate(with_module)
    docs = (ROOT / "docs" / "json.md").read_text()
    history = re.search(r"\*\*`schema_version`\*\* is `\"1\.6\"`.*?\n\n", docs, re.S).group(0)
    for version, fields in {"1.1": ["summarised"], "1.2": ["bindings", "made_by"],
                            "1.3": ["numerics"],
                            "1.4": ["steps[].event", "saved[].value", "inplace",
                                    "data_write", "module"],
                            "1.5": ["saved[].packed", "is_inference", "steps[].script"],
                            "1.6": ["meta", "device"]}.items():
        assert version in history and all(f in history for f in fields), version


def test_values_are_json_numbers_with_nan_and_inf_as_strings():
    assert value(np.array([0.1, np.nan, np.inf, -np.inf], dtype=np.float32)) == {
        "shape": [4], "dtype": "float32", "data": [0.1, "nan", "inf", "-inf"]}
    assert value(np.array(2.5, dtype=np.float64)) == {"shape": [], "dtype": "float64",
                                                      "data": 2.5}
    assert value(np.arange(6, dtype=np.int64).reshape(2, 3))["data"] == [[0, 1, 2], [3, 4, 5]]
    assert value(np.array([True, False]))["data"] == [True, False]
    big = value(np.full((40, 50), np.nan, dtype=np.float32))
    assert big["shape"] == [40, 50] and big["data"][39][49] == "nan"
    assert value(None) is None


def test_nan_in_a_script_reaches_the_document_as_a_string():
    result = run_text('import torch\nx = torch.tensor([float("nan"), float("inf"), '
                      '-float("inf"), 0.1], requires_grad=True)\ny = (x * 2).sum()\n'
                      'y.backward()\n', trace=True)
    text = dumps(result)
    doc = json.loads(text)
    validate(doc)
    x = doc["tensors"][doc["variables"]["x"] - 1]
    assert x["value"]["data"] == ["nan", "inf", "-inf", 0.1]
    assert x["grad"]["data"] == [2.0, 2.0, 2.0, 2.0]
    y = doc["tensors"][doc["variables"]["y"] - 1]
    assert y["value"]["data"] == "nan"
    assert "NaN" not in text and "Infinity" not in text
    assert "array(" not in text and "np." not in text and "dtype=" not in text


def test_document_of_the_chain():
    doc = doc_of(ROOT / "samples" / "03_chain_two_muls.gt")
    assert doc["schema_version"] == "1.6"
    assert doc["error"] is None and doc["exit_code"] == 0
    assert doc["stdout"].splitlines()[3] == "tensor(12.) tensor(8.) tensor(6.)"
    names = {name: doc["tensors"][tid - 1] for name, tid in doc["variables"].items()}
    assert [t["id"] for t in doc["tensors"]] == list(range(1, len(doc["tensors"]) + 1))
    nodes = {n["id"]: n for n in doc["nodes"]}
    e_fn = nodes[names["e"]["grad_fn"]]
    assert e_fn["name"] == "MulBackward0" and e_fn["kind"] == "op"
    (c_fn_id, c_nr), (d_acc_id, d_nr) = e_fn["next_functions"]
    assert (c_nr, d_nr) == (0, 0)
    assert c_fn_id == names["c"]["grad_fn"]
    assert nodes[d_acc_id]["name"] == "torch::autograd::AccumulateGrad"
    assert nodes[d_acc_id]["variable"] == names["d"]["id"]
    assert nodes[d_acc_id]["next_functions"] == []
    assert [s["name"] for s in e_fn["saved"]] == ["self", "other"]
    assert e_fn["released"] and e_fn["freed_by"] == 1
    assert {"from": e_fn["id"], "to": c_fn_id, "index": 0, "output_nr": 0} in doc["edges"]
    # the backward call, step by step
    (call,) = doc["backward"]
    assert call["roots"] == [[e_fn["id"], 0]] and call["error"] is None
    grads = {nodes[s["node"]]["variable"]: s["accumulated"]["after"]["data"]
             for s in call["steps"] if s["accumulated"]}
    assert grads == {names["a"]["id"]: 12.0, names["b"]["id"]: 8.0, names["d"]["id"]: 6.0}
    first = call["steps"][0]
    assert first["node"] == e_fn["id"] and first["received"][0]["data"] == 1.0
    assert [f["grad"]["data"] for f in first["sent"]] == [4.0, 6.0]
    # every step ran before the backward_end event (schema 1.4: steps[].event)
    end = next(i for i, e in enumerate(doc["events"]) if e["kind"] == "backward_end")
    assert [s["event"] for s in call["steps"]] == [end] * 5
    assert [s["value"]["data"] for s in e_fn["saved"]] == [6.0, 4.0]  # c and d when saved
    assert names["a"]["grad"]["data"] == 12.0 and names["c"]["grad"] is None
    assert doc["roots"] == [{"node": e_fn["id"], "output_nr": 0, "label": "e", "backward": 1}]
    assert {e["kind"] for e in doc["events"]} >= {"bind", "op", "backward_begin"}


def test_document_of_the_version_error():
    doc = doc_of(HERE / "golden" / "uncaught_version_error.gt")
    assert doc["exit_code"] == 1
    err = doc["error"]
    assert (err["type"], err["line"], err["column"], err["category"]) == \
        ("RuntimeError", 11, 1, "script")
    assert err["message"].startswith("one of the variables needed for gradient computation")
    assert "e.backward()" in err["text"]
    (call,) = doc["backward"]
    assert call["error"]["type"] == "RuntimeError" and call["steps"] == []
    stale = [s for n in doc["nodes"] for s in n["saved"] if s["modified"]]
    assert stale == [{"name": "self", "tensor": doc["variables"]["c"], "version": 0,
                      "current_version": 1, "is_output": False, "modified": True,
                      "changed_silently": False,
                      "value": {"shape": [], "dtype": "float32", "data": 6.0},
                      "packed": None}]


def test_document_of_data_mutation_flags_the_silent_change():
    doc = doc_of(ROOT / "samples" / "12_data_mutation.gt")
    silent = [s for n in doc["nodes"] for s in n["saved"] if s["changed_silently"]]
    assert [s["name"] for s in silent] == ["self", "other"]
    assert all(not s["modified"] for s in silent)
    assert [s["value"]["data"] for s in silent] == [[1.0], [1.0]]  # x before x.data *= 100


def test_document_of_unbind_multi_output():
    doc = doc_of(ROOT / "samples" / "05_unbind.gt")
    names = {name: doc["tensors"][tid - 1] for name, tid in doc["variables"].items()}
    unbind = next(n for n in doc["nodes"] if n["name"] == "UnbindBackward0")
    assert unbind["outputs"] == [names["b"]["id"], names["c"]["id"], names["d"]["id"]]
    assert [names[k]["output_nr"] for k in "bcd"] == [0, 1, 2]
    f_fn = next(n for n in doc["nodes"] if n["id"] == names["f"]["grad_fn"])
    assert f_fn["next_functions"][1] == [unbind["id"], 2]
    step = next(s for s in doc["backward"][0]["steps"] if s["node"] == unbind["id"])
    assert [g["data"] for g in step["received"]] == [3.0, 6.0, 2.0]


def test_syntax_error_document():
    r = invoke("run", "--json", "-", input="x = (\n")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    validate(doc)
    assert doc["error"]["type"] == "SyntaxError" and doc["error"]["category"] == "syntax"
    assert doc["tensors"] == [] and doc["nodes"] == []
    assert r.stderr == ""


def test_run_json_keeps_the_scripts_output_and_warnings_inside():
    r = invoke("run", "--json", "samples/14_rebind_name.gt")
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert doc["stdout"] == (HERE / "samples" / "14_rebind_name.out").read_text()
    assert "UserWarning" in doc["stderr"] and r.stderr == ""


def test_large_documents_are_written_compact():
    script = "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x\n" \
             "for i in range(700):\n    y = y * 1.0001\ny.backward()\n"
    result = run_text(script, trace=True)
    text = dumps(result)
    assert "\n" not in text
    doc = json.loads(text)
    validate(doc)
    assert len(doc["nodes"]) == 701 and len(doc["backward"][0]["steps"]) == 701


def test_docs_describe_every_top_level_field():
    docs = (ROOT / "docs" / "json.md").read_text()
    for key in schema()["properties"]:
        assert f"`{key}`" in docs, key
    for name, definition in schema()["$defs"].items():
        for key in definition.get("properties", {}):
            assert f"`{key}`" in docs, (name, key)


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")
def test_docs_jq_example_runs():
    docs = (ROOT / "docs" / "json.md").read_text()
    command = re.search(r"```(?:bash|sh)\n(gradtrace run --json [^\n]+\| jq[^\n]+)\n", docs)
    assert command, "docs/json.md has a `gradtrace run --json … | jq …` example"
    r = invoke("run", "--json", "samples/03_chain_two_muls.gt")
    jq_filter = re.search(r"jq (?:-\w+ )*'([^']+)'", command.group(1)).group(1)
    done = subprocess.run(["jq", "-r", jq_filter], input=r.stdout.encode(),
                          capture_output=True, check=True)
    out = done.stdout.decode()
    assert "a" in out and "12" in out


# -- live torch: the seed examples' facts ---------------------------------------------------


SEEDS = [p for p in SAMPLES] + [p for p in CASES if p.stem.startswith("seed_")
                                and not p.with_suffix(".err").exists()]


def _torch_run(torch, script: Path) -> dict:
    namespace: dict = {}
    code = compile(script.read_text(), str(script), "exec")
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()) as out:
        warnings.simplefilter("ignore")
        exec(code, namespace)  # noqa: S102 - our own sample scripts, under real torch
    namespace["__stdout__"] = out.getvalue()
    return namespace


def _torch_graph(root) -> list[tuple[str, list]]:
    """Preorder (name, [(index of next node or None, output_nr)]) of a torch graph."""
    order: list = []
    index: dict[int, int] = {}
    keep = []
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in index:
            continue
        keep.append(node)
        index[id(node)] = len(order)
        order.append(node)
        stack.extend(n for n, _ in reversed(node.next_functions) if n is not None)
    return [(n.name(), [(None if m is None else index[id(m)], nr) for m, nr in
                        n.next_functions]) for n in order]


def _our_graph(doc: dict, root: int) -> list[tuple[str, list]]:
    nodes = {n["id"]: n for n in doc["nodes"]}
    order: list = []
    index: dict[int, int] = {}
    stack = [root]
    while stack:
        nid = stack.pop()
        if nid in index:
            continue
        index[nid] = len(order)
        order.append(nid)
        stack.extend(m for m, _ in reversed(nodes[nid]["next_functions"]) if m is not None)
    return [(nodes[n]["name"], [(None if m is None else index[m], nr) for m, nr in
                                nodes[n]["next_functions"]]) for n in order]


@pytest.mark.parametrize("script", SEEDS, ids=[f"{p.parent.name}/{p.stem}" for p in SEEDS])
def test_seed_facts_match_live_torch(script: Path):
    torch = pytest.importorskip("torch")
    ns = _torch_run(torch, script)
    doc = doc_of(script)
    address = re.compile(r"0x[0-9a-fA-F]+")
    assert address.sub("0x?", doc["stdout"]) == address.sub("0x?", ns["__stdout__"])
    # a module's parameters and buffers are listed by their path (model.0.weight) too
    theirs = {k: v for k, v in ns.items() if isinstance(v, torch.Tensor)}
    theirs.update({f"{name}.{path}": t for name, m in ns.items()
                   if isinstance(m, torch.nn.Module)
                   for named in (m.named_parameters(), m.named_buffers()) for path, t in named})
    assert sorted(theirs) == sorted(doc["variables"])
    tensors = {t["id"]: t for t in doc["tensors"]}
    for name, t in theirs.items():
        ours = tensors[doc["variables"][name]]
        assert ours["requires_grad"] == t.requires_grad, name
        assert ours["is_leaf"] == t.is_leaf, name
        assert ours["shape"] == list(t.shape), name
        assert ours["dtype"] == str(t.dtype).removeprefix("torch."), name
        assert ours["version"] == t._version, name
        np.testing.assert_allclose(np.array(ours["value"]["data"], dtype=np.float64),
                                   t.detach().double().numpy(), rtol=1e-6)
        if t.is_leaf:
            if t.grad is None:
                assert ours["grad"] is None, name
            else:
                np.testing.assert_allclose(np.array(ours["grad"]["data"], dtype=np.float64),
                                           t.grad.double().numpy(), rtol=1e-6)
        if t.grad_fn is None:
            assert ours["grad_fn"] is None, name
            continue
        assert _our_graph(doc, ours["grad_fn"]) == _torch_graph(t.grad_fn), name
        assert ours["output_nr"] == t.output_nr, name
        # AccumulateGrad.variable is the very leaf
        nodes = {n["id"]: n for n in doc["nodes"]}
        stack, seen = [(t.grad_fn, ours["grad_fn"])], set()
        while stack:
            theirs_node, our_id = stack.pop()
            if our_id in seen:
                continue
            seen.add(our_id)
            node = nodes[our_id]
            if node["kind"] == "accumulate_grad":
                leaf = tensors[node["variable"]]
                for leaf_name in leaf["names"]:
                    if ns.get(leaf_name) is theirs_node.variable:
                        break
                else:
                    np.testing.assert_allclose(
                        np.array(leaf["value"]["data"], dtype=np.float64),
                        theirs_node.variable.detach().double().numpy())
            for (m, _), (ours_next, _) in zip(theirs_node.next_functions,
                                              node["next_functions"], strict=True):
                if m is not None:
                    stack.append((m, ours_next))


def test_numerics_reports_the_capability_the_blas_and_the_inexact_causes(monkeypatch):
    from gradtrace.engine import capability

    monkeypatch.setattr(capability, "CAPABILITY", "default")
    monkeypatch.setattr(capability, "BLAS_PLATFORM", "mkl-avx2")
    script = "import torch\nx = torch.ones(5, 3)\ny = x.sum(0) @ x.t().contiguous()\n"
    exact = document(run_text(script, trace=True))
    validate(exact)
    assert exact["numerics"] == {"cpu_capability": "default", "blas": "mkl-avx2",
                                 "inexact": []}
    from gradtrace.engine import mkl

    # without MKL, a product past the measured order model is noted
    monkeypatch.setattr(mkl, "_STATE", {"mkl": None, "reason": "not installed"})
    past = document(run_text("import torch\ny = torch.ones(5, 300) @ torch.ones(300, 6)\n",
                             trace=True))
    validate(past)
    assert past["numerics"]["inexact"] == [
        "matrix product 5x300 @ 300x6: the BLAS's order for this shape is not reproduced "
        "(mkl-avx2)"]


NUMPY_CASES = sorted((HERE / "conformance_extra").glob("numpy_*.gt"))


@pytest.mark.parametrize("script", NUMPY_CASES, ids=[p.stem for p in NUMPY_CASES])
def test_numpy_values_leave_every_view_whole(script: Path):
    """A numpy array is not a tensor: the views list tensors only, and still run to the end
    with a document that validates (strict JSON: no NaN, no numpy object)."""
    path = str(script.relative_to(ROOT))
    status = invoke("run", "--quiet", path).exit_code
    for args in (["run"], ["explain"], ["graph", "--format", "dot"]):
        assert invoke(*args, path).exit_code == status, args
    text = invoke("run", "--json", path).stdout
    doc = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
    validate(doc)
    assert doc["exit_code"] == status == expected_exit(script)
