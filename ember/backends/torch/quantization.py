"""Torch kernels of the quantization family: none; every one is written once in ember/backends/base/quantization.py."""

__all__ = []
