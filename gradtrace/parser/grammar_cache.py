"""The analysed grammar kept between processes: the built Lark parser, pickled whole.

Building the LALR tables takes ~0.4 s. lark's own cache (`Lark(cache=...)`) stores a
serialised form that every process rebuilds object by object (the rules, the parse table's
~660 states, a lexer per state): ~295 M instructions, a fifth of a short script's whole run.
A pickle of the built parser is read back by pickle's C code in about a third of that. Some
objects are not stored but referred to: the singletons lark tells apart by identity (the
parse table's Shift and Reduce), by name; and the post-lexer, which each process makes afresh
(its class may change with gradtrace; the grammar cannot without changing the key).

The lexers' regular expressions are stored compiled. A lexer per parser state (~200 kinds)
compiles, on first use, one pattern of every terminal it may meet there, and Python's
`re.compile` is Python code: a short script's first parse spent ~80 M instructions in it.
The cache keeps each pattern's compiled code, the output of `re`'s compiler (`re._parser`,
`re._compiler._code`), and the lexers' `re` becomes `_Regexes`, which hands the code to
`_sre.compile` (the C half of re.compile), ~100x faster. Private CPython interfaces, so:
the key holds the Python version, and each pattern is recorded only if what `_sre.compile`
makes of its code equals `re.compile`'s pattern (Pattern equality compares the code).

The cache lives in a private per-user directory, keyed by the grammar, the parser's options,
this format, and the lark and Python versions. GRADTRACE_PARSER_CACHE=0 turns it off. A file
that cannot be read (another version's, cut short) is rebuilt and replaced.
"""
from __future__ import annotations

import _sre
import array
import hashlib
import os
import pickle
import re
import sys
import tempfile
import types
from re import _compiler, _parser  # type: ignore[attr-defined]
from typing import Any

from lark import Lark
from lark.parsers.lalr_analysis import Reduce, Shift

FORMAT = 5  # raised whenever what is pickled changes shape
_REGEXES = ("module", "re")  # the only module a built parser refers to
_POSTLEX = ("postlex",)
_SINGLETONS = {"Shift": Shift, "Reduce": Reduce}  # compared with `is` by lark and the driver
# what only building the tables reads (lark's own cache leaves them out too)
_BUILD_ONLY = frozenset({"grammar", "source_grammar", "_parse_tree_builder"})


class _Pickler(pickle.Pickler):
    def __init__(self, file: Any, postlex: object) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.postlex = postlex

    def reducer_override(self, obj: Any) -> Any:
        # (not a persistent id: those are not memoized, and the table refers to these
        # ~20,000 times)
        for name, singleton in _SINGLETONS.items():
            if obj is singleton:
                return (_singleton, (name,))
        return NotImplemented

    def persistent_id(self, obj: Any) -> Any:
        if obj is self.postlex:
            return _POSTLEX
        if isinstance(obj, types.ModuleType):
            if obj is not re:
                raise pickle.PicklingError(f"the parser refers to module {obj.__name__}")
            return _REGEXES
        return None


def _singleton(name: str) -> object:
    return _SINGLETONS[name]


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: Any, postlex: object, regexes: _Regexes) -> None:
        super().__init__(file)
        self.postlex = postlex
        self.regexes = regexes

    def persistent_load(self, pid: Any) -> Any:
        if pid == _POSTLEX:
            return self.postlex
        if pid == _REGEXES:
            return self.regexes
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")


# (pattern, flags) -> what re's compiler made of it: _sre.compile's arguments after the
# pattern (flags with the pattern's own, code, groups, groupindex, indexgroup)
Codes = dict[tuple[str, int], tuple[int, array.array, int, dict[str, int], tuple]]


class _LexerRe:
    """What lark's lexers use of their `re` module besides compile: match and error."""

    error = re.error

    def compile(self, pattern: str, flags: int = 0) -> re.Pattern:
        raise NotImplementedError

    def match(self, pattern: str, string: str, flags: int = 0) -> re.Match | None:
        return self.compile(pattern, flags).match(string)


class _Regexes(_LexerRe):
    """The `re` a loaded parser's lexers use: patterns whose code the cache holds are made
    by `_sre.compile` from it, others by `re`."""

    def __init__(self, codes: Codes) -> None:
        self.codes = codes
        self.compiled: dict[tuple[str, int], re.Pattern] = {}

    def compile(self, pattern: str, flags: int = 0) -> re.Pattern:
        key = (pattern, flags)
        compiled = self.compiled.get(key)
        if compiled is None:
            found = self.codes.get(key)
            if found is None:
                compiled = re.compile(pattern, flags)
            else:
                all_flags, code, groups, groupindex, indexgroup = found
                compiled = _sre.compile(pattern, all_flags, code.tolist(), groups, groupindex,
                                        indexgroup)
            self.compiled[key] = compiled
        return compiled


