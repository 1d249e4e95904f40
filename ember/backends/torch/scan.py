"""Torch kernels of the scan family (the same names and meanings as the NumPy backend's)."""

__all__ = []
