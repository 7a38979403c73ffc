"""torch.fft against live PyTorch 2.13: every transform (fft, ifft, rfft, irfft and their
2-D and n-D forms, with n/s, dim and each norm; strided and permuted inputs; a real input
to fft filled out by conjugate symmetry), fftfreq, rfftfreq, fftshift and ifftshift, the
gradients through FftR2CBackward0, FftC2RBackward0 and FftC2CBackward0, their saved
attributes and torch's errors, bit for bit: the transforms are MKL's DFT called as torch's
CPU build calls it (engine/mkl_dft.py). Without MKL they are numpy's in double precision,
close to torch's and noted.

Skipped unless torch is importable (the MKL-free test runs anyway).
"""
from __future__ import annotations

import numpy as np
import pytest
from script_runs import address_free, gradtrace_output, torch_output

from gradtrace.engine import mkl
from gradtrace.runner import run_text

TRANSFORMS = """import torch
torch.manual_seed(0)
def show(t):
    if t.dtype.is_complex:
        t = torch.view_as_real(t)
    print(tuple(t.shape), t.flatten().tolist()[:12], t.double().sum().item())
x = torch.randn(3, 10, dtype=torch.float32)
x64 = torch.randn(4, 7, dtype=torch.float64)
img = torch.randn(2, 3, 6, 8)
for norm in [None, "forward", "ortho", "backward"]:
    show(torch.fft.rfft(x, norm=norm))
    show(torch.fft.rfft(x, n=16, norm=norm))
    show(torch.fft.rfft(x, n=5, dim=1, norm=norm))
    show(torch.fft.rfft(x, dim=0, norm=norm))
    show(torch.fft.fft(x, norm=norm))
    show(torch.fft.fft(x64, dim=0, norm=norm))
    show(torch.fft.ifft(torch.fft.fft(x), norm=norm))
    show(torch.fft.irfft(torch.fft.rfft(x), norm=norm))
    show(torch.fft.irfft(torch.fft.rfft(x), n=10, norm=norm))
    show(torch.fft.irfft(torch.fft.rfft(x64), n=9, norm=norm))
    show(torch.fft.rfft2(img, norm=norm))
    show(torch.fft.irfft2(torch.fft.rfft2(img), s=(6, 8), norm=norm))
    show(torch.fft.fft2(img, norm=norm))
    show(torch.fft.ifft2(torch.fft.fft2(img), norm=norm))
    show(torch.fft.fftn(img, dim=(1, 3), norm=norm))
    show(torch.fft.rfftn(img, s=(4, 5), norm=norm))
    show(torch.fft.irfftn(torch.fft.rfftn(img), norm=norm))
    show(torch.fft.fft(img.transpose(1, 3), dim=1, norm=norm))
    show(torch.fft.rfft(img.permute(0, 3, 1, 2), dim=2, norm=norm))
show(torch.fft.fft(torch.arange(6)))
show(torch.fft.fftfreq(7, 0.1))
show(torch.fft.rfftfreq(8, d=0.3))
show(torch.fft.fftfreq(6, dtype=torch.float64))
show(torch.fft.fftshift(torch.arange(12).view(3, 4)))
show(torch.fft.ifftshift(torch.arange(12).view(3, 4), dim=1))
show(torch.fft.fftshift(torch.fft.fft(x), dim=-1))
# gradients
a = torch.randn(2, 12, requires_grad=True)
y = torch.fft.rfft(a, norm="ortho")
(y.real.pow(2).sum() + y.imag.sum() * 3).backward()
show(a.grad)
b = torch.randn(2, 6, 9, requires_grad=True)
z = torch.fft.irfft(torch.fft.rfft(b, dim=1) * 2, n=6, dim=1)
(z * torch.arange(9.)).sum().backward()
show(b.grad)
c = torch.randn(3, 8, requires_grad=True)
w = torch.fft.fft(c)
torch.view_as_real(w).pow(2).sum().backward()
show(c.grad)
d = torch.randn(5, 6, requires_grad=True)
v = torch.fft.irfft2(torch.fft.rfft2(d) * torch.fft.rfft2(torch.ones(5, 6)), s=(5, 6))
v.sin().sum().backward()
show(d.grad)
e = torch.randn(4, 6, requires_grad=True)
u = torch.fft.ifft(torch.fft.fft(e, n=8), norm="forward")
u.abs().sum().backward()
show(e.grad)
print(y.grad_fn, z.grad_fn, w.grad_fn, v.grad_fn, u.grad_fn, u.grad_fn.next_functions)
print(y.grad_fn._saved_dim, y.grad_fn._saved_normalization, y.grad_fn._saved_onesided)
print(z.grad_fn._saved_dim, z.grad_fn._saved_normalization, u.grad_fn._saved_forward)
try:
    torch.fft.rfft(w)
except Exception as err:
    print('torch.fft.rfft(w)', type(err).__name__, err)
try:
    torch.fft.rfft(x, n=0)
except Exception as err:
    print('torch.fft.rfft(x, n=0)', type(err).__name__, err)
try:
    torch.fft.rfft(x, norm='bad')
except Exception as err:
    print("torch.fft.rfft(x, norm='bad')", type(err).__name__, err)
try:
    torch.fft.rfft(x.half())
except Exception as err:
    print('torch.fft.rfft(x.half())', type(err).__name__, err)
try:
    torch.fft.fftn(x, s=(2,), dim=(0, 1))
except Exception as err:
    print('torch.fft.fftn(x, s=(2,), dim=(0, 1))', type(err).__name__, err)
try:
    torch.fft.rfftn(x, dim=(0, 0))
except Exception as err:
    print('torch.fft.rfftn(x, dim=(0, 0))', type(err).__name__, err)
try:
    torch.fft.irfft(w[:, :1])
except Exception as err:
    print('torch.fft.irfft(w[:, :1])', type(err).__name__, err)
try:
    torch.fft.rfft(torch.tensor(1.))
except Exception as err:
    print('torch.fft.rfft(torch.tensor(1.))', type(err).__name__, err)
"""


