#!/usr/bin/env python3
"""gradtrace benchmarks: whole processes, timed alternately, side by side with torch and numpy.

    python benchmarks/run.py [--rounds N] [--quick] [--torch-python PATH] [--json FILE]

Every measurement is one whole process (interpreter start, imports, parse, run, exit),
started from here and waited for with os.wait4, which also gives the child's peak
resident memory (ru_maxrss). In each round every command runs once, in an order that
alternates between rounds, so slow drifts of the machine hit all runners alike. The
tables show the median and min-max over the rounds, and "compute-only" time: the
median minus the median of an empty script for the same runner (`import torch` under
gradtrace or python + torch, `import numpy` for the hand-written numpy).

Standard library only; torch is used when its Python is found (see --torch-python).
See benchmarks/README.md for what each workload does and the last recorded run.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "workloads"
TIMED = HERE / "timed.py"

# Limits passed to gradtrace when its commands have the option: the defaults (60 s, 1 GiB
# of tensors plus a data-segment cap) protect users; a benchmark should not hit them.
GT_LIMITS = {"--timeout": "3600", "--max-memory": "8192"}
PROCESS_TIMEOUT = 1800.0  # seconds; a child running longer is killed and marked failed

BODY_RE = re.compile(r"gradtrace-bench: import_s=\S+ body_s=(\S+) body_cpu_s=(\S+)")

SCALE_SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}


# --------------------------------------------------------------------------- runners


@dataclass
class Runners:
    gradtrace: list[str]  # argv prefix for the gradtrace CLI (through timed.py)
    numpy_python: str  # the project venv's python: gradtrace's, and the hand-written numpy's
    torch_python: str | None  # a python that imports torch, or None
    torch_version: str | None
    torch_note: str  # how torch was found, or why not
    gt_env: dict[str, str]
    env: dict[str, str]
    pyc_note: str


def _probe(python: str, code: str) -> str | None:
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def find_torch(explicit: str | None) -> tuple[str | None, str | None, list[str]]:
    """(a python that imports torch, its torch version, the pythons tried): `explicit` if
    given, else /work/torchenv's python, else python3."""
    if explicit:
        candidates = [explicit]
    else:
        candidates = [p for p in ("/work/torchenv/bin/python",) if Path(p).exists()]
        candidates += [c for c in ("python3",) if shutil.which(c)]
    tried = []
    for cand in candidates:
        tried.append(cand)
        version = _probe(cand, "import torch; print(torch.__version__)")
        if version:
            return cand, version, tried
    return None, None, tried


def find_runners(args: argparse.Namespace) -> Runners:
    venv_bin = ROOT / ".venv" / "bin"
    if args.python:
        numpy_python = args.python
    else:
        numpy_python = str(venv_bin / "python") if (venv_bin / "python").exists() \
            else sys.executable
    if _probe(numpy_python, "import gradtrace.cli, numpy") is None:
        sys.exit(f"benchmarks: {numpy_python} cannot import gradtrace and numpy (install the "
                 "project, or pass --python PATH)")
    # `python timed.py gradtrace ARGS` does what the console script does (import
    # gradtrace.cli, call main) and also reports the time after that import
    gt = [numpy_python, str(TIMED), "gradtrace"]

    torch_python, torch_version, tried = find_torch(args.torch_python)
    if torch_python:
        note = f"torch {torch_version} via {torch_python}"
    else:
        note = ("torch NOT FOUND (tried: " + (", ".join(tried) or "nothing") +
                ") - every torch column and torch ratio is skipped")

    env = dict(os.environ)
    gt_env = dict(env)
    if args.no_pyc_cache:
        pyc_note = ("environment as is" +
                    (" (PYTHONDONTWRITEBYTECODE is set: gradtrace's own modules are compiled "
                     "from source in every process)" if env.get("PYTHONDONTWRITEBYTECODE")
                     else ""))
    else:
        # A pip-installed gradtrace has .pyc files; an editable checkout under
        # PYTHONDONTWRITEBYTECODE=1 would recompile its sources in every process. Give the
        # gradtrace processes a bytecode cache outside the repository, as an install would.
        cache = Path(tempfile.gettempdir()) / "gradtrace-bench-pycache"
        gt_env.pop("PYTHONDONTWRITEBYTECODE", None)
        gt_env["PYTHONPYCACHEPREFIX"] = str(cache)
        pyc_note = f"gradtrace processes use a .pyc cache in {cache} (as an install would)"
    for e in (env, gt_env):
        e.pop("FORCE_COLOR", None)
        e["NO_COLOR"] = "1"
        if args.blas_threads:
            # numpy's OpenBLAS and torch's OpenMP pool: on a busy 2-core machine their
            # spinning worker threads can make small matmuls 3-10x slower (README)
            e["OPENBLAS_NUM_THREADS"] = e["OMP_NUM_THREADS"] = str(args.blas_threads)
    if args.blas_threads:
        pyc_note += f"; OPENBLAS_NUM_THREADS=OMP_NUM_THREADS={args.blas_threads} for all"
    else:
        pyc_note += "; BLAS/OpenMP threads as the environment says (" + ", ".join(
            f"{k}={env.get(k, 'unset')}" for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"))\
            + ")"
    return Runners(gt, numpy_python, torch_python, torch_version, note, gt_env, env, pyc_note)


