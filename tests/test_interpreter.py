"""The language: statements, expressions, scopes, builtins and errors, run in-process."""
from __future__ import annotations

import gc

import pytest

from gradtrace.errors import LimitExceeded, NotSupportedError, ScriptError
from gradtrace.interpreter import Limits
from gradtrace.runner import run_text


def out(text: str) -> str:
    result = run_text("import torch\n" + text)
    assert result.error is None, result.error.format(result.source)
    return result.stdout


def error(text: str, **kwargs):
    result = run_text("import torch\n" + text, **kwargs)
    assert result.error is not None, "expected an error"
    return result.error


def test_functions_with_defaults_and_keywords():
    assert out("def f(x, y=2):\n    return x * y\nprint(f(3), f(3, y=4))\n") == "6 12\n"


def test_lambda_with_default():
    assert out("g = lambda a, b=1: a + b\nprint(g(1), g(1, b=5))\n") == "2 6\n"


def test_closures_see_enclosing_scope():
    script = "def outer(k):\n    def inner(x):\n        return x + k\n    return inner\n" \
             "print(outer(10)(5))\n"
    assert out(script) == "15\n"


def test_list_comprehension_with_condition():
    assert out("print([i * i for i in range(6) if i % 2 == 0])\n") == "[0, 4, 16]\n"


def test_unpacking_nested_targets():
    assert out("a, (b, c) = 1, (2, 3)\nprint(a, b, c)\n") == "1 2 3\n"


def test_unpacking_wrong_count_is_value_error_like_python():
    err = error("a, b = [1, 2, 3]\n")
    assert (err.kind, err.message) == ("ValueError", "too many values to unpack (expected 2)")
    err = error("a, b, c = [1, 2]\n")
    assert err.message == "not enough values to unpack (expected 3, got 2)"


def test_while_else_break_continue():
    script = "k = 0\nwhile k < 5:\n    k += 1\n    if k == 2:\n        continue\n" \
             "    if k == 4:\n        break\nelse:\n    print('no')\nprint(k)\n"
    assert out(script) == "4\n"


def test_try_except_else_finally_order():
    script = ("try:\n    x = 1\nexcept ValueError:\n    print('no')\nelse:\n    print('else')\n"
              "finally:\n    print('finally')\n")
    assert out(script) == "else\nfinally\n"


def test_except_catches_torch_errors_by_python_type():
    script = ("x = torch.tensor([1.0], requires_grad=True)\ntry:\n    x += 1\n"
              "except RuntimeError as err:\n    print(err)\n")
    assert out(script) == "a leaf Variable that requires grad is being used in an in-place " \
                          "operation.\n"


def test_except_follows_python_hierarchy():
    assert out("try:\n    [][1]\nexcept LookupError as e:\n    print(repr(e))\n") == \
        "IndexError('list index out of range')\n"
    assert out("try:\n    1 / 0\nexcept Exception as e:\n    print(e)\n") == \
        "division by zero\n"


def test_uncaught_error_has_kind_message_and_span():
    result = run_text("import torch\nx = 1\ny = x + 'a'\n")
    err = result.error
    assert (err.kind, err.span.line, err.span.column) == ("TypeError", 3, 5)
    assert err.message == "unsupported operand type(s) for +: 'int' and 'str'"
    assert result.exit_code == 1


def test_error_format_shows_location_line_and_caret():
    result = run_text("import torch\nprint(undefined_name)\n", name="s.gt")
    assert result.error.format(result.source) == (
        "s.gt:2:7: NameError: name 'undefined_name' is not defined\n"
        "    print(undefined_name)\n"
        "          ^^^^^^^^^^^^^^")


def test_raise_and_assert():
    assert error("raise RuntimeError('boom')\n").message == "boom"
    err = error("assert 1 == 2, 'nope'\n")
    assert (err.kind, err.message) == ("AssertionError", "nope")


def test_fstrings_format_numbers_and_tensors():
    script = "t = torch.tensor(2.5)\nprint(f'{t:.2f} {t} {3.14159:.3f} {\"x\"!r}')\n"
    assert out(script) == "2.50 2.5 3.142 'x'\n"


def test_print_separators_and_python_reprs():
    assert out("print(1, 2.0, None, True, 'a', [1, 'b'], (1,), sep='|', end='!\\n')\n") == \
        "1|2.0|None|True|a|[1, 'b']|(1,)!\n"


def test_iterating_a_tensor_unbinds_it():
    script = "a = torch.tensor([1.0, 2.0], requires_grad=True)\nfor t in a:\n" \
             "    print(t.grad_fn.name(), t.output_nr)\n"
    assert out(script) == "UnbindBackward0 0\nUnbindBackward0 1\n"


