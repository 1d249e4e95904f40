"""PyTorch's ``F.bilinear``, ``F.embedding_bag`` and ``F.gumbel_softmax``, composed of
ember's ops (einsum, ``embedding``, matmul with a constant bag matrix, softmax).

>>> import ember
>>> import ember.nn.functional as F
>>> F.embedding_bag(ember.tensor([[0, 1]]), ember.tensor([[1.0], [3.0]])).tolist()
[[2.0]]
"""

from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import check_tensor
from .activation import softmax
from .creation import tensor, zeros, zeros_like
from .dropout import embedding
from .linalg import einsum
from .masking import where
from .nn_args import _float_tensor, _int, _opt_float, _real, _shape_str
from .random import rand

__all__ = ["bilinear", "embedding_bag", "gumbel_softmax"]


def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = input1 @ weight[o] @ input2 + bias[o]``, PyTorch's ``F.bilinear``:
    ``input1`` (*, in1), ``input2`` (*, in2), ``weight`` (out, in1, in2).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.bilinear(ember.ones(1, 2), ember.ones(1, 3), ember.ones(4, 2, 3)).tolist()
    [[6.0, 6.0, 6.0, 6.0]]
    """
    op = "bilinear"
    a = _float_tensor(input1, op, "input1")
    b = _float_tensor(input2, op, "input2")
    w = _float_tensor(weight, op, "weight")
    bias = _opt_float(bias, op, "bias")
    if w.ndim != 3 or a.shape[-1:] != w.shape[1:2] or b.shape[-1:] != w.shape[2:3] or \
            tuple(a.shape[:-1]) != tuple(b.shape[:-1]):
        raise ShapeMismatchError(
            f"{op}: input1 {_shape_str(a.shape)}, input2 {_shape_str(b.shape)} and weight "
            f"{_shape_str(w.shape)} do not fit; expected (*, in1), (*, in2) and "
            "(out, in1, in2)", expected="(*, in1), (*, in2), (out, in1, in2)",
            actual=(tuple(a.shape), tuple(b.shape), tuple(w.shape)))
    out = einsum("...i,oij,...j->...o", a, w, b)
    return out if bias is None else out + bias


def _bags(op, input, offsets, include_last_offset):
    """(flat indices as a list, bag start/end pairs) of the input and offsets."""
    check_tensor(input, op, "input")
    if input.dtype.kind != "int":
        raise KindError(f"{op}: input has dtype {input.dtype.name}; expected an int tensor "
                        "of indices")
    if input.ndim == 2:
        if offsets is not None:
            raise InvalidParameterError(f"{op}: offsets must be None for a 2-d input (each "
                                        "row is a bag)", "offsets", offsets)
        b, n = input.shape
        return input.reshape((-1,)), [(i * n, (i + 1) * n) for i in range(b)]
    if input.ndim != 1:
        raise ShapeMismatchError(f"{op}: input has shape {_shape_str(input.shape)}; expected "
                                 "a 1-d tensor with offsets or a 2-d (B, N) tensor",
                                 expected=(1, 2), actual=tuple(input.shape))
    if offsets is None:
        raise InvalidParameterError(f"{op}: a 1-d input needs offsets (the start of each bag)",
                                    "offsets", offsets)
    check_tensor(offsets, op, "offsets")
    if offsets.ndim != 1 or offsets.dtype.kind != "int":
        raise ShapeMismatchError(f"{op}: offsets must be a 1-d int tensor, got shape "
                                 f"{_shape_str(offsets.shape)}", expected=1,
                                 actual=tuple(offsets.shape))
    starts = [int(v) for v in offsets.tolist()]
    n = input.shape[0]
    if starts and starts[0] != 0:
        raise InvalidParameterError(f"{op}: offsets[0] is {starts[0]}; expected 0", "offsets",
                                    starts[0])
    if any(b < a for a, b in zip(starts, starts[1:])) or any(s > n for s in starts):
        raise InvalidParameterError(f"{op}: offsets {starts} must be non-decreasing and at "
                                    f"most the input's length {n}", "offsets", starts)
    ends = starts[1:] + [n]
    pairs = list(zip(starts, ends))
    if include_last_offset:
        pairs = pairs[:-1]
    return input, pairs


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings, PyTorch's ``F.embedding_bag``: ``input``
    (B, N) (each row a bag) or 1-d with ``offsets`` (the start of each bag);
    ``per_sample_weights`` scales each row (mode "sum"); ``padding_idx`` rows are left out
    (and do not count for "mean"); an empty bag gives zeros. ``max_norm`` renormalizes the
    looked-up rows as ``F.embedding`` does.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> w = ember.tensor([[1.0], [2.0], [4.0]])
    >>> F.embedding_bag(ember.tensor([0, 1, 2]), w, ember.tensor([0, 1]), mode="sum").tolist()
    [[1.0], [6.0]]
    """
    op = "embedding_bag"
    w = _float_tensor(weight, op, "weight")
    if mode not in ("sum", "mean", "max"):
        raise InvalidParameterError(f"{op}: mode {mode!r} is unknown; expected 'sum', 'mean' "
                                    "or 'max'", "mode", mode)
    if per_sample_weights is not None:
        _float_tensor(per_sample_weights, op, "per_sample_weights")
        if mode != "sum":
            raise InvalidParameterError(f"{op}: per_sample_weights is only supported for "
                                        f"mode='sum', got mode={mode!r}", "mode", mode)
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ShapeMismatchError(
                f"{op}: per_sample_weights has shape {_shape_str(per_sample_weights.shape)}; "
                f"expected the input's {_shape_str(input.shape)}", expected=tuple(input.shape),
                actual=tuple(per_sample_weights.shape))
    flat, pairs = _bags(op, input, offsets, include_last_offset)
    num = w.shape[0]
    if padding_idx is not None:
        padding_idx = _int(padding_idx, op, "padding_idx", -num)
        if padding_idx >= num:
            raise InvalidParameterError(f"{op}: padding_idx {padding_idx} is out of range for "
                                        f"{num} embeddings", "padding_idx", padding_idx)
        padding_idx %= num
    if input.ndim == 2 and input.shape[1] and padding_idx is None:  # bags of one length
        rows = embedding(input, w, None, max_norm, norm_type, scale_grad_by_freq, sparse)
        if mode == "max":
            return rows.max(dim=1).values
        if per_sample_weights is not None:
            rows = rows * per_sample_weights.unsqueeze(-1).cast(rows.dtype)
        return rows.sum(1) if mode == "sum" else rows.mean(1)
    rows = embedding(flat, w, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)
    idx = flat.tolist()
    n, nb = len(idx), len(pairs)
    bag = [nb] * n  # each position's bag; nb (a spare row, dropped) for padding and strays
    counts = [0] * nb
    for b, (start, end) in enumerate(pairs):
        for j in range(start, end):
            if idx[j] != padding_idx:
                bag[j] = b
                counts[b] += 1
    width = rows.shape[-1]
    if mode == "max":  # a (bags, n) membership mask: max picks the first of tied rows
        ids = tensor(bag, device=rows.device).reshape((1, n))
        member = ids == tensor(list(range(nb)), device=rows.device).reshape((nb, 1))
        sel = member.unsqueeze(-1)
        out = where(sel, rows.unsqueeze(0), float("-inf")).max(dim=1).values
        return where(sel.any(1), out, 0.0)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape((-1, 1)).cast(rows.dtype)
    at = tensor(bag, device=rows.device).reshape((n, 1)).expand((n, width))
    out = zeros(nb + 1, width, dtype=rows.dtype, device=rows.device).scatter(0, at, rows,
                                                                             "add")[:nb]
    if mode == "mean":
        out = out / tensor([max(c, 1) for c in counts], dtype=rows.dtype,
                           device=rows.device).reshape((-1, 1))
    return out


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution of ``logits`` at temperature ``tau``,
    PyTorch's ``F.gumbel_softmax`` (ember's generator); ``hard=True`` returns the one-hot
    argmax with the soft sample's gradient (straight-through).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> y = F.gumbel_softmax(ember.zeros(2, 3), hard=True)
    >>> y.sum(-1).tolist()
    [1.0, 1.0]
    """
    op = "gumbel_softmax"
    x = _float_tensor(logits, op, "logits")
    tau = _real(tau, op, "tau")
    if tau <= 0:
        raise InvalidParameterError(f"{op}: tau is {tau}; expected a temperature > 0", "tau",
                                    tau)
    u = 1.0 - rand(*x.shape, dtype=x.dtype, device=x.device)      # (0, 1]
    gumbels = -(-(u.log())).log()
    y = softmax((x + gumbels) / tau, dim)
    if not hard:
        return y
    d = dim % max(x.ndim, 1)
    hot = y.argmax(d, keepdim=True)
    y_hard = zeros_like(y).scatter(d, hot, 1.0)
    return y_hard - y.detach() + y

