"""PyTorch's legacy ``nn.CrossMapLRN2d``: local response normalization across the channels of
an (N, C, H, W) input, with the old running-sum window of Torch7's SpatialCrossMapLRN.

For channel ``c`` the sum of squares runs over channels ``c - h .. c + h`` (``h = (size - 1)
// 2``, so an even ``size`` covers ``size - 1`` channels) and, for every ``c > h``, channel 0's
square once more (the running sum never drops it); the output is
``x * (k + alpha / size * sum) ** -beta``. Its gradient is the exact derivative of that
forward (PyTorch's hand-written backward is not, except for small channel counts).

>>> import ember
>>> from ember import nn
>>> lrn = nn.CrossMapLRN2d(3, alpha=1.0, beta=1.0, k=1)
>>> lrn
CrossMapLRN2d(3, alpha=1.0, beta=1.0, k=1)
>>> [round(v, 4) for v in lrn(ember.ones(1, 4, 1, 1)).flatten().tolist()]
[0.6, 0.5, 0.4286, 0.5]
"""

from ..errors import ShapeMismatchError
from ..ops.nn_args import _float_tensor, _int, _real, _shape_str
from ..ops.segments import cat
from .layers import _check_input
from .module import Module

__all__ = ["CrossMapLRN2d"]


def _cross_map_lrn2d(x, size, alpha, beta, k):
    """The forward of ``CrossMapLRN2d`` on a checked 4-d float tensor ``x``."""
    c, h = x.shape[1], (size - 1) // 2
    pads = ((0, 0), (h, h), (0, 0), (0, 0))
    sq = x.square()
    padded = sq.pad(pads)
    total = padded.narrow(1, 0, c)
    for j in range(1, 2 * h + 1):
        total = total + padded.narrow(1, j, c)
    if c > h + 1:  # channel 0 stays in the running sum of every later window
        total = cat([total.narrow(1, 0, h + 1),
                     total.narrow(1, h + 1, c - h - 1) + sq.narrow(1, 0, 1)], 1)
    return x * (total * (alpha / size) + k).pow(-beta)


class CrossMapLRN2d(Module):
    """Cross-channel local response normalization of (N, C, H, W) inputs, PyTorch's legacy
    ``nn.CrossMapLRN2d(size, alpha=1e-4, beta=0.75, k=1)`` (see the module docstring for the
    window it sums over).

    >>> import ember
    >>> from ember import nn
    >>> nn.CrossMapLRN2d(5)(ember.randn(2, 6, 3, 3)).shape
    (2, 6, 3, 3)
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        name = "CrossMapLRN2d"
        self.size = _int(size, name, "size", 1)
        for param, v in (("alpha", alpha), ("beta", beta), ("k", k)):
            _real(v, name, param)
        self.alpha, self.beta, self.k = alpha, beta, k

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        name = "CrossMapLRN2d"
        x = _float_tensor(_check_input(input, name), name)
        if x.ndim != 4:
            raise ShapeMismatchError(f"{name}: input has shape {_shape_str(x.shape)}; expected "
                                     "4-d (N, C, H, W)", expected=4, actual=tuple(x.shape))
        return _cross_map_lrn2d(x, self.size, float(self.alpha), float(self.beta),
                                float(self.k))

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
