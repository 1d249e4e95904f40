"""PyTorch's real views of complex tensors: ``view_as_real`` (a complex tensor as its real and
imaginary parts in a last dim of size 2) and ``view_as_complex`` (the inverse), and
``Tensor.chalf``.

ember's tensors do not share storage between dtypes, so both return new tensors holding the
same values (a later in-place update of one is not seen by the other). ember computes no
gradients through complex tensors (docs/complex.md), so ``view_as_complex`` of a tensor that
requires grad raises ``KindError``. ember has no ``complex32`` dtype: ``view_as_complex`` of a
float16 tensor and ``Tensor.chalf()`` raise ``KindError`` (PyTorch's complex32 is itself
experimental, with few operators).

>>> import ember.torch as torch
>>> z = torch.view_as_complex(torch.tensor([[1.0, 2.0], [3.0, -1.0]]))
>>> z.tolist()
[(1+2j), (3-1j)]
>>> torch.view_as_real(z).tolist()
[[1.0, 2.0], [3.0, -1.0]]
"""

import ember as _e

from ..errors import KindError, ShapeMismatchError
from .._tensor import Tensor as _T
from ._tensor import torch_function, torch_method

__all__ = ["view_as_real", "view_as_complex", "chalf"]


def _tensor(t, op):
    if not isinstance(t, _T):
        raise KindError(f"{op}: input must be a Tensor, got {type(t).__name__}")
    return t


@torch_function
def view_as_real(input):  # noqa: A002  (PyTorch's name)
    """``input`` (complex) as a real tensor with a last dim of size 2: (real, imaginary).

    >>> import ember.torch as torch
    >>> torch.view_as_real(torch.tensor([1 + 2j])).tolist()
    [[1.0, 2.0]]
    """
    _tensor(input, "view_as_real")
    if input._dtype.kind != "complex":
        raise KindError(f"view_as_real: is only supported for complex tensors, got "
                        f"{input._dtype.name}")
    return _e.stack([input.real, input.imag], -1)


@torch_function
def view_as_complex(input):  # noqa: A002
    """``input`` (float32 or float64, last dim of size 2) as a complex tensor whose real and
    imaginary parts are the two entries of the last dim.

    >>> import ember.torch as torch
    >>> torch.view_as_complex(torch.tensor([0.0, 1.0], dtype=torch.float64)).item()
    1j
    """
    _tensor(input, "view_as_complex")
    if input._dtype.name not in ("float32", "float64"):
        raise KindError(f"view_as_complex: is only supported for float and double tensors "
                        f"(ember has no complex32 for half), got {input._dtype.name}")
    if input.ndim == 0 or input.shape[-1] != 2:
        raise ShapeMismatchError(f"view_as_complex: Tensor must have a last dimension of size "
                                 f"2, got shape {tuple(input.shape)}", expected=2,
                                 actual=tuple(input.shape)[-1:] or None)
    return _e.complex(input[..., 0], input[..., 1])


@torch_method
def chalf(self, memory_format=None):
    """PyTorch's ``self.to(torch.complex32)``: ember has no complex32 dtype, so this raises
    ``KindError``; ``cfloat()`` (complex64) is the nearest ember has.

    >>> import ember.torch as torch
    >>> try:
    ...     torch.ones(1).chalf()
    ... except torch.KindError:
    ...     print("no complex32")
    no complex32
    """
    raise KindError("chalf: ember has no complex32 dtype (PyTorch's is experimental); use "
                    "cfloat() for complex64")
