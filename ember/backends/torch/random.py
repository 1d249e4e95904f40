"""Torch kernels of the random family (the same names and meanings as the NumPy backend's)."""

__all__ = []
