"""Torch kernels of the morphology family: none; every one is written once in ember/backends/base/morphology.py."""

__all__ = []
