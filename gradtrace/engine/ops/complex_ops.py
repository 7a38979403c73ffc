"""Complex tensors' own ops: view_as_complex / view_as_real (views sharing memory, as in
torch), .real / .imag (views), torch.complex and torch.polar, with torch 2.13's checks,
messages and backward formulas (derivatives.yaml). engine/complex.py says which ops run
on complex tensors and how their products round."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import complex as complex_dtypes
from .. import conj_bit, dtypes, glibc, libm_scalar
from ..dtypes import DType
from ..formulas import COMPLEX, local, vjp
from ..forward_ad import auto_linear
from ..grad_mode import GRAD_MODE
from ..meta import MetaArray
from ..node import Function
from ..tensor import Tensor
from .tensor_info import storage_offset
from .views import ViewFunction, tensor_strides


def _as_complex_array(array: np.ndarray, dtype: DType) -> np.ndarray:
    """A (..., 2) float array with a contiguous last dim read as complex (a view)."""
    return array.view(dtype.np)[..., 0]


def _as_real_array(array: np.ndarray) -> np.ndarray:
    """A complex array read as (..., 2) floats (a view, whatever its strides)."""
    return array[..., None].view(array.real.dtype)


class ViewAsComplexBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "view_as_real({grad}.contiguous().resolve_conj())"),)

    def forward(self, a: Tensor) -> np.ndarray:
        if a.dtype not in (dtypes.float32, dtypes.float64, dtypes.float16):
            raise TorchRuntimeError(
                "view_as_complex is only supported for half, float and double tensors, but got "
                f"a tensor of scalar type: {a.dtype.scalar_type}")
        if a.dtype is dtypes.float16:
            raise complex_dtypes.refuse("torch.complex32 (view_as_complex of a half tensor)")
        if a.array.ndim == 0:
            raise TorchRuntimeError("Input tensor must have one or more dimensions")
        if a.array.shape[-1] != 2:
            raise TorchRuntimeError("Tensor must have a last dimension of size 2")
        strides = tensor_strides(a)
        if strides[-1] != 1:
            raise TorchRuntimeError("Tensor must have a last dimension with stride 1")
        if any(s % 2 for s in strides[:-1]):
            raise TorchRuntimeError(
                "Tensor must have a stride divisible by 2 for all but last dimension")
        if storage_offset(a) % 2:
            raise TorchRuntimeError("Tensor must have a storage_offset divisible by 2")
        if type(a.array) is MetaArray:
            raise complex_dtypes.refuse("view_as_complex of a meta tensor")
        return _as_complex_array(a.array, complex_dtypes.complex_of(a.dtype))

    def backward(self, grad: Tensor) -> Tensor:
        from .clones import contiguous

        return view_as_real(contiguous(grad))


class ViewAsRealBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "view_as_complex({grad}.contiguous())"),)

    def forward(self, a: Tensor) -> np.ndarray:
        if not a.dtype.is_complex:
            raise TorchRuntimeError("view_as_real is only supported for complex tensors")
        if type(a.array) is MetaArray:
            raise complex_dtypes.refuse("view_as_real of a meta tensor")
        return _as_real_array(a.array)

    def backward(self, grad: Tensor) -> Tensor:
        from .clones import contiguous

        return view_as_complex(contiguous(grad))


def view_as_complex(a: Tensor) -> Tensor:
    return ViewAsComplexBackward0.call(a)


def view_as_real(a: Tensor) -> Tensor:
    if conj_bit.is_conj(a):
        raise TorchRuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
            "conjugate tensor so you can view it as real, use self.resolve_conj(); "
            "however, be warned that the resulting tensor will NOT alias the original.")
    return ViewAsRealBackward0.call(a)


def real(a: Tensor) -> Tensor:
    """torch.real / Tensor.real: a view of the real parts (a real tensor itself). torch
    writes it as `view_as_real(a).select(-1, 0)`, so its node is SelectBackward0."""
    from .select_views import select

    if not a.dtype.is_complex:
        return a
    # (a conj view's real parts are its storage's: torch views them, no bit)
    return select(ViewAsRealBackward0.call(a), -1, 0)


def imag(a: Tensor) -> Tensor:
    """torch.imag / Tensor.imag: `view_as_real(a).select(-1, 1)` (none for a real tensor)."""
    from .select_views import select

    if not a.dtype.is_complex:
        raise TorchRuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    if conj_bit.is_conj(a):
        # at::imag of a conj view: view_as_real(self._conj())._neg_view(), a view of the
        # storage's imaginary parts that reads and writes them negated (is_neg() True)
        return select(neg_view(view_as_real(conj(a))), -1, 1)
    return select(view_as_real(a), -1, 1)


def _check_parts(name: str, a: Tensor, b: Tensor) -> DType:
    """torch.complex / torch.polar's checks on their two real operands (complex_check_dtype)."""
    for t in (a, b):
        if t.dtype not in (dtypes.float32, dtypes.float64, dtypes.float16):
            raise TorchRuntimeError(
                f"Expected both inputs to be Half, Float or Double tensors but got "
                f"{a.dtype.scalar_type} and {b.dtype.scalar_type}")
    if a.dtype is not b.dtype:
        raise TorchRuntimeError(
            f"Expected object of scalar type {a.dtype.scalar_type} but got scalar type "
            f"{b.dtype.scalar_type} for second argument")
    if a.dtype is dtypes.float16:
        raise complex_dtypes.refuse(f"torch.{name} of half tensors (torch.complex32)")
    return complex_dtypes.complex_of(a.dtype)


