"""PyTorch's conversions and predicates of a tensor: ``cpu``/``cuda``, the dtype shorthands
(``bfloat16()``, ``byte()`` ...), sizes in bytes, the ``is_*`` predicates, the layout queries
(``stride``, ``storage_offset``, ``data_ptr``), ``requires_grad_``, ``numpy(force=)`` and the
transposes ``T``/``H``/``mH``, with the ``torch.*`` functions of the same names.

ember's values are immutable buffers, so the layout queries describe the buffer the tensor
holds now (``stride`` in elements, as PyTorch's); ``numpy()`` returns a read-only view of it.

>>> import ember.torch as torch
>>> x = torch.ones(2, 3)
>>> x.element_size(), x.nbytes, x.stride(), x.is_floating_point()
(4, 24, (3, 1), True)
>>> x.byte().dtype, x.cpu() is x
(torch.uint8, True)
"""

import ember as _e

from .. import dtypes as _dt
from .._tensor import Tensor as _T
from ..errors import GraphError, InvalidParameterError, KindError
from ._tensor import functions, torch_function, torch_method

__all__ = ["memory_format", "preserve_format", "contiguous_format", "channels_last",
           "channels_last_3d"]


class memory_format:  # noqa: N801  (PyTorch's name)
    """PyTorch's ``torch.memory_format``: ember's buffers are row-major, so every format is
    accepted and gives a row-major (contiguous) result.

    >>> import ember.torch as torch
    >>> torch.channels_last
    torch.channels_last
    """

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def _check_format(fmt, op):
    if not isinstance(fmt, memory_format):
        raise InvalidParameterError(f"{op}: memory_format must be a torch.memory_format such as "
                                    f"torch.contiguous_format, got {fmt!r}", "memory_format", fmt)


# -- devices ----------------------------------------------------------------------------------

@torch_method
def cpu(self, memory_format=preserve_format):
    """PyTorch's ``cpu()``: this tensor when it is on a CPU device, else a copy on ember's
    ``"cpu"``.

    >>> import ember.torch as torch
    >>> torch.ones(2).cpu().device.type
    'cpu'
    """
    _check_format(memory_format, "cpu")
    if self._device.type == "cpu":
        return self
    return self.to("cpu")


@torch_method
def cuda(self, device=None, non_blocking=False, memory_format=preserve_format):
    """PyTorch's ``cuda()``: this tensor on CUDA device ``device`` (an index, a name or a
    device; the current one by default). A ``DeviceError`` when there is no such device.

    >>> import ember.torch as torch
    >>> try:
    ...     torch.ones(1).cuda()
    ... except torch.DeviceError:
    ...     print("no CUDA")
    no CUDA
    """
    _check_format(memory_format, "cuda")
    if device is None:
        device = "cuda"
    elif isinstance(device, int) and not isinstance(device, bool):
        device = f"cuda:{device}"
    return self.to(device, non_blocking=non_blocking)


@torch_method
def get_device(self):
    """PyTorch's ``get_device()``: -1 for a CPU tensor, else the device's index.

    >>> import ember.torch as torch
    >>> torch.ones(1).get_device()
    -1
    """
    if self._device.type == "cpu":
        return -1
    return self._device.index or 0


torch_method(lambda self: self._device.type == "cuda", name="is_cuda", prop=True)
torch_method(lambda self: self._device.type == "cpu", name="is_cpu", prop=True)
torch_method(lambda self: self._device.type == "mps", name="is_mps", prop=True)
torch_method(lambda self: False, name="is_meta", prop=True)
torch_method(lambda self: False, name="is_sparse", prop=True)
torch_method(lambda self: False, name="is_quantized", prop=True)


# -- dtype shorthands -------------------------------------------------------------------------

_SHORTHANDS = {"bfloat16": _dt.bfloat16, "char": _dt.int8, "byte": _dt.uint8,
               "cfloat": _dt.complex64, "cdouble": _dt.complex128, "float": _dt.float32,
               "double": _dt.float64, "half": _dt.float16, "long": _dt.int64,
               "short": _dt.int16, "bool": _dt.bool_}

for _name, _dtype in _SHORTHANDS.items():
    def _shorthand(self, memory_format=preserve_format, _dtype=_dtype, _name=_name):
        _check_format(memory_format, _name)
        return self if self._dtype is _dtype else self.to(_dtype)
    _shorthand.__doc__ = (f"PyTorch's ``{_name}()``: this tensor as {_dtype.name} (itself when "
                          "it already is).")
    torch_method(_shorthand, name=_name)


# -- sizes ------------------------------------------------------------------------------------

@torch_method
def element_size(self):
    """PyTorch's ``element_size()``: the bytes of one element.

    >>> import ember.torch as torch
    >>> torch.ones(1, dtype=torch.float64).element_size()
    8
    """
    return self._dtype.itemsize


torch_method(lambda self: self._dtype.itemsize, name="itemsize", prop=True)
torch_method(lambda self: self._dtype.itemsize * self.numel(), name="nbytes", prop=True)


@torch_method
def nelement(self):
    """PyTorch's ``nelement()``: the number of elements (``numel()``).

    >>> import ember.torch as torch
    >>> torch.ones(2, 3).nelement()
    6
    """
    return self.numel()


@torch_method
def ndimension(self):
    """PyTorch's ``ndimension()``: the number of dims (``dim()``).

    >>> import ember.torch as torch
    >>> torch.ones(2, 3).ndimension()
    2
    """
    return self._data.ndim


# -- predicates -------------------------------------------------------------------------------

@torch_method
def is_floating_point(self):
    """PyTorch's ``is_floating_point()``: whether the dtype is a float dtype.

    >>> import ember.torch as torch
    >>> torch.ones(1).is_floating_point(), torch.ones(1, dtype=torch.long).is_floating_point()
    (True, False)
    """
    return self._dtype.kind == "float"


@torch_method
def is_complex(self):
    """PyTorch's ``is_complex()``: whether the dtype is a complex dtype.

    >>> import ember.torch as torch
    >>> torch.ones(1, dtype=torch.cfloat).is_complex()
    True
    """
    return self._dtype.kind == "complex"


@torch_method
def is_signed(self):
    """PyTorch's ``is_signed()``: False for bool and the unsigned int dtypes.

    >>> import ember.torch as torch
    >>> torch.ones(1).is_signed(), torch.ones(1, dtype=torch.uint8).is_signed()
    (True, False)
    """
    return self._dtype.kind != "bool" and not self._dtype.name.startswith("uint")


@torch_method
def is_inference(self):
    """PyTorch's ``is_inference()``: always False (ember's ``inference_mode`` is ``no_grad``,
    so no tensor is an inference tensor).

    >>> import ember.torch as torch
    >>> torch.ones(1).is_inference()
    False
    """
    return False


@torch_method
def is_nonzero(self):
    """PyTorch's ``is_nonzero()``: whether the one element is not zero; an
    ``InvalidParameterError`` for a tensor of another number of elements.

    >>> import ember.torch as torch
    >>> torch.tensor([0.5]).is_nonzero(), torch.tensor(0).is_nonzero()
    (True, False)
    """
    n = self.numel()
    if n != 1:
        raise InvalidParameterError(f"is_nonzero: the tensor has {n} elements (shape "
                                    f"{tuple(self._data.shape)}); expected exactly one",
                                    "input", tuple(self._data.shape))
    return bool(self.item())


@torch_method
def is_same_size(self, other):
    """PyTorch's ``is_same_size(other)``: whether the shapes are equal.

    >>> import ember.torch as torch
    >>> torch.ones(2, 3).is_same_size(torch.zeros(2, 3))
    True
    """
    if not isinstance(other, _T):
        raise KindError(f"is_same_size: other must be a Tensor, got {type(other).__name__}")
    return tuple(self._data.shape) == tuple(other._data.shape)


@torch_method
def is_set_to(self, tensor):
    """PyTorch's ``is_set_to(tensor)``: whether both hold the very same buffer.

    >>> import ember.torch as torch
    >>> x = torch.ones(2)
    >>> x.is_set_to(x), x.is_set_to(torch.ones(2))
    (True, False)
    """
    if not isinstance(tensor, _T):
        raise KindError(f"is_set_to: tensor must be a Tensor, got {type(tensor).__name__}")
    return self._data is tensor._data


# -- layout -----------------------------------------------------------------------------------

def _raw(t):
    return t._data


@torch_method
def stride(self, dim=None):
    """PyTorch's ``stride()``: the step in elements between neighbours of each dim of the
    buffer this tensor holds (a tuple), or of dim ``dim``.

    >>> import ember.torch as torch
    >>> torch.ones(2, 3).t().stride(), torch.ones(2, 3).stride(-1)
    ((1, 3), 1)
    """
    steps = self._device.backend.layout_strides(_raw(self))
    if dim is None:
        return steps
    return steps[_e.shapes.normalize_dim(dim, max(len(steps), 1), "stride")] if steps else 1


@torch_method
def storage_offset(self):
    """PyTorch's ``storage_offset()``: the first element's offset (in elements) in the
    buffer it is a view of.

    >>> import ember.torch as torch
    >>> torch.arange(6)[2:].storage_offset()
    2
    """
    return self._device.backend.layout_offset(_raw(self))


@torch_method
def data_ptr(self):
    """PyTorch's ``data_ptr()``: the address of the first element.

    >>> import ember.torch as torch
    >>> x = torch.arange(4)
    >>> x[1:].data_ptr() - x.data_ptr()
    8
    """
    return self._device.backend.layout_address(_raw(self))


@torch_method
def clone(self, *, memory_format=preserve_format):
    """PyTorch's ``clone``: a copy with the same values (gradients flow through it).

    >>> import ember.torch as torch
    >>> torch.ones(2).clone(memory_format=torch.contiguous_format).tolist()
    [1.0, 1.0]
    """
    _check_format(memory_format, "clone")
    return _T.clone(self)


@torch_method
def contiguous(self, memory_format=contiguous_format):
    """PyTorch's ``contiguous``: this tensor when its buffer is row-major, else a copy.

    >>> import ember.torch as torch
    >>> torch.ones(2, 3).t().contiguous().is_contiguous()
    True
    """
    _check_format(memory_format, "contiguous")
    return _T.contiguous(self)


@torch_method
def is_contiguous(self, memory_format=contiguous_format):
    """PyTorch's ``is_contiguous``: whether the buffer is row-major without gaps.

    >>> import ember.torch as torch
    >>> torch.ones(2, 3).t().is_contiguous()
    False
    """
    _check_format(memory_format, "is_contiguous")
    return _T.is_contiguous(self)


# -- autograd flag and host values -----------------------------------------------------------

@torch_method
def requires_grad_(self, requires_grad=True):
    """PyTorch's ``requires_grad_``: set whether autograd records ops on this leaf; returns
    it. A non-leaf may only keep requiring grad (``GraphError`` otherwise, as PyTorch's).

    >>> import ember.torch as torch
    >>> torch.ones(2).requires_grad_().requires_grad
    True
    """
    if not isinstance(requires_grad, bool):
        raise InvalidParameterError(f"requires_grad_: requires_grad must be a bool, got "
                                    f"{requires_grad!r}", "requires_grad", requires_grad)
    if not self.is_leaf:
        if not requires_grad:
            raise GraphError("requires_grad_: you can only change requires_grad flags of leaf "
                             "tensors; use detach() to get a tensor that does not require grad")
        return self
    if requires_grad and self._dtype.kind not in ("float", "complex"):
        raise KindError(f"requires_grad_: only tensors of floating point and complex dtype can "
                        f"require gradients, this one is {self._dtype.name}")
    return self.set_require_grad(requires_grad)


