"""Torch kernels of the sampling family (the same names and meanings as the NumPy backend's)."""

__all__ = []
