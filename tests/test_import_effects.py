"""`collections.abc` is an attribute of `collections` only once an import has loaded it, as
in CPython 3.11: a plain `import collections` does not, `import torch`, `import typing` or
`from collections import abc` do. Each snippet prints what the CPython running the tests
prints (torch installed)."""
from __future__ import annotations

from test_python_gaps import gt_error, same_as_python


def test_plain_import_collections_has_no_abc_attribute():
    err = gt_error("import collections\ncollections.abc.Mapping\n")
    assert err.kind == "AttributeError"
    assert err.message == "module 'collections' has no attribute 'abc'"


def test_hasattr_turns_true_once_a_loading_import_runs():
    same_as_python("""\
import collections
print(hasattr(collections, "abc"))
def later():
    import typing
print(hasattr(collections, "abc"))
later()
print(hasattr(collections, "abc"), collections.abc.Mapping)
""")


def test_from_collections_import_abc_binds_the_submodule():
    same_as_python("""\
import collections
from collections import abc
print(abc.Sequence, collections.abc.Sized)
from collections import abc as cabc, OrderedDict
print(cabc is abc, OrderedDict)
""")


def test_import_torch_loads_collections_abc():
    same_as_python("""\
import torch
import collections
print(isinstance([], collections.abc.Sequence), isinstance({}, collections.abc.Mapping))
""", timeout=120)


def test_import_collections_abc_itself_loads_it():
    same_as_python("""\
import collections.abc
import collections
print(collections.abc.Iterable)
""")
