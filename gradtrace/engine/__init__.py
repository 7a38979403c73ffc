"""The autograd engine: numpy-backed tensors, graph nodes, backward, ops.

Like torch, float arithmetic gives inf/nan silently; numpy's floating-point
warnings would only be noise on the user's terminal.
"""
import numpy as _np

_np.seterr(all="ignore")
