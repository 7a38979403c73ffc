"""Python's `hashlib` for scripts: the fixed-size digests (md5, the sha1 and sha2 families,
sha3) as CPython's own hash objects, so a digest is Python's bit for bit.

Recommender code hashes ids into embedding tables with them (the hashing trick:
`int(hashlib.md5(s.encode('utf-8')).hexdigest(), 16) % table_size`). A hash object offers
`update`, `digest`, `hexdigest`, `copy`, `name`, `digest_size` and `block_size`; its data
is bytes (a script's bytes are Python's own), a str gets CPython's "Strings must be encoded
before hashing", a number, list or None its "object supporting the buffer API required".
Anything else (a numpy array or a tensor, whose buffer CPython would hash; a script object)
is refused rather than handed to C code. The variable-length and keyed digests (shake,
blake2) and `hashlib.file_digest` (a file) are not offered. A hash object cannot be copied
by `copy.copy`/`deepcopy` (CPython's "cannot pickle '_hashlib.HASH' object").
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from .. import stdlib
from ..errors import NotSupportedError, ScriptError
from .objects import BuiltinFunction, type_name

# the fixed-size digests every CPython build has (hashlib.algorithms_guaranteed)
ALGORITHMS = ("md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3_224",
              "sha3_256", "sha3_384", "sha3_512")
# what CPython answers by its own TypeError (no buffer, or a str): safe to hand over
_PLAIN = (bytes, str, int, float, bool, list, tuple, dict, set, frozenset, type(None))


def _checked(value: Any) -> Any:
    if not isinstance(value, _PLAIN):
        raise NotSupportedError(f"hashlib takes bytes in gradtrace scripts, not "
                                f"{type_name(value)}")
    return value


def _python_call(fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """Python's own function on plain arguments, its errors as the script's."""
    for value in (*args, *kwargs.values()):
        _checked(value)
    try:
        return fn(*args, **kwargs)
    except (TypeError, ValueError) as err:
        raise ScriptError(str(err), kind=type(err).__name__) from None


class HashObject:
    """A hash object (`hashlib.md5(data)`): CPython's, its methods allow-listed."""

    __slots__ = ("h",)
    python_type_name = "_hashlib.HASH"

    def __init__(self, h: Any):
        self.h = h

    def __repr__(self) -> str:
        return f"<{self.h.name} _hashlib.HASH object @ {hex(id(self))}>"


def _method(obj: HashObject, name: str) -> Callable[..., Any]:
    bound = getattr(obj.h, name)  # a fixed name from hash_object_attribute's list

    def call(*args: Any, **kwargs: Any) -> Any:
        result = _python_call(bound, args, kwargs)
        return HashObject(result) if name == "copy" else result

    return BuiltinFunction(name, call, bound)


def hash_object_attribute(obj: HashObject, name: str) -> Any:
    """A hash object's allow-listed method or attribute, or None when it has no such one."""
    if name in ("update", "digest", "hexdigest", "copy"):
        return _method(obj, name)
    if name in ("name", "digest_size", "block_size"):
        return getattr(obj.h, name)
    return None


def hashlib_namespace() -> stdlib.Namespace:
    def constructor(algorithm: str) -> BuiltinFunction:
        fn = getattr(hashlib, algorithm)  # a fixed name from ALGORITHMS

        def make(*args: Any, **kwargs: Any) -> HashObject:
            return HashObject(_python_call(fn, args, kwargs))

        return BuiltinFunction(algorithm, make, fn)

    def new(*args: Any, **kwargs: Any) -> HashObject:
        name = args[0] if args else kwargs.get("name")
        if isinstance(name, str) and name.lower() not in ALGORITHMS and \
                name.lower() in hashlib.algorithms_available:
            raise NotSupportedError(f"hashlib.new({name!r}) is not supported by gradtrace "
                                    f"(the fixed-size digests are: {', '.join(ALGORITHMS)})")
        return HashObject(_python_call(hashlib.new, args, kwargs))

    table: dict[str, Any] = {name: constructor(name) for name in ALGORITHMS}
    table["new"] = BuiltinFunction("new", new, hashlib.new)
    return stdlib.Namespace("hashlib", table)
