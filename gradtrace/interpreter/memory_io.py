"""`import io`: io.BytesIO as an in-memory file for torch.save and torch.load, the idiom
`buf = io.BytesIO(); torch.save(obj, buf); buf.seek(0); obj = torch.load(buf)`.

A BytesIO here is an interpreter object (no Python file, no bytes): it holds the archives
torch.save wrote into it (serialization.py's pickled copies), and a position counted in
archives. What the scripts see follows torch (measured): loading at the end is an EOFError,
a buffer holding two archives back to back is a corrupted zip, a closed buffer refuses I/O.
The bytes themselves are not reproduced: getvalue() and read() give an opaque `bytes` value
that io.BytesIO(...) takes, but that cannot be printed or measured (nor written: write() is
refused), and seek/tell work at the start of the buffer only. Archives held count toward
--max-memory through their tensors; one buffer holds at most MAX_ARCHIVES of them.
"""
from __future__ import annotations

from typing import Any

from ..errors import LimitExceeded, NotSupportedError, ScriptError

MAX_ARCHIVES = 10_000

_NO_BYTES = ("gradtrace does not reproduce the bytes torch.save writes: an io.BytesIO holds "
             "its archives as objects")


class BytesValue:
    """What getvalue() and read() return: the archives, without their bytes."""

    __slots__ = ("archives",)

    def __init__(self, archives: list[Any]):
        self.archives = archives

    def __repr__(self) -> str:
        raise NotSupportedError(f"printing bytes is not supported: {_NO_BYTES}")

    def __len__(self) -> int:
        raise NotSupportedError(f"len() of bytes is not supported: {_NO_BYTES}")


class BytesIO:
    """io.BytesIO([initial_bytes]): the archives written into it and a position among them."""

    __slots__ = ("archives", "position", "closed")

    def __init__(self, initial_bytes: Any = None):
        if initial_bytes is None:
            self.archives: list[Any] = []
        elif isinstance(initial_bytes, BytesValue):
            self.archives = list(initial_bytes.archives)
        else:
            raise NotSupportedError(f"io.BytesIO of a {_script_type(initial_bytes)}: "
                                    f"{_NO_BYTES} (give it what getvalue() returned)")
        self.position = 0
        self.closed = False

    def __repr__(self) -> str:
        return f"<_io.BytesIO object at {id(self):#x}>"

    def __enter__(self) -> BytesIO:
        self._check_open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed = True

    def _check_open(self) -> None:
        if self.closed:
            raise ScriptError("I/O operation on closed file.", kind="ValueError")

    # -- what torch.save and torch.load do with the buffer -------------------------------

    def write_archive(self, saved: Any) -> None:
        self._check_open()
        archives = self.archives
        if self.position < len(archives):
            archives[self.position] = saved
        else:
            if len(archives) >= MAX_ARCHIVES:
                raise LimitExceeded(f"the script wrote more than {MAX_ARCHIVES:,} archives "
                                    "into one io.BytesIO")
            archives.append(saved)
        self.position += 1

    def read_archive(self) -> Any:
        self._check_open()
        remaining = len(self.archives) - self.position
        if remaining <= 0:
            raise ScriptError("", kind="EOFError")
        if remaining > 1:
            raise ScriptError(
                "PytorchStreamReader failed reading zip archive: invalid header or archive is "
                "corrupted. This is an internal miniz error. If you are seeing this error, there "
                "is a high likelihood that your checkpoint file is corrupted. This can happen if "
                "the checkpoint was not saved properly, was transferred incorrectly, or the file "
                "was modified after saving.", kind="RuntimeError")
        saved = self.archives[self.position]
        self.position = len(self.archives)
        return saved

    # -- the methods a script calls --------------------------------------------------------

    def seek(self, offset: int, whence: int = 0) -> int:
        self._check_open()
        if offset != 0 or whence != 0:
            raise NotSupportedError(f"io.BytesIO.seek({offset}, {whence}): only seek(0) is "
                                    f"supported ({_NO_BYTES})")
        self.position = 0
        return 0

    def tell(self) -> int:
        self._check_open()
        if self.position:
            raise NotSupportedError(f"io.BytesIO.tell() after a write: {_NO_BYTES}")
        return 0

    def getvalue(self) -> BytesValue:
        self._check_open()
        return BytesValue(list(self.archives))

    def read(self, size: int = -1) -> BytesValue:
        self._check_open()
        if size is not None and size >= 0:
            raise NotSupportedError(f"io.BytesIO.read(size): {_NO_BYTES}")
        rest = self.archives[self.position:]
        self.position = len(self.archives)
        return BytesValue(rest)

    def write(self, data: Any) -> int:
        raise NotSupportedError(f"io.BytesIO.write() is not supported: {_NO_BYTES}")

    def close(self) -> None:
        self.closed = True

    def readable(self) -> bool:
        self._check_open()
        return True

    writable = seekable = readable


def _script_type(value: Any) -> str:
    from .objects import type_name

    return type_name(value)


BYTES_IO_METHODS: dict[str, Any] = {
    name: getattr(BytesIO, name)
    for name in ("seek", "tell", "getvalue", "read", "write", "close", "readable", "writable",
                 "seekable")
}
BYTES_IO_ATTRIBUTES = frozenset({"closed"})
