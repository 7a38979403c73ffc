import numpy  # noqa: F401  (the empty script for the numpy runner: start-up + numpy import)
