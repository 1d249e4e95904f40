"""Torch kernels of the dlpack family (the same names and meanings as the NumPy backend's)."""

__all__ = []
