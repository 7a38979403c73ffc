"""A script class's own `__new__` (type.__call__: `__new__`, then `__init__` only on an
instance of the class), object.__new__'s argument rules, `cls.__new__(cls)` as an
alternate constructor: each snippet's output must be what the CPython running the tests
prints."""
from __future__ import annotations

from test_python_gaps import gt_error, same_as_python, snippet


def test_new_then_init_receive_the_same_arguments():
    same_as_python("""\
class A:
    def __new__(cls, *args):
        print("new", cls.__name__, args)
        inst = super().__new__(cls)
        inst.tag = "t"
        return inst
    def __init__(self, x):
        print("init", x)
        self.x = x
a = A(3)
print(a.x, a.tag, type(a).__name__)
""")


def test_new_returning_another_class_skips_init():
    same_as_python("""\
class B:
    def __init__(self):
        print("B init")
class C:
    def __new__(cls):
        return B()
    def __init__(self):
        print("C init never")
print(type(C()).__name__)
class G:
    def __new__(cls):
        return 42
print(G())
""")


def test_object_new_makes_an_instance_without_init():
    same_as_python("""\
class A:
    def __init__(self, x):
        self.x = x
o = object.__new__(A)
print(type(o).__name__, hasattr(o, "x"))
print(type(object.__new__(object)).__name__)
""")


def test_cls_new_as_an_alternate_constructor_and_a_singleton():
    same_as_python("""\
class H:
    @classmethod
    def empty(cls):
        obj = cls.__new__(cls)
        obj.v = None
        return obj
    def __init__(self, v):
        self.v = v
print(H.empty().v, H(2).v, H.__new__ is object.__new__)
class Single:
    _inst = None
    def __new__(cls):
        if cls._inst is None:
            cls._inst = super().__new__(cls)
        return cls._inst
print(Single() is Single())
""")


def test_new_and_init_argument_rules_match_object_new():
    same_as_python(snippet("class_new_rules"))


def test_new_returning_a_subclass_instance_runs_the_subclass_init():
    same_as_python("""\
class Factory:
    def __new__(cls, x):
        if x:
            return super().__new__(Impl)
        return super().__new__(cls)
    def __init__(self, x):
        print("Factory init", type(self).__name__)
class Impl(Factory):
    def __init__(self, x):
        print("Impl init", x)
Factory(1)
Factory(0)
""")


def test_tuple_subclass_new_and_its_arity_error_name_new():
    same_as_python("""\
class T(tuple):
    def __new__(cls, a, b):
        return super().__new__(cls, (a, b))
print(T(1, 2), len(T(1, 2)))
class S:
    def __new__(cls, data, batch_sizes=None):
        return super().__new__(cls)
try:
    S()
except TypeError as e:
    print(e)
""")


def test_object_new_refuses_a_non_type():
    err = gt_error("object.__new__(3)\n")
    assert err.kind == "TypeError"
    assert str(err.message) == "object.__new__(X): X is not a type object (int)"


def test_packed_sequence_without_data_names_new_as_torch_does():
    same_as_python("""\
import torch.nn.utils.rnn as rnn_utils
try:
    rnn_utils.PackedSequence()
except TypeError as e:
    print(e)
""", timeout=120)


def test_namedtuple_subclass_fields_methods_new_and_helpers_match_python():
    same_as_python(snippet("namedtuple_subclass"))


def test_packed_sequence_is_a_namedtuple_subclass_as_in_torch():
    same_as_python("""\
import torch
from torch.nn.utils.rnn import pack_sequence, PackedSequence
p = pack_sequence([torch.tensor([1.0, 2.0]), torch.tensor([3.0])])
print(p, type(p).__name__, isinstance(p, tuple), len(p), p._fields)
print(p._replace(sorted_indices=None).sorted_indices, list(p._asdict()))
q = PackedSequence(p.data, p.batch_sizes)
print(q == p, q.unsorted_indices, type(p.to(torch.float64)).__name__)
print(PackedSequence((p.data, p.batch_sizes)), PackedSequence.__bases__)
""", timeout=120)


def test_init_subclass_runs_the_parents_hook_with_the_class_keywords():
    same_as_python(snippet("init_subclass"))


def test_slots_refuse_other_attributes_unless_a_class_has_a_dict():
    same_as_python(snippet("slots"))


def test_script_descriptors_get_set_delete_set_name_and_lru_cache_methods():
    same_as_python(snippet("descriptors"))
