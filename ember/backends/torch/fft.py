"""Torch kernels of the fft family: none; every one is written once in ember/backends/base/fft.py."""

__all__ = []
