"""The `view` page in a real browser: headless Chromium, driven through the DevTools
protocol (tests/browser.py). Skipped, with the reason, where Chromium is not installed
(`.ci/run` installs Debian's `chromium`).

The tests open pages of the samples, step through forward and backward with the keyboard
and the buttons, and check what the page highlights and shows at given steps, that it
logs no error, and that it asks the network for nothing.
"""
from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from browser import Browser, BrowserError, find_chromium

from gradtrace.render import drawing as drawing_module
from gradtrace.render.page import build_page
from gradtrace.runner import run_text

HERE = Path(__file__).parent
ROOT = HERE.parent
SAMPLES = sorted((ROOT / "samples").glob("*.gt"))

pytestmark = pytest.mark.skipif(find_chromium() is None,
                                reason="Chromium is not installed (apt-get install chromium)")


@pytest.fixture(scope="module")
def browser():
    try:
        chrome = Browser()
    except BrowserError as err:  # installed but unable to start here
        pytest.skip(f"Chromium did not start: {err}")
    yield chrome
    chrome.close()


def page_file(tmp_path: Path, script: Path | str, name: str = "page", **options) -> Path:
    if isinstance(script, Path):
        result = run_text(script.read_text(encoding="utf-8"),
                          name=str(script.relative_to(ROOT)), trace=True)
    else:
        result = run_text(script, name="script.gt", trace=True)
    path = tmp_path / f"{name}.html"
    path.write_text(build_page(result, **options), encoding="utf-8")
    return path


def opened(browser: Browser, path: Path) -> Browser:
    browser.open(path)
    assert browser.js("gradtrace.position()") == 0
    return browser


def clean(browser: Browser, path: Path) -> None:
    """No console error or warning, no exception, and no request but the page itself."""
    assert browser.problems() == []
    assert browser.requests() == [path.resolve().as_uri()]


def state(browser: Browser, selector: str) -> dict:
    return browser.js(f"""(() => {{
        const el = document.querySelector({json.dumps(selector)});
        if (!el) return null;
        const style = getComputedStyle(el);
        return {{cls: el.getAttribute("class"), visibility: style.visibility,
                 texts: Array.from(el.querySelectorAll("text")).map(t => [t.textContent,
                        getComputedStyle(t).visibility])}};
    }})()""")


def link_selector(browser: Browser, source: str, target: str) -> str:
    k = browser.js(f"gradtrace.data.links.findIndex(l => l.source === {json.dumps(source)} "
                   f"&& l.target === {json.dumps(target)})")
    assert k >= 0
    return f"#l-{k}"


