"""Attributes a script sets on `torch.Tensor` or `nn.Parameter` themselves: fastai's course
patches `torch.Tensor.ndim = property(lambda x: len(x.shape))`, notebooks add helpers
(`torch.Tensor.show = lambda self: ...`). In torch these land in the Python class's dict,
ahead of TensorBase's C attributes, so every tensor sees them; here they are kept per run
and looked up before the engine's attributes. Dunders and private names stay refused
(printing, operators and torch's internals never call a script's replacement)."""
from __future__ import annotations

from typing import Any

from ..engine.tensor import Tensor
from ..tensor_types import PARAMETER, TENSOR, TensorType, tensor_class_of
from .objects import MISSING

# the classes a script may add attributes to, and the classes each one's instances see
PATCHABLE = (TENSOR, PARAMETER)
_LOOKUP = {TENSOR: (TENSOR,), PARAMETER: (PARAMETER, TENSOR)}


class TensorClassAttributes:
    """By class, the names a script set on it. Tensor attribute reads test `by_class`
    first (a dict's truth, no call): empty, as in nearly every script, it costs them that."""

    __slots__ = ("by_class",)

    def __init__(self) -> None:
        self.by_class: dict[TensorType, dict[str, Any]] = {}

    def set(self, cls: TensorType, name: str, value: Any) -> None:
        self.by_class.setdefault(cls, {})[name] = value

    def delete(self, cls: TensorType, name: str) -> bool:
        """Remove `name` from `cls` itself; False when the script never set it there."""
        own = self.by_class.get(cls)
        if own is None or name not in own:
            return False
        del own[name]
        if not own:
            del self.by_class[cls]
        return True

    def on_class(self, cls: TensorType, name: str) -> Any:
        """What the script set for `name` on `cls` or a base it sees, else MISSING."""
        for klass in _LOOKUP.get(cls, ()):
            own = self.by_class.get(klass)
            if own is not None and name in own:
                return own[name]
        return MISSING

    def on_tensor(self, tensor: Tensor, name: str) -> Any:
        return self.on_class(tensor_class_of(tensor), name)
