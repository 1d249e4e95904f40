"""``multi_head_attention_forward`` (``ember.nn.functional``, PyTorch's ``F.`` function of
``nn.MultiheadAttention``), composed of ember ops: its gradients (of any order) are theirs.

Layout is sequence first: query (L, N, E), key (S, N, Ek), value (S, N, Ev), or unbatched
(L, E), (S, Ek), (S, Ev). The steps: project query, key and value; append ``bias_k``/``bias_v``
as one more key; split the E features into ``num_heads`` heads; append a zero key and value
(``add_zero_attn``); attend with the scores scaled by ``1/sqrt(E // num_heads)`` plus the
masks; join the heads and project with ``out_proj``.

Masks follow PyTorch's MultiheadAttention (not ``scaled_dot_product_attention``): in a bool
mask True means *do not attend*; a float mask is added to the scores. ``attn_mask`` is (L, S)
or (N * num_heads, L, S) ((num_heads, L, S) unbatched), ``key_padding_mask`` (N, S) ((S,)
unbatched).
"""

import math
import warnings

from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import check_tensor
from .activation import softmax
from .attention import scaled_dot_product_attention
from .creation import zeros
from .dropout import dropout
from .linear import linear
from .nn_args import _float_tensor, _int, _real, _shape_str
from .segments import cat
from .views import reshape_exact as _reshape

__all__ = ["multi_head_attention_forward"]

_OP = "multi_head_attention_forward"


def _additive(mask, name, dtype, op):
    """``mask`` as a float mask of ``dtype`` added to the scores (a bool mask's True: -inf)."""
    if mask is None:
        return None
    check_tensor(mask, op, name)
    kind = mask._dtype.kind
    if kind == "bool":
        return zeros(*mask.shape, dtype=dtype, device=mask._device).masked_fill(mask, -math.inf)
    if kind != "float":
        raise KindError(f"{op}: {name} has dtype {mask._dtype.name}; expected bool or a float "
                        "dtype")
    return mask if mask._dtype is dtype else mask.cast(dtype)


def _check_shape(t, expected, op, name, what=""):
    if tuple(t.shape) != tuple(expected):
        raise ShapeMismatchError(f"{op}: {name}{what} has shape {_shape_str(t.shape)}; expected "
                                 f"{_shape_str(expected)}", expected=tuple(expected),
                                 actual=tuple(t.shape))


def _pad_column(mask):
    """``mask`` with one more (zero: attend) column at the end of its last dim."""
    if mask is None:
        return None
    return cat([mask, zeros(*mask.shape[:-1], 1, dtype=mask._dtype, device=mask._device)], -1)


