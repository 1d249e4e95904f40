"""Torch kernels for the thread settings: PyTorch's intra-op pool on the CPU
(``torch.set_num_threads``), and the BLAS/OpenMP pools through the NumPy kernels' environment
variables for pools loaded later."""

import os

import torch

__all__ = ["threads_set", "threads_get"]

_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


def threads_set(n):
    """Use ``n`` threads in PyTorch's CPU pool; returns True (the pool is always loaded)."""
    for var in _VARS:
        os.environ[var] = str(n)
    torch.set_num_threads(n)
    return True


def threads_get():
    """The threads of PyTorch's CPU pool."""
    return torch.get_num_threads()
