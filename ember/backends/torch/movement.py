"""Torch kernels of the movement family (the same names and meanings as the NumPy backend's)."""

__all__ = []
