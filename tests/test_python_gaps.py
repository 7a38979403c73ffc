"""Python features real ML scripts use that the language lacked (enum.Flag/IntFlag,
typing's runtime helpers, collections.abc's Set mixins, exception chaining), each
snippet run by the CPython running the tests and by gradtrace: the output must match."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gradtrace.runner import run_text

SNIPPETS = Path(__file__).parent / "python_gaps"


def snippet(name: str) -> str:
    """A longer snippet, kept as a script in tests/python_gaps/."""
    return (SNIPPETS / f"{name}.gt").read_text()


def python_out(text: str, timeout: float = 60) -> str:
    done = subprocess.run([sys.executable, "-c", text], capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout


def same_as_python(text: str, timeout: float = 60) -> str:
    """What `text` prints under gradtrace, which must be what the Python running the tests
    prints (timeout: for that Python's run, longer when the snippet imports torch)."""
    text = textwrap.dedent(text)
    result = run_text(text)
    assert result.error is None, result.error.format(result.source)
    expected = python_out(text, timeout)
    assert result.stdout == expected
    return expected


def gt_error(text: str):
    result = run_text(textwrap.dedent(text))
    assert result.error is not None, "expected an error"
    return result.error


# ------------------------------------------------------------------ enum.Flag, IntFlag

def test_flag_members_combine_print_and_iterate_as_in_python():
    same_as_python(snippet("flag_basics"))


def test_flag_zero_aliases_intflag_and_boundaries_match_python():
    same_as_python(snippet("flag_mixed"))


def test_flag_bits_only_an_alias_covers_iterate_as_none_like_python():
    same_as_python(snippet("flag_alias_bits"))


def test_flag_out_of_order_definitions_iterate_in_definition_order():
    same_as_python("""\
from enum import Flag, IntFlag
class P(IntFlag):
    R = 4
    W = 2
    X = 1
print(list(P(7)), P(6), repr(P(3)), [m.name for m in P.R | P.X])
""")


def test_flag_value_outside_the_members_bits_is_pythons_value_error():
    err = gt_error("""\
        from enum import Flag
        class C(Flag):
            A = 1
            C = 8
        C(15)
        """)
    assert err.kind == "ValueError"
    assert err.message == ("<flag 'C'> invalid value 15\n    given 0b0 1111\n"
                           "  allowed 0b0 1001")


def test_flag_unique_reports_aliases_with_the_flag_repr():
    err = gt_error("""\
        import enum
        @enum.unique
        class V(enum.Flag):
            A = 1
            B = 1
        """)
    assert err.kind == "ValueError"
    assert err.message == "duplicate values found in <flag 'V'>: B -> A"


def test_torch_jit_isinstance_refines_containers_as_torch_does():
    # torchaudio's _get_spec_norms: `torch.jit.isinstance(normalized, str)`
    same_as_python("""\
        import torch
        from typing import Dict, List, Optional, Tuple, Union, get_origin
        print(get_origin(Optional[int]) is Union, get_origin(Union[int, str]) is Union)
        types = (str, bool, int, List[int], Dict[str, List[torch.Tensor]], Tuple[int, str, int],
                 Optional[Tuple[int, str, int]], (str, bool), Union[int, List[int]])
        for obj in ["frame_length", True, 3, [1, 2], [1, "a"], {"a": [torch.ones(1)]},
                    (1, "x", 2), None, []]:
            print([torch.jit.isinstance(obj, t) for t in types])
        for bad in (List, dict, [int]):
            try:
                torch.jit.isinstance([1], bad)
            except RuntimeError as e:
                print(e)
        """, timeout=120)


def test_classes_are_enum_members_unless_descriptors_as_in_python():
    # deepspeech.pytorch's `class RNNType(Enum): lstm = nn.LSTM`, then `rnn_type.value`
    same_as_python("""\
        from enum import Enum
        import torch.nn as nn
        class RNNType(Enum):
            lstm = nn.LSTM
            gru = nn.GRU
        print(list(RNNType), RNNType.gru.value, RNNType(nn.GRU), RNNType.lstm.value(2, 3))
        class Plain:
            pass
        class Desc:
            def __get__(self, obj, objtype=None):
                return 42
        class Setter:
            def __set__(self, obj, value):
                pass
        class K(Enum):
            a = Plain
            b = int
            d = Desc
            s = Setter
        print(list(K), K.a.value, K.b.value, K.d, K.s)
        """, timeout=120)


# ------------------------------------------------------------------ typing at run time


def test_typing_protocols_generic_cast_overload_and_final_match_python():
    same_as_python(snippet("typing_runtime"))


def test_generic_class_subscription_matches_pythons_aliases_and_errors():
    same_as_python(snippet("typing_generic_alias"))


def test_typing_get_origin_args_typevars_resubscripting_and_alias_bases_match_python():
    same_as_python(snippet("typing_generics"))


def test_int_and_float_subclasses_and_int_enums_in_torch_calls_read_as_numbers():
    pytest.importorskip("torch")
    same_as_python(snippet("number_subclass_tensors"))


def test_runtime_checkable_protocols_check_tensors_and_modules_as_python():
    pytest.importorskip("torch")
    same_as_python(snippet("typing_protocols_torch"))


def test_type_checking_block_imports_its_modules_only_when_it_runs():
    result = run_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                      "    import not_a_module\nprint('ran')\n")
    assert result.error is None and result.stdout == "ran\n"
    result = run_text("TYPE_CHECKING = True\nprint('before')\nif TYPE_CHECKING:\n"
                      "    import not_a_module\n")
    assert result.stdout == "before\n"
    assert result.error is not None and result.error.kind == "ModuleNotFoundError"
    assert result.error.message == "No module named 'not_a_module'"


