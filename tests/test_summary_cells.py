"""The fast paths of what the views show of large arrays keep the slow paths' results.

`Summary.of` takes a matrix's corners with two `take`s (cheaper than one `np.ix_` fancy
index), and `array_cell` of a long array formats only the values `summarise` can keep,
finding the brackets from the flat index: both must give exactly what the general code
gives (the report and explain print them byte for byte).
"""
from __future__ import annotations

import numpy as np
import pytest

from gradtrace.engine import dtypes
from gradtrace.engine.tensor_str import tensor_repr
from gradtrace.render.values import _DTYPE_SUFFIX, array_cell, summarise
from gradtrace.summary import Summary, _corner_index

DTYPES = [np.float32, np.float64, np.float16, np.int64, np.bool_, np.dtype(">f4")]


def _layouts(rng: np.random.Generator, rows: int, cols: int, dtype: object) -> list:
    base = (rng.standard_normal((2 * rows, 2 * cols)) * 10).astype(dtype)
    block = base[:rows, :cols]
    return [block, base[::2, ::2], base.T[:cols, :rows], block.copy(),
            np.asfortranarray(block)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_matrix_corners_are_the_fancy_index_bytes(dtype: object) -> None:
    rng = np.random.default_rng(0)
    for rows in (7, 13, 600):
        for cols in (1, 6, 7, 300):
            for a in _layouts(rng, rows, cols, dtype):
                if a.size <= 1000:
                    continue
                expected = a[_corner_index(a.shape)]
                corners = Summary.of(a).corners
                assert corners.dtype == expected.dtype
                assert corners.shape == expected.shape
                assert corners.strides == expected.strides
                assert corners.tobytes() == expected.tobytes()


def _slow_cell(array: np.ndarray, limit: int) -> str:
    """array_cell's general path: the whole one-line tensor_repr text, summarised."""
    text = tensor_repr(array, dtypes.from_numpy(array.dtype))
    text = " ".join(part.strip() for part in text.splitlines())
    inner = _DTYPE_SUFFIX.sub("", text[len("tensor("):-1])
    return summarise(" ".join(inner.split()), limit)


SHAPES = [(130,), (999,), (512, 1), (1, 512), (2, 100), (4, 250), (250, 4), (3, 1, 50),
          (1, 1, 300), (7, 9, 11), (5, 1, 1, 40), (10, 10, 10), (1, 2, 1, 3, 1, 40)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_long_cell_is_the_summarised_tensor_text(shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64, np.int64, np.bool_):
        for scale in (1, 1e-5, 1e6):
            a = (rng.standard_normal(shape) * scale).astype(dtype)
            if a.dtype.kind == "f":
                a.reshape(-1)[3] = np.nan
                a.reshape(-1)[-2] = -np.inf
            for view in (a, a.T):
                for limit in (30, 60, 90):
                    if not 2 * limit + 2 < view.size <= 1000:
                        continue  # (array_cell takes the general path itself)
                    assert array_cell(view, limit) == _slow_cell(view, limit)
