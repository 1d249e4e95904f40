"""Torch kernels of the color family (the same names and meanings as the NumPy backend's)."""

__all__ = []