def test_transforms_gradients_and_errors_are_torch_s_bit_for_bit() -> None:
    pytest.importorskip("torch")
    assert address_free(gradtrace_output(TRANSFORMS)) == address_free(torch_output(TRANSFORMS))


SPECTRAL_CONV = """import torch
torch.manual_seed(0)
x = torch.randn(2, 3, 16, requires_grad=True)
weight = torch.randn(3, 5) * 0.1
x_ft = torch.fft.rfft(x, dim=-1)
print(x_ft.real.grad_fn, x_ft.real.grad_fn.next_functions, x_ft.imag.grad_fn)
filtered = torch.fft.irfft(torch.complex(x_ft.real[..., :5] * weight,
                                         x_ft.imag[..., :5] * weight), n=16, dim=-1)
loss = filtered.pow(2).mean()
loss.backward()
print(loss.item(), x.grad[0, 0].tolist())
"""


def test_a_spectral_filter_trains_like_torch_and_real_is_a_select_of_view_as_real() -> None:
    """`.real`/`.imag` of a complex tensor are torch's `view_as_real(z).select(-1, i)`:
    SelectBackward0 over ViewAsRealBackward0, as torch's graphs show them."""
    pytest.importorskip("torch")
    assert address_free(gradtrace_output(SPECTRAL_CONV)) == \
        address_free(torch_output(SPECTRAL_CONV))


IFFT_OF_REAL = """import torch
torch.manual_seed(0)
for dt in (torch.float32, torch.float64):
    x = torch.randn(2, 7, dtype=dt, requires_grad=True)
    for kw in ({}, {"n": 10}, {"norm": "ortho"}, {"norm": "forward", "dim": 0}):
        y = torch.fft.ifft(x, **kw)
        print(y.is_conj(), y.grad_fn, y.grad_fn.next_functions, y.stride())
        print(torch.view_as_real(y.resolve_conj()).flatten().tolist())
        x.grad = None
        y.abs().sum().backward()
        print(x.grad.flatten().tolist())
"""


def test_an_inverse_transform_of_a_real_tensor_is_a_conj_view_like_torch() -> None:
    """torch.fft.ifft of a real tensor is fft_r2c(forward=false): the r2c transform scaled
    as the inverse, returned as its conj view (ConjBackward0 over FftR2CBackward0)."""
    pytest.importorskip("torch")
    assert address_free(gradtrace_output(IFFT_OF_REAL)) == address_free(
        torch_output(IFFT_OF_REAL))


