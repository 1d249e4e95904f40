"""Torch kernels of the linalg family (the same names and meanings as the NumPy backend's)."""

__all__ = []