def _weight(t, op, name, shape, dtype):
    """A projection weight or bias: None passes; else a float tensor of ``shape``."""
    if t is None:
        return None
    _float_tensor(t, op, name)
    _check_shape(t, shape, op, name)
    if t._dtype is not dtype:
        raise KindError(f"{op}: {name} has dtype {t._dtype.name}; expected the query's "
                        f"{dtype.name}")
    return t


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention of ``query`` over ``key``/``value`` (see the module docstring),
    PyTorch's ``F.multi_head_attention_forward``. Returns ``(output, weights)``: output
    (L, N, E); weights (N, L, S) averaged over the heads, (N, num_heads, L, S) with
    ``average_attn_weights=False``, None with ``need_weights=False``. ``is_causal`` is a hint
    that ``attn_mask`` is the causal mask (it needs one). ``static_k``/``static_v``
    (N * num_heads, S, E // num_heads) replace the projected keys and values.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> q = ember.ones(3, 1, 4)
    >>> w, b = ember.ones(12, 4), ember.zeros(12)
    >>> out, weights = F.multi_head_attention_forward(q, q, q, 4, 2, w, b, None, None, False,
    ...                                               0.0, ember.eye(4), None)
    >>> out.shape, weights.shape, weights[0, 0].tolist()
    ((3, 1, 4), (1, 3, 3), [0.3333333432674408, 0.3333333432674408, 0.3333333432674408])
    """
    op = _OP
    q_in = _float_tensor(query, op, "query")
    k_in = _float_tensor(key, op, "key")
    v_in = _float_tensor(value, op, "value")
    dt = q_in._dtype
    for name, t in (("key", k_in), ("value", v_in)):
        if t._dtype is not dt:
            raise KindError(f"{op}: {name} has dtype {t._dtype.name}; expected the query's "
                            f"{dt.name}")
    if q_in.ndim not in (2, 3):
        raise ShapeMismatchError(f"{op}: query has shape {_shape_str(q_in.shape)}; expected "
                                 "(L, N, E) or unbatched (L, E)", expected=3, actual=q_in.ndim)
    batched = q_in.ndim == 3
    for name, t in (("key", k_in), ("value", v_in)):
        if t.ndim != q_in.ndim:
            raise ShapeMismatchError(f"{op}: query is {q_in.ndim}-d and {name} {t.ndim}-d "
                                     f"(shape {_shape_str(t.shape)}); expected {q_in.ndim}-d",
                                     expected=q_in.ndim, actual=t.ndim)
    E = _int(embed_dim_to_check, op, "embed_dim_to_check", 1)
    H = _int(num_heads, op, "num_heads", 1)
    if q_in.shape[-1] != E:
        raise ShapeMismatchError(f"{op}: query has {q_in.shape[-1]} features (shape "
                                 f"{_shape_str(q_in.shape)}); expected embed_dim {E}",
                                 expected=E, actual=q_in.shape[-1])
    if E % H:
        raise InvalidParameterError(f"{op}: embed_dim {E} is not divisible by num_heads {H}",
                                    "num_heads", H)
    hd = E // H
    if tuple(k_in.shape[:-1]) != tuple(v_in.shape[:-1]):
        raise ShapeMismatchError(f"{op}: key has shape {_shape_str(k_in.shape)} and value "
                                 f"{_shape_str(v_in.shape)}; expected the same sequence and "
                                 "batch dims", expected=tuple(k_in.shape[:-1]),
                                 actual=tuple(v_in.shape[:-1]))
    if batched and k_in.shape[1] != q_in.shape[1]:
        raise ShapeMismatchError(f"{op}: query has batch size {q_in.shape[1]} and key "
                                 f"{k_in.shape[1]}; expected the same", expected=q_in.shape[1],
                                 actual=k_in.shape[1])
    for name, flag in (("add_zero_attn", add_zero_attn), ("training", training),
                       ("need_weights", need_weights), ("is_causal", is_causal),
                       ("average_attn_weights", average_attn_weights),
                       ("use_separate_proj_weight", use_separate_proj_weight)):
        if flag is not True and flag is not False:
            raise InvalidParameterError(f"{op}: {name} must be a bool, got {flag!r}", name, flag)
    p = _real(dropout_p, op, "dropout_p", 0.0, 1.0)
    if is_causal and attn_mask is None:
        raise InvalidParameterError(f"{op}: is_causal is a hint that attn_mask is the causal "
                                    "mask; expected an attn_mask (see Transformer."
                                    "generate_square_subsequent_mask)", "attn_mask", None)

    # the weights
    Ek, Ev = k_in.shape[-1], v_in.shape[-1]
    if use_separate_proj_weight:
        for name, t in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                        ("v_proj_weight", v_proj_weight)):
            if t is None:
                raise InvalidParameterError(f"{op}: use_separate_proj_weight is True but "
                                            f"{name} is None; expected a tensor", name, None)
        w_q = _weight(q_proj_weight, op, "q_proj_weight", (E, E), dt)
        w_k = _weight(k_proj_weight, op, "k_proj_weight", (E, Ek), dt)
        w_v = _weight(v_proj_weight, op, "v_proj_weight", (E, Ev), dt)
    else:
        if in_proj_weight is None:
            raise InvalidParameterError(f"{op}: in_proj_weight is None; expected a (3 * "
                                        f"{E}, {E}) tensor", "in_proj_weight", None)
        if Ek != E or Ev != E:
            raise ShapeMismatchError(f"{op}: key and value have {Ek} and {Ev} features; "
                                     f"expected embed_dim {E} (or use_separate_proj_weight)",
                                     expected=E, actual=(Ek, Ev))
        w = _weight(in_proj_weight, op, "in_proj_weight", (3 * E, E), dt)
        w_q, w_k, w_v = w[:E], w[E:2 * E], w[2 * E:]
    b = _weight(in_proj_bias, op, "in_proj_bias", (3 * E,), dt)
    b_q, b_k, b_v = (None, None, None) if b is None else (b[:E], b[E:2 * E], b[2 * E:])
    w_o = _weight(out_proj_weight, op, "out_proj_weight", (E, E), dt)
    if w_o is None:
        raise InvalidParameterError(f"{op}: out_proj_weight is None; expected a ({E}, {E}) "
                                    "tensor", "out_proj_weight", None)
    b_o = _weight(out_proj_bias, op, "out_proj_bias", (E,), dt)
    if (bias_k is None) != (bias_v is None):
        raise InvalidParameterError(f"{op}: bias_k and bias_v must both be given or both be "
                                    "None", "bias_k" if bias_k is None else "bias_v", None)
    bias_k = _weight(bias_k, op, "bias_k", (1, 1, E), dt)
    bias_v = _weight(bias_v, op, "bias_v", (1, 1, E), dt)

    # unbatched inputs get a batch of one
    L, S = q_in.shape[0], k_in.shape[0]
    if not batched:
        q_in, k_in, v_in = q_in.unsqueeze(1), k_in.unsqueeze(1), v_in.unsqueeze(1)
    N = q_in.shape[1]

    # the masks, as float masks added to the scores: attn (1 or N*H, L, S), padding (N, S)
    attn = _additive(attn_mask, "attn_mask", dt, op)
    if attn is not None:
        if attn.ndim == 2:
            _check_shape(attn, (L, S), op, "attn_mask", " (2-d)")
            attn = attn.unsqueeze(0)
        elif attn.ndim == 3:
            _check_shape(attn, (N * H, L, S), op, "attn_mask", " (3-d)")
        else:
            raise ShapeMismatchError(f"{op}: attn_mask has shape {_shape_str(attn.shape)}; "
                                     f"expected ({L}, {S}) or ({N * H}, {L}, {S})",
                                     expected=3, actual=attn.ndim)
    pad = _additive(key_padding_mask, "key_padding_mask", dt, op)
    if pad is not None:
        _check_shape(pad, (N, S) if batched else (S,), op, "key_padding_mask")
        if not batched:
            pad = pad.unsqueeze(0)
        if (attn_mask is not None and key_padding_mask._dtype.kind == "bool"
                and attn_mask._dtype.kind != "bool") or (
                attn_mask is not None and attn_mask._dtype.kind == "bool"
                and key_padding_mask._dtype.kind != "bool"):
            warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. "
                          "Use same type for both instead.", UserWarning, stacklevel=2)

    # projections, then (N*H, len, hd) heads
    q = linear(q_in, w_q, b_q)
    k = linear(k_in, w_k, b_k)
    v = linear(v_in, w_v, b_v)
    if bias_k is not None:
        if static_k is not None or static_v is not None:
            raise InvalidParameterError(f"{op}: bias_k/bias_v cannot be added to static_k/"
                                        "static_v", "static_k", None)
        k = cat([k, bias_k.expand(1, N, E)], 0)
        v = cat([v, bias_v.expand(1, N, E)], 0)
        attn, pad = _pad_column(attn), _pad_column(pad)
    q = _reshape(q, (L, N * H, hd)).transpose(0, 1)
    k = _reshape(k, (k.shape[0], N * H, hd)).transpose(0, 1)
    v = _reshape(v, (v.shape[0], N * H, hd)).transpose(0, 1)
    for name, t in (("static_k", static_k), ("static_v", static_v)):
        if t is not None:
            _float_tensor(t, op, name)
            if t.ndim != 3 or t.shape[0] != N * H or t.shape[2] != hd:
                raise ShapeMismatchError(f"{op}: {name} has shape {_shape_str(t.shape)}; "
                                         f"expected ({N * H}, S, {hd})", expected=(N * H, hd),
                                         actual=tuple(t.shape))
            if name == "static_k":
                k = t
            else:
                v = t
    if k.shape[1] != v.shape[1]:
        raise ShapeMismatchError(f"{op}: {k.shape[1]} keys and {v.shape[1]} values; expected "
                                 "as many of each", expected=k.shape[1], actual=v.shape[1])
    if add_zero_attn:
        k = cat([k, zeros(N * H, 1, hd, dtype=dt, device=k._device)], 1)
        v = cat([v, zeros(N * H, 1, hd, dtype=dt, device=v._device)], 1)
        attn, pad = _pad_column(attn), _pad_column(pad)
    S = k.shape[1]
    if pad is not None:
        if pad.shape[-1] != S:
            raise ShapeMismatchError(f"{op}: key_padding_mask covers {pad.shape[-1]} keys; "
                                     f"expected {S}", expected=S, actual=pad.shape[-1])
        pad = _reshape(_reshape(pad, (N, 1, 1, S)).expand(N, H, 1, S), (N * H, 1, S))
        attn = pad if attn is None else attn + pad
    if attn is not None and attn.shape[-1] != S:
        raise ShapeMismatchError(f"{op}: attn_mask covers {attn.shape[-1]} keys; expected "
                                 f"{S}", expected=S, actual=attn.shape[-1])
    if not training:
        p = 0.0

    if need_weights:
        scores = (q * (1.0 / math.sqrt(hd))).matmul(k.transpose(1, 2))
        if attn is not None:
            scores = scores + attn
        weights = softmax(scores, -1)
        if p > 0.0:
            weights = dropout(weights, p)  # the weights returned are the dropped ones
        out = weights.matmul(v)
    else:
        causal = is_causal and key_padding_mask is None
        mask = None if causal or attn is None else (
            attn.unsqueeze(0) if attn.shape[0] == 1 else _reshape(attn, (N, H, attn.shape[1], S)))
        out = scaled_dot_product_attention(_reshape(q, (N, H, L, hd)),
                                           _reshape(k, (N, H, S, hd)),
                                           _reshape(v, (N, H, S, hd)), mask, p, causal)
        out = _reshape(out, (N * H, L, hd))
        weights = None
    out = linear(_reshape(out.transpose(0, 1), (L, N, E)), w_o, b_o)
    if weights is not None:
        weights = _reshape(weights, (N, H, L, S))
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            weights = weights.squeeze(0)
    if not batched:
        out = out.squeeze(1)
    return out, weights

