"""A module's `__dict__` (and `vars(module)`): a read-only, lookup-only view over the names
the module's namespace offers.

Scripts look names up in it (`torch.optim.__dict__[name]`, `models.__dict__[arch]`,
`name in nn.__dict__`, `[k for k in optim.__dict__ if not k.startswith('_')]`). The view
holds no copy: its keys are the names attribute lookup finds (`Attributes.namespace_names`:
the namespace's table, then the names a script added) and `d[name]` runs attribute lookup
itself (`getattr(module, name)`), so a name a script adds (`nn.MaskedLinear = ...`) or a
submodule an import loads shows up in it as it does as an attribute.

- A key is a name gradtrace offers: `d[k]`, `d.get(k)`, iteration, `keys()`, `values()`,
  `items()`, `len(d)` give what attribute lookup gives.
- A name torch's module has but gradtrace lacks: `d[k]` and `d.get(k)` raise what
  `getattr(module, k)` raises (NotSupportedError); `k in d` answers as `hasattr` does, from
  the names torch 2.13 has (torch_names.json, which tests/tools/record_torch_names.py takes
  from dir(module): measured equal to the module dict's non-dunder keys but for submodules
  loaded by other imports), so a script's `if name in optim.__dict__` takes torch's branch.
- A name nobody has: Python's KeyError (`d.get` gives the default, `in` is False).
- Dunder keys (`__builtins__`, `__loader__`, `__file__`, even `__name__`) are the module's
  Python internals: every way of reaching one is a NotSupportedError and iteration never
  yields one.
- Writes are a NotSupportedError, not the TypeError of a read-only mapping
  (`'mappingproxy' object does not support item assignment`): under torch a module's dict
  is a plain writable dict, so the write succeeds there; a TypeError would be a Python
  error torch never raises, which a script's `except TypeError:` would swallow silently.
  Arguments Python's dict rejects first (`d[[1]] = 0`, `d.pop()`) get its TypeError, as
  under torch.
- Printing it is a NotSupportedError: torch prints every entry of the module (its
  builtins, loader, and functions with their addresses), which gradtrace cannot reproduce.

Where it still differs from torch's dict: the keys are gradtrace's names in its own order
(a name gradtrace offers that torch lacks, `torch.view`, is one, as the attribute is);
torch.backends.cudnn's switches, properties of torch's module class, are keys here; a deep
copy gives the view itself; `d.__getitem__` and the other protocol dunders are not offered
as values.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import NotSupportedError, ScriptError
from .nesting import check_hashable
from .objects import MISSING, Instance, is_dunder

if TYPE_CHECKING:
    from .core import Interpreter


_PROBE = object()  # the one key of the throwaway dict _python_check calls a method on


def _python_check(method: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Run a dict method on a throwaway dict for its argument checks only: its TypeError
    (`pop expected at least 1 argument, got 0`, `unhashable type: 'list'`) worded as
    Python's; a KeyError means the arguments were fine. (The dict is not empty: CPython's
    pop on an empty dict raises its KeyError before it hashes the key. A key is checked for
    a tuple nested past the recursion limit first, whose C hash would overflow the stack.)"""
    if args:
        check_hashable(args[0])
    try:
        method({_PROBE: None}, *args, **kwargs)
    except KeyError:
        pass
    except TypeError as err:
        raise ScriptError(str(err), kind="TypeError") from None


def _hash_check(key: Any) -> None:
    """A dict hashes its key first: an unhashable one is Python's TypeError."""
    _python_check(dict.get, key)


