"""NumPy kernels of the sampling family: none; every one is written once in ember/backends/base/sampling.py."""

__all__ = []
