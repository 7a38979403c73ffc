#!/usr/bin/env python3
"""Where the memory of a recorded scalar graph goes, per node, by allocation site.

    python benchmarks/memory.py [ITERATIONS]     # default 50,000 iterations = 100,000 nodes

Runs the scale workload's loop (`y = y * 0.9999 + 0.0001`, no backward, so every saved
tensor is still alive: the peak) in this process under tracemalloc, keeps the graph
alive, and prints the bytes per recorded node that each source line allocated. Run it
with the project python (.venv/bin/python). Complements run.py, which measures the whole
process's peak RSS (that includes allocator overhead: typically 10-20% more).
"""
import gc
import linecache
import sys
import tracemalloc

from gradtrace.runner import run_text


def main() -> None:
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    nodes = 2 * iterations
    src = ("import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x\n"
           f"for i in range({iterations}):\n    y = y * 0.9999 + 0.0001\n")
    run_text("import torch\nx = torch.tensor(1.0) * 2.0\n")  # imports, parser: not counted
    gc.collect()
    tracemalloc.start(1)
    before = tracemalloc.take_snapshot()
    result = run_text(src)  # noqa: F841  (keeps the graph alive through `y`)
    gc.collect()
    after = tracemalloc.take_snapshot()
    stats = after.compare_to(before, "lineno")
    total = sum(s.size_diff for s in stats)
    print(f"{nodes:,} recorded nodes: {total / nodes:.0f} bytes per node allocated by Python "
          "code (tracemalloc)\n")
    print(f"{'B/node':>7} {'obj/node':>8}  site")
    for s in stats[:15]:
        if s.size_diff / nodes < 1:
            break
        frame = s.traceback[0]
        name = frame.filename.split("site-packages/")[-1]
        name = name[name.find("gradtrace/"):] if "gradtrace/" in name else name
        code = linecache.getline(frame.filename, frame.lineno).strip()
        print(f"{s.size_diff / nodes:7.1f} {s.count_diff / nodes:8.2f}  "
              f"{name}:{frame.lineno}  {code[:72]}")


if __name__ == "__main__":
    main()
