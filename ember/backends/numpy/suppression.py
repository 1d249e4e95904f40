"""NumPy kernels of the suppression family: none; every one is written once in ember/backends/base/suppression.py."""

__all__ = []
