"""torch.einsum, decomposed exactly as ATen's einsum (Linear.cpp) decomposes it, so the
graph shows the same nodes: each operand's repeated labels become diagonals, missing
labels unsqueezed dims, and a permute aligns it (PermuteBackward0, even when it is the
identity); operands are contracted left to right by `sumproduct_pair` (sums of dims only
one side has, then permute -> reshape -> bmm -> view -> permute, the operands swapped when
every right-only dim precedes every left-only one, as torch 2.13 does), and the contraction
dims are viewed (several operands) or summed (one operand) away.
(torch would follow an opt_einsum path for 3+ operands when opt_einsum is installed;
torch 2.13's CPU wheel here has none, so it goes left to right too.)
"""
from __future__ import annotations

from typing import Any

from ...errors import TorchRuntimeError, TorchTypeError, TorchValueError
from ..tensor import Tensor, type_name
from .linalg import bmm
from .views import movedim, permute, reshape, view

_LETTERS = 26
_ELLIPSIS = 2 * _LETTERS


def _subscript(label: str) -> int:
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _label(s: int) -> str:
    return chr(s + ord("A")) if s < _LETTERS else chr(s - _LETTERS + ord("a"))


def _parse_inputs(lhs: str, num_ops: int) -> list[list[int]]:
    labels: list[list[int]] = [[] for _ in range(num_ops)]
    current, has_ellipsis, i = 0, False, 0
    while i < len(lhs):
        ch = lhs[i]
        if ch == " ":
            pass
        elif ch == ".":
            if has_ellipsis:
                raise TorchRuntimeError(
                    f"einsum(): found '.' for operand {current} for which an ellipsis was "
                    "already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise TorchRuntimeError(
                    f"einsum(): found '.' for operand {current} that is not part of any "
                    "ellipsis")
            i += 2
            labels[current].append(_ELLIPSIS)
            has_ellipsis = True
        elif ch == ",":
            current += 1
            if current >= num_ops:
                raise TorchRuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation")
            has_ellipsis = False
        else:
            if not (ch.isascii() and ch.isalpha()):
                raise TorchRuntimeError(
                    f"einsum(): invalid subscript given at index {i} in the equation string, "
                    "subscripts must be in [a-zA-Z]")
            labels[current].append(_subscript(ch))
        i += 1
    if current != num_ops - 1:
        raise TorchRuntimeError(
            "einsum(): more operands were provided than specified in the equation")
    return labels


def sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list[int], keepdim: bool) -> Tensor:
    """ATen's sumproduct_pair: (left * right).sum(sum_dims) through one bmm."""
    if not sum_dims:
        return left * right
    ndim = left.ndim
    summed = set(sum_dims)
    lro: list[int] = []
    lo: list[int] = []
    ro: list[int] = []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise TorchRuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise TorchRuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    if lo and ro and ro[-1] < lo[0]:
        # torch 2.13 (pytorch#161755) multiplies right by left when every right-only dim
        # comes before every left-only one, so that bmm's output is laid out as the result
        # is (contiguous where lro dims lead): measured on the operands bmm receives
        left, right, lo, ro, lo_size, ro_size = right, left, ro, lo, ro_size, lo_size
    out_size = ([left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sum_dims)
                + [right.shape[d] for d in ro])
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [-1] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    left = reshape(permute(left, tuple(lperm)), (lro_size, lo_size, sum_size))
    right = reshape(permute(right, tuple(rperm)), (lro_size, sum_size, ro_size))
    result = permute(view(bmm(left, right), tuple(out_size)), tuple(operm))
    if not keepdim:
        sizes = [s for i, s in enumerate(result.shape) if i not in summed]
        result = view(result, tuple(sizes))
    return result


