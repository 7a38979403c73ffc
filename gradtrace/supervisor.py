"""The command line runs each script in a child process that it can always stop.

Why a process: a limit must hold whatever the script does, and one C call can hold the
interpreter lock for minutes (`sum(reversed(range(10**15)))`, a division of
40-million-bit integers, `t in [s] * 10**7` over 10 MB strings). No thread of the
process running the script can act then; a parent process can. Measured alternatives:
a `threading.Timer` waits for the lock (the script ran on past 30 s with `--timeout
3`); size guards before every builtin that can loop in C are needed anyway for clear
messages, but no list of them is ever complete; RLIMIT_CPU counts CPU, not wall time,
and its SIGXCPU handler also waits for the lock.

How: the command forks once the script is read. The child runs the script and the
report exactly as an unsupervised command would (it inherits stdout and stderr, so
output streams with the same bytes and exit status); it publishes its phase and the
statement it is running in `gradtrace.progress`'s shared page. The parent only waits,
with a budget per phase (parsing and running: --timeout; writing the report: --timeout
plus a minute), and when a budget runs out or the child dies of a signal (a C stack overflow, a
fatal MemoryError), it ends the child's whole process group (Graphviz's `dot`
included) and reports a LimitError at the statement the child was running, as the
command would have (JSON where JSON was asked for). The child sets its own memory cap,
so the parent always has room to report.

Without real file descriptors (click's CliRunner, a notebook) the command runs
in-process: the interpreter's own checks still apply, except inside a single C call.
"""
from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable

from . import progress
from .collector import freeze_for_good
from .errors import EXIT_LIMIT, LimitExceeded
from .source import Span

GRACE = 1.0  # seconds past --timeout before the parent stops a run (the child's own
# checks normally end it first, with its report)
REPORT_SECONDS = 60.0  # what writing the report (or check's torch run) may add to --timeout
POLL = 0.05  # seconds between looks at the child's phase
SIGNAL_EXITS = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}


class Stopped:
    """What the parent saw when it stopped the child (or the child died): the phase it
    was in and the statement it was running."""

    def __init__(self, phase: int, span: Span | None, reason: str):
        self.phase = phase
        self.span = span
        self.reason = reason  # "timeout" or the name of the signal the child died of


def can_supervise() -> bool:
    """Forking needs POSIX and real descriptors for the child's output."""
    if not hasattr(os, "fork"):
        return False
    try:
        sys.stdout.fileno()
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


def fork_supervised(timeout: float, stopped: Callable[[Stopped], None]) -> bool:
    """Fork. In the child return True (it goes on with the command). The parent never
    returns: it waits for the child and exits with its status, or stops it and calls
    `stopped` to report, exiting with status 3.

    What start-up made (~10^5 objects: modules, functions, tables) lives as long as the
    child: frozen, the cycle collector's passes during the run no longer walk it (~3% of a
    short script's instructions); so is the run's graph once it ends (collector.py)."""
    freeze_for_good()
    state = progress.share()
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        _die_with_parent(parent)
        return True
    try:
        os.setpgid(pid, pid)
    except OSError:  # the child did it first (or already exited)
        pass
    _forward_signals(pid)
    outcome = _wait(pid, state, timeout)
    if isinstance(outcome, int):
        os._exit(outcome)
    try:
        stopped(outcome)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(EXIT_LIMIT)


def _die_with_parent(parent: int) -> None:
    """If the parent is killed outright (SIGKILL), the child must not run on unwatched."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(EXIT_LIMIT)


def _forward_signals(pid: int) -> None:
    """Ctrl-C (or a kill) of the command ends the script's process group too."""
    def handler(signum: int, frame: object) -> None:
        _kill_group(pid)
        os._exit(SIGNAL_EXITS.get(signal.Signals(signum), 1))

    for sig in SIGNAL_EXITS:
        signal.signal(sig, handler)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _wait(pid: int, state: memoryview, timeout: float) -> int | Stopped:
    """The child's exit status, or what the parent saw when it stopped it."""
    phase = progress.STARTING
    since = time.monotonic()
    waiter = _exit_waiter(pid)
    while True:
        waiter(POLL)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            if os.WIFSIGNALED(status):
                sig = os.WTERMSIG(status)
                _kill_group(pid)
                return Stopped(state[progress.PHASE], progress.span_of(state[progress.POSITION]),
                               signal.Signals(sig).name)
            return os.waitstatus_to_exitcode(status)
        now = time.monotonic()
        current = state[progress.PHASE]
        if current != phase:
            phase, since = current, now
        budget = timeout + (REPORT_SECONDS if phase == progress.REPORTING else GRACE)
        if phase != progress.STARTING and now - since > budget:
            position = progress.span_of(state[progress.POSITION])
            _kill_group(pid)
            os.waitpid(pid, 0)
            return Stopped(phase, position, "timeout")


def _exit_waiter(pid: int) -> Callable[[float], None]:
    """Sleep until the child exits or `seconds` pass (a pidfd where Linux has one, so a
    command that ends quickly is not held up by the polling)."""
    try:
        import select

        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return time.sleep
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return lambda seconds: poller.poll(seconds * 1000)


def limit_error(stopped: Stopped, timeout: float) -> LimitExceeded:
    """The LimitError the parent reports for a stopped child, at the statement it ran."""
    if stopped.reason != "timeout":
        what = ("writing the report" if stopped.phase == progress.REPORTING
                else "the script")
        return LimitExceeded(
            f"{what} ran out of memory or stack and gradtrace stopped it (the process ended "
            f"with {stopped.reason}; lower the sizes, or see --max-memory)", stopped.span)
    if stopped.phase == progress.PARSING:
        return LimitExceeded(f"parsing the script took longer than {timeout:g} s (raise the "
                             "limit with --timeout)")
    if stopped.phase == progress.REPORTING:
        return LimitExceeded(f"writing the report took longer than "
                             f"{timeout + REPORT_SECONDS:g} s (--timeout plus a minute; raise "
                             "it, or choose less to show)")
    return LimitExceeded(f"the script ran longer than {timeout:g} s (raise the limit with "
                         "--timeout)", stopped.span)
