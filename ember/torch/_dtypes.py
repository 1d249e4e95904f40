"""PyTorch's dtypes: a twin of each ember dtype that prints as PyTorch's (``torch.float32``).

A twin is an ``ember.DType`` (of the subclass ``ember.torch.dtype``) equal to its ember dtype
and hashing as it, so ``x.dtype == torch.float32``, dict keys and ``ember.float32 ==
torch.float32`` hold both ways; every op turns it into the ember singleton (``as_dtype``), so an
ember tensor always holds ember's own dtype. ``ember.torch``'s names (``torch.float32``,
``torch.long``...), ``Tensor.dtype`` and the dtypes its functions return are twins; ``import
ember`` keeps ``ember.float32``.

>>> import ember, ember.torch as torch
>>> torch.float32, ember.float32, torch.float32 == ember.float32
(torch.float32, ember.float32, True)
>>> torch.ones(2, dtype=torch.int8).dtype, torch.float16.itemsize, torch.bool.is_signed
(torch.int8, 2, False)
"""

from .. import dtypes as _dt
from ..errors import KindError

__all__ = ["TorchDType", "TWINS", "twin"]

_ABBR = {"float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16",
         "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8",
         "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "b8", "complex64": "c64",
         "complex128": "c128"}


class TorchDType(_dt.DType):
    """``torch.dtype``: an ember dtype as PyTorch names and prints it (see the module
    docstring).

    >>> import ember.torch as torch
    >>> torch.float64, str(torch.bool), torch.float32.to_complex()
    (torch.float64, 'torch.bool', torch.complex64)
    """

    __slots__ = ()

    def __repr__(self):
        return f"torch.{self.name}"

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, _dt.DType):
            return other.name == self.name
        return NotImplemented

    def __ne__(self, other):
        if isinstance(other, _dt.DType):
            return other.name != self.name
        return NotImplemented

    def __hash__(self):
        return hash(_dt._BY_NAME[self.name])  # its ember dtype's hash: equal keys, one slot

    def __reduce__(self):
        return (twin, (self.name,))

    @property
    def abbr(self):
        """PyTorch's short name (``"f32"``, ``"i64"``, ``"b8"``...)."""
        return _ABBR[self.name]

    def to_real(self):
        """The real dtype of a complex dtype's parts; any other dtype itself.

        >>> import ember.torch as torch
        >>> torch.complex128.to_real(), torch.int8.to_real()
        (torch.float64, torch.int8)
        """
        return TWINS[_dt.real_of(_dt._BY_NAME[self.name])]

    def to_complex(self):
        """The complex dtype of a float dtype (complex64 for float32 and bfloat16, complex128
        for float64); a complex dtype itself. KindError for int and bool dtypes, as PyTorch
        refuses them, and for float16, whose complex dtype (complex32) ember does not have.

        >>> import ember.torch as torch
        >>> torch.float64.to_complex(), torch.complex64.to_complex()
        (torch.complex128, torch.complex64)
        """
        if self.kind not in ("float", "complex"):
            raise KindError(f"to_complex: {self!r} has no complex dtype; expected a float or "
                            "complex dtype")
        if self.name == "float16":
            raise KindError("to_complex: the complex dtype of torch.float16 is complex32, "
                            "which ember does not have; cast to torch.float32 first")
        return TWINS[_dt.complex_of(_dt._BY_NAME[self.name])]


TorchDType.__name__ = TorchDType.__qualname__ = "dtype"
TorchDType.__module__ = "ember.torch"

TWINS = {d: TorchDType(d.name, d.kind, d.itemsize, d.is_signed)
         for d in _dt.ALL + (_dt.complex64, _dt.complex128)}


def twin(dtype):
    """The ``ember.torch`` dtype of ``dtype`` (an ember dtype, a twin or a name).

    >>> import ember
    >>> twin(ember.float64), twin("long")
    (torch.float64, torch.int64)
    """
    return TWINS[_dt.as_dtype(dtype)]
