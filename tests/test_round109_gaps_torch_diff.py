"""Differential tests against live PyTorch 2.13 (and numpy) for the gaps the realworld
corpus's round 109 (university course notebooks) found: NYU DLSP20's sequence
classification notebook ships Keras's pad_sequences, which asks `hasattr(x, '__len__')` of
each numpy array and `np.issubdtype(dtype, np.str_)` before padding; hasattr refused a
dunder numpy's array has (as it answers for a name torch has), np.str_ was not a name, and
np.dtype(np.float32) gave back the class instead of numpy's dtype object.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


HASATTR = """import numpy as np
a = np.zeros((2, 3))
print(hasattr(a, '__len__'), hasattr(a, '__iter__'), hasattr(a, '__array_interface__'))
print(hasattr(a, 'shape'), hasattr(a, 'nope'), hasattr(a, '__nope__'))
print(hasattr(np.float64(1.0), '__len__'), hasattr(np.int64(3), '__index__'))
print(getattr(np.float64(1.0), '__len__', 'absent'), getattr(a, 'nope', 'absent'))
print(hasattr(np.dtype('float32'), '__len__'), hasattr(np.finfo(np.float32), '__len__'))
sequences = [np.ones((3, 2)), [1, 2], 'ab']
print([hasattr(x, '__len__') for x in sequences], [len(x) for x in sequences])
"""


def test_hasattr_answers_for_numpy_values_as_numpy_does() -> None:
    """hasattr on a numpy array, scalar, dtype or finfo answers whether numpy's own object
    has the name, dunders included (reading a refused one stays refused); getattr with a
    default gives the default for a name numpy's object lacks."""
    assert gradtrace_output(HASATTR) == torch_output(HASATTR)


TEXT_DTYPE = """import numpy as np
print(np.str_, np.issubdtype('int32', np.str_), np.issubdtype(np.array(['a']).dtype, np.str_))
print(np.issubdtype(np.float32, np.str_), issubclass(np.str_, str), issubclass(np.str_, np.generic))
a = np.array(['x', 'yy'], dtype=np.str_)
print(a, a.dtype, np.zeros(2, dtype=np.str_), np.array([1, 22], dtype=np.str_))
print(a.dtype == np.str_, np.dtype(np.str_), np.str_ == np.str_, {np.str_: 1})
x = np.array(['a', 'b', 'c'])
x[0] = 'B'
print(''.join(x), x.dtype.kind)
"""


def test_numpy_str_names_text_as_a_dtype() -> None:
    """np.str_ is numpy's text type for dtype arguments, issubdtype and issubclass."""
    assert gradtrace_output(TEXT_DTYPE) == torch_output(TEXT_DTYPE)


DTYPE_OBJECT = """import numpy as np
print(np.dtype(np.float32), np.dtype(float), np.dtype(None), np.dtype('int8'), np.dtype(int))
print(np.dtype(bool), np.dtype(str), np.dtype(np.zeros(2).dtype), np.dtype(np.uint8).name)
d = np.dtype(np.float32)
print(d.itemsize, d == np.float32, d.kind, repr(d), np.zeros(2, dtype=np.dtype(np.int16)))
print(np.dtype(np.floating))
"""


def test_numpy_dtype_of_a_type_is_numpys_dtype_object() -> None:
    """np.dtype(np.float32) is numpy's dtype float32 (printed `float32`), not the class;
    None is numpy's default float64; an abstract class is numpy's TypeError."""
    assert gradtrace_output(DTYPE_OBJECT) == torch_output(DTYPE_OBJECT)


@pytest.mark.parametrize("line", [
    "isinstance(np.array(['a'])[0], np.str_)",
    "np.str_('a')",
])
def test_numpy_str_values_are_refused(line: str) -> None:
    """A text array's elements are Python's str in scripts, so isinstance with np.str_
    (True under numpy) and np.str_'s own values are refused, not answered otherwise."""
    out = gradtrace_output(f"import numpy as np\nprint({line})\n")
    assert out.startswith("NotSupportedError ") and "Python's str" in out
