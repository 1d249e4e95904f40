"""ONNX's Attention operator (opset 23+): scaled dot-product attention with 3-D or 4-D inputs,
grouped key/value heads, a boolean or additive mask, causal masking aligned to a past cache,
soft-capping, sliding windows and per-batch key padding; its optional outputs (present key and
value, the QK product at any of its four stages).

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> q = ember.ones(1, 2, 3, 4)
>>> CONVERTERS["Attention"]([q, q, q], {}, Context(23))[0].shape
(1, 2, 3, 4)
"""

import math

import numpy as np

import ember
import ember.nn.functional as F

from .registry import converter


def _heads(t, n):
    """(B, S, n * hd) -> (B, n, S, hd)."""
    b, s, hidden = t.shape
    return t.reshape(b, s, n, hidden // n).permute(0, 2, 1, 3)


def _positional(q_len, kv_len, offset, left, right, causal):
    """The (q, kv) bool mask of causal and sliding-window constraints (None if none)."""
    i = np.arange(q_len).reshape(-1, 1) + np.asarray(offset).reshape(-1, 1, 1)
    j = np.arange(kv_len).reshape(1, -1)
    allowed = np.ones(np.broadcast_shapes(i.shape, j.shape), bool)
    if causal:
        allowed &= j <= i
    if left >= 0:
        allowed &= (i - j) <= left
    if right >= 0:
        allowed &= (j - i) <= right
    return allowed if np.ndim(offset) else allowed[0]


@converter("Attention")
def attention(x, a, c):
    """float16 and bfloat16 attention computes in float32 (as onnx's reference and runtimes
    accumulate) and rounds its outputs back."""
    half = x[0].dtype.name in ("float16", "bfloat16")
    if half:
        wide = [t.cast("float32") if t is not None and t.kind == "float" else t for t in x]
        out = _attention(wide, a, c)
        return [t.cast(x[0].dtype) for t in out]
    return _attention(x, a, c)


def _attention(x, a, c):
    x = list(x) + [None] * (7 - len(x))
    q, k, v, mask, past_k, past_v, nonpad = x[:7]
    three_d = q.ndim == 3
    if three_d:
        q, k, v = _heads(q, a["q_num_heads"]), _heads(k, a["kv_num_heads"]), \
            _heads(v, a["kv_num_heads"])
    scale = a.get("scale", 1 / math.sqrt(q.shape[3]))
    if past_k is not None:
        k, v = ember.cat([past_k, k], dim=2), ember.cat([past_v, v], dim=2)
    present_k, present_v = k, v
    q_len, kv_len = q.shape[2], k.shape[2]
    bias = None
    if mask is not None:
        if mask.shape[-1] < kv_len:  # a short mask covers the first keys; the rest is masked
            pad = [(0, 0)] * (mask.ndim - 1) + [(0, kv_len - mask.shape[-1])]
            mask = mask.pad(pad, "constant", False if mask.kind == "bool" else -math.inf)
        bias = (ember.where(mask, c.const(0.0, q.dtype), c.const(-math.inf, q.dtype))
                if mask.kind == "bool" else mask.cast(q.dtype))
    causal = bool(a.get("is_causal", 0))
    left, right = a.get("left_window_size", -1), a.get("right_window_size", -1)
    if nonpad is not None and past_k is None:
        offset = np.asarray(nonpad.tolist()) - q_len
    else:
        offset = past_k.shape[2] if past_k is not None else 0
    if causal or left >= 0 or right >= 0:
        allowed = _positional(q_len, kv_len, offset, left, right, causal)
        if allowed.ndim == 3:
            allowed = allowed[:, None]
        pos = c.const(np.where(allowed, 0.0, -np.inf), q.dtype)
        bias = pos if bias is None else bias + pos
    if nonpad is not None:
        keep = np.arange(kv_len)[None, :] < np.asarray(nonpad.tolist())[:, None]
        pad = c.const(np.where(keep, 0.0, -np.inf).reshape(-1, 1, 1, kv_len), q.dtype)
        bias = pad if bias is None else bias + pad
    if q.shape[1] != k.shape[1]:  # grouped-query attention: repeat the key/value heads
        reps = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(reps, 1), v.repeat_interleave(reps, 1)
    s = math.sqrt(scale)
    qk = (q * s).matmul((k * s).transpose(2, 3))
    softcap = a.get("softcap", 0.0)
    if softcap > 0:
        qk = (qk / softcap).tanh() * softcap
    mode = a.get("qk_matmul_output_mode", 0)
    scores = qk if bias is None else qk + bias
    probs = F.softmax(scores, dim=-1)
    if bias is not None:  # a row with every key masked attends nothing (0, not nan)
        dead = bias.max(dim=(bias.ndim - 1,), keepdim=True) == -math.inf
        if dead.any().item():
            probs = ember.where(dead, 0.0, probs)
    out = probs.matmul(v)
    if three_d:
        out = out.permute(0, 2, 1, 3)
        out = out.reshape(out.shape[0], out.shape[1], -1)
    qk_out = {2: scores, 3: probs}.get(mode, qk)
    return [out, present_k, present_v, qk_out]
