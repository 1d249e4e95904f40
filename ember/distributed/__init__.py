"""ember.distributed: data-parallel training on torch.distributed (gloo, CPU).

PyTorch is an optional dependency (``pip install 'ember[distributed]'``); it is imported when a
process group is initialized, not by ``import ember``. See docs/distributed.md.

>>> import ember, ember.distributed as dist
>>> dist.init_process_group(rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
>>> dist.all_reduce(ember.tensor([1.0, 2.0])).tolist()
[1.0, 2.0]
>>> dist.destroy_process_group()
"""

from .collectives import REDUCE_OPS, Work, all_gather, all_reduce, broadcast, reduce_scatter
from .group import (barrier, destroy_process_group, get_rank, get_world_size,
                    init_process_group, is_available, is_initialized)
from .params import ParamId
from .reducer import stats as sync_stats
from .sampler import DistributedSampler


def all_reduce_async(tensor, op="sum"):
    """``all_reduce(tensor, op, async_op=True)``: a ``Work`` whose ``wait()`` gives the result."""
    return all_reduce(tensor, op, async_op=True)


def broadcast_async(tensor, src=0):
    """``broadcast(tensor, src, async_op=True)``."""
    return broadcast(tensor, src, async_op=True)


def all_gather_async(tensor):
    """``all_gather(tensor, async_op=True)``."""
    return all_gather(tensor, async_op=True)


def reduce_scatter_async(tensor, op="sum"):
    """``reduce_scatter(tensor, op, async_op=True)``."""
    return reduce_scatter(tensor, op, async_op=True)


__all__ = ["init_process_group", "destroy_process_group", "is_initialized", "is_available",
           "get_rank", "get_world_size", "barrier", "all_reduce", "broadcast", "all_gather",
           "reduce_scatter", "all_reduce_async", "broadcast_async", "all_gather_async",
           "reduce_scatter_async", "Work", "REDUCE_OPS", "ParamId", "DistributedSampler",
           "sync_stats"]
