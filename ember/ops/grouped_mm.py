"""PyTorch's ``F.grouped_mm``: the matrix products of a mixture-of-experts layer, one per group
(expert), with a jagged dimension cut by ``offs``, written with ember's matmul (so it has
gradients of every order on every backend).

``offs`` (1-d int32, non-decreasing) ends group ``i`` at ``offs[i]``; group ``i`` starts
where group ``i - 1`` ends (group 0 at 0). With ``mat_a`` (M, K) and ``mat_b`` (G, K, N) the
rows of ``mat_a`` are cut: rows of group ``i`` times ``mat_b[i]``, result (M, N). With
``mat_a`` (G, M, K) and ``mat_b`` (K, N) the columns of ``mat_b`` are cut, result (M, N).
With both 2-d the shared dim K is cut and each group gives one (M, N) matrix, result
(G, M, N). With both 3-d there is no ``offs``: the G products ``mat_a[i] @ mat_b[i]``.
Rows (or columns) past ``offs[-1]`` belong to no group and are 0 (PyTorch leaves them
unset). ``bias`` is added to the result (broadcast); ``out_dtype`` float32 takes bfloat16 or
float16 operands to float32 before the products. PyTorch's CPU kernel takes float32, bfloat16
and float16; ember takes float64 too.

>>> import ember
>>> import ember.nn.functional as F
>>> a = ember.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
>>> b = ember.stack([ember.eye(2), 2 * ember.eye(2)])
>>> F.grouped_mm(a, b, offs=ember.tensor([1, 3], dtype=ember.int32)).tolist()
[[1.0, 0.0], [0.0, 2.0], [2.0, 2.0]]
"""

from .. import dtypes as _dt
from .._tensor import check_tensor
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .creation import zeros
from .nn_args import _float_tensor, _shape_str
from .segments import cat, stack

__all__ = ["grouped_mm"]

_OP = "grouped_mm"


def _check_operands(mat_a, mat_b):
    a = _float_tensor(mat_a, _OP, "mat_a")
    b = _float_tensor(mat_b, _OP, "mat_b")
    for name, t in (("mat_a", a), ("mat_b", b)):
        if t.ndim not in (2, 3):
            raise ShapeMismatchError(f"{_OP}: {name} has shape {_shape_str(t.shape)}; expected a "
                                     "2-d or 3-d tensor", expected=(2, 3), actual=tuple(t.shape))
    if a.dtype != b.dtype:
        raise KindError(f"{_OP}: mat_a has dtype {a.dtype.name} and mat_b {b.dtype.name}; "
                        "expected the same dtype")
    k_a, k_b = a.shape[-1], b.shape[-2]
    if k_a != k_b:
        raise ShapeMismatchError(
            f"{_OP}: contraction dimension of mat_a {_shape_str(a.shape)} ({k_a}) and mat_b "
            f"{_shape_str(b.shape)} ({k_b}) must match", expected=k_a, actual=k_b)
    return a, b


def _bounds(offs, a, b):
    """The (start, end) of every group from ``offs``, checked against the cut dim."""
    if (offs is None) != (a.ndim == 3 and b.ndim == 3):
        raise InvalidParameterError(f"{_OP}: offs is {'None' if offs is None else 'given'} for "
                                    f"mat_a {_shape_str(a.shape)} and mat_b "
                                    f"{_shape_str(b.shape)}; expected offsets when an operand "
                                    "is 2-d and none when both are 3-d", "offs", offs)
    if offs is None:
        return None
    check_tensor(offs, _OP, "offs")
    if offs.dtype != _dt.int32 or offs.ndim != 1:
        raise KindError(f"{_OP}: offs has dtype {offs.dtype.name} and shape "
                        f"{_shape_str(offs.shape)}; expected a 1-d int32 tensor")
    ends = offs.tolist()
    if a.ndim == 2 and b.ndim == 2:
        groups, length, what = len(ends), a.shape[1], "K"
    else:
        groups = (b if a.ndim == 2 else a).shape[0]
        length, what = (a.shape[0], "M") if a.ndim == 2 else (b.shape[1], "N")
    if len(ends) != groups:
        raise ShapeMismatchError(f"{_OP}: offs has {len(ends)} groups and the 3-d operand "
                                 f"{groups}; the batch sizes have to match", expected=groups,
                                 actual=len(ends))
    starts = [0] + ends[:-1]
    if any(e < s for s, e in zip(starts, ends)) or (ends and ends[-1] > length):
        raise InvalidParameterError(f"{_OP}: offs {ends} must be non-decreasing in [0, {length}]"
                                    f" (the length of the cut dimension {what})", "offs", ends)
    return list(zip(starts, ends)), length


def _out_dtype(a, out_dtype):
    if out_dtype is None:
        return a.dtype
    want = _dt.as_dtype(out_dtype, "out_dtype", _OP)
    if want == a.dtype or (want == _dt.float32 and a.dtype in (_dt.bfloat16, _dt.float16)):
        return want
    raise InvalidParameterError(f"{_OP}: out_dtype {want.name} for {a.dtype.name} operands; "
                                "expected None, the operands' dtype, or float32 for bfloat16 "
                                "and float16 operands", "out_dtype", out_dtype)


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """The products of every group (see the module docstring for the four layouts).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> a, b = ember.ones(2, 3), ember.ones(3, 2)
    >>> F.grouped_mm(a, b, offs=ember.tensor([1, 3], dtype=ember.int32)).tolist()
    [[[1.0, 1.0], [1.0, 1.0]], [[2.0, 2.0], [2.0, 2.0]]]
    """
    a, b = _check_operands(mat_a, mat_b)
    cut = _bounds(offs, a, b)
    dtype = _out_dtype(a, out_dtype)
    if bias is not None:
        check_tensor(bias, _OP, "bias")
    a, b = a.cast(dtype), b.cast(dtype)
    if cut is None:
        out = a @ b
    elif a.ndim == 2 and b.ndim == 2:
        out = stack([a.narrow(1, s, e - s) @ b.narrow(0, s, e - s) for s, e in cut[0]])
        if not cut[0]:
            out = zeros((0, a.shape[0], b.shape[1]), dtype=dtype, device=a._device)
    else:
        rows = a.ndim == 2  # the rows of mat_a are cut, else the columns of mat_b
        parts = [a.narrow(0, s, e - s) @ b[i] if rows else a[i] @ b.narrow(1, s, e - s)
                 for i, (s, e) in enumerate(cut[0])]
        m, n = (a.shape[0], b.shape[2]) if rows else (a.shape[1], b.shape[1])
        rest = cut[1] - (cut[0][-1][1] if cut[0] else 0)
        tail = (rest, n) if rows else (m, rest)
        parts.append(zeros(tail, dtype=dtype, device=a._device))
        out = cat(parts, 0 if rows else 1)
    return out if bias is None else out + bias.cast(dtype)
