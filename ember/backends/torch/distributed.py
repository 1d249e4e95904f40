"""Torch kernels of the distributed family (the same names and meanings as the NumPy backend's)."""

__all__ = []
