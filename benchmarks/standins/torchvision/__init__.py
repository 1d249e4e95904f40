"""A local stand-in for the parts of torchvision that example programs use: ``datasets.MNIST`` /
``FashionMNIST`` and ``FakeData`` (synthetic, made on the spot), the ``transforms`` they apply
and ``utils.save_image``. Used by benchmarks/real_programs.py in place of the downloads, for
PyTorch and for ember.torch alike (``STANDIN_TORCH`` names the module whose tensors it makes).
"""

from . import datasets, transforms, utils  # noqa: F401
