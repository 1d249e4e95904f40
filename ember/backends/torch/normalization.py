"""The normalization kernels of the PyTorch backend: the defaults of
ember/backends/base/normalization.py."""

__all__ = []
