"""A script function's `__defaults__`, `__kwdefaults__` and `__annotations__` (read without
`inspect`), as CPython 3.11 gives them; functools.wraps copies the annotations. Each
snippet's output must be what the CPython running the tests prints."""
from __future__ import annotations

from test_python_gaps import gt_error, same_as_python, snippet


def test_defaults_kwdefaults_and_annotations_of_a_def_and_a_lambda():
    same_as_python("""\
def f(a: int, b: "str" = "x", *args, c: float = 1.5, d, **kw) -> list:
    return a
print(f.__annotations__)
print(f.__defaults__, f.__kwdefaults__)
def g(): pass
print(g.__annotations__, g.__defaults__, g.__kwdefaults__)
lam = lambda x=3, *, y=4: x
print(lam.__defaults__, lam.__kwdefaults__, lam.__annotations__)
def pos(a, b=1, /, c=2, *, d, e=5): pass
print(pos.__defaults__, pos.__kwdefaults__)
""")


def test_method_annotations_see_the_class_body_and_are_one_dict():
    same_as_python("""\
from typing import Optional
class M:
    T = int
    def m(self, x: T, y: "M" = None) -> Optional[float]:
        return x
print(M.m.__annotations__, M().m.__annotations__ is M.m.__annotations__)
print(M().m.__defaults__)
def outer():
    L = list
    def inner(v: L) -> L: pass
    return inner
print(outer().__annotations__)
""")


def test_annotations_dict_keeps_the_scripts_changes():
    same_as_python("""\
def k(x: int = 0) -> None: pass
k.__annotations__["extra"] = 1
print(k.__annotations__)
""")


def test_future_annotations_are_pythons_unparsed_strings_and_wraps_copies_them():
    same_as_python(snippet("function_annotations_future"))


def test_an_annotation_is_evaluated_when_first_read():
    err = gt_error("""\
        def f(x: undefined_name): pass
        f(1)
        print(f.__annotations__)
        """)
    assert err.kind == "NameError"
    assert err.message == "name 'undefined_name' is not defined"


def test_class_annotations_are_its_own_and_dataclass_skips_classvars():
    same_as_python(snippet("class_annotations"))


def test_class_annotations_under_pep_563_are_strings():
    same_as_python(snippet("class_annotations_future"))


def test_dataclass_keyword_only_fields_by_option_marker_and_field():
    same_as_python(snippet("dataclass_kw_only"))
