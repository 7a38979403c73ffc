"""`os` and `os.path` as scripts see them: paths are strings, and the only files are the
run's own (torch.save's, serialization.py), kept in memory.

Tutorials build checkpoint paths (`os.path.join`), make their folder (`os.makedirs(...,
exist_ok=True)`), ask whether a checkpoint is there (`os.path.exists`) and set environment
variables at the top. Here `exists`/`isfile`/`isdir` answer about the files the run saved
and the folders it made (and those files' parent folders); `remove` forgets a saved file;
`environ` is the run's own mapping, empty at the start (what a script reads back is what it
set). Nothing reaches the disk, the real environment or the working directory.
"""
from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import LimitExceeded, NotSupportedError, ScriptError, TorchTypeError, os_error
from .objects import type_name
from .system_modules import python_function

if TYPE_CHECKING:
    from .core import Interpreter

MAX_FOLDERS = 10_000  # folders one run may make


def file_key(path: str) -> str:
    """The name a file is kept under: `./ckpt//model.pt` and `ckpt/model.pt` are one file."""
    return posixpath.normpath(path)


def _path(value: Any, function: str) -> str:
    if isinstance(value, str):
        return value
    if _is_script_path(value):  # os.fspath of a pathlib.Path
        return str(value)
    raise TorchTypeError(f"{function}: path should be string, bytes or os.PathLike, not "
                         f"{type_name(value)}")


def _no_such_file(path: str) -> ScriptError:
    return os_error(2, path, "FileNotFoundError")


class RunFiles:
    """The folders a run made, next to the files it saved (interp.saved_files)."""

    def __init__(self, interp: Interpreter):
        self.interp = interp
        self.folders = interp.run_folders

    def files(self) -> Any:
        return self.interp.saved_files.keys()  # (kept under their file_key)

    def is_folder(self, path: str) -> bool:
        key = file_key(path)
        if key in (".", "/", TEMP_DIR) or key in self.folders:  # (tempfile's, empty at first)
            return True
        prefix = key.rstrip("/") + "/"
        return any(name.startswith(prefix) for name in self.files())

    def exists(self, path: str) -> bool:
        return file_key(path) in self.files() or self.is_folder(path)

    def make(self, path: str, exist_ok: bool, parents: bool = True) -> None:
        """The folder `path`, and its missing parents with `parents` (os.makedirs); without
        (os.mkdir, Path.mkdir), a parent that is not a folder is mkdir's error: ENOENT
        (`os.mkdir('results/fm_5/')` before `results`), ENOTDIR under a saved file."""
        if self.exists(path):
            if exist_ok and self.is_folder(path):
                return
            raise os_error(17, path, "FileExistsError")
        key = file_key(path)
        parent = posixpath.dirname(key)
        if not parents and parent and not self.is_folder(parent):
            if parent in self.files():
                raise os_error(20, path, "NotADirectoryError")
            raise _no_such_file(path)
        if len(self.folders) + key.count("/") >= MAX_FOLDERS:
            raise LimitExceeded(f"the script made more than {MAX_FOLDERS:,} folders")
        while key not in ("", ".", "/"):  # makedirs makes the parents too
            self.folders.add(key)
            key = posixpath.dirname(key)

    def remove(self, path: str) -> None:
        if self.interp.saved_files.pop(file_key(path), None) is not None:
            return
        if self.is_folder(path):
            raise os_error(21, path, "IsADirectoryError")
        raise _no_such_file(path)

    def listdir(self, path: str) -> list[str]:
        if not self.is_folder(path):
            raise _no_such_file(path)
        key = file_key(path)
        names: dict[str, None] = {}
        for name in [*self.interp.saved_files, *sorted(self.folders)]:
            rel = posixpath.relpath(name, key) if key != "." else name
            if not rel.startswith("..") and rel != ".":
                names[rel.split("/")[0]] = None
        return list(names)


def _join_sig(a, *p): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001,ANN002
def _path_sig(p): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001
def _commonprefix_sig(m): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001
def _makedirs_sig(name, mode=0o777, exist_ok=False): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001,E501
def _mkdir_sig(path, mode=0o777, *, dir_fd=None): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001,E501
def _remove_sig(path, *, dir_fd=None): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001
def _listdir_sig(path=None): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001
def _getenv_sig(key, default=None): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001
def _cpu_count_sig(): pass  # type: ignore[no-untyped-def]  # noqa: E704
def _gettempdir_sig(): pass  # type: ignore[no-untyped-def]  # noqa: E704
def _gettempprefix_sig(): pass  # type: ignore[no-untyped-def]  # noqa: E704


def commonprefix(m: Any) -> str:
    """posixpath.commonprefix of a list or tuple of paths: the longest leading string they
    share, character by character ('' for none)."""
    if not isinstance(m, (list, tuple)) or any(isinstance(p, (list, tuple)) for p in m):
        raise NotSupportedError("os.path.commonprefix of anything but a list or tuple of "
                                "paths is not supported by gradtrace")
    paths = []
    for p in m:
        if not isinstance(p, str) and not _is_script_path(p):
            raise TorchTypeError("expected str, bytes or os.PathLike object, not "
                                 f"{type_name(p)}")
        paths.append(str(p))
    return posixpath.commonprefix(paths)


