"""PyTorch's padding modules: ``ZeroPad``, ``ConstantPad``, ``ReflectionPad``,
``ReplicationPad`` and ``CircularPad`` in 1, 2 and 3 dims, over ``F.pad``; ``padding`` is an
int (every side) or PyTorch's flat (left, right, top, bottom, front, back) tuple.

>>> import ember
>>> from ember import nn
>>> nn.ZeroPad2d((1, 0, 0, 0))(ember.ones(1, 1, 2)).tolist()
[[[0.0, 1.0, 1.0]]]
"""

from ..errors import InvalidParameterError, ShapeMismatchError
from ..ops.nn_args import _int, _real, _shape_str
from . import functional as F
from .layers import _check_input
from .module import Module

__all__ = []


class _Pad(Module):
    _nd = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        name, nd = type(self).__name__, self._nd
        if isinstance(padding, (tuple, list)):
            if len(padding) != 2 * nd:
                raise InvalidParameterError(
                    f"{name}: padding {padding!r} must be an int or {2 * nd} ints", "padding",
                    padding)
            self.padding = tuple(_int(p, name, "padding") for p in padding)
        else:
            self.padding = (_int(padding, name, "padding"),) * (2 * nd)
        if self._mode != "constant" and min(self.padding) < 0:
            raise InvalidParameterError(f"{name}: padding {padding!r} must not be negative",
                                        "padding", padding)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        name, nd = type(self).__name__, self._nd
        x = _check_input(input, name)
        if self._mode != "constant":
            if x.ndim not in (nd + 1, nd + 2):
                raise ShapeMismatchError(
                    f"{name}: input has shape {_shape_str(x.shape)}; expected {nd + 1} or "
                    f"{nd + 2} dims", expected=(nd + 1, nd + 2), actual=tuple(x.shape))
            for i in range(nd):
                size, (a, b) = x.shape[-1 - i], self.padding[2 * i: 2 * i + 2]
                limit = size - 1 if self._mode == "reflect" else size
                if self._mode != "replicate" and (a > limit or b > limit):
                    raise InvalidParameterError(
                        f"{name}: padding ({a}, {b}) of dim {x.ndim - 1 - i} must be at most "
                        f"{limit} for an input of shape {_shape_str(x.shape)}", "padding",
                        self.padding)
        elif x.ndim < nd:
            raise ShapeMismatchError(
                f"{name}: input has shape {_shape_str(x.shape)}; expected at least {nd} dims",
                expected=nd, actual=tuple(x.shape))
        return F.pad(x, self.padding, self._mode, getattr(self, "value", 0.0))

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPad(_Pad):
    def __init__(self, padding, value):
        super().__init__(padding)
        _real(value, type(self).__name__, "value")
        self.value = value

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


def _make(kind, base, mode, nd, doc):
    name = f"{kind}{nd}d"
    cls = type(name, (base,), {"_nd": nd, "_mode": mode, "__doc__": doc,
                               "__module__": __name__})
    globals()[name] = cls
    __all__.append(name)


_DOCS = {
    "ZeroPad": "Pads the last {nd} dims with zeros, PyTorch's ``nn.ZeroPad{nd}d``.",
    "ConstantPad": "Pads the last {nd} dims with ``value``, PyTorch's ``nn.ConstantPad{nd}d``.",
    "ReflectionPad": "Pads the last {nd} dims with their reflection (the edge not repeated), "
                     "PyTorch's ``nn.ReflectionPad{nd}d``.",
    "ReplicationPad": "Pads the last {nd} dims by repeating their edge, PyTorch's "
                      "``nn.ReplicationPad{nd}d``.",
    "CircularPad": "Pads the last {nd} dims by wrapping around, PyTorch's "
                   "``nn.CircularPad{nd}d``.",
}

for _nd in (1, 2, 3):
    for _kind, _base, _mode in (("ZeroPad", _Pad, "constant"),
                                ("ConstantPad", _ConstantPad, "constant"),
                                ("ReflectionPad", _Pad, "reflect"),
                                ("ReplicationPad", _Pad, "replicate"),
                                ("CircularPad", _Pad, "circular")):
        _example = (f"\n\n    >>> from ember import nn\n    >>> nn.{_kind}{_nd}d(1"
                    + (", 0.5" if _kind == "ConstantPad" else "") + ").padding\n    "
                    + repr((1,) * (2 * _nd)) + "\n    ")
        _make(_kind, _base, _mode, _nd, _DOCS[_kind].format(nd=_nd) + _example)
del _nd, _kind, _base, _mode, _example
