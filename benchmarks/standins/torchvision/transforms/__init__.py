"""Stand-ins of torchvision.transforms: ToTensor, Normalize, Compose, Lambda (and `v2`)."""

import numpy as np

from .._torch import module

__all__ = ["ToTensor", "Normalize", "Compose", "Lambda"]


class ToTensor:
    def __call__(self, img):
        arr = np.asarray(img, dtype=np.float32) / 255.0
        if arr.ndim == 2:
            arr = arr[None]
        else:  # height x width x channels, as an image
            arr = np.ascontiguousarray(arr.transpose(2, 0, 1))
        return module().tensor(arr)


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, x):
        torch = module()
        mean = torch.tensor(self.mean, dtype=x.dtype).reshape(-1, 1, 1)
        std = torch.tensor(self.std, dtype=x.dtype).reshape(-1, 1, 1)
        return (x - mean) / std


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class Lambda:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, x):
        return self.fn(x)
