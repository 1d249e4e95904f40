"""PyTorch's ``Bilinear``, ``Unflatten`` and ``EmbeddingBag`` modules, with PyTorch's
arguments, parameters, initialization and repr.

>>> import ember
>>> from ember import nn
>>> nn.Unflatten(1, (2, 3))(ember.ones(4, 6)).shape
(4, 2, 3)
"""

import math

from ..devices import as_device
from ..errors import InvalidParameterError
from .._tensor import Tensor
from ..ops import misc_more as M
from ..ops.creation import tensor
from ..ops.nn_args import _int, _real
from . import init
from .layers import _bool, _check_input, _float_dtype
from .module import Module

__all__ = ["Bilinear", "Unflatten", "EmbeddingBag", "DataParallel"]


class Bilinear(Module):
    """``F.bilinear`` with a learnt ``weight`` (out, in1, in2) and ``bias`` (out,), both
    uniform in ``±1/sqrt(in1_features)`` as PyTorch.

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Bilinear(2, 3, 4)
    >>> m, m(ember.ones(5, 2), ember.ones(5, 3)).shape
    (Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True), (5, 4))
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        name = "Bilinear"
        self.in1_features = _int(in1_features, name, "in1_features", 0)
        self.in2_features = _int(in2_features, name, "in2_features", 0)
        self.out_features = _int(out_features, name, "out_features", 0)
        _bool(bias, name, "bias")
        dt, dev = _float_dtype(dtype, name), as_device(device, name)
        bound = 1 / math.sqrt(self.in1_features) if self.in1_features else 0.0
        shape = (self.out_features, self.in1_features, self.in2_features)
        self.weight = init.uniform(shape, -bound, bound, dtype=dt, device=dev)
        self.bias = (init.uniform((self.out_features,), -bound, bound, dtype=dt, device=dev)
                     if bias else None)

    def forward(self, input1, input2):
        """Apply the layer to ``input1`` and ``input2``."""
        return M.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Unflatten(Module):
    """Splits dim ``dim`` into ``unflattened_size``, PyTorch's ``nn.Unflatten``.

    >>> from ember import nn
    >>> nn.Unflatten(-1, [2, 2])
    Unflatten(dim=-1, unflattened_size=[2, 2])
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim = _int(dim, "Unflatten", "dim", -(1 << 62))
        if not isinstance(unflattened_size, (tuple, list)) or not unflattened_size:
            raise InvalidParameterError(
                f"Unflatten: unflattened_size {unflattened_size!r} must be a non-empty tuple "
                "or list of ints", "unflattened_size", unflattened_size)
        for s in unflattened_size:
            _int(s, "Unflatten", "unflattened_size", -1)
        self.unflattened_size = unflattened_size

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return _check_input(input, "Unflatten").unflatten(self.dim,
                                                          tuple(self.unflattened_size))

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class EmbeddingBag(Module):
    """``F.embedding_bag`` with a learnt ``weight`` (num_embeddings, embedding_dim), N(0, 1)
    (the ``padding_idx`` row zero), PyTorch's ``nn.EmbeddingBag``;
    ``forward(input, offsets=None, per_sample_weights=None)``. ``sparse=True`` raises
    InvalidParameterError (ember has no sparse gradients).

    >>> import ember
    >>> from ember import nn
    >>> bag = nn.EmbeddingBag(10, 3, mode="sum")
    >>> bag, bag(ember.tensor([1, 2, 4, 5]), ember.tensor([0, 2])).shape
    (EmbeddingBag(10, 3, mode='sum'), (2, 3))
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        name = "EmbeddingBag"
        self.num_embeddings = _int(num_embeddings, name, "num_embeddings", 0)
        self.embedding_dim = _int(embedding_dim, name, "embedding_dim", 0)
        self.max_norm = None if max_norm is None else _real(max_norm, name, "max_norm", 0.0)
        self.norm_type = _real(norm_type, name, "norm_type")
        self.scale_grad_by_freq = _bool(scale_grad_by_freq, name, "scale_grad_by_freq")
        if mode not in ("sum", "mean", "max"):
            raise InvalidParameterError(f"{name}: mode {mode!r} is unknown; expected 'sum', "
                                        "'mean' or 'max'", "mode", mode)
        self.mode = mode
        if _bool(sparse, name, "sparse"):
            raise InvalidParameterError(f"{name}: sparse=True is not supported: ember has no "
                                        "sparse gradients", "sparse", sparse)
        self.sparse = sparse
        self.include_last_offset = _bool(include_last_offset, name, "include_last_offset")
        n = self.num_embeddings
        if padding_idx is not None:
            padding_idx = _int(padding_idx, name, "padding_idx", -n)
            if padding_idx >= n:
                raise InvalidParameterError(f"{name}: padding_idx {padding_idx} is out of "
                                            f"range for {n} embeddings", "padding_idx",
                                            padding_idx)
            padding_idx %= n
        self.padding_idx = padding_idx
        dt, dev = _float_dtype(dtype, name), as_device(device, name)
        shape = (n, self.embedding_dim)
        if _weight is not None:
            if not isinstance(_weight, Tensor) or tuple(_weight.shape) != shape:
                raise InvalidParameterError(f"{name}: _weight must be a Tensor of shape "
                                            f"{shape}", "_weight", _weight)
            self.weight = _weight.detach().require_grad()
            return
        w = init.normal(shape, dtype=dt, device=dev, requires_grad=False)
        if padding_idx is not None:
            w = w * _zero_row(n, padding_idx, w)
        self.weight = w.require_grad()

    def forward(self, input, offsets=None, per_sample_weights=None):
        """The bags' sums, means or maxima (see the class docstring for an example)."""
        return M.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s


def _zero_row(n, row, like):
    """A (n, 1) column of ones with a zero at ``row``."""
    return tensor([[0.0 if i == row else 1.0] for i in range(n)], dtype=like.dtype,
                  device=like.device).reshape((n, 1))


class DataParallel(Module):
    """PyTorch's ``nn.DataParallel`` on one device: ``forward`` calls the wrapped ``module``
    (as PyTorch does with a single device); ``device_ids``, ``output_device`` and ``dim`` are
    kept. Its state-dict keys are the module's under ``module.``, as PyTorch's.

    >>> from ember import nn
    >>> dp = nn.DataParallel(nn.Linear(2, 3))
    >>> [k for k in dp.state_dict()]
    ['module.weight', 'module.bias']
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not isinstance(module, Module):
            raise InvalidParameterError(f"DataParallel: module must be a Module, got "
                                        f"{type(module).__name__}", "module", module)
        self.module = module
        self.device_ids = [] if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.dim = _int(dim, "DataParallel", "dim", -(1 << 62))

    def forward(self, *inputs, **kwargs):
        """Call the wrapped module."""
        return self.module(*inputs, **kwargs)
