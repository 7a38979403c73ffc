"""A SCRIPT that cannot be read (missing, a directory, a FIFO, a link to /dev/zero, not
UTF-8) is a usage error: exit status 2 and one line on stderr; where JSON was asked for,
stdout also holds the command's JSON document with that error, strict UTF-8 and valid
against the command's shipped schema (a consumer piping JSON always gets a document)."""
from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from gradtrace.cli import main


@pytest.fixture(scope="module")
def scripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    folder = tmp_path_factory.mktemp("unreadable")
    (folder / "folder.gt").mkdir()
    os.mkfifo(folder / "fifo.gt")
    (folder / "zero.gt").symlink_to("/dev/zero")
    (folder / "latin1.gt").write_bytes(b"x = 1\ny = '\xff'\n")
    return {"missing": (folder / "missing.gt", "no such file"),
            "directory": (folder / "folder.gt", "is a directory, not a script"),
            "fifo": (folder / "fifo.gt", "not a regular file"),
            "dev_zero": (folder / "zero.gt", "not a regular file"),
            "not_utf8": (folder / "latin1.gt", ":2: the script is not UTF-8 text (byte 0xff")}


def _schema(name: str) -> dict:
    package = "gradtrace" if name == "check_schema.json" else "gradtrace.render"
    return json.loads(resources.files(package).joinpath(name).read_text("utf-8"))


COMMANDS = {
    "run --json": (("run", "--json"), "trace_schema.json"),
    "graph --format json": (("graph", "--format", "json"), "trace_schema.json"),
    "explain --json": (("explain", "--json"), "explain_schema.json"),
    "check --json": (("check", "--json", "--torch", "/nonexistent/python"), "check_schema.json"),
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("kind", ["missing", "directory", "fifo", "dev_zero", "not_utf8"])
def test_json_commands_print_a_document_with_the_file_error(command: str, kind: str,
                                                            scripts: dict):
    path, message = scripts[kind]
    args, schema = COMMANDS[command]
    result = CliRunner().invoke(main, [*args, str(path)], catch_exceptions=False)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"gradtrace: {path}") and message in result.stderr
    doc = json.loads(result.stdout_bytes.decode("utf-8"))
    jsonschema.validate(doc, _schema(schema))
    assert doc["exit_code"] == 2
    assert message.lstrip(":2") in json.dumps(doc, ensure_ascii=False)
    if "error" in doc:  # the trace document
        assert doc["error"]["type"] == "ScriptFileError"
        assert doc["error"]["line"] == (2 if kind == "not_utf8" else None)
    if command.startswith("check"):
        assert doc["status"] == "not_run"


@pytest.mark.parametrize("kind", ["missing", "fifo", "not_utf8"])
def test_text_commands_print_one_line_and_nothing_on_stdout(kind: str, scripts: dict):
    path, message = scripts[kind]
    result = CliRunner().invoke(main, ["run", str(path)], catch_exceptions=False)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr
