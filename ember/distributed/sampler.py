"""DistributedSampler: each rank's share of a dataset's indices, reshuffled per epoch."""

from .. import dtypes as _dt
from ..devices import CPU, as_device
from ..errors import InvalidParameterError
from ..ops.creation import arange
from .._tensor import Tensor, wrap
from .group import _state

__all__ = ["DistributedSampler"]


def _int(op, name, value, low):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidParameterError(f"{op}: {name} is {value!r}; expected an int >= {low}",
                                    name, value)
    return value


class DistributedSampler:
    """The indices of rank ``rank``'s share of a dataset of ``len(dataset)`` items (or
    ``dataset`` items when it is an int), as PyTorch's ``DistributedSampler``.

    Each epoch every rank draws the same permutation (seeded by ``seed + epoch``; call
    ``set_epoch(e)`` at the start of each epoch), pads it by wrapping around to a multiple of
    ``num_replicas`` (or drops the tail with ``drop_last=True``), and takes every
    ``num_replicas``-th index from position ``rank``. So the ranks' shares are disjoint (up to
    the padding) and together cover the dataset. ``num_replicas`` and ``rank`` default to the
    process group's. The order is drawn on the host (the same on every rank and every device);
    ``indices()`` gives it on ``device`` (None: the default device).

    >>> from ember.distributed import DistributedSampler
    >>> s = DistributedSampler(10, num_replicas=3, rank=1, shuffle=False)
    >>> list(s), len(s)
    ([1, 4, 7, 0], 4)
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False, device=None):
        op = "DistributedSampler"
        self.device = as_device(device, op)
        n = dataset if isinstance(dataset, int) and not isinstance(dataset, bool) else None
        if n is None:
            try:
                n = len(dataset)
            except TypeError:
                raise InvalidParameterError(
                    f"{op}: dataset must have a len() or be an int, got "
                    f"{type(dataset).__name__}", "dataset", dataset) from None
        _int(op, "dataset", n, 0)
        g = _state["group"]
        if num_replicas is None:
            num_replicas = 1 if g is None else g.world_size
        if rank is None:
            rank = 0 if g is None else g.rank
        _int(op, "num_replicas", num_replicas, 1)
        _int(op, "rank", rank, 0)
        if rank >= num_replicas:
            raise InvalidParameterError(f"{op}: rank is {rank}; expected an int in [0, "
                                        f"{num_replicas})", "rank", rank)
        _int(op, "seed", seed, 0)
        for name, flag in (("shuffle", shuffle), ("drop_last", drop_last)):
            if not isinstance(flag, bool):
                raise InvalidParameterError(f"{op}: {name} must be a bool, got {flag!r}", name,
                                            flag)
        self.size, self.num_replicas, self.rank = n, num_replicas, rank
        self.shuffle, self.seed, self.drop_last, self.epoch = shuffle, seed, drop_last, 0
        if drop_last:
            self.num_samples = n // num_replicas
        else:
            self.num_samples = -(-n // num_replicas)
        self.total_size = self.num_samples * num_replicas

    def set_epoch(self, epoch):
        """Use the permutation of epoch ``epoch`` (the same on every rank)."""
        self.epoch = _int("set_epoch", "epoch", epoch, 0)

    def indices(self):
        """This rank's indices for the current epoch, an int64 tensor."""
        if self.shuffle:
            order = wrap(CPU.backend.dist_permutation(self.size, self.seed + self.epoch),
                         _dt.int64)
        else:
            order = arange(self.size, dtype=_dt.int64, device=CPU)
        if self.total_size > self.size and self.size:
            reps = -(-self.total_size // self.size)
            order = order.repeat(reps)
        order = order[:self.total_size]
        out = order[self.rank:self.total_size:self.num_replicas]
        return out if self.device is CPU else Tensor(out, device=self.device)

    def __iter__(self):
        return iter(self.indices().tolist())

    def __len__(self):
        return self.num_samples
