"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 39
(reinforcement learning in plain torch) found: losses of a float32 prediction against a
float64 target (nikhilbarhate99's PPO normalises returns made from the environment's numpy
float64 rewards and takes nn.MSELoss of float32 state values against them), whose backward
TensorIterators promote to the common dtype (mse_loss, smooth_l1_loss, soft_margin_loss) or
refuse mixed dtypes (huber_loss, whose forward casts into a loss of the input's dtype);
torch.tensor's "list of numpy.ndarrays" warning, a TORCH_WARN_ONCE shown once per run
(minimalRL's replay buffers build several tensors from such lists on different lines); the
legacy Variable constructor's flags, which ikostrikov's TRPO passes as
`Variable(states, volatile=False)` (no warning in torch); np.copyto and np.append, which
the replay buffers of pytorch_sac and Spinning Up call; np.array(tensor, copy=False),
which numpy 2 refuses (RL-Adventure's prioritized replay buffer); and deques, which numpy
and torch.tensor read as sequences (Udacity's `np.mean(scores_deque)`).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output, torch_outputs_in_child

torch = pytest.importorskip("torch")


MIXED_DTYPE_LOSSES = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
for reduction in ["mean", "sum", "none"]:
    for fn in [F.mse_loss, F.huber_loss, F.smooth_l1_loss, F.soft_margin_loss, F.l1_loss]:
        for da, db in [(torch.float32, torch.float64), (torch.float64, torch.float32)]:
            x = torch.randn(2, 5, dtype=da, requires_grad=True)
            y = torch.randn(2, 5, dtype=db)
            if fn is F.soft_margin_loss:
                y = y.sign()
            out = fn(x, y, reduction=reduction)
            print(fn.__name__, reduction, da, out.dtype, out.sum().item())
            try:
                out.sum().backward()
                print("  grad", x.grad.dtype, x.grad.tolist())
            except RuntimeError as e:
                print("  ", type(e).__name__, e)
x = torch.randn(4, requires_grad=True)
y = torch.randn(4, dtype=torch.float64, requires_grad=True)
l = F.mse_loss(x, y)
l.backward()
print(x.grad.tolist(), y.grad.tolist(), y.grad.dtype)
l = F.huber_loss(y, x, delta=0.5)
print(l.dtype, l.item())
try:
    l.backward()
except RuntimeError as e:
    print(e)
g, = torch.autograd.grad(F.mse_loss(x, y.detach()), x, create_graph=True)
print(g.tolist(), g.grad_fn.name())
g.sum().backward()
print(x.grad.tolist())
"""


def test_losses_of_a_float32_input_and_float64_target_round_as_torch() -> None:
    """mse_loss_backward, smooth_l1_loss_backward and soft_margin_loss_backward compute in
    the inputs' common dtype (norm as a double) and cast into grad_input, zeros_like(self);
    huber_loss casts its promoted values into a loss of self's dtype, and its backward's
    TensorIterator refuses the mixed dtypes ("Found dtype Double but expected Float")."""
    assert gradtrace_output(MIXED_DTYPE_LOSSES) == torch_output(MIXED_DTYPE_LOSSES)


LIST_OF_ARRAYS_WARNING = """import warnings
import numpy as np
import torch
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    a = torch.tensor([np.zeros(2), np.ones(2)])
    b = torch.tensor([np.ones(3, dtype=np.float32)], dtype=torch.float)
    for i in range(2):
        c = torch.tensor([np.arange(2)] * 2)
    print(a, b, c)
    for w in seen:
        print(w.category.__name__, str(w.message)[:60])
"""


def test_list_of_ndarrays_warning_is_shown_once_per_run() -> None:
    """torch.tensor of a list of numpy arrays warns once per process (TORCH_WARN_ONCE), not
    once per line of the script, even under an "always" filter."""
    torch_stdout, _ = torch_outputs_in_child({"warn": LIST_OF_ARRAYS_WARNING})["warn"]
    assert gradtrace_output(LIST_OF_ARRAYS_WARNING) == torch_stdout


VARIABLE_FLAGS = """import warnings
import torch
from torch.autograd import Variable
x = torch.ones(2)
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    for v in [False, True, 0, 1, 2, 255, 256, -1, None, 0.5, "a"]:
        try:
            y = Variable(x, volatile=v)
            print(repr(v), y.requires_grad, len(seen))
        except Exception as e:
            print(repr(v), type(e).__name__, e)
    for r in [0, 1, None, 0.5, 300]:
        try:
            y = Variable(x, requires_grad=r)
            print("rg", repr(r), y.requires_grad, y.is_leaf)
        except Exception as e:
            print("rg", repr(r), type(e).__name__, e)
    try:
        Variable([1.0], volatile=None)
    except Exception as e:
        print(type(e).__name__, e)
    y = Variable(x, False, True)
    print(len(seen), [str(w.message) for w in seen][:1])
"""


def test_variable_reads_its_flags_as_unsigned_bytes_and_warns_only_when_volatile() -> None:
    """torch's legacy Variable constructor parses requires_grad and volatile with
    PyArg's "b" format (an integer from 0 to 255, TypeError or OverflowError otherwise,
    before it looks at the data) and warns that volatile was removed only when it is true:
    the TRPO code's get_loss(volatile=False) passes False and torch stays silent."""
    assert gradtrace_output(VARIABLE_FLAGS) == torch_output(VARIABLE_FLAGS)


NUMPY_COPYTO = """import numpy as np
import torch
a = np.empty((3, 2), dtype=np.float32)
a[:] = 0
np.copyto(a[1], np.array([1.5, 2.5]))
np.copyto(a[2], True)
print(a, a.dtype)
b = np.zeros(3)
print(np.copyto(b, 7), b)
np.copyto(b, [1, 2, 3], where=[True, False, True])
print(b)
t = torch.zeros(3)
n = t.numpy()
np.copyto(n, np.arange(3))
print(t, t._version)
c = np.zeros(2, dtype=np.int64)
for args in [(c, np.array([1.5, 2.5])), ([1, 2], c), (c, np.ones(3)), (c, np.ones(2), "unsafe"),
             (t, 1), (c, t), (None, 1)]:
    try:
        print(np.copyto(*args), c)
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_numpy_copyto_writes_into_its_destination() -> None:
    """np.copyto (denisyarats/pytorch_sac's replay buffer fills np.empty rows with it)
    writes into the destination array, a row view or a tensor's numpy() alike, with
    numpy's casting rule and errors; a tensor is no destination."""
    assert gradtrace_output(NUMPY_COPYTO) == torch_output(NUMPY_COPYTO)


NUMPY_APPEND = """import numpy as np
import torch
a = np.arange(3, dtype=np.float32)
print(np.append(a, 2.5), np.append(a, 2.5).dtype, np.append(a, np.float32(1)).dtype)
print(np.append([[1, 2], [3, 4]], [[5, 6]], axis=0), np.append([1], [[2, 3]]))
print(np.append(a, torch.tensor([7.0])), np.append(a, [True]))
try:
    print(np.append([[1, 2]], [3], 0))
except ValueError as e:
    print(e)
"""


def test_numpy_append_flattens_or_concatenates() -> None:
    """np.append (Spinning Up's PPOBuffer.finish_path appends the bootstrap value to the
    rewards and values of a path) flattens both without an axis, and concatenates with
    one, numpy's dtype and error."""
    assert gradtrace_output(NUMPY_APPEND) == torch_output(NUMPY_APPEND)


ARRAY_OF_TENSOR_COPY = """import warnings
import numpy as np
import torch
warnings.simplefilter("always")
for kw in [dict(copy=False), dict(copy=True), dict(copy=0), dict(copy=1), dict(copy=None), dict()]:
    for name, f in [("array", np.array), ("asarray", np.asarray)]:
        for t in [torch.arange(3.), torch.tensor(2), torch.ones(2, requires_grad=True)]:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                try:
                    a = f(t, **kw)
                    print(name, kw, a, a.dtype, len(seen))
                except Exception as e:
                    print(name, kw, type(e).__name__, e, len(seen))
"""


def test_numpy_array_of_a_tensor_with_copy_false_is_refused_as_numpy_2_refuses_it() -> None:
    """numpy 2 hands a copy other than None to __array__, which torch's Tensor.__array__
    does not take: a DeprecationWarning, and for a false copy (RL-Adventure's replay
    buffer calls np.array(action, copy=False) on tensor actions) numpy's ValueError before
    the tensor is converted (so not the requires-grad error); np.asarray's default None
    neither warns nor fails."""
    assert gradtrace_output(ARRAY_OF_TENSOR_COPY) == torch_output(ARRAY_OF_TENSOR_COPY)


DEQUES_AS_SEQUENCES = """import numpy as np
import torch
from collections import deque
d = deque(maxlen=3)
for v in [1.5, 2.0, -0.5, 4.0]:
    d.append(v)
print(np.mean(d), np.std(d), np.max(d), np.array(d))
print(np.mean(deque([np.float32(1), np.float32(2)])).dtype)
w = deque([np.zeros(2), np.ones(2)])
print(np.stack(w), np.vstack(w).shape, np.concatenate(w))
e = deque([1, 2, 3, 4, 5])
np.random.seed(0)
np.random.shuffle(e)
print(e, np.sum(deque()), np.asarray(deque([[1, 2], [3, 4]])))
returns = deque(maxlen=5)
for r in [1.0, 0.5, 0.25]:
    returns.appendleft(r)
t = torch.tensor(returns)
print(t, t.dtype, (t - t.mean()) / (t.std() + 1e-8))
print(torch.tensor(deque([[1, 2], [3, 4]])), torch.as_tensor(deque([1, 2])))
print(torch.Tensor(deque([1.5])))
print(torch.tensor([deque([1.0, 2.0]), deque([3.0, 4.0])]), torch.FloatTensor(deque([1, 2])))
try:
    torch.tensor(deque([[1, 2], [3]]))
except ValueError as err:
    print(err)
"""


def test_deques_are_sequences_to_numpy_and_torch_tensor() -> None:
    """A deque is a sequence to numpy (`np.mean(scores_window)` over the last 100 scores,
    np.random.shuffle in place) and to torch.tensor's PySequence_Check (the Hugging Face
    course's REINFORCE builds its returns with appendleft, then torch.tensor(returns))."""
    assert gradtrace_output(DEQUES_AS_SEQUENCES) == torch_output(DEQUES_AS_SEQUENCES)


SELF_REFERENTIAL = """import torch
from collections import deque
l = []
l.append(l)
d = deque()
d.append(d)
n = 1.0
for i in range(129):
    n = [n]
for data in [l, d, n, [d], deque([l])]:
    for kw in [{}, {"dtype": torch.float32}]:
        try:
            print(torch.tensor(data, **kw).dim())
        except Exception as e:
            print(type(e).__name__, e)
"""


def test_tensor_of_a_sequence_holding_itself_stops_at_128_dimensions() -> None:
    """torch.tensor's compute_sizes walks the first items and stops past 128 dimensions
    with "too many dimensions", naming the sequence's type as Python does
    (`collections.deque`); gradtrace walked a list or deque holding itself forever."""
    assert gradtrace_output(SELF_REFERENTIAL) == torch_output(SELF_REFERENTIAL)
