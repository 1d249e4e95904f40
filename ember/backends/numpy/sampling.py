"""NumPy kernels of the sampling family: none; each is written once in
ember/backends/base/sampling.py."""

__all__ = []
