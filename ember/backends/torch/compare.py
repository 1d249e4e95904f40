"""Torch kernels of the compare family (the same names and meanings as the NumPy backend's)."""

__all__ = []
