"""Torch kernels of the bitwise family (the same names and meanings as the NumPy backend's)."""

__all__ = []
