"""The `gradtrace` command line: a thin layer over `gradtrace.runner`."""
from __future__ import annotations

import sys

import click

from .runner import EXIT_USAGE

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="gradtrace")
def main() -> None:
    """Trace and explain PyTorch-style autograd scripts (.gt files), without PyTorch."""


def _limits_options(fn):  # type: ignore[no-untyped-def]
    fn = click.option("--max-steps", type=click.IntRange(1), default=50_000_000,
                      show_default=True, help="Statements and loop iterations allowed.")(fn)
    fn = click.option("--timeout", type=click.FloatRange(0, min_open=True), default=60.0,
                      show_default=True, help="Wall-clock seconds allowed.")(fn)
    return fn


@main.command(context_settings=CONTEXT)
@click.argument("script")
@click.option("-q", "--quiet", is_flag=True, help="Print only what the script prints.")
@_limits_options
def run(script: str, quiet: bool, timeout: float, max_steps: int) -> None:
    """Run SCRIPT (a path, or - for stdin) and show the tensors it made."""
    from .errors import ScriptError
    from .interpreter import Limits
    from .runner import ScriptFileError, load_source, run_source

    try:
        source = load_source(script)
    except ScriptFileError as err:
        click.echo(f"gradtrace: {err}", err=True)
        sys.exit(EXIT_USAGE)
    limits = Limits(timeout=timeout, max_steps=max_steps)
    result = run_source(source, stdout=sys.stdout, stderr=sys.stderr, limits=limits)
    sys.stdout.flush()
    if result.error is not None:
        click.echo(result.error.format(source), err=True)
    if not quiet and (result.error is None or isinstance(result.error, ScriptError)):
        from rich.console import Console

        from .render.tables import print_summary

        print_summary(Console(), result.variables)
    sys.exit(result.exit_code)
