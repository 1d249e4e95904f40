"""The op families; importing this package attaches every method to Tensor."""

from . import (bitwise, compare, conversion, creation, data, display, elementwise,  # noqa: F401
               indexing, inplace, linalg, movement, quantization, random, reduce, sampling, scan,
               segments, slicing, sort)
from . import decompositions, norms  # noqa: F401
from . import activation, attention, conv, dropout, linear, loss, normalization, pool  # noqa: F401
