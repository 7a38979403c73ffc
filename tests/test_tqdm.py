"""tqdm as training loops use it (gradtrace/lib/tqdm.gt): the loop's own output is what
Python with the real tqdm prints, and the bars on stderr are the real tqdm's lines once
the times and rates (which differ between any two runs) are masked."""
from __future__ import annotations

import io
import re
import subprocess
import sys
import textwrap

import pytest

from gradtrace.runner import run_text

LOOPS = textwrap.dedent("""\
    from tqdm import tqdm, trange
    from tqdm.auto import tqdm as auto_tqdm
    total = 0
    for i in tqdm(range(3), desc="epoch"):
        total += i
    with tqdm(total=5, unit="batch") as bar:
        bar.update(2)
        bar.set_postfix(loss=0.123456, acc=1)
        bar.update(3)
        bar.set_description("train")
    t = tqdm([1, 2], leave=False)
    print(len(t), t.total, t.n, bool(t))
    for x in t:
        tqdm.write(f"got {x}")
    print(t.n, total)
    for j in trange(2, desc="x"):
        pass
    it = tqdm(iter([1, 2, 3]), disable=False)
    print(list(it), it.total)
    for k in auto_tqdm(range(2), disable=True):
        print("quiet", k)
    stream = tqdm(enumerate(iter("ab"), 1))
    stream.set_description("chars")
    for i, ch in stream:
        pass
    """)
TIMES = re.compile(r"\[[0-9:?]+(<[0-9:?]+)?, *[0-9.?]+(it|batch)/s")
CLEARED = re.compile(r"\r +\r")


def _bars(stderr: str) -> list[str]:
    """The bar lines, times and rates masked; `write`'s and leave=False's clearing of the
    line (real tqdm clears by the terminal's width it measured) left out."""
    text = CLEARED.sub("\r", TIMES.sub("[T, R/s", stderr))
    return [line for line in re.split(r"[\r\n]", text) if line]


def test_a_loop_through_tqdm_prints_what_it_prints_with_the_real_tqdm():
    pytest.importorskip("tqdm")
    real = subprocess.run([sys.executable, "-c", LOOPS], capture_output=True, text=True,
                          timeout=60)
    ours = run_text(LOOPS)
    assert ours.error is None, ours.error
    assert ours.stdout == real.stdout


def test_the_bars_on_stderr_are_the_real_tqdm_s_lines_up_to_times_and_rates():
    pytest.importorskip("tqdm")
    real = subprocess.run([sys.executable, "-c", LOOPS], capture_output=True, text=True,
                          timeout=60)
    err = io.StringIO()
    result = run_text(LOOPS, stderr=err)
    assert result.error is None
    written = err.getvalue()
    real_bars = _bars(real.stderr)
    assert set(_bars(written)) <= set(real_bars)  # (tqdm also redraws around each write)
    finals = list(dict.fromkeys(b for b in _bars(written) if "100%" in b or b.startswith("3it")))
    assert finals == ["epoch: 100%|██████████| 3/3 [T, R/s]",
                      "train: 100%|██████████| 5/5 [T, R/s, acc=1, loss=0.123]",
                      "x: 100%|" + "█" * 10 + "| 2/2 [T, R/s]", "3it [T, R/s]"]
