"""Torch kernels of the fft family: none; each is written once in
ember/backends/base/fft.py."""

__all__ = []
