"""Torch kernels of the morphology family (the same names and meanings as the NumPy backend's)."""

__all__ = []
