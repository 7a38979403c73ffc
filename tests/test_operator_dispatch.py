"""The interpreter's direct Tensor operator calls give what Python's operator dispatch gives."""
from __future__ import annotations

import numpy as np
import pytest

from gradtrace.engine.tensor import Tensor
from gradtrace.errors import GradtraceError
from gradtrace.interpreter.operators import BINOPS, TENSOR_BINOPS, TENSOR_RBINOPS


def _outcome(fn, a, b):
    try:
        out = fn(a, b)
    except GradtraceError as err:
        return ("error", type(err).__name__, str(err))
    except (TypeError, ValueError) as err:  # Python's (or numpy's) own errors
        return ("python error", type(err).__name__, str(err))
    return ("value", out.dtype, out.array.shape, out.array.tobytes())  # NaN-safe, bitwise


OPERANDS = {
    "float": Tensor(np.array([1.5, -2.0, 3.25], dtype=np.float32)),
    "int": Tensor(np.array([3, -4, 5], dtype=np.int64)),
    "bool": Tensor(np.array([True, False, True])),
}
NUMBERS = [2, 0.5, -3, 1]


@pytest.mark.parametrize("op", sorted(BINOPS))
@pytest.mark.parametrize("kind", sorted(OPERANDS))
def test_tensor_op_number_matches_python_dispatch(op, kind):
    t = OPERANDS[kind]
    for n in NUMBERS:
        assert _outcome(TENSOR_BINOPS[op], t, n) == _outcome(BINOPS[op], t, n), (op, n)
        expected = _outcome(BINOPS[op], n, t)
        if op in TENSOR_RBINOPS:
            assert _outcome(TENSOR_RBINOPS[op], t, n) == expected, (op, n)
        else:
            assert expected[0] == "python error"  # the interpreter keeps Python's path


@pytest.mark.parametrize("op", sorted(BINOPS))
def test_tensor_op_tensor_matches_python_dispatch(op):
    for a in OPERANDS.values():
        for b in OPERANDS.values():
            assert _outcome(TENSOR_BINOPS[op], a, b) == _outcome(BINOPS[op], a, b), op
