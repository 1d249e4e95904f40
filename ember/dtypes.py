"""dtypes, kinds and type promotion.

Three kinds, as Burn: ``"float"``, ``"int"`` and ``"bool"``, and ``"complex"`` (complex64 and
complex128, for the Array API standard; the ops that take them are listed in docs/complex.md).
Promotion follows PyTorch: Python
scalars are weak (they only choose the kind), 0-d tensors only decide when they raise the kind,
and an int tensor meeting a Python float gives the default float dtype.

>>> import ember
>>> ember.float32.kind
'float'
>>> ember.promote_types(ember.int8, ember.uint8)
ember.int16
"""

import numbers

from .errors import InvalidParameterError, KindError

__all__ = [
    "DType", "float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
    "uint8", "uint16", "uint32", "uint64", "bool_", "complex64", "complex128", "promote_types", "result_type", "as_dtype",
    "default_float", "default_int", "KINDS",
]

KINDS = ("bool", "int", "float", "complex")
_KIND_RANK = {"bool": 0, "int": 1, "float": 2, "complex": 3}


class DType:
    """One element type of ember: its name, kind, size in bytes and signedness. Backend-neutral:
    each backend maps it to its own dtype.

    ember's dtypes are singletons (ember's ops test them with ``is``). Another API may give each
    a twin of a subclass that prints its own way (``ember.torch.float32`` prints
    ``torch.float32``); a twin equals and hashes as its ember dtype, and ``as_dtype`` (which
    every op applies to a ``dtype`` argument) turns it into the ember one."""

    __slots__ = ("name", "kind", "itemsize", "is_signed", "_rank")

    def __init__(self, name, kind, itemsize, is_signed):
        self.name = name
        self.kind = kind
        self.itemsize = itemsize
        self.is_signed = is_signed
        self._rank = _KIND_RANK[kind]

    @property
    def is_floating_point(self):
        return self.kind == "float"

    @property
    def is_complex(self):
        return self.kind == "complex"

    def __repr__(self):
        return f"ember.{self.name}"

    __str__ = lambda self: self.name  # noqa: E731

    def __reduce__(self):
        return (as_dtype, (self.name,))


float64 = DType("float64", "float", 8, True)
float32 = DType("float32", "float", 4, True)
float16 = DType("float16", "float", 2, True)
bfloat16 = DType("bfloat16", "float", 2, True)
int64 = DType("int64", "int", 8, True)
int32 = DType("int32", "int", 4, True)
int16 = DType("int16", "int", 2, True)
int8 = DType("int8", "int", 1, True)
uint8 = DType("uint8", "int", 1, False)
uint16 = DType("uint16", "int", 2, False)
uint32 = DType("uint32", "int", 4, False)
uint64 = DType("uint64", "int", 8, False)
bool_ = DType("bool", "bool", 1, False)

ALL = (float64, float32, float16, bfloat16, int64, int32, int16, int8, uint8, uint16, uint32,
       uint64, bool_)
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update({"float": float32, "int": int64, "double": float64, "half": float16,
                 "long": int64, "f64": float64, "f32": float32, "f16": float16, "bf16": bfloat16,
                 "i64": int64, "i32": int32, "i16": int16, "i8": int8, "u8": uint8,
                 "u16": uint16, "u32": uint32, "u64": uint64, "bool_": bool_})

# The complex kind: the ops that take it are listed in docs/complex.md; every other op refuses a
# complex tensor with KindError, and no op casts one to a real dtype.
complex64 = DType("complex64", "complex", 8, True)
complex128 = DType("complex128", "complex", 16, True)
COMPLEX = {d.name: d for d in (complex64, complex128)}
_BY_NAME.update(COMPLEX)
_BY_NAME.update({"cfloat": complex64, "cdouble": complex128, "c64": complex64,
                 "c128": complex128})

default_float = float32
default_int = int64


def complex_of(dtype):
    """The complex dtype that holds a float dtype's values (complex64 for 32 bits and less)."""
    if dtype.kind == "complex":
        return dtype
    return complex128 if dtype is float64 else complex64


def real_of(dtype):
    """The float dtype of a complex dtype's parts; other dtypes are returned as they are."""
    if dtype.kind != "complex":
        return dtype
    return float64 if dtype is complex128 else float32


def complex_error(op, param="input", dtype=complex64):
    """The KindError of an op that is not defined for complex tensors."""
    return KindError(f"{op}: not defined for complex tensors ({param} has dtype {dtype.name}); "
                     "expected a bool, int or float tensor (the ops that take complex tensors "
                     "are listed in docs/complex.md)")


def complex_into_error(op, param, value, dtype):
    """The KindError of complex values written into a real tensor of ``dtype``: no op drops the
    imaginary part on its own (docs/complex.md; PyTorch drops it with a warning)."""
    source = getattr(value, "_dtype", None)
    what = f"{param} {value!r} is complex" if source is None else \
        f"{param} is a {source.name} tensor"
    return KindError(f"{op}: {what} and the tensor has dtype {dtype.name}; writing it would drop "
                     "the imaginary part; expected a real value, or a complex tensor to write "
                     "into")


def as_dtype(value, param="dtype", op=None):
    """The ember dtype named by ``value``: a DType, a name (``"float32"``), a NumPy dtype or a type.

    InvalidParameterError otherwise, its message prefixed with ``op`` when given.

    >>> as_dtype("f64")
    ember.float64
    """
    if type(value) is DType:
        return value
    if isinstance(value, DType):  # another API's twin (ember.torch's dtypes): ember's own
        return _BY_NAME[value.name]
    if isinstance(value, str):
        found = _BY_NAME.get(value)
        if found is not None:
            return found
    elif value is float:
        return default_float
    elif value is int:
        return default_int
    elif value is bool:
        return bool_
    elif value is not None:
        found = _native(value)
        if found is not None:
            return found
    names = ", ".join(d.name for d in ALL + (complex64, complex128))
    where = f"{op}: {param}" if op else f"{param}:"
    raise InvalidParameterError(
        f"{where} {value!r} is not an ember dtype; expected one of {names}", param, value)