def test_runtime_checkable_refuses_a_class_that_is_not_a_protocol():
    err = gt_error("""\
        from typing import runtime_checkable
        class Plain:
            pass
        runtime_checkable(Plain)
        """)
    assert err.kind == "TypeError"
    assert err.message == ("@runtime_checkable can be only applied to protocol classes, "
                           "got <class '__main__.Plain'>")


# ------------------------------------------------------------------ collections.abc Set


def test_set_and_mutable_set_mixins_give_pythons_operators_and_comparisons():
    same_as_python(snippet("abc_set_mixins"))


def test_set_mixins_answer_reflected_operators_and_refuse_non_iterables():
    same_as_python(snippet("abc_set_reflected"))


def test_abc_register_makes_virtual_subclasses_as_abcmeta_does():
    same_as_python(snippet("abc_register"))


def test_abc_registry_belongs_to_the_run():
    text = ("from collections.abc import Mapping\nMapping.register(list)\n"
            "print(isinstance([], Mapping))\n")
    assert run_text(text).stdout == "True\n"
    assert run_text("from collections.abc import Mapping\nprint(isinstance([], Mapping))\n"
                    ).stdout == "False\n"
    import collections.abc

    assert not isinstance([], collections.abc.Mapping)


# ------------------------------------------------------------------ exception chaining


def test_cause_context_and_suppress_context_read_as_in_python():
    same_as_python(snippet("exception_chaining"))


def test_uncaught_error_shows_its_cause_first_with_pythons_line():
    result = run_text(textwrap.dedent("""\
        def load(d):
            try:
                return d["lr"]
            except KeyError as e:
                raise ValueError("missing lr") from e
        load({})
        """), "cfg.gt")
    assert result.error.format(result.source) == (
        "cfg.gt:3:16: KeyError: 'lr'\n"
        "            return d[\"lr\"]\n"
        "                   ^^^^^^^\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "cfg.gt:5:9: ValueError: missing lr\n"
        "            raise ValueError(\"missing lr\") from e\n"
        "            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^")


def test_uncaught_error_raised_while_handling_shows_the_context():
    result = run_text("try:\n    1 / 0\nexcept ZeroDivisionError:\n    [][0]\n", "h.gt")
    text = result.error.format(result.source)
    first, second = text.split("\n\nDuring handling of the above exception, another "
                               "exception occurred:\n\n")
    assert first.startswith("h.gt:2:5: ZeroDivisionError: division by zero")
    assert second.startswith("h.gt:4:5: IndexError: list index out of range")


def test_from_none_hides_the_context_of_an_uncaught_error():
    result = run_text("try:\n    1 / 0\nexcept ZeroDivisionError:\n"
                      "    raise ValueError('clean') from None\n", "n.gt")
    assert result.error.format(result.source).startswith("n.gt:4:5: ValueError: clean")
    assert "During handling" not in result.error.format(result.source)


def test_a_long_chain_shows_a_bounded_part():
    from gradtrace.errors import MAX_CHAIN_SHOWN

    result = run_text("cause = None\nfor i in range(300):\n    try:\n"
                      "        raise ValueError(i) from cause\n"
                      "    except ValueError as e:\n        cause = e\nraise cause\n", "l.gt")
    text = result.error.format(result.source)
    assert text.count("direct cause") == MAX_CHAIN_SHOWN
    assert text.endswith("l.gt:7:1: ValueError: 299\n    raise cause\n    ^^^^^^^^^^^")


def test_a_finally_block_sees_the_error_passing_through_as_handled():
    same_as_python(snippet("finally_reraise"))


# ------------------------------------------------------------------ generators, ordering, formats

def test_generators_take_send_throw_and_close_as_python_does():
    same_as_python(snippet("generator_send_throw_close"))


