"""ONNX converters of assorted operators: Unique, Det, BitCast, SwiGLU, RotaryEmbedding,
TensorScatter, CausalConvWithState, LinearAttention and FlexAttention (of ai.onnx.preview).

BitCast reinterprets the bits of one dtype as another of the same width. ember has no
reinterpreting view, so the converter computes the IEEE-754 fields (sign, exponent, mantissa)
with ember's arithmetic and assembles them again: exact for every finite value and for
infinities (a NaN comes back as the quiet NaN).

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> CONVERTERS["BitCast"]([ember.tensor([1.0])], {"to": 6}, Context(25)).tolist()
[1065353216]
"""

import math

import ember
import ember.nn.functional as F

from ..errors import InvalidParameterError
from .proto import ember_dtype
from .registry import axis_of, converter


@converter("Unique")
def unique(x, a, c):
    t = x[0]
    axis = a.get("axis")
    if axis is None:
        flat = t.reshape(-1)
        keys = flat.tolist()
        axis = 0
    else:
        axis = axis_of(axis, t.ndim)
        flat = t
        keys = [tuple(map(tuple, [s.reshape(-1).tolist()])) for s in t.unbind(axis)]
    first, count = {}, {}
    for i, k in enumerate(keys):
        if k not in first:
            first[k] = i
            count[k] = 0
        count[k] += 1
    order = list(first)
    if a.get("sorted", 1):
        order.sort()
    rank = {k: j for j, k in enumerate(order)}
    idx = c.const([first[k] for k in order], "int64")
    return [flat.select(axis, idx), idx, c.const([rank[k] for k in keys], "int64"),
            c.const([count[k] for k in order], "int64")]


@converter("Det")
def det(x, a, c):
    return ember.linalg.det(x[0])


@converter("SwiGLU")
def swiglu(x, a, c):
    p, q = x
    return p * F.sigmoid(p * a.get("alpha", 1.0)) * q


