"""Differential tests against live PyTorch 2.13: complex tensors (complex64, complex128).

What runs on them (engine/complex.py): printing, dtype objects and promotion, creation
through torch.complex / torch.polar / view_as_complex (views sharing memory, as
view_as_real and .real/.imag are), shape ops, casts to real (torch's warning), + - * with
torch's rounding (mul_kernel's vector body unfused, its scalar code fused as GCC compiled
it: compared bit for bit on seeded random shapes, strides and broadcasts) and autograd
through them (ViewAsComplexBackward0, MulBackward0's conjugate, ViewAsRealBackward0), as a
LLaMA rotary embedding uses them, abs() with its gradients (SLEEF's and glibc's hypot,
sgn), isclose/allclose, sums and means, vector norms. Everything else is refused with
NotSupportedError.

Skipped unless torch is importable.
"""
from __future__ import annotations

import random

import pytest
from mkl_skip import needs_mkl
from script_runs import (
    address_free,
    each_expression,
    gradtrace_output,
    torch_output,
    torch_outputs_in_child,
)

from gradtrace.runner import run_text

torch = pytest.importorskip("torch")

SETUP = """
def c(re, im, dtype=torch.float32):
    return torch.complex(torch.tensor(re, dtype=dtype), torch.tensor(im, dtype=dtype))
"""

PRINTED = [
    "c([1., -2., 3.5], [0.5, 0., -1e-5])", "c([1., 2.], [3., 4.])", "c(1., 0.5)",
    "c(-0., -0.)", "c([0., 0.], [0., 0.])", "c([1e10, 1.], [1., 2.])",
    "c([1.5, float('inf')], [float('nan'), -2.])",
    "c([[1., 2.], [3., 4.]], [[-1., 0.], [1e-8, 5.]])",
    "c([1., -2., 3.5], [0.5, 0., -1e-5], torch.float64)", "c(3., -4., torch.float64)",
    "c([123456.7, -0.001], [2., 3.])", "c(list(range(30)), [0.25] * 30)",
    "c([[0.1] * 12] * 3, [[-2.] * 12] * 3)", "c(list(range(2000)), [1.] * 2000)",
    "torch.zeros(0, dtype=torch.complex64)", "torch.zeros(2, 0, dtype=torch.complex128)",
    "torch.zeros(2, dtype=torch.cfloat)", "torch.ones(2, 2, dtype=torch.cdouble)",
    "torch.polar(torch.ones(3), torch.tensor([0., 1., 2.]))",
    "torch.view_as_complex(torch.arange(8.).reshape(2, 2, 2))",
    "str(c([1., 2.], [3., -4.]))", "c([1., 2.], [3., 4.]).tolist()",
    "torch.view_as_real(c([1., 2.], [3., -4.])).tolist()",
    "c([1., 2.], [3., -4.]).requires_grad_()",
]


def test_complex_tensors_print_like_torch() -> None:
    """Real and imaginary parts each get torch's own formatter (style and width); the
    imaginary part's sign joins them, and `j` ends it; complex64 is the default complex
    dtype (no dtype= suffix), complex128 is not."""
    script = each_expression(PRINTED, SETUP)
    assert gradtrace_output(script) == torch_output(script)


def test_print_options_apply_to_both_parts_like_torch() -> None:
    script = f"""import torch
{SETUP}
z = c([1.123456, -200.5, 3.], [1e-3, 2., -7.25])
torch.set_printoptions(precision=2)
print(z)
torch.set_printoptions(sci_mode=True)
print(z)
torch.set_printoptions(profile="default", linewidth=40)
print(z, z * 3)
torch.set_printoptions(profile="default")
torch.set_default_dtype(torch.float64)
print(c([1., 2.], [3., 4.], torch.float64), c([1., 2.], [3., 4.]))
torch.set_default_dtype(torch.float32)
"""
    assert gradtrace_output(script) == torch_output(script)


DTYPES = [
    "torch.cfloat", "torch.cdouble", "torch.complex64.is_complex", "torch.float32.is_complex",
    "torch.complex128.is_floating_point", "torch.complex64.is_signed", "torch.complex64.itemsize",
    "torch.promote_types(torch.float64, torch.complex64)",
    "torch.promote_types(torch.int32, torch.complex64)",
    "torch.promote_types(torch.float16, torch.complex64)",
    "torch.promote_types(torch.complex64, torch.complex128)",
    "torch.promote_types(torch.bool, torch.complex128)",
    "c(1., 2.).is_complex()", "torch.is_complex(c(1., 2.))", "torch.is_complex(torch.ones(1))",
    "c(1., 2.).is_floating_point()", "c(1., 2.).type()", "c(1., 2., torch.float64).type()",
    "c([1., 2.], [0., 1.]).element_size()",
    "(c(1., 2.) + torch.ones(2, dtype=torch.float64)).dtype",
    "(c(1., 2.) * torch.ones(2, dtype=torch.float64)).dtype", "(c(1., 2.) * 2).dtype",
    "(c([1.], [2.]) + torch.tensor(2., dtype=torch.float64)).dtype",
    "(c(1., 2., torch.float64) * torch.ones(2)).dtype",
    "torch.ones(2, dtype=torch.complex64).requires_grad_().requires_grad",
    # c10's toComplexType of the float beside a Python complex (round 63)
    "(torch.ones(2, dtype=torch.bfloat16) + 1j).dtype", "(torch.ones(2) + 1j).dtype",
    "(torch.ones(2, dtype=torch.float64) + 2j).dtype", "torch.tensor([1.2, 3j]).dtype",
]


def test_complex_dtypes_and_promotion_like_torch() -> None:
    script = each_expression(DTYPES, SETUP)
    assert gradtrace_output(script) == torch_output(script)


@pytest.mark.parametrize("script", [
    "torch.set_default_dtype(torch.float16)\nt = torch.tensor([1.2, 3j])",
    "torch.set_default_dtype(torch.float16)\nt = torch.tensor(1j)",
    "t = torch.ones(2, dtype=torch.float16) + 1j",
    "d = torch.float16.to_complex()",
])
def test_complex32_is_refused_not_made_complex64(script: str) -> None:
    """torch makes complex32 (ComplexHalf) of a Python complex beside float16 (the default
    dtype, or a half tensor); gradtrace has no complex32 and refuses it by name (it made a
    complex64 before round 63)."""
    result = run_text("import torch\n" + script + "\n", "c32.gt")
    assert result.error is not None and result.error.kind == "NotSupportedError"
    assert "complex32" in result.error.message


def test_views_share_memory_and_version_like_torch() -> None:
    """view_as_complex, view_as_real, .real and .imag are views: writes through any of
    them show through the others; the version counter is shared; `_base` is the root."""
    script = """import torch
x = torch.arange(12.).reshape(3, 2, 2)
z = torch.view_as_complex(x)
print(z, z.shape, z.stride(), z._base is x, z._base is x._base, z._version)
x.mul_(2)
print(z, z._version)
r = torch.view_as_real(z)
r[0, 0, 1] = -5.
print(x[0], r._base is x._base, r.stride(), z._version)
print(z.real, z.imag, z.real._base is x._base, z.imag.stride(), z.real.dtype)
z.real[1] = 100.
print(x, z._version)
y = torch.randn(2, 3, 4, 2)
w = torch.view_as_complex(y)
print(w._base is y, w.stride(), torch.view_as_complex(y[:, 1:]).stride())
print(torch.view_as_real(w.transpose(0, 1)).stride(), torch.view_as_real(w[:, ::2]).shape)
print(torch.real(torch.ones(2)), torch.view_as_complex(x.double()).dtype)
"""
    assert gradtrace_output(script) == torch_output(script)


