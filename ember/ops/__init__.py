"""The op families; importing this package attaches every method to Tensor."""

from . import (bitwise, compare, creation, data, display, elementwise, indexing, linalg,  # noqa: F401
               movement, random, reduce, sampling, scan, segments, slicing, sort)
