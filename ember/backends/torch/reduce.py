"""Torch kernels of the reduce family (the same names and meanings as the NumPy backend's)."""

__all__ = []