class ModuleDict:
    """`module.__dict__` of a script-visible module (a stdlib.Namespace), read-only and
    lookup-only; one per module and run, so `m.__dict__ is vars(m)` as in Python."""

    __slots__ = ("interp", "namespace")
    python_type_name = "dict"  # (what Python's messages call it: a module's dict is a dict)
    __hash__ = None  # type: ignore[assignment]  # (a dict: `hash(d)` is Python's TypeError)

    def __init__(self, interp: Interpreter, namespace: stdlib.Namespace):
        self.interp = interp
        self.namespace = namespace

    # ------------------------------------------------------------------ lookups

    def _key(self, key: Any) -> Any:
        """The key as a name (a str subclass instance as its text), or MISSING for a key
        no module dict holds (not a str); an unhashable key is Python's TypeError and a
        dunder is refused."""
        if type(key) is Instance and key.cls.builtin is str:
            key = key.value
        if type(key) is not str:
            _hash_check(key)
            return MISSING
        if is_dunder(key):
            raise NotSupportedError(
                f"key '{key}' of the __dict__ of module '{self.namespace.name}' is not "
                "available in gradtrace scripts: a module's dunders are Python's internals")
        return key

    def _value(self, name: str) -> Any:
        """What `getattr(module, name)` gives (attribute lookup itself runs), or MISSING
        where torch's module lacks the name too (its AttributeError there); a name only
        gradtrace lacks raises what attribute lookup raises."""
        if self.interp.namespace_offers(self.namespace, name):
            return self.interp.get_attribute(self.namespace, name, None)
        error = stdlib.missing_namespace_name(self.namespace, name)
        if isinstance(error, ScriptError) and error.matches("AttributeError"):
            return MISSING
        raise error

    def __getitem__(self, key: Any) -> Any:
        name = self._key(key)
        found = MISSING if name is MISSING else self._value(name)
        if found is MISSING:
            raise ScriptError(repr(key), kind="KeyError")
        return found

    def get(self, *args: Any, **kwargs: Any) -> Any:
        """`d.get(name[, default])`."""
        _python_check(dict.get, *args, **kwargs)
        name = self._key(args[0])
        default = args[1] if len(args) > 1 else None
        found = MISSING if name is MISSING else self._value(name)
        return default if found is MISSING else found

    def __contains__(self, key: Any) -> bool:
        """`name in d`, as `hasattr(module, name)` answers: a name gradtrace offers, or one
        torch's module has that gradtrace does not."""
        name = self._key(key)
        if name is MISSING:
            return False
        if self.interp.namespace_offers(self.namespace, name):
            return True
        error = stdlib.missing_namespace_name(self.namespace, name)
        if isinstance(error, ScriptError) and error.matches("AttributeError"):
            return False
        if stdlib.torch_has(self.namespace, name):
            return True
        raise error

    def names(self) -> list[str]:
        """The names offered now, in the namespace's order (never a dunder)."""
        return [name for name in self.interp.namespace_names(self.namespace)
                if not is_dunder(name)]

    def __len__(self) -> int:
        return len(self.names())

    def __iter__(self) -> Iterator[str]:
        """The names as they are when the loop starts (a name added while it runs, by an
        import or a setattr, is not seen: Python's own dict would raise a RuntimeError)."""
        return iter(self.names())

    def __reversed__(self) -> Iterator[str]:
        return reversed(self.names())

    def __or__(self, other: Any) -> Any:
        """`d | other`: a new plain dict, the names offered then other's items."""
        if type(other) is ModuleDict:
            other = other.copy()
        return {**self.copy(), **other} if isinstance(other, dict) else NotImplemented

    def __ror__(self, other: Any) -> Any:
        return {**other, **self.copy()} if isinstance(other, dict) else NotImplemented

    def __ior__(self, other: Any) -> Any:
        """`d |= other` writes into the module's dict (Python would not fall back to `|`)."""
        raise self.refuse_write("|=")

    def _values(self) -> Iterator[Any]:
        for name in self.names():
            yield self._value(name)

    def _items(self) -> Iterator[tuple[str, Any]]:
        for name in self.names():
            yield name, self._value(name)

    def keys(self, *args: Any, **kwargs: Any) -> ModuleDictView:
        _python_check(dict.keys, *args, **kwargs)
        return ModuleDictKeys(self, "keys")

    def values(self, *args: Any, **kwargs: Any) -> ModuleDictView:
        _python_check(dict.values, *args, **kwargs)
        return ModuleDictValues(self, "values")

    def items(self, *args: Any, **kwargs: Any) -> ModuleDictView:
        _python_check(dict.items, *args, **kwargs)
        return ModuleDictItems(self, "items")

    def copy(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """A plain dict of the names offered (Python's copy of a module dict is a dict)."""
        _python_check(dict.copy, *args, **kwargs)
        names = self.names()
        self.interp.check_size(len(names), "a dict")
        return dict(self._items())

    # ------------------------------------------------------------------ refusals

    def refuse_write(self, what: str) -> NotSupportedError:
        """The error for a write through the view."""
        hint = " (set the attribute instead: `module.name = value` adds a name a torch " \
               "module lacks)" if self.namespace.name.split(".")[0] == "torch" else ""
        return NotSupportedError(
            f"{what} on the __dict__ of module '{self.namespace.name}' is not supported: a "
            f"module's __dict__ is read-only in gradtrace scripts{hint}")

    def set_item(self, key: Any) -> None:
        """`d[key] = value`: Python's TypeError for an unhashable key, else refused."""
        _hash_check(key)
        raise self.refuse_write("item assignment")

    def del_item(self, key: Any) -> None:
        """`del d[key]`."""
        _hash_check(key)
        raise self.refuse_write("item deletion")

    def __repr__(self) -> str:
        raise NotSupportedError(
            f"printing the __dict__ of module '{self.namespace.name}' is not supported: "
            "torch prints every entry of the module (its builtins and loader, functions "
            "with their addresses); look names up in it instead")

    __str__ = __repr__


class ModuleDictView:
    """`d.keys()`, `d.values()`, `d.items()` of a module's dict: live, as Python's dict
    views (each loop reads the names offered then); printing one is refused as the dict's
    printing is."""

    __slots__ = ("mapping", "kind")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, mapping: ModuleDict, kind: str):
        self.mapping = mapping
        self.kind = kind

    def __len__(self) -> int:
        return len(self.mapping)

    def __iter__(self) -> Iterator[Any]:
        if self.kind == "keys":
            return iter(self.mapping)
        return self.mapping._values() if self.kind == "values" else self.mapping._items()

    def __contains__(self, item: Any) -> bool:
        if self.kind == "keys":
            return item in self.mapping
        if self.kind == "items":  # Python's: a 2-tuple whose value is the key's, by ==
            if type(item) is not tuple or len(item) != 2:
                return False
            name = self.mapping._key(item[0])
            found = MISSING if name is MISSING else self.mapping._value(name)
            return found is not MISSING and (found is item[1] or bool(found == item[1]))
        return any(value is item or bool(value == item) for value in self.mapping._values())

    def __repr__(self) -> str:
        raise NotSupportedError(
            f"printing the {self.kind}() of the __dict__ of module "
            f"'{self.mapping.namespace.name}' is not supported: torch's hold every entry "
            "of the module (its dunders and submodules, in its import order)")

    __str__ = __repr__


