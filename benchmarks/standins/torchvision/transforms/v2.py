"""Stand-ins of torchvision.transforms.v2: ToImage, ToDtype, Compose, Lambda, Normalize."""

import numpy as np

from .._torch import module
from . import Compose, Lambda, Normalize

__all__ = ["ToImage", "ToDtype", "Compose", "Lambda", "Normalize"]


class ToImage:
    """An HxW (or HxWxC) array -> a CxHxW tensor of the same dtype (uint8 for images)."""

    def __call__(self, img):
        arr = np.asarray(img)
        arr = arr[None] if arr.ndim == 2 else np.moveaxis(arr, -1, 0)
        return module().tensor(np.ascontiguousarray(arr))


class ToDtype:
    """Casts to ``dtype``; with ``scale=True`` integer images are scaled to [0, 1]."""

    def __init__(self, dtype, scale=False):
        self.dtype, self.scale = dtype, scale

    def __call__(self, x):
        out = x.to(self.dtype)
        if self.scale and not x.is_floating_point() and out.is_floating_point():
            out = out / 255.0
        return out
