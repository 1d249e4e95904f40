"""Torch kernels of the color family: none; each is written once in
ember/backends/base/color.py."""

__all__ = []
