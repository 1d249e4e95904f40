"""Backends: the only code that touches an array library. NumPy is the embedded default.

Ops reach kernels through ``ember.backends.default`` (imported as ``be``), a module whose public
functions take and return the backend's own arrays. Another backend is another such module with
the same kernel names.
"""

from . import numpy as default

__all__ = ["default"]
