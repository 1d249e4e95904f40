"""The NumPy backend: ``NumpyBackend``, its kernels gathered from one file per op family.

Each family module lists its kernels in ``__all__``; every name there is a kernel declared in
``ember/backends/base`` (where the required primitives and the shared defaults live), and
``Device("cpu").backend`` is the one ``NumpyBackend`` instance.
"""

import numpy as np

from ..base import Backend, HostKernels
from ..lazy import Lazy
from . import (activation, array_api, attention, bitwise, compare, conv, core, creation,
               distributed, dlpack, dropout, elementwise, indexing, io, linalg, linear, loss,
               morphology, movement, nn, normalization, optim, pool, quantization, random, reduce,
               scan, segments, slicing, sort, threads)

FAMILIES = (core, creation, movement, segments, slicing, elementwise, bitwise, compare, reduce,
            scan, sort, indexing, linalg, random, nn, activation, linear, conv, pool,
            normalization, loss, dropout, attention, optim, io, threads, quantization, morphology,
            distributed, dlpack, array_api)
name = "numpy"


class NumpyBackend(Backend, HostKernels, kernels=FAMILIES):
    """The kernels of the CPU device on NumPy arrays (with the compiled C kernels of ``jit``)."""

    name = "numpy"
    xp = np
    Array = np.ndarray
    native_device = "cpu"
    RaggedError = core.RaggedError
    RankError = core.RankError
    fuses = True
    writes_in_place = True

    def replay_kernels(self, names, largest):
        """The kernels ``names`` without their warnings wrapper (a replay runs them in one
        ``replay_scope``)."""
        return {n: core.unquiet(getattr(self, n)) for n in names}

    def _prepare(self, kernel):
        """A default (a method of the base) runs as the NumPy kernels do: floating-point
        warnings off (inf and nan are the IEEE answers, not something to warn about), and a
        NumPy scalar result (NumPy's arithmetic on 0-d arrays) as a 0-d array."""
        if getattr(kernel, "__self__", None) is self:
            return core.as_kernel(kernel)
        return kernel


_instance = []


def for_device(device):
    """The backend of ``device`` (the CPU, its one device): the ``NumpyBackend``, which
    ``fuses``, in the fusion wrapper ``Lazy``. Its first use installs the buffer pool
    (``buffers.start``)."""
    if not _instance:
        from . import buffers
        buffers.start()
        _instance.append(NumpyBackend(device))
        _instance.append(Lazy(_instance[0]))
    return _instance[1]


def instances():
    """The NumpyBackend made so far (none before the CPU's first use)."""
    return _instance[:1]


def available_devices():
    """Names of the NumPy backend's devices: the CPU."""
    return ["cpu"]


owns = core.owns
adopt = core.adopt
ember_dtype = core.ember_dtype
