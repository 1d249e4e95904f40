"""Torch kernels of the sort family (the same names and meanings as the NumPy backend's)."""

__all__ = []
