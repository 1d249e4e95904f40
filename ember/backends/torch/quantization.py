"""Torch kernels of the quantization family: none; each is written once in
ember/backends/base/quantization.py."""

__all__ = []