@converter("RotaryEmbedding")
def rotary_embedding(x, a, c):
    t, cos, sin = x[0], x[1], x[2]
    pos = x[3] if len(x) > 3 else None
    three = t.ndim == 3
    if three:                                          # (B, S, H*D) -> (B, S, H, D)
        heads = a.get("num_heads", 0)
        if not heads:
            raise InvalidParameterError("RotaryEmbedding: a 3-d input needs num_heads",
                                        "num_heads", heads)
        t = t.reshape(t.shape[0], t.shape[1], heads, t.shape[2] // heads)
    else:                                              # (B, H, S, D) -> (B, S, H, D)
        t = t.transpose(1, 2)
    dim = a.get("rotary_embedding_dim", 0) or t.shape[3]
    if pos is not None:
        p = pos.cast("int64")
        cos = cos.select(0, p.reshape(-1)).reshape(*p.shape, cos.shape[-1])
        sin = sin.select(0, p.reshape(-1)).reshape(*p.shape, sin.shape[-1])
    cos, sin = cos.unsqueeze(2), sin.unsqueeze(2)      # (B, S, 1, dim / 2)
    rot, rest = t.narrow(3, 0, dim), t.narrow(3, dim, t.shape[3] - dim)
    if a.get("interleaved", 0):
        pairs = rot.reshape(*rot.shape[:3], dim // 2, 2)
        x1, x2 = pairs[..., 0], pairs[..., 1]
    else:
        x1, x2 = rot.narrow(3, 0, dim // 2), rot.narrow(3, dim // 2, dim // 2)
    re, im = cos * x1 - sin * x2, sin * x1 + cos * x2
    if a.get("interleaved", 0):
        rot = ember.stack([re, im], -1).reshape(*rot.shape)
    else:
        rot = ember.cat([re, im], 3)
    out = ember.cat([rot, rest], 3)
    if three:
        return out.reshape(out.shape[0], out.shape[1], -1)
    return out.transpose(1, 2)


@converter("TensorScatter")
def tensor_scatter(x, a, c):
    cache, upd = x[0], x[1]
    at = x[2].tolist() if len(x) > 2 and x[2] is not None else [0] * cache.shape[0]
    axis = axis_of(a.get("axis", -2), cache.ndim)
    circular = a.get("mode", "linear") == "circular"
    n, length = cache.shape[axis], upd.shape[axis]
    # per batch entry: which update row each cache row takes (or -1: keep the cache's)
    src = []
    for b in range(cache.shape[0]):
        row = [-1] * n
        for s in range(length):
            j = at[b] + s
            row[j % n if circular else j] = s
        src.append(row)
    shape = [1] * cache.ndim
    shape[0], shape[axis] = cache.shape[0], n
    take = c.const(src, "int64").reshape(*shape).expand(*cache.shape[:axis], n,
                                                           *cache.shape[axis + 1:])
    picked = upd.gather(axis, take.clamp(0, None)) if length else cache
    return ember.where(take >= 0, picked, cache)


@converter("CausalConvWithState")
def causal_conv_with_state(x, a, c):
    t, w = x[0], x[1]
    bias = x[2] if len(x) > 2 else None
    past = x[3] if len(x) > 3 else None
    B, C = t.shape[0], t.shape[1]
    k = w.shape[2]
    if past is None:
        past = ember.zeros(B, C, k - 1, dtype=t.dtype, device=t.device)
    padded = ember.cat([past.cast(t.dtype), t], 2)
    y = F.conv1d(padded, w, bias, groups=C)
    if a.get("activation", "none") in ("silu", "swish"):
        y = y * F.sigmoid(y.cast("float32")).cast(y.dtype)
    return [y, padded.narrow(2, padded.shape[2] - (k - 1), k - 1)]


def _heads(t, h):
    """(B, T, H*D) -> (B, H, T, D)."""
    return t.reshape(t.shape[0], t.shape[1], h, t.shape[2] // h).transpose(1, 2)


@converter("LinearAttention")
def linear_attention(x, a, c):
    q, k, v = x[0], x[1], x[2]
    past = x[3] if len(x) > 3 else None
    decay = x[4] if len(x) > 4 else None
    beta = x[5] if len(x) > 5 else None
    hq, hkv = a["q_num_heads"], a["kv_num_heads"]
    rule = a.get("update_rule", "gated_delta")
    gated, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    B, T = q.shape[0], q.shape[1]
    dk, dv = q.shape[2] // hq, v.shape[2] // hkv
    f32 = "float32"
    q4, k4, v4 = (_heads(q, hq).cast(f32), _heads(k, hkv).cast(f32), _heads(v, hkv).cast(f32))
    if gated:
        g = decay.cast(f32)
        g = (g.reshape(B, T, hkv, 1).transpose(1, 2) if g.shape[-1] == hkv
             else _heads(g, hkv))                      # (B, Hkv, T, 1 | dk)
    if delta:
        bt = beta.cast(f32)
        bt = bt.reshape(B, T, bt.shape[-1], 1).transpose(1, 2)   # (B, Hkv | 1, T, 1)
    state = (past.cast(f32) if past is not None
             else ember.zeros(B, hkv, dk, dv, dtype=f32, device=q.device))
    scale = a.get("scale", 0.0) or 1.0 / math.sqrt(dk)
    group = hq // hkv
    outs = []
    for i in range(T):
        kt, vt = k4[:, :, i], v4[:, :, i]             # (B, Hkv, dk), (B, Hkv, dv)
        if gated:
            state = state * g[:, :, i].exp().unsqueeze(-1)
        if delta:
            got = (state * kt.unsqueeze(-1)).sum(dim=(2,))           # (B, Hkv, dv)
            vt = bt[:, :, i] * (vt - got)
        state = state + kt.unsqueeze(-1) * vt.unsqueeze(-2)
        read = state if group == 1 else state.repeat_interleave(group, 1)
        outs.append((q4[:, :, i].unsqueeze(-1) * read).sum(dim=(2,)) * scale)  # (B, Hq, dv)
    out = ember.stack(outs, 2).transpose(1, 2).reshape(B, T, hq * dv).cast(q.dtype)
    return [out, state.cast(past.dtype if past is not None else q.dtype)]


# BitCast -------------------------------------------------------------------------------

# (exponent bits, mantissa bits) of the IEEE-754 floats BitCast reads and writes
_FLOATS = {"float16": (5, 10), "float32": (8, 23), "float64": (11, 52)}
_WIDTH = {"bool": 8, "int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "float16": 16,
          "int32": 32, "uint32": 32, "float32": 32, "int64": 64, "uint64": 64, "float64": 64}


def _float_bits(t, ebits, mbits):
    """The bits of float ``t`` as an int64 tensor of the signed integer of the same width."""
    width = 1 + ebits + mbits
    bias = 2 ** (ebits - 1) - 1
    v = t.cast("float64")
    mag = v.abs()
    safe = ember.where(mag.is_finite().logical_and(mag > 0), mag, 1.0)
    # -0.0: its reciprocal is -inf
    neg = (v < 0).logical_or((v == 0).logical_and(1.0 / ember.where(v == 0, v, 1.0) < 0))
    two = ember.tensor(2.0, dtype="float64", device=t.device)
    e = safe.log2().floor()                       # log2 may round: correct by one either way
    e = ember.where(two.pow(e) > safe, e - 1, ember.where(two.pow(e + 1) <= safe, e + 1, e))
    biased = e + bias
    normal = biased >= 1
    pow_e = two.pow(e)
    mant_n = (safe / pow_e - 1.0) * float(2 ** mbits)
    mant_s = safe * float(2.0 ** (bias - 1)) * float(2 ** mbits)
    mant = ember.where(normal, mant_n, mant_s).round()
    expo = ember.where(normal, biased, 0.0)
    top = float(2 ** ebits - 1)
    special = mag.is_inf().logical_or(mag.is_nan())
    expo = ember.where(special, top, ember.where(mag == 0, 0.0, expo))
    mant = ember.where(mag.is_inf().logical_or(mag == 0), 0.0,
                       ember.where(mag.is_nan(), float(2 ** (mbits - 1)), mant))
    body = expo.cast("int64") * (2 ** mbits) + mant.cast("int64")   # < 2 ** (width - 1)
    # a set sign bit: the signed integer is body - 2 ** (width - 1) (two steps for int64)
    half = 2 ** (width - 2)
    return ember.where(neg, body - half - half, body)


def _bits_float(u, ebits, mbits, dtype, c):
    """The float of ``dtype`` whose bits are the int64 tensor ``u`` (the signed integer)."""
    width = 1 + ebits + mbits
    bias = 2 ** (ebits - 1) - 1
    neg = u < 0
    half = 2 ** (width - 2)
    body = ember.where(neg, u + half + half, u)   # clears the sign bit (int64: in two steps)
    expo = body.bitwise_right_shift_scalar(mbits)
    mant = body - expo * (2 ** mbits)
    ef, mf = expo.cast("float64"), mant.cast("float64")
    two = ember.tensor(2.0, dtype="float64", device=u.device)
    normal = (1.0 + mf / float(2 ** mbits)) * two.pow(ef - bias)
    sub = mf * float(2.0 ** (1 - bias - mbits))
    mag = ember.where(expo == 0, sub, normal)
    top = 2 ** ebits - 1
    mag = ember.where(expo == top, ember.where(mant == 0, math.inf, math.nan), mag)
    return ember.where(neg, -mag, mag).cast(dtype)


@converter("BitCast")
def bitcast(x, a, c):
    t = x[0]
    to = ember_dtype(a["to"], "BitCast")
    src, dst = t.dtype.name, to.name
    if _WIDTH.get(src) != _WIDTH.get(dst) or src not in _WIDTH or dst not in _WIDTH:
        raise InvalidParameterError(f"BitCast: {src} and {dst} differ in width", "to", dst)
    if src == dst:
        return t
    width = _WIDTH[src]
    # the bits as the signed integer of the width, held in int64
    if src in _FLOATS:
        bits = _float_bits(t, *_FLOATS[src])
    else:
        bits = t.cast("int64")
        if src in ("uint8", "uint16", "uint32", "bool"):
            bits = ember.where(bits >= 2 ** (width - 1), bits - 2 ** width, bits)
    if dst in _FLOATS:
        return _bits_float(bits, *_FLOATS[dst], to, c)
    if dst in ("uint8", "uint16", "uint32") and width < 64:
        bits = ember.where(bits < 0, bits + 2 ** width, bits)
    if dst == "bool":
        return bits != 0
    return bits.cast(to)



@converter("ai.onnx.preview.FlexAttention")
def flex_attention(x, a, c):
    q, k, v = x[0], x[1], x[2]
    hq, hkv, dim = q.shape[1], k.shape[1], q.shape[3]
    if hq != hkv:
        k, v = k.repeat_interleave(hq // hkv, 1), v.repeat_interleave(hq // hkv, 1)
    scale = a.get("scale", 1.0 / math.sqrt(dim))
    root = ember.tensor(math.sqrt(scale), dtype="float32", device=q.device).cast(q.dtype)
    scores = (q * root).matmul((k * root).transpose(-1, -2))
    if "softmax_precision" in a:
        wide = ember_dtype(a["softmax_precision"], "FlexAttention")
    else:
        wide = ember.float32 if q.dtype.name in ("float16", "bfloat16") else q.dtype
    scores = scores.cast(wide)
    if "score_mod" in a:
        scores = a["score_mod"](c, [scores])[0].cast(wide)
    probs = scores.softmax(-1)
    if "prob_mod" in a:
        probs = a["prob_mod"](c, [probs])[0].cast(wide)
    return probs.matmul(v.cast(wide)).cast(v.dtype)
