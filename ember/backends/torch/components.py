"""Torch kernels of the components family (the same names and meanings as the NumPy backend's)."""

__all__ = []
