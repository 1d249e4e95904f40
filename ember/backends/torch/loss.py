"""The loss kernels of the PyTorch backend: the defaults of ember/backends/base/loss.py."""

__all__ = []
