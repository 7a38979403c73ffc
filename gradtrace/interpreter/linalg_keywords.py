"""torch.linalg's keyword names, where the engine function names its parameters otherwise:
torch 2.13's parser takes `torch.linalg.solve(A=..., B=...)`, `torch.linalg.eigh(input=...)`,
`torch.linalg.lu_solve(LU=..., pivots=..., B=...)` (measured by calling each without
arguments). A call through the torch.linalg function (the script's TorchFunction of module
`torch._C._linalg`, whose name tells it from torch.det & co, which share the engine function)
has its keywords renamed to the engine's before the call. A keyword torch's parser does not
take (the engine's own `a` for an `A`) is its error: the required parameters from the first
one neither positional nor named are "missing" (python_arg_parser.cpp's missing_args, its
inverted plural included), else the keyword is unexpected."""
from __future__ import annotations

import inspect
from typing import Any

from ..errors import NotSupportedError, ScriptError
from .torch_arguments import _NUMPY_ALIASES

MODULE = "torch._C._linalg"
_A, _INPUT = {"A": "a"}, {"input": "a"}
# name -> (its required parameters, torch's name -> the engine's)
PARAMETERS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    **{name: (("A",), _A) for name in (
        "det", "diagonal", "inv", "inv_ex", "lu", "lu_factor", "lu_factor_ex", "qr", "slogdet",
        "svd", "svdvals")},
    **{name: (("A", "B"), {"A": "a", "B": "b"}) for name in ("solve", "solve_ex")},
    **{name: (("input",), _INPUT) for name in (
        "cholesky", "cholesky_ex", "cond", "eig", "eigh", "eigvals", "eigvalsh", "ldl_factor",
        "ldl_factor_ex", "matrix_exp", "matrix_norm", "matrix_rank", "norm", "pinv",
        "tensorinv", "vector_norm")},
    "matmul": (("input", "other"), _INPUT),
    "lstsq": (("input", "b"), _INPUT),
    "matrix_power": (("input", "n"), _INPUT),
    "solve_triangular": (("input", "B", "upper"), {"input": "a", "B": "b"}),
    "tensorsolve": (("input", "other"), {"input": "a", "other": "b"}),
    "householder_product": (("input", "tau"), {"input": "v"}),
    "ldl_solve": (("LD", "pivots", "B"), {"LD": "ld", "B": "b"}),
    "lu_solve": (("LU", "pivots", "B"), {"LU": "lu", "B": "b"}),
}
# torch's parser words a wrong keyword to these as "received an invalid combination of
# arguments", listing their signatures (four, or two: a Number or a str `ord`)
_OVERLOADED = frozenset(("pinv", "matrix_rank", "norm", "matrix_norm", "cond"))
_KNOWN: dict[str, frozenset[str]] = {}


def _known(name: str, engine_fn: Any) -> frozenset[str] | None:
    """The keywords torch's parser takes for torch.linalg.<name>."""
    found = _KNOWN.get(name)
    if found is None:
        own_names = {own: torch_name for torch_name, own in PARAMETERS[name][1].items()}
        try:
            names = [own_names.get(p, p) for p in inspect.signature(engine_fn).parameters]
        except (TypeError, ValueError):
            return None
        found = _KNOWN[name] = frozenset(names)
    return found


def _accepted(known: frozenset[str], kwargs: dict[str, Any]) -> frozenset[str]:
    """`known` and numpy's names the parser also takes for them (`torch.linalg.norm(x,
    axis=-1)`), each only where torch's own name is not given (`dim=0, axis=0` has an
    unexpected `axis`)."""
    return known.union(*(aliases for own, aliases in _NUMPY_ALIASES.items()
                         if own in known and own not in kwargs))


def torch_keywords(name: str, engine_fn: Any, args: Any, kwargs: dict[str, Any]
                   ) -> dict[str, Any]:
    """The keywords of a call of torch.linalg.<name> (torch's `linalg_<name>`) under the
    engine function's names, or torch's TypeError for one its parser does not take."""
    short = name.removeprefix("linalg_")
    if short not in PARAMETERS:
        return kwargs
    required, renamed = PARAMETERS[short]
    known = _known(short, engine_fn)
    if known is None:
        return kwargs
    known = _accepted(known, kwargs)
    wrong = [key for key in kwargs if key not in known]
    if wrong:
        if short in _OVERLOADED:
            raise NotSupportedError(f"torch.linalg.{short}'s error for the keyword argument "
                                    f"'{wrong[0]}' (its overloads' message) is not reproduced "
                                    "by gradtrace")
        first = next((i for i, p in enumerate(required)
                      if i >= len(args) and p not in kwargs), None)
        if first is None:
            raise ScriptError(f"{name}() got an unexpected keyword argument '{wrong[0]}'",
                              kind="TypeError")
        missing = required[first:]
        listed = ", ".join(f'"{p}"' for p in missing)
        raise ScriptError(f"{name}() missing {len(missing)} required positional "
                          f"argument{'s' if len(missing) == 1 else ''}: {listed}",
                          kind="TypeError")
    return {renamed.get(key, key): value for key, value in kwargs.items()}
