"""The language beyond expressions: scopes, generators, classes as the sandbox sees them,
and bundled library modules (loading, intrinsics, attribution, limits).

CPython's own output for these constructs is checked by the torch-recorded cases in
tests/conformance_extra/lang_*.gt; these tests check what only gradtrace has.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from gradtrace import stdlib, torch_namespace
from gradtrace.errors import GtSyntaxError, LimitExceeded, NotSupportedError
from gradtrace.interpreter import Limits, library
from gradtrace.runner import run_text


def run(text: str, **kwargs):
    return run_text("import torch\n" + text, **kwargs)


def out(text: str) -> str:
    result = run(text)
    assert result.error is None, result.error.format(result.source)
    return result.stdout


def error(text: str, **kwargs):
    result = run(text, **kwargs)
    assert result.error is not None, "expected an error"
    return result.error


# ------------------------------------------------------------------ scopes


@pytest.mark.parametrize("text, message", [
    ("def f():\n    nonlocal x\n", "no binding for nonlocal 'x' found"),
    ("def f():\n    x = 1\n    global x\n", "name 'x' is assigned to before global declaration"),
    ("def f():\n    print(x)\n    global x\n", "name 'x' is used prior to global declaration"),
    ("def f(a):\n    global a\n", "name 'a' is parameter and global"),
    ("def f():\n    x = 1\n    def g():\n        global x\n        nonlocal x\n",
     "name 'x' is nonlocal and global"),
])
def test_scope_errors_are_cpythons_and_stop_the_script_before_it_runs(text, message):
    result = run("print('never')\n" + text)
    assert isinstance(result.error, GtSyntaxError)
    assert result.error.message == message
    assert result.stdout == ""


def test_reading_a_local_before_binding_it_is_unbound_local_error():
    err = error("x = 1\ndef f():\n    print(x)\n    x = 2\nf()\n")
    assert err.kind == "UnboundLocalError"
    assert err.message == "cannot access local variable 'x' where it is not associated with a value"
    assert err.span.line == 4


def test_methods_do_not_see_class_body_names_but_comprehensions_see_function_locals():
    text = ("k = 'global'\nclass A:\n    k = 'class'\n    def f(self):\n        return k\n"
            "def g(n):\n    return [n * i for i in range(3)]\nprint(A().f(), g(2))\n")
    assert out(text) == "global [0, 2, 4]\n"


def test_private_names_are_mangled_inside_classes():
    text = ("class A:\n    def __init__(self):\n        self.__x = 1\n"
            "    def get(self):\n        return self.__x\na = A()\nprint(a.get(), a._A__x)\n")
    assert out(text) == "1 1\n"


# ------------------------------------------------------------------ generators


def test_generator_steps_count_against_the_step_limit():
    err = error("def g():\n    while True:\n        yield 1\nfor x in g():\n    pass\n",
                limits=Limits(max_steps=5000))
    assert isinstance(err, LimitExceeded) and "--max-steps" in err.message


def test_recursive_generators_count_against_the_call_depth():
    text = "def down(n):\n    yield n\n    yield from down(n + 1)\nprint(len(list(down(0))))\n"
    err = error(text, limits=Limits(max_call_depth=50))
    assert err.kind == "RecursionError"


def test_stop_iteration_inside_a_generator_is_a_runtime_error_as_pep_479_says():
    text = ("def g():\n    yield next(iter([]))\ntry:\n    list(g())\n"
            "except RuntimeError as e:\n    print(e)\n")
    assert out(text) == "generator raised StopIteration\n"


def test_a_generator_dropped_before_its_end_runs_no_finally_block():
    text = ("def g():\n    try:\n        yield 1\n    finally:\n        print('cleanup')\n"
            "x = g()\nprint(next(x))\nx = None\nprint('after')\n")
    assert out(text) == "1\nafter\n"


def test_closing_a_suspended_generator_reports_no_engine_warning(monkeypatch):
    """Python closes a generator left suspended when it collects it, at the latest at
    interpreter shutdown, when module globals are already cleared: closing runs no
    gradtrace code that could need them (it once flushed pending engine warnings)."""
    from gradtrace.engine.ops import creation
    from gradtrace.interpreter import core
    from gradtrace.parser import parse
    from gradtrace.source import Source

    source = Source("<script>", "def g():\n    yield 1\n    yield 2\nit = g()\nnext(it)\n")
    interp = core.Interpreter(source, limits=Limits())
    interp.run(parse(source))
    generator = interp.globals.vars["it"].gen
    monkeypatch.setattr(creation, "WARNINGS", creation.WARNINGS)
    creation.WARNINGS.append("pending")
    monkeypatch.setattr(core, "creation", None)  # as shutdown leaves module globals
    try:
        generator.close()
    finally:
        creation.WARNINGS.clear()


def test_yield_inside_an_expression_is_refused_by_name():
    err = error("def g():\n    print((yield 1))\nlist(g())\n")
    assert isinstance(err, NotSupportedError) and "`yield` is only supported" in err.message


def test_list_of_an_endless_generator_stops_at_the_sequence_limit():
    err = error("def g():\n    while True:\n        yield 1\nxs = list(g())\n",
                limits=Limits(max_sequence=1000))
    assert isinstance(err, LimitExceeded) and "--max-sequence" in err.message


def test_starred_unpacking_reads_one_item_past_the_targets_only():
    text = ("def g():\n    for i in range(5):\n        print('made', i)\n        yield i\n"
            "try:\n    a, b = g()\nexcept ValueError as e:\n    print(e)\n")
    assert out(text) == "made 0\nmade 1\nmade 2\ntoo many values to unpack (expected 2)\n"


# ------------------------------------------------------------------ the sandbox


@pytest.mark.parametrize("expression", [
    "A.__dict__", "a.__dict__.__class__.__dict__", "a.__mro__", "a.__bases__", "A.__subclasses__",
    "object.__subclasses__", "a.f.__func__.__globals__", "a.f.__func__.__code__",
    "type(a).__dict__", "super(A, a).__getattribute__", "len.__self__",
    "(lambda: 0).__closure__", "A.p.fget.__code__", "int.__subclasses__",
])
def test_python_internals_are_refused_through_every_object_kind(expression):
    err = error("class A:\n    def f(self):\n        return 1\n    @property\n    def p(self):\n"
                f"        return 2\na = A()\nprint({expression})\n")
    assert isinstance(err, NotSupportedError), err


def test_an_instance_dict_is_its_live_attributes_but_not_a_library_objects():
    assert out("class A:\n    pass\na = A()\na.__dict__['x'] = 1\na.y = 2\n"
               "print(a.x, a.__dict__, vars(a) is a.__dict__)\n") == "1 {'x': 1, 'y': 2} True\n"
    err = error("import torch\nw = torch.zeros(1, requires_grad=True)\n"
                "print(torch.optim.SGD([w], lr=0.1).__dict__)\n")
    assert isinstance(err, NotSupportedError), err


@pytest.mark.parametrize("statement", [
    "a.__class__ = B", "setattr(a, '__class__', B)", "A.__init__ = B.__init__",
    "del A.__init__",
])
def test_dunders_cannot_be_set_or_deleted(statement):
    err = error(f"class A:\n    pass\nclass B:\n    pass\na = A()\n{statement}\n")
    assert isinstance(err, NotSupportedError), err


def test_an_instance_own_dunder_is_an_ordinary_attribute_as_in_python():
    # (PyG's VGAE.encode: `self.__mu__, self.__logstd__ = self.encoder(x)` on a Module)
    text = ("class A:\n    pass\na = A()\na.__mu__ = 1\nsetattr(a, '__logstd__', 2)\n"
            "print(a.__mu__, getattr(a, '__logstd__'), hasattr(a, '__mu__'), vars(a))\n"
            "del a.__mu__\nprint(hasattr(a, '__mu__'), vars(a))\n"
            "class M(torch.nn.Module):\n    def f(self, x):\n        self.__mu__ = x * 2\n"
            "        return self.__mu__ + 1\nm = M()\nprint(m.f(torch.ones(2)), m.__mu__)\n")
    assert out(text) == ("1 2 True {'__mu__': 1, '__logstd__': 2}\nFalse {'__logstd__': 2}\n"
                         "tensor([3., 3.]) tensor([2., 2.])\n")


@pytest.mark.parametrize("statement", [
    "a.__len__ = lambda: 3", "a.__getattr__ = lambda n: 1", "a.__torch_function__ = 1",
    "a.__deepcopy__ = None", "a.__orig_class__ = A", "setattr(a, '__call__', print)",
    "a.__enter__ = 1", "a.__globals__ = {}", "del a.__iter__",
])
def test_special_names_cannot_be_set_on_an_instance(statement):
    err = error(f"class A:\n    pass\na = A()\n{statement}\n")
    assert isinstance(err, NotSupportedError), err


def test_an_instance_dict_can_be_replaced_as_in_python():
    # (learn2learn's clone_module: `clone.__dict__ = module.__dict__.copy()`)
    assert out("class A:\n    pass\na = A()\na.x = 1\nobject.__setattr__(a, '__dict__', "
               "{'y': 2})\nprint(hasattr(a, 'x'), a.y)\n") == "False 2\n"


def test_object_is_shared_by_runs_and_cannot_be_changed():
    err = error("object.x = 1\n")
    assert err.kind == "TypeError"
    assert err.message == "cannot set 'x' attribute of immutable type 'object'"


def test_missing_dunders_of_script_classes_are_attribute_errors_for_duck_typing():
    assert out("class A:\n    pass\nprint(hasattr(A(), '__len__'), getattr(A, '__iter__', 0))\n") \
        == "False 0\n"


def test_every_class_in_an_mro_names_its_module_object_included():
    # (python: "['__main__', 'builtins'] builtins object")
    assert out("class A:\n    pass\nprint([c.__module__ for c in A.__mro__], "
               "object.__module__, object.__qualname__)\n") == \
        "['__main__', 'builtins'] builtins object\n"


def test_type_of_an_interpreter_object_is_an_opaque_class_called_with_pythons_errors():
    # (python: "function() missing required argument 'code' (pos 1)": no script value is a
    # code object, so calling it never makes a function)
    text = "def f():\n    pass\nT = type(f)\nprint(T, T == type(lambda: 0))\nT()\n"
    result = run(text)
    assert result.stdout == "<class 'function'> True\n"
    assert result.error.kind == "TypeError"
    assert result.error.message == "function() missing required argument 'code' (pos 1)"


# ------------------------------------------------------------------ library modules


@pytest.fixture
def test_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A bundled-library module `testlib.helpers`, exported into torch.utils.data."""
    module = tmp_path / "testlib"
    module.mkdir()
    (module / "helpers.gt").write_text(
        "import torch\n"
        "import _gradtrace\n"
        "from _gradtrace import warn\n"
        "\n"
        "\n"
        "class Leaky:\n"
        "    intrinsics = _gradtrace\n"
        "    warn_fn = warn\n"
        "\n"
        "\n"
        "def double(t):\n"
        "    hidden = t * 2\n"
        "    return hidden + 0\n"
        "\n"
        "\n"
        "def complain(message):\n"
        "    warn(message)\n"
        "    return 1\n"
        "\n"
        "\n"
        "def fail(x):\n"
        "    if x < 0:\n"
        "        raise ValueError(f'negative: {x}')\n"
        "    return x\n"
        "\n"
        "\n"
        "def spin():\n"
        "    while True:\n"
        "        pass\n")
    monkeypatch.setattr(library, "LIBRARY_DIRS", [tmp_path] + library.LIBRARY_DIRS)
    names = {name: "testlib.helpers" for name in ("Leaky", "double", "complain", "fail", "spin")}
    table = torch_namespace.MODULES["torch.utils.data"].table
    for name, module_name in names.items():
        monkeypatch.setitem(table, name, stdlib.LibraryName(module_name, name))
    library._PARSED.pop("testlib.helpers", None)
    yield tmp_path
    library._PARSED.pop("testlib.helpers", None)