class ComplexBackward0(Function):
    __slots__ = ()
    tensor_iterator = True
    jvp = auto_linear
    formulas = (vjp("real", "real({grad})"), vjp("imag", "imag({grad})"))

    def forward(self, re: Tensor, im: Tensor) -> np.ndarray:
        dtype = _check_parts("complex", re, im)
        shape = np.broadcast_shapes(re.array.shape, im.array.shape)
        out = np.empty(shape, dtype.np)
        out.real, out.imag = re.array, im.array
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor, Tensor]:
        return real(grad), imag(grad)


def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001 (torch's name)
    """torch.complex(real, imag): its parameters named as torch names them (keywords too)."""
    return ComplexBackward0.call(real, imag)


def _sincosf(y: np.ndarray, want_cos: bool) -> np.ndarray:
    """glibc's sinf/cosf (what std::sin/std::cos of a float call), elementwise."""
    flat = np.ascontiguousarray(y).reshape(-1)
    out = np.empty_like(flat)
    near = glibc._abstop12(flat) < glibc._TOP_120
    if near.any():
        out[near] = (glibc.cosf if want_cos else glibc.sinf)(flat[near])
    for i in np.nonzero(~near)[0]:
        out[i] = libm_scalar._sincosf(flat[i], want_cos)
    return out.reshape(y.shape)


def _sincos64(y: np.ndarray, want_cos: bool) -> np.ndarray:
    """glibc's sin/cos of doubles (CPython's math module calls them), elementwise."""
    fn = libm_scalar.LIBM[np.dtype(np.float64)]
    f = fn.cos if want_cos else fn.sin
    flat = np.ascontiguousarray(y).reshape(-1)
    return np.array([f(v) for v in flat.tolist()], np.float64).reshape(y.shape)


class PolarBackward0(Function):
    """torch.polar: ComplexKernel.cpp's polar_kernel, a cpu_kernel (scalar code only)
    computing c10::complex(abs * std::cos(angle), abs * std::sin(angle)). Backward:
    polar_backward (engine/complex.py), not recorded (create_graph is refused)."""

    __slots__ = ()
    tensor_iterator = True
    formulas = (vjp("abs", "real({grad}.conj() * sgn({result}))"),
                vjp("angle", "-imag({grad}.conj() * {result})"))

    def forward(self, r: Tensor, theta: Tensor) -> np.ndarray:
        dtype = _check_parts("polar", r, theta)
        r_arr, t_arr = np.broadcast_arrays(r.array, theta.array)
        if dtype is dtypes.complex64:
            cos, sin = _sincosf(t_arr, True), _sincosf(t_arr, False)
        else:
            cos, sin = _sincos64(t_arr, True), _sincos64(t_arr, False)
        out = np.empty(r_arr.shape, dtype.np)
        with np.errstate(all="ignore"):
            out.real, out.imag = r_arr * cos, r_arr * sin
        return out

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> tuple[Tensor, Tensor]:
        if GRAD_MODE.enabled:
            raise complex_dtypes.refuse("create_graph through torch.polar")
        grad_abs, grad_angle = complex_dtypes.polar_backward(grad.array,
                                                             self.unpack("result").array)
        return Tensor._wrap(grad_abs), Tensor._wrap(grad_angle)


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002 (torch's parameter names)
    """torch.polar(abs, angle): its parameters named as torch names them (keywords too)."""
    return PolarBackward0.call(abs, angle)


class AngleBackward0(Function):
    """torch.angle: angle_kernel's result, a complex input's argument (engine/complex.py),
    a real one's pi for negative values, 0 otherwise (nan kept), in a floating dtype.
    Backward: angle_backward, zeros for a real input, else where(self == 0, 0,
    grad * self / self.abs().pow(2) * 1j)."""

    __slots__ = ()
    formulas = (vjp("self", "where({self} = 0, 0, {grad} · {self} / |{self}|² · ⅈ)",
                    when=(COMPLEX,)),
                local("self", "0"))

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        if a.dtype.is_complex:
            return complex_dtypes.angle(a.array)
        x = a.array if a.dtype.is_floating_point else a.array.astype(
            dtypes.DEFAULT_FLOAT.np)
        with np.errstate(invalid="ignore"):
            return np.where(np.isnan(x), x, np.where(x < 0, x.dtype.type(np.pi),
                                                     x.dtype.type(0)))

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros_like

        a = self.unpack("self")
        if not a.dtype.is_complex:
            return zeros_like(a)
        if GRAD_MODE.enabled:
            raise complex_dtypes.refuse("create_graph through torch.angle")
        return _angle_backward(grad, a)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        """handle_r_to_c(result, angle_backward(self_t.conj(), self)).conj(): the real
        part of the backward formula applied to the conjugated tangent."""
        from .creation import zeros_like

        a = inputs[0]
        if not a.dtype.is_complex:
            return zeros_like(outs[0])
        return real(_angle_backward(conj_physical(t[0]), a))


def _angle_backward(grad: Tensor, a: Tensor) -> Tensor:
    """FunctionsManual's angle_backward for a complex `a`, which torch's backward and
    forward derivative both call: where(a == 0, 0, grad * a / |a|^2 * 1j)."""
    from .reductions import where

    value = grad * a / a.abs().pow(2) * 1j
    return where(a == 0.0, Tensor._wrap(np.zeros((), a.array.dtype)), value)


def angle(a: Tensor) -> Tensor:
    return AngleBackward0.call(a)


def is_conj(a: Tensor) -> bool:
    """Tensor.is_conj: whether `a` is a lazily conjugated view (engine/conj_bit.py); under
    vmap, whether its batched value is (functorch's BatchedTensorImpl forwards the bit)."""
    while not a.has_storage:
        a = a.value
    return conj_bit.is_conj(a)


def is_neg(a: Tensor) -> bool:
    """Tensor.is_neg: whether `a` is a view with torch's negative bit (the imaginary parts
    of a conj view and the views of one: engine/conj_bit.py)."""
    while not a.has_storage:
        a = a.value
    return conj_bit.is_neg(a)


def resolve_conj(a: Tensor) -> Tensor:
    """Tensor.resolve_conj: a conj view's values in new memory (torch's clone of it:
    CloneBackward0, the input's layout), else the tensor itself."""
    if not conj_bit.is_conj(a):
        return a
    from .clones import clone

    return clone(a)


def resolve_neg(a: Tensor) -> Tensor:
    """Tensor.resolve_neg: a neg view's values in new memory (torch's clone of it:
    CloneBackward0, the input's layout), else the tensor itself."""
    if not conj_bit.is_neg(a):
        return a
    from .clones import clone

    return clone(a)


class ConjPhysicalBackward0(Function):
    """torch.conj_physical: the conjugate written out (the imaginary parts negated, an
    exact operation), in the input's layout. Complex products' gradients multiply by it
    where torch multiplies by a lazily conjugated operand: the same values."""

    __slots__ = ()
    jvp = auto_linear
    formulas = (vjp("self", "{grad}.conj_physical()"),)

    def forward(self, a: Tensor) -> np.ndarray:
        from ..grad_reuse import is_non_overlapping_and_dense
        from .clones import copy_laid_out_as, empty_laid_out

        # empty_like(self) keeps a dense tensor's strides exactly, a size-1 dim's too (the
        # (2, 20, 1) transpose of a (2, 1, 20) tensor keeps (20, 1, 20)), and a product of
        # the result reads its transposition off them
        if is_non_overlapping_and_dense(a.array):
            out = empty_laid_out(a.array.shape, tensor_strides(a), a.array.dtype)
            np.conjugate(a.array, out=out)
            return out
        return copy_laid_out_as(np.conjugate(a.array), a.array)

    def backward(self, grad: Tensor) -> Tensor:
        return conj_physical(grad)


def conj_physical(a: Tensor) -> Tensor:
    """torch.conj_physical: a real tensor is returned itself, as torch does."""
    if not a.dtype.is_complex:
        return a
    return ConjPhysicalBackward0.call(a)


class ConjBackward0(ViewFunction):
    """torch.conj of a complex tensor: a view of its storage with the conjugate bit flipped
    (set on a plain tensor, cleared on a conj view: `x.conj().conj()` is a plain view).
    The shadow holding the conjugated values is conj_bit's."""

    __slots__ = ()
    sets_conj = True
    formulas = (vjp("self", "{grad}.conj()"),)

    def forward(self, a: Tensor) -> np.ndarray:
        if type(a.array) is MetaArray:
            raise complex_dtypes.refuse("conj() of a complex meta tensor")
        if conj_bit.is_conj(a):
            return conj_bit.stored(a)
        return conj_bit.materialise(a.array)

    def backward(self, grad: Tensor) -> Tensor:
        return conj(grad)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return conj(t[0])  # (auto_linear: the tangent's conj view, as torch's)


def conj(a: Tensor) -> Tensor:
    """torch.conj / Tensor.conj: a real tensor itself, as torch returns it; a complex one's
    view with the conjugate bit flipped (ConjBackward0)."""
    if not a.dtype.is_complex:
        return a
    flipping_off = conj_bit.is_conj(a)
    out = ConjBackward0.call(a)
    if not flipping_off:
        conj_bit.mark(out, a.array)
    return out


class NegViewBackward0(ViewFunction):
    """torch._neg_view of a real tensor (at::imag of a conj view makes one): a view of its
    storage with the negative bit flipped; the shadow holding the negated values is
    conj_bit's."""

    __slots__ = ()
    sets_conj = True
    formulas = (vjp("self", "-{grad}"),)

    def forward(self, a: Tensor) -> np.ndarray:
        if type(a.array) is MetaArray:
            raise complex_dtypes.refuse("a negative view of a meta tensor")
        if a.dtype.is_complex:
            raise complex_dtypes.refuse("_neg_view() of a complex tensor")
        if conj_bit.is_neg(a):
            return conj_bit.stored(a)
        return conj_bit.materialise(a.array)

    def backward(self, grad: Tensor) -> Tensor:
        from .arithmetic import neg

        return neg(grad)  # derivatives.yaml: grad.neg()

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return neg_view(t[0])  # self_t._neg_view()


def neg_view(a: Tensor) -> Tensor:
    """torch._neg_view: a view with the negative bit flipped (NegViewBackward0)."""
    flipping_off = conj_bit.is_neg(a)
    out = NegViewBackward0.call(a)
    if not flipping_off:
        conj_bit.mark(out, a.array)
    return out


TORCH_FUNCTIONS: dict[str, Any] = {
    "view_as_complex": view_as_complex, "view_as_real": view_as_real, "real": real,
    "imag": imag, "complex": complex, "polar": polar, "is_conj": is_conj,
    "resolve_conj": resolve_conj, "is_neg": is_neg, "resolve_neg": resolve_neg,
    "conj_physical": conj_physical, "conj": conj, "angle": angle, "_neg_view": neg_view,
}
TENSOR_METHODS: dict[str, Any] = {
    "is_conj": is_conj, "resolve_conj": resolve_conj, "is_neg": is_neg, "_neg_view": neg_view,
    "resolve_neg": resolve_neg, "conj_physical": conj_physical, "conj": conj,
    "angle": angle,
}