N_DIMENSIONAL_OF_REAL = """import torch
torch.manual_seed(3)
x = torch.randn(2, 3, 6, 8, requires_grad=True)
for f in [torch.fft.fft2, torch.fft.ifft2, torch.fft.fftn, torch.fft.ifftn]:
    y = f(x, norm="ortho")
    print(y.grad_fn.name(), [n[0].name() for n in y.grad_fn.next_functions], y.is_conj())
    print([v.hex() for v in torch.view_as_real(y).flatten().tolist()[:40]])
    g, = torch.autograd.grad(torch.view_as_real(y).pow(2).sum() + y.real.sum(), x)
    print([v.hex() for v in g.flatten().tolist()[:40]])
"""


def test_n_dimensional_transforms_of_a_real_tensor_make_it_complex_first_as_torch_does() -> None:
    """fft2/fftn (and ifft2/ifftn) of a real tensor: torch 2.13 converts it to complex
    (ToCopyBackward0) and transforms c2c (FftC2CBackward0), unlike the 1-D fft's r2c
    (FftR2CBackward0). The two algorithms' bits differ on some CPUs."""
    pytest.importorskip("torch")
    assert gradtrace_output(N_DIMENSIONAL_OF_REAL) == torch_output(N_DIMENSIONAL_OF_REAL)


def test_without_mkl_the_transforms_are_numpy_s_in_double_precision_and_noted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(mkl._STATE, "mkl", None)
    monkeypatch.setitem(mkl._STATE, "reason", "not installed (test)")
    result = run_text("import torch\nx = torch.arange(12.).view(3, 4).sin()\n"
                      "y = torch.fft.irfft(torch.fft.rfft2(x, norm='ortho') * 2, n=4)\n"
                      "z = torch.fft.fft(x, dim=0)\n")
    assert result.error is None
    x = np.sin(np.arange(12.0).reshape(3, 4))
    spectrum = np.fft.rfft2(x, norm="ortho") * 2
    y = result.variables["y"].array
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, np.fft.irfft(spectrum, n=4), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(result.variables["z"].array, np.fft.fft(x, axis=0),
                               rtol=1e-5, atol=1e-5)
    assert any("pocketfft" in cause for cause in result.inexact)


STFT = """import torch
torch.manual_seed(0)
def show(t):
    r = torch.view_as_real(t) if t.dtype.is_complex else t
    print(tuple(t.shape), t.stride(), r.flatten().tolist()[:6], r.double().sum().item())
x = torch.randn(40, requires_grad=True)
w = torch.hann_window(16)
s = torch.stft(x, 16, hop_length=4, window=w, return_complex=True)
show(s)
def walk(fn, d=0):
    if fn is None or d > 12:
        return
    print('  ' * d, type(fn).__name__)
    for nf, _ in fn.next_functions:
        walk(nf, d + 1)
walk(s.grad_fn)
mag = torch.sqrt(torch.clamp(s.real ** 2 + s.imag ** 2, min=1e-7))
mag.sum().backward()
show(x.grad)
b = torch.randn(3, 50, requires_grad=True)
s2 = torch.stft(b, 12, hop_length=3, win_length=8, window=torch.hamming_window(8), center=True,
                pad_mode='constant', normalized=True, return_complex=True)
show(s2)
s2.abs().pow(2).mean().backward()
show(b.grad)
s3 = b.stft(16, return_complex=True, onesided=False, center=False)
show(s3)
s4 = torch.stft(b.detach().double(), 10, window=torch.hann_window(10, dtype=torch.float64),
                return_complex=False)
show(s4)
for fn in [lambda: torch.stft(x, 16), lambda: torch.stft(x, 16, hop_length=0, return_complex=True),
           lambda: torch.stft(x, 16, win_length=20, return_complex=True),
           lambda: torch.stft(x, 16, window=torch.ones(5), return_complex=True),
           lambda: torch.stft(x.long(), 16, return_complex=True)]:
    try:
        fn()
    except RuntimeError as err:
        print(err)
"""


def test_stft_values_graph_gradients_and_errors_are_torch_s() -> None:
    """torch.stft/Tensor.stft: center padding (reflect and constant), hop, a window shorter
    than n_fft centred, normalized, one- and two-sided, return_complex=False, the graph
    (ReflectionPad1DBackward0 ... FftR2CBackward0, TransposeBackward1, SqueezeBackward4),
    a magnitude loss's gradient and torch's errors."""
    pytest.importorskip("torch")
    assert gradtrace_output(STFT) == torch_output(STFT)


