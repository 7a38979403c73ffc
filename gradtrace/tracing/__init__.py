"""The trace of one run (`Tracer`) and its records, for the renderers."""
from .backward import SCRIPT_LINES, SCRIPT_NAMES
from .records import (
    BackwardCall,
    BackwardStep,
    Event,
    GradFlow,
    NodeRecord,
    SavedRecord,
    TensorRecord,
    TensorState,
)
from .script_objects import ATTRIBUTE_DEPTH, MODULE_DEPTH, script_modules, script_tensors
from .tracer import Tracer

__all__ = [
    "ATTRIBUTE_DEPTH", "MODULE_DEPTH", "SCRIPT_LINES", "SCRIPT_NAMES", "BackwardCall",
    "BackwardStep", "Event", "GradFlow", "NodeRecord", "SavedRecord", "TensorRecord",
    "TensorState", "Tracer", "script_modules", "script_tensors",
]
