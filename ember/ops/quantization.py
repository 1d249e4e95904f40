"""Quantization (Burn's ``quantize``, ``quantize_dynamic``, ``dequantize``): float tensors stored
as small integers and a scale.

A ``QuantizedTensor`` keeps an int8 array of the tensor's shape and its scales; reading its
values (every op does, through ``_data``) dequantizes them, so every op works on a quantized
tensor and, as in Burn, computes on the dequantized values and gives an ordinary float tensor.

- Values: ``q8s`` [-127, 127], ``q8f`` [-128, 127], ``q4s`` [-7, 7], ``q4f`` [-8, 7],
  ``q2s`` [-1, 1], ``q2f`` [-2, 1]; all stored one per int8 element (no bit packing).
- Level: one scale for the tensor, or one per block of ``block_size`` consecutive elements along
  the last dim (which ``block_size`` must divide), blocks in row-major order.
- Mode: symmetric only (zero point 0), as Burn. Scales are stored as float32, float16 or
  bfloat16 (``param`` "f32", "f16", "bf16").
- ``q = clamp(round_half_even(x / scale), lo, hi)``, computed in float32 (float64 for float64
  data); ``dequantize`` gives ``q * scale`` in the original float dtype. NaN quantizes to 0
  (Rust's ``as i8``, Burn's cast), infinities clamp to ``lo``/``hi`` (as PyTorch).
- The result of ``quantize`` is untracked (no gradient flows through rounding), even if the
  input requires grad; ``require_grad`` on a quantized tensor does nothing (Burn's spec).

>>> import ember
>>> q = ember.tensor([-1.0, 0.5, 2.0]).quantize_dynamic(ember.QuantScheme.default())
>>> q.int_repr().tolist()
[-64, 32, 127]
>>> print(q.dequantize())
[-1.007874, 0.503937, 2.0]
"""

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import (Tensor, _slot_get, as_tensor, backend_of, check_tensor, new_holding,
                      rebind_plain, transfer,
                      tensor_method, wrap)
from .display import format_values

__all__ = ["QuantScheme", "QParams", "QuantizedTensor", "quantize", "quantize_dynamic",
           "dequantize"]

_VALUES = {"q8s": (-127, 127), "q8f": (-128, 127), "q4s": (-7, 7), "q4f": (-8, 7),
           "q2s": (-1, 1), "q2f": (-2, 1)}
_PARAMS = {"f32": _dt.float32, "f16": _dt.float16, "bf16": _dt.bfloat16}
_MODES = ("symmetric",)


def _choice(value, table, what, param):
    key = value.lower() if isinstance(value, str) else None
    if key not in table:
        raise InvalidParameterError(
            f"QuantScheme: {what} {value!r} is not known; expected one of "
            f"{', '.join(repr(k) for k in table)}", param, value)
    return key


