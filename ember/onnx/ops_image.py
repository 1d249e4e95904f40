"""The ONNX converter of ImageDecoder: encoded image bytes (a uint8 tensor) to an (H, W, C)
uint8 image, decoded by Pillow (``pip install pillow``), in RGB, BGR or Grayscale (C = 1).

>>> import io, ember
>>> from PIL import Image
>>> from ember.onnx.registry import CONVERTERS, Context
>>> buf = io.BytesIO()
>>> Image.new("RGB", (2, 1), (10, 20, 30)).save(buf, format="PNG")
>>> data = ember.tensor(list(buf.getvalue()), dtype="uint8")
>>> CONVERTERS["ImageDecoder"]([data], {"pixel_format": "BGR"}, Context(20)).tolist()
[[[30, 20, 10], [30, 20, 10]]]
"""

import io

from ..errors import EmberError, InvalidParameterError
from .registry import converter

_MODES = {"RGB": "RGB", "BGR": "RGB", "Grayscale": "L"}


class PillowNotInstalledError(EmberError, ImportError):
    """ImageDecoder needs Pillow: ``pip install pillow``."""


@converter("ImageDecoder")
def image_decoder(x, a, c):
    fmt = a.get("pixel_format", "RGB")
    if fmt not in _MODES:
        raise InvalidParameterError(f"ImageDecoder: pixel_format must be one of "
                                    f"{sorted(_MODES)}, got {fmt!r}", "pixel_format", fmt)
    try:
        from PIL import Image
    except ImportError:
        raise PillowNotInstalledError("ImageDecoder: needs Pillow; install it with "
                                      "`pip install pillow`") from None
    raw = bytes(x[0].reshape(-1).tolist())
    try:
        img = Image.open(io.BytesIO(raw))
        img = img.convert(_MODES[fmt])
    except Exception as exc:  # PIL.UnidentifiedImageError, OSError on truncated data
        raise InvalidParameterError(f"ImageDecoder: the bytes are not an image Pillow can "
                                    f"decode ({exc})", "encoded_stream", len(raw)) from None
    w, h = img.size
    channels = 1 if fmt == "Grayscale" else 3
    out = c.const(list(img.tobytes()), "uint8").reshape(h, w, channels)
    return out.flip([2]) if fmt == "BGR" else out
