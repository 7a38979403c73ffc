"""torch.autograd.gradcheck and gradgradcheck (torch's gradcheck.py, real dtypes).

The numerical Jacobian comes from central differences, perturbing each input element
through `.data` by `eps`; the analytical one from one `autograd.grad` per output element
(run twice, to check that backward is reentrant). Then, as torch does, backward must be
linear in grad_output (zeros in, zeros out) and must cope with undefined output
gradients. Fast mode compares `v^T J u` for random unit vectors drawn from a fresh
`torch.Generator()`, as torch's does.

What `func` computes and the backward passes run on its graph are the script's and are
traced; the perturbations and the bookkeeping around them run muted (`events.muted`).
Forward-mode AD and vmap (`check_forward_ad`, `check_batched_grad`, ...) are refused.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import NotSupportedError, ScriptError, TorchRuntimeError, TorchValueError
from . import backward as _backward
from . import dtypes
from .events import muted
from .formulas import local
from .generator import Generator
from .limits import reserve
from .node import Function
from .ops.creation import WARNINGS, zeros_like
from .ops.norms import vector_norm
from .ops.sampling import rand
from .ops.views import torch_strides
from .tensor import Tensor


class GradcheckError(TorchRuntimeError):
    """torch.autograd.gradcheck.GradcheckError (a RuntimeError)."""

    kind = "GradcheckError"


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()

UNDEFINED_GRAD_WARNING = (
    "UserWarning: Backwards compatibility: New undefined gradient support checking feature is "
    "enabled by default, but it may break existing callers of this function. If this is true "
    'for you, you can call this function with "check_undefined_grad=False" to disable the '
    "feature")
UNDEFINED_NOTE = ('Please look at "Notes about undefined output gradients" in '
                  '"tools/autograd/derivatives.yaml"')


def _assert(condition: bool, message: str) -> None:
    if not condition:
        raise ScriptError(message, kind="AssertionError")


def _as_tuple(x: Any) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _requires_grad(t: Any) -> bool:
    if not isinstance(t, Tensor):
        raise ScriptError(f"'{type(t).__name__}' object has no attribute 'requires_grad'",
                          kind="AttributeError")
    return t.requires_grad


def _differentiable_outputs(x: Any) -> tuple[Tensor, ...]:
    return tuple(o for o in _as_tuple(x) if _requires_grad(o))


def _is_float(t: Any) -> bool:
    return isinstance(t, Tensor) and t.dtype.is_floating_point


def _zeros(shape: tuple[int, int], dtype: dtypes.DType) -> np.ndarray:
    """A Jacobian's storage (numel in x numel out), within the allocation limits."""
    reserve(shape, dtype.itemsize)
    return np.zeros(shape, dtype=dtype.np)


def _diff_inputs(inputs: tuple) -> list[Tensor]:
    return [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]


