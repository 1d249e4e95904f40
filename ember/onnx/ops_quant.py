"""ONNX converters of the quantization operators: QuantizeLinear, DequantizeLinear,
DynamicQuantizeLinear, QLinearMatMul, QLinearConv, MatMulInteger, ConvInteger.

Quantizing rounds half to even and saturates to the integer dtype's range; scales and zero
points are per tensor (0-d or one element), per axis (1-D along ``axis``) or blocked (the
input's rank, ``block_size`` elements of ``axis`` per entry). Only the integer dtypes ember
has (int8, uint8, int16, uint16, int32) are quantized to.

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> q = CONVERTERS["QuantizeLinear"]([ember.tensor([0.0, 1.0, 300.0]), ember.tensor(2.0)],
...                                   {}, Context(21))
>>> q.dtype.name, q.tolist()
('uint8', [0, 0, 150])
"""

import ember

from ..errors import InvalidParameterError
from .proto import ember_dtype
from .registry import CONVERTERS, axis_of, converter

_RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767),
           "uint16": (0, 65535), "int32": (-2 ** 31, 2 ** 31 - 1)}


def _along(p, t, axis, block):
    """The scale or zero point ``p`` broadcast against ``t``: per tensor, per ``axis`` or
    blocked (``block`` entries of ``axis`` share one value)."""
    if p.ndim == 0 or p.numel() == 1 and p.ndim <= 1 and block == 0:
        return p.reshape(())
    axis = axis_of(axis, t.ndim)
    if p.ndim == 1 and block == 0:
        return p.reshape(*[-1 if d == axis else 1 for d in range(t.ndim)])
    if block <= 0:
        raise InvalidParameterError("QuantizeLinear: a scale of the input's rank needs "
                                    "block_size > 0", "block_size", block)
    return p.repeat_interleave(block, axis).narrow(axis, 0, t.shape[axis])


def _saturate(v, dtype):
    lo, hi = _RANGES.get(dtype.name, (None, None))
    if lo is None:
        raise InvalidParameterError(f"QuantizeLinear: ember has no quantized dtype "
                                    f"{dtype.name}; it quantizes to {sorted(_RANGES)}",
                                    "output_dtype", dtype.name)
    return v.clamp(lo, hi).cast(dtype)


def _quantize(t, scale, zp, dtype):
    """round(t / scale) + zp saturated to ``dtype``, computed in float32 or wider."""
    wide = "float64" if t.dtype.name == "float64" else "float32"
    v = (t.cast(wide) / scale.cast(wide)).round()
    if zp is not None:
        v = v + zp.cast(wide)
    return _saturate(v, dtype)


@converter("QuantizeLinear")
def quantize_linear(x, a, c):
    t, scale = x[0], x[1]
    zp = x[2] if len(x) > 2 else None
    axis, block = a.get("axis", 1), a.get("block_size", 0)
    if zp is not None:
        dtype = zp.dtype
    elif a.get("output_dtype"):
        dtype = ember_dtype(a["output_dtype"], "QuantizeLinear")
    else:
        dtype = ember.uint8
    zp = None if zp is None else _along(zp, t, axis, block)
    return _quantize(t, _along(scale, t, axis, block), zp, dtype)


@converter("DequantizeLinear")
def dequantize_linear(x, a, c):
    t, scale = x[0], x[1]
    zp = x[2] if len(x) > 2 else None
    axis, block = a.get("axis", 1), a.get("block_size", 0)
    s = _along(scale, t, axis, block)
    dtype = ember_dtype(a["output_dtype"], "DequantizeLinear") if a.get("output_dtype") \
        else s.dtype
    v = t.cast("float32") if t.dtype.name != "int32" else t.cast("float64")
    if zp is not None:
        v = v - _along(zp, t, axis, block).cast(v.dtype)
    return (v * s.cast(v.dtype)).cast(dtype)


@converter("DynamicQuantizeLinear")
def dynamic_quantize_linear(x, a, c):
    t = x[0].cast("float32")
    lo = t.min().clamp(None, 0.0)
    hi = t.max().clamp(0.0, None)
    scale = (hi - lo) / 255.0
    safe = ember.where(scale == 0, scale + 1, scale)
    zp = _saturate((-lo / safe).round(), ember.uint8)
    return [_quantize(t, safe, zp, ember.uint8), scale.cast(x[0].dtype), zp]


def _centered(t, zp, axis):
    """``t - zp`` as int32 (zp per tensor, or per entry of ``axis``)."""
    v = t.cast("int32")
    if zp is None:
        return v
    z = zp.cast("int32")
    if z.ndim == 0 or z.numel() == 1:
        return v - z.reshape(())
    shape = [1] * t.ndim
    shape[axis_of(axis, t.ndim)] = -1
    return v - z.reshape(*shape)


@converter("MatMulInteger")
def matmul_integer(x, a, c):
    A, B = x[0], x[1]
    azp = x[2] if len(x) > 2 else None
    bzp = x[3] if len(x) > 3 else None
    return _centered(A, azp, -2).matmul(_centered(B, bzp, -1))


@converter("ConvInteger")
def conv_integer(x, a, c):
    X, W = x[0], x[1]
    xzp = x[2] if len(x) > 2 else None
    wzp = x[3] if len(x) > 3 else None
    xs = _centered(X, xzp, 1).cast("float64")
    ws = _centered(W, wzp, 0).cast("float64")
    return CONVERTERS["Conv"]([xs, ws], a, c).round().cast("int32")


def _requantize(acc, scale, y_scale, y_zp):
    """An int32 accumulator of products back to ``y_zp``'s dtype: round(acc * scale /
    y_scale) + y_zp, saturated."""
    v = acc.cast("float64") * (scale.cast("float64") / y_scale.cast("float64"))
    return _saturate(v.round() + y_zp.cast("float64"), y_zp.dtype)


@converter("QLinearMatMul")
def qlinear_matmul(x, a, c):
    A, a_s, a_zp, B, b_s, b_zp, y_s, y_zp = x
    acc = _centered(A, a_zp, -2).matmul(_centered(B, b_zp, -1))
    # the multiplier in float32, as onnxruntime computes it
    f = "float32"
    scale = a_s.cast(f).reshape((-1, 1) if a_s.numel() > 1 else ()) * \
        b_s.cast(f).reshape((1, -1) if b_s.numel() > 1 else ()) / y_s.cast(f)
    return _saturate((acc.cast(f) * scale).round() + y_zp.cast(f), y_zp.dtype)


@converter("QLinearConv")
def qlinear_conv(x, a, c):
    X, x_s, x_zp, W, w_s, w_zp, y_s, y_zp = x[:8]
    bias = x[8] if len(x) > 8 else None
    acc = conv_integer([X, W, x_zp, w_zp], a, c)
    if bias is not None:
        acc = acc + bias.cast("int32").reshape(1, -1, *[1] * (acc.ndim - 2))
    scale = x_s.cast("float64").reshape(()) * w_s.cast("float64").reshape(
        tuple([1, -1] + [1] * (acc.ndim - 2)) if w_s.numel() > 1 else ())
    return _requantize(acc, scale, y_s, y_zp)
