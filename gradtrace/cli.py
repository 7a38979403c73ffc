"""The `gradtrace` command line: a thin layer over `gradtrace.runner`."""
from __future__ import annotations

import functools
import gc
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

# One BLAS thread unless the user asks for more: the graphs gradtrace shows are small, and
# OpenBLAS's spinning worker threads make every matmul many times slower when the cores
# are busy. It must be set before numpy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click  # noqa: E402

from . import collector  # noqa: E402
from .errors import EXIT_LIMIT, EXIT_USAGE, LimitExceeded  # noqa: E402

if TYPE_CHECKING:
    from .interpreter import Limits

T = TypeVar("T")
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
PIPE_WIDTH = 100  # the README's width: what a pipe or file gets unless COLUMNS says otherwise


class _Commands(click.Group):
    """The command group; a script given without a command gets `gradtrace run SCRIPT`
    suggested instead of click's bare "No such command"."""

    def resolve_command(self, ctx: click.Context, args: list[str]):  # type: ignore[no-untyped-def]
        name = args[0] if args else None
        if name is not None and self.get_command(ctx, name) is None and (
                name.endswith(".gt") or name == "-" or os.path.isfile(name)):
            raise click.UsageError(f"No such command {name!r}. To run a script: "
                                   f"gradtrace run {name} (or explain, graph, view, check)", ctx)
        return super().resolve_command(ctx, args)

    def main(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        """Out of memory or stack while writing a report: a LimitError, not a traceback."""
        try:
            return super().main(*args, **kwargs)
        except (MemoryError, RecursionError) as err:
            what = "memory" if isinstance(err, MemoryError) else "stack"
            _echo(f"gradtrace: LimitError: writing the report ran out of {what} (raise "
                  "--max-memory, or choose less to show)", err=True)
            sys.exit(EXIT_LIMIT)


@click.group(cls=_Commands, context_settings=CONTEXT)
@click.version_option(package_name="gradtrace")
def main() -> None:
    """Trace and explain PyTorch-style autograd scripts (.gt files), without PyTorch."""
    _freeze_at_exit()


_FREEZE_AT_EXIT: list[bool] = []


def _freeze_at_exit() -> None:
    """At exit, set every object aside from the cycle collector (`gc.freeze`).

    While it shuts down, the interpreter collects garbage once more and walks every live
    object: after a traced run that is the whole trace (a tenth of a second for a
    200-step training loop), for nothing, since the process ends. gradtrace writes its
    output and closes its files before then.
    """
    if not _FREEZE_AT_EXIT:
        import atexit

        _FREEZE_AT_EXIT.append(True)
        atexit.register(gc.freeze)


def _limits_options(fn):  # type: ignore[no-untyped-def]
    """Add the resource-limit options; the command receives them as one `limits` object
    and runs the script with `_run`."""
    @functools.wraps(fn)
    def command(*args, timeout, max_steps, max_memory, max_elements, max_call_depth,  # type: ignore[no-untyped-def]
                max_sequence, **kwargs):
        with collector.paused():
            # the start-up's imports (the runner, interpreter and engine: ~250 modules)
            # make ~10^5 objects and no garbage; the collector's passes over them while
            # they are made cost ~25 ms of every run
            from . import runner  # noqa: F401
            from .interpreter import Limits

        limits = Limits(timeout=timeout, max_steps=max_steps, max_memory=max_memory << 20,
                        max_elements=max_elements, max_call_depth=max_call_depth,
                        max_sequence=max_sequence)
        return fn(*args, limits=limits, **kwargs)

    options = [
        click.option("--timeout", type=click.FloatRange(0, min_open=True), default=60.0,
                     show_default=True, help="Wall-clock seconds the script may run."),
        click.option("--max-steps", type=click.IntRange(1), default=50_000_000,
                     show_default=True, help="Statements and loop iterations allowed."),
        click.option("--max-memory", type=click.IntRange(1), default=1024, show_default=True,
                     metavar="MIB", help="Live tensor memory allowed, in MiB."),
        click.option("--max-elements", type=click.IntRange(1), default=50_000_000,
                     show_default=True, help="Elements allowed in one tensor."),
        click.option("--max-call-depth", type=click.IntRange(1, 1000), default=200,
                     show_default=True, help="Nested calls of script functions allowed."),
        click.option("--max-sequence", type=click.IntRange(1), default=10_000_000,
                     show_default=True, help="Items allowed in one list, tuple or string."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


REPORT_MEMORY = 1 << 30  # what the report may add to the script's memory cap


def _cap_process_memory(max_memory: int) -> Callable[[], None]:
    """Backstop for --max-memory: cap the data segment, so an allocation the engine's own
    accounting misses (many small tensors, huge Python lists) fails with MemoryError (a
    limit error, exit 3) instead of exhausting the machine. Returns the undo."""
    try:
        import resource
    except ImportError:  # not on POSIX: the engine's own accounting still applies
        return lambda: None
    in_use = 256 << 20
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmData:"):
                    in_use = int(line.split()[1]) << 10
    except OSError:
        pass
    cap = in_use + max_memory + (128 << 20)
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft != resource.RLIM_INFINITY and soft <= cap:
        return lambda: None
    resource.setrlimit(resource.RLIMIT_DATA, (cap, hard))
    return lambda: resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def _run(source, limits: Limits, stopped: str = "text", **kwargs):  # type: ignore[no-untyped-def]
    """Run the script under the supervisor (see gradtrace/supervisor.py): from here on
    this is the child process, which the parent stops if a phase outlives --timeout or
    the child dies, reporting in the `stopped` form ("text" on stderr, or the JSON
    document of "run-json" / "explain-json" on stdout). Without real file descriptors
    (CliRunner) the script runs in this process."""
    from .runner import run_source

    return _supervised(source, limits, stopped,
                       functools.partial(run_source, source, limits=limits, **kwargs))


def _supervised(source, limits: Limits, stopped: str, work: Callable[[], T]) -> T:  # type: ignore[no-untyped-def]
    """`work()` (the script's run) in the supervised child, within the memory cap; the
    report that follows gets REPORT_MEMORY more."""
    from . import supervisor

    if not supervisor.can_supervise():
        restore = _cap_process_memory(limits.max_memory)
        try:
            return work()
        finally:
            restore()
    supervisor.fork_supervised(limits.timeout,
                               functools.partial(_report_stopped, source, limits, stopped))
    _cap_process_memory(limits.max_memory)
    result = work()
    _cap_process_memory(limits.max_memory + REPORT_MEMORY)  # room for the report
    return result


def _report_stopped(source, limits: Limits, form: str, stopped) -> None:  # type: ignore[no-untyped-def]
    """The parent's report of a child it stopped (or that died): what the command would
    have said of that LimitError."""
    from .supervisor import limit_error

    _report_error(source, limit_error(stopped, limits.timeout), form)


def _report_error(source, error, form: str) -> None:  # type: ignore[no-untyped-def]
    """An error that ended the command before the script's run could report it, in the
    command's `form`: stderr text, or its JSON document on stdout."""
    from .runner import RunResult

    result = RunResult(source, "", error)
    if form == "run-json":
        from .render.json import dumps

        _echo(dumps(result))
    elif form == "explain-json":
        _echo(_explain_json(result, "en"))
    elif form == "check-json":
        from .check import CheckReport

        if isinstance(error, LimitExceeded):
            report = CheckReport(source.name, "limited", message=(
                "gradtrace's run of the script hit a limit, so it was not run under torch:\n"
                + error.format(source)))
        else:
            report = CheckReport(source.name, "not_run", message=(
                "gradtrace cannot read the script, so it was not run under torch:\n"
                + error.format(source)))
        _echo(_json_text(report.to_json()))
    else:
        _echo(_error_text(error, source), err=True)


def _view_text(build: Callable[[], str], result, form: str) -> str:  # type: ignore[no-untyped-def]
    """A JSON view's text; if the document is too large to build in the memory left,
    a document with that LimitError is printed instead (--json always prints JSON), and
    the command exits with the limit's status."""
    try:
        return build()
    except (MemoryError, RecursionError):
        from .runner import RunResult

        error = LimitExceeded("the run's JSON document is too large for the memory left "
                              "(raise --max-memory, or trace less)")
        small = RunResult(result.source, "", error)
        if form == "explain-json":
            _echo(_explain_json(small, "en"))
        else:
            from .render.json import dumps

            _echo(dumps(small))
        sys.exit(EXIT_LIMIT)


def _explain_json(result, lang: str) -> str:  # type: ignore[no-untyped-def]
    from .render.explain import explain, to_json

    return _json_text(to_json(explain(result, lang)))


def _echo(text: str, err: bool = False) -> None:
    """Write a line of gradtrace's own text: control characters and lone surrogates from
    the script made visible (a terminal must not act on them)."""
    from .printable import visible

    click.echo(visible(text), err=err)


def _load(script: str, form: str = "text"):  # type: ignore[no-untyped-def]
    """Read SCRIPT or exit with status 2 and a one-line message on stderr (and, where
    JSON was asked for, the command's JSON document with that error on stdout)."""
    from .errors import ScriptFileError
    from .runner import load_source
    from .source import Source

    try:
        return load_source(script)
    except ScriptFileError as err:
        source = Source("<stdin>" if script == "-" else script, "")
        _echo(f"gradtrace: {err.format(source)}", err=True)
        if form != "text":
            _report_error(source, err, form)
        sys.exit(EXIT_USAGE)


def _sections(ctx: click.Context, param: click.Parameter, value: str | None):  # type: ignore[no-untyped-def]
    if value is None:
        return None
    from .render.tables import parse_sections

    try:
        return parse_sections(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


def _width(width: int | None, stream=None) -> int | None:  # type: ignore[no-untyped-def]
    """--width, else the terminal's; a pipe or file gets the README's width (100) unless
    COLUMNS is set (rich's default for them would be 80)."""
    if width is not None or os.environ.get("COLUMNS"):
        return width
    stream = stream if stream is not None else sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return None if tty else PIPE_WIDTH


def _console(width: int | None, file=None):  # type: ignore[no-untyped-def]
    """A rich console: colour only on a terminal and without NO_COLOR (rich checks both)."""
    from .render.terminal import console

    return console(_width(width, file), file=file, soft_wrap=False)


def _json_text(doc) -> str:  # type: ignore[no-untyped-def]
    import json

    from .printable import json_text

    return json_text(json.dumps(doc, ensure_ascii=False, indent=2))


def _error_text(error, source) -> str:  # type: ignore[no-untyped-def]
    """The error as the script's stderr shows it, with a hint for a common slip."""
    from .render.hints import hint_text

    hint = hint_text(error, source)
    text = error.format(source)
    return f"{text}\n{hint}" if hint else text


@main.command(context_settings=CONTEXT)
@click.argument("script")
@click.option("-q", "--quiet", is_flag=True, help="Print only what the script prints.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON document (schema-versioned; the script's output inside) "
                   "instead of the report.")
@click.option("--show", callback=_sections, metavar="SECTIONS",
              help="Report sections to show, comma-separated: tensors,graph,backward "
                   "(default: all).")
@click.option("--width", type=click.IntRange(40, 1000), default=None,
              help="Report width in columns (default: the terminal's, 100 when piped).")
@_limits_options
def run(script: str, quiet: bool, as_json: bool, show: tuple[str, ...] | None,
        width: int | None, limits: Limits) -> None:
    """Run SCRIPT (a path, or - for stdin): its output, then what autograd did.

    The report shows the tensors the script named, the graph as a tree of
    next_functions, and a table per backward call with the gradient every node
    received and sent.
    """
    if quiet and as_json:
        raise click.UsageError("--quiet and --json cannot be used together")
    if show is not None and (quiet or as_json):
        raise click.UsageError("--show chooses report sections; it has no effect with "
                               + ("--quiet" if quiet else "--json"))
    source = _load(script, "run-json" if as_json else "text")
    if as_json:
        import io

        from .render import trace_frozen
        from .render.json import dumps

        stderr = io.StringIO()
        result = _run(source, limits, "run-json", stderr=stderr, trace=True)
        with trace_frozen():
            text = _view_text(lambda: dumps(result, stderr=stderr.getvalue()), result,
                              "run-json")
        click.echo(text)
        sys.exit(result.exit_code)
    result = _run(source, limits, stdout=sys.stdout, stderr=sys.stderr, trace=not quiet,
                  capture=False, trace_values=False)  # the tables read no event values
    sys.stdout.flush()
    if result.error is not None:
        _echo(_error_text(result.error, source), err=True)
    if not quiet and result.module is not None:  # no report for a script that never ran
        from .render import trace_frozen
        from .render.tables import SECTIONS, print_report

        with trace_frozen():
            print_report(_console(width), result, show or SECTIONS)
    sys.exit(result.exit_code)


GRAPH_FORMATS = ("tree", "dot", "mermaid", "json", "svg", "png")


def _selection_options(fn):  # type: ignore[no-untyped-def]
    """--backward and --root: which part of the graph `graph` and `view` show."""
    fn = click.option("--root", metavar="NAME", default=None,
                      help="Draw the graph of the tensor NAME holds at the end (or x@5, "
                           "a name the views print; or #ID: from the node with that id).")(fn)
    return click.option(
        "--backward", metavar="N|all", default=None,
        help="Draw the graph of backward call N (1, 2, …; -1 the last) with its "
             "gradients, or all of them. Default: everything, or the last call's graph "
             "when everything would be too large.")(fn)


def _selection_error(err: Exception) -> None:
    _echo(f"gradtrace: {err}", err=True)
    sys.exit(EXIT_USAGE)


@main.command(context_settings=CONTEXT)
@click.argument("script")
@click.option("-f", "--format", "fmt", type=click.Choice(GRAPH_FORMATS), default="tree",
              show_default=True,
              help="tree (terminal), dot (Graphviz), mermaid (Markdown), json, or svg/png "
                   "(rendered by Graphviz).")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to FILE instead of standard output.")
@click.option("--width", type=click.IntRange(40, 1000), default=None,
              help="Width of the tree view in columns.")
@_selection_options
@click.option("--max-nodes", type=click.IntRange(0), default=None, metavar="N",
              help="Autograd nodes a drawing shows before it is cut (default 200; 0: all).")
@click.option("--grads/--no-grads", default=True, show_default=True,
              help="Put the gradient each arrow carried in backward on the arrows.")
@click.option("--legend/--no-legend", default=True, show_default=True,
              help="A legend of the kinds of boxes the drawing shows.")
@click.option("--saved", type=click.Choice(["auto", "all"]), default="auto",
              show_default=True,
              help="all: also draw saved Nones and the shape-only attributes "
                   "(self_sym_sizes, …).")
@_limits_options
def graph(script: str, fmt: str, as_json: bool, output: str | None, width: int | None,
          backward: str | None, root: str | None, max_nodes: int | None, grads: bool,
          legend: bool, saved: str, limits: Limits) -> None:
    """Run SCRIPT and print its autograd graph (what ran before an error, if any).

    The script's own output is not shown; the exit status is the script's.
    """
    import io

    from .render import images
    from .render.selection import SelectionError, parse_backward

    if as_json:
        fmt = "json"
    try:
        which = parse_backward(backward)
    except SelectionError as err:
        raise click.BadParameter(str(err), param_hint="--backward") from None
    if fmt in images.IMAGE_FORMATS:
        try:
            images.require_dot(fmt)  # before running the script: fail fast
        except images.GraphvizMissing as err:
            _echo(f"gradtrace: {err}", err=True)
            sys.exit(EXIT_USAGE)
        if fmt == "png" and output is None and sys.stdout.isatty():
            raise click.UsageError("PNG is binary: write it to a file with --output FILE")
    source = _load(script, "run-json" if fmt == "json" else "text")
    stderr = io.StringIO()
    # the tree and the drawings read no event values (only the JSON document does): a
    # 200,000-node chain's values ran the report out of memory
    result = _run(source, limits, "run-json" if fmt == "json" else "text", stderr=stderr,
                  trace=True, capture=fmt == "json", trace_values=fmt == "json")
    if result.error is not None and fmt != "json":
        _echo(_error_text(result.error, source), err=True)
    from .render import trace_frozen

    options = {"backward": which, "root": root, "max_nodes": max_nodes, "grads": grads,
               "legend": legend, "saved": saved}
    with trace_frozen():
        data = _graph_data(result, stderr.getvalue(), fmt, output, width, options)
    if data is not None:
        _write(data, output)
    sys.exit(result.exit_code)


def _graph_data(result, stderr: str, fmt: str, output: str | None,  # type: ignore[no-untyped-def]
                width: int | None, options: dict) -> str | bytes | None:
    """The `graph` command's output (None: the tree went to the terminal already)."""
    import io

    from .render import graph as graph_render
    from .render import images
    from .render.drawing import draw
    from .render.selection import SelectionError, chosen_roots

    trace = result.trace
    try:
        if fmt == "tree":
            roots = chosen_roots(graph_render.GraphView(trace), options["backward"],
                                 options["root"])
            if output is None:
                graph_render.print_graph(_console(width), trace, roots=roots)
                return None
            buffer = io.StringIO()
            graph_render.print_graph(_console(width or 100, file=buffer), trace, roots=roots)
            return buffer.getvalue()
        if fmt == "json":
            from .render.json import dumps

            return _view_text(lambda: dumps(result, stderr=stderr), result, "run-json") + "\n"
        return draw(trace, fmt, **options)
    except SelectionError as err:
        _selection_error(err)
    except images.GraphvizMissing as err:
        _echo(f"gradtrace: {err}", err=True)
        sys.exit(EXIT_USAGE)
    except images.RenderError as err:
        _echo(f"gradtrace: {err}", err=True)
        sys.exit(EXIT_LIMIT)
    return None


def _write(data: str | bytes, output: str | None) -> None:
    """A view's text or bytes to stdout or `output`; a lone surrogate from the script (a
    page quotes the script's strings) is written as its escape, so the file is UTF-8."""
    if isinstance(data, str):
        data = data.encode("utf-8", "backslashreplace").decode("utf-8")
    if output is None:
        if isinstance(data, bytes):
            stream = click.get_binary_stream("stdout")
            stream.write(data)
            stream.flush()
        else:
            click.echo(data, nl=False)
        return
    try:
        if isinstance(data, bytes):
            with open(output, "wb") as f:
                f.write(data)
        else:
            with open(output, "w", encoding="utf-8") as f:
                f.write(data)
    except OSError as err:
        _echo(f"gradtrace: cannot write {output}: {err.strerror}", err=True)
        sys.exit(EXIT_USAGE)


def line_range_option(ctx: click.Context, param: click.Parameter, value: str | None):  # type: ignore[no-untyped-def]
    """`--lines 12-15` (or `--lines 12`) as (12, 15): the click callback of explain's
    --lines, here and in the notebook magic."""
    from .render.explain import line_range

    if value is None:
        return None
    try:
        return line_range(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


class _Progress:
    """`explain: statement run 1,200 of 5,004` on stderr while a long story is told,
    redrawn at most every quarter second, erased at the end; only on a terminal."""

    def __init__(self) -> None:
        import time

        self.clock = time.monotonic
        self.started = self.clock()
        self.shown = 0.0
        self.width = 0

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if now - self.started < 1.0 or now - self.shown < 0.25:
            return
        self.shown = now
        text = f"explain: statement run {done:,} of {total:,}"
        self.width = max(self.width, len(text))
        sys.stderr.write("\r" + text.ljust(self.width))
        sys.stderr.flush()

    def close(self) -> None:
        if self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


@main.command(context_settings=CONTEXT)
@click.argument("script")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True,
              help="Language of the explanation.")
@click.option("--json", "as_json", is_flag=True,
              help="The explanation as JSON: sections of steps (kind, line, facts, text).")
@click.option("--full", is_flag=True,
              help="Tell everything: every run of every statement, every step (no budget).")
@click.option("--brief", is_flag=True,
              help="One line per statement run, numbered as --statement counts them.")
@click.option("--lines", "line_range", callback=line_range_option, metavar="A-B",
              help="Tell only the statements on lines A to B (every run of them).")
@click.option("--statement", type=click.IntRange(1), default=None, metavar="N",
              help="Tell only the Nth statement run, in full (see --brief for the numbers).")
@click.option("--width", type=click.IntRange(40, 1000), default=None,
              help="Wrap the text at this many columns (default: the terminal's, 100 when "
                   "piped).")
@_limits_options
def explain(script: str, lang: str, as_json: bool, full: bool, brief: bool,
            line_range: tuple[int, int] | None, statement: int | None, width: int | None,
            limits: Limits) -> None:
    """Run SCRIPT and tell what autograd did, statement by statement and backward step by step.

    A long run is told up to about 3,000 lines, whole statements at a time, and what was
    left out is summarised once at the end; --full, --brief, --lines and --statement
    choose what to tell instead.
    """

    import time

    from .render import trace_frozen
    from .render.explain import Options, print_explanation, to_json
    from .render.explain import explain as explain_run
    from .supervisor import REPORT_SECONDS

    source = _load(script, "explain-json" if as_json else "text")
    result = _run(source, limits, "explain-json" if as_json else "text", trace=True,
                  capture=False)
    width = _width(width)
    progress = _Progress() if sys.stderr.isatty() else None
    # the story stops with time left to print it within the report's budget
    deadline = time.monotonic() + 0.6 * (limits.timeout + REPORT_SECONDS)
    options = Options(full=full, brief=brief, lines=line_range, statement=statement,
                      width=width or 100, progress=progress, deadline=deadline)
    def told():  # type: ignore[no-untyped-def]
        try:
            return explain_run(result, lang, options)
        finally:
            if progress is not None:
                progress.close()

    with trace_frozen():
        if as_json:  # (a document with the LimitError if the story outgrows the memory left)
            click.echo(_view_text(lambda: _json_text(to_json(told())), result,
                                  "explain-json"))
        else:
            from .render.terminal import console

            print_explanation(console(width, highlight=False), told())
    sys.exit(result.exit_code)


@main.command(context_settings=CONTEXT)
@click.argument("script")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the page to FILE (default: standard output when it is not a "
                   "terminal, else SCRIPT's name with .html in this directory).")
@click.option("--open", "open_page", is_flag=True,
              help="Open the page in a web browser (written to a temporary file unless "
                   "--output is given).")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True,
              help="Language of the page and of its narration.")
@_selection_options
@click.option("--max-nodes", type=click.IntRange(0), default=None, metavar="N",
              help="Autograd nodes the page draws before the graph is cut (default 150; "
                   "0: all).")
@_limits_options
def view(script: str, output: str | None, open_page: bool, lang: str, backward: str | None,
         root: str | None, max_nodes: int | None, limits: Limits) -> None:
    """Run SCRIPT and write one self-contained HTML page that steps through it.

    The page shows the source, the graph as it stands at each step, and a timeline over
    every forward op and backward step, with explain's narration beside it. It needs no
    network; Graphviz, if installed, lays the graph out.
    """
    from .render import trace_frozen
    from .render.page import build_page
    from .render.selection import SelectionError, parse_backward

    try:
        which = parse_backward(backward)
    except SelectionError as err:
        raise click.BadParameter(str(err), param_hint="--backward") from None
    source = _load(script)
    result = _run(source, limits, trace=True, capture=False)
    if result.error is not None:
        _echo(_error_text(result.error, source), err=True)
    try:
        with trace_frozen():
            page = build_page(result, lang=lang, backward=which, root=root,
                              max_nodes=max_nodes)
    except SelectionError as err:
        _selection_error(err)
    if output is None and (open_page or sys.stdout.isatty()):
        output = _page_path(script, open_page)
        _echo(f"gradtrace: wrote {output}", err=True)
    _write(page, output)
    if open_page:
        import webbrowser
        from pathlib import Path

        webbrowser.open(Path(output).resolve().as_uri())
    sys.exit(result.exit_code)


def _page_path(script: str, temporary: bool) -> str:
    """Where a page goes without --output: SCRIPT's name with .html (a temporary file
    for --open)."""
    from pathlib import Path

    stem = Path(script).stem if script != "-" else "stdin"
    if temporary:
        import tempfile

        handle, path = tempfile.mkstemp(prefix=f"gradtrace-{stem}-", suffix=".html")
        os.close(handle)
        return path
    return f"{stem}.html"


@main.command(context_settings=CONTEXT)
@click.argument("script")
@click.option("--torch", "torch_python", metavar="PYTHON", default=None,
              help="A Python with torch 2.13 installed (default: this Python, then python3).")
@click.option("--json", "as_json", is_flag=True, help="The comparison as JSON.")
@click.option("--width", type=click.IntRange(40, 1000), default=None,
              help="Table width (default: the terminal's, 100 when piped).")
@_limits_options
def check(script: str, torch_python: str | None, as_json: bool, width: int | None,
          limits: Limits) -> None:
    """Run SCRIPT under gradtrace and under real PyTorch and compare everything.

    Exit status: 0 they agree, 1 they differ, 2 the script cannot be read or parsed (or
    gradtrace refused it), 3 gradtrace's run hit a limit, 4 no Python with torch was
    found, 5 the torch run failed. The torch run gets the same --timeout.
    """
    from .check import check_script, print_report

    source = _load(script, "check-json" if as_json else "text")
    report = _supervised(source, limits, "check-json" if as_json else "text",
                         lambda: check_script(source.text, source.name, torch_python,
                                              timeout=limits.timeout, limits=limits))
    if as_json:
        click.echo(_json_text(report.to_json()))
    else:
        failed = report.status in ("no_torch", "torch_failed", "not_run", "limited")
        print_report(_console(width, file=sys.stderr if failed else None), report)
    sys.exit(report.exit_code)
