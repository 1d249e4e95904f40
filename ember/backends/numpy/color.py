"""NumPy kernels of the color family: none; every one is written once in ember/backends/base/color.py."""

__all__ = []
