"""The op families; importing this package attaches every method to Tensor."""

from . import elementwise, arith, operators, float_math, clamps, complex_parts  # noqa: F401
from . import (bitwise, compare, creation, data, display, indexing, inplace, linalg,  # noqa: F401
               movement, quantization, random, reduce, sampling, scan, segments, slicing, sort)
from . import decompositions, norms  # noqa: F401
from . import activation, attention, conv, dropout, linear, loss, normalization, pool  # noqa: F401
