"""A script's numpy formatter belongs to its run: numpy's print options are the process's,
and the functions are the script's (tests/conformance_extra/numpy_print_formatter.gt holds
what numpy prints with them)."""
from __future__ import annotations

import io

import numpy as np

from gradtrace.runner import run_text

SET = """
import numpy as np
np.set_printoptions(formatter={'float': lambda v: f"<{v:.1f}>"})
print(np.array([1.25]))
"""


def test_a_formatter_ends_with_its_run_and_the_next_run_prints_plainly():
    first = run_text(SET, stdout=io.StringIO())
    assert first.error is None and first.stdout == "[<1.2>]\n"
    assert np.get_printoptions()["formatter"] is None
    second = run_text("import numpy as np\nprint(np.array([1.25]))\n", stdout=io.StringIO())
    assert second.stdout == "[1.25]\n"


def test_a_run_that_fails_inside_a_formatter_leaves_none_set():
    result = run_text(SET.replace('f"<{v:.1f}>"', "1 / 0"), stdout=io.StringIO())
    assert result.error is not None and result.error.kind == "ZeroDivisionError"
    assert np.get_printoptions()["formatter"] is None
