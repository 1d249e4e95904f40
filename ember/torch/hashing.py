"""PyTorch's ``hash_tensor``: an XOR reduction of the elements' 64-bit patterns.

``hash_tensor(input, dim=None, *, keepdim=False, mode=0)``: each element is widened to its
64-bit type (floats to float64, ints and bools to int64), its bits read as a uint64, and the
patterns of the reduced dims combined with XOR (``mode=0``, the only mode PyTorch defines).
PyTorch has no hash of uint16, uint32 and uint64 tensors; ember hashes them the same way (a
uint64's own bits). The result is uint64, of the reduction's shape; as PyTorch's, reducing every dim of an empty
tensor needs an explicit ``dim``, a reduced dim of size 0 raises ``DimensionError`` and
complex tensors have no hash (``KindError``).

>>> import ember.torch as torch
>>> torch.hash_tensor(torch.tensor([1, 2, 3])).item()
0
>>> torch.hash_tensor(torch.tensor([[1.0, 2.0]]), 1).tolist()
[9218868437227405312]
"""

import math

import ember as _e

from .. import dtypes as _dt
from ..errors import DimensionError, InvalidParameterError, KindError
from .._tensor import Tensor as _T
from ._tensor import as_torch, torch_function, torch_method
from .legacy_types import tensor_bytes, tensor_of_bytes

__all__ = ["hash_tensor"]


def _dims(dim, ndim, op):
    if dim is None:
        return tuple(range(ndim))
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    out = []
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool):
            raise KindError(f"{op}: dim must be an int or a sequence of ints, got {dim!r}")
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise InvalidParameterError(f"{op}: dim {d} is out of range for a tensor of {ndim} "
                                        "dims", "dim", dim)
        out.append(d % max(ndim, 1))
    if len(set(out)) != len(out):
        raise InvalidParameterError(f"{op}: dim {dim!r} names a dim twice", "dim", dim)
    return tuple(sorted(out)) if ndim else ()


def _bits(t, op):
    """The 64-bit patterns of ``t``'s elements, widened to 64 bits, as a uint64 tensor."""
    if t._dtype is _dt.uint64:
        wide = t  # already 64 bits (a cast to int64 could not hold the top half)
    else:
        wide = t.to(_dt.float64 if t._dtype.kind == "float" else _dt.int64)
    words = tensor_of_bytes(tensor_bytes(wide), _dt.uint64, t.numel(), op)
    return as_torch(words.reshape(tuple(t.shape)).to(t.device))


def _xor_last(u):
    """XOR of ``u`` along its last dim (a halving fold; zeros are XOR's identity)."""
    while u.shape[-1] > 1:
        n = u.shape[-1]
        if n % 2:
            u = _e.cat([u, _e.zeros(tuple(u.shape[:-1]) + (1,), dtype=u.dtype,
                                   device=u.device)], -1)
        half = u.shape[-1] // 2
        u = as_torch(u[..., :half]).bitwise_xor(u[..., half:])
    if u.shape[-1] == 0:
        return as_torch(_e.zeros(tuple(u.shape[:-1]), dtype=u.dtype, device=u.device))
    return u[..., 0]


@torch_method
@torch_function
def hash_tensor(input, dim=None, *, keepdim=False, mode=0):  # noqa: A002
    """The XOR hash of ``input``'s elements over ``dim`` (all dims when None); see the module
    docstring.

    >>> import ember.torch as torch
    >>> torch.hash_tensor(torch.tensor([True, False])).item()
    1
    """
    op = "hash_tensor"
    if not isinstance(input, _T):
        raise KindError(f"{op}: input must be a Tensor, got {type(input).__name__}")
    if mode != 0:
        raise InvalidParameterError(f"{op}: mode must be 0 (xor reduction), got {mode!r}",
                                    "mode", mode)
    if input._dtype.kind == "complex":
        raise KindError(f"{op}: is not defined for complex tensors ({input._dtype.name})")
    if dim is None and input.numel() == 0:
        raise InvalidParameterError(f"{op}: Expected reduction dim to be specified for "
                                    "input.numel() == 0. Specify the reduction dim with the "
                                    "'dim' argument.", "dim", dim)
    dims = _dims(dim, input.ndim, op)
    for d in dims:
        if input.shape[d] == 0:
            raise DimensionError(f"{op}: Expected reduction dim {d} to have non-zero size.")
    u = _bits(input.detach(), op)
    if input.ndim == 0:
        return u
    kept = [d for d in range(input.ndim) if d not in dims]
    shape = tuple(input.shape)
    u = u.permute(*kept, *dims).reshape(tuple(shape[d] for d in kept)
                                        + (math.prod(shape[d] for d in dims),))
    out = _xor_last(u)
    if keepdim:
        out = out.reshape(tuple(1 if d in dims else shape[d] for d in range(input.ndim)))
    return out
