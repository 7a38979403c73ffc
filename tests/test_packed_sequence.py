"""torch.nn.utils.rnn's packing and the recurrent layers over packed data: float64
finite-difference checks (first and second order) of _pack_padded_sequence's node and of
packed LSTM/GRU/RNN layers run by the bundled library. Printing, graphs, values and errors
against torch are the recorded cases tests/conformance_extra/nn_packed_sequence.gt and
tests/conformance_realworld/{docstr_rnn_utils_packing,so_why_pack_sequences_lstm}.gt."""
from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import gradcheck, gradgradcheck

from gradtrace.engine.ops import rnn
from gradtrace.engine.tensor import Tensor
from gradtrace.runner import run_text


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("check", [gradcheck, gradgradcheck])
def test_pack_padded_sequence_derivatives(batch_first, check):
    rng = np.random.default_rng(5)
    x = Tensor(rng.standard_normal((4, 3, 2) if not batch_first else (3, 4, 2)),
               requires_grad=True)
    lengths = Tensor(np.array([4, 2, 1]))
    assert check(lambda t: rnn.pack_padded_sequence(t, lengths, batch_first)[0], [x])


LAYERS = ["nn.LSTM(2, 3, bidirectional=True)", "nn.GRU(2, 3, num_layers=2)",
          "nn.RNN(2, 3, nonlinearity='relu')", "nn.LSTM(2, 3, proj_size=2)"]


@pytest.mark.parametrize("layer", LAYERS)
def test_packed_layer_passes_torchs_gradcheck_and_gradgradcheck(layer):
    """The script's own torch.autograd.gradcheck/gradgradcheck, in float64, through
    pack_padded_sequence (unsorted), the packed layer and pad_packed_sequence."""
    result = run_text(f"""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
torch.manual_seed(0)
layer = {layer}.double()
def f(x):
    out, _ = layer(pack_padded_sequence(x, [2, 3, 1], enforce_sorted=False))
    return pad_packed_sequence(out)[0]
x = torch.randn(3, 3, 2, dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(f, (x,)), torch.autograd.gradgradcheck(f, (x,)))
""")
    assert result.error is None, result.error
    assert result.stdout == "True True\n"


def test_packed_sequence_has_the_namedtuple_fields_and_asdict():
    # torch's PackedSequence is a namedtuple: its _fields and _asdict() are there too
    result = run_text("""
import torch
from torch.nn.utils.rnn import PackedSequence, pack_sequence
p = pack_sequence([torch.tensor([1., 2.]), torch.tensor([3.])])
print(PackedSequence._fields == p._fields, list(p._asdict()))
print(p._asdict()["batch_sizes"])
""")
    assert result.error is None, result.error
    assert result.stdout == ("True ['data', 'batch_sizes', 'sorted_indices', "
                             "'unsorted_indices']\ntensor([2, 1])\n")