@pytest.mark.parametrize("script", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_every_sample_steps_from_start_to_end_with_the_keyboard(browser, tmp_path, script):
    path = page_file(tmp_path, script)
    opened(browser, path)
    count = browser.js("gradtrace.data.timeline.length")
    for n in range(1, count):
        browser.key("ArrowRight", 39)
        assert browser.js("gradtrace.position()") == n
        assert browser.js("document.getElementById('step-title').textContent") == \
            browser.js(f"gradtrace.data.timeline[{n}].title")
    browser.key("ArrowRight", 39)  # past the end: stays
    assert browser.js("gradtrace.position()") == count - 1
    assert browser.js("document.getElementById('next').disabled") is True
    browser.key("Home", 36)
    assert browser.js("gradtrace.position()") == 0
    browser.key("End", 35)
    assert browser.js("gradtrace.position()") == count - 1
    browser.key("ArrowLeft", 37)
    assert browser.js("gradtrace.position()") == count - 2
    clean(browser, path)


def test_forward_steps_build_the_graph(browser, tmp_path):
    path = page_file(tmp_path, ROOT / "samples" / "03_chain_two_muls.gt")
    opened(browser, path)
    assert state(browser, "#v-n1")["visibility"] == "hidden"  # nothing recorded yet
    browser.js("gradtrace.show(3)")  # line 7: c = a * b
    mul = state(browser, "#v-n1")
    assert mul["visibility"] == "visible" and "focus" in mul["cls"]
    assert state(browser, "#v-n4")["visibility"] == "hidden"
    assert "alive" in mul["cls"]  # not freed yet: no dashed border
    assert browser.js("document.querySelector('#source .line.current .code').textContent") \
        == "c = a * b"
    narration = browser.js("Array.from(document.querySelectorAll('#narration p.now'))"
                           ".map(p => p.textContent)")
    assert narration[0].startswith("`a * b`: a and b require grad, so autograd recorded "
                                   "MulBackward0 as the grad_fn of c.")
    leaf = state(browser, "#v-t1")
    assert [t for t, _ in leaf["texts"]] == ["a", "2.", "grad None"]
    gradient = state(browser, link_selector(browser, "n1", "n2"))
    assert [v for t, v in gradient["texts"] if t.startswith("grad")] == ["hidden"]
    clean(browser, path)


def test_backward_steps_light_the_edge_with_its_gradient(browser, tmp_path):
    path = page_file(tmp_path, ROOT / "samples" / "03_chain_two_muls.gt")
    opened(browser, path)
    for _ in range(7):  # to backward step 1: MulBackward0 #4 received 1
        browser.key("ArrowRight", 39)
    assert browser.js("document.getElementById('step-title').textContent") == \
        "backward #1 · step 1 of 5 · MulBackward0 #4 received 1."
    edge = state(browser, link_selector(browser, "n4", "n1"))
    assert "current" in edge["cls"]
    assert ["grad 4.", "visible"] in edge["texts"]
    other = state(browser, link_selector(browser, "n4", "n5"))
    assert "current" in other["cls"] and ["grad 6.", "visible"] in other["texts"]
    assert "focus" in state(browser, "#v-n4")["cls"]
    badges = browser.js("Array.from(document.querySelectorAll('#badges text'))"
                        ".map(t => t.textContent)")
    assert badges == ["grad_output 1.", "freed"]
    assert "gone" in state(browser, "#v-n4")["cls"]  # freed after this step: dashed
    assert "gone" not in state(browser, "#v-n1")["cls"]
    assert browser.js("document.querySelector('#source .line.current .code').textContent") \
        == "e.backward()"
    now = browser.js("Array.from(document.querySelectorAll('#narration p.now'))"
                     ".map(p => p.textContent)")
    assert now == ["MulBackward0 of e (line 9) received 1. and applied the chain rule: → c: "
                   "1. × d (=4.) = 4.; → d: 1. × c (=6.) = 6."]
    browser.click("#next")
    browser.click("#next")
    browser.click("#next")  # step 4: AccumulateGrad #2 adds 12 into a.grad
    assert browser.js("gradtrace.position()") == 10
    edge = state(browser, link_selector(browser, "n2", "t1"))
    assert "current" in edge["cls"] and ["None → 12.", "visible"] in edge["texts"]
    assert [t for t, _ in state(browser, "#v-t1")["texts"]] == ["a", "2.", "grad 12."]
    assert browser.js("Array.from(document.querySelectorAll('#badges text'))"
                      ".map(t => t.textContent)") == [".grad None → 12."]
    facts = browser.js("Array.from(document.querySelectorAll('#step-facts li'))"
                       ".map(li => li.textContent)")
    assert facts == ["grad_output (what it received): 12.", "a.grad: None → 12."]
    earlier = state(browser, link_selector(browser, "n4", "n1"))  # traversed before
    assert "done" in earlier["cls"] and ["grad 4.", "visible"] in earlier["texts"]
    browser.key("ArrowLeft", 37)  # and back: a.grad is None again
    assert [t for t, _ in state(browser, "#v-t1")["texts"]] == ["a", "2.", "grad None"]
    clean(browser, path)


def test_saved_tensors_turn_red_when_their_version_moves_on(browser, tmp_path):
    path = page_file(tmp_path, ROOT / "samples" / "04_version_counter.gt")
    opened(browser, path)
    stale = browser.js("gradtrace.data.timeline.findIndex(p => p.stale.length)")
    browser.js(f"gradtrace.show({stale - 1})")
    before = state(browser, "#v-s4_0")
    assert "fresh" in before["cls"] and [t for t, _ in before["texts"]] == ["self = c",
                                                                              "version 0"]
    browser.js(f"gradtrace.show({stale})")
    after = state(browser, "#v-s4_0")
    assert "modified" in after["cls"] and "fresh" not in after["cls"]
    assert [t for t, _ in after["texts"]] == ["self = c", "saved at version 0, now 1"]
    fill = browser.js("getComputedStyle(document.querySelector('#v-s4_0 polygon')).fill")
    assert fill == "rgb(255, 179, 179)"
    clean(browser, path)


def test_a_data_change_turns_the_saved_tensor_orange(browser, tmp_path):
    path = page_file(tmp_path, ROOT / "samples" / "12_data_mutation.gt")
    opened(browser, path)
    at = browser.js("gradtrace.data.timeline.findIndex(p => p.stale.length)")
    browser.js(f"gradtrace.show({at})")
    saved = state(browser, "#v-s1_0")
    assert "silent" in saved["cls"]
    assert browser.js("getComputedStyle(document.querySelector('#v-s1_0 polygon')).fill") == \
        "rgb(255, 208, 138)"
    assert [t for t, _ in state(browser, "#v-t1")["texts"]][1] == "[100.] · shape [1]"
    browser.js(f"gradtrace.show({at - 1})")
    assert [t for t, _ in state(browser, "#v-t1")["texts"]][1] == "[1.] · shape [1]"
    clean(browser, path)


def test_errors_show_at_their_step_with_the_cause(browser, tmp_path):
    path = page_file(tmp_path, HERE / "golden" / "uncaught_version_error.gt")
    opened(browser, path)
    browser.key("End", 35)
    error = browser.js("document.getElementById('step-error').textContent")
    assert "uncaught_version_error.gt:11:1: RuntimeError: one of the variables" in error
    assert browser.js("document.getElementById('step-error').hidden") is False
    told = browser.js("document.getElementById('narration').textContent")
    assert "saved c as _saved_self when it was at version 0" in told
    assert "failed" in browser.js("document.querySelector('#source .line.current').className")
    clean(browser, path)


def test_clicking_a_box_shows_its_facts_as_in_the_json(browser, tmp_path):
    path = page_file(tmp_path, ROOT / "samples" / "03_chain_two_muls.gt")
    opened(browser, path)
    browser.key("End", 35)
    browser.click("#v-t1 ellipse")
    facts = json.loads(browser.js("document.getElementById('facts').textContent"))
    assert facts["label"] == "a" and facts["shape"] == [] and facts["dtype"] == "float32"
    assert facts["grad"] == {"shape": [], "dtype": "float32", "data": 12.0}
    assert facts["version"] == 0 and facts["line"] == 5
    browser.click("#v-s4_0 polygon")
    saved = json.loads(browser.js("document.getElementById('facts').textContent"))
    assert saved["saved"]["name"] == "self" and saved["saved"]["version"] == 0
    assert saved["saved"]["value"]["data"] == 6.0 and saved["tensor"]["label"] == "c"
    browser.click("#v-n4 path, #v-n4 polygon")
    node = json.loads(browser.js("document.getElementById('facts').textContent"))
    assert node["name"] == "MulBackward0" and node["freed_by"] == 1
    assert "selected" in state(browser, "#v-n4")["cls"]
    clean(browser, path)


def test_clicking_a_source_line_jumps_to_it(browser, tmp_path):
    path = page_file(tmp_path, ROOT / "samples" / "03_chain_two_muls.gt")
    opened(browser, path)
    browser.click("#source .line[data-line='9']")
    assert browser.js("gradtrace.position()") == 5
    browser.js("document.getElementById('slider').value = '8';"
               "document.getElementById('slider').dispatchEvent(new Event('input'))")
    assert browser.js("gradtrace.position()") == 8
    clean(browser, path)


def test_the_page_in_chinese(browser, tmp_path):
    path = page_file(tmp_path, ROOT / "samples" / "03_chain_two_muls.gt", lang="zh")
    opened(browser, path)
    assert browser.js("document.getElementById('next').textContent") == "下一步 ▶"
    browser.js("gradtrace.show(7)")
    assert "链式法则" in browser.js("document.querySelector('#narration p.now').textContent")
    clean(browser, path)


def test_modules_are_collapsible_groups(browser, tmp_path, monkeypatch):
    monkeypatch.setattr(drawing_module, "_module",
                        lambda record: {7: "model.fc1", 9: "model"}.get(
                            getattr(record, "line", None)))
    path = page_file(tmp_path, ROOT / "samples" / "03_chain_two_muls.gt")
    opened(browser, path)
    browser.key("End", 35)
    assert state(browser, "#v-n1")["visibility"] == "visible"
    browser.click("#m-1 text")  # model.fc1
    assert "collapsed" in browser.js("document.getElementById('m-1').getAttribute('class')")
    assert state(browser, "#v-n1")["visibility"] == "hidden"
    assert state(browser, "#v-n4")["visibility"] == "visible"
    browser.click("#m-0 > text")  # model: everything inside
    assert state(browser, "#v-n4")["visibility"] == "hidden"
    browser.click("#m-0 > text")
    browser.click("#m-1 text")
    assert state(browser, "#v-n1")["visibility"] == "visible"
    clean(browser, path)


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_screenshots_of_three_steps_of_the_chain(browser, tmp_path):
    """The pictures of the README (tests/tools/pictures.py writes them into docs/)."""
    path = page_file(tmp_path, ROOT / "samples" / "03_chain_two_muls.gt")
    opened(browser, path)
    for position in (5, 7, 10):
        browser.js(f"gradtrace.show({position})")
        shot = tmp_path / f"step{position}.png"
        browser.screenshot(shot)
        assert png_size(shot) == (1440, 900)
    clean(browser, path)


def test_a_rebound_leaf_keeps_its_name_lines_while_its_grad_changes(browser, tmp_path):
    """The naming rule's `(x, lines 5-7)` line sits after the value line, so the page's
    value and .grad updates leave the name and its lines in place."""
    path = page_file(tmp_path, ROOT / "samples" / "14_rebind_name.gt")
    opened(browser, path)
    texts = [t for t, _ in state(browser, "#v-t1")["texts"]]
    assert texts == ["x@5", "[1.] · shape [1]", "(x, lines 5-7)", "grad None"]
    browser.js("gradtrace.show(gradtrace.data.timeline.length - 1)")
    texts = [t for t, _ in state(browser, "#v-t1")["texts"]]
    assert texts == ["x@5", "[1.] · shape [1]", "(x, lines 5-7)", "grad [8.]"]
    clean(browser, path)