def test_dataclass_order_and_total_ordering_compare_as_python_does():
    same_as_python(snippet("ordering_decorators"))


def test_format_specs_with_fields_of_their_own_format_as_python_does():
    same_as_python(snippet("format_nested_specs"))


def test_a_field_in_a_nested_spec_field_is_python_s_syntax_error():
    error = gt_error('x = 1\nprint(f"{x:{x:{x}}}")\n')
    assert (error.kind, error.message) == ("SyntaxError", "f-string: expressions nested too deeply")


def test_a_nested_spec_asking_for_a_huge_width_is_a_limit_not_a_huge_string():
    for text in ('w = 10**9\nprint(f"{1:{w}}")\n', 'print("{:{}}".format(1, 10**9))\n'):
        assert gt_error(text).kind == "LimitError"


def test_a_nested_spec_field_naming_an_attribute_reads_it_as_a_plain_one_does():
    same_as_python('print("{0:{1.real}}|{0.real:>{1}}".format(1, 5))\n')


def test_builtin_container_dunders_are_values_that_act_as_the_syntax_does():
    same_as_python(snippet("container_dunders"))


def test_format_map_reads_fields_through_the_mapping_as_python_does():
    same_as_python(snippet("format_map"))


def test_dataclass_keeps_its_own_methods_and_pprint_lays_it_out_as_python():
    same_as_python(snippet("dataclass_own_methods_pprint"))


def test_raising_system_exit_ends_the_run_with_its_code_as_sys_exit_does():
    assert run_text("print(1)\nraise SystemExit(2)\n").status == 2
    assert run_text("raise SystemExit\n").status in (0, None)
    same_as_python("try:\n    raise SystemExit(3, 'x')\nexcept SystemExit as e:\n"
                   "    print(e.code, repr(e))\n"
                   "try:\n    raise StopIteration(5)\nexcept StopIteration as e:\n"
                   "    print(e.value, repr(e))\n")
    same_as_python("for e in (ValueError('bad', 3), KeyError('k'), RuntimeError(), "
                   "TypeError('one')):\n    print(repr(e), e.args, str(e))\n")


def test_except_keyboard_interrupt_around_a_training_loop_lets_other_errors_pass():
    # char-rnn's train.py wraps its loop in `try: ... except KeyboardInterrupt: save()`:
    # the clause's name is evaluated when another error passes by, so it must exist
    same_as_python("try:\n    try:\n        [][1]\n    except KeyboardInterrupt:\n"
                   "        print('no')\nexcept IndexError as e:\n    print('index', e)\n"
                   "print(issubclass(KeyboardInterrupt, BaseException),"
                   " issubclass(KeyboardInterrupt, Exception))\n"
                   "try:\n    raise KeyboardInterrupt('stop')\nexcept Exception:\n"
                   "    print('caught as Exception')\nexcept BaseException as e:\n"
                   "    print(repr(e), type(e).__name__)\n")
    error = run_text("raise KeyboardInterrupt\n").error
    assert error is not None and error.kind == "KeyboardInterrupt"


def test_instance_dict_and_vars_are_the_live_attributes_as_python_has_them():
    same_as_python(snippet("instance_dict"))


def test_namedtuple_new_defaults_replaced_as_python_does():
    # EfficientNet-PyTorch's `GlobalParams.__new__.__defaults__ = (None,) * len(_fields)`:
    # the defaults construction fills missing fields from, each class its own
    same_as_python(snippet("namedtuple_new_defaults").replace(", P.__new__)", ")"))


# ------------------------------------------------------------------ queue (one thread)

def test_queue_priority_fifo_lifo_and_simple_queues_match_python():
    same_as_python(snippet("queue_fifo_lifo_priority"))


def test_queue_waits_only_another_thread_could_end_are_refused():
    for text in ("import queue\nqueue.Queue().get()\n",
                 "import queue\nq = queue.Queue(1)\nq.put(1)\nq.put(2)\n",
                 "import queue\nq = queue.LifoQueue()\nq.put(1)\nq.join()\n",
                 "import queue\nqueue.SimpleQueue().get(True, None)\n"):
        error = gt_error(text)
        assert error.kind == "NotSupportedError" and "wait forever" in str(error), text


def test_modules_imported_only_bind_and_refuse_each_name_where_used():
    same_as_python("""
    import glob, shutil, pickle, csv, threading, subprocess
    import multiprocessing as mp
    import urllib.request
    from concurrent import futures
    import collections
    print(glob.__name__, mp.__name__, urllib.__name__, futures.__name__,
          hasattr(collections, "abc"))
    """)
    result = run_text("import glob\nfiles = glob.glob('data/*.png')\n")
    assert result.error is not None and result.error.kind == "NotSupportedError"
    assert "'glob.glob' is not supported" in result.error.message
