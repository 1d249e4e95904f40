"""Synthetic stand-ins of torchvision's MNIST-like datasets: 28x28 uint8 images of 10 classes,
each class a fixed random blob pattern plus noise, the same on every run."""

import numpy as np

__all__ = ["MNIST", "FashionMNIST"]


class _Digits:
    sizes = {True: 3000, False: 1000}

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        rng = np.random.default_rng(1234)
        protos = rng.random((10, 28, 28)) ** 3 * 255
        rng = np.random.default_rng(1 if train else 2)
        n = self.sizes[bool(train)]
        self.targets = rng.integers(0, 10, n)
        noise = rng.normal(0, 40, (n, 28, 28))
        self.data = np.clip(protos[self.targets] + noise, 0, 255).astype(np.uint8)
        self.transform, self.target_transform = transform, target_transform

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        img, target = self.data[index], int(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class MNIST(_Digits):
    pass


class FashionMNIST(_Digits):
    pass
