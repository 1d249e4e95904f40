"""Torch kernels of the creation family (the same names and meanings as the NumPy backend's)."""

__all__ = []
