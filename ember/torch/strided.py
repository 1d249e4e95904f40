"""PyTorch's memory-layout API on ember's tensors, which hold their values in row-major order
and have no strides of their own to show (``x.stride()`` is the row-major one).

- ``as_strided(input, size, stride, storage_offset=0)`` reads ``input``'s values as a flat
  row-major buffer at the given strides (a gather: differentiable, overlapping reads add their
  gradients). PyTorch reads the tensor's storage, so for a tensor that is a non-contiguous view
  in PyTorch (``x.t()``) the two differ: ember reads ``x.t()``'s own values in row-major
  order, as PyTorch's ``x.t().contiguous()``. ``as_strided_scatter`` writes ``src`` there.
- ``frombuffer`` and ``from_file`` copy the bytes (PyTorch's tensor shares them), so
  ``from_file(shared=True)``, whose tensor writes through to the file, is refused.
- ``empty_permuted``, ``Tensor.new_empty_strided``: zeros of the size (the layout arguments are
  checked; ember's tensors are always row-major); ``Tensor.dim_order()`` is the row-major order.
- ``Tensor.pin_memory()`` raises without an accelerator (as PyTorch's) and returns the tensor
  with one (ember does not page-lock memory; a copy to the device is the same);
  ``is_pinned()`` is False. ``share_memory_()`` returns the tensor (ember's values reach
  worker processes by pickling) and ``is_shared()`` is False.

>>> import ember.torch as torch
>>> torch.arange(6.0).as_strided((2, 2), (1, 2), 1).tolist()
[[1.0, 3.0], [2.0, 4.0]]
>>> torch.ones(2, 4).sum_to_size(2, 1).tolist()
[[4.0], [4.0]]
"""

import math
import os

import ember as _e

from ..errors import DeviceError, InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import as_int
from .._tensor import Tensor as _T
from ._tensor import as_torch, functions, torch_function, torch_method
from .legacy_types import tensor_of_bytes

__all__ = ["as_strided", "as_strided_scatter", "frombuffer", "from_file", "empty_permuted", "layout",
           "strided"]


class layout:
    """PyTorch's ``torch.layout``: ember's tensors are all ``strided`` (dense)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return (layout, (self.name,))


layout.__module__ = "ember.torch"
strided = layout("strided")
functions["layout"] = layout
functions["strided"] = strided


def _ints(values, op, param):
    if isinstance(values, int) and not isinstance(values, bool):
        values = (values,)
    if not isinstance(values, (tuple, list)):
        raise KindError(f"{op}: {param} must be a sequence of ints, got {type(values).__name__}")
    return tuple(as_int(v, op, param) for v in values)


def _sizes(args, op):
    """PyTorch's ``*size`` or ``size`` argument as a tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return _ints(args, op, "size")


def _check(t, op):
    if not isinstance(t, _T):
        raise KindError(f"{op}: input must be a Tensor, got {type(t).__name__}")


def _strided_index(numel, size, stride, offset, op, device):
    """The flat positions (an int64 tensor of shape ``size``) that ``size``/``stride``/``offset``
    read in a buffer of ``numel`` elements."""
    size = _ints(size, op, "size")
    stride = _ints(stride, op, "stride")
    offset = as_int(offset, op, "storage_offset")
    if len(size) != len(stride):
        raise ShapeMismatchError(f"{op}: mismatch in length of strides and shape: size {size}, "
                                 f"stride {stride}", expected=len(size), actual=len(stride))
    if any(s < 0 for s in size):
        raise InvalidParameterError(f"{op}: sizes must be >= 0, got {size}", "size", size)
    if any(s < 0 for s in stride):
        raise InvalidParameterError(f"{op}: negative strides are not supported, got {stride}",
                                    "stride", stride)
    if offset < 0:
        raise InvalidParameterError(f"{op}: storage_offset must be >= 0, got {offset}",
                                    "storage_offset", offset)
    if math.prod(size):
        need = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
        if need > numel:
            raise InvalidParameterError(
                f"{op}: sizes {list(size)}, strides {list(stride)} and storage offset {offset} "
                f"need {need} elements, but the tensor has {numel}", "size", size)
    idx = _e.full(tuple(size), offset, dtype=_e.int64, device=device)
    for d, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        idx = idx + (_e.arange(n, dtype=_e.int64, device=device) * s).reshape(shape)
    return idx


@torch_method
@torch_function
def as_strided(input, size, stride, storage_offset=0):  # noqa: A002  (PyTorch's names)
    """The tensor of shape ``size`` whose element ``i`` is ``input``'s flat (row-major) element
    ``storage_offset + sum(i[k] * stride[k])``, as ``torch.as_strided`` (see the module
    docstring for what differs).

    >>> import ember.torch as torch
    >>> torch.as_strided(torch.arange(4.0), (3, 2), (1, 1)).tolist()
    [[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]]
    """
    op = "as_strided"
    _check(input, op)
    idx = _strided_index(input.numel(), size, stride, storage_offset, op, input.device)
    return as_torch(input).take(idx)