def test_a_library_module_is_loaded_on_first_use_once_per_run(test_library):
    from gradtrace.interpreter import Interpreter
    from gradtrace.parser import parse
    from gradtrace.source import Source

    source = Source("s.gt", "from torch.utils.data import double\nimport torch\n"
                            "print(double(torch.ones(1)), double(torch.ones(1)))\n")
    interp = Interpreter(source)
    assert interp.library.modules == {}
    interp.run(parse(source))
    assert list(interp.library.modules) == ["testlib.helpers"]
    assert library.parsed("testlib.helpers") is library.parsed("testlib.helpers")


def test_a_script_that_does_not_use_the_library_never_loads_it():
    from gradtrace.interpreter import Interpreter
    from gradtrace.parser import parse
    from gradtrace.source import Source

    source = Source("s.gt", "import torch\nimport torch.utils.data as data\nx = data\n")
    interp = Interpreter(source)
    interp.run(parse(source))
    assert interp.library.modules == {}


def test_intrinsics_leaked_through_exported_objects_cannot_be_called(test_library):
    for call in ("Leaky.warn_fn('x')", "Leaky().warn_fn('x')", "Leaky.intrinsics.warn('x')",
                 "list(map(Leaky.warn_fn, ['x']))", "sorted([1, 2], key=Leaky.warn_fn)"):
        result = run(f"from torch.utils.data import Leaky\n{call}\n")
        assert result.error is not None and result.error.kind in (
            "NotSupportedError", "TypeError"), (call, result.error)
        assert "InternalError" not in result.error.kind


