"""Torch kernels of the indexing family (the same names and meanings as the NumPy backend's)."""

__all__ = []
