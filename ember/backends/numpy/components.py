"""NumPy kernels of the components family: none; every one is written once in ember/backends/base/components.py."""

__all__ = []