def test_intrinsics_run_for_library_code_at_the_users_line(test_library):
    import io

    stderr = io.StringIO()
    result = run_text("from torch.utils.data import complain\nx = complain('careful')\n",
                      stderr=stderr)
    assert result.error is None
    assert stderr.getvalue().startswith("<script>:2: UserWarning: careful")


def test_library_errors_are_located_at_the_users_call_with_their_message(test_library):
    err = error("from torch.utils.data import fail\ny = 1\nz = fail(-3)\n")
    assert (err.kind, err.message, err.span.line) == ("ValueError", "negative: -3", 4)


def test_steps_and_time_count_inside_library_code(test_library):
    err = error("from torch.utils.data import spin\nspin()\n", limits=Limits(max_steps=10000))
    assert isinstance(err, LimitExceeded) and err.span.line == 3


def test_what_library_code_records_is_attributed_to_the_users_line(test_library):
    result = run("from torch.utils.data import double\nx = torch.ones(1, requires_grad=True)\n"
                 "\ny = double(x)\n", trace=True)
    assert result.error is None
    trace = result.trace
    lines = {record.name: record.line for record in trace.nodes.values()}
    assert lines == {"MulBackward0": 5, "AddBackward0": 5,
                     "torch::autograd::AccumulateGrad": 3}
    names = [name for record in trace.tensors.values() for name in record.names]
    assert "hidden" not in names and "t" not in names
    assert all(ev.facts.get("library") for ev in trace.events if ev.kind == "op")


