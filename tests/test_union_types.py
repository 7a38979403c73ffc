"""PEP 604 unions (`int | None`) and typing's Union/Optional in isinstance/issubclass, as in
CPython 3.11 (torch installed: `torch.Tensor | None`)."""
from __future__ import annotations

from test_python_gaps import same_as_python, snippet


def test_unions_print_compare_and_check_as_in_python():
    same_as_python(snippet("union_types"), timeout=120)


def test_type_of_a_union_is_types_uniontype():
    same_as_python("print(type(int | None), int | None | str)\n")
