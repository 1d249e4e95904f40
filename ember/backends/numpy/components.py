"""NumPy kernels of the components family: none; each is written once in
ember/backends/base/components.py."""

__all__ = []
