"""Record real torch output for conformance-style cases.

Run under a Python that has torch 2.13 (not the project venv):

    python tests/tools/record_conformance.py tests/conformance_extra [CASE.gt ...]

For each `NAME.gt` it writes `NAME.out` (stdout with memory addresses written `0x?`, the
normalisation of ../shared/conformance/check.py) and, when the script ends with an uncaught
exception, `NAME.err` with the last traceback line; a stale `.err` is removed otherwise.
"""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

ADDR = re.compile(r"0x[0-9a-fA-F]+")


def record(case: pathlib.Path) -> None:
    proc = subprocess.run([sys.executable, case.name], cwd=case.parent, capture_output=True,
                          text=True, timeout=120)
    case.with_suffix(".out").write_text(ADDR.sub("0x?", proc.stdout))
    err = case.with_suffix(".err")
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        err.write_text(lines[-1] + "\n")
    elif err.exists():
        err.unlink()
    print(f"{case.name}: exit {proc.returncode}")


def main() -> None:
    cases: list[pathlib.Path] = []
    for arg in sys.argv[1:]:
        p = pathlib.Path(arg)
        cases += sorted(p.glob("*.gt")) if p.is_dir() else [p]
    for case in cases:
        record(case)


if __name__ == "__main__":
    main()
