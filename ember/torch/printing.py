"""PyTorch's printed form of tensors: ``tensor([[1., 2.],\n        [3., 4.]])``.

>>> import ember.torch as torch
>>> torch.tensor([1.0, 2.5])
tensor([1.0000, 2.5000])
"""

import numpy as np

__all__ = ["tensor_repr"]

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
    if kind == "bool":
        return np.array2string(arr, separator=", ", prefix="tensor(",
                               formatter={"bool": lambda v: "True" if v else "False"})
    if kind == "int":
        return np.array2string(arr, separator=", ", prefix="tensor(")
    if kind == "complex":
        return np.array2string(arr, separator=", ", prefix="tensor(", precision=4)
    finite = arr[np.isfinite(arr)] if arr.size else arr
    whole = finite.size and np.all(finite == np.round(finite))
    big = finite.size and (np.abs(finite).max() >= 1e8 or
                           (np.abs(finite[finite != 0]).min() < 1e-4 if np.any(finite != 0)
                            else False))
    if big:
        fmt = lambda v: np.format_float_scientific(v, precision=4, exp_digits=2)  # noqa: E731
    elif whole:
        fmt = lambda v: _nonfinite(v) or f"{v:.0f}."  # noqa: E731
    else:
        fmt = lambda v: _nonfinite(v) or f"{v:.4f}"  # noqa: E731
    return np.array2string(arr.astype(np.float64), separator=", ", prefix="tensor(",
                           formatter={"float_kind": fmt}, threshold=1000, edgeitems=3,
                           max_line_width=80)


def _nonfinite(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None