_SET_LIKE = (set, frozenset, type({}.keys()), type({}.items()))


def _as_set(other: Any) -> Any:
    """The other operand of a keys view's set operator as a set (Python's dict_keys takes
    any iterable; here the built containers), or None."""
    if isinstance(other, (ModuleDictKeys, ModuleDictItems)) or \
            isinstance(other, (*_SET_LIKE, list, tuple, dict)):
        return set(other)
    return None


class ModuleDictKeys(ModuleDictView):
    """`d.keys()`: set-like, as Python's dict_keys (`==`, `&`, `|`, `-`, `^` give sets)."""

    __slots__ = ()
    python_type_name = "dict_keys"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (ModuleDictKeys, ModuleDictItems, *_SET_LIKE)):
            return set(self) == set(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def _operate(self, other: Any, op: Callable[[set, set], set], reflected: bool) -> Any:
        other_set = _as_set(other)
        if other_set is None:
            return NotImplemented
        mine = set(self)
        return op(other_set, mine) if reflected else op(mine, other_set)

    def __and__(self, other: Any) -> Any:
        return self._operate(other, set.__and__, False)

    def __rand__(self, other: Any) -> Any:
        return self._operate(other, set.__and__, True)

    def __or__(self, other: Any) -> Any:
        return self._operate(other, set.__or__, False)

    def __ror__(self, other: Any) -> Any:
        return self._operate(other, set.__or__, True)

    def __sub__(self, other: Any) -> Any:
        return self._operate(other, set.__sub__, False)

    def __rsub__(self, other: Any) -> Any:
        return self._operate(other, set.__sub__, True)

    def __xor__(self, other: Any) -> Any:
        return self._operate(other, set.__xor__, False)

    def __rxor__(self, other: Any) -> Any:
        return self._operate(other, set.__xor__, True)


class ModuleDictValues(ModuleDictView):
    __slots__ = ()
    python_type_name = "dict_values"


class ModuleDictItems(ModuleDictView):
    __slots__ = ()
    python_type_name = "dict_items"


MODULE_DICT_TYPES = (ModuleDict, ModuleDictKeys, ModuleDictValues, ModuleDictItems)
"""The view types: iterable and sized (protocols.ITERABLES)."""

def _writer(name: str, check: Callable[..., Any]) -> Callable[..., Any]:
    """A dict method that writes (`update`, `pop`, ...), as a module dict's: Python's
    argument checks (`check`, run on a throwaway dict), then the refusal."""
    def refused(view: ModuleDict, *args: Any, **kwargs: Any) -> Any:
        if name == "update":  # (its argument is not walked: it may be a lazy iterable)
            if len(args) > 1:
                raise ScriptError(f"update expected at most 1 argument, got {len(args)}",
                                  kind="TypeError")
        else:
            _python_check(check, *args, **kwargs)
        raise view.refuse_write(f"{name}()")

    return refused


MUTATING: dict[str, Callable[..., Any]] = {
    name: _writer(name, check) for name, check in (
        ("update", dict.update), ("setdefault", dict.setdefault), ("pop", dict.pop),
        ("popitem", dict.popitem), ("clear", dict.clear))}
"""The dict methods that change a dict: refused on a module's."""
READING: dict[str, Callable[..., Any]] = {
    "get": ModuleDict.get, "keys": ModuleDict.keys, "values": ModuleDict.values,
    "items": ModuleDict.items, "copy": ModuleDict.copy}
"""The dict methods that read: a module dict's own."""


def module_dict_attribute(view: ModuleDict, name: str) -> Any:
    """`d.get`, `d.keys`, ... and the writers (`d.update`, refused when called) as bound
    methods; MISSING for any other name (Python's AttributeError, from the caller)."""
    method = READING.get(name) or MUTATING.get(name)
    return MISSING if method is None else stdlib.BoundMethod(view, method, name)