STRIDED = """import torch
torch.manual_seed(0)
z = torch.randn(6, 9, dtype=torch.cfloat)
for t in [z, z.t().contiguous().t(), z[:, ::2], z[::2], torch.randn(9, 6, dtype=torch.cfloat).t()]:
    r = torch.fft.irfft(t, n=14)
    print(r.stride(), r.flatten().tolist()[:5], r.double().sum().item())
    r2 = torch.fft.irfft(t, dim=0)
    print(r2.stride(), r2.flatten().tolist()[:5], r2.double().sum().item())
    f = torch.fft.fft(t, dim=0)
    print(f.stride(), torch.view_as_real(f).flatten().tolist()[:4])
x = torch.randn(5, 12)
for t in [x, x.t(), x[:, 1::2], x.t().contiguous().t()]:
    f = torch.fft.rfft(t)
    v = torch.view_as_real(f)
    print(f.stride(), v.flatten().tolist()[:4], v.double().sum().item())
    f2 = torch.fft.rfft2(t)
    print(f2.stride(), torch.view_as_real(f2).double().sum().item())
"""


def test_transforms_of_strided_inputs_keep_torch_s_bits_and_result_strides() -> None:
    """Transposed, sliced and column-major inputs reach MKL with their own strides (as
    torch's _exec_fft passes them), and results come back with torch's strides."""
    pytest.importorskip("torch")
    assert gradtrace_output(STRIDED) == torch_output(STRIDED)


FORWARD_AD = """import torch
x = torch.linspace(0, 1, 8)
t = torch.linspace(1, 2, 8)
out, tan = torch.func.jvp(lambda a: torch.fft.rfft(a).abs(), (x,), (t,))
print(out, tan)
out, tan = torch.func.jvp(lambda a: torch.fft.irfft(torch.fft.rfft(a) * 2, n=8), (x,), (t,))
print(out, tan)
import torch.autograd.forward_ad as fwAD
with fwAD.dual_level():
    d = fwAD.make_dual(x, t)
    y = torch.fft.fft(d)
    print(torch.view_as_real(fwAD.unpack_dual(y).tangent))
"""


def test_forward_mode_ad_through_the_transforms_is_torch_s() -> None:
    """The transforms are linear (derivatives.yaml: `result: _fft_r2c(self_t, ...)`): jvp
    and dual tensors carry tangents through them with torch's values."""
    pytest.importorskip("torch")
    assert gradtrace_output(FORWARD_AD) == torch_output(FORWARD_AD)


HERMITIAN = """import torch
torch.manual_seed(5)
x = torch.randn(3, 10, requires_grad=True)
z = torch.randn(4, 6, dtype=torch.complex64, requires_grad=True)
x64 = torch.randn(7, dtype=torch.float64)
for norm in [None, "forward", "ortho", "backward"]:
    for y in [torch.fft.ihfft(x, norm=norm), torch.fft.ihfft(x, n=7, dim=0, norm=norm),
              torch.fft.hfft(z, norm=norm), torch.fft.hfft(z, n=7, dim=0, norm=norm),
              torch.fft.hfft(torch.fft.ihfft(x64), n=7, norm=norm)]:
        r = torch.view_as_real(y.resolve_conj()) if y.is_complex() else y
        print(y.grad_fn.name() if y.grad_fn else None, y.is_conj(), tuple(y.shape),
              [v.hex() for v in r.flatten().tolist()[:24]])
        if y.requires_grad:
            g = torch.autograd.grad((r * torch.arange(r.numel()).view(r.shape)).sum(), (x, z),
                                    allow_unused=True)
            print([None if t is None else [v.hex() for v in (
                torch.view_as_real(t.resolve_conj()) if t.is_complex() else t
            ).flatten().tolist()[:12]] for t in g])
print(torch.fft.ihfft(torch.arange(5)).dtype, torch.fft.hfft(torch.ones(3)).dtype)
for call in [lambda: torch.fft.ihfft(z), lambda: torch.fft.hfft(z, n=0),
             lambda: torch.fft.ihfft(x, norm="x"), lambda: torch.fft.hfft(z, dim=2)]:
    try:
        call()
    except Exception as err:
        print(type(err).__name__, err)
"""


def test_hermitian_transforms_are_torch_s_bit_for_bit() -> None:
    """torch.fft.hfft (fft_c2r with forward=true: the c2r transform of the input's conj
    view) and ihfft (fft_r2c with forward=false: the one-sided r2c's conj view): values,
    nodes, gradients and errors."""
    pytest.importorskip("torch")
    assert gradtrace_output(HERMITIAN) == torch_output(HERMITIAN)
