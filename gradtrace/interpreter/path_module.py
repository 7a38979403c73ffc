"""`pathlib.Path` as scripts see it: Python's pure POSIX path arithmetic, and the run's own
files and folders (os_module.RunFiles) for what a path asks of the file system.

Tutorials write `MODEL_PATH = Path("models"); MODEL_PATH.mkdir(parents=True,
exist_ok=True); torch.save(model.state_dict(), MODEL_PATH / "model.pth")`: the folder and
the file live in the run's memory, as os.path sees them. What would read or write a real
file, or reveal the working directory (`open`, `read_text`, `resolve`, `cwd`, `glob`), is
refused.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import LimitExceeded, ScriptError, TorchTypeError
from .objects import BuiltinType, type_name
from .os_module import RunFiles, file_key
from .wrapped import register

if TYPE_CHECKING:
    from .core import Interpreter


class ScriptPath:
    """A `PosixPath`: a pure path and the run's files it asks about."""

    __slots__ = ("pure", "files")
    python_type_name = "PosixPath"

    def __init__(self, pure: PurePosixPath, files: RunFiles):
        self.pure = pure
        self.files = files

    def _made(self, pure: PurePosixPath) -> ScriptPath:
        limit = self.files.interp.limits.max_sequence
        if len(str(pure)) > limit:
            raise LimitExceeded(f"a path longer than {limit:,} characters")
        return ScriptPath(pure, self.files)

    def __str__(self) -> str:
        return str(self.pure)

    def __repr__(self) -> str:
        return f"PosixPath({str(self.pure)!r})"

    def __fspath__(self) -> str:
        return str(self.pure)

    def __eq__(self, other: object) -> bool:
        return type(other) is ScriptPath and self.pure == other.pure

    def __hash__(self) -> int:
        return hash(self.pure)

    def __lt__(self, other: object) -> bool:
        if type(other) is not ScriptPath:
            return NotImplemented
        return self.pure < other.pure

    def __truediv__(self, other: Any) -> Any:
        part = path_text(other)
        return NotImplemented if part is None else self._made(self.pure / part)

    def __rtruediv__(self, other: Any) -> Any:
        part = path_text(other)
        return NotImplemented if part is None else self._made(part / self.pure)

    # methods
    def joinpath(self, *others: Any) -> ScriptPath:
        return self._made(self.pure.joinpath(*(_text(o) for o in others)))

    def with_suffix(self, suffix: Any) -> ScriptPath:
        return self._made(self.pure.with_suffix(_text(suffix)))

    def with_name(self, name: Any) -> ScriptPath:
        return self._made(self.pure.with_name(_text(name)))

    def with_stem(self, stem: Any) -> ScriptPath:
        return self._made(self.pure.with_stem(_text(stem)))

    def relative_to(self, *others: Any) -> ScriptPath:
        return self._made(self.pure.relative_to(*(_text(o) for o in others)))

    def is_absolute(self) -> bool:
        return self.pure.is_absolute()

    def as_posix(self) -> str:
        return self.pure.as_posix()

    def exists(self) -> bool:
        return self.files.exists(str(self.pure))

    def is_file(self) -> bool:
        return file_key(str(self.pure)) in self.files.files()

    def is_dir(self) -> bool:
        return self.files.is_folder(str(self.pure))

    def mkdir(self, mode: Any = 0o777, parents: Any = False, exist_ok: Any = False) -> None:
        self.files.make(str(self.pure), bool(exist_ok), bool(parents))

    def unlink(self, missing_ok: Any = False) -> None:
        try:
            self.files.remove(str(self.pure))
        except ScriptError as err:
            if not (missing_ok and err.kind == "FileNotFoundError"):
                raise

    def iterdir(self) -> Any:
        return iter([self._made(self.pure / name)
                     for name in self.files.listdir(str(self.pure))])


def _text(value: Any) -> str:
    text = path_text(value)
    if text is None:
        raise TorchTypeError("expected str, bytes or os.PathLike object, not "
                             f"{type_name(value)}")
    return text


def path_text(value: Any) -> str | None:
    """A str or a ScriptPath as the path string (os.fspath), else None."""
    if isinstance(value, str):
        return value
    if type(value) is ScriptPath:
        return str(value.pure)
    return None


_ATTRIBUTES: dict[str, Callable[[ScriptPath], Any]] = {
    "name": lambda p: p.pure.name, "stem": lambda p: p.pure.stem,
    "suffix": lambda p: p.pure.suffix, "suffixes": lambda p: p.pure.suffixes,
    "parts": lambda p: p.pure.parts, "anchor": lambda p: p.pure.anchor,
    "parent": lambda p: ScriptPath(p.pure.parent, p.files),
    "parents": lambda p: tuple(ScriptPath(q, p.files) for q in p.pure.parents),
}
_REFUSED = ("open", "read_text", "write_text", "read_bytes", "write_bytes", "resolve",
            "absolute", "cwd", "home", "glob", "rglob", "stat", "touch", "rename", "replace",
            "expanduser", "samefile", "chmod", "symlink_to", "owner", "group", "rmdir")
"""What would reach real files or the machine (`Path.open`, `Path.cwd()`, ...)."""

register(ScriptPath, _ATTRIBUTES, {name: getattr(ScriptPath, name) for name in (
    "joinpath", "with_suffix", "with_name", "with_stem", "relative_to", "is_absolute",
    "as_posix", "exists", "is_file", "is_dir", "mkdir", "unlink", "iterdir")},
    refused={name: f"Path.{name} is not supported: gradtrace scripts reach only the files "
                   "torch.save wrote in this run and the folders they made"
             for name in _REFUSED})


def pathlib_namespace(interp: Interpreter, files: RunFiles) -> stdlib.Namespace:
    """`pathlib` for one run: Path/PosixPath and PurePath/PurePosixPath (the same type here:
    a pure path's file-system questions answer about the run's files)."""
    def make_path(*parts: Any) -> ScriptPath:
        return ScriptPath(PurePosixPath(), files)._made(
            PurePosixPath(*(_text(p) for p in parts)))

    path_type = BuiltinType(ScriptPath, make_path)
    path_type.name, path_type.module = "PosixPath", "pathlib"
    interp.builtin_types[ScriptPath] = path_type
    return stdlib.Namespace("pathlib", {name: path_type for name in (
        "Path", "PosixPath", "PurePath", "PurePosixPath")})
