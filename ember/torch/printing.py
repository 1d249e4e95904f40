"""PyTorch's printed form of tensors: ``tensor([[1., 2.],\n        [3., 4.]])``.

>>> import ember.torch as torch
>>> torch.tensor([1.0, 2.5])
tensor([1.0000, 2.5000])
"""

import numpy as np

__all__ = ["tensor_repr", "tensor_format"]

_DEFAULT_NAMES = {"float32", "int64", "bool", "complex64"}


def tensor_repr(t):
    """``repr`` of ember.torch tensor ``t`` as PyTorch prints it."""
    arr = t._device.backend.to_host(t._data)
    body = _format(np.asarray(arr), t)
    suffix = []
    if t.numel() == 0 and t.ndim != 1:
        suffix.append(f"size={tuple(t.shape)}")
    if t.dtype.name not in _DEFAULT_NAMES:
        suffix.append(f"dtype=torch.{t.dtype.name}")
    if t._device.type != "cpu":
        suffix.insert(0, f"device='{t._device}'")
    node = t._node
    if node is not None and node.requires_grad and not node.parents:
        suffix.append("requires_grad=True")
    elif node is not None and node.parents:
        suffix.append(f"grad_fn=<{node.name or 'Op'}Backward>")
    extra = "".join(", " + s for s in suffix)
    return f"tensor({body}{extra})"


def _format(arr, t):
    kind = t.dtype.kind
    if kind == "complex":
        return np.array2string(arr, separator=", ", prefix="tensor(", precision=4)
    if kind == "bool":
        fmt = lambda v: "True" if v else "False"  # noqa: E731
    elif kind == "int":
        fmt = str
    else:
        arr = arr.astype(np.float64)
        fmt = _float_format(arr)
    width = max((len(fmt(v)) for v in arr.flat), default=0)
    return np.array2string(arr, separator=", ", prefix="tensor(", threshold=1000, edgeitems=3,
                           max_line_width=80, formatter={"all": lambda v: fmt(v).rjust(width)})


def _float_format(arr):
    finite = arr[np.isfinite(arr)]
    nonzero = np.abs(finite[finite != 0])
    if nonzero.size and (nonzero.max() >= 1e8 or nonzero.min() < 1e-4
                         or nonzero.max() / nonzero.min() > 1000 and nonzero.max() > 1e3):
        return lambda v: _nonfinite(v) or np.format_float_scientific(  # noqa: E731
            v, precision=4, exp_digits=2, unique=False)
    if finite.size and np.all(finite == np.round(finite)):
        return lambda v: _nonfinite(v) or f"{v:.0f}."  # noqa: E731
    return lambda v: _nonfinite(v) or f"{v:.4f}"  # noqa: E731


def _nonfinite(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def tensor_format(t, spec):
    """``format(t, spec)`` as PyTorch's: a 0-d tensor formats as its number
    (``f"{loss:>7f}"``); any other tensor only with an empty spec (its ``str``)."""
    if t.ndim == 0:
        return format(t.item(), spec)
    return format(str(t), spec) if not spec else object.__format__(t, spec)
