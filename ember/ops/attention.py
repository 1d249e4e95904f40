"""``scaled_dot_product_attention`` (``ember.nn.functional``, PyTorch's)."""

import math

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import broadcast_shapes
from ..autodiff.graph import _mode
from ..autodiff.rules import fit, sum_to
from .._tensor import check_tensor, record, saved, wrap
from .linalg import _product
from .activation import _softmax_backward, softmax
from .triangles import tril_mask
from .views import reshape_exact as _reshape
from .nn_args import _backend, _float_tensor, _real, _shape_str
from .random import _gen, _random


# -- attention ----------------------------------------------------------------------------------

def _attention_gqa(q, k, v, enable_gqa, op):
    """How many times each key and value head is repeated: (1, 1) without grouped-query
    attention, else Hq // Hk and Hq // Hv (each must divide Hq)."""
    if not enable_gqa:
        return 1, 1
    for name, t in (("query", q), ("key", k), ("value", v)):
        if t.ndim < 3:
            raise ShapeMismatchError(f"{op}: {name} has shape {_shape_str(t.shape)}; "
                                     "enable_gqa expects heads at dim -3 (*, H, L, E)",
                                     expected=3, actual=t.ndim)
    hq = q.shape[-3]
    groups = []
    for name, t in (("key", k), ("value", v)):
        h = t.shape[-3]
        if h == 0 or hq % h:
            raise ShapeMismatchError(f"{op}: {name} has {h} heads, which does not divide the "
                                     f"{hq} heads of query; expected a divisor of {hq}",
                                     expected=hq, actual=h)
        groups.append(hq // h)
    return tuple(groups)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(query @ key^T * scale + mask) @ value``, PyTorch's
    ``F.scaled_dot_product_attention``: query (*, L, E), key (*, S, E), value (*, S, Ev) give
    (*, L, Ev); the batch dims broadcast.

    ``attn_mask`` broadcasts to (*, L, S): a bool mask says where to attend (False: masked),
    a float mask of the query's dtype is added to the scores. ``is_causal`` masks the keys
    after each query (the top-left lower triangle of L x S) and excludes ``attn_mask``.
    ``scale`` defaults to ``1 / sqrt(E)``. A query whose every score is masked gets zeros, as
    PyTorch. ``dropout_p`` > 0 zeroes attention weights with that probability (always, as in
    PyTorch: pass ``dropout_p=0.0`` outside training) and scales the rest by ``1/(1-p)``; the
    mask comes from ember's generator and the backward pass uses the same one.
    ``enable_gqa`` repeats the key and value heads (dim -3) to the query's head count.

    One fused forward kernel; the backward uses the saved attention weights: the steps recorded
    are the weights (softmax of the scores), the weights after dropout and their product with
    ``value``, with rules written with ember ops, so the gradients are differentiable again.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> q = ember.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    >>> v = ember.tensor([[[1.0, 2.0], [3.0, 4.0]]])
    >>> F.scaled_dot_product_attention(q, q, v, is_causal=True)[0, 0].tolist()
    [1.0, 2.0]
    >>> mask = ember.tensor([[True, False], [True, False]])
    >>> F.scaled_dot_product_attention(q, q, v, attn_mask=mask).tolist()
    [[[1.0, 2.0], [1.0, 2.0]]]
    """
    op = "scaled_dot_product_attention"
    q = _float_tensor(query, op, "query")
    k = _float_tensor(key, op, "key")
    v = _float_tensor(value, op, "value")
    if k._dtype is not q._dtype or v._dtype is not q._dtype:
        raise KindError(f"{op}: query, key and value have dtypes {q._dtype.name}, "
                        f"{k._dtype.name} and {v._dtype.name}; expected one dtype")
    for name, t in (("query", q), ("key", k), ("value", v)):
        if t.ndim < 2:
            raise ShapeMismatchError(f"{op}: {name} has shape {_shape_str(t.shape)}; expected at "
                                     "least 2 dims (*, L, E)", expected=2, actual=t.ndim)
    E, S = q.shape[-1], k.shape[-2]
    if k.shape[-1] != E:
        raise ShapeMismatchError(f"{op}: key has shape {_shape_str(k.shape)} and query "
                                 f"{_shape_str(q.shape)}; expected the same last dim (E = {E})",
                                 expected=E, actual=k.shape[-1])
    if v.shape[-2] != S:
        raise ShapeMismatchError(f"{op}: value has shape {_shape_str(v.shape)} and key "
                                 f"{_shape_str(k.shape)}; expected the same dim -2 (S = {S})",
                                 expected=S, actual=v.shape[-2])
    p = _real(dropout_p, op, "dropout_p", 0.0, 1.0)
    for name, flag in (("is_causal", is_causal), ("enable_gqa", enable_gqa)):
        if flag is not True and flag is not False:
            raise InvalidParameterError(f"{op}: {name} must be a bool, got {flag!r}", name, flag)
    sc = None if scale is None else _real(scale, op, "scale")
    groups_k, groups_v = _attention_gqa(q, k, v, enable_gqa, op)

    def heads(shape, groups):
        return shape[:-3] + (shape[-3] * groups,) + shape[-2:] if groups != 1 else shape

    batch = broadcast_shapes(q.shape[:-2], heads(k.shape, groups_k)[:-2],
                             heads(v.shape, groups_v)[:-2], op=op)
    scores = batch + (q.shape[-2], S)
    bias = allowed = mask = None
    if attn_mask is not None:
        check_tensor(attn_mask, op, "attn_mask")
        if is_causal:
            raise InvalidParameterError(f"{op}: attn_mask is given and is_causal is True; "
                                        "expected one of them", "attn_mask", attn_mask.shape)
        if attn_mask._dtype.kind == "bool":
            allowed = attn_mask._data
        elif attn_mask._dtype is q._dtype:
            bias, mask = attn_mask._data, attn_mask
        else:
            raise KindError(f"{op}: attn_mask has dtype {attn_mask._dtype.name}; expected bool "
                            f"or the query's dtype {q._dtype.name}")
        try:
            fits = broadcast_shapes(attn_mask.shape, scores) == scores
        except ShapeMismatchError:
            fits = False
        if not fits:
            raise ShapeMismatchError(f"{op}: attn_mask has shape {_shape_str(attn_mask.shape)}; "
                                     f"expected a shape that broadcasts to the scores' "
                                     f"{_shape_str(scores)}", expected=scores,
                                     actual=tuple(attn_mask.shape))
    be = _backend((q, k, v, attn_mask), op)
    keep, keep_scale = None, 1.0
    if p > 0.0:
        work = q._dtype if q._dtype.name in ("float32", "float64") else _dt.float32
        if p == 1.0:
            keep, keep_scale = be.nn_full_like_shape(tuple(scores), 0, work), 0.0
        else:
            keep = _random("random_bernoulli",
                           (be, _gen(None, "scaled_dot_product_attention", q._device)),
                           "scaled_dot_product_attention", tuple(scores), 1.0 - p, work)
            keep_scale = 1.0 / (1.0 - p)
    if sc is None:
        sc = 1.0 / math.sqrt(E) if E else 1.0
    out, kept = be.nn_attention(q._data, k._data, v._data, bias, allowed, is_causal, sc,
                                groups_k, groups_v, keep, keep_scale)
    inputs = (q, k, v) if mask is None else (q, k, v, mask)
    if not _mode.enabled or all(t._node is None for t in inputs):  # nothing to differentiate
        return record(out, q._dtype, inputs, None, op)
    p, pd = kept[3], kept[4]
    if p is None:  # the backend's fused kernel (torch's on the CPU): no weights kept
        return record(out, q._dtype, inputs, _one_step_rule(be, kept, saved(q), saved(k), saved(v),
                                                         is_causal, sc), op)
    work = _dt.float64 if q._dtype is _dt.float64 else _dt.float32  # the kernel's dtype
    # Three recorded steps: the attention weights P = softmax(q k^T * scale + mask) (masked
    # entries are 0), the weights after dropout Pd, and out = Pd @ v. Their rules are the
    # products of the fused backward, written with ember ops (differentiable again).
    scores = (q, k) if mask is None else (q, k, mask)
    ms = None if mask is None else saved(mask)
    P = record(p, work, scores, _weights_rule(saved(q), saved(k), ms, groups_k, sc), op,
               keep_out=True)
    if keep is None:
        Pd = P
    else:
        kscale = wrap(keep, work) * keep_scale

        def dropout_rule(g, needs, out):
            return (g * kscale,)
        Pd = record(pd, work, (P,), dropout_rule, op)
    return record(out, q._dtype, (Pd, v), _values_rule(Pd, saved(v), groups_v, work), op)


def _heads(t, groups):
    """``t`` (*, H, S, E) with each head repeated ``groups`` times, the copies next to each other
    (grouped-query attention), as ember ops."""
    if groups == 1:
        return t
    shape = tuple(t.shape)
    big = shape[:-3] + (shape[-3], groups) + shape[-2:]
    return _reshape(t.unsqueeze(-3).expand(*big), shape[:-3] + (shape[-3] * groups,) + shape[-2:])


def _unheads(g, shape, groups):
    """The gradient of ``_heads`` for an input of ``shape``: summed back to the input's batch
    dims and over each group of ``groups`` consecutive heads."""
    if groups == 1:
        return sum_to(g, shape)
    wide = shape[:-3] + (shape[-3] * groups,) + shape[-2:]
    g = sum_to(g, wide)
    return _reshape(g, shape[:-3] + (shape[-3], groups) + shape[-2:]).sum(-3)



def _weights_rule(qs, ks, ms, groups_k, scale):
    """The rule of the attention weights P (inputs query, key and a float mask): the softmax
    gradient gs = P * (gP - sum(gP * P)), then gq = gs k * scale, gk = gs^T q * scale and the
    mask's gs."""
    def rule(g, needs, P):
        be = g._device.backend
        gs = _softmax_backward(g, P, P.ndim - 1, False)
        grads = [None] * len(needs)
        if len(needs) > 2 and needs[2]:
            grads[2] = fit(gs, ms)
        if qs.shape[-1]:  # with no features every score is 0, whatever the scale
            gs = gs * scale
        if needs[0]:
            grads[0] = fit(_product(gs, _heads(ks, groups_k), be), qs)
        if needs[1]:
            grads[1] = fit(_unheads(_product(gs.mT, qs, be), tuple(ks.shape), groups_k), ks)
        return tuple(grads)
    return rule


def _one_step_rule(be, kept, qs, ks, vs, causal, scale):
    """The rule of a fused attention step (no mask, dropout or grouped heads; float32/float64):
    the first-order gradients are the backend's fused backward (``nn_attention_grads``); with
    ``create_graph`` the weights are recomputed with ember ops, and the rules of the explicit
    steps give gradients that are differentiable again."""
    def rule(g, needs, out):
        if not _mode.enabled:  # a first-order backward
            shapes = (qs.shape, ks.shape, vs.shape, None)
            grads = be.nn_attention_grads(g._data, kept, shapes, tuple(needs) + (False,))
            return tuple(None if a is None else wrap(a, g._dtype) for a in grads[:3])
        s = _product(qs, ks.mT, be) * scale
        if causal:
            s = s.masked_fill(tril_mask(tuple(s.shape[-2:]), 0, s._device), -math.inf)
        P = softmax(s, -1)
        gP, gv = _values_rule(P, vs, 1, g._dtype)(g, (True, needs[2]), None)
        gq, gk = _weights_rule(qs, ks, None, 1, scale)(gP, (needs[0], needs[1]), P)
        return gq, gk, gv
    return rule


def _values_rule(Pd, vs, groups_v, work):
    """The rule of ``out = Pd @ v`` (inputs the weights after dropout and value)."""
    def rule(g, needs, out):
        be = g._device.backend
        if g._dtype is not work:
            g = g.cast(work)  # the half floats compute in float32, as the forward
        gp = gv = None
        if needs[0]:
            gp = _product(g, _heads(vs, groups_v).mT, be)
        if needs[1]:
            gv = fit(_unheads(_product(Pd.mT, g, be), tuple(vs.shape), groups_v), vs)
        return gp, gv
    return rule