def test_augmented_assignment_on_tensor_is_in_place():
    script = "x = torch.ones(2)\ny = x\nx += 1\nprint(y, x._version, y is x)\n"
    assert out(script) == "tensor([2., 2.]) 1 True\n"


def test_augmented_assignment_through_data_writes_storage():
    script = "x = torch.ones(1, requires_grad=True)\nx.data *= 3\nprint(x, x._version)\n"
    assert out(script) == "tensor([3.], requires_grad=True) 0\n"


def test_attribute_assignment_grad_and_requires_grad():
    script = ("x = torch.ones(2)\nx.requires_grad = True\n(x * 2).sum().backward()\n"
              "print(x.grad)\nx.grad = None\nprint(x.grad)\n")
    assert out(script) == "tensor([2., 2.])\nNone\n"


def test_nonleaf_grad_read_warns_once_per_line_on_stderr():
    import io

    stderr = io.StringIO()
    script = "import torch\na = torch.tensor(2.0, requires_grad=True)\nb = a * a\n" \
             "for i in range(3):\n    print(b.grad)\n"
    result = run_text(script, name="w.gt", stderr=stderr)
    assert result.stdout == "None\nNone\nNone\n"
    assert stderr.getvalue().count("UserWarning: The .grad attribute of a Tensor that is "
                                   "not a leaf Tensor is being accessed.") == 1
    assert stderr.getvalue().startswith("w.gt:5: UserWarning")


def test_with_no_grad_and_set_grad_enabled():
    script = ("x = torch.ones(1, requires_grad=True)\nwith torch.no_grad():\n"
              "    y = x * 2\ntorch.set_grad_enabled(False)\nz = x * 2\n"
              "torch.set_grad_enabled(True)\nprint(y.requires_grad, z.requires_grad, "
              "torch.is_grad_enabled())\n")
    assert out(script) == "False False True\n"


def test_dunder_attributes_are_refused():
    # `x.__class__` is `type(x)` (no more than the builtin gives); past it, no internals
    assert out("x = torch.ones(1)\nprint(x.__class__ is type(x))\n") == "True\n"
    err = error("x = torch.ones(1)\nx.__class__.__subclasses__\n")
    assert err is not None and "'__subclasses__'" in err.message
    err = error("f = lambda: 1\nf.__globals__\n")
    assert isinstance(err, NotSupportedError)


def test_unknown_tensor_attribute_is_torch_attribute_error():
    err = error("x = torch.ones(1)\nx.foo\n")
    assert (err.kind, err.message) == ("AttributeError", "'Tensor' object has no attribute 'foo'")


def test_only_torch_imports_are_allowed():
    err = error("import sqlite3\n")
    assert isinstance(err, NotSupportedError) and "import of 'sqlite3'" in err.message
    err = error("import subprocess\nsubprocess.run(['ls'])\n")  # bound for the import only
    assert isinstance(err, NotSupportedError) and \
        "'subprocess.run' is not supported" in err.message
    err = error("from sympy import Symbol\n")  # (torch's requirement: there under torch)
    assert isinstance(err, NotSupportedError) and "import of 'sympy'" in err.message


def test_a_module_torchs_environment_lacks_is_python_s_error_with_what_gradtrace_offers():
    from gradtrace.source import Source

    text = "import math\nimport neptune.sdk as w\n"
    err = error(text)  # (after error()'s own first line, `import torch`)
    assert (err.kind, err.message, err.span.line) == \
        ("ModuleNotFoundError", "No module named 'neptune'", 3)
    printed = err.format(Source("s.gt", "import torch\n" + text))
    assert printed.startswith("s.gt:3:8: ModuleNotFoundError: No module named 'neptune'\n")
    assert printed.splitlines()[-1].startswith("(gradtrace scripts may import torch")
    assert out("try:\n    from apex import amp\nexcept ImportError as e:\n    print(e)\n") \
        == "No module named 'apex'\n"


def test_a_plotting_or_dataset_package_s_missing_module_says_what_to_do_instead():
    from gradtrace.source import Source

    for module, words in (("matplotlib.pyplot as plt", "does not draw plots"),
                          ("torchvision", "build the tensors in the script"),
                          ("scipy.optimize", "torch.linalg")):
        err = error(f"import {module}\n")
        assert (err.kind, err.message) == (
            "ModuleNotFoundError", f"No module named '{module.split('.')[0].split()[0]}'")
        last = err.format(Source("s.gt", f"import torch\nimport {module}\n")).splitlines()[-1]
        assert words in last and "may import" not in last and len(last) < 300
    assert out("try:\n    import matplotlib.pyplot as plt\nexcept ImportError:\n"
               "    plt = None\nprint(plt)\n") == "None\n"