# --------------------------------------------------------------------------- commands


@dataclass
class Command:
    key: str  # e.g. "gradtrace:train"
    runner: str  # gradtrace | torch | numpy
    workload: str  # e.g. "train"
    argv: list[str]
    env: dict[str, str] = field(repr=False)
    seconds: list[float] = field(default_factory=list)  # whole process, wall clock
    body: list[float] = field(default_factory=list)  # in-process, after the runner's import
    cpu: list[float] = field(default_factory=list)  # whole process, user + system CPU time
    body_cpu: list[float] = field(default_factory=list)  # in-process CPU time, after import
    rss_kb: list[int] = field(default_factory=list)
    stdout: str | None = None
    failures: list[str] = field(default_factory=list)  # one message per failed round

    @property
    def ok(self) -> bool:
        return bool(self.seconds)

    @property
    def error(self) -> str | None:
        """Why there are no samples (None when there are some)."""
        if self.ok:
            return None
        return self.failures[0] if self.failures else "not run"

    @property
    def given_up(self) -> bool:
        """Failed twice and never succeeded: a real failure (a missing op, a crash), not a
        colleague's half-saved edit; stop spending time on it."""
        return not self.seconds and len(self.failures) >= 2

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.ok else None

    @property
    def cpu_median(self) -> float | None:
        return statistics.median(self.cpu) if self.ok and self.cpu else None

    @property
    def body_cpu_median(self) -> float | None:
        return statistics.median(self.body_cpu) if self.ok and self.body_cpu else None

    @property
    def body_median(self) -> float | None:
        return statistics.median(self.body) if self.ok and self.body else None

    @property
    def rss_median_kb(self) -> float | None:
        return statistics.median(self.rss_kb) if self.ok else None