# ---------------------------------------------------------------------------- public API


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    _assert(check_forward_ad or check_backward_ad,
            "Expected at least one of check_forward_ad or check_backward_ad to be True")
    _assert(not (check_batched_grad and not check_backward_ad),
            "Setting check_batched_grad=True requires check_backward_ad to be True")
    _assert(not (check_batched_forward_grad and not check_forward_ad),
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    if check_forward_ad or check_batched_grad or check_batched_forward_grad:
        raise NotSupportedError(
            "gradcheck's forward-mode and batched checks need forward-mode AD and vmap, which "
            "gradtrace does not have")
    check = _fast_gradcheck if fast_mode else _slow_gradcheck
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                                 check_grad_dtypes, check)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck_helper(func: Callable[..., Any], inputs: Any, eps: float, atol: float,
                      rtol: float, nondet_tol: float, check_undefined_grad: bool,
                      check_grad_dtypes: bool, check: Callable[..., bool]) -> bool:
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = func(*tupled_inputs)
    outputs = _differentiable_outputs(func_out)
    check(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes,
          nondet_tol)
    _test_backward_mul_by_grad_output(outputs, tupled_inputs)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, tupled_inputs)
    return True


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True,
                  fast_mode: bool = False, masked: bool = False) -> bool:
    """gradcheck of the function that maps (inputs, grad_outputs) to its gradients."""
    _assert(check_fwd_over_rev or check_rev_over_rev,
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    _assert(not (check_undefined_grad and not check_rev_over_rev),
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    _assert(not (check_batched_grad and not check_rev_over_rev),
            "Setting check_batched_grad=True requires check_rev_over_rev to be True")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(
            _make_tensor(x.shape, x.dtype if x.dtype.is_floating_point else dtypes.float64,
                         gen_non_contig_grad_outputs) for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_indices = {i for i, x in enumerate(tupled_inputs)
                          if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_output_indices = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args: Any) -> tuple[Tensor, ...]:
        input_args = tuple(x.requires_grad_() if i in diff_input_indices else x
                           for i, x in enumerate(args[:-num_outputs]))
        outs = _differentiable_outputs(func(*input_args))
        grad_outs = tuple(x.requires_grad_() if i in diff_grad_output_indices else x
                          for i, x in enumerate(args[-num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_indices)
        grad_inputs = _backward.grad(outs, list(diff_input_args), list(grad_outs),
                                     create_graph=True, allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


def _make_tensor(shape: tuple[int, ...], dtype: dtypes.DType, noncontiguous: bool) -> Tensor:
    """torch.testing.make_tensor(shape, low=-1, high=1, requires_grad=True): uniform_ draws
    from the default generator (a non-contiguous one draws twice as many, every other kept)."""
    noncontiguous = noncontiguous and int(np.prod(shape)) > 1
    full = (*shape[:-1], 2 * shape[-1]) if noncontiguous else shape
    with muted():
        result = Tensor._wrap(np.empty(full, dtype=dtype.np)).uniform_(-1, 1)
        if noncontiguous:
            result = result[..., 1::2]
    return result.requires_grad_(True)


# ---------------------------------------------------------------------------- checks


def _check_inputs(tupled_inputs: tuple) -> None:
    any_requiring_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp.dtype is not dtypes.float64:
                WARNINGS.append(
                    f"UserWarning: Input #{idx} requires gradient and is not a double precision "
                    "floating point or complex. This check will likely fail if all the inputs "
                    "are not of double precision floating point or complex. ")
            strides = torch_strides(inp.array)
            if not all(st > 0 or sz <= 1 for st, sz in zip(strides, inp.shape)):
                raise TorchRuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck.")
            any_requiring_grad = True
    if not any_requiring_grad:
        raise TorchValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True.")


def _slow_gradcheck(func: Callable[..., Any], func_out: Any, tupled_inputs: tuple,
                    outputs: tuple[Tensor, ...], eps: float, rtol: float, atol: float,
                    check_grad_dtypes: bool, nondet_tol: float) -> bool:
    func_out = _as_tuple(func_out)
    if not outputs:
        return _check_no_differentiable_outputs(func, tupled_inputs, func_out, eps)
    numerical = list(zip(*_get_numerical_jacobian(func, tupled_inputs, func_out, eps)))
    numerical = [nj for o, nj in zip(func_out, numerical) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _check_analytical_jacobian_attributes(tupled_inputs, o, nondet_tol,
                                                           check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose_with_type_promotion(a, n, rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, i, j))
    return True


def _notallclose_msg(analytical: Tensor, numerical: Tensor, output_idx: int,
                     input_idx: int) -> str:
    return (f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _allclose_with_type_promotion(a: Tensor, b: Tensor, rtol: float, atol: float) -> bool:
    promoted = dtypes.promote(a.dtype, b.dtype).np
    x, y = a.array.astype(promoted), b.array.astype(promoted)
    return bool(np.allclose(x, y, rtol=rtol, atol=atol))


def _check_no_differentiable_outputs(func: Callable[..., Any], inputs: tuple, func_out: tuple,
                                     eps: float) -> bool:
    for jacobians in _get_numerical_jacobian(func, inputs, func_out, eps):
        for jacobian in jacobians:
            if np.count_nonzero(jacobian.array) > 0:
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


# -- numerical ---------------------------------------------------------------------------


def _get_numerical_jacobian(fn: Callable[..., Any], inputs: tuple, outputs: tuple,
                            eps: float) -> list[tuple[Tensor, ...]]:
    """Per input that requires grad, per float output: the (input numel, output numel)
    Jacobian from central differences."""
    jacobians = []
    for inp in inputs:
        if isinstance(inp, Tensor) and inp.requires_grad:
            jacobians.append(_numerical_jacobian_wrt(fn, inputs, outputs, eps, inp))
    return jacobians


def _numerical_jacobian_wrt(fn: Callable[..., Any], inputs: tuple, outputs: tuple, eps: float,
                            inp: Tensor) -> tuple[Tensor, ...]:
    data = inp.data  # torch perturbs through .data, around the version counter
    columns = {}
    for d_idx, x_idx in enumerate(itertools.product(*[range(m) for m in data.shape])):
        with muted():
            entry = data[x_idx]
        columns[d_idx] = _numerical_gradient(fn, inputs, entry, eps, eps, x_idx)
    with muted():
        jacobians = [Tensor._wrap(_zeros((inp.numel(), t.numel()), t.dtype))
                     for t in outputs if _is_float(t)]
        for i, jacobian in enumerate(jacobians):
            for k, v in columns.items():
                jacobian[k] = v[i]
    return tuple(jacobians)


def _numerical_gradient(fn: Callable[..., Any], inputs: tuple, entry: Tensor, v: Any,
                        norm_v: float, idx: tuple | None) -> list[Tensor]:
    """(fn(x + v) - fn(x - v)) / (2 |v|), flattened, for each output of fn."""
    with muted():
        orig = entry.clone()
        entry.copy_(orig - v)
    outa = _call(fn, inputs)
    with muted():
        entry.copy_(orig + v)
    outb = _call(fn, inputs)
    with muted():
        entry.copy_(orig)
        result = []
        for a, b in zip(outa, outb):
            _check_same_dtype_and_shape(a, b, eps=norm_v, idx=idx)
            result.append(((b - a) / (2 * norm_v)).detach().reshape(-1))
    return result


def _call(fn: Callable[..., Any], inputs: tuple) -> tuple[Tensor, ...]:
    out = _as_tuple(fn(*inputs))
    with muted():
        return tuple(a.clone() for a in out)


def _check_same_dtype_and_shape(a: Tensor, b: Tensor, eps: float, idx: tuple | None) -> None:
    on_index = f"on index {idx} " if idx is not None else ""
    if a.shape != b.shape:
        from .shapes import Size

        raise ScriptError(
            "Expected `func` to return outputs with the same shape when inputs are perturbed "
            f"{on_index}by {eps}, but got: shapes {Size(a.shape)!r} and {Size(b.shape)!r}.",
            kind="AssertionError")
    if a.dtype is not b.dtype:
        raise ScriptError(
            "Expected `func` to return outputs with the same dtype when inputs are perturbed "
            f"{on_index}by {eps}, but got: dtypes {a.dtype!r} and {b.dtype!r}.",
            kind="AssertionError")


# -- analytical --------------------------------------------------------------------------


def _check_analytical_jacobian_attributes(inputs: tuple, output: Tensor, nondet_tol: float,
                                          check_grad_dtypes: bool, v: Tensor | None = None
                                          ) -> tuple[Tensor, ...]:
    """Rows of the Jacobian from backward (one vjp per row, or one with `v` in fast mode),
    computed twice: backward must give the same numbers both times."""
    diff_inputs = _diff_inputs(inputs)

    def vjp_fn(grad_output: Tensor) -> tuple[Tensor | None, ...]:
        return _backward.grad(output, diff_inputs, grad_output, retain_graph=True,
                              allow_unused=True)

    rows1 = _analytical_rows(vjp_fn, output, v)
    rows2 = _analytical_rows(vjp_fn, output, v)
    numel = output.numel() if v is None else 1
    jacobians1, types_ok, sizes_ok = _stack_and_check_tensors(rows1, inputs, numel)
    jacobians2, _, _ = _stack_and_check_tensors(rows2, inputs, numel)
    reentrant = all(j1.numel() == 0 or np.abs(j1.array - j2.array).max() <= nondet_tol
                    for j1, j2 in zip(jacobians1, jacobians2))
    # (sic: torch unpacks the size and type flags the other way round)
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + FAILED_NONDET_MSG)
    return jacobians1


def _analytical_rows(vjp_fn: Callable[[Tensor], Any], output: Tensor,
                     v: Tensor | None) -> list[list[Tensor | None]]:
    with muted():
        sample = output.clone()
        if v is not None:
            grad_outs = [v.reshape(sample.shape)]
        else:
            # torch: zeros_like(output, memory_format=torch.legacy_contiguous_format)
            base = zeros_like(sample).contiguous()
            grad_outs = []
    rows: list[list[Tensor | None]] = []
    for j in range(len(grad_outs) if v is not None else sample.numel()):
        if v is None:
            with muted():
                flat = base.view(-1)
                flat.zero_()
                flat[j] = 1.0
            grad_out = base
        else:
            grad_out = grad_outs[0]
        grad_inputs = vjp_fn(grad_out)
        with muted():
            for i, d_x in enumerate(grad_inputs):
                if j == 0:
                    rows.append([])
                rows[i].append(d_x.clone() if isinstance(d_x, Tensor) else None)
    return rows


def _stack_and_check_tensors(rows: list[list[Tensor | None]], inputs: tuple,
                             numel_outputs: int) -> tuple[tuple[Tensor, ...], bool, bool]:
    diff_inputs = _diff_inputs(inputs)
    jacobians = tuple(_zeros((t.numel(), numel_outputs), t.dtype)
                      for t in diff_inputs if _is_float(t))
    sizes_ok = types_ok = True
    for i, tensors in enumerate(rows):
        inp = diff_inputs[i]
        for j, tensor in enumerate(tensors):
            if tensor is not None and tensor.shape != inp.shape:
                sizes_ok = False
            elif tensor is not None and tensor.dtype is not inp.dtype:
                types_ok = False
            if tensor is None:
                jacobians[i][:, j] = 0
            else:
                _assert(jacobians[i][:, j].size == tensor.numel(),
                        f"Expected out_jacobian column to have {tensor.numel()} elements, but "
                        f"got {jacobians[i][:, j].size}")
                jacobians[i][:, j] = tensor.array.reshape(-1)
    return tuple(Tensor._wrap(j) for j in jacobians), sizes_ok, types_ok


def _test_backward_mul_by_grad_output(outputs: tuple[Tensor, ...], inputs: tuple) -> bool:
    diff_inputs = _diff_inputs(inputs)
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    with muted():
        zeros = [zeros_like(o) for o in outputs]
    grads_input = _backward.grad(list(outputs), diff_inputs, zeros, allow_unused=True)
    for gi, di in zip(grads_input, diff_inputs):
        if gi is None:
            continue
        if np.any(gi.array != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype is not di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.shape != di.shape:
            raise GradcheckError("grad is incorrect size")
    return True


class UndefinedGradBackward(Function):
    """torch._C._functions.UndefinedGrad: a copy whose backward sends no gradient (an
    undefined one, which the engine reads as zeros)."""

    __slots__ = ()
    formulas = (local("self", "0"),)

    def forward(self, a: Tensor) -> np.ndarray:
        return a.array.copy()

    def backward(self, grad: Tensor) -> None:
        return None


def _test_undefined_backward_mode(func: Callable[..., Any], outputs: tuple[Tensor, ...],
                                  inputs: tuple) -> bool:
    """Backward must treat undefined output gradients as zeros."""
    diff_inputs = _diff_inputs(inputs)
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")

    def check(output_to_check: list[Tensor]) -> bool:
        with muted():
            zeros = [zeros_like(o) for o in output_to_check]
        try:
            grads_input = _backward.grad(output_to_check, diff_inputs, zeros, allow_unused=True)
        except ScriptError as err:
            if not err.matches("RuntimeError"):
                raise
            WARNINGS.append(UNDEFINED_GRAD_WARNING)
            raise GradcheckError("Expected backward function to handle undefined output "
                                 f"grads. {UNDEFINED_NOTE}") from err
        for gi in grads_input:
            if gi is not None and np.any(gi.array != 0):
                WARNINGS.append(UNDEFINED_GRAD_WARNING)
                raise GradcheckError("Expected all input grads to be undefined or zero when all "
                                     f"output grads are undefined or zero. {UNDEFINED_NOTE}")
        return True

    to_check = [[UndefinedGradBackward.call(o)
                 for o in _differentiable_outputs(func(*inputs)) if isinstance(o, Tensor)]]
    if len(to_check[0]) > 1:
        for undef_idx in range(len(outputs)):
            outs = _differentiable_outputs(func(*inputs))
            to_check.append([UndefinedGradBackward.call(o) if idx == undef_idx else o
                             for idx, o in enumerate(outs)])
    return all(check(output) for output in to_check)


# ---------------------------------------------------------------------------- fast mode


def _fast_gradcheck(func: Callable[..., Any], func_out: Any, inputs: tuple,
                    outputs: tuple[Tensor, ...], eps: float, rtol: float, atol: float,
                    check_grad_dtypes: bool, nondet_tol: float) -> bool:
    """Compare v^T (J u) from finite differences with (v^T J) u from backward."""
    inp_indices = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    inp_tensors = [inputs[i] for i in inp_indices]
    with muted():
        generator = Generator()
        all_u = [_unit_vector(t, generator) for t in inp_tensors]
        all_v = [_unit_vector(t, generator) for t in outputs]
    func_out = _as_tuple(func_out)
    numerical = []
    for inp_idx, u in zip(inp_indices, all_u):
        all_ju = _numerical_jvp(func, inputs, inp_idx, u, eps)
        filtered = [ju for ju, out in zip(all_ju, func_out) if _is_float(out)]
        with muted():
            numerical.append([(v * ju).sum() for v, ju in zip(all_v, filtered)])
    if not outputs:
        for inp_idx, u in zip(inp_indices, all_u):
            for jvp in _numerical_jvp(func, inputs, inp_idx, u, eps):
                if jvp.numel() and np.abs(jvp.array).max() > nondet_tol:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
    analytical = []
    for output, v in zip(outputs, all_v):
        all_vj = _check_analytical_jacobian_attributes(inputs, output, nondet_tol,
                                                       check_grad_dtypes, v=v)
        with muted():
            analytical.append([vj.T.squeeze(0).dot(u) for vj, u in zip(all_vj, all_u)])
    for i, numerical_i in enumerate(numerical):
        for j, n in enumerate(numerical_i):
            a = analytical[j][i]
            updated_atol = atol * float(all_u[i].sum().item()) * float(all_v[j].sum().item())
            if not _allclose_with_type_promotion(a, n, rtol, updated_atol):
                detail = _slow_mode_error(func, inputs, outputs, i, j, rtol, atol, eps)
                raise GradcheckError(_notallclose_msg(a, n, j, i) + detail)
    return True


def _unit_vector(t: Tensor, generator: Generator) -> Tensor:
    """torch's _vec_from_tensor: rand(numel) in float32, cast, divided by its norm."""
    vec = rand(t.numel(), generator=generator).to(t.dtype)
    vec /= vector_norm(vec)
    return vec


def _numerical_jvp(func: Callable[..., Any], inputs: tuple, inp_idx: int, u: Tensor,
                   eps: float) -> list[Tensor]:
    data = inputs[inp_idx].data
    with muted():
        delta = eps * u.reshape(data.shape)
    return _numerical_gradient(func, inputs, data, delta, eps, None)


def _slow_mode_error(func: Callable[..., Any], inputs: tuple, outputs: tuple[Tensor, ...],
                     input_idx: int, output_idx: int, rtol: float, atol: float,
                     eps: float) -> str:
    numerical = _get_numerical_jacobian(func, inputs, outputs, eps)[input_idx][output_idx]
    analytical = _check_analytical_jacobian_attributes(inputs, outputs[output_idx],
                                                       float("inf"), False)[input_idx]
    with muted():
        max_diff = (numerical - analytical).abs().max()
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are computed "
           "\nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more "
           "background \nabout fast mode. Below, we recompute numerical and analytical "
           "jacobians in slow mode:\n\n"
           f"Numerical:\n {numerical}\nAnalytical:\n{analytical}\n\n"
           f"The max per-element difference (slow mode) is: {max_diff}.\n")
    if np.allclose(analytical.array, numerical.array, rtol=rtol, atol=atol):
        msg += FAST_FAIL_SLOW_OK_MSG
    return msg


GRADCHECK: dict[str, Any] = {"gradcheck": gradcheck, "gradgradcheck": gradgradcheck}