def test_os_offers_paths_and_the_runs_own_files_and_refuses_the_rest_where_used():
    assert out("import os\nprint(os.path.join('a', 'b.pt'), os.path.exists('b.pt'))\n"
               "torch.save(1, 'b.pt')\nprint(os.path.exists('./b.pt'), os.listdir('.'))\n") \
        == "a/b.pt False\nTrue ['b.pt']\n"
    err = error("import os\nrun = os.system\n")
    assert isinstance(err, NotSupportedError)
    assert err.message == "'os.system' is not supported by gradtrace" and err.span.line == 3
    err = error("from os import getcwd\n")
    assert isinstance(err, NotSupportedError) and "'os.getcwd' is not supported" in err.message


def test_numpy_array_of_a_tensor_shares_memory_but_not_its_internals():
    assert out("x = torch.zeros(2)\na = x.numpy()\na[0] = 5\nx.add_(1)\nprint(a, x)\n") == \
        "[6. 1.] tensor([6., 1.])\n"
    for attribute in ("ctypes", "base", "data", "__array_interface__", "flat"):
        err = error(f"x = torch.ones(1)\nx.numpy().{attribute}\n")
        assert isinstance(err, NotSupportedError), attribute


def test_numpy_arrays_count_against_the_memory_limit():
    err = error("import numpy as np\na = np.ones(10**6)\nb = [a + i for i in range(20)]\n",
                limits=Limits(max_memory=64 << 20))
    assert isinstance(err, LimitExceeded) and "--max-memory" in err.message
    err = error("import numpy as np\nnp.zeros((10**6, 10**6))\n")
    assert isinstance(err, LimitExceeded)


def test_a_finished_run_leaves_none_of_its_tensors_alive():
    """`break`/`continue` raise shared instances: their last traceback held the run's frames
    (and so its tensors) until the process ended."""
    from gradtrace.engine.limits import LIMITS

    loops = ("x = torch.zeros(10**5)\nfor i in range(3):\n    if i == 1:\n        continue\n"
             "    if i == 2:\n        break\n"
             "def gen():\n    for j in range(3):\n        if j:\n            break\n"
             "        yield j\nprint(list(gen()))\n")
    assert out(loops) == "[0]\n"
    gc.collect()
    assert LIMITS.live_bytes == 0


def test_live_memory_counts_the_runs_own_tensors_only():
    """A notebook keeps earlier runs' results: they do not count toward a new run's limit."""
    kept = run_text("import torch\nx = torch.zeros(10**6)\n")  # alive in `kept`
    assert kept.error is None and kept.variables["x"].numel() == 10**6
    small = Limits(max_memory=10 << 20)  # room for one such tensor, not two
    again = run_text("import torch\nx = torch.zeros(10**6)\n", limits=small)
    assert again.error is None
    err = error("x = torch.zeros(10**6)\ny = torch.zeros(10**6)\n", limits=small)
    assert isinstance(err, LimitExceeded) and "--max-memory" in err.message


def test_numpy_refuses_script_objects_and_callbacks():
    err = error("import numpy as np\nclass C:\n    pass\nnp.array([C()])\n")
    assert isinstance(err, NotSupportedError) and "'C'" in err.message
    err = error("import numpy as np\nnp.vectorize(print)\n")
    assert isinstance(err, NotSupportedError)


def test_huge_integer_power_is_refused_instantly():
    err = error("x = 2 ** 10 ** 10\n")
    assert isinstance(err, LimitExceeded)


def test_endless_loop_hits_step_limit():
    err = error("while True:\n    pass\n", limits=Limits(max_steps=10_000))
    assert isinstance(err, LimitExceeded) and "--max-steps" in err.message


def test_unbounded_recursion_is_recursion_error():
    err = error("def f(n):\n    return f(n + 1)\nf(0)\n")
    assert err.kind == "RecursionError"
    assert isinstance(err, ScriptError)


def test_calling_with_wrong_arguments_reports_like_python():
    assert error("def f(x):\n    return x\nf()\n").message == \
        "f() missing 1 required positional argument: 'x'"
    assert error("def f(x):\n    return x\nf(1, 2)\n").message == \
        "f() takes 1 positional argument but 2 were given"


def test_name_error_for_torch_without_import():
    result = run_text("x = torch.ones(1)\n")
    assert (result.error.kind, result.error.message) == ("NameError",
                                                          "name 'torch' is not defined")


