"""Differential tests against live PyTorch 2.13: `complex()` as a builtin (a class
statement with a complex number as its base calls it; scripts build complex scalars with
it), reading tensors through Tensor.__complex__ (torch's checks and warning, as float()'s)
and script instances through __complex__, __float__ or __index__, as CPython does.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


COMPLEX = """import torch
print(complex(1, 2), complex("3-4j"), complex(2.5), complex(), complex(imag=3))
z = complex(1, 1)
print(z * z, abs(z), z.real, z.imag, z.conjugate(), isinstance(z, complex), type(z).__name__)
t = torch.tensor(2.0)
print(complex(t), complex(torch.tensor(1 + 2j)))
print(torch.tensor([complex(1, 2)]))
class C:
    def __complex__(self):
        return 1 + 5j
print(complex(C()))
class F:
    def __float__(self):
        return 2.0
print(complex(F()))
for bad in ([1], "x", None):
    try:
        complex(bad)
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
try:
    complex("1", 2)
except TypeError as e:
    print(e)
print(complex.__name__, complex(1, 2) == 1 + 2j)
x = torch.tensor(2.0, requires_grad=True)
print(complex(x), complex(x))
print(complex(torch.tensor([3])), complex(torch.tensor(True)))
try:
    complex(torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
print(complex(torch.tensor(1+2j, dtype=torch.complex64)),
      complex(torch.tensor(1+2j, dtype=torch.complex128)))
print(complex(torch.tensor(1.1, dtype=torch.float16)), complex(torch.tensor(1.1)),
      complex(torch.tensor(1.1, dtype=torch.bfloat16)))
try:
    complex(torch.empty(1, device='meta'))
except Exception as e:
    print(type(e).__name__, e)
try:
    float(torch.tensor(1+2j))
except Exception as e:
    print(type(e).__name__, e)
print(float(torch.tensor(1.1)), float(torch.tensor(1.1, dtype=torch.bfloat16)),
      float(torch.tensor(3)))
class I:
    def __index__(self):
        return 7
class N:
    pass
class Bad:
    def __complex__(self):
        return 3
print(complex(I()))
for v in (N(), Bad()):
    try:
        complex(v)
    except TypeError as e:
        print(e)
print(complex(1, F()), complex(C()))
"""


def test_complex_builtin_reads_numbers_strings_tensors_and_instances_as_torch_does() -> None:
    """complex(real, imag), complex(text), complex(tensor) with its requires-grad warning and
    one-element check, and a script class through __complex__/__float__/__index__ with
    CPython's errors."""
    assert gradtrace_output(COMPLEX) == torch_output(COMPLEX)
