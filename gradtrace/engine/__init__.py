"""The autograd engine: numpy-backed tensors, graph nodes, backward, ops.

Every op is a `node.Function` subclass in its family's module under `ops/`: its forward,
what it saves, its backward, its node name, and its derivative per input as data
(`formulas`, see `formulas.py` and docs/formulas.md; a test requires them of every op).

Like torch, float arithmetic gives inf/nan silently; numpy's floating-point
warnings would only be noise on the user's terminal.
"""
import numpy as _np

_np.seterr(all="ignore")
