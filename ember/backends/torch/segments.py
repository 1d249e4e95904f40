"""Torch kernels of the segments family (the same names and meanings as the NumPy backend's)."""

__all__ = []
