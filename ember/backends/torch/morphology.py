"""Torch kernels of the morphology family: none; each is written once in
ember/backends/base/morphology.py."""

__all__ = []
