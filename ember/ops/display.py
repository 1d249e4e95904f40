"""Display: ``repr(t)``, ``str(t)`` and ``format(t, spec)``.

The format, for every dtype:

- ``str(t)`` is the values alone, as the spec prints them: ``[[1.0, 2.0], [3.0, 4.0]]``;
  a 0-d tensor is its value (``3.5``); an empty one ``[]`` (``[[], []]`` for shape (2, 0)).
- ``repr(t)`` wraps them: ``Tensor([[1.0, 2.0], [3.0, 4.0]], shape=(2, 2), dtype=float32)``,
  with ``, requires_grad=True`` added for a tensor tracked by autodiff.
- Floats always show a decimal point or an exponent, in the shortest form that reads back as
  the same value of their own dtype (float32 1.9 prints ``1.9``, bfloat16 too); positional for
  magnitudes in [1e-4, 1e16), scientific otherwise (``1e+20``, ``1.5e-05``), as Python's
  ``repr(float)``; ``nan``, ``inf``, ``-inf``, ``-0.0``. Ints print plain, bools ``True``/``False``.
- Complex numbers print as ``real+imagj`` (PyTorch's ``1.+2.j`` in ember's float format), each
  part as a float of the part's dtype (float32 for complex64): ``1.0+2.0j``, ``-0.0-1.5e-05j``,
  ``nan+infj``.
- A tensor of more than 1000 elements is summarized: along each dim longer than 6 only the
  first 3 and last 3 entries are shown, with ``...`` between.
- Values that fit on one 80-column line print on one line; longer ones print one row of the
  last dim per line (rows wrapped at 80 columns), a blank line between matrices, aligned
  under the opening bracket as NumPy does.
- ``format(t, spec)`` with a non-empty spec formats the value of a one-element tensor
  (``f"{t:.3f}"``); an empty spec is ``str(t)``.

>>> import ember
>>> ember.tensor([[1.0, 2.0], [3.0, 4.0]])
Tensor([[1.0, 2.0], [3.0, 4.0]], shape=(2, 2), dtype=float32)
>>> print(ember.tensor([1.9, float("nan"), -float("inf")]))
[1.9, nan, -inf]
>>> ember.tensor(3.5)
Tensor(3.5, shape=(), dtype=float32)
>>> print(ember.arange(2000))
[0, 1, 2, ..., 1997, 1998, 1999]
>>> ember.tensor([1 + 2j, 3 - 0.5j])
Tensor([1.0+2.0j, 3.0-0.5j], shape=(2,), dtype=complex64)
"""

from ..backends import host_of
from ..errors import InvalidParameterError
from .._tensor import Tensor

__all__ = []

WIDTH = 80
THRESHOLD = 1000
EDGE = 3


def _row(items, col, multiline):
    """One dim of scalars; greedy wrapping at WIDTH when ``multiline``."""
    if not multiline:
        return "[" + ", ".join(items) + "]"
    lines, cur = [], ""
    last = len(items) - 1
    for i, s in enumerate(items):
        piece = s + ("]" if i == last else ",")
        cand = piece if not cur else cur + " " + piece
        if cur and col + 1 + len(cand) > WIDTH:
            lines.append(cur)
            cur = piece
        else:
            cur = cand
    lines.append(cur)
    return "[" + ("\n" + " " * (col + 1)).join(lines)


def _render(node, depth, ndim, col, cut, multiline):
    left = ndim - depth
    if left == 0:
        return node
    items = node
    if depth in cut:
        items = items[:EDGE] + ["..."] + items[EDGE:]
    if not items:
        return "[]"
    if left == 1:
        return _row(items, col, multiline)
    parts = [item if item == "..." else _render(item, depth + 1, ndim, col + 1, cut, multiline)
             for item in items]
    if multiline:
        sep = "," + "\n" * (left - 1) + " " * (col + 1)
    else:
        sep = ", "
    return "[" + sep.join(parts) + "]"


def format_values(arr, indent=0, be=None):
    """The display text of a backend array's values (see the module's docstring);
    ``indent``: the column where the text starts, for aligning continuation lines; ``be``: the
    backend that holds ``arr`` (None: found from the array).

    >>> import ember
    >>> format_values(ember.tensor([[1, 2], [3, 4]]).numpy())
    '[[1, 2], [3, 4]]'
    """
    if be is None:
        be = host_of(arr)
    cut = ()
    if be.numel(arr) > THRESHOLD:
        arr, cut = be.display_edges(arr, EDGE)
    strings = be.display_strings(arr)
    ndim = arr.ndim
    if ndim == 0:
        return strings
    text = _render(strings, 0, ndim, indent, cut, False)
    if indent + len(text) <= WIDTH:
        return text
    return _render(strings, 0, ndim, indent, cut, True)


def __repr__(self):
    """``Tensor(<values>, shape=(...), dtype=<name>)`` (plus ``requires_grad=True`` when tracked).

    >>> import ember
    >>> ember.tensor([1.0, 2.0]).require_grad()
    Tensor([1.0, 2.0], shape=(2,), dtype=float32, requires_grad=True)
    """
    text = format_values(self._data, len("Tensor("), self._device.backend)
    grad = ", requires_grad=True" if self._node is not None else ""
    return f"Tensor({text}, shape={tuple(self._data.shape)}, dtype={self._dtype.name}{grad})"


def __str__(self):
    """The values alone, as the spec prints tensors.

    >>> import ember
    >>> print(ember.tensor([[True, False]]))
    [[True, False]]
    """
    return format_values(self._data, 0, self._device.backend)


def __format__(self, spec):
    be = self._device.backend
    if not spec:
        return format_values(self._data, 0, be)
    n = be.numel(self._data)
    if n != 1:
        raise InvalidParameterError(
            f"format: spec {spec!r} needs a one-element tensor, this one has {n} elements "
            f"(shape {tuple(self._data.shape)}); expected exactly one element or an empty spec",
            "spec", spec)
    return format(be.item(self._data), spec)


Tensor.__repr__ = __repr__
Tensor.__str__ = __str__
Tensor.__format__ = __format__