def test_user_functions_called_by_library_code_are_the_users_again(test_library):
    text = ("from torch.utils.data import DataLoader\n"
            "class Data:\n"
            "    def __len__(self):\n"
            "        return 2\n"
            "    def __getitem__(self, i):\n"
            "        w = torch.ones(1, requires_grad=True)\n"
            "        return w * i\n"
            "batch = next(iter(DataLoader(Data(), batch_size=2)))\n")
    result = run(text, trace=True)
    assert result.error is None
    ops = [ev for ev in result.trace.events if ev.kind == "op"]
    muls = [ev for ev in ops if ev.facts["name"] == "MulBackward0"]
    assert len(muls) == 2 and all(ev.line == 8 and not ev.facts.get("library") for ev in muls)
    stacks = [ev for ev in ops if ev.facts["name"] == "StackBackward0"]
    assert len(stacks) == 1 and stacks[0].facts.get("library") and stacks[0].line == 9


# ------------------------------------------------------------------ the views


def test_tensors_held_by_instances_are_named_by_their_path():
    text = ("class Layer:\n    def __init__(self):\n        self.w = torch.ones(2)\n"
            "        self._hidden = torch.zeros(1)\n"
            "class Net:\n    def __init__(self):\n        self.fc = Layer()\n"
            "        self.b = torch.zeros(2)\nmodel = Net()\nx = model.b\n")
    result = run(text, trace=True)
    assert [name for name, _ in result.trace.named_tensors()] == ["model.fc.w", "model.b", "x"]


