"""PyTorch's ``F.bilinear``, ``F.embedding_bag`` and ``F.gumbel_softmax``: einsum, the
backend's ``nn_embedding_bag`` kernel (its gradient of ``embedding`` steps), softmax.

>>> import ember
>>> import ember.nn.functional as F
>>> F.embedding_bag(ember.tensor([[0, 1]]), ember.tensor([[1.0], [3.0]])).tolist()
[[2.0]]
"""

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import check_tensor, record, saved, wrap
from .activation import softmax
from .creation import tensor, zeros, zeros_like
from .dropout import _checked, _embedding_grad, embedding
from .linalg import einsum
from .nn_args import _backend, _float_tensor, _int, _opt_float, _real, _shape_str
from .segments import cat
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
    """The B + 1 bounds of the bags (bag b: input[bounds[b]:bounds[b + 1]]) as a list; None for
    a 2-d input (each row a bag)."""
    check_tensor(input, op, "input")
    if input.dtype.kind != "int":
        raise KindError(f"{op}: input has dtype {input.dtype.name}; expected an int tensor "
                        "of indices")
    if input.ndim == 2:
        if offsets is not None:
            raise InvalidParameterError(f"{op}: offsets must be None for a 2-d input (each "
                                        "row is a bag)", "offsets", offsets)
        return None
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
    return (starts if include_last_offset else starts + [n]) or [0]


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings, PyTorch's ``F.embedding_bag``: ``input``
    (B, N) (each row a bag) or 1-d with ``offsets`` (the start of each bag);
    ``per_sample_weights`` scales each row (mode "sum"); ``padding_idx`` rows are left out
    (and do not count for "mean"); an empty bag gives zeros. ``max_norm`` renormalizes the
    looked-up rows as ``F.embedding`` does. One kernel gathers and reduces the bags.

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
    bounds = _bags(op, input, offsets, include_last_offset)
    num = w.shape[0]
    if padding_idx is not None:
        padding_idx = _int(padding_idx, op, "padding_idx", -num)
        if padding_idx >= num:
            raise InvalidParameterError(f"{op}: padding_idx {padding_idx} is out of range for "
                                        f"{num} embeddings", "padding_idx", padding_idx)
        padding_idx %= num
    w, _, be = _checked(input, w, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)
    psw = per_sample_weights
    if psw is not None:
        _backend((w, psw), op)
        psw = psw.cast(w.dtype)
    dt, dev = w._dtype, input.device
    at = None if bounds is None else tensor(bounds, dtype=_dt.int64, device=dev)._data
    out, pos = be.nn_embedding_bag(w._data, input._data, at, mode,
                                   None if psw is None else psw._data, padding_idx)
    inputs = (w,) if psw is None else (w, psw)
    idx, idt, shape = input._data, input._dtype, tuple(input.shape)
    n, (nb, d) = shape[0] * (shape[1] if len(shape) == 2 else 1), out.shape
    w_now, psw_now = saved(w), None if psw is None else saved(psw)

    def rule(g, needs, out_t):
        flat = wrap(idx, idt).reshape((-1,))
        # the gradient of each looked-up row before per_sample_weights: its bag's (divided by
        # the bag's count for "mean"; at the maximum for "max"), zero outside every bag
        if mode == "max":
            rows = zeros(n + 1, d, dtype=dt, device=dev).scatter(0, wrap(pos, _dt.int64), g,
                                                                 "add")[:n]
        elif bounds is None and padding_idx is None and shape[1]:  # bags of one length
            k = shape[1]
            rows = (g / k if mode == "mean" else g).unsqueeze(1).expand((nb, k, d))
            rows = rows.reshape((n, d))
        else:
            bag, counts = _members(flat.tolist(), bounds, padding_idx, shape)
            if mode == "mean":
                g = g / tensor([max(c, 1) for c in counts], dtype=dt, device=dev).reshape((-1, 1))
            at = tensor(bag, dtype=_dt.int64, device=dev)
            rows = embedding(at, cat([g, zeros(1, d, dtype=dt, device=dev)]))
        grads = [None] * len(inputs)
        if needs[0]:
            scaled = rows if psw_now is None else rows * psw_now.reshape((n, 1))
            grads[0] = _embedding_grad(scaled, flat._data, num, padding_idx, scale_grad_by_freq,
                                       dt, op)
        if psw_now is not None and needs[1]:
            grads[1] = (rows * embedding(flat, w_now)).sum(-1).reshape(shape)
        return tuple(grads)

    return record(out, dt, inputs, rule, op)


def _members(idx, bounds, padding_idx, shape):
    """(each position's bag, B for none or padding; each bag's count of positions) of the flat
    indices ``idx`` in the bags of ``bounds`` (None: the rows of a 2-d input of ``shape``)."""
    if bounds is None:
        bounds = [i * shape[1] for i in range(shape[0] + 1)]
    nb = len(bounds) - 1
    bag = [nb] * len(idx)
    counts = [0] * nb
    for b in range(nb):
        for j in range(bounds[b], bounds[b + 1]):
            if idx[j] != padding_idx:
                bag[j] = b
                counts[b] += 1
    return bag, counts


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

