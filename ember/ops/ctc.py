"""PyTorch's ``F.ctc_loss``: the connectionist temporal classification loss, the forward
(alpha) recursion over time in log space, composed of ember's ops, so its gradient is
autodiff's.

>>> import ember
>>> import ember.nn.functional as F
>>> lp = ember.full((1, 1, 2), 0.5).log()
>>> round(F.ctc_loss(lp, ember.tensor([[1]]), ember.tensor([1]), ember.tensor([1])).item(), 4)
0.6931
"""

import math

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import check_tensor
from .creation import tensor
from .masking import where
from .nn_args import _float_tensor, _int, _reduction, _shape_str
from .segments import cat

__all__ = ["ctc_loss"]

# a stand-in for log(0) that keeps every log-sum-exp (and its gradient) finite
_NEG = -1e30


def _lse(parts):
    m = parts[0]
    for p in parts[1:]:
        m = m.maximum(p)
    m = m.detach()
    total = (parts[0] - m).exp()
    for p in parts[1:]:
        total = total + (p - m).exp()
    return m + total.log()


def _ints(t, op, param):
    if isinstance(t, (list, tuple)):
        return [_int(v, op, param, 0) for v in t]
    check_tensor(t, op, param)
    if t.dtype.kind != "int":
        raise KindError(f"{op}: {param} has dtype {t.dtype.name}; expected an int tensor")
    return [int(v) for v in t.reshape((-1,)).tolist()]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """PyTorch's ``F.ctc_loss``: ``log_probs`` (T, N, C) or (T, C) log-softmax outputs,
    ``targets`` (N, S) padded or 1-d concatenated class indices (never ``blank``), lengths
    as int tensors or sequences. The gradient of ``log_probs`` is PyTorch's (that of the
    logits through a log_softmax). ``reduction="mean"`` divides each loss by its target length
    and averages over the batch; ``zero_infinity`` turns impossible alignments (infinite
    losses) and their gradients into zeros.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> lp = ember.zeros(3, 1, 3).log_softmax(2)
    >>> round(F.ctc_loss(lp, ember.tensor([[1, 2]]), [3], [2], reduction="sum").item(), 4)
    1.6864
    """
    op = "ctc_loss"
    lp = _float_tensor(log_probs, op, "log_probs")
    r = _reduction(reduction, op)
    check_tensor(targets, op, "targets")
    if targets.dtype.kind != "int":
        raise KindError(f"{op}: targets has dtype {targets.dtype.name}; expected an int tensor")
    unbatched = lp.ndim == 2
    if unbatched:
        lp = lp.unsqueeze(1)
    if lp.ndim != 3:
        raise ShapeMismatchError(f"{op}: log_probs has shape {_shape_str(lp.shape)}; expected "
                                 "(T, N, C) or (T, C)", expected=3, actual=tuple(lp.shape))
    T, N, C = lp.shape
    blank = _int(blank, op, "blank", 0)
    if blank >= C:
        raise InvalidParameterError(f"{op}: blank {blank} is out of range for {C} classes",
                                    "blank", blank)
    in_len = _ints(input_lengths, op, "input_lengths")
    tg_len = _ints(target_lengths, op, "target_lengths")
    if len(in_len) != N or len(tg_len) != N:
        raise ShapeMismatchError(f"{op}: input_lengths and target_lengths need {N} entries, "
                                 f"got {len(in_len)} and {len(tg_len)}", expected=N,
                                 actual=(len(in_len), len(tg_len)))
    if any(t > T for t in in_len):
        raise InvalidParameterError(f"{op}: input_lengths {in_len} exceed the {T} time steps",
                                    "input_lengths", in_len)
    flat = [int(v) for v in targets.reshape((-1,)).tolist()]
    if targets.ndim == 2:
        width = targets.shape[1]
        seqs = [flat[n * width: n * width + tg_len[n]] for n in range(N)]
    else:
        starts = [sum(tg_len[:n]) for n in range(N)]
        seqs = [flat[s: s + L] for s, L in zip(starts, tg_len)]
    if any(len(s) != L for s, L in zip(seqs, tg_len)):
        raise ShapeMismatchError(f"{op}: targets {_shape_str(targets.shape)} are shorter than "
                                 f"target_lengths {tg_len}", expected=tg_len,
                                 actual=tuple(targets.shape))
    if any(not 0 <= c < C or c == blank for s in seqs for c in s):
        raise InvalidParameterError(f"{op}: targets must be class indices in [0, {C}) other "
                                    f"than blank={blank}", "targets", "out of range")
    S = 2 * max(tg_len + [0]) + 1
    ext = [[blank] * S for _ in range(N)]
    skip = [[0.0] * S for _ in range(N)]
    for n, seq in enumerate(seqs):
        for i, c in enumerate(seq):
            ext[n][2 * i + 1] = c
            if i > 0 and seq[i - 1] != c:
                skip[n][2 * i + 1] = 1.0
    dev, dt = lp.device, lp.dtype
    labels = tensor(ext, dtype=_dt.int64, device=dev).reshape((N, S))
    can_skip = tensor(skip, dtype=dt, device=dev).reshape((N, S)) > 0
    # emissions[t, n, s] = log_probs[t, n, ext[n, s]]
    emit = lp.gather(2, labels.unsqueeze(0).expand(T, N, S))
    neg = tensor([[_NEG]], dtype=dt, device=dev).expand(N, 1)
    first = [[0.0 if s < 2 else _NEG for s in range(S)] for _ in range(N)]
    alpha = tensor(first, dtype=dt, device=dev).reshape((N, S)) + emit[0]
    for t in range(1, T):
        prev1 = _shift(alpha, 1, neg)
        prev2 = where(can_skip, _shift(alpha, 2, neg), _NEG)
        new = _lse([alpha, prev1, prev2]) + emit[t]
        active = tensor([[1.0 if t < L else 0.0] for L in in_len], dtype=dt,
                        device=dev).reshape((N, 1)) > 0
        alpha = where(active, new, alpha)
    ends = [[2 * L, max(2 * L - 1, 0)] for L in tg_len]
    end_idx = tensor(ends, dtype=_dt.int64, device=dev).reshape((N, 2))
    last = alpha.gather(1, end_idx)
    only_one = tensor([[0.0, 1.0 if L == 0 else 0.0] for L in tg_len], dtype=dt,
                      device=dev).reshape((N, 2)) > 0
    last = where(only_one, _NEG, last)
    loss = -_lse([last[:, 0], last[:, 1]])
    # PyTorch's gradient of log_probs is that of the logits through a log_softmax (it adds
    # exp(log_probs) at every step t < input_length); a zero-valued term with that gradient
    # matches it (the logits' gradient through log_softmax is the same either way)
    probs = lp.exp()
    steps = tensor([[1.0 if t < L else 0.0 for L in in_len] for t in range(T)], dtype=dt,
                   device=dev).reshape((T, N, 1))
    loss = loss + ((probs - probs.detach()) * steps).sum((0, 2))
    impossible = loss > -_NEG / 2
    if zero_infinity:
        loss = where(impossible, 0.0, loss)
    else:
        loss = where(impossible, math.inf, loss)
    if r == "mean":
        div = tensor([max(L, 1) for L in tg_len], dtype=dt, device=dev)
        return (loss / div).mean()
    if r == "sum":
        return loss.sum()
    return loss.reshape(()) if unbatched else loss


def _shift(alpha, k, neg):
    """``alpha`` moved ``k`` states right along dim 1, the first ``k`` filled with log(0)."""
    n, s = alpha.shape
    if k >= s:
        return neg.expand(n, s)
    return cat([neg.expand(n, k), alpha[:, :s - k]], 1)

