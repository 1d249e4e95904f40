"""Stand-in of torchvision.utils.save_image: the images of a batch side by side in a grid,
written as an 8-bit PNG (made with zlib; no imaging library needed)."""

import struct
import zlib

import numpy as np

__all__ = ["save_image"]


def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def save_image(tensor, fp, nrow=8, padding=2, normalize=False, value_range=None, **_):
    """Writes the (N, C, H, W) or (C, H, W) ``tensor`` to ``fp`` as a PNG grid of ``nrow``
    images a row; ``normalize`` maps [min, max] (or ``value_range``) to [0, 1]."""
    arr = np.asarray(tensor.detach().cpu().numpy(), dtype=np.float64)
    if arr.ndim == 3:
        arr = arr[None]
    if normalize:
        low, high = value_range if value_range is not None else (arr.min(), arr.max())
        arr = (np.clip(arr, low, high) - low) / max(high - low, 1e-5)
    n, c, h, w = arr.shape
    if c == 1:
        arr = np.repeat(arr, 3, axis=1)
    cols = min(nrow, n)
    rows = -(-n // cols)
    grid = np.zeros((3, rows * (h + padding) + padding, cols * (w + padding) + padding))
    for k in range(n):
        y, x = divmod(k, cols)
        top, left = y * (h + padding) + padding, x * (w + padding) + padding
        grid[:, top:top + h, left:left + w] = arr[k]
    pixels = (np.clip(grid, 0, 1) * 255 + 0.5).astype(np.uint8).transpose(1, 2, 0)
    raw = b"".join(b"\0" + row.tobytes() for row in pixels)
    height, width = pixels.shape[:2]
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    png = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw))
           + _chunk(b"IEND", b""))
    if isinstance(fp, str):
        with open(fp, "wb") as f:
            f.write(png)
    else:
        fp.write(png)
