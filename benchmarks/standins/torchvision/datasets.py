"""Synthetic stand-ins of torchvision's MNIST-like datasets (28x28 uint8 images of 10 classes,
each class a fixed random blob pattern plus noise) and of FakeData (random images and labels);
the same on every run."""

import numpy as np

__all__ = ["MNIST", "FashionMNIST", "FakeData"]


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


class FakeData:
    """``size`` random ``image_size`` (C, H, W) images, as height x width x channels uint8
    arrays (what ToTensor takes), and random labels below ``num_classes``; image ``i`` is
    drawn from a stream seeded with ``i + random_offset``, so it is the same on every read."""

    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None,
                 target_transform=None, random_offset=0):
        self.size, self.image_size, self.num_classes = size, tuple(image_size), num_classes
        self.transform, self.target_transform = transform, target_transform
        self.random_offset = random_offset

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        if not 0 <= index < self.size:
            raise IndexError(f"{type(self).__name__} index out of range")
        rng = np.random.default_rng(index + self.random_offset)
        c, h, w = self.image_size
        img = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
        target = int(rng.integers(0, self.num_classes))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target