def _sublist_letter(n: Any) -> str:
    """A sublist entry as an equation letter: 0-25 are A-Z, 26-51 a-z, Ellipsis `...`."""
    if n is Ellipsis:
        return "..."
    if isinstance(n, int) and 0 <= n < 26:
        return chr(ord("A") + n)
    if isinstance(n, int) and 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise TorchValueError(
        "einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(equation: Any, *operands: Any) -> Tensor:
    if isinstance(equation, Tensor):  # the sublist format: op, [subscripts], op, ..., [out]
        args = (equation, *operands)
        if len(args) < 2:
            raise TorchValueError(
                "einsum(): must specify the equation string and at least one operand, or at "
                "least one operand and its subscripts list")
        equation = ",".join("".join(_sublist_letter(n) for n in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_sublist_letter(n) for n in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    if not isinstance(equation, str):
        raise TorchTypeError("einsum(): argument 'equation' (position 1) must be str, not "
                             f"{type_name(equation)}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise TorchRuntimeError("einsum(): must provide at least one operand")
    num_ops = len(operands)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_inputs(lhs, num_ops)

    label_count = [0] * _ELLIPSIS
    ell_num_dim = 0
    for i, (op, labels) in enumerate(zip(operands, op_labels, strict=True)):
        nlabels = len(labels)
        has_ellipsis = _ELLIPSIS in labels
        if has_ellipsis:
            nlabels -= 1
            ell_num_dim = max(ell_num_dim, op.ndim - nlabels)
        for s in labels:
            if s != _ELLIPSIS:
                label_count[s] += 1
        if (nlabels > op.ndim) if has_ellipsis else (nlabels != op.ndim):
            what = ("is more than the number of dimensions" if has_ellipsis
                    else "does not match the number of dimensions")
            tail = "" if has_ellipsis else " and no ellipsis was given"
            raise TorchRuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) {what} "
                f"({op.ndim}) for operand {i}{tail}")

    perm_of = [-1] * _ELLIPSIS
    perm_index = 0
    ell_index = 0
    ell_in_output = False
    if arrow < 0:
        perm_index = ell_num_dim
        ell_in_output = True
        for s in range(_ELLIPSIS):
            if label_count[s] == 1:
                perm_of[s] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            ch = rhs[i]
            if ch == ".":
                if ell_in_output:
                    raise TorchRuntimeError(
                        "einsum(): found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise TorchRuntimeError(
                        "einsum(): found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            elif ch != " ":
                if not (ch.isascii() and ch.isalpha()):
                    raise TorchRuntimeError(
                        f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                        "equation string, subscripts must be in [a-zA-Z]")
                s = _subscript(ch)
                if not (label_count[s] > 0 and perm_of[s] == -1):
                    why = (" appears more than once in the output" if perm_of[s] > -1
                           else " does not appear in the equation for any input operand")
                    raise TorchRuntimeError(f"einsum(): output subscript {ch}{why}")
                perm_of[s] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(_ELLIPSIS):
        if label_count[s] > 0 and perm_of[s] == -1:
            perm_of[s] = perm_index
            perm_index += 1

    label_size = [1] * _ELLIPSIS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops: list[Tensor] = []
    for i, (op, labels) in enumerate(zip(operands, op_labels, strict=True)):
        permutation = [-1] * perm_index
        dim = 0
        for s in labels:
            if s == _ELLIPSIS:
                ndim = op.ndim - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    if op.shape[dim] != 1:
                        if ell_sizes[j] not in (1, op.shape[dim]):
                            raise TorchRuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}"
                                f"has size {op.shape[dim]} which does not broadcast with "
                                f"previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension")
                        ell_sizes[j] = op.shape[dim]
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_of[s]] == -1:
                if op.shape[dim] != 1:
                    if label_size[s] not in (1, op.shape[dim]):
                        raise TorchRuntimeError(
                            f"einsum(): subscript {_label(s)} has size {op.shape[dim]} for "
                            f"operand {i} which does not broadcast with previously seen size "
                            f"{label_size[s]}")
                    label_size[s] = op.shape[dim]
                    dim_counts[perm_of[s]] += 1
                permutation[perm_of[s]] = dim
                dim += 1
            else:  # a repeated label: its diagonal
                from .matrices import diagonal

                prev = permutation[perm_of[s]]
                if op.shape[dim] != op.shape[prev]:
                    raise TorchRuntimeError(
                        f"einsum(): subscript {_label(s)} is repeated for operand {i} but the "
                        f"sizes don't match, {op.shape[dim]} != {op.shape[prev]}")
                op = movedim(diagonal(op, 0, prev, dim), -1, prev)
        for k, val in enumerate(permutation):
            if val == -1:
                op = op.unsqueeze(dim)
                permutation[k] = dim
                dim += 1
        ops.append(permute(op, tuple(permutation)))

    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims: list[int] = []
        a_sum: list[int] = []
        b_sum: list[int] = []
        for dim in range(out_num_dim, perm_index):
            if a.shape[dim] != 1 and b.shape[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a.shape[dim] != 1:
                    a_sum.append(dim)
                    dim_counts[dim] = 0
                elif b.shape[dim] != 1:
                    b_sum.append(dim)
                    dim_counts[dim] = 0
        if a_sum:
            a = a.sum(tuple(a_sum), True)
        if b_sum:
            b = b.sum(tuple(b_sum), True)
        ops.insert(0, sumproduct_pair(a, b, sum_dims, True))

    result = ops[0]
    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            return view(result, tuple(result.shape[:out_num_dim]))
        return result.sum(tuple(range(out_num_dim, perm_index)))
    return result
