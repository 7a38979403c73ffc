"""Attribute writes and deletes: `obj.name = value` and `del obj.name`, per type, as the
reads in `attributes.py` are. Nothing here calls Python's setattr with a name the script
chose."""
from __future__ import annotations

from typing import Any

from .. import stdlib, torch_namespace
from ..engine.custom_function import FunctionCtx
from ..engine.tensor import Tensor
from ..errors import NotSupportedError, ScriptError
from . import descriptors, tensor_subclasses
from .attributes import TensorDicts
from .chaining import CHAIN_NAMES, set_chain_attribute
from .objects import (
    Instance,
    Method,
    Property,
    ScriptClass,
    UserFunction,
    is_dunder,
)
from .tensor_class_attributes import PATCHABLE as PATCHABLE_TENSOR_CLASSES
from .typed_classes import NamedTupleNew
from .value_attributes import STATE_METADATA, state_metadata


class AttributeWrites:
    """The Interpreter's mixin for `obj.name = value` and `del obj.name`."""

    tensor_dicts: TensorDicts
    namedtuple_classes: set[type]
    module_attributes: dict[str, dict[str, Any]]

    def set_attribute(self, obj: Any, name: str, value: Any) -> None:
        if self.tracer is not None:
            self.tracer.attribute_write(self._set_attribute, obj, name, value)
        else:
            self._set_attribute(obj, name, value)

    def _set_attribute(self, obj: Any, name: str, value: Any) -> None:
        kind = type(obj)
        if name in CHAIN_NAMES and (isinstance(obj, ScriptError) or kind is Instance
                                    and obj.cls.exception_kind is not None):
            set_chain_attribute(obj, name, self.exception_link(value))
            return
        if kind is Instance:
            self.instance_setattr(obj, name, value)
            return
        if kind is ScriptClass:
            self.class_setattr(obj, name, value)
            return
        if kind is tensor_subclasses.ScriptTensor:
            found = tensor_subclasses.own_lookup(obj.pyclass, name)
            if type(found) is Property:  # the class's property setter
                if found.fset is None:
                    raise ScriptError(f"property '{name}' of '{obj.pyclass.name}' object "
                                      "has no setter", kind="AttributeError")
                self.call(found.fset, [obj, value], {}, None)
                return
            if type(found) is Instance and descriptors.is_data_descriptor(found):
                descriptors.assign(self, found, obj, name, value)
                return
            setter = stdlib.TENSOR_SETTERS.get(name)
            if setter is not None:
                tensor_subclasses.property_write(self, obj, name, setter, value)
                return
        if isinstance(obj, Tensor):
            setter = stdlib.TENSOR_SETTERS.get(name)
            if setter is not None:
                setter(obj, value)
                return
            if name in stdlib.TENSOR_ATTRIBUTES:  # torch's getset descriptors
                raise ScriptError(
                    f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable",
                    kind="AttributeError")
            if not is_dunder(name) and (not stdlib.torch_has(obj, name) or
                                        name in stdlib.TENSOR_METHODS or
                                        name in stdlib.TENSOR_LIBRARY_METHODS):
                # a name torch's Tensor lacks is the script's own, kept apart from the
                # tensor: `p.update = g` and, underscored, learn2learn's Meta-SGD `p._lr = lr`;
                # so is a method's name, which the value then shadows on this tensor
                self.tensor_dicts.setdefault(obj)[name] = value
                return
        if isinstance(obj, FunctionCtx):
            stdlib.set_ctx_attribute(obj, name, value)
            return
        if kind is NamedTupleNew and name == "__defaults__":
            obj.set_defaults(value)
            return
        if kind is torch_namespace.FlagNamespace and name in obj.flags:
            obj.set_flag(name, value)
            return
        if kind is UserFunction and name == "__doc__":  # any object, as Python's functions
            obj.doc = value  # take (Hugging Face's add_start_docstrings prepends to it)
            return
        if kind is UserFunction and not is_dunder(name) and not obj.library:  # its own
            if obj.attrs is None:  # (Python keeps it in the function's __dict__: fairseq's
                obj.attrs = {}  # `buffered_arange.buf = torch.LongTensor()`)
            obj.attrs[name] = value
            return
        if kind is Method and name == "__doc__":
            raise ScriptError("attribute '__doc__' of 'method' objects is not writable",
                              kind="AttributeError")
        if kind is stdlib.OrderedDict and name == STATE_METADATA:
            obj.state_metadata = value  # (nn_intrinsics.state_dict_metadata reads it)
            return
        if obj is self.script_module and not is_dunder(name):  # `d2l.Vocab = Vocab`
            obj.table[name] = value  # (the module's variables)
            return
        if stdlib.is_private(name):
            raise stdlib.not_supported_attribute(obj, name)
        if obj in PATCHABLE_TENSOR_CLASSES:  # the class's dict, seen by every tensor
            self.tensor_class_attributes.set(obj, name, value)
            return
        if isinstance(obj, stdlib.Namespace) and obj.name.split(".")[0] == "torch" and \
                (kind is stdlib.Namespace or kind is torch_namespace.FlagNamespace and
                 obj.shown is None) and (name not in obj.table
                                         or type(obj.table[name]) is float):
            # a name a torch module lacks (pytorch-flows' `nn.MaskedLinear = MaskedLinear`,
            # the UvA tutorials' misspelt `torch.backends.cudnn.determinstic = True`; not
            # cuda.matmul, an object whose __setattr__ takes only its switches), or one of
            # its float constants (KalmanNet's `torch.pi = torch.acos(torch.zeros(1)).item()
            # * 2`, read back by the script; the engine never reads it); any other name it
            # has stays refused: torch's own code would call the script's replacement
            self.module_attributes.setdefault(obj.name, {})[name] = value
            return
        if kind in self.namedtuple_classes:  # a namedtuple's fields are read-only properties
            if name in obj._fields:
                raise ScriptError("can't set attribute", kind="AttributeError")
            raise ScriptError(f"'{kind.__name__}' object has no attribute '{name}'",
                              kind="AttributeError")
        raise NotSupportedError(
            f"setting attribute '{name}' on {stdlib.owner_name(obj)} is not supported")

    def del_attribute(self, obj: Any, name: str) -> None:
        """`del obj.name`."""
        kind = type(obj)
        if name in CHAIN_NAMES and (isinstance(obj, ScriptError) or kind is Instance
                                    and obj.cls.exception_kind is not None):
            raise ScriptError(f"{name} may not be deleted", kind="TypeError")
        if kind is Instance:
            self.instance_delattr(obj, name)
        elif kind is ScriptClass:
            self.class_delattr(obj, name)
        elif isinstance(obj, Tensor) and name in (self.tensor_dicts.get(obj) or ()):
            del self.tensor_dicts.get(obj)[name]
        elif obj in PATCHABLE_TENSOR_CLASSES and \
                self.tensor_class_attributes.delete(obj, name):
            pass
        elif obj is self.script_module and not is_dunder(name):
            if name not in obj.table:
                raise stdlib.missing_namespace_name(obj, name)
            del obj.table[name]
        elif isinstance(obj, FunctionCtx) and name in (obj.user_attrs or ()):
            del obj.user_attrs[name]  # `del ctx.result` (torch's tutorial frees it in jvp)
        elif kind is stdlib.OrderedDict and name == STATE_METADATA:
            state_metadata(obj)  # (Python's AttributeError when there is none)
            del obj.state_metadata
        elif kind is UserFunction and not is_dunder(name):
            if obj.attrs is None or name not in obj.attrs:
                raise ScriptError(f"'function' object has no attribute '{name}'",
                                  kind="AttributeError")
            del obj.attrs[name]
        elif stdlib.is_private(name):
            raise stdlib.not_supported_attribute(obj, name)
        else:
            raise NotSupportedError(
                f"deleting attribute '{name}' of {stdlib.owner_name(obj)} is not supported")
