"""ONNX string tensors: ember's tensors hold numbers only, so a graph value of ONNX's STRING
type is a ``Strings`` (the flat list of Python strings and the shape). The string operators
(``ops_text``) read and make them; ``Strings.numpy()`` gives the NumPy object array that
onnx's API and onnxruntime use for string tensors.

>>> s = Strings.of([["a", "b"], ["c", "d"]])
>>> s.shape, s.values
((2, 2), ['a', 'b', 'c', 'd'])
"""

import math


class Strings:
    """A tensor of strings: ``values`` (flat, row-major) and ``shape``."""

    __slots__ = ("values", "shape")

    def __init__(self, values, shape):
        self.values, self.shape = list(values), tuple(shape)

    @classmethod
    def of(cls, value):
        """A Strings of a nested list of str (or bytes), of anything with ``tolist()`` (a
        NumPy array of strings) or of one string."""
        if hasattr(value, "tolist"):
            value = value.tolist()
        shape, level = [], value
        while isinstance(level, (list, tuple)):
            shape.append(len(level))
            level = level[0] if level else None
        flat = []

        def walk(v):
            if isinstance(v, (list, tuple)):
                for e in v:
                    walk(e)
            else:
                flat.append(v.decode() if isinstance(v, bytes) else str(v))
        walk(value)
        return cls(flat, shape)

    @property
    def ndim(self):
        return len(self.shape)

    def numel(self):
        return math.prod(self.shape)

    def nested(self):
        """The values as nested lists of the shape (a str when 0-d)."""
        def build(vals, shape):
            if not shape:
                return vals[0]
            step = math.prod(shape[1:])
            return [build(vals[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]
        return build(self.values, self.shape)

    def numpy(self):
        """A NumPy object array of the strings (onnx's and onnxruntime's string tensors)."""
        import numpy as np
        out = np.empty(self.shape, dtype=object)
        flat = out.reshape(-1)
        for i, v in enumerate(self.values):
            flat[i] = v
        return out

    def __repr__(self):
        return f"Strings({self.nested()!r})"


def broadcast(shapes):
    """The broadcast shape of ``shapes`` (NumPy's rule)."""
    n = max(len(s) for s in shapes)
    out = []
    for i in range(n):
        dims = {s[i - n + len(s)] for s in shapes if i - n + len(s) >= 0} - {1}
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def expand(s, shape):
    """The flat values of Strings ``s`` broadcast to ``shape``."""
    lead = len(shape) - len(s.shape)
    src = (1,) * lead + s.shape
    out = []
    for flat in range(math.prod(shape)):
        idx, rest = 0, flat
        coords = []
        for d in reversed(shape):
            coords.append(rest % d)
            rest //= d
        coords.reverse()
        for c, n in zip(coords, src):
            idx = idx * n + (c if n != 1 else 0)
        out.append(s.values[idx])
    return out
