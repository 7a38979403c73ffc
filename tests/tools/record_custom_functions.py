"""Record what torch shows for the custom Function scenarios (tests/custom_function_scenarios.py).

Run under a Python with torch 2.13 and the repo on the path:

    PYTHONPATH=. python tests/tools/record_custom_functions.py

writes tests/data/custom_function_cases.json: scenario name -> logged lines.
"""
from __future__ import annotations

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from custom_function_scenarios import SCENARIOS, TorchBackend, observe  # noqa: E402


def main() -> None:
    import torch

    backend = TorchBackend()
    cases = {name: observe(backend, scenario) for name, scenario in SCENARIOS.items()}
    out = HERE / "data" / "custom_function_cases.json"
    data = {"torch": torch.__version__, "cases": cases}
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{out}: {len(cases)} scenarios")


if __name__ == "__main__":
    main()
