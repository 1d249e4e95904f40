"""Samplers as PyTorch's ``torch.utils.data`` has them: the order in which a DataLoader asks
a map-style dataset for its samples (``Sampler``, ``SequentialSampler``, ``RandomSampler``,
``SubsetRandomSampler``, ``WeightedRandomSampler``), grouped into batches by
``BatchSampler``; ``DistributedSampler`` gives each process of a group its share.

Random orders come from ember's generators (``generator=`` an ``ember.torch.Generator``, else
the default one that ``ember.manual_seed`` restarts): the same seed gives the same order every
run, but not the order PyTorch's generator would give.

>>> from ember.torch.utils.data import BatchSampler, SequentialSampler
>>> list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False))
[[0, 1, 2], [3, 4, 5], [6]]
"""

import itertools
from typing import Generic, TypeVar

from .... import dtypes as _dt
from ...._tensor import Tensor as _EmberTensor
from ....distributed.sampler import DistributedSampler as _EmberDistributedSampler
from ....errors import InvalidParameterError, ShapeMismatchError
from ....ops.creation import tensor as _tensor
from ....ops.random import Generator, randint, randperm
from ... import _tensor as _torch_tensor

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DistributedSampler"]

T_co = TypeVar("T_co", covariant=True)


def _positive_int(op, name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InvalidParameterError(f"{op}: {name} is {value!r}; expected a positive int",
                                    name, value)
    return value


def _bool(op, name, value):
    if not isinstance(value, bool):
        raise InvalidParameterError(f"{op}: {name} is {value!r}; expected a bool", name, value)
    return value


def _generator(op, generator):
    if generator is not None and not isinstance(generator, Generator):
        raise InvalidParameterError(f"{op}: generator must be an ember.torch.Generator or "
                                    f"None, got {type(generator).__name__}", "generator",
                                    generator)
    return generator


def draw_seed(generator=None):
    """A fresh seed in [0, 2**63) drawn from ``generator`` (None: the default one), as
    PyTorch's ``torch.empty((), dtype=torch.int64).random_()`` draws it."""
    return int(randint(0, 2**63, (), generator=generator, dtype=_dt.int64).item())


class Sampler(Generic[T_co]):
    """The base of samplers: ``__iter__`` yields indices (or lists of indices, for a batch
    sampler), ``__len__`` says how many where it is known.

    >>> from ember.torch.utils.data import Sampler
    >>> class Evens(Sampler):
    ...     def __iter__(self): return iter(range(0, 6, 2))
    ...     def __len__(self): return 3
    >>> list(Evens())
    [0, 2, 4]
    """

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``.

    >>> from ember.torch.utils.data import SequentialSampler
    >>> list(SequentialSampler("abc"))
    [0, 1, 2]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """The indices of ``data_source`` in a random order: a fresh permutation per pass
    (``num_samples`` beyond ``len(data_source)`` chain permutations), or with
    ``replacement=True`` ``num_samples`` independent uniform draws. Without a ``generator``
    each pass seeds a generator of its own from the default one.

    >>> import ember.torch as torch
    >>> from ember.torch.utils.data import RandomSampler
    >>> s = RandomSampler(range(5), generator=torch.Generator().manual_seed(1))
    >>> sorted(s), len(s)
    ([0, 1, 2, 3, 4], 5)
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        op = "RandomSampler"
        self.data_source = data_source
        self.replacement = _bool(op, "replacement", replacement)
        self._num_samples = num_samples
        self.generator = _generator(op, generator)
        _positive_int(op, "num_samples", self.num_samples)

    @property
    def num_samples(self):
        """How many indices a pass yields (``len(data_source)`` unless given)."""
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = Generator("cpu").manual_seed(draw_seed())
        if self.replacement:
            yield from randint(0, n, (self.num_samples,), generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=generator).tolist()
        yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The elements of ``indices`` in a random order.

    >>> import ember.torch as torch
    >>> from ember.torch.utils.data import SubsetRandomSampler
    >>> sorted(SubsetRandomSampler([10, 20, 30], generator=torch.Generator().manual_seed(0)))
    [10, 20, 30]
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = _generator("SubsetRandomSampler", generator)

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices of ``range(len(weights))`` drawn with probabilities
    proportional to ``weights`` (with replacement by default; without it each index comes at
    most once). ``weights`` is kept as a float64 tensor.

    >>> import ember.torch as torch
    >>> from ember.torch.utils.data import WeightedRandomSampler
    >>> s = WeightedRandomSampler([0.0, 1.0, 0.0], 4, generator=torch.Generator().manual_seed(0))
    >>> list(s)
    [1, 1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        op = "WeightedRandomSampler"
        _positive_int(op, "num_samples", num_samples)
        _bool(op, "replacement", replacement)
        if isinstance(weights, _EmberTensor):
            w = weights.to(dtype=_dt.float64)
        else:
            w = _tensor(weights, dtype=_dt.float64)
        if w.ndim != 1:
            raise ShapeMismatchError(f"{op}: weights have shape {tuple(w.shape)}; expected a "
                                     "1-d sequence", "1-d", tuple(w.shape))
        self.weights = _torch_tensor.to_torch(w)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = _generator(op, generator)

    def __iter__(self):
        draws = self.weights.multinomial(self.num_samples, self.replacement,
                                         generator=self.generator)
        yield from draws.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Lists of ``batch_size`` indices of ``sampler`` (any iterable), the last one shorter
    unless ``drop_last``.

    >>> from ember.torch.utils.data import BatchSampler
    >>> list(BatchSampler(range(5), 2, drop_last=True)), len(BatchSampler(range(5), 2, False))
    ([[0, 1], [2, 3]], 3)
    """

    def __init__(self, sampler, batch_size, drop_last):
        op = "BatchSampler"
        self.sampler = sampler
        self.batch_size = _positive_int(op, "batch_size", batch_size)
        self.drop_last = _bool(op, "drop_last", drop_last)

    def __iter__(self):
        it = iter(self.sampler)
        if self.drop_last:
            for batch in zip(*[it] * self.batch_size):
                yield [*batch]
            return
        batch = [*itertools.islice(it, self.batch_size)]
        while batch:
            yield batch
            batch = [*itertools.islice(it, self.batch_size)]

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


class DistributedSampler(Sampler[int], _EmberDistributedSampler):
    """PyTorch's ``DistributedSampler(dataset, num_replicas=None, rank=None, shuffle=True,
    seed=0, drop_last=False)``: rank ``rank``'s share of the indices, every
    ``num_replicas``-th one of a permutation that is the same on every rank (seeded by
    ``seed + epoch``; call ``set_epoch`` each epoch), padded by wrapping around unless
    ``drop_last``. ``num_replicas`` and ``rank`` default to ``ember.distributed``'s process
    group (one process of rank 0 when none is initialized). It is
    ``ember.distributed.DistributedSampler`` under PyTorch's signature; the shuffled order is
    ember's, not PyTorch's.

    >>> from ember.torch.utils.data import DistributedSampler
    >>> list(DistributedSampler(range(10), num_replicas=4, rank=3, shuffle=False))
    [3, 7, 1]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        _EmberDistributedSampler.__init__(self, dataset, num_replicas, rank, shuffle, seed,
                                          drop_last, device="cpu")
        self.dataset = dataset

    def __iter__(self):
        return _EmberDistributedSampler.__iter__(self)
