"""mkldnn_rnn_layer: one layer and direction of a float32 LSTM on the CPU, the op torch 2.13
records as MkldnnRnnLayerBackward0 (aten/src/ATen/native/mkldnn/RNN.cpp).

torch runs `nn.LSTM` on float32 CPU tensors through oneDNN (`use_mkldnn`: float32, CPU,
no projections) one layer and direction at a time; every other RNN (float64, GRU, RNN,
the cells) is decomposed into aten ops (addmm, sigmoid_, tanh_, ...), which the library
(lib/torch/_VF.gt) records op for op. The forward is oneDNN's, step for step: the gates'
products as its RNN primitive computes them (engine/onednn_sgemm.py: the `ref` primitive's
no-copy GEMM with grad mode on, the `brgemm` primitive's chained products with it off), the
bias added, then its JIT post-GEMM kernel (jit_uni_lstm_cell_postgemm_fwd): the sigmoid and
tanh injectors (engine/onednn.py), c = fma(i, g, f * c_prev), h = o * tanh(c). The backward
is oneDNN's backward primitive's, step for step (`_backward_through_time`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import capability, exactness, onednn, onednn_sgemm
from ..formulas import vjp
from ..fp32 import fma
from ..grad_mode import GRAD_MODE
from ..limits import reserve
from ..node import Function
from ..tensor import Tensor

LSTM_MODE = 2  # ideep::rnn_kind::LSTM, torch's `mode` argument

ONEDNN_AVX512_CAUSE = ("LSTM through oneDNN's AVX-512 kernels (mkldnn_rnn_layer): their "
                       "products' orders are not reproduced (its AVX2 kernels are)")
_BPTT = ("mkldnn_rnn_layer_backward({input}, {weight0}, {weight1}, {weight2}, {weight3}, {hx_}, "
         "{cx_}, {result0}, {result1}, {result2}, {grad}, {reverse}, {result3})[{i}]")


class MkldnnRnnLayerBackward0(Function):
    """An LSTM layer (one direction): gates i, f, g, o = split(x·W_ihᵀ + h·W_hhᵀ + b_ih +
    b_hh); c' = σ(f)·c + σ(i)·tanh(g); h' = σ(o)·tanh(c'). Outputs (output, hy, cy)."""

    __slots__ = ()
    no_forward_ad = "mkldnn_rnn_layer"  # torch has no forward-mode formula (measured)
    multi_output = True
    formulas = tuple(vjp(name, _BPTT.replace("{i}", str(i))) for i, name in enumerate(
        ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_")))

    def forward(self, input: Tensor, w0: Tensor, w1: Tensor, w2: Tensor,  # noqa: A002
                w3: Tensor, hx: Tensor, cx: Tensor, *, reverse: bool, hidden_size: int,
                num_layers: int, has_biases: bool, bidirectional: bool, batch_first: bool,
                train: bool) -> list[np.ndarray]:
        x = input.array  # time-major: torch transposes a batch_first input before the layer
        if x.ndim != 3:
            raise TorchRuntimeError(f"mkldnn_rnn_layer: expected a 3-D input, got {x.ndim}-D")
        steps, batch, _ = x.shape
        reserve((steps, batch, 6 * hidden_size), 4)
        if onednn.AVX512_CORE:
            exactness.note(ONEDNN_AVX512_CAUSE)
        bias = w2.array + w3.array if has_biases else np.zeros(w0.array.shape[0], x.dtype)
        gates, cells, hs = self._run(x, w0.array, w1.array, bias, hx.array,
                                     cx.array, reverse, GRAD_MODE.enabled)
        self.save_attr(batch_first=batch_first, batch_sizes=(), bidirectional=bidirectional,
                       has_biases=has_biases, hidden_size=hidden_size, mode=LSTM_MODE,
                       num_layers=num_layers, reverse=reverse, train=train)
        for key, t in (("input", input), ("weight0", w0), ("weight1", w1), ("weight2", w2),
                       ("weight3", w3), ("hx_", hx), ("cx_", cx)):
            self.save(key, t)
        # gradtrace's workspace: the activated gates and the cell states of every step
        # (oneDNN's own workspace has another layout and size)
        self.save("result3", Tensor._wrap(np.concatenate([gates.ravel(), cells.ravel()])),
                  is_output=True)
        return [hs, hs[-1 if not reverse else 0].copy(), cells[-1].copy()]

    def after_forward(self, outs: list[Tensor]) -> None:
        for i, out in enumerate(outs):
            self.save(f"result{i}", out, is_output=True)

    @staticmethod
    def _run(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, bias: np.ndarray,
             h: np.ndarray, c: np.ndarray, reverse: bool, training: bool
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Forward over time as oneDNN runs it (`training`: grad mode on, its `ref`
        primitive; else its `brgemm` one): activated gates (T, B, 4H), cell states (T, B, H)
        in the order they were computed, hidden outputs (T, B, H) in input order."""
        steps, batch, features = x.shape
        hidden = w_hh.shape[1]
        threads = capability.num_threads()
        gates = np.empty((steps, batch, 4 * hidden), x.dtype)
        cells = np.empty((steps, batch, hidden), x.dtype)
        hs = np.empty((steps, batch, hidden), x.dtype)
        exact = x.dtype == np.float64  # (torch's op is float32's; float64 checks gradients)
        order = range(steps - 1, -1, -1) if reverse else range(steps)
        seq = (x[::-1] if reverse else x).reshape(steps * batch, features)  # in run order
        if exact:
            layer = None
        elif not training:  # per-element chains: one call gives every step's
            layer = onednn_sgemm.chained(w_ih, seq).reshape(steps, batch, 4 * hidden)
        elif batch < 128:  # merge_gemm_layer: one product for every step, the steps in
            # the order they run (a reversed direction's workspace)
            layer = onednn_sgemm.sgemm(w_ih, seq, None, threads).reshape(
                steps, batch, 4 * hidden)
        for k, t in enumerate(order):
            if exact:
                pre = x[t] @ w_ih.T + h @ w_hh.T
            elif not training and features == hidden and batch > 1:  # one batch-reduce
                pre = onednn_sgemm.chained(w_hh, h, layer[k])
            elif not training:
                pre = layer[k] + onednn_sgemm.chained(w_hh, h)
            elif batch < 128:
                pre = onednn_sgemm.sgemm(w_hh, h, layer[k], threads)
            else:
                pre = onednn_sgemm.sgemm(w_hh, h, onednn_sgemm.sgemm(w_ih, x[t], None, threads),
                                         threads)
            pre += bias
            i, f, g, o = np.split(pre, 4, axis=1)
            if exact:
                i, f, o = (1 / (1 + np.exp(-v)) for v in (i, f, o))
                g = np.tanh(g)
                c = f * c + i * g
                h = o * np.tanh(c)
            else:  # (one call per injector: every gate's sigmoid, elementwise alike)
                sig = onednn.logistic(pre)
                i, f, o = sig[:, :hidden], sig[:, hidden:2 * hidden], sig[:, 3 * hidden:]
                g = onednn.tanh(g)
                c = fma(i, g, c * f)
                h = o * onednn.tanh(c)
            gates[k] = np.concatenate([i, f, g, o], axis=1)
            cells[k] = c
            hs[t] = h
        return gates, cells, hs

    def backward(self, *grads: Tensor) -> tuple[Tensor | None, ...]:
        if GRAD_MODE.enabled:  # create_graph: derivatives.yaml's differentiable backward
            outs = differentiable_backward(self, *grads)
            return tuple(o if self.needs_input_grad(i) else None for i, o in enumerate(outs))
        attrs = self.attrs
        reverse = attrs["reverse"]
        x = self.unpack("input").array
        w_ih, w_hh = self.unpack("weight0").array, self.unpack("weight1").array
        h0, c0 = self.unpack("hx_").array, self.unpack("cx_").array
        steps, batch, _ = x.shape
        hidden = w_hh.shape[1]
        work = self.unpack("result3").array
        gates = work[:steps * batch * 4 * hidden].reshape(steps, batch, 4 * hidden)
        cells = work[steps * batch * 4 * hidden:].reshape(steps, batch, hidden)
        hs = self.unpack("result0").array
        if onednn.AVX512_CORE and x.dtype == np.float32:
            exactness.note(ONEDNN_AVX512_CAUSE)
        dx, dw_ih, dw_hh, db, dh, dc = _backward_through_time(
            x, w_ih, w_hh, h0, c0, gates, cells, hs, grads[0].array, grads[1].array,
            grads[2].array, reverse)
        wrap = Tensor._wrap
        need = self.needs_input_grad
        return (wrap(dx) if need(0) else None,
                wrap(dw_ih) if need(1) else None, wrap(dw_hh) if need(2) else None,
                wrap(db.copy()) if need(3) else None, wrap(db.copy()) if need(4) else None,
                wrap(dh) if need(5) else None, wrap(dc) if need(6) else None)


def _backward_through_time(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, h0: np.ndarray,
                           c0: np.ndarray, gates: np.ndarray, cells: np.ndarray,
                           hs: np.ndarray, g_out: np.ndarray, dh: np.ndarray, dc: np.ndarray,
                           reverse: bool) -> tuple[np.ndarray, ...]:
    """oneDNN's LSTM backward (ref_rnn_bwd) step for step: per step, from the last run,
    jit_uni_lstm_cell_postgemm_bwd's gate gradients (each `v - v²` and `1 - v²` one fused
    multiply-add), the previous hidden state's gradient (a product with W_hh), the bias
    gradient added row by row (gates_reduction); then the products merged over the steps:
    the input gradient, W_ih's gradient, and W_hh's (left to right: over the steps after the
    first plus the first's, whose h0 oneDNN reads from the caller's memory; right to left:
    over every step, h0 copied into its workspace). Measured bit for bit
    against torch 2.13 as an AVX2 machine. float64 (gradient checks) takes the same formulas
    with exact products. Returns dx, dW_ih, dW_hh, db, dh0, dc0."""
    steps, batch, features = x.shape
    hidden = w_hh.shape[1]
    one = x.dtype.type(1)
    threads = capability.num_threads()
    if x.dtype == np.float32:
        tanh = onednn.tanh

        def less_square(v: np.ndarray, start: Any) -> np.ndarray:
            return fma(-v, v, start)

        def product(a: np.ndarray, bt: np.ndarray, c: np.ndarray | None = None,
                    trans_b: bool = False) -> np.ndarray:
            return onednn_sgemm.sgemm(np.ascontiguousarray(a), np.ascontiguousarray(bt), c,
                                      threads, trans_b)
    else:
        tanh = np.tanh

        def less_square(v: np.ndarray, start: Any) -> np.ndarray:
            return start - v * v

        def product(a: np.ndarray, bt: np.ndarray, c: np.ndarray | None = None,
                    trans_b: bool = False) -> np.ndarray:
            return bt @ a.T if c is None else c + bt @ a.T
    order = list(range(steps - 1, -1, -1) if reverse else range(steps))
    w_hh_t = np.ascontiguousarray(w_hh.T)  # (the same matrix every step)
    d_gates = np.empty((steps, batch, 4 * hidden), x.dtype)
    db = np.zeros(4 * hidden, x.dtype)
    dc = np.array(dc, x.dtype)
    for k in range(steps - 1, -1, -1):
        t = order[k]
        i, f, g, o = np.split(gates[k], 4, axis=1)
        c_prev = cells[k - 1] if k > 0 else c0
        tc = tanh(cells[k])
        dht = g_out[t] + dh
        dct = dc + less_square(tc, one) * dht * o
        # v - v² for the sigmoid gates, 1 - g² for the tanh one, in one call
        start = gates[k].copy()
        start[:, 2 * hidden:3 * hidden] = one
        slope = less_square(gates[k], start)
        dg = d_gates[k]
        dg[:, :hidden] = slope[:, :hidden] * dct * g
        dg[:, hidden:2 * hidden] = slope[:, hidden:2 * hidden] * dct * c_prev
        dg[:, 2 * hidden:3 * hidden] = slope[:, 2 * hidden:3 * hidden] * (i * dct)
        dg[:, 3 * hidden:] = slope[:, 3 * hidden:] * dht * tc
        dc = dct * f
        dh = product(w_hh_t, dg)
        for row in dg:
            db += row
    flat = d_gates.reshape(steps * batch, 4 * hidden)
    dx = np.empty_like(x)
    dx[order] = product(w_ih.T, flat).reshape(steps, batch, features)
    dw_ih = product(flat.T, x[order].reshape(steps * batch, features).T, trans_b=True).T
    if reverse:  # h0 was copied into the workspace: one product over every step
        h_prev = np.concatenate([h0[None], hs[order[:-1]]]).reshape(steps * batch, hidden)
        dw_hh = product(flat.T, h_prev.T, trans_b=True).T
    else:  # the first step's h0 is read where the caller keeps it: a product of its own
        later = None
        if steps > 1:
            h_prev = hs[order[:-1]].reshape((steps - 1) * batch, hidden)
            later = product(flat[batch:].T, h_prev.T, trans_b=True)
        dw_hh = product(d_gates[0].T, h0.T, later, trans_b=True).T
    return dx, dw_ih, dw_hh, db, np.asarray(dh, x.dtype), dc
    dw_hh = product(d_gates[0].T, h0.T, later, trans_b=True).T
    return dx, dw_ih, dw_hh, db, np.asarray(dh, x.dtype), dc


def differentiable_backward(node: MkldnnRnnLayerBackward0, grad_output: Tensor, grad_hy: Tensor,
                            grad_cy: Tensor) -> tuple[Tensor, ...]:
    """torch's mkldnn_rnn_layer_differentiable_backward (FunctionsManual.cpp) op for op: the
    layer's gates recomputed from aten ops, then backpropagation through time written in
    aten ops, so a create_graph backward records torch's nodes (AddmmBackward0,
    SigmoidBackward0, MmBackward0, CatBackward0, ...)."""
    from .arithmetic import add_, sub_
    from .creation import ones_like
    from .joins import cat, unsafe_chunk
    from .linalg import linear, matmul
    from .select_views import select
    from .unary import sigmoid_, tanh_
    from .views import transpose, unsqueeze

    def one_minus(t: Tensor) -> Tensor:  # C++'s `1 - t`: empty_like(t).fill_(1).sub_(t)
        return sub_(ones_like(t), t)

    x, w0, w1 = (node.unpack(k) for k in ("input", "weight0", "weight1"))
    hx_, cx_ = node.unpack("hx_"), node.unpack("cx_")
    bias_ih, bias_hh = node.unpack("weight2"), node.unpack("weight3")
    if not node.attrs["has_biases"]:
        zeros = np.zeros(4 * node.attrs["hidden_size"], w0.array.dtype)
        bias_ih, bias_hh = Tensor._wrap(zeros), Tensor._wrap(zeros.copy())
    reverse = node.attrs["reverse"]
    steps = x.array.shape[0]
    gates: list[tuple[Tensor, ...]] = [()] * steps
    states: list[tuple[Tensor, Tensor]] = [(hx_, cx_)]
    hx, cx = hx_, cx_
    for seq in range(1, steps + 1):
        t = steps - seq if reverse else seq - 1
        gate = add_(linear(select(x, 0, t), w0, bias_ih), linear(hx, w1, bias_hh))
        chunks = unsafe_chunk(gate, 4, 1)
        i, f, o = sigmoid_(chunks[0]), sigmoid_(chunks[1]), sigmoid_(chunks[3])
        g = tanh_(chunks[2])
        gates[t] = (i, f, g, o)
        cy = (f * cx) + (i * g)
        hy = o * cy.tanh()
        states.append((hy, cy))
        hx, cx = hy, cy
    layer_dx: list[Tensor | None] = [None] * steps
    dwx = dwh = db = dprev_h = dprev_c = None
    for seq in range(steps - 1, -1, -1):
        t = steps - seq - 1 if reverse else seq
        i, f, g, o = gates[t]
        cy = states[seq + 1][1]
        hx, cx = states[seq]
        new_grad_hy = select(grad_output, 0, t) + grad_hy
        d1 = grad_cy + new_grad_hy * o * one_minus(cy.tanh() * cy.tanh())
        dgp, dip = d1 * i, d1 * g
        dprev_c = d1 * f
        dfp = d1 * cx
        dop = new_grad_hy * cy.tanh()
        do_ = dop * o * one_minus(o)
        dg = dgp * one_minus(g * g)
        df = dfp * f * one_minus(f)
        di = dip * i * one_minus(i)
        da = cat([di, df, dg, do_], 1)
        db_ = da.sum(0)
        layer_dx[t] = unsqueeze(matmul(da, w0), 0)
        dprev_h = matmul(da, w1)
        dwx_ = matmul(transpose(da, 0, 1), select(x, 0, t))
        dwh_ = matmul(transpose(da, 0, 1), hx)
        if seq == steps - 1:
            db, dwx, dwh = db_, dwx_, dwh_
        else:
            db, dwx, dwh = add_(db, db_), add_(dwx, dwx_), add_(dwh, dwh_)
        grad_hy, grad_cy = dprev_h, dprev_c
    return cat(layer_dx, 0), dwx, dwh, db, db, dprev_h, dprev_c


def mkldnn_rnn_layer(input: Tensor, w0: Tensor, w1: Tensor, w2: Tensor, w3: Tensor,  # noqa: A002
                     hx: Tensor, cx: Tensor, reverse: bool, hidden_size: int, num_layers: int,
                     has_biases: bool, bidirectional: bool, batch_first: bool,
                     train: bool) -> tuple[Tensor, Tensor, Tensor]:
    """torch.mkldnn_rnn_layer for mode LSTM: (output, hy, cy) of one layer and direction."""
    return tuple(MkldnnRnnLayerBackward0.call(
        input, w0, w1, w2, w3, hx, cx, reverse=reverse, hidden_size=hidden_size,
        num_layers=num_layers, has_biases=has_biases, bidirectional=bidirectional,
        batch_first=batch_first, train=train))


def uses_mkldnn(input: Any) -> bool:  # noqa: A002
    """torch's `use_mkldnn`: a float32 CPU input with elements."""
    return isinstance(input, Tensor) and input.array.dtype == np.float32 and input.array.size != 0


# -- packed sequences ---------------------------------------------------------------------


class PackPaddedSequenceBackward0(Function):
    """_pack_padded_sequence(input, lengths, batch_first) -> (data, batch_sizes): the time
    steps of a padded (T, B, *) batch, sorted by decreasing length, stacked without their
    padding (aten/src/ATen/native/PackedSequence.cpp). Only `data` is differentiable; this
    node makes it, from the batch sizes pack_padded_sequence computed."""

    __slots__ = ()
    no_forward_ad = "_pack_padded_sequence"  # torch has no forward-mode formula (measured)
    formulas = (vjp("input", "_pack_padded_sequence_backward({grad}, {input_sym_sizes}, "
                    "{result1}, {batch_first})"),)

    def forward(self, input: Tensor, batch_sizes: Tensor,  # noqa: A002
                batch_first: bool) -> np.ndarray:
        self.save_attr(batch_first=batch_first, input_sym_sizes=input.array.shape)
        self.save("result1", batch_sizes, is_output=True)  # torch's second output
        x = np.swapaxes(input.array, 0, 1) if batch_first else input.array
        rows = [x[t, :size] for t, size in enumerate(batch_sizes.array.tolist())]
        return np.ascontiguousarray(np.concatenate(rows))

    def backward(self, grad: Tensor) -> Tensor:
        """_pack_padded_sequence_backward, op for op: each step's rows copied into zeros."""
        from .creation import zeros
        from .select_views import select, slice_op
        from .view_inplace import copy_
        from .views import transpose

        sizes = list(self.attrs["input_sym_sizes"])
        batch_first = self.attrs["batch_first"]
        if batch_first:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        grad_input = zeros(*sizes, dtype=grad.dtype)
        offset = 0
        for i, size in enumerate(self.unpack("result1").array.tolist()):
            copy_(slice_op(select(grad_input, 0, i), 0, 0, size, 1),
                  slice_op(grad, 0, offset, offset + size, 1))
            offset += size
        return transpose(grad_input, 0, 1) if batch_first else grad_input


def pack_padded_sequence(input: Tensor, lengths: Tensor,  # noqa: A002
                         batch_first: bool) -> tuple[Tensor, Tensor]:
    """torch._VF._pack_padded_sequence, with ATen's checks in ATen's order."""
    if lengths.array.ndim != 1:  # the Python side has made them int64
        raise TorchRuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                                f"{lengths.array.ndim}D cpu Long tensor")
    x = input.array
    batch = (x.shape[0] if batch_first else x.shape[1]) if x.ndim > 1 else 0
    if x.size == 0:
        raise TorchRuntimeError("Cannot pack empty tensors.")
    values = [int(v) for v in lengths.array]
    if len(values) != batch:
        raise TorchRuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                                f"{len(values)} (batch_size={batch})")
    if values[-1] <= 0:
        raise TorchRuntimeError("Length of all samples has to be greater than 0, but found an "
                                "element in 'lengths' that is <= 0")
    if any(values[i + 1] > values[i] for i in range(len(values) - 1)):
        raise TorchRuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability.")
    steps = values[0]
    sizes = tuple(sum(1 for v in values if v > t) for t in range(steps))
    batch_sizes = Tensor._wrap(np.array(sizes, np.int64))
    data = PackPaddedSequenceBackward0.call(input, batch_sizes=batch_sizes,
                                            batch_first=batch_first)
    return data, batch_sizes