def test_every_view_names_an_instance_tensor_by_its_path_from_the_binding_line_on():
    from gradtrace.naming import Naming
    from gradtrace.render.explain import explain, render_text

    text = ("class Net:\n    def __init__(self):\n"
            "        self.w = torch.ones(2, requires_grad=True)\n"
            "model = Net()\ny = (model.w * 2).sum()\nmodel.later = torch.zeros(1)\n")
    result = run(text, trace=True)
    record = next(r for name, r in result.trace.named_tensors() if name == "model.w")
    bindings = Naming.at_end(result.trace).bindings(record.id)
    assert [(b.name, b.line, b.local, b.open) for b in bindings] == [
        ("self.w", 4, True, False), ("model.w", 5, False, True)]
    assert Naming.at_end(result.trace).label(record.id) == "model.w"
    story = render_text(explain(result), 200)
    assert "self.w requires grad" not in story and "model.w requires grad" in story


def test_an_attribute_path_held_only_at_the_end_is_still_the_tensors_name():
    from gradtrace.naming import Naming

    text = ("class Net:\n    def __init__(self):\n        self.w = torch.ones(2)\n"
            "    def grow(self):\n        self.w = self.w * 2\n"
            "model = Net()\nmodel.grow()\n")
    result = run(text, trace=True)
    naming = Naming.at_end(result.trace)
    record = next(r for name, r in result.trace.named_tensors() if name == "model.w")
    assert naming.label(record.id) == "model.w"
    assert [(b.name, b.open) for b in naming.bindings(record.id)] == [
        ("self.w", False), ("model.w", True)]


def test_global_and_nonlocal_stores_are_bound_in_the_frame_that_holds_the_name():
    text = ("def f():\n    global g\n    g = torch.ones(1)\n"
            "def outer():\n    n = None\n    def inner():\n        nonlocal n\n"
            "        n = torch.zeros(1)\n    inner()\n    return n\nf()\nm = outer()\n")
    result = run(text, trace=True)
    binds = [(e.facts["name"], e.line, e.facts["local"])
             for e in result.trace.events if e.kind == "bind"]
    assert binds == [("g", 4, False), ("n", 9, True), ("m", 13, False)]


def test_nn_parameter_is_a_tensor_class_of_its_own():
    assert out("import torch.nn as nn\np = nn.Parameter(torch.ones(2))\n"
               "print(type(p), isinstance(p, torch.Tensor), isinstance(p * 2, nn.Parameter))\n"
               "print(issubclass(nn.Parameter, torch.Tensor), type(p * 2), nn.Parameter)\n"
               "print(isinstance(p, torch.nn.parameter.Parameter), isinstance(p, nn.Parameter))\n"
               ) == ("<class 'torch.nn.parameter.Parameter'> True False\n"
                     "True <class 'torch.Tensor'> <class 'torch.nn.parameter.Parameter'>\n"
                     "True True\n")


def test_names_bound_to_instances_and_classes_do_not_break_any_view():
    from gradtrace.render.json import document, validate

    text = ("class A:\n    def __init__(self):\n"
            "        self.t = torch.ones(2, requires_grad=True)\n"
            "a = A()\nb = A\nc = a.t * 2\nc.sum().backward()\ng = (i for i in range(2))\n")
    result = run(text, trace=True)
    assert result.error is None
    validate(document(result))


# ------------------------------------------------------------------ standard-library modules


def test_id_numbers_objects_in_the_order_asked_never_by_address():
    text = "a = [1]\nb = a\nprint(id(a), id(b), id([2]), id(a) == id(b))\n"
    assert out(text) == "1 1 2 True\n"


def test_id_keeps_its_object_so_a_number_is_never_reused():
    assert out("x = id([1])\ny = id([2])\nprint(x != y)\n") == "True\n"


