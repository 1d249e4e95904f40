"""PyTorch's printed form of tensors: ``tensor([[1., 2.],\n        [3., 4.]])``.

>>> import ember.torch as torch
>>> torch.tensor([1.0, 2.5])
tensor([1.0000, 2.5000])
"""

import sys

import numpy as np

__all__ = ["tensor_repr", "tensor_format", "set_options"]

_DEFAULT_NAMES = {"float32", "int64", "bool", "complex64"}

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=float("inf"), edgeitems=3, linewidth=80),
}
_options = dict(_PROFILES["default"], sci_mode=None)


def set_options(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                sci_mode=None):
    """Set the options of ``torch.set_printoptions`` (a ``profile`` first, then the others;
    ``sci_mode`` None: chosen from the values, as PyTorch)."""
    from ..errors import InvalidParameterError
    if profile is not None:
        if profile not in _PROFILES:
            raise InvalidParameterError(f"set_printoptions: profile {profile!r} is unknown; "
                                        f"expected one of {sorted(_PROFILES)}", "profile", profile)
        _options.update(_PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise InvalidParameterError(f"set_printoptions: {name} must be a number >= 0, got "
                                        f"{value!r}", name, value)
        _options[name] = value
    _options["sci_mode"] = sci_mode


def tensor_repr(t):
    """``repr`` of ember.torch tensor ``t`` as PyTorch prints it."""
    arr = t._device.backend.to_host(t._data)
    body = _format(np.asarray(arr), t).replace(", ..., ", ",  ..., ")  # PyTorch: " ..."
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
    layout = dict(separator=", ", prefix="tensor(", threshold=_threshold(),
                  edgeitems=_options["edgeitems"], max_line_width=_options["linewidth"])
    if kind == "bool":
        width = 5 if arr.size and not arr.all() else 4
        return np.array2string(arr, formatter={"bool": lambda v: ("True" if v else "False").rjust(
            width)}, **layout)
    if kind == "int":
        return np.array2string(arr, **layout)
    if kind == "complex":
        return np.array2string(arr, precision=_options["precision"], **layout)
    finite = arr[np.isfinite(arr)] if arr.size else arr
    whole = finite.size and np.all(finite == np.round(finite))
    nonzero = np.abs(finite[finite != 0]) if finite.size else finite
    big = bool(nonzero.size) and (nonzero.max() > 1e8 or nonzero.max() / nonzero.min() > 1000
                                  or (not whole and nonzero.min() < 1e-4))
    digits = _options["precision"]
    sci = _options["sci_mode"]
    if sci or (sci is None and big):
        fmt = lambda v: _nonfinite(v) or np.format_float_scientific(  # noqa: E731
            v, precision=digits, exp_digits=2, unique=False)
    elif whole and sci is None:
        fmt = lambda v: _nonfinite(v) or f"{v:.0f}."  # noqa: E731
    else:
        fmt = lambda v: _nonfinite(v) or f"{v:.{digits}f}"  # noqa: E731
    arr = arr.astype(np.float64)
    width = max((len(fmt(v)) for v in arr.reshape(-1)), default=0)
    return np.array2string(arr, formatter={"float_kind": lambda v: fmt(v).rjust(width)},
                           **layout)


def _threshold():
    limit = _options["threshold"]
    return sys.maxsize if limit == float("inf") else int(limit)


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
    if spec:
        from ..errors import KindError
        raise KindError(f"unsupported format string {spec!r} passed to Tensor.__format__ (only "
                        "a 0-d tensor formats as a number)")
    return str(t)
