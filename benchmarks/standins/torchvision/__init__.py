"""A local stand-in for the parts of torchvision that example programs use to download data:
``datasets.MNIST`` / ``FashionMNIST`` (synthetic, learnable, made on the spot) and the
``transforms`` they apply. Used by benchmarks/real_programs.py in place of the downloads, for
PyTorch and for ember.torch alike (``STANDIN_TORCH`` names the module whose tensors it makes).
"""

from . import datasets, transforms  # noqa: F401
