"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 84
(audio signal processing in plain torch: auraloss's RandomResolutionSTFTLoss draws its
window by name from hann/bartlett/blackman/hamming/kaiser) found:

- torch.kaiser_window was missing: ATen's kaiser_window_kernel, element by element in
  opmath (float for float16), i0(beta sqrt|1 - x*x|) / i0(beta) with
  x = (n - alpha) / alpha and GCC's fma for 1 - x*x; bit for bit in float32, float64 and
  float16 (bfloat16 stays refused, as for the other windows).
- torch.i0 of float64 (calc_i0's std::exp) used numpy's exp, which differs from glibc's
  exp in the last bit for about 5% of values; it now calls glibc's.
- torch.istft / Tensor.istft were missing (torchaudio's inverse_spectrogram and griffinlim):
  ATen's composite (view_as_real, transpose, view_as_complex, _fft_c2r or _fft_c2c, the
  window, unfold_backward overlap-add, the squared-window envelope, its NOLA check and the
  length padding), with torch's graph, errors and two TORCH_WARN_ONCEs.
- their arguments are parsed as torch's parser does (gradtrace/torch_signatures.json: the
  signatures recorded from torch 2.13 for torch.kaiser_window and torch.istft, and
  torch.functional.istft as torch.istft itself), with torch's TypeErrors.
- F.pad of a complex tensor was refused (torchaudio's phase_vocoder pads a complex
  spectrogram): padding copies values, exact in every mode.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")
from test_ops_torch_diff import check_case  # noqa: E402

SIG = "sig = C.reshape(-1)\nhw = torch.hann_window(8)\n"
ISTFT = [
    SIG + "spec = torch.stft(sig, 8, 2, window=hw, return_complex=True)\n"
    "out = torch.istft(spec, 8, 2, window=hw)",
    SIG + "win = torch.cat([w, w, w[:2]])\n"
    "spec = torch.stft(sig, 8, 2, window=win, return_complex=True)\n"
    "out = torch.istft(spec, 8, 2, window=win, normalized=True)",
    SIG + "spec = torch.stft(sig.reshape(2, -1), 8, 2, window=hw, return_complex=True)\n"
    "out = torch.istft(spec, 8, 2, window=hw, length=25)",
    SIG + "spec = torch.stft(sig.reshape(2, -1), 8, 2, window=hw, return_complex=True)\n"
    "out = torch.istft(spec, 8, 2, window=hw, length=40)",
    SIG + "spec = torch.stft(sig, 8, 2, 6, window=torch.hann_window(6), return_complex=True)\n"
    "out = torch.istft(spec, 8, 2, 6, window=torch.hann_window(6))",
    SIG + "spec = torch.stft(sig, 8, 2, window=hw, onesided=False, return_complex=True)\n"
    "out = torch.istft(spec, 8, 2, window=hw, onesided=False)",
    SIG + "z = torch.view_as_complex(torch.stack([sig, sig.flip(0)], -1))\n"
    "spec = torch.stft(z, 8, 2, window=hw, return_complex=True)\n"
    "out = torch.istft(spec, 8, 2, window=hw, return_complex=True)",
    SIG + "spec = torch.stft(sig, 8, 4, window=torch.ones(8), return_complex=True)\n"
    "out = torch.istft(spec, 8, 4)",
    SIG + "spec = torch.stft(sig, 8, 2, window=torch.ones(8), center=False, "
    "return_complex=True)\nout = torch.istft(spec, 8, 2, window=torch.ones(8), center=False)",
    SIG + "spec = torch.stft(sig, 8, 2, window=hw, center=False, return_complex=True)\n"
    "out = torch.istft(spec, 8, 2, window=hw, center=False)",
    SIG + "h64 = hw.to(torch.float64)\n"
    "spec = torch.stft(sig.to(torch.float64), 8, 2, window=h64, return_complex=True)\n"
    "out = spec.istft(8, 2, window=h64, length=50)",
    SIG + "spec = torch.stft(sig, 8, 2, window=hw, return_complex=True)\n"
    "out = torch.istft(spec.conj(), 8, 2, window=hw)",
    SIG + "out = torch.istft(sig, 8)",
    SIG + "spec = torch.stft(sig, 8, 2, window=hw, return_complex=True)\n"
    "out = torch.istft(spec, 10, 2, window=hw)",
    SIG + "spec = torch.stft(sig, 8, 2, window=hw, return_complex=True)\n"
    "out = torch.istft(spec, 8, 6, 4)",
    SIG + "spec = torch.stft(sig, 8, 2, window=hw, return_complex=True)\n"
    "out = torch.istft(spec, 8, 2, window=torch.ones(4))",
    SIG + "spec = torch.stft(sig, 8, 2, window=hw, return_complex=True)\n"
    "out = torch.istft(spec, 8, 2, window=hw, return_complex=True)",
    SIG + "spec = torch.stft(sig, 8, 2, window=hw, return_complex=True)\n"
    "out = torch.istft(spec[:, :0], 8, 2, window=hw)",
    SIG + "spec = torch.stft(sig, 8, 2, window=hw, return_complex=True)\n"
    "out = torch.istft(spec[None, None], 8, 2, window=hw)",
]
COMPLEX_PAD = [
    "out = F.pad(torch.view_as_complex(torch.stack([x, y], -1)), (1, 2))",
    "out = F.pad(torch.view_as_complex(torch.stack([B, B * 2], -1)), (0, 2, 1, 0), value=1.5)",
    "out = F.pad(torch.view_as_complex(torch.stack([B, -B], -1)), (2, 1), mode='reflect')",
    "out = F.pad(torch.view_as_complex(torch.stack([B, -B], -1)), (1, 2), mode='replicate')",
    "out = F.pad(torch.view_as_complex(torch.stack([B, -B], -1)), (1, 1), mode='circular')",
    "out = torch.constant_pad_nd(torch.view_as_complex(torch.stack([x, y], -1)), (1, 0), 2.0)",
]


