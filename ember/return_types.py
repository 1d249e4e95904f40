"""What PyTorch-shaped calls return: ``(values, indices)`` named tuples, and the values tensor
that a Burn-shaped method returns in their place.

The module-level functions speak PyTorch: ``ember.topk(x, k)``, ``ember.sort(x)``,
``ember.max(x, dim)``, ``ember.min(x, dim)``, ``ember.median(x, dim)``, ``ember.kthvalue``,
``ember.cummax`` and ``ember.cummin`` return one of the named tuples below (``.values``,
``.indices``, and unpacking as a pair), as ``torch.return_types`` does.

The methods of the same names keep the values-only results of Burn (and NumPy's ``max(axis)``),
but return a ``ValuesTensor``: a tensor that behaves as the values in every op, has
``.values`` and ``.indices`` like PyTorch's result, and refuses the two tuple habits that would
otherwise silently misread it: unpacking (``v, i = x.topk(2)``) and positional indexing
(``x.max(1)[1]``). See docs/pytorch.md.

>>> import ember
>>> x = ember.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
>>> values, indices = ember.topk(x, 1)
>>> indices.tolist()
[[1], [2]]
>>> x.topk(1).tolist()
[[5.0], [6.0]]
>>> x.max(1).indices.tolist()
[1, 2]
>>> v, i = x.topk(1)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ember.errors.KindError: topk: the method returns the values only (Burn's topk), ...
"""

from collections import namedtuple

from .errors import KindError
from ._tensor import Tensor

__all__ = ["sort", "topk", "max", "min", "median", "kthvalue", "cummax", "cummin",
           "ValuesTensor"]

sort = namedtuple("sort", ["values", "indices"])
topk = namedtuple("topk", ["values", "indices"])
max = namedtuple("max", ["values", "indices"])  # noqa: A001  (as torch.return_types.max)
min = namedtuple("min", ["values", "indices"])  # noqa: A001
median = namedtuple("median", ["values", "indices"])
kthvalue = namedtuple("kthvalue", ["values", "indices"])
cummax = namedtuple("cummax", ["values", "indices"])
cummin = namedtuple("cummin", ["values", "indices"])

_new = object.__new__


class ValuesTensor(Tensor):
    """The values of a method whose PyTorch namesake returns ``(values, indices)``.

    Every op sees the values; ``.values`` is a plain tensor of them and ``.indices`` the
    matching int64 indices (computed when first asked for). Iterating, ``len()`` and indexing by
    an int raise ``KindError``: on PyTorch's result they would mean the pair.
    """

    __slots__ = ("_op", "_pair")

    @property
    def values(self):
        """The values as a plain tensor (same buffer, same graph)."""
        t = _new(Tensor)
        t._data = self._data
        t._dtype = self._dtype
        t._device = self._device
        t._node = self._node
        t._ad = self._ad
        t.grad = None
        return t

    @property
    def indices(self):
        """The int64 indices that go with the values (same shape)."""
        pair = self._pair
        if callable(pair):
            pair = self._pair = pair()
        return pair

    def _refuse(self):
        return KindError(
            f"{self._op}: the method returns the values only (Burn's {self._op}), so it cannot be "
            "unpacked or indexed by position like PyTorch's (values, indices); use "
            f"ember.{self._op}(x, ...) for the pair, or .values / .indices")

    def __iter__(self):
        raise self._refuse()

    def __len__(self):
        raise self._refuse()

    def __getitem__(self, key):
        if type(key) is int:
            raise self._refuse()
        return Tensor.__getitem__(self, key)


def values_tensor(t, op, indices):
    """``t`` (a fresh result nobody else holds) as a ValuesTensor of method ``op``; ``indices``
    is the indices tensor or a function computing it."""
    v = _new(ValuesTensor)
    v._data = t._data
    v._dtype = t._dtype
    v._device = t._device
    v._node = t._node
    v._ad = t._ad
    v.grad = None
    v._op = op
    v._pair = indices
    return v
