"""The NumPy backend: one kernel table, gathered from one file per op family.

Each family module lists its kernels in ``__all__``; this package is the table (a kernel defined
twice is an error), and ``Device("cpu").backend`` is this module.
"""

from .. import kernel_table
from . import (activation, array_api, attention, bitwise, color, compare, components, conv,
               core, creation, distributed, dlpack, dropout, elementwise, fft,
               indexing, io, linalg, linear, loss, morphology, movement, nn,
               normalization, optim, pool, quantization, random, reduce,
               sampling, scan, segments, slicing, sort, suppression, threads)

FAMILIES = (core, creation, movement, segments, slicing, elementwise, bitwise, compare, reduce,
            scan, sort, indexing, linalg, random, nn, activation, linear, conv, pool,
            normalization, loss, dropout, attention, optim, io, threads, sampling,
            quantization, color, morphology, components, suppression, distributed,
            dlpack, array_api, fft)
name = "numpy"


KERNELS = kernel_table(FAMILIES, name)
globals().update(KERNELS)