@torch_method
@torch_function
def as_strided_scatter(input, src, size, stride, storage_offset=0):  # noqa: A002
    """``input`` with the elements ``as_strided(input, size, stride, storage_offset)`` reads
    replaced by ``src``, as ``torch.as_strided_scatter``.

    >>> import ember.torch as torch
    >>> torch.as_strided_scatter(torch.zeros(4), torch.ones(2), (2,), (2,)).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    op = "as_strided_scatter"
    _check(input, op)
    _check(src, op)
    idx = _strided_index(input.numel(), size, stride, storage_offset, op, input.device)
    if tuple(src.shape) != tuple(idx.shape):
        raise ShapeMismatchError(f"{op}: src must have the shape {tuple(idx.shape)} (size), got "
                                 f"{tuple(src.shape)}", expected=tuple(idx.shape),
                                 actual=tuple(src.shape))
    flat = input.reshape(-1)
    if not idx.numel():
        return flat.reshape(input.shape) + 0
    out = _e.scatter(flat, 0, idx.reshape(-1), src.reshape(-1).to(input.dtype))
    return out.reshape(input.shape)


@torch_method
def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                      requires_grad=False, pin_memory=False):
    """A new tensor of ``size`` (zeros: ember's are row-major; ``stride`` is checked), of this
    tensor's dtype and device unless given, as PyTorch's ``new_empty_strided``."""
    op = "new_empty_strided"
    size, stride = _ints(size, op, "size"), _ints(stride, op, "stride")
    if len(size) != len(stride):
        raise ShapeMismatchError(f"{op}: mismatch in length of strides and shape", expected=len(
            size), actual=len(stride))
    return self.new_zeros(size, dtype=dtype, device=device, requires_grad=requires_grad)


@torch_function
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """A tensor of ``size`` (zeros) as ``torch.empty_permuted``; ``physical_layout`` (a
    permutation of the dims) is checked, ember's tensors being row-major.

    >>> import ember.torch as torch
    >>> torch.empty_permuted((2, 3), (1, 0)).shape
    torch.Size([2, 3])
    """
    op = "empty_permuted"
    size = _ints(size, op, "size")
    perm = _ints(physical_layout, op, "physical_layout")
    if sorted(perm) != list(range(len(size))):
        raise InvalidParameterError(f"{op}: physical_layout must be a permutation of the "
                                    f"{len(size)} dims, got {perm}", "physical_layout", perm)
    return functions["zeros"](size, dtype=dtype, device=device, requires_grad=requires_grad)


@torch_method
def sum_to_size(self, *size):
    """This tensor summed down to ``size``, which must broadcast to its shape, as PyTorch's
    ``sum_to_size``."""
    op = "sum_to_size"
    size = _sizes(size, op)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise ShapeMismatchError(f"{op}: size {list(size)} is not expandable to size "
                                 f"{list(shape)}", expected=shape, actual=size)
    out = self.sum(tuple(range(lead))) if lead else self
    dims = tuple(d for d, (s, n) in enumerate(zip(size, shape[lead:])) if s == 1 and n != 1)
    if dims:
        out = out.sum(dims, keepdim=True)
    return out


@torch_method
def resize(self, *sizes):
    """This tensor's values in shape ``sizes`` (the same number of elements), as PyTorch's
    out-of-place ``resize``."""
    op = "resize"
    sizes = _sizes(sizes, op)
    if math.prod(sizes) != self.numel():
        raise ShapeMismatchError(f"{op}: requested resize to {list(sizes)} ({math.prod(sizes)} "
                                 f"elements), but the tensor has {self.numel()} elements; the "
                                 "out-of-place resize keeps the number of elements",
                                 expected=self.numel(), actual=math.prod(sizes))
    return self.reshape(sizes)


@torch_method
def resize_as(self, tensor):
    """``resize`` to ``tensor``'s shape."""
    _check(tensor, "resize_as")
    return resize(self, tuple(tensor.shape))


# -- bytes and files ---------------------------------------------------------------------------

def _dtype_or_default(dtype, op):
    from .info import _dtype
    return _dtype(dtype, op)


@torch_function
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor of ``count`` elements of ``dtype`` (-1: all) read from an object with the
    buffer protocol, from byte ``offset``, as ``torch.frombuffer`` (a copy of the bytes).

    >>> import ember.torch as torch
    >>> torch.frombuffer(bytearray(b"\\x01\\x00\\x02\\x00"), dtype=torch.int16).tolist()
    [1, 2]
    """
    op = "frombuffer"
    dtype = _dtype_or_default(dtype, op)
    try:
        raw = memoryview(buffer).cast("B")
    except TypeError:
        raise KindError(f"{op}: buffer must support the buffer protocol, got "
                        f"{type(buffer).__name__}") from None
    count, offset = as_int(count, op, "count"), as_int(offset, op, "offset")
    n, size = len(raw), dtype.itemsize
    if n == 0 or count == 0:
        raise InvalidParameterError(f"{op}: both buffer length ({n}) and count ({count}) must "
                                    "not be 0", "count", count)
    if not 0 <= offset < n:
        raise InvalidParameterError(f"{op}: offset ({offset} bytes) must be non-negative and "
                                    f"no greater than buffer length ({n} bytes) minus 1",
                                    "offset", offset)
    if count < 0:
        if (n - offset) % size:
            raise InvalidParameterError(f"{op}: buffer length ({n - offset} bytes) after offset "
                                        f"({offset} bytes) must be a multiple of element size "
                                        f"({size})", "buffer", n)
        count = (n - offset) // size
    elif offset + count * size > n:
        raise InvalidParameterError(f"{op}: requested buffer length ({count} * {size} bytes) "
                                    f"after offset ({offset} bytes) must not be greater than "
                                    f"actual buffer length ({n} bytes)", "count", count)
    out = tensor_of_bytes(raw[offset:offset + count * size], dtype, count, op)
    return out.requires_grad_(requires_grad) if requires_grad else out


@torch_function
def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False):
    """A 1-d tensor of the first ``size`` elements of ``dtype`` (default: the default dtype)
    stored in the file, as ``torch.from_file`` with ``shared=False`` (a copy);
    ``shared=True`` is refused (ember's tensor cannot write through to the file).

    >>> import os, tempfile, ember.torch as torch
    >>> path = os.path.join(tempfile.mkdtemp(), "x.bin")
    >>> _ = open(path, "wb").write(bytes([1, 2, 3]))
    >>> torch.from_file(path, size=2, dtype=torch.uint8).tolist()
    [1, 2]
    """
    op = "from_file"
    if shared:
        raise InvalidParameterError(f"{op}: shared=True maps the file so that the tensor's "
                                    "updates write it; ember's tensors are values and cannot; "
                                    "use shared=False (a copy)", "shared", shared)
    dtype = _dtype_or_default(dtype, op)
    size = as_int(size, op, "size")
    if size < 0:
        raise InvalidParameterError(f"{op}: size must be >= 0, got {size}", "size", size)
    try:
        path = os.fspath(filename)
    except TypeError:
        raise InvalidParameterError(f"{op}: filename must be a path (str, bytes or os.PathLike), "
                                    f"got {type(filename).__name__}", "filename",
                                    filename) from None
    need = size * dtype.itemsize
    try:
        with open(path, "rb") as f:
            data = f.read(need)
    except OSError as exc:
        raise InvalidParameterError(f"{op}: cannot read {path!r}: {exc}", "filename",
                                    filename) from None
    if len(data) < need:
        raise InvalidParameterError(f"{op}: file {path!r} size <{len(data)}> is smaller than "
                                    f"the required mapping size <{need}>", "size", size)
    out = tensor_of_bytes(data, dtype, size, op)
    return out.to(device) if device is not None else out


# -- memory placement and layout predicates ------------------------------------------------------

@torch_method
def pin_memory(self, device=None):
    """As PyTorch's: raises without an accelerator; with one, returns this tensor (ember does not
    page-lock memory)."""
    from . import accelerator
    if not accelerator.is_available():
        raise DeviceError("pin_memory: cannot access accelerator device when none is "
                          "available")
    return self


torch_method(lambda self, device=None: False, name="is_pinned")
torch_method(lambda self: False, name="is_shared")
torch_method(lambda self: self, name="share_memory_")
torch_method(lambda self: strided, name="layout", prop=True)
for _name in ("is_xpu", "is_xla", "is_ipu", "is_mtia", "is_maia", "is_vulkan", "is_nested"):
    torch_method(lambda self: False, name=_name, prop=True)


@torch_method
def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory: row-major, ``(0, 1, ..., ndim - 1)``;
    with ``ambiguity_check`` a shape whose order is not unique (a dim of size 1, or two dims
    with the same stride) raises, as PyTorch's."""
    if ambiguity_check is not True and ambiguity_check is not False:
        raise KindError(f"dim_order: ambiguity_check must be a bool, got {ambiguity_check!r}")
    shape = tuple(self.shape)
    if ambiguity_check:
        strides = [math.prod(max(s, 1) for s in shape[i + 1:]) for i in range(len(shape))]
        if 1 in shape or len(set(strides)) < len(strides):
            raise InvalidParameterError("dim_order: the tensor does not have a unique dim order",
                                        "ambiguity_check", ambiguity_check)
    return tuple(range(len(shape)))


@torch_method
def const_data_ptr(self):
    """The address of the first element, as ``data_ptr()``."""
    return self.data_ptr()