@pytest.mark.parametrize("text", [
    "import itertools\nlist(itertools.count())\n",
    "from itertools import repeat\nsorted(repeat(1))\n",
])
def test_infinite_itertools_walked_by_a_builtin_stop_at_the_sequence_limit(text):
    err = error(text, limits=Limits(max_sequence=1000))
    assert isinstance(err, LimitExceeded)


def test_islice_skipping_an_unbounded_prefix_counts_every_skipped_item_as_a_step():
    err = error("from itertools import count, islice\nnext(islice(count(), 10**15, None))\n",
                limits=Limits(max_steps=10_000))
    assert isinstance(err, LimitExceeded)


def test_product_builds_its_pools_within_the_sequence_limit():
    err = error("from itertools import product\nnext(product(range(10**9)))\n",
                limits=Limits(max_sequence=1000))
    assert isinstance(err, LimitExceeded)


@pytest.mark.parametrize("text, message", [
    ("x = 1\nfrom __future__ import annotations\n",
     "from __future__ imports must occur at the beginning of the file"),
    ("from __future__ import braces\n", "not a chance"),
    ("from __future__ import nope\n", "future feature nope is not defined"),
    ("def f():\n    from __future__ import division\n",
     "from __future__ imports must occur at the beginning of the file"),
])
def test_future_imports_are_checked_where_python_checks_them(text, message):
    result = run_text(text)
    assert isinstance(result.error, GtSyntaxError)
    assert result.error.message == message


def test_future_imports_may_follow_the_docstring():
    assert run_text('"""doc"""\nfrom __future__ import annotations\nprint(1)\n').stdout == "1\n"


def test_pprint_writes_only_to_the_scripts_output():
    err = error("from pprint import pprint\npprint({}, stream=1)\n")
    assert isinstance(err, NotSupportedError)


def test_id_numbers_at_most_a_tenth_of_the_sequence_limit_of_objects():
    err = error("while True:\n    id([])\n", limits=Limits(max_sequence=1000))
    assert isinstance(err, LimitExceeded)
    assert "id() has numbered 100 live objects" in err.message


# ------------------------------------------------------------------ dict.fromkeys


def test_dict_fromkeys_builds_the_type_it_is_called_on_as_python_does():
    text = ("import collections\n"
            "print(dict.fromkeys('abc'), dict.fromkeys([1, 2], 0))\n"
            "print({}.fromkeys((x for x in 'ab'), [1]))\n"
            "print(collections.OrderedDict.fromkeys('ab'))\n")
    assert out(text) == ("{'a': None, 'b': None, 'c': None} {1: 0, 2: 0}\n"
                         "{'a': [1], 'b': [1]}\nOrderedDict([('a', None), ('b', None)])\n")


def test_dict_fromkeys_counts_its_keys_against_max_sequence():
    err = error("d = dict.fromkeys(range(10 ** 9))")
    assert isinstance(err, LimitExceeded)
    assert "a fromkeys() argument of 1000000000 items exceeds the limit" in str(err)


# ------------------------------------------------------------------ Python's module functions

PYTHON_FUNCTIONS = """import itertools, pprint
print(itertools.count, itertools.chain, itertools.islice, itertools.product, itertools.repeat)
print(pprint.pprint, pprint.pformat, pprint.pp)
for call in (lambda: itertools.count(1, 2, 3), lambda: itertools.repeat(),
             lambda: pprint.pformat(), lambda: itertools.product(foo=1), lambda: pprint.pp()):
    try:
        call()
    except TypeError as e:
        print(e)
"""


def test_itertools_and_pprint_functions_show_and_report_as_python_s_own():
    import contextlib
    import io
    import re

    python = io.StringIO()
    with contextlib.redirect_stdout(python):
        exec(PYTHON_FUNCTIONS, {})  # noqa: S102 (the test's own literal script)
    address = re.compile("0x[0-9a-f]+")
    assert address.sub("ADDR", out(PYTHON_FUNCTIONS)) == address.sub("ADDR", python.getvalue())


# ------------------------------------------------------------------ raise forms


