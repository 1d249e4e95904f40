"""PyTorch's printed form of tensors: ``tensor([[1., 2.],\n        [3., 4.]])``.

>>> import ember.torch as torch
>>> torch.tensor([1.0, 2.5])
tensor([1.0000, 2.5000])
"""

import math
import sys

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
    """``repr`` of ember.torch tensor ``t`` as PyTorch prints it (PyTorch's layout rules:
    one width for every element, fixed or scientific notation chosen from the finite values,
    ``...`` past ``threshold`` elements, lines wrapped at ``linewidth``)."""
    prefix = "tensor("
    body = _tensor_str(t, len(prefix))
    suffixes = []
    if t.numel() == 0 and t.ndim != 1:
        suffixes.append(f"size={tuple(t.shape)}")
    if t.dtype.name not in _DEFAULT_NAMES:
        suffixes.append(f"dtype=torch.{t.dtype.name}")
    if t._device.type != "cpu":
        suffixes.insert(0, f"device='{t._device}'")
    node = t._node
    if node is not None and node.requires_grad and not node.parents:
        suffixes.append("requires_grad=True")
    elif node is not None and node.parents:
        suffixes.append(f"grad_fn=<{node.name or 'Op'}Backward>")
    return prefix + _add_suffixes(body, suffixes, len(prefix))


def _add_suffixes(text, suffixes, indent):
    out = [text]
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > _options["linewidth"]:
            out.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(out) + ")"


def _tensor_str(t, indent):
    if t.numel() == 0:
        return "[]"
    summarize = t.numel() > _options["threshold"]
    data = t.tolist()
    shown = _shown(data, t.ndim) if summarize else _flat(data, t.ndim)
    if t.dtype.kind == "complex":
        real = _Formatter([v.real for v in shown], True)
        imag = _Formatter([v.imag for v in shown], True)
    else:
        real, imag = _Formatter(shown, t.dtype.kind == "float"), None
    return _nested_str(data, t.ndim, indent, summarize, real, imag)


def _flat(data, ndim):
    if ndim == 0:
        return [data]
    if ndim == 1:
        return data
    return [v for row in data for v in _flat(row, ndim - 1)]


def _shown(data, ndim):
    """The elements a summarized tensor prints (the first and last ``edgeitems`` per dim)."""
    edge = _options["edgeitems"]
    if ndim == 0:
        return [data]
    if len(data) > 2 * edge:
        data = data[:edge] + data[len(data) - edge:] if edge else []
    if ndim == 1:
        return data
    return [v for row in data for v in _shown(row, ndim - 1)]


class _Formatter:
    """PyTorch's element formatter: one width for all, fixed or scientific notation."""

    def __init__(self, values, floating):
        self.floating, self.int_mode, self.sci = floating, True, False
        self.width = 1
        if not floating:
            self.width = max([1] + [len(_plain(v)) for v in values])
            return
        finite = [v for v in values if math.isfinite(v) and v != 0]
        if not finite:
            return
        digits = _options["precision"]
        big, small = max(abs(v) for v in finite), min(abs(v) for v in finite)
        self.int_mode = all(v == math.ceil(v) for v in finite)
        sci = _options["sci_mode"]
        self.sci = (big / small > 1000.0 or big > 1.0e8 or small < 1.0e-4) if sci is None else sci
        if self.sci:
            self.width = max(len(f"{v:.{digits}e}") for v in finite)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") + 1 for v in finite)
        else:
            self.width = max(len(f"{v:.{digits}f}") for v in finite)

    def format(self, v):
        if not self.floating:
            text = _plain(v)
        elif self.sci:
            text = f"{v:{self.width}.{_options['precision']}e}"
        elif self.int_mode:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{_options['precision']}f}"
        return text.rjust(self.width)


def _plain(v):
    return str(v)


def _element(v, real, imag):
    if imag is None:
        return real.format(v)
    im = (imag.format(v.imag) + "j").lstrip()
    return real.format(v.real) + (im if im[0] in "+-" else "+" + im)


def _nested_str(data, ndim, indent, summarize, real, imag):
    edge = _options["edgeitems"]
    if ndim == 0:
        return _element(data, real, imag)
    if ndim == 1:
        length = real.width + 2 + (imag.width + 1 if imag is not None else 0)
        per_line = max(1, math.floor((_options["linewidth"] - indent) / length))
        if summarize and not edge:
            items = ["..."]
        elif summarize and len(data) > 2 * edge:
            items = ([_element(v, real, imag) for v in data[:edge]] + [" ..."]
                     + [_element(v, real, imag) for v in data[-edge:]])
        else:
            items = [_element(v, real, imag) for v in data]
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    if summarize and len(data) > 2 * edge:
        parts = ([_nested_str(x, ndim - 1, indent + 1, summarize, real, imag) for x in data[:edge]]
                 + ["..."] + [_nested_str(x, ndim - 1, indent + 1, summarize, real, imag)
                              for x in data[-edge:]])
    else:
        parts = [_nested_str(x, ndim - 1, indent + 1, summarize, real, imag) for x in data]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(parts) + "]"


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
