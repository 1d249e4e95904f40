"""Torch kernels of the elementwise family (the same names and meanings as the NumPy backend's)."""

__all__ = []