SHAPES = [
    "z.reshape(2, 3)", "z.view(3, 2)", "z.flatten()", "z.unsqueeze(1).shape", "z.t()",
    "z.transpose(0, 1).contiguous().stride()", "z.permute(1, 0)", "torch.cat([z, z], 1)",
    "torch.stack([z, z]).shape", "z[0].expand(2, 3)", "z.clone()", "z.contiguous()",
    "z[:, 1]", "z[1, 2]", "z[:, ::2]", "z.flip(0)", "z.unbind(0)", "z.chunk(3, 1)",
    "z.narrow(1, 1, 2)", "z.select(0, 1)", "z.movedim(0, 1)", "z.squeeze()",
    "z.to(torch.complex128)", "torch.ones(2).to(torch.complex64)",
    "torch.tensor([1, 2]).to(torch.complex128)", "z.to(torch.float32)", "z.type_as(torch.ones(1))",
    "z.float()", "z.double()", "z == z", "z != z.flip(0)", "torch.equal(z, z.clone())",
    "-z", "z.neg()", "z.zero_()", "z.long()", "z.bool()", "c([0., 0., 1.], [0., 2., 0.]).bool()",
    "z.clone().fill_(2 - 1j)", "z.clone().fill_(3)", "torch.full_like(z, 1j)",
    "torch.full((2,), 1 + 1j)", "torch.full((2,), 1.5, dtype=torch.complex128)",
    "torch.zeros_like(z)", "z.new_zeros(2)", "z.new_tensor([1j])", "z.clone().copy_(z.real)",
    "torch.ones(2, 3).copy_(z)", "torch.cat([z, z.real])", "torch.stack([z[0], z[0].imag])",
    "z.is_conj()", "z.resolve_conj() is z", "torch.is_conj(z)", "z.is_neg()",
    "z.resolve_neg() is z", "torch.ones(2).resolve_conj()", "z.clone().mul_(2j)",
    "z.clone().add_(z.real)", "z.clone().sub_(1 + 1j)", "z.clone().mul_(z)",
    "z[torch.tensor([1, 0])]", "z[z.real > 2]", "z.mT", "z.detach()",
]


def test_shape_ops_and_casts_like_torch() -> None:
    """Shape ops keep the complex values; a cast to a real dtype keeps the real parts."""
    script = each_expression(SHAPES, SETUP + "z = c([[1., 2., 3.], [4., 5., 6.]], "
                                             "[[-1., 0.5, 0.], [2., -3., 7.]])\n")
    assert gradtrace_output(script) == torch_output(script)


def test_cast_to_real_warns_once_like_torch() -> None:
    """TORCH_WARN_ONCE's 'discards the imaginary part', wherever the cast happens."""
    script = SETUP.replace("\ndef", "import torch\nimport warnings\ndef") + """
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    z = c([1., 2.], [3., 4.])
    print(z.float(), z.type_as(torch.ones(1)), z.to(torch.float64), z.real)
    for w in seen:
        print(w.category.__name__, w.message)
"""
    torch_stdout, _ = torch_outputs_in_child({"warn": script})["warn"]  # (a fresh process)
    assert gradtrace_output(script) == torch_stdout


def test_complex64_randn_draws_like_torch() -> None:
    """torch.randn(dtype=torch.cfloat) is normal_(0, sqrt(1/2)) of its (..., 2) floats."""
    script = """import torch
torch.manual_seed(0)
for n in [(1,), (3,), (8,), (17,), (2, 9), (1000,)]:
    a = torch.randn(*n, dtype=torch.cfloat)
    print(a.shape, a._base, torch.view_as_real(a).flatten()[:6].tolist(),
          torch.view_as_real(a).sum().item())
print(torch.randn(2, 3, dtype=torch.complex64, requires_grad=True))
g = torch.Generator().manual_seed(3)
print(torch.randn(4, dtype=torch.cfloat, generator=g), torch.randn(3))
"""
    assert gradtrace_output(script) == torch_output(script)


def _random_operand(rng: random.Random, shape: list[int], name: str, double: bool) -> str:
    """Python building a complex operand of broadcastable `shape`, contiguous or not."""
    kind = rng.choice(["plain", "plain", "transposed", "sliced", "offset"])
    dtype = ".double()" if double else ""
    dims = ", ".join(map(str, shape))
    if kind == "transposed" and len(shape) >= 2:
        swapped = shape[:-2] + [shape[-1], shape[-2]]
        return (f"{name} = torch.view_as_complex(torch.randn({', '.join(map(str, swapped))}"
                f", 2){dtype}).transpose(-1, -2)")
    if kind == "sliced" and shape:
        wide = shape[:-1] + [2 * shape[-1]]
        return (f"{name} = torch.view_as_complex(torch.randn({', '.join(map(str, wide))}, 2)"
                f"{dtype})[..., ::2]")
    if kind == "offset":
        n = _count(shape)
        return (f"{name} = torch.view_as_complex(torch.randn({n + 1}, 2){dtype})[1:]"
                f".view({dims or '()'})")
    return f"{name} = torch.view_as_complex(torch.randn({dims}{', ' if dims else ''}2){dtype})"


