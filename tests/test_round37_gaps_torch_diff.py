"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 37
(autograd as a tool: saliency, integrated gradients, per-example gradients) found: a
module's `__dict__` was refused (cybertronai's autograd-hacks keeps its hook handles by
`model.__dict__.setdefault(...)`), though the bundled Module keeps torch's attributes; and
torch.tensor(ndarray) keeps a dense array's own strides, a size-1 dimension's included
(TianhongDai's integrated gradients transpose an HWC image to CHW in numpy and expand it to
a batch of one, whose N stride then says the tensor is not channels-last, so torch's
convolution runs its row-major kernels; gradtrace took numpy's copy strides, called it
channels-last and ran those kernels, whose float32 bits differ).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


NUMPY_STRIDES = """import numpy as np
import torch
a = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
hwc = np.arange(4 * 5 * 3, dtype=np.float64).reshape(4, 5, 3)
cases = [a, np.transpose(a, (0, 2, 3, 1)), np.expand_dims(np.transpose(hwc, (2, 0, 1)), 0),
         np.array(np.expand_dims(np.transpose(hwc, (2, 0, 1)), 0)), a[:, ::2], a[..., 1:3],
         np.transpose(a, (3, 2, 1, 0)), a[:1].transpose(0, 3, 1, 2)]
for c in cases:
    for dt in (None, torch.float32, torch.float64):
        t = torch.tensor(c) if dt is None else torch.tensor(c, dtype=dt)
        u = torch.as_tensor(c, dtype=torch.float32)
        print(c.shape, dt, t.stride(), u.stride(), t.is_contiguous(),
              t.is_contiguous(memory_format=torch.channels_last))
"""


def test_tensor_of_a_numpy_array_keeps_its_strides_as_torch() -> None:
    """torch.tensor and torch.as_tensor with a new dtype copy an array by `.to` with
    preserve_format: a dense array's exact strides (a size-1 dimension's too, which
    decides whether it is channels-last), a sliced one's dense strides in the same order."""
    assert gradtrace_output(NUMPY_STRIDES) == torch_output(NUMPY_STRIDES)


HWC_BATCH = """import numpy as np
import torch
img = np.arange(6 * 6 * 3, dtype=np.float64).reshape(6, 6, 3) / 100
obs = np.array(np.expand_dims(np.transpose(img, (2, 0, 1)), 0))
t = torch.tensor(obs, dtype=torch.float32, requires_grad=True)
print(t.stride(), t.is_contiguous(memory_format=torch.channels_last))
print(torch.nn.functional.conv2d(t, torch.ones(2, 3, 3, 3)).stride())
"""


def test_batch_of_one_from_a_transposed_image_is_not_channels_last_as_torch() -> None:
    """A batch of one made from an HWC image by transpose and expand_dims: torch keeps the
    N stride numpy gave it (a row's), so the tensor is neither contiguous nor channels-last
    and a convolution's output is row-major."""
    assert gradtrace_output(HWC_BATCH) == torch_output(HWC_BATCH)


MODULE_DICT = """import torch
import torch.nn as nn
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Linear(4, 2))
handles = [layer.register_forward_hook(lambda *a: None) for layer in model.modules()
           if layer.__class__.__name__ in ('Linear', 'Conv2d')]
model.__dict__.setdefault('autograd_hacks_hooks', []).extend(handles)
print(len(model.autograd_hacks_hooks), model.__dict__ is vars(model))
print(list(model.__dict__)[-3:], list(model[2].__dict__))
model[2].__dict__['note'] = 'set through the dict'
print(model[2].note, hasattr(model[2], 'note'), 'weight' in model[2].__dict__)
del model.__dict__['autograd_hacks_hooks']
print(hasattr(model, 'autograd_hacks_hooks'), model[0].__dict__['training'])
model.eval()
print(model[0].__dict__['training'], model.__dict__['_modules'].keys())
"""


def test_a_modules_dict_is_its_live_attributes_as_torch() -> None:
    """`module.__dict__` (and vars(module)) is the live dict of the module's own
    attributes, Module.__init__'s tables first: autograd-hacks keeps its hook handles by
    `model.__dict__.setdefault(...)`; parameters stay in `_parameters`, not in it."""
    assert gradtrace_output(MODULE_DICT) == torch_output(MODULE_DICT)
