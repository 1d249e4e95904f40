"""The NumPy backend: one kernel table, gathered from one file per op family.

Each family module lists its kernels in ``__all__``; this package is the table (a kernel defined
twice is an error), and ``Device("cpu").backend`` is this module.
"""

from .. import kernel_table
from . import (array_api, bitwise, color, compare, components, core, creation, distributed,
               dlpack, elementwise, fft, indexing, io, linalg, morphology, movement, nn, optim,
               quantization, random, reduce, sampling, scan, segments, slicing, sort,
               suppression, threads)

FAMILIES = (core, creation, movement, segments, slicing, elementwise, bitwise, compare, reduce,
            scan, sort, indexing, linalg, random, nn, optim, io, threads, sampling, quantization,
            color, morphology, components, suppression, distributed, dlpack, array_api, fft)
name = "numpy"


KERNELS = kernel_table(FAMILIES, name)
globals().update(KERNELS)
