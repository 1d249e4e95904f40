"""Torch kernels of the suppression family (the same names and meanings as the NumPy backend's)."""

__all__ = []
