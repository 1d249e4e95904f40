"""NumPy kernels of the suppression family: none; each is written once in
ember/backends/base/suppression.py."""

__all__ = []