def test_raise_from_raises_the_new_exception_and_checks_its_cause():
    text = ("def f(k):\n"
            "    try:\n"
            "        return {'a': 1}[k]\n"
            "    except KeyError as e:\n"
            "        raise ValueError('bad ' + k) from e\n"
            "try:\n    f('b')\nexcept ValueError as e:\n    print('caught', e)\n"
            "try:\n    raise KeyError('x') from None\nexcept KeyError as e:\n    print(repr(e))\n"
            "try:\n    raise ValueError('v') from 3\nexcept TypeError as e:\n    print(e)\n")
    assert out(text) == ("caught bad b\nKeyError('x')\n"
                         "exception causes must derive from BaseException\n")


def test_bare_raise_reraises_the_exception_being_handled():
    text = ("def g():\n"
            "    try:\n        1 / 0\n"
            "    except ZeroDivisionError:\n        print('logging')\n        raise\n"
            "try:\n    g()\nexcept ZeroDivisionError as e:\n    print('again', e)\n"
            "try:\n"
            "    try:\n        raise ValueError('inner')\n"
            "    except ValueError:\n"
            "        try:\n            raise TypeError('t')\n"
            "        except TypeError:\n            pass\n"
            "        raise\n"
            "except ValueError as e:\n    print('outer', e)\n")
    assert out(text) == "logging\nagain division by zero\nouter inner\n"


def test_bare_raise_outside_a_handler_is_python_s_runtime_error():
    err = error("raise\n")
    assert err.kind == "RuntimeError" and err.message == "No active exception to reraise"


def test_exception_repr_matches_python_for_empty_and_key_errors():
    assert out("print(repr(ValueError()), repr(KeyError('k')), repr(KeyError(3)))\n") == \
        "ValueError() KeyError('k') KeyError(3)\n"


# ------------------------------------------------------------------ Counter, defaultdict


def test_counter_counts_and_prints_most_common_first():
    text = ("from collections import Counter\n"
            "c = Counter('the cat sat on the mat the end'.split())\n"
            "print(c)\nprint(c.most_common(2), c['the'], c['zzz'], len(c))\n"
            "c.update(['cat', 'dog'])\nprint(c, c.total(), type(c))\n"
            "print(Counter(), Counter(x for x in 'aab'))\n")
    assert out(text) == (
        "Counter({'the': 3, 'cat': 1, 'sat': 1, 'on': 1, 'mat': 1, 'end': 1})\n"
        "[('the', 3), ('cat', 1)] 3 0 6\n"
        "Counter({'the': 3, 'cat': 2, 'sat': 1, 'on': 1, 'mat': 1, 'end': 1, 'dog': 1}) 10 "
        "<class 'collections.Counter'>\n"
        "Counter() Counter({'a': 2, 'b': 1})\n")


def test_defaultdict_fills_missing_keys_from_its_factory():
    text = ("from collections import defaultdict\n"
            "d = defaultdict(list)\n"
            "for i, w in enumerate('a b a'.split()):\n    d[w].append(i)\n"
            "n = defaultdict(int)\nn['x'] += 2\n"
            "z = defaultdict(lambda: -1)\nz['q']\n"
            "print(d, n, dict(z), isinstance(d, dict), type(n))\n"
            "e = defaultdict(None)\ne['k']\n")
    result = run(text)
    assert result.stdout == ("defaultdict(<class 'list'>, {'a': [0, 2], 'b': [1]}) "
                             "defaultdict(<class 'int'>, {'x': 2}) {'q': -1} True "
                             "<class 'collections.defaultdict'>\n")
    assert result.error.kind == "KeyError" and result.error.message == "'k'"


def test_defaultdict_factory_must_be_callable():
    err = error("import collections\ncollections.defaultdict(3)\n")
    assert err.kind == "TypeError" and err.message == "first argument must be callable or None"


# ------------------------------------------------------------------ functools


