"""Datasets as PyTorch's ``torch.utils.data`` has them: ``Dataset`` (map-style),
``IterableDataset``, ``TensorDataset``, ``ConcatDataset``, ``ChainDataset``, ``StackDataset``,
``Subset`` and ``random_split``.

>>> import ember.torch as torch
>>> from ember.torch.utils.data import TensorDataset
>>> ds = TensorDataset(torch.arange(6).reshape(3, 2), torch.tensor([0, 1, 0]))
>>> x, y = ds[1]
>>> len(ds), x.tolist(), y.item()
(3, [2, 3], 1)
"""

import bisect
import itertools
import math
import warnings
from typing import Generic, Iterable, TypeVar

from ...._tensor import Tensor as _EmberTensor
from ....errors import DimensionError, InvalidParameterError, ShapeMismatchError
from ....ops.random import default_generator, randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
           "StackDataset", "Subset", "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map from keys (usually ints in ``range(len(ds))``) to samples: subclasses define
    ``__getitem__``, and ``__len__`` for the samplers that need it; ``__getitems__(indices)``
    may fetch a whole batch at once. ``a + b`` is ``ConcatDataset([a, b])``.

    >>> from ember.torch.utils.data import Dataset
    >>> class Squares(Dataset):
    ...     def __len__(self): return 4
    ...     def __getitem__(self, i): return i * i
    >>> len(Squares() + Squares()), (Squares() + Squares())[5]
    (8, 1)
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A stream of samples: subclasses define ``__iter__``. With ``num_workers > 0`` each
    worker iterates its own copy; ``get_worker_info()`` tells the copy which worker runs it,
    so it can take its own share. ``a + b`` is ``ChainDataset([a, b])``.

    >>> from ember.torch.utils.data import IterableDataset
    >>> class Count(IterableDataset):
    ...     def __iter__(self): return iter(range(3))
    >>> list(Count() + Count())
    [0, 1, 2, 0, 1, 2]
    """

    def __add__(self, other):
        return ChainDataset([self, other])


def _length(tensor, what):
    if not isinstance(tensor, _EmberTensor):
        raise InvalidParameterError(f"TensorDataset: {what} must be a Tensor, got "
                                    f"{type(tensor).__name__}", "tensors", tensor)
    if tensor.ndim == 0:
        raise DimensionError(f"TensorDataset: {what} is 0-d; expected a tensor with a first "
                             "dim to index")
    return tensor.shape[0]


class TensorDataset(Dataset):
    """Samples are the rows of ``tensors`` (all with the same first dim size): ``ds[i]`` is
    ``tuple(t[i] for t in tensors)``.

    >>> import ember.torch as torch
    >>> from ember.torch.utils.data import TensorDataset
    >>> TensorDataset(torch.zeros(2, 3), torch.zeros(3))
    Traceback (most recent call last):
    ember.errors.ShapeMismatchError: TensorDataset: tensor 1 has 3 rows, expected 2 (the first dim size of tensor 0)
    """

    def __init__(self, *tensors):
        if not tensors:
            raise InvalidParameterError("TensorDataset: no tensors given; expected at least "
                                        "one", "tensors", tensors)
        n = _length(tensors[0], "tensor 0")
        for i, t in enumerate(tensors[1:], 1):
            m = _length(t, f"tensor {i}")
            if m != n:
                raise ShapeMismatchError(f"TensorDataset: tensor {i} has {m} rows, expected "
                                         f"{n} (the first dim size of tensor 0)", n, m)
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class StackDataset(Dataset):
    """Datasets of one length side by side: ``StackDataset(a, b)[i]`` is ``(a[i], b[i])``,
    ``StackDataset(x=a, y=b)[i]`` is ``{"x": a[i], "y": b[i]}``.

    >>> from ember.torch.utils.data import StackDataset
    >>> StackDataset(x=[1, 2], y=["a", "b"])[1]
    {'x': 2, 'y': 'b'}
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise InvalidParameterError(
                "StackDataset: datasets given both positionally and by keyword; expected "
                "either (a tuple-like dataset) or (a dict-like one)", "kwargs", tuple(kwargs))
        if not args and not kwargs:
            raise InvalidParameterError("StackDataset: no datasets given; expected at least "
                                        "one", "args", args)
        parts = args or tuple(kwargs.values())
        self._length = len(parts[0])
        for i, d in enumerate(parts):
            if len(d) != self._length:
                raise ShapeMismatchError(f"StackDataset: dataset {i} has {len(d)} samples, "
                                         f"expected {self._length}", self._length, len(d))
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices):
        named = isinstance(self.datasets, dict)
        parts = self.datasets.items() if named else enumerate(self.datasets)
        samples = [{} if named else [] for _ in indices]
        for key, dataset in parts:
            getitems = getattr(dataset, "__getitems__", None)
            if callable(getitems):
                items = getitems(indices)
                if len(items) != len(indices):
                    raise ShapeMismatchError(
                        f"StackDataset: dataset {key!r} gave {len(items)} samples for "
                        f"{len(indices)} indices", len(indices), len(items))
            else:
                items = [dataset[i] for i in indices]
            for sample, item in zip(samples, items):
                if named:
                    sample[key] = item
                else:
                    sample.append(item)
        return samples if named else [tuple(s) for s in samples]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after the other; ``cumulative_sizes[i]`` is the length of the
    first ``i + 1`` of them.

    >>> from ember.torch.utils.data import ConcatDataset
    >>> ds = ConcatDataset([[1, 2], [3, 4, 5]])
    >>> len(ds), ds[2], ds[-1], ds.cumulative_sizes
    (5, 3, 5, [2, 5])
    """

    @staticmethod
    def cumsum(sequence):
        """The running totals of the lengths of ``sequence``'s datasets."""
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise InvalidParameterError("ConcatDataset: datasets is empty; expected at least "
                                        "one dataset", "datasets", self.datasets)
        for i, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset):
                raise InvalidParameterError(
                    f"ConcatDataset: dataset {i} is an IterableDataset; expected map-style "
                    "datasets (ChainDataset chains iterable ones)", "datasets", d)
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise InvalidParameterError(f"ConcatDataset: index {idx} is out of range for "
                                            f"{n} samples (absolute value of index should "
                                            "not exceed dataset length)", "idx", idx)
            idx = n + idx
        if idx >= n:
            raise DimensionError(f"ConcatDataset: index {idx} is out of range for {n} samples")
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[dataset_idx - 1] if dataset_idx else 0
        return self.datasets[dataset_idx][idx - start]


