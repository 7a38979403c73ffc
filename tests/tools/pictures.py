"""Regenerate the pictures in docs/pictures/: screenshots of the `view` page and the
static drawings of the samples. Look at them before committing.

    PYTHONPATH=. python tests/tools/pictures.py        # needs Graphviz and Chromium

The screenshots are taken in headless Chromium (tests/browser.py) at 1440x900.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from browser import Browser  # noqa: E402

from gradtrace.render.drawing import draw  # noqa: E402
from gradtrace.render.page import build_page  # noqa: E402
from gradtrace.runner import run_text  # noqa: E402

OUT = ROOT / "docs" / "pictures"
# (picture, sample, timeline position): forward, the first backward step, an accumulation
PAGE_STEPS = [("view-forward.png", "03_chain_two_muls", 5),
              ("view-backward.png", "03_chain_two_muls", 7),
              ("view-accumulate.png", "03_chain_two_muls", 10)]
DRAWINGS = ["03_chain_two_muls", "04_version_counter", "05_unbind", "12_data_mutation"]


def result_of(sample: str):
    path = ROOT / "samples" / f"{sample}.gt"
    return run_text(path.read_text(encoding="utf-8"), name=f"samples/{sample}.gt", trace=True)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for sample in DRAWINGS:
        png = draw(result_of(sample).trace, "png")
        (OUT / f"graph-{sample}.png").write_bytes(png)
        print("wrote", OUT / f"graph-{sample}.png")
    browser = Browser(width=1440, height=900)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for picture, sample, position in PAGE_STEPS:
                page = Path(tmp) / f"{sample}.html"
                page.write_text(build_page(result_of(sample)), encoding="utf-8")
                browser.open(page)
                browser.js(f"gradtrace.show({position})")
                browser.screenshot(OUT / picture)
                problems = browser.problems()
                if problems:
                    raise SystemExit(f"{picture}: the page reported {problems}")
                print("wrote", OUT / picture)
    finally:
        browser.close()


if __name__ == "__main__":
    main()