class _Recorder(_LexerRe):
    """The `re` lexers build their scanners with while the cache is written: it keeps each
    pattern's code, where `_sre.compile` makes of it what `re.compile` does."""

    def __init__(self) -> None:
        self.codes: Codes = {}

    def compile(self, pattern: str, flags: int = 0) -> re.Pattern:
        compiled = re.compile(pattern, flags)
        try:
            parsed = _parser.parse(pattern, flags)
            groupindex = dict(parsed.state.groupdict)
            indexgroup = [None] * parsed.state.groups
            for name, index in groupindex.items():
                indexgroup[index] = name
            found = (flags | parsed.state.flags, array.array("I", _compiler._code(parsed, flags)),
                     parsed.state.groups - 1, groupindex, tuple(indexgroup))
            if _sre.compile(pattern, found[0], found[1].tolist(), *found[2:]) == compiled:
                self.codes[(pattern, flags)] = found
        except Exception:  # noqa: BLE001 - another Python's internals: that pattern by `re`
            pass
        return compiled


def _record_codes(lark: Lark) -> Codes:
    """Every scanner the lexers of `lark` can build, compiled once through `_Recorder`; the
    lexers are left as they were (no scanner built)."""
    recorder = _Recorder()
    try:
        contextual = lark.parser.lexer.lexer  # (the post-lexer's connector holds it)
        lexers = {id(lexer): lexer for lexer in contextual.lexers.values()}
        lexers[id(contextual.root_lexer)] = contextual.root_lexer
    except AttributeError:  # another lark's structure: nothing recorded
        return {}
    for lexer in lexers.values():
        if lexer._scanner is not None:
            continue
        own_re, had_callback = lexer.re, "callback" in vars(lexer)
        lexer.re = recorder
        try:
            lexer._build_scanner()
        finally:
            lexer.re = own_re
            if not had_callback:
                del lexer.callback
    return recorder.codes


def load_or_build(grammar: str, options: dict[str, Any], postlex: object) -> Lark:
    """The parser for `grammar` with lark `options` and `postlex`: from the cache if it
    holds one, else built (and stored)."""
    path = cache_path(grammar, options)
    if path is not None:
        try:
            with open(path, "rb") as f:
                codes = pickle.load(f)
                lark = _Unpickler(f, postlex, _Regexes(codes)).load()
            if isinstance(lark, Lark):
                return lark
        except Exception:  # noqa: BLE001 - any unreadable cache is rebuilt
            pass
    lark = Lark(grammar, postlex=postlex, **options)
    if path is not None:
        _store(lark, postlex, path)
    return lark


def _store(lark: Lark, postlex: object, path: str) -> None:
    """Write atomically (a file in the same directory, renamed): a process reading the
    cache meanwhile sees the old file or the new one, never half of one. The cache only
    saves time, so a parser that cannot be stored is simply not kept."""
    try:
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(_record_codes(lark), f, protocol=pickle.HIGHEST_PROTOCOL)
            kept = object.__new__(Lark)
            kept.__dict__.update((k, v) for k, v in vars(lark).items() if k not in _BUILD_ONLY)
            _Pickler(f, postlex).dump(kept)
        os.replace(temporary, path)
    except Exception:  # noqa: BLE001 - not kept (another lark's internals): parsing goes on
        try:
            os.unlink(temporary)
        except OSError:
            pass


def cache_path(grammar: str, options: dict[str, Any]) -> str | None:
    """The cache file for this grammar and options, or None when caching is off or the
    directory is not private to this user."""
    if os.environ.get("GRADTRACE_PARSER_CACHE", "1") in ("0", "", "no", "off", "false"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = os.path.join(base, "gradtrace")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        info = os.stat(directory)
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
            return None
        if not os.access(directory, os.W_OK):
            return None
    except OSError:
        return None
    import lark as lark_module

    key = f"{grammar}\n{sorted(options.items())!r}\n{FORMAT}"
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    version = f"{sys.version_info[0]}{sys.version_info[1]}"
    return os.path.join(directory,
                        f"parser-{digest}-lark{lark_module.__version__}-py{version}.pickle")
