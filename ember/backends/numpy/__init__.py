"""The NumPy backend: one kernel table, gathered from one file per op family.

Each family module lists its kernels in ``__all__``; this package is the table (a kernel defined
twice is an error), and ``Device("cpu").backend`` is this module.
"""

from . import (array_api, bitwise, color, compare, components, core, creation, distributed,
               dlpack, elementwise, indexing, io, linalg, morphology, movement, nn, optim,
               quantization, random, reduce, sampling, scan, segments, slicing, sort,
               suppression, threads)

FAMILIES = (core, creation, movement, segments, slicing, elementwise, bitwise, compare, reduce,
            scan, sort, indexing, linalg, random, nn, optim, io, threads, sampling, quantization,
            color, morphology, components, suppression, distributed, dlpack, array_api)
name = "numpy"


def _kernels():
    table = {}
    for module in FAMILIES:
        for kernel in module.__all__:
            if kernel in table and table[kernel] is not getattr(module, kernel):
                raise RuntimeError(f"numpy backend: kernel {kernel!r} is defined twice")
            table[kernel] = getattr(module, kernel)
    return table


KERNELS = _kernels()
globals().update(KERNELS)