def run_process(argv: list[str], env: dict[str, str]
                ) -> tuple[float, float, int, int, str, str]:
    """Run one whole process: (wall s, CPU s (user + system), peak RSS in KB, exit status,
    stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                env=env, cwd=ROOT)
        timer = threading.Timer(PROCESS_TIMEOUT, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        elapsed = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code
        out.seek(0)
        err.seek(0)
        return (elapsed, usage.ru_utime + usage.ru_stime, int(usage.ru_maxrss), code,
                out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"))


def measure(cmd: Command) -> None:
    secs, cpu, rss, code, out, err = run_process(cmd.argv, cmd.env)
    if code != 0:
        lines = [ln.strip() for ln in err.splitlines()
                 if ln.strip() and not ln.startswith("gradtrace-bench:")]
        errors = [ln for ln in lines if "Error" in ln or "error" in ln]
        cmd.failures.append(f"exit {code}: " + ((errors or lines or ["(no stderr)"])[0])[:200])
        return
    m = BODY_RE.search(err)
    if m is None:
        cmd.failures.append("no timing line from timed.py on stderr")
        return
    cmd.seconds.append(secs)
    cmd.cpu.append(cpu)
    cmd.body.append(float(m.group(1)))
    cmd.body_cpu.append(float(m.group(2)))
    cmd.rss_kb.append(rss)
    if cmd.stdout is None:
        cmd.stdout = out


def limit_options(r: Runners, command: str) -> list[str]:
    """GT_LIMITS options that `gradtrace COMMAND --help` lists."""
    res = subprocess.run([*r.gradtrace, command, "--help"], capture_output=True, text=True,
                         env=r.gt_env)
    return [x for opt, val in GT_LIMITS.items() if opt in res.stdout for x in (opt, val)]


def build_commands(r: Runners, has_explain: bool, torch_scale: bool = True
                   ) -> tuple[list[Command], list[Command]]:
    gt = r.gradtrace
    run_limits = limit_options(r, "run")
    explain_limits = limit_options(r, "explain") if has_explain else []

    def gtq(name: str) -> list[str]:
        return [*gt, "run", "--quiet", *run_limits, str(WORK / name)]

    npy = [r.numpy_python, str(TIMED), "module", "numpy"]
    main: list[Command] = []
    scale: list[Command] = []

    def add(group: list[Command], runner: str, workload: str, argv: list[str]) -> None:
        env = r.gt_env if runner == "gradtrace" else r.env
        group.append(Command(f"{runner}:{workload}", runner, workload, argv, env))

    add(main, "gradtrace", "empty", gtq("empty.gt"))
    add(main, "numpy", "empty", [*npy, str(WORK / "empty_numpy.py")])
    add(main, "gradtrace", "startup", gtq("startup.gt"))
    add(main, "gradtrace", "help", [*gt, "--help"])
    add(main, "gradtrace", "scalar", gtq("scalar_graph.gt"))
    add(main, "gradtrace", "train", gtq("train_mlp.gt"))
    add(main, "numpy", "train", [*npy, str(WORK / "train_mlp_numpy.py")])
    add(main, "gradtrace", "python", gtq("python_loop.gt"))
    add(main, "numpy", "python", [*npy, str(WORK / "python_loop.gt")])
    add(main, "gradtrace", "train-report",
        [*gt, "run", *run_limits, str(WORK / "train_mlp.gt")])
    if has_explain:
        add(main, "gradtrace", "train-explain",
            [*gt, "explain", *explain_limits, str(WORK / "train_mlp.gt")])
    for size in ("10k", "100k"):
        add(main, "gradtrace", f"scale-{size}", gtq(f"scale_{size}.gt"))
    add(scale, "gradtrace", "scale-1m", gtq("scale_1m.gt"))
    if r.torch_python:
        tp = [r.torch_python, str(TIMED), "module", "torch"]
        # torch runs interleaved with the gradtrace commands of the same workload
        for workload, script in (("empty", "empty.gt"), ("startup", "startup.gt"),
                                 ("scalar", "scalar_graph.gt"), ("train", "train_mlp.gt"),
                                 ("scale-10k", "scale_10k.gt"), ("scale-100k", "scale_100k.gt")):
            idx = next(i for i, c in enumerate(main) if c.workload == workload) + 1
            main.insert(idx, Command(f"torch:{workload}", "torch", workload,
                                     [*tp, str(WORK / script)], r.env))
        if torch_scale:
            scale.append(Command("torch:scale-1m", "torch", "scale-1m",
                                 [*tp, str(WORK / "scale_1m.gt")], r.env))
    return main, scale


def run_rounds(cmds: list[Command], rounds: int, title: str, warmup: bool) -> None:
    if warmup:  # populate the page cache and the bytecode cache; not measured
        for c in cmds:
            if c.workload in ("empty", "startup", "help"):
                run_process(c.argv, c.env)
    for rnd in range(rounds):
        order = cmds if rnd % 2 == 0 else list(reversed(cmds))
        t0 = time.perf_counter()
        print(f"  {title}: round {rnd + 1}/{rounds} ", end="", file=sys.stderr, flush=True)
        for c in order:
            if not c.given_up:
                failed = len(c.failures)
                measure(c)
                print("x" if len(c.failures) > failed else ".", end="", file=sys.stderr,
                      flush=True)
        print(f" {time.perf_counter() - t0:.1f}s", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- analysis


CODE_PATHS = ("gradtrace", "grammar", "pyproject.toml")  # what a benchmark run measures


def code_state() -> str:
    """The commit under test, plus a fingerprint of local changes to the code (gradtrace/,
    grammar/: modified and untracked files, by content), so a mid-run edit shows."""
    import hashlib

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=60).stdout

    try:
        head = git("rev-parse", "--short", "HEAD").strip() or "?"
        digest = hashlib.sha1(git("diff", "HEAD", "--", *CODE_PATHS).encode())
        untracked = git("ls-files", "--others", "--exclude-standard", "--", *CODE_PATHS)
        files = [f for f in untracked.splitlines() if f.strip()]
        for f in sorted(files):
            digest.update(f.encode())
            try:
                digest.update((ROOT / f).read_bytes())
            except OSError:
                pass
        dirty = bool(git("status", "--porcelain", "--", *CODE_PATHS).strip())
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return head + (f" + local changes (fingerprint {digest.hexdigest()[:10]})" if dirty
                   else " (clean)")


# The x86 levels numpy's runtime dispatch found (np.show_runtime()'s "found" list): X86_V4 means
# AVX-512 kernels (float64 tanh/exp/log among them); X86_V3 alone is an AVX2 machine, or an
# AVX-512 one with NPY_DISABLE_CPU_FEATURES switching the AVX-512 features off.
NUMPY_SIMD = (
    "import os, numpy\n"
    "from numpy._core._multiarray_umath import __cpu_features__ as f\n"
    "found = [k for k in ('X86_V2', 'X86_V3', 'X86_V4') if f.get(k)]\n"
    "off = os.environ.get('NPY_DISABLE_CPU_FEATURES')\n"
    "print(' '.join(found) or 'baseline', '(highest: ' + (found[-1] if found else '-') + ')'"
    " + (', NPY_DISABLE_CPU_FEATURES=' + off if off else ''))"
)


def machine_info(r: Runners) -> dict[str, str]:
    info: dict[str, str] = {}
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor() or "?"
    info["cpu"] = cpu
    info["cores"] = str(os.cpu_count())
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory"] = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    info["os"] = platform.platform()
    info["gradtrace python"] = _probe(
        r.numpy_python, "import sys, numpy; print(sys.version.split()[0], '/ numpy', "
        "numpy.__version__)") or "?"
    info["numpy SIMD"] = _probe(r.numpy_python, NUMPY_SIMD) or "?"
    info["torch"] = r.torch_note
    if r.torch_python:
        info["torch python"] = _probe(
            r.torch_python, "import sys, numpy, torch; print(sys.version.split()[0], '/ numpy',"
            " numpy.__version__, '/ torch threads', torch.get_num_threads())") or "?"
        info["torch CPU capability"] = _probe(
            r.torch_python, "import os, torch; print(torch.backends.cpu.get_cpu_capability(),"
            " '(ATEN_CPU_CAPABILITY=' + os.environ.get('ATEN_CPU_CAPABILITY', 'unset') + ')')"
        ) or "?"
    info["environment"] = r.pyc_note
    return info


def fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x * 1000:.0f} ms" if abs(x) < 1 else f"{x:.2f} s"


def loss_of(text: str | None) -> float | None:
    m = re.search(r"final loss ([-+0-9.eE]+)", text or "")
    return float(m.group(1)) if m else None


@dataclass
class Ratio:
    name: str
    value: float | None
    target: float | None  # None: informational
    unit: str = "x"
    note: str = ""
    inproc: float | None = None  # the same ratio from in-process body times (timed.py)
    cpu: float | None = None  # the same ratio from CPU times (user + system) of the processes
    # which column the status is judged on: "wall" (whole-process and memory rows) or
    # "in-proc" (compute-only rows: subtracting two whole-process medians is swamped by
    # torch's import-time jitter of +-0.5 s, the in-process clock excludes start-up exactly)
    basis: str = "wall"

    @property
    def judged(self) -> float | None:
        return self.inproc if self.basis == "in-proc" else self.value

    @property
    def status(self) -> str:
        if self.target is None:
            return "info"
        if self.judged is None:
            return "n/a"
        return "met" if self.judged <= self.target else "NOT met"


def analyse(cmds: list[Command], r: Runners) -> tuple[list[Ratio], list[str]]:
    by = {c.key: c for c in cmds}

    def med(key: str) -> float | None:
        c = by.get(key)
        return c.median if c else None

    def cmed(key: str) -> float | None:
        c = by.get(key)
        return c.cpu_median if c else None

    def compute(key: str) -> float | None:
        c = by.get(key)
        if c is None or not c.ok:
            return None
        empty = by.get(f"{c.runner}:empty")
        return c.median - empty.median if empty and empty.ok else None  # type: ignore[operator]

    def body_cpu(key: str) -> float | None:
        c = by.get(key)
        if c is None or c.body_cpu_median is None:
            return None
        empty = by.get(f"{c.runner}:empty")
        if empty is None or empty.body_cpu_median is None:
            return None
        return c.body_cpu_median - empty.body_cpu_median

    def body(key: str) -> float | None:
        c = by.get(key)
        if c is None or c.body_median is None:
            return None
        empty = by.get(f"{c.runner}:empty")
        if empty is None or empty.body_median is None:
            return None
        return c.body_median - empty.body_median

    def ratio(a: float | None, b: float | None) -> float | None:
        if a is None or b is None or b <= 0:
            return None
        return a / b

    def why(*keys: str) -> str:
        for k in keys:
            c = by.get(k)
            if c is None:
                if k.startswith("torch") and not r.torch_python:
                    return f"{k} not run: torch not found"
                return f"{k} not run" + (" (1M-node graph skipped: --no-scale, or torch in --quick)"
                                         if k.endswith("scale-1m") else "")
            if not c.ok:
                return f"{k} failed: {c.error}"
        return ""

    notes: list[str] = []
    rows: list[Ratio] = []
    rows.append(Ratio("startup: gradtrace run --quiet / python+torch, whole",
                      ratio(med("gradtrace:startup"), med("torch:startup")), 0.2,
                      note=why("gradtrace:startup", "torch:startup"),
                      cpu=ratio(cmed("gradtrace:startup"), cmed("torch:startup"))))
    rows.append(Ratio("startup: gradtrace --help / python+torch, whole",
                      ratio(med("gradtrace:help"), med("torch:startup")), 0.2,
                      note=why("gradtrace:help", "torch:startup"),
                      cpu=ratio(cmed("gradtrace:help"), cmed("torch:startup"))))
    def compute_row(label: str, a: str, b: str, target: float | None) -> Ratio:
        """a / b in compute time (whole process less its empty run), in-process time and
        in-process CPU time."""
        return Ratio(label, ratio(compute(a), compute(b)), target, note=why(a, b),
                     basis="in-proc", inproc=ratio(body(a), body(b)),
                     cpu=ratio(body_cpu(a), body_cpu(b)))

    rows.append(compute_row("scalar graph: gradtrace / torch, compute-only",
                            "gradtrace:scalar", "torch:scalar", 1.0))
    rows.append(compute_row("training loop: gradtrace / torch, compute-only",
                            "gradtrace:train", "torch:train", 2.0))
    rows.append(compute_row("training loop: gradtrace / numpy by hand, compute-only",
                            "gradtrace:train", "numpy:train", 1.5))
    rows.append(compute_row("training loop: torch / numpy by hand, compute-only",
                            "torch:train", "numpy:train", None))
    rows.append(compute_row("pure-Python loop: gradtrace / CPython, compute-only",
                            "gradtrace:python", "numpy:python", None))

    # scale: memory per node and growth
    def per_node_bytes(runner: str, size: str) -> float | None:
        c, e = by.get(f"{runner}:scale-{size}"), by.get(f"{runner}:empty")
        if not (c and c.ok and e and e.ok):
            return None
        return (c.rss_median_kb - e.rss_median_kb) * 1024 / SCALE_SIZES[size]  # type: ignore

    def per_node_time(runner: str, size: str, how: Any = None) -> float | None:
        t = (how or compute)(f"{runner}:scale-{size}")
        return None if t is None else t / SCALE_SIZES[size]

    mem = per_node_bytes("gradtrace", "1m")
    rows.append(Ratio("1M nodes: gradtrace peak memory per node, KiB",
                      None if mem is None else mem / 1024, 0.8, unit="KB", basis="peak RSS",
                      note=why("gradtrace:scale-1m", "gradtrace:empty")))
    tmem = per_node_bytes("torch", "1m")
    rows.append(Ratio("1M nodes: torch peak memory per node, KiB",
                      None if tmem is None else tmem / 1024, None, unit="KB",
                      note=why("torch:scale-1m", "torch:empty")))
    # linear: cost per node at the larger size / cost per node at the smaller one
    for a, b in (("100k", "1m"), ("10k", "100k")):
        ta, tb = per_node_time("gradtrace", a), per_node_time("gradtrace", b)
        ma, mb = per_node_bytes("gradtrace", a), per_node_bytes("gradtrace", b)
        target = 1.25 if (a, b) == ("100k", "1m") else None
        extra = "" if target else "10^4 nodes cost little more than the empty script"
        rows.append(Ratio(f"linear {a}->{b}: gradtrace time per node, ratio",
                          ratio(tb, ta), target,
                          note=why(f"gradtrace:scale-{a}", f"gradtrace:scale-{b}") or extra,
                          basis="in-proc",
                          inproc=ratio(per_node_time("gradtrace", b, body),
                                       per_node_time("gradtrace", a, body)),
                          cpu=ratio(per_node_time("gradtrace", b, body_cpu),
                                    per_node_time("gradtrace", a, body_cpu))))
        rows.append(Ratio(f"linear {a}->{b}: gradtrace memory per node, ratio",
                          ratio(mb, ma), target, basis="peak RSS",
                          note=why(f"gradtrace:scale-{a}", f"gradtrace:scale-{b}") or extra))
    rows.append(Ratio("1M nodes: gradtrace / torch, compute-only",
                      ratio(compute("gradtrace:scale-1m"), compute("torch:scale-1m")), None,
                      note=why("gradtrace:scale-1m", "torch:scale-1m"),
                      basis="in-proc",
                      inproc=ratio(body("gradtrace:scale-1m"), body("torch:scale-1m")),
                      cpu=ratio(body_cpu("gradtrace:scale-1m"), body_cpu("torch:scale-1m"))))
    rows.append(Ratio("report: run (tables) / run --quiet, training, whole",
                      ratio(med("gradtrace:train-report"), med("gradtrace:train")), 1.3,
                      note=why("gradtrace:train-report", "gradtrace:train"),
                      cpu=ratio(cmed("gradtrace:train-report"), cmed("gradtrace:train"))))
    if "gradtrace:train-explain" in by:
        rows.append(Ratio("explain: explain / run --quiet, training, whole",
                          ratio(med("gradtrace:train-explain"), med("gradtrace:train")), 1.3,
                          note=why("gradtrace:train-explain", "gradtrace:train"),
                          cpu=ratio(cmed("gradtrace:train-explain"), cmed("gradtrace:train"))))
    else:
        rows.append(Ratio("explain: explain / run --quiet, training, whole",
                          None, 1.3, note="skipped: `gradtrace explain --help` fails (no "
                          "explain command yet)"))

    # do the runners compute the same thing?
    for workload in ("startup", "scalar", "scale-10k", "scale-100k", "scale-1m"):
        g, t = by.get(f"gradtrace:{workload}"), by.get(f"torch:{workload}")
        if g and t and g.ok and t.ok:
            same = g.stdout == t.stdout
            notes.append(f"output {workload}: gradtrace {'==' if same else '!='} torch: "
                         f"{(g.stdout or '').strip()!r}"
                         + ("" if same else f" vs {(t.stdout or '').strip()!r}"))
    losses = {k: loss_of(by[f"{k}:train"].stdout) for k in ("gradtrace", "torch", "numpy")
              if f"{k}:train" in by and by[f"{k}:train"].ok}
    if losses:
        vals = [v for v in losses.values() if v is not None]
        spread = max(vals) - min(vals) if vals else float("nan")
        notes.append("training loop final loss: " + ", ".join(
            f"{k} {v:.6f}" if v is not None else f"{k} ?" for k, v in losses.items())
            + (f"; max difference {spread:.1e} ({'agree' if spread <= 1e-4 else 'DISAGREE'}"
               " to 1e-4)" if len(vals) > 1 else ""))
    return rows, notes


def print_report(cmds: list[Command], rows: list[Ratio], notes: list[str],
                 info: dict[str, str], elapsed: float, rounds: int, scale_rounds: int) -> None:
    print()
    print("Machine")
    for k, v in info.items():
        print(f"  {k:17} {v}")
    print(f"  rounds            {rounds} (1M-node graph: {scale_rounds})")
    print()
    empties = {c.runner: c for c in cmds if c.workload == "empty"}
    footnotes: list[str] = []
    print("Timings. median, min-max: whole process (wall clock) over the rounds. compute: "
          "median minus\nthe median of the runner's empty script. in-proc: the same from "
          "timed.py's clock inside\nthe process (after the runner's import). cpu: the same "
          "from the process's CPU time\n(also after the import). peak RSS: median ru_maxrss "
          "of the process.")
    hdr = f"{'workload':14} {'runner':9} {'median':>8} {'min-max':>17} {'compute':>8} " \
          f"{'in-proc':>8} {'cpu':>8} {'peak RSS':>8}"
    print(hdr)
    print("-" * len(hdr))
    for c in cmds:
        if not c.ok:
            print(f"{c.workload:14} {c.runner:9} FAILED {c.error}")
            continue
        if c.failures:
            footnotes.append(f"{c.key} failed in {len(c.failures)} of "
                             f"{len(c.failures) + len(c.seconds)} rounds (code edited mid-run?)"
                             f": {c.failures[0]}")
        e = empties.get(c.runner)
        base = e is None or not e.ok or c.workload == "empty"
        comp = None if base else c.median - e.median  # type: ignore[operator, union-attr]
        inp = None if base or not c.body or not e.body else \
            c.body_median - e.body_median  # type: ignore[operator, union-attr]
        cpu = None if base or not c.body_cpu or not e.body_cpu else \
            c.body_cpu_median - e.body_cpu_median  # type: ignore[operator, union-attr]
        mm = f"{fmt_s(min(c.seconds))}-{fmt_s(max(c.seconds))}"
        rss = f"{c.rss_median_kb / 1024:.0f} MB"  # type: ignore[operator]
        print(f"{c.workload:14} {c.runner:9} {fmt_s(c.median):>8} {mm:>17} "
              f"{fmt_s(comp):>8} {fmt_s(inp):>8} {fmt_s(cpu):>8} {rss:>8}")
    for note in footnotes:
        print(f"  note: {note}")
    print()
    print("Ratios against the targets of issues 6 and 17, from three clocks: wall (whole-process "
          "wall-clock\nmedians; compute-only = minus the empty script's), in-proc (timed.py's "
          "clock inside the\nprocess, after the runner's import) and cpu (CPU time: in-process "
          "for compute-only rows,\nof the whole process for whole-process rows). Whole-process"
          " and memory rows are judged\non wall, compute-only rows on in-proc: torch's import "
          "and shutdown jitter by +-0.3 s,\nwhich swamps a wall-clock difference of two "
          "processes.")
    w = max(len(r.name) for r in rows)
    hdr = f"{'measure':{w}} {'wall':>7} {'in-proc':>7} {'cpu':>7} {'target':>7}  status"
    print(hdr)
    print("-" * len(hdr))

    def fmt(v: float | None, unit: str) -> str:
        if v is None:
            return "-" if unit != "" else ""
        return f"{v:.2f}x" if unit == "x" else f"{v:.3f}"

    for r in rows:
        tgt = "" if r.target is None else (f"<={r.target:g}{r.unit}" if r.unit == "x"
                                           else f"<={r.target:g}")
        inp = "" if r.inproc is None else fmt(r.inproc, r.unit)
        cpu = "" if r.cpu is None else fmt(r.cpu, r.unit)
        status = r.status + (f" on {r.basis}" if r.judged is not None and r.target else "")
        line = f"{r.name:{w}} {fmt(r.value, r.unit):>7} {inp:>7} {cpu:>7} {tgt:>7}  {status}"
        if r.target is not None and r.judged is not None:
            others = [(n, v) for n, v in (("wall", r.value), ("in-proc", r.inproc),
                                          ("cpu", r.cpu)) if v is not None and n != r.basis]
            disagree = [f"{n} {'met' if v <= r.target else 'not met'}" for n, v in others
                        if (v <= r.target) != (r.judged <= r.target)]
            if disagree:
                line += " (" + ", ".join(disagree) + ")"
        if r.note:
            line += f"  [{r.note}]"
        print(line)
    print()
    for n in notes:
        print("  " + n)
    print(f"\nTotal benchmark time: {elapsed:.0f} s")


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=None,
                   help="rounds for every workload but the 1M-node graph (default 5, quick 2)")
    p.add_argument("--scale-rounds", type=int, default=None,
                   help="rounds for the 1M-node graph (default 3, quick 1)")
    p.add_argument("--quick", action="store_true",
                   help="2 rounds, the 1M-node graph once and without torch (about 2 minutes)")
    p.add_argument("--torch-python", metavar="PATH",
                   help="a python with torch (default: /work/torchenv/bin/python if present, "
                        "else python3 if it imports torch)")
    p.add_argument("--python", metavar="PATH", help="the python with gradtrace installed, also "
                   "used for the numpy script (default: the repository's .venv/bin/python)")
    p.add_argument("--no-scale", action="store_true", help="skip the 1M-node graph")
    p.add_argument("--no-pyc-cache", action="store_true",
                   help="run gradtrace with the environment as is (see README: bytecode)")
    p.add_argument("--blas-threads", type=int, metavar="N", default=1,
                   help="OPENBLAS_NUM_THREADS and OMP_NUM_THREADS for every runner (default "
                        "1; 0 leaves the environment as is - see README, 'BLAS threads')")
    p.add_argument("--json", metavar="FILE", help="also write every sample as JSON")
    p.add_argument("--from-json", metavar="FILE", help="print the tables of a run saved with "
                   "--json instead of running anything")
    args = p.parse_args(argv)
    if args.from_json:
        data = json.loads(Path(args.from_json).read_text())
        cmds = []
        for c in data["commands"]:
            c = {k: v for k, v in c.items() if k not in ("env", "error")}
            cmds.append(Command(**c, env={}))
        saved = Runners([], "", data.get("torch_python"), None, "", {}, {}, "")
        rows, notes = analyse(cmds, saved)
        print_report(cmds, rows, notes, data["machine"], data["elapsed_s"], data["rounds"],
                     data["scale_rounds"])
        return 0
    rounds = args.rounds or (2 if args.quick else 5)
    scale_rounds = args.scale_rounds or (1 if args.quick else 3)

    started = time.perf_counter()
    load_before = os.getloadavg()
    runners = find_runners(args)
    print(f"gradtrace: {' '.join(runners.gradtrace)}", file=sys.stderr)
    print(f"torch:     {runners.torch_note}", file=sys.stderr)
    has_explain = subprocess.run([*runners.gradtrace, "explain", "--help"],
                                 capture_output=True, env=runners.gt_env).returncode == 0
    if not has_explain:
        print("explain:   `gradtrace explain --help` fails: the explain overhead is skipped",
              file=sys.stderr)
    info = machine_info(runners)
    code_before = code_state()
    main_cmds, scale_cmds = build_commands(runners, has_explain, torch_scale=not args.quick)
    run_rounds(main_cmds, rounds, "workloads", warmup=True)
    if not args.no_scale:
        run_rounds(scale_cmds, scale_rounds, "1M-node graph", warmup=False)
    else:
        scale_cmds = []
    cmds = main_cmds + scale_cmds
    code_after = code_state()
    info["code"] = code_before if code_after == code_before else \
        f"CHANGED DURING THE RUN: {code_before} -> {code_after} (rerun for clean numbers)"
    load_after = os.getloadavg()
    info["load average"] = (f"{load_before[0]:.2f} before, {load_after[0]:.2f} after (1-minute;"
                            " the benchmark itself adds about 1)")
    if max(load_before[0], load_after[0] - 1) > 0.5:
        info["WARNING"] = ("other processes were using the CPU during the run: wall-clock "
                           "numbers are inflated and noisy; trust the cpu column more, or rerun")
    rows, notes = analyse(cmds, runners)
    elapsed = time.perf_counter() - started
    print_report(cmds, rows, notes, info, elapsed, rounds, scale_rounds)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "machine": info, "rounds": rounds, "scale_rounds": scale_rounds,
            "torch_python": runners.torch_python,
            "elapsed_s": elapsed,
            "commands": [{k: v for k, v in asdict(c).items() if k != "env"} for c in cmds],
            "ratios": [{**asdict(r), "status": r.status} for r in rows],
            "notes": notes,
        }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