def test_partial_binds_arguments_for_hooks_and_calls_through_the_interpreter():
    text = ("import torch.nn as nn\nfrom functools import partial\n"
            "seen = []\n"
            "def save(name, mod, inp, out):\n    seen.append((name, tuple(out.shape)))\n"
            "net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))\n"
            "for name, m in net.named_modules():\n"
            "    if isinstance(m, nn.Linear):\n"
            "        m.register_forward_hook(partial(save, name))\n"
            "net(torch.ones(2, 3))\nprint(seen)\n"
            "def f(a, b, c=3):\n    return a + b + c\n"
            "g = partial(f, 1, c=10)\nprint(g(2), g.func is f, g.args, g.keywords, type(g))\n")
    assert out(text) == ("[('0', (2, 4)), ('2', (2, 2))]\n"
                         "13 True (1,) {'c': 10} <class 'functools.partial'>\n")


def test_reduce_folds_with_the_script_function_and_python_s_empty_error():
    text = ("import functools\n"
            "print(functools.reduce(lambda a, b: a * b, range(1, 5)),"
            " functools.reduce(lambda a, b: a + b, [], 10))\n"
            "functools.reduce(lambda a, b: a + b, [])\n")
    result = run(text)
    assert result.stdout == "24 10\n"
    assert result.error.kind == "TypeError"
    assert result.error.message == "reduce() of empty iterable with no initial value"


# ------------------------------------------------------------------ namedtuple, deque


def test_namedtuple_makes_a_tuple_class_with_fields_as_python_s():
    text = ("from collections import namedtuple\n"
            "P = namedtuple('Point', 'x y')\n"
            "p = P(1, y=2)\n"
            "print(p, p.x, p[1], len(p), p._asdict(), p._replace(x=5), P._fields)\n"
            "print(type(p), isinstance(p, tuple), P)\n"
            "T = namedtuple('T', ('s', 'a'))\nprint(T(*zip(*[(1, 2), (3, 4)])))\n"
            "P(1)\n")
    result = run(text)
    assert result.stdout == (
        "Point(x=1, y=2) 1 2 2 {'x': 1, 'y': 2} Point(x=5, y=2) ('x', 'y')\n"
        "<class '__main__.Point'> True <class '__main__.Point'>\n"
        "T(s=(1, 3), a=(2, 4))\n")
    assert result.error.kind == "TypeError"
    assert result.error.message == "Point.__new__() missing 1 required positional argument: 'y'"


def test_deque_is_bounded_by_maxlen_and_samples_like_a_sequence():
    text = ("import random\nfrom collections import deque\nrandom.seed(0)\n"
            "d = deque(maxlen=3)\n"
            "for i in range(5):\n    d.append(i)\n"
            "print(d, len(d), d[0], d[-1], list(d), d.maxlen, 3 in d)\n"
            "d.appendleft(9)\nprint(d, d.popleft(), d.pop(), d)\n"
            "e = deque([1, 2, 3])\ne[0] = 7\ne.rotate(1)\n"
            "print(e, random.sample(e, 2), sum(e), type(e))\n")
    assert out(text) == ("deque([2, 3, 4], maxlen=3) 3 2 4 [2, 3, 4] 3 True\n"
                         "deque([2], maxlen=3) 9 3 deque([2], maxlen=3)\n"
                         "deque([3, 7, 2]) [7, 2] 12 <class 'collections.deque'>\n")


def test_shift_and_bitwise_augmented_operators_work_on_ints_and_tensors_in_place():
    assert out("x = 5\nx <<= 3\nx &= 12\nx ^= 1\nx |= 16\nx >>= 1\n"
               "print(x, 1 << 20, -7 >> 1)\n"
               "t = torch.tensor([1, 2, 4])\nv = t._version\nt <<= 2\n"
               "m = torch.tensor([True, False])\nm |= torch.tensor([False, True])\n"
               "print(t, t._version - v, t >> 1, 1 << t, m, m._version)\n") == \
        "12 1048576 -4\ntensor([ 4,  8, 16]) 1 tensor([2, 4, 8]) tensor([   16,   256, 65536]) " \
        "tensor([True, True]) 1\n"


def test_a_shift_past_the_integer_size_limit_is_refused_before_python_builds_it():
    err = error("y = 1 << 10**9\n")
    assert isinstance(err, LimitExceeded) and "1 << 1000000000" in err.message
