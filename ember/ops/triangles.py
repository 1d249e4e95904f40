"""Triangles and diagonals of matrices: the bool masks ``triu_mask``, ``tril_mask`` and
``diag_mask`` (Burn's, also static methods of Tensor: ``Tensor.triu_mask((3, 3), 0)``) and the
ops ``triu`` and ``tril`` (PyTorch's, also methods: ``t.triu(1)``), over the last two dims.
"""

from .. import dtypes as _dt
from ..errors import InvalidParameterError
from .._tensor import check_tensor, tensor_method, wrap
from .creation import _check_nbytes, _device_arg, _int_arg, _shape_arg
from .indexing import linear_map

__all__ = ["triu_mask", "tril_mask", "diag_mask", "triu", "tril"]


def _within(offset, shape):
    """``offset`` clamped to the matrices' extent: past it every offset keeps the same elements
    (so any Python int works, on every backend, as the exact answer)."""
    bound = max(shape[-2], shape[-1])
    return min(max(offset, -bound), bound)


def _mask(op, part, shape, offset, device):
    shape = _shape_arg((shape,), op)
    if len(shape) < 2:
        raise InvalidParameterError(
            f"{op}: shape {shape} has rank {len(shape)}; expected a rank >= 2 (a matrix or a "
            "batch of matrices)", "shape", shape)
    offset = _within(_int_arg(offset, op, "offset"), shape)
    be = _device_arg(device, op).backend
    _check_nbytes(shape, _dt.bool_, op)
    return wrap(be.creation_tri_mask(shape, offset, part, op=op), _dt.bool_)


def triu_mask(shape, offset=0, device=None):
    """Burn's ``triu_mask``: a bool mask of ``shape`` (rank >= 2, over the last two dims) that is
    **False on the upper triangle** (column - row >= ``offset``) and True elsewhere, ready for
    ``mask_fill`` of everything outside it.

    >>> import ember
    >>> ember.Tensor.triu_mask((3, 3), 0).tolist()
    [[False, False, False], [True, False, False], [True, True, False]]
    """
    return _mask("triu_mask", "upper", shape, offset, device)


def tril_mask(shape, offset=0, device=None):
    """Burn's ``tril_mask``: bool mask, **False on the lower triangle** (column - row <=
    ``offset``), True elsewhere.

    >>> import ember
    >>> ember.Tensor.tril_mask((3, 3), 0).tolist()
    [[False, True, True], [False, False, True], [False, False, False]]
    """
    return _mask("tril_mask", "lower", shape, offset, device)


def diag_mask(shape, offset=0, device=None):
    """Burn's ``diag_mask``: bool mask, **False on the diagonal** (column - row == ``offset``),
    True elsewhere.

    >>> import ember
    >>> ember.Tensor.diag_mask((3, 3), 0).tolist()
    [[False, True, True], [True, False, True], [True, True, False]]
    """
    return _mask("diag_mask", "diag", shape, offset, device)


def _tri(op, self, diagonal, upper):
    check_tensor(self, op, "self")
    diagonal = _int_arg(diagonal, op, "diagonal")
    if self._data.ndim < 2:
        raise InvalidParameterError(
            f"{op}: self has shape {tuple(self.shape)} (rank {self._data.ndim}); expected a "
            "tensor of rank >= 2 (a matrix or a batch of matrices)", "self", tuple(self.shape))
    diagonal = _within(diagonal, self._data.shape)
    be = self._device.backend

    def keep(a):  # a mask: its own transpose
        return be.creation_tri_keep(a, diagonal, upper)

    return linear_map(self, keep, keep, op)


def triu(self, diagonal=0):
    """The upper triangle (column - row >= ``diagonal``) of the last two dims, zeros elsewhere;
    any kind, with gradient for floats (PyTorch's ``triu``).

    >>> import ember
    >>> ember.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).triu(1).tolist()
    [[0, 2, 3], [0, 0, 6], [0, 0, 0]]
    """
    return _tri("triu", self, diagonal, True)


def tril(self, diagonal=0):
    """The lower triangle (column - row <= ``diagonal``) of the last two dims, zeros elsewhere;
    any kind, with gradient for floats (PyTorch's ``tril``).

    >>> import ember
    >>> ember.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).tril(-1).tolist()
    [[0, 0, 0], [4, 0, 0], [7, 8, 0]]
    """
    return _tri("tril", self, diagonal, False)


for _f in (triu_mask, tril_mask, diag_mask):
    tensor_method(_f, static=True)
for _f in (triu, tril):
    tensor_method(_f)
del _f
