"""The attention kernels of the PyTorch backend: the defaults of ember/backends/base/attention.py."""

__all__ = []