def _count(shape: list[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _product_cases(count: int, seed: int) -> str:
    rng = random.Random(seed)
    lines = ["import torch", "torch.manual_seed(0)"]
    for i in range(count):
        ndim = rng.randint(0, 4)
        shape = [rng.choice([1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 24]) for _ in range(ndim)]
        while len(shape) > 1 and _count(shape) > 2000:  # (each case prints every value)
            shape[rng.randrange(len(shape))] = 1
        other = [s if rng.random() < 0.6 else 1 for s in shape]
        other = other[rng.randint(0, len(other)):] if rng.random() < 0.3 else other
        if rng.random() < 0.5:
            shape, other = other, shape
        double = rng.random() < 0.25
        lines.append(_random_operand(rng, shape, "a", double))
        number = None
        if rng.random() < 0.1:
            number = rng.choice(['2.5', '-0.75', 'torch.tensor(1.5)'])
            lines.append(f"b = {number}")
        else:
            lines.append(_random_operand(rng, other, "b", double))
        op = rng.choice(["*", "*", "*", "+", "-", "/", "/"])
        first, second = ("a", "b") if rng.random() < 0.8 else ("b", "a")
        if op == "/" and number in ("2.5", "-0.75"):  # (`number / z` is a reciprocal)
            first, second = "a", "b"
        lines.append(f"p = {first} {op} {second}")
        # (the strides of size-1 dims aside: gradtrace's real elementwise ops give them
        # differently too)
        lines.append(f"print({i}, p.shape, [s for s, n in zip(p.stride(), p.shape) if n > 1], "
                     "torch.view_as_real(p).flatten().tolist())")
    return "\n".join(lines) + "\n"


def test_products_sums_differences_and_quotients_round_like_torch() -> None:
    """Bit-exact results (every float's repr) of 300 seeded random products, sums,
    differences and quotients: contiguous, transposed, strided and offset operands,
    broadcasts of every kind (a broadcast scalar row too), numbers and 0-dim tensors,
    complex64 and complex128, rows shorter and longer than mul_kernel's vector body, so
    that its vector body, its scalar tails and its basic loop all occur."""
    script = _product_cases(300, 2026)
    assert gradtrace_output(script) == torch_output(script)


def test_large_products_split_by_threads_round_like_torch() -> None:
    """Past 32,768 elements TensorIterator cuts the loop into one chunk per thread; each
    chunk's rows end in their own scalar tails."""
    script = """import torch
torch.manual_seed(0)
for shape, other in [((41000,), (41000,)), ((3, 13001), (1, 13001)), ((7, 5000), (7, 1)),
                     ((1, 33000), ()), ((2, 20001), (2, 20001))]:
    a = torch.view_as_complex(torch.randn(*shape, 2))
    b = torch.view_as_complex(torch.randn(*other, 2))
    r = torch.view_as_real(a * b).flatten()
    print(shape, r.view(torch.int32).sum().item(), r[:8].tolist(), r[-8:].tolist())
"""
    assert gradtrace_output(script) == torch_output(script)


IN_PLACE = """import torch
torch.manual_seed(0)
def bits(t):
    return [x.hex() for x in torch.view_as_real(t).flatten().tolist()]
for n in [1, 3, 7, 8, 9, 15, 19, 24, 33]:
    a = torch.randn(n, dtype=torch.cfloat)
    b = torch.randn(n, dtype=torch.cfloat)
    x = a.clone(); x /= b
    y = a.clone(); y.mul_(b)
    s = torch.randn(2 * n, dtype=torch.cfloat); s[::2] /= b
    t = torch.randn(2 * n, dtype=torch.cfloat); t[::2] *= b
    u = a.clone(); u /= b[:1]
    v = a.clone(); v.div_(2.5)
    w = a.to(torch.cdouble); w /= b.to(torch.cdouble)
    print(n, bits(x), bits(y), bits(s), bits(t), bits(u), bits(v), bits(w), bits(a / b),
          bits(a.flip(0) / b), bits(a[None].expand(2, n) / b))
"""


def test_in_place_products_and_quotients_round_like_torch() -> None:
    """An output that is an operand's memory (`/=`, `*=`, div_, mul_) runs GCC's other
    version of the kernels' scalar loops, which fuses fewer product-sums: a quotient's
    numerators are fused only in the vector body, a strided row's products not at all;
    into a fresh output every quotient is fused but each loop's odd last one."""
    assert gradtrace_output(IN_PLACE) == torch_output(IN_PLACE)


def test_special_values_add_and_multiply_like_torch() -> None:
    """torch adds alpha * other with alpha a complex 1 (or -1 for sub): the product's zero
    meets an infinity (inf + 0j added gives a nan imaginary part); signed zeros as torch."""
    script = """import torch
inf, nan = float('inf'), float('nan')
re = torch.tensor([1., inf, -0., 0., nan, -inf, 2., -0.])
im = torch.tensor([1., 0., -0., -1., 1., inf, -0., 0.])
a = torch.complex(re, im)
b = torch.complex(im.flip(0), re)
for p in (a + b, a - b, b - a, a * b, b * a, a + 1, a - 1, a * 2, a * 0.):
    print(torch.view_as_real(p).tolist())
"""
    assert gradtrace_output(script) == torch_output(script)


def test_polar_rounds_like_torch() -> None:
    """torch.polar's scalar kernel: abs * cos(angle), abs * sin(angle) with glibc's
    cosf/sinf (their reduction past 120 included) or cos/sin, over a wide range of angles,
    every bit as torch's."""
    script = """import torch
torch.manual_seed(0)
for dtype in (torch.float32, torch.float64):
    angle = torch.cat([torch.randn(300) * 4, torch.randn(300) * 1e4, torch.rand(50) * 1e30,
                       torch.tensor([0., -0., 1e-30, 3.14159, float('inf'), float('nan')])])
    r = torch.randn(angle.shape)
    p = torch.polar(r.to(dtype), angle.to(dtype))
    print(p.dtype, torch.view_as_real(p).flatten().tolist())
    print(torch.polar(torch.ones(2, 1, dtype=dtype), angle[:6].to(dtype)))
"""
    assert gradtrace_output(script) == torch_output(script)


ROPE = """import torch
torch.manual_seed(0)

def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)

def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)

def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)

for bsz, seqlen, heads, head_dim in [(2, 5, 3, 8), (1, 16, 2, 16), (2, 7, 1, 6), (3, 3, 2, 34)]:
    fc = precompute_freqs_cis(head_dim, 4096)
    wq = torch.randn(heads * head_dim, 12, requires_grad=True)
    x = torch.randn(bsz, seqlen, 12)
    xq = (x @ wq.t()).view(bsz, seqlen, heads, head_dim)
    xk = (x @ wq.t() * 0.5).view(bsz, seqlen, heads, head_dim)
    q, k = apply_rotary_emb(xq, xk, fc[:seqlen])
    g = q.grad_fn
    print(g, g.next_functions, g.next_functions[0][0].next_functions)
    mul = g.next_functions[0][0].next_functions[0][0]
    print(mul.next_functions, mul.next_functions[0][0].next_functions)
    loss = (q * k.flip(1)).sum() + (q ** 2).mean()
    loss.backward()
    print(loss.item(), q[0, 0, 0].tolist(), wq.grad.flatten().tolist())
print(fc[:3, :4], fc.dtype, fc.shape)
"""


def test_rotary_embedding_forward_and_gradients_like_torch() -> None:
    """LLaMA's apply_rotary_emb: grad_fn names and next_functions, values and the
    gradient of a real weight through ViewAsRealBackward0, MulBackward0 (grad times the
    conjugate) and ViewAsComplexBackward0, every bit as torch's."""
    assert address_free(gradtrace_output(ROPE)) == address_free(torch_output(ROPE))


GRADS = """import torch
torch.manual_seed(0)
a = torch.randn(3, 4, 2, requires_grad=True)
b = torch.randn(3, 4, 2, requires_grad=True)
r = torch.randn(3, 4, requires_grad=True)
za, zb = torch.view_as_complex(a), torch.view_as_complex(b)
p = za * zb
q = p * r + za - r * 2.
print(p.grad_fn, p.grad_fn.next_functions, q.grad_fn.next_functions)
torch.view_as_real(q).pow(2).sum().backward()
print(a.grad, b.grad, r.grad)
c = torch.randn(5, requires_grad=True)
d = torch.randn(5, requires_grad=True)
w = torch.complex(c, d)
print(w.grad_fn, w.grad_fn.next_functions)
(w.real * 3 + w.imag * w.real).sum().backward()
print(c.grad, d.grad)
x = torch.randn(4, requires_grad=True)
y = x.to(torch.complex64) * torch.complex(torch.ones(4), torch.ones(4))
print(y.grad_fn, y.grad_fn.next_functions)
torch.view_as_real(y).sum().backward()
print(x.grad)
pol = torch.polar(torch.ones(2, requires_grad=True), torch.tensor([0.5, 1.]))
print(pol.grad_fn, pol.grad_fn.next_functions)
"""


def test_gradients_through_complex_ops_like_torch() -> None:
    """Conjugate Wirtinger gradients: mul's grad * other.conj(); a real input's gradient
    is the real part (handle_r_to_c); complex(), .real, .imag and casts."""
    assert address_free(gradtrace_output(GRADS)) == address_free(torch_output(GRADS))


ERRORS = [
    "torch.view_as_complex(torch.ones(3, 3))", "torch.view_as_complex(torch.ones(3, 4)[:, ::2])",
    "torch.view_as_complex(torch.ones(4, 2).t().contiguous().t())",
    "torch.view_as_complex(torch.ones(3, 2).long())", "torch.view_as_complex(torch.ones(()))",
    "torch.view_as_complex(torch.ones(2, 3, 2)[:, 1:, :][:, :, :].reshape(-1)[1:5].view(2, 2))",
    "torch.view_as_complex(torch.ones(3, 2)[:, :].as_strided((2, 2), (3, 1)))",
    "torch.view_as_real(torch.ones(3))", "torch.ones(2).imag",
    "torch.complex(torch.ones(2), torch.ones(2).double())",
    "torch.complex(torch.ones(2).long(), torch.ones(2).long())",
    "torch.polar(torch.ones(2), torch.ones(2).double())",
    "torch.view_as_complex(torch.ones(2, 2, requires_grad=True))[0].backward()",
    "torch.ones(2, dtype=torch.long).requires_grad_()",
]


def test_errors_like_torch() -> None:
    script = each_expression(ERRORS)
    assert gradtrace_output(script) == torch_output(script)


@pytest.mark.parametrize("expression", [
    "z.sin()", "z.tanh()",
    "torch.tensor([1., 2.]).to(torch.complex64).prod()",
    "torch.linalg.vector_norm(z, ord=0)", "torch.linalg.norm(torch.stack([z, z]), ord='nuc')",
    "torch.linalg.matrix_norm(torch.stack([z, z]), ord=2)",
])
def test_unmeasured_complex_ops_are_refused(expression: str) -> None:
    """What gradtrace has not measured on complex tensors is its NotSupportedError, not a
    guess."""
    result = run_text(f"import torch\nz = torch.complex(torch.ones(2), torch.ones(2))\n"
                      f"{expression}\n")
    assert result.error is not None
    assert result.error.kind == "NotSupportedError", result.error.message


PYTHON_COMPLEX = [
    "2j", "1 + 2.5j", "(1 + 2j) * (3 - 1j)", "abs(3 + 4j)", "(1 + 2j).real", "(1 + 2j).imag",
    "(1 + 2j).conjugate()", "1_0j", "1e-3J", "f'{1.5 - 2j:.2f}'", "str(-0.5j)",
    "c(1., 2.).item()", "c([1., 2.], [3., -0.5]).tolist()", "type(c(1., 2.).item()).__name__",
    "torch.tensor([1 + 2j, 3])", "torch.tensor(1 - 2j)", "torch.tensor([[1 + 2j], [0.5j]]).dtype",
    "torch.tensor([1 + 2j], dtype=torch.complex128)", "torch.tensor([1, 2.5, 1j]).dtype",
    "torch.ones(2) * 1j", "torch.ones(2, dtype=torch.float64) + (1 - 1j)", "c([1.], [2.]) * 2j",
    "(torch.ones(2) * 1j).dtype", "(torch.ones(2).double() * 1j).dtype",
    "torch.tensor([1 + 2j]).item() == 1 + 2j", "{1j: 2}[1j]",
]


ABS = """import torch
import torch.autograd.forward_ad as fwAD
torch.manual_seed(4)
def bits(t):
    t = torch.view_as_real(t) if t.is_complex() else t
    return [x.hex() for x in t.flatten().tolist()]
for dtype in (torch.float32, torch.float64):
    for n in (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 100, 40001):
        z = torch.complex(torch.randn(n, dtype=dtype), torch.randn(n, dtype=dtype))
        z[::5] = 0
        w = torch.randn(n, dtype=dtype)
        zz = z.clone().requires_grad_()
        y = zz.abs()
        (y * w).sum().backward()
        with fwAD.dual_level():
            jvp = fwAD.unpack_dual(fwAD.make_dual(z, z.flip(0)).abs()).tangent
        out = (bits(y), bits(zz.grad), bits(jvp)) if n < 1000 else (
            torch.view_as_real(zz.grad).view(torch.int32 if dtype == torch.float32
                                             else torch.int64).sum().item(),)
        print(n, y.dtype, type(y.grad_fn).__name__, *out)
    m = torch.complex(torch.randn(6, 5, dtype=dtype), torch.randn(6, 5, dtype=dtype))
    for view in (m.t(), m[:, ::2], m[1:, 1:], m[:1].expand(4, 5)):
        print(view.abs().stride(), bits(view.abs()), bits(abs(view)), bits(torch.abs(view)))
    special = torch.complex(torch.tensor([0., -0., float('inf'), float('nan'), 1e-40, 3e38, 1.],
                                         dtype=dtype),
                            torch.tensor([-0., 0., float('nan'), 2., 1e-41, 3e38, float('inf')],
                                         dtype=dtype))
    print(bits(special.abs()), bits(special[:3].abs()))
"""


def test_abs_and_its_gradients_round_like_torch() -> None:
    """abs() of complex tensors: SLEEF's hypot in abs_kernel's vector body, glibc's in its
    scalar code; the gradient grad * sgn(z) (sgn_kernel's vector division, sgn_impl's
    complex division by (|z|, 0)) and the forward derivative Re(conj(t) sgn(z)); every
    length class of the loops, two threads' chunks, views and special values, bit for
    bit."""
    assert gradtrace_output(ABS) == torch_output(ABS)


CLOSE = """import torch
torch.manual_seed(0)
for dt in (torch.float32, torch.float64):
    z = torch.complex(torch.randn(4000, dtype=dt), torch.randn(4000, dtype=dt))
    d = torch.complex(torch.randn(4000, dtype=dt), torch.randn(4000, dtype=dt))
    for rtol, atol in [(1e-5, 1e-8), (1e-3, 0.0), (0.0, 1e-6), (0.0, 0.0), (1e-2, 1e-2)]:
        for scale in (1e-9, 1e-7, 1e-6, 1e-5, 1e-3):
            w = z + d * scale
            r = torch.isclose(z, w, rtol=rtol, atol=atol)
            print(rtol, atol, scale, r.sum().item(), r.int().tolist()[:60],
                  torch.allclose(w, z, rtol, atol))
    s = torch.complex(torch.tensor([float('inf'), float('nan'), 1., float('inf'), 0.], dtype=dt),
                      torch.tensor([0., 0., float('nan'), 1., -0.], dtype=dt))
    print(torch.isclose(s, s), torch.isclose(s, s, equal_nan=True), torch.isclose(s, s.flip(0)))
    print(torch.isclose(z[:6].reshape(2, 3), z[:3]),
          torch.isclose(z, w, equal_nan=True).sum().item())
for e in [lambda: torch.isclose(z, w.real), lambda: torch.allclose(z, z.to(torch.complex64)),
          lambda: torch.isclose(z, torch.ones(4000))]:
    try:
        print(e())
    except Exception as ex:
        print(type(ex).__name__, ex)
"""


def test_isclose_and_allclose_like_torch() -> None:
    """isclose/allclose of complex tensors: x == y, or |x - y| finite and at most
    atol + |rtol * y|, with torch's complex differences, products and moduli; perturbations
    at the tolerance's scale, zero tolerances, equal_nan, special values, broadcasting and
    dtype errors."""
    assert gradtrace_output(CLOSE) == torch_output(CLOSE)


SUMS = """import torch
torch.manual_seed(0)
def bits(t):
    t = torch.view_as_real(t) if t.is_complex() else t
    return [x.hex() for x in t.flatten().tolist()]
for dt in (torch.float32, torch.float64):
    for shape in [(3,), (17,), (100,), (5, 7), (33, 9), (2, 3, 40)]:
        z = torch.complex(torch.randn(shape, dtype=dt), torch.randn(shape, dtype=dt)) * 100
        print(bits(z.sum()), bits(torch.sum(z, -1)), bits(z.sum(0, keepdim=True)), z.sum().dtype)
        print(bits(z.mT.sum(-1)) if z.dim() > 1 else '', bits(z[..., ::2].sum(-1)))
    A = torch.randn(4, 4, dtype=dt)
    L = torch.linalg.eigvals(A)
    print(L.sum(), torch.trace(A), bits(L.sum()))
    a = torch.ones(3, 1, 2, dtype=dt, requires_grad=True)
    zz = torch.complex(torch.randn(4, 1, dtype=dt), torch.randn(4, 1, dtype=dt))
    torch.view_as_real(torch.view_as_complex(a) * zz).sum().backward()
    print(bits(a.grad))
    B = torch.randn(2, 5, 5, dtype=dt, requires_grad=True)
    weights = torch.tensor([1 + 2j, 3 - 1j], dtype=L.dtype)
    (torch.linalg.eigvals(B).sum(-1) * weights).real.sum().backward()
    print(bits(B.grad))
    C = torch.complex(torch.randn(6, dtype=dt), torch.randn(6, dtype=dt)).requires_grad_()
    torch.view_as_real(C.sum() * C[:1]).sum().backward()
    print(bits(C.grad))
"""


@needs_mkl  # (the sum of eigenvalues: MKL's geev)
def test_sums_and_their_gradients_like_torch() -> None:
    """torch.sum of complex tensors: SumKernel.cpp's cascade over Vectorized<c10::complex>'s
    lanes (4 complex64 or 2 complex128 with AVX2), rows, columns, transposed and strided;
    a complex gradient summed over broadcast dims; the sum of eigenvalues."""
    assert gradtrace_output(SUMS) == torch_output(SUMS)


MEANS = """import torch
torch.manual_seed(0)
def bits(t):
    t = torch.view_as_real(t) if t.is_complex() else t
    return [x.hex() for x in t.flatten().tolist()]
for dt in (torch.float32, torch.float64):
    for shape in [(3,), (7,), (17,), (100,), (5, 7), (33, 9), (2, 3, 40), (40, 3)]:
        z = torch.complex(torch.randn(shape, dtype=dt), torch.randn(shape, dtype=dt))
        print(bits(z.mean()), bits(z.mean(-1)), bits(torch.mean(z, 0, keepdim=True)))
        zz = z.clone().requires_grad_()
        c = torch.complex(torch.randn(shape[-1:], dtype=dt), torch.randn(shape[-1:], dtype=dt))
        (zz.mean() * c[0]).real.backward()
        print(bits(zz.grad))
        zz.grad = None
        torch.view_as_real(zz.mean(0) * c[:1]).sum().backward()
        print(bits(zz.grad))
    A = torch.randn(2, 6, 6, dtype=dt, requires_grad=True)
    L = torch.linalg.eigvals(A)
    m = L.mean(-1)
    print(m, type(m.grad_fn).__name__)
    (m * torch.tensor([1 + 1j, 2], dtype=L.dtype)).real.sum().backward()
    print(bits(A.grad))
for e in [lambda: torch.ones(3, dtype=torch.long).mean(),
          lambda: torch.ones(3, dtype=torch.cfloat).mean(dtype=torch.float32),
          lambda: torch.ones(3, dtype=torch.cfloat).sum(dtype=torch.float64)]:
    try:
        print(e())
    except Exception as ex:
        print(type(ex).__name__, ex)
"""


@needs_mkl  # (the mean of eigenvalues: MKL's geev)
def test_means_and_their_gradients_like_torch() -> None:
    """torch.mean of complex tensors: the cascade sum, then div_ by the count (c10::complex's
    operator/ as div_true_kernel rounds it); its gradient the expanded gradient over the
    count; a real dtype= casts first, with torch's warning."""
    assert gradtrace_output(MEANS) == torch_output(MEANS)


def test_python_complex_numbers_like_torch() -> None:
    """Python complex numbers as scripts meet them: literals, a complex tensor's item() and
    tolist(), their real/imag/conjugate(), torch.tensor's inference (the default complex
    dtype) and as an operand (a wrapped number: a float32 tensor times 1j is complex64)."""
    script = each_expression(PYTHON_COMPLEX, SETUP)
    assert gradtrace_output(script) == torch_output(script)


def test_reshape_takes_the_shape_keyword_like_torch() -> None:
    """`x.reshape(shape=(...))` (minRF's unpatchify) and torch.reshape(x, shape=...); any
    other keyword is torch's TypeError."""
    script = each_expression([
        "torch.arange(6.).reshape(shape=(2, 3))", "torch.reshape(torch.arange(6.), shape=(3, -1))",
        "torch.arange(6.).reshape(shape=[6])", "torch.arange(6.).reshape(size=(2, 3))",
    ])
    assert gradtrace_output(script) == torch_output(script)


COMPLEX_RAND = """import torch
torch.manual_seed(3)
for shape in [(1,), (3,), (7,), (8,), (9,), (10, 10), (33,), (5, 13)]:
    t = torch.rand(*shape, dtype=torch.complex64)
    print(torch.view_as_real(t).flatten().tolist()[-6:], torch.rand(2).tolist())
g = torch.Generator().manual_seed(5)
print(torch.rand(4, 5, dtype=torch.cfloat, generator=g))
a = torch.rand(3, dtype=torch.complex64)
torch.testing.assert_close(a, a + 1e-7)
try:
    torch.testing.assert_close(a, a * 1.01)
except AssertionError as err:
    print(err)
"""


def test_complex_rand_draws_uniform_parts_and_assert_close_compares_complex_like_torch() -> None:
    """torch.rand(dtype=torch.complex64) is uniform_ of the (..., 2) real view, the
    generator's numbers in torch's order; assert_close has complex tolerances."""
    assert gradtrace_output(COMPLEX_RAND) == torch_output(COMPLEX_RAND)


COMPLEX_PRODUCTS = """import torch
torch.manual_seed(0)
def show(t):
    r = torch.view_as_real(t) if t.dtype.is_complex else t
    print(tuple(t.shape), r.flatten().tolist()[:8], r.double().sum().item())
for shape_x, shape_w, eq in [((2, 3, 4), (3, 5, 4), "bci,coi->boi"),
                              ((4, 6, 16), (6, 8, 16), "bix,iox->box"),
                              ((2, 3, 5, 4), (3, 2, 5, 4), "bixy,ioxy->boxy"),
                              ((3, 7, 7), (3, 7, 7), "bij,bjk->bik")]:
    for dtype in (torch.complex64, torch.complex128):
        x = torch.randn(*shape_x, dtype=torch.complex64).to(dtype).requires_grad_()
        w = torch.randn(*shape_w, dtype=torch.complex64).to(dtype).requires_grad_()
        y = torch.einsum(eq, x, w)
        show(y)
        torch.view_as_real(y).pow(2).sum().backward()
        show(x.grad)
        show(w.grad)
a = torch.randn(4, 9, 30, dtype=torch.cfloat, requires_grad=True)
b = torch.randn(4, 30, 9, dtype=torch.cfloat, requires_grad=True)
c = torch.bmm(a, b)
print(c.grad_fn, c.grad_fn.next_functions)
(c.abs() * torch.arange(9.)).sum().backward()
show(a.grad)
show(b.grad)
p = torch.randn(3, 4, dtype=torch.cfloat, requires_grad=True)
q = torch.conj_physical(p.t())
print(q.grad_fn, q.stride(), q.is_conj(), torch.conj_physical(torch.ones(2)).grad_fn)
q.abs().sum().backward()
show(p.grad)
weight = torch.nn.Parameter(torch.randn(3, 4, dtype=torch.cfloat))
print(weight)
for cls, kw in [(torch.optim.Adam, dict(lr=0.1)), (torch.optim.AdamW, dict(lr=0.1, amsgrad=True)),
                (torch.optim.SGD, dict(lr=0.1, momentum=0.9))]:
    w2 = torch.nn.Parameter(weight.detach().clone())
    opt = cls([w2], **kw)
    for _ in range(3):
        opt.zero_grad()
        torch.view_as_real(torch.einsum("ij,jk->ik", w2, w2.t().detach())).pow(2).mean().backward()
        opt.step()
    show(w2)
    print(sorted(opt.state[w2].keys()), [v.dtype for v in opt.state[w2].values()])
"""


def test_complex_einsum_bmm_and_optimizers_on_complex_parameters_like_torch() -> None:
    """einsum and bmm of complex64/complex128 tensors (ATen's plain loop below 400
    multiply-adds, MKL's batched cgemm above) and their gradients, whose conjugated operands
    torch keeps lazy (written out here in the transposed view's layout: the same products);
    torch.conj_physical; a complex nn.Parameter trained by Adam and AdamW (torch's
    view_as_real branch) and SGD with momentum (complex add with alpha)."""
    assert address_free(gradtrace_output(COMPLEX_PRODUCTS)) == \
        address_free(torch_output(COMPLEX_PRODUCTS))


COMPLEX_MATRIX_PRODUCTS = """import torch
torch.manual_seed(0)
def show(t):
    r = torch.view_as_real(t) if t.dtype.is_complex else t
    print(tuple(t.shape), r.flatten().tolist()[:6], r.double().sum().item())
for (m, k, n) in [(2, 3, 4), (5, 7, 3), (16, 32, 8), (40, 33, 21), (1, 9, 1)]:
    for dtype in (torch.complex64, torch.complex128):
        a = torch.randn(m, k, dtype=torch.complex64).to(dtype).requires_grad_()
        b = torch.randn(k, n, dtype=torch.complex64).to(dtype).requires_grad_()
        c = torch.mm(a, b)
        show(c)
        torch.view_as_real(c).pow(2).sum().backward()
        show(a.grad); show(b.grad)
        bt = torch.randn(n, k, dtype=torch.complex64).to(dtype).requires_grad_()
        d = torch.matmul(a.detach().t().contiguous().t(), bt.t())
        torch.view_as_real(d).sin().sum().backward()
        show(d); show(bt.grad)
x = torch.randn(3, 4, 5, dtype=torch.cfloat, requires_grad=True)
w = torch.randn(5, 2, dtype=torch.cfloat, requires_grad=True)
y = torch.matmul(x, w)
print(y.grad_fn)
y.abs().sum().backward()
show(x.grad); show(w.grad)
u = torch.randn(4, 4, dtype=torch.cfloat, requires_grad=True)
v = (u @ u.t()) @ torch.randn(4, 2, dtype=torch.cfloat)
torch.view_as_real(v).sum().backward()
show(u.grad)
try:
    print(torch.randn(3, dtype=torch.cfloat) @ torch.randn(3, 2, dtype=torch.cfloat))
except Exception as err:
    print(type(err).__name__)
"""


def test_complex_mm_and_matmul_and_their_gradients_like_torch() -> None:
    """mm/matmul/@ of complex matrices (MKL's cgemm/zgemm) and the gradients, where torch's
    addmm_impl_cpu_ hands BLAS a conjugate transpose for a transposed lazily conjugated
    operand and writes the conjugate out otherwise (the two round differently: a 9x1 by 1x1
    gradient differed before blas.mm took the conjugate as a flag)."""
    assert address_free(gradtrace_output(COMPLEX_MATRIX_PRODUCTS)) == \
        address_free(torch_output(COMPLEX_MATRIX_PRODUCTS))


def test_create_graph_through_complex_mm_is_refused() -> None:
    """(Complex mv, addmv, addmm: tests/test_complex_products_torch_diff.py.)"""
    double = run_text("import torch\na = torch.ones(2, 2, dtype=torch.cfloat, "
                      "requires_grad=True)\ny = torch.view_as_real(a @ a).sum()\n"
                      "y.backward(create_graph=True)\n")
    assert double.error is not None and double.error.kind == "NotSupportedError"
    assert "lazily conjugated" in str(double.error)


DEGENERATE_BATCHED_PRODUCTS = """import torch
torch.manual_seed(0)
def show(t):
    r = torch.view_as_real(t) if t.dtype.is_complex else t
    print(tuple(t.shape), r.flatten().tolist()[:4], r.double().sum().item())
for (bs, m, k, n) in [(3, 1, 30, 20), (2, 20, 30, 1), (2, 25, 1, 20), (4, 1, 1, 500),
                      (2, 30, 20, 30), (1, 50, 1, 1)]:
    for dtype in (torch.complex64, torch.complex128):
        a = torch.randn(bs, m, k, dtype=torch.complex64).to(dtype).requires_grad_()
        b = torch.randn(bs, k, n, dtype=torch.complex64).to(dtype).requires_grad_()
        c = torch.bmm(a, b)
        torch.view_as_real(c).pow(2).sum().backward()
        show(c); show(a.grad); show(b.grad)
        bt = torch.randn(bs, n, k, dtype=torch.complex64).to(dtype).requires_grad_()
        d = torch.bmm(a.detach(), bt.transpose(1, 2))
        torch.view_as_real(d).sin().sum().backward()
        show(bt.grad)
"""


def test_complex_bmm_gradients_of_vector_shaped_batches_like_torch() -> None:
    """bmm's gradients multiply by resolve_conj() of a transposed view: written out with
    the view's own strides (a size-1 dim's included, as empty_like keeps them), MKL is
    called with torch's transposition flags for 1-wide matrices too."""
    assert gradtrace_output(DEGENERATE_BATCHED_PRODUCTS) == \
        torch_output(DEGENERATE_BATCHED_PRODUCTS)


def test_conj_of_a_real_tensor_is_the_tensor_itself_like_torch() -> None:
    script = """import torch
x = torch.randn(3, requires_grad=True)
y = x * 2
print(x.conj() is x, torch.conj(y) is y, y.conj().is_conj(), y.conj().grad_fn)
m = torch.randn(2, 3)
print(m.conj().T.shape, m.mH.stride(), torch.equal(m.adjoint(), m.t()))
"""
    assert address_free(gradtrace_output(script)) == address_free(torch_output(script))


@pytest.mark.parametrize("spelled", ["z.mH", "z.H", "z.adjoint()", "torch.adjoint(z)"])
def test_a_complex_conjugate_transpose_is_a_conj_view_like_torch(spelled: str) -> None:
    """torch's mH/H/adjoint of a complex tensor is the transposed view with the conjugate
    bit (engine/conj_bit.py; tests/test_conj_bit_torch_diff.py tests it further)."""
    script = f"""import torch
z = torch.randn(2, 3, dtype=torch.cfloat, requires_grad=True)
y = {spelled}
print(y, y.is_conj(), y.stride(), y.grad_fn.next_functions)
"""
    assert address_free(gradtrace_output(script)) == address_free(torch_output(script))


CUMSUM = """import torch
torch.manual_seed(0)
def bits(t):
    return [x.hex() for x in torch.view_as_real(t).flatten().tolist()]
for dt in (torch.complex64, torch.complex128):
    z = (torch.randn(4, 300, dtype=dt) * 100).requires_grad_()
    c = torch.cumsum(z, 1)
    print(c.dtype, c.grad_fn.name(), bits(c[:, -3:]), c.stride())
    w = torch.randn(4, 300, dtype=dt)
    (c * w).real.sum().backward()
    print(bits(z.grad[:, :3]))
    d = z.detach().t().cumsum(0)
    print(bits(d[-2:, :2]), d.stride())
    e = z.detach().clone()
    e.cumsum_(0)
    print(bits(e[-1, :3]))
    print(torch.cumsum(z.detach(), -1, dtype=torch.complex128).dtype)
"""


def test_complex_cumsum_accumulates_each_part_as_torch_does() -> None:
    """cpu_cum_base_kernel accumulates in at::acc_type: complex<double> for complex64, so
    each part is float32 cumsum's double prefix sum; its backward is the reversed cumsum,
    no conjugate (a linear map)."""
    assert gradtrace_output(CUMSUM) == torch_output(CUMSUM)


DOT = """import torch
torch.manual_seed(0)
def bits(t):
    return [x.hex() for x in torch.view_as_real(t).flatten().tolist()]
for dt in (torch.complex64, torch.complex128):
    for n in (1, 5, 33, 200):
        a = torch.randn(n, dtype=dt, requires_grad=True)
        b = torch.randn(2 * n, dtype=dt)[::2].requires_grad_()
        for f in (torch.dot, torch.vdot, torch.matmul, lambda x, y: x @ y):
            r = f(a, b)
            g = torch.randn((), dtype=dt)
            ga, gb = torch.autograd.grad(r, (a, b), g)
            print(n, r.grad_fn.name(), bits(r), bits(ga)[:6], bits(gb)[:6])
        print(a.dot(b).dtype, a.vdot(b).requires_grad)
"""


def test_complex_dot_vdot_and_vector_matmul_are_mkls_dotu_and_dotc() -> None:
    """dot_impl / vdot_impl call MKL's cblas_?dotu_sub / cblas_?dotc_sub (measured: the same
    bits on 1-4,097 elements, strided too); the gradients are grad * conj(other) (dot) and
    conj(grad) * other, grad * self (vdot)."""
    assert gradtrace_output(DOT) == torch_output(DOT)


NO_COMPLEX_KERNEL = """import torch
for dt in (torch.cfloat, torch.cdouble):
    z = torch.tensor([1 + 1j, 2 + 0j], dtype=dt)
    for f in [lambda: z.abs_(), lambda: torch.abs_(z), lambda: z < z, lambda: z <= 1,
              lambda: z > z, lambda: z >= z, lambda: torch.lt(z, z), lambda: float(z[0]),
              lambda: float(z[1]), lambda: int(z[1]), lambda: int(z[0]),
              lambda: z[0].item(), lambda: bool(z[0])]:
        try:
            print(f())
        except Exception as e:
            print(type(e).__name__, e)
"""


def test_what_torch_has_no_complex_kernel_for_gives_torchs_errors() -> None:
    """abs_, the ordering comparisons and float()/int() of a value off the real axis are
    torch's errors (a script's `except` catches them), not gradtrace's refusal; float() of
    a real-valued complex tensor is its real part."""
    assert gradtrace_output(NO_COMPLEX_KERNEL) == torch_output(NO_COMPLEX_KERNEL)


SGN = """import torch
torch.manual_seed(0)
def bits(t):
    return [x.hex() for x in torch.view_as_real(t).flatten().tolist()]
for dt in (torch.complex64, torch.complex128):
    for n in (1, 7, 16, 37):
        z = torch.randn(3, n, dtype=dt)
        z[0, 0] = 0
        z.requires_grad_()
        s = torch.sgn(z)
        print(s.grad_fn.name(), bits(s)[:8], bits(s)[-4:])
        w = torch.randn(3, n, dtype=dt)
        (s * w).real.sum().backward()
        print(bits(z.grad)[:8], bits(z.grad)[-4:])
        print(bits(z.detach().t().sgn())[-4:], z.sgn().stride())
x = torch.randn(5, requires_grad=True)
print(x.sgn(), torch.autograd.grad(x.sgn().sum(), x))
"""


def test_complex_sgn_and_its_gradient_are_torchs() -> None:
    """sgn_kernel's z / |z| (the vector body divides by SLEEF's hypot, the scalar tail
    multiplies by 1 / |z| through c10::complex's operator/), 0 at 0; sgn_backward's
    (grad - sgn² conj(grad)) / (2 |z|), 0 where z is 0."""
    assert gradtrace_output(SGN) == torch_output(SGN)


EXP = """import torch
torch.manual_seed(0)
def bits(t):
    return [x.hex() for x in torch.view_as_real(t).flatten().tolist()]
z = torch.randn(3, 5, dtype=torch.cfloat, requires_grad=True)
e = torch.exp(z)
print(e.grad_fn, bits(e))
(e * torch.randn(3, 5, dtype=torch.cfloat)).real.sum().backward()
print(bits(z.grad))
x = torch.randn(4, requires_grad=True)
w = torch.exp(1j * x)
print(w, w.grad_fn)
w.imag.sum().backward()
print(x.grad)
t = torch.randn(6, 4, dtype=torch.cfloat).to(torch.cdouble).t()
print(bits(t.exp()), t.exp().stride())
u = torch.randn(5, dtype=torch.cfloat); u.exp_(); print(bits(u))
import torch.autograd.forward_ad as fwAD
with fwAD.dual_level():
    d = fwAD.make_dual(torch.randn(3, dtype=torch.cfloat), torch.randn(3, dtype=torch.cfloat))
    print(bits(fwAD.unpack_dual(d.exp()).tangent))
theta = torch.linspace(0, 3.14, 8)
print(torch.exp(torch.complex(torch.zeros(8), theta)))
"""


def test_exp_and_its_gradients_like_torch() -> None:
    """Complex exp is the C library's cexpf/cexp element by element (torch maps std::exp),
    its gradient grad * result.conj(), its tangent tangent * result; exp(1j * x) of a real
    x gives x the real part of its gradient."""
    assert address_free(gradtrace_output(EXP)) == address_free(torch_output(EXP))


COMPLEX_INDEX_SELECT = """import torch
torch.manual_seed(0)
a = torch.randn(5, 3, dtype=torch.complex64, requires_grad=True)
b = a.index_select(0, torch.tensor([4, 0, 4, 2]))
print(b)
c = torch.index_select(a, 1, torch.tensor([2, 2]))
print(c.dtype, c.shape, b.grad_fn.name())
(torch.view_as_real(b * b).sum() + torch.view_as_real(c).pow(2).sum()).backward()
print(a.grad)
d = torch.complex(torch.randn(4, 2, dtype=torch.float64), torch.randn(4, 2, dtype=torch.float64))
print(d.index_select(0, torch.tensor([], dtype=torch.long)))
print(d.index_select(-1, torch.tensor([1])))
freqs = torch.polar(torch.ones(8, 2), torch.outer(torch.arange(8.), torch.tensor([1., 0.01])))
print(freqs.index_select(0, torch.arange(2, 5)))
"""


def test_complex_index_select_and_its_gradient_like_torch() -> None:
    """index_select of a complex rotary table (Gemma's freqs_cis.index_select(0,
    input_positions)) moves values only; its backward adds the gradient rows back with
    repeated indices summed."""
    assert gradtrace_output(COMPLEX_INDEX_SELECT) == torch_output(COMPLEX_INDEX_SELECT)


ANGLE = """import torch
torch.manual_seed(0)
x = torch.tensor([-1., 0., 2., -0., float('nan'), -3.5], requires_grad=True)
y = torch.angle(x)
print(y, y.grad_fn)
y.sum().backward()
print(x.grad, torch.angle(torch.tensor([1, -2, 0])))
z = torch.randn(3, 7, dtype=torch.cfloat)
z[0, 0] = 0
z.requires_grad_()
a = z.angle()
print([v.hex() for v in a.flatten().tolist()], a.dtype, a.grad_fn)
(a * torch.randn(3, 7)).sum().backward()
print([v.hex() for v in torch.view_as_real(z.grad).flatten().tolist()])
w = torch.randn(40, dtype=torch.cfloat)
print([v.hex() for v in w.angle().tolist()])
print([v.hex() for v in torch.randn(6, 9, dtype=torch.cfloat).t().angle().flatten().tolist()])
d = torch.randn(11, dtype=torch.cfloat).to(torch.cdouble)
print([v.hex() for v in d.angle().tolist()])
"""


def test_angle_and_its_gradients_like_torch() -> None:
    """torch.angle: SLEEF's atan2 in the vector body, the C library's atan2f/atan2 in the
    scalar code (a 7-element row, a strided one, the tail of a 40-element row); a real
    tensor's pi or 0 (nan kept) with zero gradients; a complex one's gradient
    grad * z / |z|² * 1j, 0 at 0."""
    assert address_free(gradtrace_output(ANGLE)) == address_free(torch_output(ANGLE))


POLAR_GRADIENTS = """import torch
torch.manual_seed(0)
def bits(t):
    return [x.hex() for x in t.flatten().tolist()]
r = torch.rand(3, 9, requires_grad=True)
th = torch.randn(3, 9, requires_grad=True)
z = torch.polar(r, th)
print(z.grad_fn, z.grad_fn.next_functions)
w = torch.randn(3, 9, dtype=torch.cfloat)
(torch.view_as_real(z * w)).sum().backward()
print(bits(r.grad)); print(bits(th.grad))
# broadcast theta, LLaMA-style freqs with a learnable scale
scale = torch.ones(1, requires_grad=True)
t = torch.arange(6.)
freqs = torch.outer(t, torch.tensor([1.0, 0.1, 0.01])) * scale
cis = torch.polar(torch.ones_like(freqs), freqs)
x = torch.view_as_complex(torch.randn(6, 3, 2))
(torch.view_as_real(x * cis) ** 2).sum().backward()
print(scale.grad.item().hex())
r64 = torch.rand(4, dtype=torch.float64, requires_grad=True)
th64 = torch.randn(4, dtype=torch.float64, requires_grad=True)
torch.polar(r64, th64).abs().sum().backward()
print(bits(r64.grad), bits(th64.grad))
"""


def test_polar_gradients_like_torch() -> None:
    """polar_backward: real(grad.conj() * sgn(result)) for abs, real(grad.conj() *
    (result * 1j)) for angle; a learnable scale of LLaMA-style frequencies through a
    broadcast; float64."""
    assert address_free(gradtrace_output(POLAR_GRADIENTS)) == \
        address_free(torch_output(POLAR_GRADIENTS))


COMPLEX_DRAWS = """import torch
for dt in (torch.cfloat, torch.cdouble):
    for n in [(1,), (3,), (8,), (9,), (20,), (4, 5)]:
        torch.manual_seed(1)
        a = torch.randn(*n, dtype=dt); b = torch.rand(*n, dtype=dt)
        g = torch.Generator().manual_seed(7)
        c = torch.randn(*n, dtype=dt, generator=g)
        drawn = torch.stack([a.reshape(-1), b.reshape(-1), c.reshape(-1)])
        print(dt, n, [x.hex() for x in torch.view_as_real(drawn).flatten().tolist()],
              torch.randn(2).tolist())
"""


def test_complex64_and_complex128_draws_like_torch() -> None:
    """randn of a complex dtype is normal_(0, 1 / sqrt(2)) of its float parts (for
    complex128 that std's own bits, not sqrt(0.5)'s), rand uniform_ of them; with the
    default generator and a seeded one, the default one's later draws included."""
    assert gradtrace_output(COMPLEX_DRAWS) == torch_output(COMPLEX_DRAWS)


ANGLE_TANGENTS = """import torch
import torch.autograd.forward_ad as fwAD
torch.manual_seed(0)
z = torch.randn(9, dtype=torch.cfloat); z[3] = 0
tz = torch.randn(9, dtype=torch.cfloat)
x = torch.randn(5); tx = torch.randn(5)
with fwAD.dual_level():
    a = fwAD.make_dual(z, tz).angle()
    print([v.hex() for v in fwAD.unpack_dual(a).tangent.tolist()])
    b = fwAD.make_dual(x, tx).angle()
    print(fwAD.unpack_dual(b).tangent)
"""


def test_angle_tangents_like_torch() -> None:
    """angle's forward derivative: the real part of where(z == 0, 0, conj(t) * z / |z|^2 *
    1j) for a complex input, zeros for a real one."""
    assert gradtrace_output(ANGLE_TANGENTS) == torch_output(ANGLE_TANGENTS)


NORMS = """import torch
torch.manual_seed(0)
def bits(t):
    t = torch.view_as_real(t) if t.is_complex() else t
    return [x.hex() for x in t.flatten().tolist()]
for dtype in (torch.complex64, torch.complex128):
    for shape, dim in [((1,), None), ((9,), None), ((17,), -1), ((40,), 0), ((3, 21), -1),
                       ((21, 3), 0), ((4, 5), None), ((20, 1), -1), ((2, 3, 4), (0, 2))]:
        for ord in (1, 2, float('inf'), 3, 0.5):
            z = (torch.randn(*shape, dtype=dtype) * 3).requires_grad_()
            y = torch.linalg.vector_norm(z, ord=ord, dim=dim)
            y.backward(torch.rand_like(y))
            print(shape, dim, ord, y.dtype, y.grad_fn.name(), bits(y), bits(z.grad))
    m = torch.randn(6, 5, dtype=dtype)
    for view in (m.t(), m[:, ::2]):
        print(bits(torch.linalg.vector_norm(view, dim=0)), bits(view.norm(p=1, dim=1)))
w = torch.randn(3, 4, dtype=torch.complex64)
print(torch.linalg.norm(w), w.norm(), torch.norm(w, p=1, dim=1), torch.linalg.norm(w, dim=-1),
      torch.linalg.norm(w, ord=1), torch.linalg.norm(w, ord=float('inf')),
      torch.linalg.norm(w, keepdim=True, dim=(0, 1)),
      torch.linalg.norm(torch.zeros(3, dtype=torch.complex64)))
z = torch.zeros(4, dtype=torch.complex64, requires_grad=True)
torch.linalg.vector_norm(z).backward()
print(z.grad)
"""


def test_vector_norms_and_their_gradients_like_torch() -> None:
    """Vector norms of complex tensors (linalg.vector_norm, linalg.norm, Tensor.norm,
    torch.norm): glibc's hypot per element, accumulated one after another in the real
    type (the 2-norm's squares rounded, never fused, with no vectorised last-dim path),
    |z| by abs_kernel where every reduced dim has size 1; the gradients are norm_backward's
    (sgn(z) * grad, grad * z / norm masked at 0, ...), bit for bit."""
    assert gradtrace_output(NORMS) == torch_output(NORMS)


KEYWORDS = """import torch
a, b = torch.tensor([1., 2.]), torch.tensor([3., -4.])
print(torch.complex(real=a, imag=b), torch.complex(a, imag=b), torch.polar(abs=a, angle=b),
      torch.polar(a, angle=b))
for f in (lambda: torch.complex(re=a, im=b), lambda: torch.polar(r=a, theta=b)):
    try:
        f()
    except TypeError as e:
        print(str(e).splitlines()[0])
"""


def test_complex_and_polar_take_torchs_keywords() -> None:
    """torch.complex(real=, imag=) and torch.polar(abs=, angle=), as PyKEEN's view_complex
    calls them; other names are torch's TypeError."""
    assert gradtrace_output(KEYWORDS) == torch_output(KEYWORDS)