def _block_size(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParameterError(
            f"QuantScheme: block size {value!r} is not valid; expected an int >= 1", "block_size",
            value)
    return value


class QuantScheme:
    """How a tensor is quantized (Burn's ``QuantScheme``): immutable, comparable, hashable.

    ``value``: "q8s" (default), "q8f", "q4s", "q4f", "q2s", "q2f" (case-insensitive);
    ``level``: "tensor" (default, one scale) or a block size ``k`` (an int, or "block" with
    ``block_size=k``): one scale per ``k`` consecutive elements along the last dim;
    ``mode``: "symmetric" (the only one, as Burn); ``param``: the scales' dtype, "f32"
    (default), "f16" or "bf16". Burn's builder spelling works too.

    >>> import ember
    >>> s = ember.QuantScheme.default().with_value("q4s").with_level(32).with_param("f16")
    >>> s
    QuantScheme(value='q4s', level='block', block_size=32, mode='symmetric', param='f16')
    >>> s == ember.QuantScheme("q4s", level=32, param="f16"), s.range
    (True, (-7, 7))
    """

    __slots__ = ("value", "level", "block_size", "mode", "param")

    def __init__(self, value="q8s", level="tensor", mode="symmetric", param="f32",
                 block_size=None):
        value = _choice(value, _VALUES, "value", "value")
        if isinstance(level, str) and level.lower() in ("tensor", "block"):
            level = level.lower()
            if level == "tensor":
                if block_size is not None:
                    raise InvalidParameterError(
                        f"QuantScheme: block_size {block_size!r} given with level 'tensor'; "
                        "expected level 'block' (or level=block_size)", "block_size", block_size)
            else:
                if block_size is None:
                    raise InvalidParameterError(
                        "QuantScheme: level 'block' needs block_size; expected an int >= 1",
                        "block_size", None)
                block_size = _block_size(block_size)
        elif isinstance(level, int) and not isinstance(level, bool):
            if block_size is not None and block_size != level:
                raise InvalidParameterError(
                    f"QuantScheme: level {level} and block_size {block_size!r} disagree; give "
                    "one of them", "block_size", block_size)
            block_size = _block_size(level)
            level = "block"
        else:
            raise InvalidParameterError(
                f"QuantScheme: level {level!r} is not valid; expected 'tensor' or a block size "
                "(an int >= 1)", "level", level)
        mode = _choice(mode, dict.fromkeys(_MODES), "mode", "mode")
        param = _choice(param, _PARAMS, "param", "param")
        for name, v in (("value", value), ("level", level), ("block_size", block_size),
                        ("mode", mode), ("param", param)):
            object.__setattr__(self, name, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"QuantScheme is immutable; use with_{name}() for a changed copy")

    @classmethod
    def default(cls):
        """Burn's default scheme: q8s values, one scale per tensor, f32 scales."""
        return cls()

    def _replace(self, **changes):
        args = {"value": self.value, "level": self.level, "mode": self.mode,
                "param": self.param, "block_size": self.block_size}
        args.update(changes)
        return QuantScheme(**args)

    def with_value(self, value):
        """This scheme with another value ("q8s", "q8f", "q4s", "q4f", "q2s", "q2f")."""
        return self._replace(value=value)

    def with_level(self, level):
        """This scheme with another level: "tensor" or a block size (an int >= 1)."""
        return self._replace(level=level, block_size=None)

    def with_mode(self, mode):
        """This scheme with another mode (only "symmetric" exists)."""
        return self._replace(mode=mode)

    def with_param(self, param):
        """This scheme with another scale dtype ("f32", "f16", "bf16")."""
        return self._replace(param=param)

    @property
    def range(self):
        """The stored integers' range ``(lo, hi)``, both included."""
        return _VALUES[self.value]

    @property
    def param_dtype(self):
        """The ember dtype of the scales."""
        return _PARAMS[self.param]

    def _key(self):
        return (self.value, self.level, self.block_size, self.mode, self.param)

    def __eq__(self, other):
        return isinstance(other, QuantScheme) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        level = (f"level='block', block_size={self.block_size}" if self.level == "block"
                 else "level='tensor'")
        return (f"QuantScheme(value={self.value!r}, {level}, mode={self.mode!r}, "
                f"param={self.param!r})")

    def __reduce__(self):
        return (QuantScheme, (self.value, self.block_size or "tensor", self.mode, self.param))


class QParams:
    """Quantization parameters (Burn's ``QParams``): ``scales``, a 1-D float tensor holding one
    scale per tensor (length 1) or one per block. Python numbers and lists are accepted and
    become a float32 tensor; scale values are checked (finite, > 0) when used.

    >>> import ember
    >>> ember.QParams(0.5)
    QParams(scales=Tensor([0.5], shape=(1,), dtype=float32))
    """

    __slots__ = ("scales", "_numbers")

    def __init__(self, scales):
        numbers = not isinstance(scales, Tensor)
        if isinstance(scales, Tensor):
            t = scales
            if t._dtype.kind != "float":
                raise KindError(f"QParams: scales must be a float tensor, got dtype "
                                f"{t._dtype.name}; expected float32, float16 or bfloat16 scales")
        else:
            if isinstance(scales, (int, float)) and not isinstance(scales, bool):
                scales = [scales]
            t = as_tensor(scales, op="QParams")
            if t._dtype.kind == "bool":
                raise KindError("QParams: scales must be numbers, got bools")
            if t._dtype.kind != "float":
                t = t.cast(_dt.default_float)
        if t.ndim != 1:
            raise ShapeMismatchError(
                f"QParams: scales has shape {tuple(t.shape)}; expected a 1-D tensor",
                expected="1-D", actual=tuple(t.shape))
        object.__setattr__(self, "scales", t)
        # scales given as Python numbers follow the quantized tensor's device
        object.__setattr__(self, "_numbers", numbers)

    def __setattr__(self, name, value):
        raise AttributeError("QParams is immutable")

    def __repr__(self):
        return f"QParams(scales={self.scales!r})"


class _QStore:
    """What a QuantizedTensor's ``_data`` slot holds: the int8 values (the tensor's shape), the
    scales (1-D, the scheme's param dtype) and the scheme."""

    __slots__ = ("values", "scales", "scheme")

    def __init__(self, values, scales, scheme):
        self.values = values
        self.scales = scales
        self.scheme = scheme


def _dequantized(self):
    st = _slot_get(self)
    return self._device.backend.quant_dequantize(st.values, st.scales, st.scheme.block_size,
                                                 self._dtype)


def _not_for_quantized(op):
    def method(self, *args, **kwargs):
        raise KindError(f"{op}: the tensor is quantized, and lossy quantized values can't be "
                        "trusted as class indices (call dequantize() first)")
    method.__name__ = op
    return method


class QuantizedTensor(Tensor):
    """A float tensor stored quantized: int8 values and scales (see the module's docstring).

    Reading ``_data`` (what every op does) gives the dequantized float values, computed on each
    read; rebinding it (``t[0] = 1.0``, ``inplace``) turns the object into a plain Tensor.
    ``shape`` and the other size queries do not dequantize.

    >>> import ember
    >>> q = ember.tensor([1.0, -2.0]).quantize(ember.QuantScheme(), ember.QParams(0.5))
    >>> q
    Tensor([1.0, -2.0], shape=(2,), dtype=float32, quantized=q8s)
    >>> (q + 1).is_quantized, q.is_quantized
    (False, True)
    """

    __slots__ = ()

    _data = property(_dequantized, rebind_plain)
    is_quantized = True

    @property
    def shape(self):
        """The sizes of the dims, known without dequantizing."""
        return tuple(_slot_get(self).values.shape)

    @property
    def ndim(self):
        """The number of dims."""
        return _slot_get(self).values.ndim

    def dims(self):
        """The sizes of the dims as a list."""
        return list(_slot_get(self).values.shape)

    def rank(self):
        """The number of dims."""
        return _slot_get(self).values.ndim

    dim = rank

    def numel(self):
        """The number of elements."""
        return self._device.backend.numel(_slot_get(self).values)

    def size(self, dim=None):
        """The shape, or the size of one dim."""
        if dim is None:
            return self.shape
        return wrap(_slot_get(self).values, _dt.int8).size(dim)

    def __len__(self):
        return Tensor.__len__(wrap(_slot_get(self).values, _dt.int8))

    @property
    def scheme(self):
        """The QuantScheme this tensor was quantized with."""
        return _slot_get(self).scheme

    def qparams(self):
        """The quantization parameters: ``QParams`` with the scales (the scheme's param dtype).

        >>> import ember
        >>> q = ember.tensor([1.0, -4.0]).quantize_dynamic(ember.QuantScheme("q4s"))
        >>> q.qparams().scales.tolist()
        [0.5714285969734192]
        """
        st = _slot_get(self)
        return QParams(wrap(st.scales, st.scheme.param_dtype))

    def int_repr(self):
        """The stored integers as an int8 tensor (PyTorch's ``int_repr``).

        >>> import ember
        >>> q = ember.tensor([1.0, -4.0]).quantize_dynamic(ember.QuantScheme("q4s"))
        >>> q.int_repr().tolist()
        [2, -7]
        """
        return wrap(_slot_get(self).values, _dt.int8)

    def clone(self):
        """A quantized tensor with the same stored values (nothing is copied: values are
        immutable)."""
        return _make(_slot_get(self), self._dtype, self._ad, self._device)

    def detach(self):
        """This tensor as a new object; quantized tensors are never tracked."""
        return _make(_slot_get(self), self._dtype, self._ad, self._device)

    def set_require_grad(self, require_grad):
        """Does nothing on a quantized tensor (Burn's spec); returns the tensor itself."""
        if not isinstance(require_grad, bool):
            raise InvalidParameterError(
                f"set_require_grad: require_grad must be a bool, got {require_grad!r}",
                "require_grad", require_grad)
        return self

    def require_grad(self):
        """Does nothing on a quantized tensor (Burn's spec); returns the tensor itself."""
        return self

    one_hot = _not_for_quantized("one_hot")
    one_hot_fill = _not_for_quantized("one_hot_fill")

    def __repr__(self):
        st = _slot_get(self)
        text = format_values(self._data, len("Tensor("), self._device.backend)
        block = f", block_size={st.scheme.block_size}" if st.scheme.block_size else ""
        return (f"Tensor({text}, shape={tuple(st.values.shape)}, dtype={self._dtype.name}, "
                f"quantized={st.scheme.value}{block})")

    def __reduce__(self):
        st = _slot_get(self)
        be = self._device.backend
        return (_rebuild_quantized, (be.copy(st.values, "pickle"), be.copy(st.scales, "pickle"),
                                     st.scheme, self._dtype.name, self._ad))


def _make(store, dtype, ad, device):
    return new_holding(QuantizedTensor, store, dtype, ad, device)


def _rebuild_quantized(values, scales, scheme, dtype_name, ad):
    device = wrap(values, _dt.int8)._device  # the device of the values' backend array
    return _make(_QStore(values, scales, scheme), _dt.as_dtype(dtype_name), ad, device)


def _is_quantized(self):
    """Whether the tensor is quantized (a ``QuantizedTensor``).

    >>> import ember
    >>> ember.tensor([1.0]).is_quantized
    False
    """
    return False


tensor_method(_is_quantized, name="is_quantized", prop=True)


# -- quantize, quantize_dynamic, dequantize ----------------------------------------------------

def _check_input(self, scheme, op):
    """The common checks: a float Tensor, a QuantScheme, a shape the level fits."""
    check_tensor(self, op, "self")
    if self._dtype.kind != "float":
        if self._dtype.kind == "complex":
            raise _dt.complex_error(op, "self", self._dtype)
        raise KindError(f"{op}: only float tensors can be quantized, this one is "
                        f"{self._dtype.name}; expected a float tensor")
    if not isinstance(scheme, QuantScheme):
        raise InvalidParameterError(
            f"{op}: scheme must be a QuantScheme, got {type(scheme).__name__} {scheme!r}",
            "scheme", scheme)
    shape = tuple(self.shape)
    k = scheme.block_size
    if k is None:
        return shape, 1
    if not shape or shape[-1] % k:
        last = "a 0-d tensor has no last dim" if not shape else f"last dim {shape[-1]}"
        raise ShapeMismatchError(
            f"{op}: block size {k} does not divide the tensor's shape {shape} ({last}); "
            f"expected a last dim divisible by {k}",
            expected=f"last dim divisible by {k}", actual=shape)
    n = 1
    for d in shape:
        n *= d
    return shape, n // k


def _quantized_result(self, values, scales, scheme):
    return _make(_QStore(values, scales, scheme), self._dtype, self._ad, self._device)


@tensor_method
def quantize(self, scheme, qparams):
    """This float tensor quantized with ``scheme`` and the given scales (Burn's ``quantize``):
    ``q = clamp(round_half_even(x / scale), lo, hi)``, a ``QuantizedTensor`` (untracked).

    ``qparams``: a ``QParams`` (or a tensor of scales), with one scale for level "tensor" or
    one per block (``numel / block_size``, row-major); each scale finite and > 0 in the
    scheme's param dtype. NaN gives 0, infinities clamp.

    >>> import ember
    >>> x = ember.tensor([[0.25, -1.0, 8.0, 2.0]])
    >>> s = ember.QuantScheme("q4s", level=2)
    >>> q = x.quantize(s, ember.QParams([0.25, 0.5]))
    >>> q.int_repr().tolist(), q.dequantize().tolist()
    ([[1, -4, 7, 4]], [[0.25, -1.0, 3.5, 2.0]])
    """
    op = "quantize"
    shape, nscales = _check_input(self, scheme, op)
    if isinstance(qparams, Tensor):
        qparams = QParams(qparams)
    if not isinstance(qparams, QParams):
        raise InvalidParameterError(
            f"{op}: qparams must be a QParams, got {type(qparams).__name__} {qparams!r}",
            "qparams", qparams)
    scales = qparams.scales
    if scales.shape[0] != nscales:
        what = "level 'tensor'" if scheme.block_size is None else (
            f"block size {scheme.block_size} on shape {shape}")
        raise ShapeMismatchError(
            f"{op}: qparams has {scales.shape[0]} scales; expected {nscales} for {what}",
            expected=nscales, actual=scales.shape[0])
    if scales._device is not self._device and qparams._numbers:
        scales = wrap(transfer(scales._data, scales._dtype, scales._device, self._device),
                      scales._dtype)
    be = backend_of(self, scales, op)
    raw = scales._data
    cast = be.quant_cast_scales(raw, scheme.param_dtype)
    for arr, note in ((raw, ""), (cast, f" as {scheme.param} (the scheme's param dtype)")):
        bad = be.quant_first_bad_scale(arr)
        if bad is not None:
            raise InvalidParameterError(
                f"{op}: scale {bad[0]} is {bad[1]!r}{note}; expected finite scales > 0",
                "qparams", bad[1])
    lo, hi = scheme.range
    values = be.quant_quantize(self._data, cast, scheme.block_size, lo, hi)
    return _quantized_result(self, values, cast, scheme)


@tensor_method
def quantize_dynamic(self, scheme):
    """This float tensor quantized with scales from min-max calibration (Burn's
    ``quantize_dynamic``): per tensor or per block, ``scale = max(|min|, |max|) / hi``.

    NaN and infinities are left out of the calibration (then quantized as by ``quantize``); a
    block whose scale would be 0 (all zeros, empty, or underflowing in the param dtype) gets
    scale 1. A scale too large for the param dtype raises ``InvalidParameterError``.

    >>> import ember
    >>> x = ember.tensor([[1.0, -2.0], [0.0, 0.0]])
    >>> q = x.quantize_dynamic(ember.QuantScheme("q2s", level=2))
    >>> q.qparams().scales.tolist(), q.int_repr().tolist()
    ([2.0, 1.0], [[0, -1], [0, 0]])
    """
    op = "quantize_dynamic"
    _check_input(self, scheme, op)
    lo, hi = scheme.range
    data = self._data
    be = self._device.backend
    scales, overflow = be.quant_dynamic_scales(data, scheme.block_size, hi, scheme.param_dtype)
    if overflow is not None:
        raise InvalidParameterError(
            f"{op}: the calibrated scale {overflow!r} (max |x| / {hi}) is too large for param "
            f"{scheme.param!r}; expected values whose scale fits, or param 'f32'", "scheme",
            scheme)
    values = be.quant_quantize(data, scales, scheme.block_size, lo, hi)
    return _quantized_result(self, values, scales, scheme)


@tensor_method
def dequantize(self):
    """The float values of a quantized tensor (``q * scale`` in its float dtype), a plain
    untracked tensor; a tensor that is not quantized is returned itself (Burn's spec).

    >>> import ember
    >>> t = ember.tensor([0.3, -1.0])
    >>> t.dequantize() is t
    True
    >>> t.quantize(ember.QuantScheme(), ember.QParams(0.25)).dequantize().tolist()
    [0.25, -1.0]
    """
    check_tensor(self, "dequantize", "self")
    if self.__class__ is QuantizedTensor:
        return wrap(self._data, self._dtype, self._ad)
    if self._dtype.kind == "complex":  # docs/complex.md: quantization takes real tensors only
        raise _dt.complex_error("dequantize", "self", self._dtype)
    return self
