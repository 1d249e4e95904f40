"""Torch kernels of the slicing family (the same names and meanings as the NumPy backend's)."""

__all__ = []
