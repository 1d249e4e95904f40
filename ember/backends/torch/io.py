"""Torch kernels of the io family (the same names and meanings as the NumPy backend's)."""

__all__ = []
