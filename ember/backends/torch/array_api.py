"""Torch kernels of the array_api family (the same names and meanings as the NumPy backend's)."""

__all__ = []
