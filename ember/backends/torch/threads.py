"""Torch kernels of the threads family (the same names and meanings as the NumPy backend's)."""

__all__ = []