def _iterable_only(d, i):
    if not isinstance(d, IterableDataset):
        raise InvalidParameterError(f"ChainDataset: dataset {i} is a {type(d).__name__}; "
                                    "expected IterableDatasets only", "datasets", d)


class ChainDataset(IterableDataset):
    """Iterable datasets chained one after the other, lazily.

    >>> from ember.torch.utils.data import ChainDataset, IterableDataset
    >>> class Two(IterableDataset):
    ...     def __iter__(self): return iter("ab")
    ...     def __len__(self): return 2
    >>> ds = ChainDataset([Two(), Two()])
    >>> list(ds), len(ds)
    (['a', 'b', 'a', 'b'], 4)
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for i, d in enumerate(self.datasets):
            _iterable_only(d, i)
            yield from d

    def __len__(self):
        total = 0
        for i, d in enumerate(self.datasets):
            _iterable_only(d, i)
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    >>> from ember.torch.utils.data import Subset
    >>> s = Subset("abcdef", [4, 0, 2])
    >>> len(s), s[0], s.__getitems__([1, 2])
    (3, 'e', ['a', 'c'])
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        if type(self).__getitem__ is not Subset.__getitem__ and \
                type(self).__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__; a subclass "
                "of Subset that overrides __getitem__ must also override __getitems__ (for "
                "instance: return [self.__getitem__(i) for i in indices]), which DataLoader "
                "calls")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def _split_lengths(n, lengths):
    """The int lengths of ``random_split``: ``lengths`` itself, or fractions summing to 1 made
    counts (floor of each share, the remainder handed out round-robin)."""
    op = "random_split"
    lengths = list(lengths)
    for i, x in enumerate(lengths):
        if isinstance(x, bool) or not isinstance(x, (int, float)) or \
                (isinstance(x, float) and not math.isfinite(x)):
            raise InvalidParameterError(f"{op}: lengths[{i}] is {x!r}; expected an int or a "
                                        "fraction", "lengths", lengths)
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise InvalidParameterError(f"{op}: fraction {i} is {frac}; expected a "
                                            "fraction between 0 and 1", "lengths", lengths)
        counts = [math.floor(n * frac) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              "empty dataset.", stacklevel=3)
        return counts
    for i, x in enumerate(lengths):
        if not isinstance(x, int) or x < 0:
            raise InvalidParameterError(f"{op}: lengths[{i}] is {x!r}; expected ints >= 0 or "
                                        "fractions summing to 1", "lengths", lengths)
    if total != n:
        raise InvalidParameterError(f"{op}: the lengths sum to {total} but the dataset has "
                                    f"{n} samples; expected them to be equal", "lengths",
                                    lengths)
    return lengths


def random_split(dataset, lengths, generator=default_generator):
    """Split ``dataset`` at random into non-overlapping ``Subset``s of the given ``lengths``
    (ints summing to ``len(dataset)``, or fractions summing to 1). The permutation is drawn
    from ``generator`` (ember's; the same seed gives the same split, though not PyTorch's).

    >>> import ember.torch as torch
    >>> from ember.torch.utils.data import random_split
    >>> a, b = random_split(range(10), [0.3, 0.7], generator=torch.Generator().manual_seed(0))
    >>> len(a), len(b), sorted(list(a) + list(b)) == list(range(10))
    (3, 7, True)
    """
    lengths = _split_lengths(len(dataset), lengths)
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
