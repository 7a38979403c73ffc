"""gradtrace: see what PyTorch's autograd does, step by step, without PyTorch."""

__version__ = "0.1.0"
