"""PyTorch's other dropout modules: Dropout1d/2d/3d (whole channels), AlphaDropout and
FeatureAlphaDropout (for SELU networks), over ember/ops/norms_more.py; active in training,
the identity in eval.

>>> import ember
>>> from ember import nn
>>> nn.Dropout2d(0.3)
Dropout2d(p=0.3, inplace=False)
>>> x = ember.ones(1, 2, 3, 3)
>>> nn.Dropout2d().eval()(x) is x
True
"""

from ..ops import norms_more as N
from .layers import _bool, _check_input, _prob
from .module import Module

__all__ = ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    _fn = None
    _writes = True  # inplace=True writes the input; PyTorch's alpha dropouts only show it

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = _prob(p, type(self).__name__)
        self.inplace = _bool(inplace, type(self).__name__, "inplace")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return type(self)._fn(_check_input(input, type(self).__name__), self.p, self.training,
                              self.inplace and self._writes)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """``F.dropout1d`` as a module.

    >>> from ember import nn
    >>> nn.Dropout1d()
    Dropout1d(p=0.5, inplace=False)
    """

    _fn = staticmethod(N.dropout1d)


class Dropout2d(_DropoutNd):
    """``F.dropout2d`` as a module: zeroes whole channels of (N, C, H, W) inputs.

    >>> import ember
    >>> from ember import nn
    >>> nn.Dropout2d(0.0)(ember.ones(1, 1, 2, 2)).sum().item()
    4.0
    """

    _fn = staticmethod(N.dropout2d)


class Dropout3d(_DropoutNd):
    """``F.dropout3d`` as a module.

    >>> from ember import nn
    >>> nn.Dropout3d(0.1)
    Dropout3d(p=0.1, inplace=False)
    """

    _fn = staticmethod(N.dropout3d)


class AlphaDropout(_DropoutNd):
    """``F.alpha_dropout`` as a module; as PyTorch's, ``inplace=True`` is kept (and shown) but
    the input is never written.

    >>> from ember import nn
    >>> nn.AlphaDropout(0.2)
    AlphaDropout(p=0.2, inplace=False)
    """

    _fn = staticmethod(N.alpha_dropout)
    _writes = False


class FeatureAlphaDropout(_DropoutNd):
    """``F.feature_alpha_dropout`` as a module; as PyTorch's, ``inplace=True`` is kept (and
    shown) but the input is never written.

    >>> from ember import nn
    >>> nn.FeatureAlphaDropout()
    FeatureAlphaDropout(p=0.5, inplace=False)
    """

    _fn = staticmethod(N.feature_alpha_dropout)
    _writes = False
