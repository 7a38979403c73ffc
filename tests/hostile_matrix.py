"""Runs gradtrace commands for the hostile all-commands test, many at a time, quickly.

`python tests/hostile_matrix.py WORKERS` reads jobs from stdin (one JSON object a line:
{"id", "argv", "cwd", "deadline"}) and writes one JSON line per finished job. It imports
gradtrace's command line once, then forks one child per job: the child gets the job's
files as descriptors 1 and 2, a session of its own, and calls the click command exactly
as `python -m gradtrace ARGV` would (the supervisor forks again from there). That saves
the interpreter's start and the imports (most of a second) on each of ~2,000 commands.

After a job ends, any process still in its session is a process left behind: it is
listed in the result, then killed. A job past its deadline is killed and marked "hung".
"""
from __future__ import annotations

import json
import os
import signal
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ["NO_COLOR"] = "1"
os.environ.pop("COLUMNS", None)

import numpy  # noqa: E402,F401  (imported once, before the forks)

import gradtrace.cli  # noqa: E402
import gradtrace.render.explain  # noqa: E402,F401
import gradtrace.render.tables  # noqa: E402,F401
import gradtrace.runner  # noqa: E402,F401


def _session_members(sid: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2:].split()
        if int(fields[3]) == sid and fields[0] != b"Z":  # session id; zombies are not left
            members.append(int(entry))
    return members


def _start(job: dict) -> int:
    out = os.open(os.path.join(job["cwd"], ".out"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    err = os.open(os.path.join(job["cwd"], ".err"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    pid = os.fork()
    if pid:
        os.close(out)
        os.close(err)
        return pid
    try:
        os.setsid()
        os.chdir(job["cwd"])
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace",  # noqa: SIM115
                          closefd=False)
        code = 0
        try:
            gradtrace.cli.main.main(job["argv"], prog_name="gradtrace")
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None
                                                                   else 1)
        except BaseException:  # what Python would print as a traceback
            import traceback

            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    except BaseException:
        os._exit(70)


def main() -> None:
    workers = int(sys.argv[1])
    pending = [json.loads(line) for line in sys.stdin if line.strip()]
    running: dict[int, tuple[dict, float]] = {}
    while pending or running:
        while pending and len(running) < workers:
            job = pending.pop(0)
            running[_start(job)] = (job, time.monotonic())
        time.sleep(0.01)
        for pid, (job, started) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            hung = not done and time.monotonic() - started > job["deadline"]
            if not done and not hung:
                continue
            if hung:
                os.killpg(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
            time.sleep(0.05)  # let processes the command killed be reaped
            left = [p for p in _session_members(pid) if p != pid]
            if left:
                os.killpg(pid, signal.SIGKILL)
            del running[pid]
            print(json.dumps({"id": job["id"], "status": status, "hung": hung,
                              "seconds": time.monotonic() - started, "left": left}),
                  flush=True)


if __name__ == "__main__":
    main()