@pytest.mark.parametrize("code", ISTFT + COMPLEX_PAD)
def test_istft_and_complex_pad_match_torch(code: str) -> None:
    check_case(code)


KAISER = """import torch
for dtype in (torch.float32, torch.float64, torch.float16):
    for n in (0, 1, 2, 5, 16, 33):
        for periodic in (True, False):
            for beta in (12.0, 0.5, 8.6, 30.0):
                w = torch.kaiser_window(n, periodic, beta, dtype=dtype)
                print(dtype, n, periodic, beta, w.shape, w.double().tolist())
print(torch.kaiser_window(6))
print(torch.kaiser_window(6, periodic=False, beta=5.0, requires_grad=True))
print(torch.kaiser_window(9, False).sum(), torch.kaiser_window(9, True, 100.0, dtype=torch.float16))
try:
    torch.kaiser_window(4, dtype=torch.int64)
except RuntimeError as e:
    print(e)
try:
    torch.kaiser_window(-1)
except RuntimeError as e:
    print(e)
"""

I0_DOUBLE = """import torch
x = torch.linspace(-40, 40, 2001, dtype=torch.float64)
print(torch.i0(x).tolist())
s = torch.tensor([0.0, 8.0, 700.0, 720.0, float('nan'), float('inf')], dtype=torch.float64)
print(torch.i0(s))
"""


ARGUMENTS = """import torch
z = torch.zeros(5, 4, dtype=torch.cfloat)
calls = [lambda: torch.kaiser_window(8, beta=5.0), lambda: torch.kaiser_window(8, periodic=False),
         lambda: torch.kaiser_window(8, False, beta=3.0),
         lambda: torch.kaiser_window(window_length=4),
         lambda: torch.istft(z, 8, foo=1), lambda: torch.istft(z, "8"),
         lambda: torch.istft(z, n_fft="8"), lambda: torch.istft(z, 8, 2.5),
         lambda: torch.functional.istft(z, 8, window=torch.ones(8)).shape]
for call in calls:
    try:
        print(call())
    except Exception as e:
        print(type(e).__name__, e)
"""


@pytest.mark.parametrize("code", [KAISER, I0_DOUBLE, ARGUMENTS],
                         ids=["kaiser_window", "i0_float64", "arguments"])
def test_matches_torch(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from gradtrace.engine import capability
    monkeypatch.setattr(capability, "CAPABILITY", torch.backends.cpu.get_cpu_capability().lower())
    assert gradtrace_output(code) == torch_output(code)
