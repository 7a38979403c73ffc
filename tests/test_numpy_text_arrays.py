"""numpy arrays of text (`<U` strings) as scripts use them: class-name lookups by a
prediction, `np.binary_repr` digits made an array (LibMTL's DSelect-k gate), comparisons
with a label; compared with python + torch. Their elements come out as Python strings, and
every way a script could make a wide array (long strings going in, `+` joining, wide dtypes,
repeat and tile) is refused or limited before numpy allocates it.

The torch comparisons are skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import each_expression, gradtrace_output, torch_output

from gradtrace.runner import run_text

SETUP = """import numpy as np
classes = np.array(['cat', 'dog', 'bird'])
digits = np.array([list(np.binary_repr(v, width=3)) for v in range(4)])
"""

TEXT = each_expression([
    "classes",
    "repr(classes)",
    "classes.dtype, classes.shape, classes.ndim",
    "classes[torch.tensor([2, 0, 1]).numpy()]",
    "classes[1], classes[-1].upper(), len(classes[2])",
    "classes.tolist()",
    "classes == 'dog'",
    "(classes != 'cat').sum()",
    "np.where(classes == 'dog')",
    "np.unique(np.array(['b', 'a', 'b']))",
    "np.concatenate([classes, np.array(['x'])])",
    "np.stack([classes, classes]).shape",
    "' '.join(classes)",
    "digits",
    "digits.astype(bool)",
    "digits.astype(int)",
    "torch.from_numpy(digits.astype(int))",
    "np.array(['1.5', '2']).astype(np.float32)",
    "np.array([1, 2]).astype(str)",
    "np.binary_repr(-3, width=4), np.base_repr(255, 16), np.base_repr(5, 2, 3)",
    "torch.from_numpy(classes)",
    "torch.tensor(classes)",
    "classes + 1",
], setup=SETUP)


def test_text_arrays_print_index_compare_and_convert_as_numpy_and_torch_do():
    pytest.importorskip("torch")
    assert gradtrace_output(TEXT) == torch_output(TEXT)


def test_an_element_of_a_text_array_is_a_python_string():
    result = run_text(SETUP + "print(type(classes[0]).__name__, classes[0].title())\n")
    assert result.error is None and result.stdout == "str Cat\n"


@pytest.mark.parametrize("expression", [
    "np.array(['x' * 65])",
    "np.array([['y' * 10**6] * 1000])",
    "classes.astype('U100000')",
    "np.zeros(3, dtype='U1000')",
    "np.array(['a' * 64]) + np.array(['b' * 64])",
])
def test_text_wider_than_the_limit_is_refused(expression: str):
    result = run_text(SETUP + f"{expression}\n")
    assert result.error is not None and result.error.kind == "NotSupportedError"


@pytest.mark.parametrize("expression", [
    "np.repeat(np.array(['z' * 64]), 10**7)",
    "np.tile(np.array(['w' * 64]), 10**7)",
    "np.array(['v' * 64]).repeat(10**7)",
])
def test_a_repeat_of_wide_text_is_sized_by_its_width(expression: str):
    # 10**7 elements of 256 bytes: over the default 1 GiB before numpy allocates them
    result = run_text(SETUP + f"{expression}\n")
    assert result.error is not None and result.error.kind == "LimitError", result.error
