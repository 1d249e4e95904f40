"""NumPy kernels of the sort family. Public names here are kernels (`be.NAME`); helpers start with _."""

import numpy as np  # noqa: F401
