"""Torch kernels of the nn family (the same names and meanings as the NumPy backend's)."""

__all__ = []
