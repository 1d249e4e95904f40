"""The op families; importing this package attaches every method to Tensor."""

from . import elementwise, arith, operators, float_math, clamps, complex_parts  # noqa: F401
from . import (bitwise, compare, conversion, creation, data, display, indexing,  # noqa: F401
               inplace, linalg, pad, quantization, random, reduce, repeat, sampling, scan,
               segments, slicing, sort, triangles, views)
from . import advanced_indexing, extremes, masking, statistics  # noqa: F401
from . import decompositions, norms  # noqa: F401
from . import activation, attention, conv, dropout, linear, loss, normalization, pool  # noqa: F401