def _is_script_path(value: Any) -> bool:
    from .path_module import ScriptPath  # (it imports this module)

    return type(value) is ScriptPath


def missing_parent(interp: Interpreter, path: str) -> str | None:
    """The parent folder of `path` that torch.save's file writer would not find (its words
    name the folder as the path gives it), else None. A run starts in an empty folder, so a
    relative path's parent exists only if the run made it (or saved a file in it); the
    parents of an absolute path, or of one leaving the run's folder (`../`), are the
    machine's, unknown here, so trusted."""
    parent = posixpath.dirname(path)
    if not parent or posixpath.isabs(path):
        return None
    files = RunFiles(interp)
    parts = parent.split("/")
    # the system walks the path: the folder before each `..` must be there too (`a/..`)
    for folder in ["/".join(parts[:i]) for i, part in enumerate(parts) if part == ".."] \
            + [parent]:
        if folder and file_key(folder).split("/")[0] != ".." and not files.is_folder(folder):
            return parent
    return None


def os_namespaces(interp: Interpreter, files: RunFiles) -> dict[str, stdlib.Namespace]:
    """`os` and `os.path` for one run, over its files and folders."""
    limit = interp.limits.max_sequence

    def pure(name: str) -> Callable[..., Any]:
        fn = getattr(posixpath, name)

        def call(*args: Any) -> Any:
            args = tuple(_path(arg, name) for arg in args)
            if sum(len(a) for a in args) > limit:
                raise LimitExceeded(f"a path longer than {limit:,} characters")
            return fn(*args)
        return call

    def asking(question: Callable[[str], bool]) -> Callable[[Any], bool]:
        def ask(path: Any) -> bool:
            try:
                return question(_path(path, "exists"))
            except TorchTypeError:
                return False  # (os.path.exists(None) is False)
        return ask

    path_table: dict[str, Any] = {
        name: python_function(name, pure(name), _join_sig if name == "join" else _path_sig)
        for name in ("join", "basename", "dirname", "split", "splitext", "normpath", "isabs")}
    path_table.update({
        "exists": python_function("exists", asking(files.exists), _path_sig),
        "isfile": python_function("isfile", asking(lambda p: file_key(p) in files.files()),
                                  _path_sig),
        "isdir": python_function("isdir", asking(files.is_folder), _path_sig),
        "commonprefix": python_function("commonprefix", commonprefix, _commonprefix_sig),
        "sep": "/",
    })
    path = stdlib.Namespace("os.path", path_table)  # (posixpath, as on Linux)

    def makedirs(name: Any, mode: Any = 0o777, exist_ok: Any = False) -> None:
        files.make(_path(name, "makedirs"), bool(exist_ok))

    def mkdir(name: Any, mode: Any = 0o777, *, dir_fd: Any = None) -> None:
        files.make(_path(name, "mkdir"), False, parents=False)

    def remove(name: Any, *, dir_fd: Any = None) -> None:
        files.remove(_path(name, "remove"))

    def listdir(name: Any = None) -> list[str]:
        return files.listdir("." if name is None else _path(name, "listdir"))

    environ: dict[str, str] = {}

    def getenv(key: Any, default: Any = None) -> Any:
        if not isinstance(key, str):
            raise TorchTypeError(f"str expected, not {type_name(key)}")
        return environ.get(key, default)

    table: dict[str, Any] = {
        "path": path, "sep": "/", "linesep": "\n", "name": "posix", "environ": environ,
        "makedirs": python_function("makedirs", makedirs, _makedirs_sig),
        "mkdir": python_function("mkdir", mkdir, _mkdir_sig),
        "remove": python_function("remove", remove, _remove_sig),
        "unlink": python_function("unlink", remove, _remove_sig),
        "listdir": python_function("listdir", listdir, _listdir_sig),
        "getenv": python_function("getenv", getenv, _getenv_sig),
        "cpu_count": python_function("cpu_count", os.cpu_count, _cpu_count_sig),
    }
    return {"os": stdlib.Namespace("os", table), "os.path": path,
            "tempfile": _tempfile_namespace()}


TEMP_DIR = "/tmp"  # (tempfile's first candidate on Linux without TMPDIR, TEMP or TMP)


def _tempfile_namespace() -> stdlib.Namespace:
    """`tempfile`'s names for where temporary files go: `gettempdir()` (Python's tempdir
    once set, else /tmp: the run's files are in memory, so no candidate folder is probed
    and the real environment is not read) and `gettempprefix()`. Making temporary files or
    folders (mkdtemp, TemporaryDirectory, NamedTemporaryFile) is refused; pytorch-lr-finder's
    StateCacher asks for the folder even when it caches in memory."""
    table: dict[str, Any] = {"tempdir": None, "template": "tmp"}

    def gettempdir() -> str:
        folder = table["tempdir"]
        if folder is None:
            table["tempdir"] = folder = TEMP_DIR  # (Python caches its choice there)
        return folder

    table["gettempdir"] = python_function("gettempdir", gettempdir, _gettempdir_sig)
    table["gettempprefix"] = python_function("gettempprefix", lambda: table["template"],
                                             _gettempprefix_sig)
    return stdlib.Namespace("tempfile", table)
