"""Print the numerics match rates (the README's table) from the recorded data, no torch
needed:  PYTHONPATH=. python tests/tools/numerics_rates.py"""
from __future__ import annotations

import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

import numerics_data as nd  # noqa: E402
import test_numerics_fused as fused_tests  # noqa: E402
import test_numerics_matmul as matmul_tests  # noqa: E402
import test_numerics_reductions as reduction_tests  # noqa: E402
import test_numerics_softmax as softmax_tests  # noqa: E402

from gradtrace.engine import capability, exactness  # noqa: E402


class _Patch:
    """A minimal monkeypatch for the softmax helpers (undo on exit)."""

    def __init__(self) -> None:
        self.saved: list[tuple[object, str, object]] = []

    def setattr(self, obj: object, name: str, value: object) -> None:
        self.saved.append((obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    def undo(self) -> None:
        for obj, name, value in reversed(self.saved):
            setattr(obj, name, value)
        self.saved.clear()


def main() -> None:
    for cap in nd.recorded_capabilities():
        capability.CAPABILITY = cap
        capability.BLAS_PLATFORM = "mkl-avx2"
        print(f"== {cap}")
        rates = nd.Rates()
        for case in nd.load(cap, "reductions"):
            shape, layout = tuple(case["shape"]), case["layout"]
            base = nd.floats(case["seed"], nd.base_shape(shape, layout))
            near = nd.view((1 + base / np.float32(64)).astype(np.float32), layout, shape)
            with np.errstate(all="ignore"):
                got = reduction_tests.compute(case, nd.view(base, layout, shape), near)
            rates.add(case["op"], nd.same_bits(got, case["out"]))
        print("reductions:", rates.report())
        for tables in (True, False):
            rates = nd.Rates()
            for case in nd.load(cap, "softmax"):
                patch = _Patch()
                try:
                    ok = nd.same_bits(softmax_tests.run(case, patch, tables), case["out"])
                except AssertionError:
                    ok = np.zeros(case["out"].shape, bool)
                patch.undo()
                rates.add(softmax_tests.family(case), ok)
            label = "with torch's exp/log" if tables else "with gradtrace's exp/log"
            print(f"softmax family {label}:", rates.report())
        known, unknown = nd.Rates(), nd.Rates()
        arrays = {size: matmul_tests.inputs(*size) for size in nd.matmul_sizes()}
        for case in nd.load(cap, "matmul"):
            exactness.reset()
            with np.errstate(all="ignore"):
                got = matmul_tests.compute(case["op"], arrays[(case["m"], case["k"], case["n"])])
            (unknown if exactness.causes() else known).add(case["op"],
                                                           nd.same_bits(got, case["out"]))
        print("matmul, order claimed:", known.report())
        print("matmul, order not claimed:", unknown.report())
        rates = nd.Rates()
        for case in nd.load(cap, "fused"):
            got = fused_tests.compute(case["op"], *fused_tests.inputs(case["dtype"], case["size"]))
            rates.add(case["dtype"], nd.same_bits(got, case["out"]))
        print("fused:", rates.report())


if __name__ == "__main__":
    main()
