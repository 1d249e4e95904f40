"""Torch kernels of the optim family (the same names and meanings as the NumPy backend's)."""

__all__ = []
