"""Torch kernels of the quantization family (the same names and meanings as the NumPy backend's)."""

__all__ = []
