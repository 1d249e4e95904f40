"""Torch kernels of the array_api family: none; each is written once in
ember/backends/base/array_api.py."""

__all__ = []
