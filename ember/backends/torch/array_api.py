"""Torch kernels of the array_api family: none; every one is written once in ember/backends/base/array_api.py."""

__all__ = []