def _native(value):
    """The ember dtype of a loaded backend's own dtype or type (``numpy.float32``,
    ``torch.int8``), or None."""
    from .backends import registry
    return registry.ember_dtype(value)


def _promote_ints(a, b):
    if a.is_signed == b.is_signed:
        return a if a.itemsize >= b.itemsize else b
    signed, unsigned = (a, b) if a.is_signed else (b, a)
    if signed.itemsize > unsigned.itemsize:
        return signed
    if unsigned.itemsize == 8:  # no int dtype holds both ranges (docs/math.md)
        raise KindError(
            f"promote_types: {a.name} and {b.name} have no common dtype: no int dtype holds "
            "both ranges (PyTorch refuses the pair; NumPy's float64 would change the kind); "
            "cast one operand first")
    return {1: int16, 2: int32, 4: int64}[unsigned.itemsize]


def promote_types(a, b):
    """The dtype two tensor dtypes promote to (PyTorch's table). uint64 with a signed int
    raises KindError, as in PyTorch.

    >>> promote_types(float16, bfloat16)
    ember.float32
    """
    if type(a) is not DType or type(b) is not DType:  # names are fine, other values raise
        a, b = as_dtype(a, "a", "promote_types"), as_dtype(b, "b", "promote_types")
    if a is b:
        return a
    if a._rank != b._rank:
        hi, lo = (a, b) if a._rank > b._rank else (b, a)
        if hi.kind == "complex" and lo.kind == "float":
            return complex128 if complex128 in (hi, complex_of(lo)) else complex64
        return hi
    if a.kind == "int":
        return _promote_ints(a, b)
    if a.kind == "float":
        if {a.name, b.name} == {"float16", "bfloat16"}:
            return float32
        return a if a.itemsize >= b.itemsize else b
    if a.kind == "complex":
        return a if a.itemsize >= b.itemsize else b
    return a


def _scalar_kind(value):
    """The kind of a number (a Python or a backend's scalar), or None."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, numbers.Integral):
        return "int"
    if isinstance(value, numbers.Real):
        return "float"
    if isinstance(value, numbers.Complex):
        return "complex"
    if type(value).__name__ == "bool_":  # a backend's bool scalar (numpy.bool_)
        return "bool"
    return None


_DEFAULT_OF_KIND = {"bool": bool_, "int": int64, "float": float32, "complex": complex64}


def default_of_kind(kind):
    """The default dtype of a kind: float32, int64, bool or complex64."""
    return _DEFAULT_OF_KIND[kind]


def result_type(*operands):
    """The dtype of an elementwise op on tensors and Python scalars, by PyTorch's rules.

    Tensors with dims win inside their kind, 0-d tensors next, Python scalars (weak) last;
    a higher kind from a weaker group still raises the kind.

    >>> from ember import tensor
    >>> result_type(tensor([1, 2], dtype="int8"), 2.5)
    ember.float32
    """
    dim_dt = zero_dt = None
    scalar_rank = -1
    for x in operands:
        dt = getattr(x, "_dtype", None)
        if dt is not None:
            if x._data.ndim:
                dim_dt = dt if dim_dt is None else promote_types(dim_dt, dt)
            else:
                zero_dt = dt if zero_dt is None else promote_types(zero_dt, dt)
        else:
            kind = _scalar_kind(x)
            if kind is None:
                raise KindError(f"{type(x).__name__} value {x!r} is not a tensor or a number")
            scalar_rank = max(scalar_rank, _KIND_RANK[kind])
    result = dim_dt
    if zero_dt is not None and (result is None or zero_dt._rank > result._rank):
        # a weaker complex keeps a float's precision (PyTorch's combine_categories)
        result = complex_of(result) if zero_dt._rank == 3 and result is not None and \
            result.kind == "float" else zero_dt
    if scalar_rank >= 0 and (result is None or scalar_rank > result._rank):
        if scalar_rank == 3 and result is not None and result.kind == "float":
            return complex_of(result)  # float64 tensor with a Python complex: complex128
        result = _DEFAULT_OF_KIND[KINDS[scalar_rank]]
    return result


_PLAIN = frozenset((float, int, bool, complex))


def sequence_dtype(data):
    """The dtype PyTorch gives nested lists and tuples of numbers when they hold a float or a
    complex value: a Python float counts as the default float, a Python complex as the default
    complex, a value that carries a dtype (a NumPy scalar or array) as that dtype, promoted
    together (``[np.float64(1.5), 2.0]`` is float64). None when no such value is found."""
    types = set(map(type, data))
    if types <= _PLAIN:  # a flat sequence of Python numbers, the common case
        return complex_of(default_float) if complex in types else \
            default_float if float in types else None
    out = None
    stack = [data]
    while stack:
        seq = stack.pop()
        for t in set(map(type, seq)):
            if t is list or t is tuple:
                stack.extend(v for v in seq if type(v) is t)
                continue
            if t is float:
                found = (default_float,)
            elif t is complex:
                found = (complex_of(default_float),)
            elif t is int or t is bool:
                continue
            else:
                found = {_native(v.dtype) for v in seq if type(v) is t and hasattr(v, "dtype")}
            for dt in found:
                if dt is not None:
                    out = dt if out is None else promote_types(out, dt)
    return out