def test_functional_namespace_imports():
    assert out("import torch.nn.functional as F\nprint(F.relu(torch.tensor([-1.0, 2.0])))\n") \
        == "tensor([0., 2.])\n"
    assert out("from torch.nn import functional as G\nprint(G.relu(torch.tensor(-1.0)))\n") \
        == "tensor(0.)\n"


def test_hooks_can_print_during_backward():
    script = ("x = torch.tensor(2.0, requires_grad=True)\ny = x * 3\n"
              "y.register_hook(lambda g: print('grad of y', g))\ny.backward()\n")
    assert out(script) == "grad of y tensor(1.)\n"


def test_empty_script_runs_and_prints_nothing():
    result = run_text("")
    assert result.error is None and result.stdout == ""


@pytest.mark.parametrize("expr, expected", [
    ("-2 ** 2", "-4"), ("2 ** -1", "0.5"), ("not 1 == 2", "True"), ("(7 // 2, 7 % 3)", "(3, 1)"),
    ("1 < 2 < 3", "True"), ("3 if 0 else 4", "4"), ("[1, 2][-1]", "2"), ("'ab' * 2", "abab"),
])
def test_python_operators(expr: str, expected: str):
    assert out(f"print({expr})\n") == expected + "\n"


def test_str_format_cannot_reach_attributes():
    err = error("'{0.__class__.__subclasses__}'.format(1)\n")
    assert isinstance(err, NotSupportedError)
    assert out("print('{} and {x}'.format(1, x=2))\n") == "1 and 2\n"


def test_builtins_refuse_huge_ranges_before_walking_them():
    assert isinstance(error("sum(range(10 ** 12))\n"), LimitExceeded)
    assert isinstance(error("list(range(10 ** 9))\n"), LimitExceeded)


def test_torch_functions_take_input_other_and_numpys_keyword_names():
    # python_arg_parser.cpp's numpy_compatibility_arg_names, as torch 2.13 prints them
    assert out("x = torch.ones(2, 3)\n"
               "print(torch.sum(input=x, axis=1, keepdims=True).tolist())\n"
               "print(torch.matmul(input=x, other=x.t()).tolist())\n"
               "print(x.mean(axis=0).tolist(), torch.add(x1=x, x2=x).shape)\n"
               "print(torch.add(x, other=x).sum().item(), torch.sum(a=x).item())\n") == (
        "[[3.0], [3.0]]\n[[3.0, 3.0], [3.0, 3.0]]\n[1.0, 1.0, 1.0] torch.Size([2, 3])\n"
        "12.0 6.0\n")
    err = error("torch.sum(torch.ones(2), dim=0, axis=0)\n")
    assert (err.kind, err.message) == ("TypeError",
                                       "sum() got an unexpected keyword argument 'axis'")
    assert error("torch.ones(2, 2).matmul(input=torch.ones(2, 2))\n").kind == "TypeError"


def test_default_device_is_the_cpu_and_another_is_refused():
    assert out("torch.set_default_device('cpu')\nprint(torch.get_default_device())\n"
               "torch.set_default_device(None)\n") == "cpu\n"
    err = error("torch.set_default_device('cuda')\n")
    assert isinstance(err, NotSupportedError) and "CPU build" in err.message


def test_dtype_and_device_are_named_as_torch_names_their_types():
    # torch: "unsupported operand type(s) for +: 'torch.dtype' and 'int'", and
    # "ones(): argument 'dtype' must be torch.dtype, not torch.device"
    assert str(error("torch.float32 + 1\n").message) == \
        "unsupported operand type(s) for +: 'torch.dtype' and 'int'"
    assert error("torch.ones(2, dtype=torch.device('cpu'))\n").message == \
        "ones(): argument 'dtype' must be torch.dtype, not torch.device"


def test_module_to_refuses_what_tensor_to_refuses_with_its_message():
    # torch's Module.to parses its arguments as Tensor.to does (torch._C._nn._parse_to)
    err = error("def f(x):\n    return x\ntorch.nn.Linear(2, 2).to(f)\n")
    assert err.message.startswith("to() received an invalid combination of arguments - got "
                                  "(function), but expected one of:\n")
    assert out("m = torch.nn.Linear(2, 2)\nprint(m.to(0.5) is m, "
               "m.to('cpu', torch.float64).weight.dtype)\n") == "True torch.float64\n"


def test_torch_functional_holds_torchs_python_functions():
    assert out("import torch.functional as F\n"
               "print(F.einsum('i,i->', torch.ones(3), torch.ones(3)).item())\n") == "3.0\n"