@torch_method
def numpy(self, *, force=False):
    """PyTorch's ``numpy()``: the values as a NumPy array (read-only: ember's buffers are
    immutable). A tensor that requires grad raises ``GraphError`` unless ``force=True``.

    >>> import ember.torch as torch
    >>> torch.ones(2).numpy()
    array([1., 1.], dtype=float32)
    """
    if self._node is not None and not force:
        raise GraphError("numpy: can't call numpy() on a tensor that requires grad; use "
                         "tensor.detach().numpy() (or numpy(force=True)) instead")
    return _T.numpy(self)


# -- transposes -------------------------------------------------------------------------------

def _reverse(self):
    """PyTorch's ``T``: the dims reversed (a transpose for a matrix)."""
    nd = self._data.ndim
    return self if nd < 2 else self.permute(tuple(range(nd - 1, -1, -1)))


def _adjoint(self):
    """PyTorch's ``H``: the conjugate transpose of a matrix (2-D; a 0-d tensor's conjugate)."""
    if self._data.ndim not in (0, 2):
        raise _e.errors.DimensionError(f"H: only supported on matrices (2-D tensors), got a "
                                       f"{self._data.ndim}-D tensor; use mH for batches")
    return _mH(self)


def _mH(self):
    """PyTorch's ``mH``: the conjugate transpose of the last two dims (a 0-d tensor's
    conjugate)."""
    if self._data.ndim == 0:
        return self.conj() if self._dtype.kind == "complex" else self
    if self._data.ndim < 2:
        raise _e.errors.DimensionError(f"mH: expected a tensor with 2 or more dims, got a "
                                       f"{self._data.ndim}-D tensor")
    out = self.transpose(-2, -1)
    return out.conj() if self._dtype.kind == "complex" else out


def _mT(self):
    """PyTorch's ``mT``: the last two dims swapped (a 0-d tensor itself)."""
    return self if self._data.ndim == 0 else _T.mT.fget(self)


torch_method(_reverse, name="T", prop=True)
torch_method(_mT, name="mT", prop=True)
torch_method(_adjoint, name="H", prop=True)
torch_method(_mH, name="mH", prop=True)


# -- torch.* functions ------------------------------------------------------------------------

for _name in ("is_floating_point", "is_complex", "is_nonzero", "is_same_size"):
    def _predicate(input, *args, _name=_name):  # noqa: A002
        if not isinstance(input, _T):
            raise KindError(f"{_name}: input must be a Tensor, got {type(input).__name__}")
        return globals()[_name](input, *args)
    _predicate.__doc__ = f"PyTorch's ``torch.{_name}(input)``: ``input.{_name}()``."
    torch_function(_predicate, name=_name)


@torch_function
def numel(input):  # noqa: A002
    """``torch.numel``: the number of elements of ``input``.

    >>> import ember.torch as torch
    >>> torch.numel(torch.ones(2, 3))
    6
    """
    if not isinstance(input, _T):
        raise KindError(f"numel: input must be a Tensor, got {type(input).__name__}")
    return input.numel()


@torch_function
def typename(obj):
    """``torch.typename``: ``"torch.FloatTensor"`` and the like for a tensor, else the
    qualified name of the object's type.

    >>> import ember.torch as torch
    >>> torch.typename(torch.ones(1)), torch.typename(1.5)
    ('torch.FloatTensor', 'float')
    """
    if isinstance(obj, _T):
        from ._tensor import as_torch
        return as_torch(obj).type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


@torch_function
def is_storage(obj):
    """``torch.is_storage``: always False (ember has no separate storage objects).

    >>> import ember.torch as torch
    >>> torch.is_storage(torch.ones(1))
    False
    """
    return False
