"""Distributed backward: the gradients of distributed parameters averaged across ranks.

While a process group is initialized, the backward engine asks ``_hook`` for a synchroniser.
When the loss's graph holds distributed parameters (``Tensor.set_distributed``), the hook
first checks on every rank that the graphs agree (the same parameters, shapes, dtypes and
order, each on the loss's backend): one small all-reduce of a digest, so a mismatch raises
GraphError on every rank instead of a hang or a wrong sum. It then lays the parameters out in
buckets (about 25 MB, in the order their gradients become ready) of buffers that ember owns.
As each gradient is set, it is written into its bucket; a full bucket starts an asynchronous
all-reduce (torch.distributed, no copy) while backward goes on. Before backward returns, the
buckets are waited for, divided by the world size, and each parameter's ``.grad`` and its entry
in the Gradients become views of its bucket.
"""

import contextlib
import time

from ..autodiff import engine, graph
from ..errors import GraphError
from .._tensor import wrap
from .collectives import disagreement, first_difference, torch_view
from .group import _state, failure, on_group_change

__all__ = ["install", "uninstall", "no_sync", "set_bucket_bytes", "stats"]

BUCKET_BYTES = 25 * 1024 * 1024
_config = {"sync": True, "bucket_bytes": BUCKET_BYTES}
# Timings of the last synchronised backward, in seconds since the hook was called: "check"
# (the compatibility check done), "last_ready" (the last gradient set), "end" (backward's
# gradients synchronised), "wait" (time spent waiting for all-reduces in finish), "buckets".
stats = {}


def install():
    engine.sync_hook = _hook


def uninstall():
    engine.sync_hook = None


on_group_change(install, uninstall)


@contextlib.contextmanager
def no_sync():
    """Backward passes inside keep their gradients local (accumulated in ``.grad``); the first
    synchronised backward afterwards averages the accumulated gradients."""
    previous = _config["sync"]
    _config["sync"] = False
    try:
        yield
    finally:
        _config["sync"] = previous


def set_bucket_bytes(n):
    _config["bucket_bytes"] = n


def _hook(loss, order):
    leaves = graph.distributed_leaves
    g = _state["group"]
    if not leaves or not _config["sync"] or g is None:
        return None
    params = []
    for node in reversed(order):  # the order in which backward sets the leaves' gradients
        if not node.parents and node in leaves:
            t = node.tensor_ref()
            if t is not None:
                params.append((node, leaves[node], t))
    if not params:
        return None
    return _Sync(g, loss, params)


def _check(g, loss, params):
    """Raise GraphError on every rank unless every rank's distributed parameters agree."""
    entries = [f"{pid}:{tuple(t.shape)}:{t._dtype.name}" for _, pid, t in params]
    foreign = [str(pid) for _, pid, t in params if t.device != loss.device]
    everyone = disagreement(g, "backward", entries, foreign)
    if everyone is None:
        return
    for rank, (_, their_foreign) in enumerate(everyone):
        if their_foreign:
            raise GraphError(
                f"backward: on rank {rank} the distributed parameter(s) {their_foreign} use "
                f"another backend than the loss ({loss.device}); expected every distributed "
                "parameter on the loss's backend")
    ref = everyone[0][0]
    for rank, (theirs, _) in enumerate(everyone):
        if theirs != ref:
            i, want, got = first_difference(ref, theirs)
            raise GraphError(
                f"backward: the ranks' graphs are incompatible: distributed parameter {i} "
                f"(param_id:shape:dtype, in backward order) is {got or 'missing'} on rank "
                f"{rank} and {want or 'missing'} on rank 0 ({len(theirs)} and {len(ref)} "
                "distributed parameters); expected the same model on every rank")


class _Bucket:
    __slots__ = ("buffer", "waiting", "work")

    def __init__(self, buffer, waiting):
        self.buffer, self.waiting, self.work = buffer, waiting, None


class _Sync:
    """One synchronised backward: the buckets and where each parameter's gradient goes."""

    __slots__ = ("g", "be", "slots", "buckets", "next", "start", "last_ready")

    def __init__(self, g, loss, params):
        self.start = time.perf_counter()
        _check(g, loss, params)
        self.g = g
        self.be = be = loss._device.backend  # every parameter is on the loss's device
        cap = _config["bucket_bytes"]
        layout, open_ = [], {}  # [dtype, [(node, tensor, offset, shape)], bytes, elements]
        for node, _, t in params:
            dt = t._dtype
            bucket = open_.get(dt)
            size = t.numel()
            nbytes = size * dt.itemsize
            if bucket is None or bucket[2] and bucket[2] + nbytes > cap:
                bucket = open_[dt] = [dt, [], 0, 0]
                layout.append(bucket)
            bucket[1].append((node, t, bucket[3], tuple(t.shape)))
            bucket[2] += nbytes
            bucket[3] += size
        # a bucket closes with its last parameter: start them in that order on every rank
        position = {id(node): i for i, (node, _, _) in enumerate(params)}
        layout.sort(key=lambda b: position[id(b[1][-1][0])])
        self.slots, self.buckets = {}, []
        for dt, members, _, size in layout:
            bucket = _Bucket(be.dist_zeros(size, dt), len(members))
            self.buckets.append(bucket)
            for node, t, offset, shape in members:
                self.slots[node] = (bucket, offset, shape, t)
        self.next = 0
        self.last_ready = self.start
        stats["check"] = time.perf_counter() - self.start
        stats["buckets"] = len(self.buckets)

    def ready(self, node, t, grad):
        slot = self.slots.get(node)
        if slot is None:
            return
        self.last_ready = time.perf_counter()
        bucket, offset, _, _ = slot
        value = grad if t is None or t.grad is None else t.grad
        self.be.dist_pack(bucket.buffer, offset, value._data)
        bucket.waiting -= 1
        if bucket.waiting == 0:
            self._launch_ready()

    def _launch_ready(self, everything=False):
        buckets, g, be = self.buckets, self.g, self.be
        while self.next < len(buckets) and (everything or buckets[self.next].waiting == 0):
            bucket = buckets[self.next]
            try:
                bucket.work = g.dist.all_reduce(torch_view(g, bucket.buffer, be), async_op=True)
            except Exception as exc:
                raise failure("backward", exc) from None
            self.next += 1

    def finish(self, grads):
        self._launch_ready(everything=True)  # parameters without a gradient count as zeros
        waited = time.perf_counter()
        world, be = self.g.world_size, self.be
        for bucket in self.buckets:
            try:
                bucket.work.wait()
            except Exception as exc:
                raise failure("backward", exc) from None
            if world > 1:
                be.dist_divide(bucket.buffer, world)
        end = time.perf_counter()
        entries = grads._grads
        for node, (bucket, offset, shape, t) in self.slots.items():
            grad = wrap(be.dist_result(be.dist_unpack(bucket.buffer, offset, shape)), t._dtype)
            t.grad = grad
            entries[id(node)] = (node, grad)
        stats["last_ready"] = self.last_ready - self.start
        stats["wait"] = end - waited
        stats["end"] = time.perf_counter() - self.start
