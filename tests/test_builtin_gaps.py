"""Builtins real scripts call that the language lacked: iter(callable, sentinel), str.format
fields reading attributes and items, range.start/stop/step; a probe of common idioms. Each
snippet's output must be what the CPython running the tests prints."""
from __future__ import annotations

from test_python_gaps import gt_error, same_as_python, snippet


def test_iter_with_a_sentinel_calls_until_the_sentinel():
    same_as_python(snippet("iter_sentinel"))


def test_format_fields_read_attributes_and_items_as_the_script_does():
    same_as_python(snippet("format_field_lookups"))


def test_a_format_field_cannot_reach_python_internals():
    err = gt_error('"{0.__class__.__subclasses__}".format(1)\n')
    assert err.kind == "NotSupportedError"


def test_range_attributes_and_methods():
    same_as_python("r = range(2, 20, 3)\nprint(r.start, r.stop, r.step, r.index(5), r.count(8))\n")


def test_common_idioms_of_pytorch_scripts_print_as_in_python():
    same_as_python(snippet("idioms_probe"))


def test_ascii_and_the_a_conversion_with_typing_and_format_specs():
    same_as_python(snippet("typing_and_format_probe"))


def test_counter_elements_and_deque_extend():
    same_as_python(snippet("counter_deque_gaps"))


def test_class_protocols_probe_prints_as_in_python():
    same_as_python(snippet("class_protocols_probe"))


def test_stdlib_probe_prints_as_in_python():
    same_as_python(snippet("stdlib_probe"))


def test_copy_hooks_getstate_setstate_and_singledispatch():
    same_as_python(snippet("copy_hooks_singledispatch"))


def test_deepcopy_memo_keyed_by_a_scripts_id_and_state_hooks():
    same_as_python(snippet("copy_state_memo"))


def test_singledispatch_by_mro_abcs_annotations_and_methods():
    same_as_python(snippet("singledispatch"))


def test_builtin_types_mro_and_bases():
    same_as_python(snippet("builtin_mro"))


def test_copies_of_an_optimizer_go_through_its_getstate_and_setstate_as_in_torch():
    same_as_python(snippet("copy_optimizer"), timeout=120)


ITERATOR_DUNDERS = """it = iter([1, 2, 3])
print(hasattr(it, "__next__"), hasattr(it, "__iter__"))
print(it.__next__())
print(next(it))
g = (i for i in range(3))
print(hasattr(g, "__next__"), g.__next__())
d = iter({"a": 1})
print(d.__next__())
print(hasattr([], "__iter__"), hasattr([], "__len__"), hasattr(3, "__add__"))
print(iter(it) is it, it.__iter__() is it)
m = map(str, [1, 2])
print(m.__next__(), hasattr(m, "__next__"), m.__iter__() is m)
z = zip([1], [2])
print(z.__next__(), enumerate("ab").__next__(), reversed([1, 2]).__next__())
f = filter(None, [0, 5])
print(f.__next__())
print(iter(range(3)).__next__(), iter({1, 2}).__next__(), iter(b"ab").__next__())
nxt = iter([7, 8]).__next__
print(nxt(), nxt())
try:
    nxt()
except StopIteration:
    print("stop")
print([1, 2].__iter__().__next__(), "ab".__iter__().__next__())
"""


def test_builtin_iterators_have_next_and_iter_methods_as_in_python():
    """`it.__next__()` and `it.__iter__()` of list, dict, set, range, bytes, zip, map,
    filter, enumerate and reversed iterators (tqdm's asyncio bar reads `__next__`), and a
    container's `__iter__`, as plain values too."""
    same_as_python(ITERATOR_DUNDERS)
