"""Collectives on ember tensors: all_reduce, broadcast, all_gather, reduce_scatter.

Each returns a new tensor (ember's values are immutable) on the input's device: the input is
copied once into a buffer that ember owns, on that device, torch.distributed works on that
buffer in place (a NumPy buffer through ``torch.from_numpy``, a torch buffer as it is; no
further copy), and the result wraps it. Every rank must call the same
collectives in the same order with tensors of the same shape and dtype, as with PyTorch.
"""

import hashlib

from .. import dtypes as _dt
from ..backends import adopt
from ..devices import CPU
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import check_tensor, wrap
from .group import failure, group

__all__ = ["all_reduce", "broadcast", "all_gather", "reduce_scatter", "Work", "REDUCE_OPS"]

REDUCE_OPS = ("sum", "mean", "max", "min", "prod")
_TORCH_OPS = {"sum": "SUM", "mean": "SUM", "max": "MAX", "min": "MIN", "prod": "PRODUCT"}
# The dtypes gloo reduces (ProcessGroupGloo's type switch: int16, uint16, uint32 and uint64 fail
# there with "Invalid scalar type"). broadcast and all_gather move every dtype, as bytes.
GLOO_REDUCES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int8", "uint8")


class Work:
    """The handle of an asynchronous collective (``async_op=True``): ``wait()`` blocks until it
    is done and returns its result (a tensor, or a list of them for ``all_gather``)."""

    __slots__ = ("_op", "_work", "_finish", "_result", "_done")

    def __init__(self, op, work, finish):
        self._op, self._work, self._finish = op, work, finish
        self._result, self._done = None, False

    def wait(self):
        """Block until the collective is done; returns its result (DistributedError when a rank
        failed or the timeout passed)."""
        if not self._done:
            try:
                self._work.wait()
            except Exception as exc:
                raise failure(self._op, exc) from None
            self._result, self._done = self._finish(), True
            self._work = self._finish = None
        return self._result

    def is_completed(self):
        """Whether the collective has finished (``wait()`` would not block)."""
        return self._done or self._work.is_completed()

    def __repr__(self):
        return f"<Work {self._op} {'done' if self._done else 'in flight'}>"


def torch_view(g, array, be=None):
    """``array`` (an ember-owned writable buffer of the backend ``be``, by default the one that
    holds it) as a torch tensor sharing its memory."""
    if be is None:
        be = adopt(array)[1].backend
    return be.dist_torch(array)


def disagreement(g, op, value, local_problem=False):
    """None when ``value`` (anything with a stable ``repr``) is the same on every rank and no
    rank has ``local_problem``; else the list of every rank's ``(value, local_problem)``, so
    that every rank can raise the same error. One all-reduce of a digest when they agree."""
    digest = int.from_bytes(hashlib.blake2b(repr(value).encode(), digest_size=8).digest(),
                            "little") >> 2
    be = CPU.backend  # gloo's probe: a host buffer
    probe = be.asarray([digest, -digest, 1 if local_problem else 0], _dt.int64)
    try:
        g.dist.all_reduce(be.dist_torch(probe), op=g.dist.ReduceOp.MAX)
        top, neg_bottom, problem = wrap(probe, _dt.int64).tolist()
        if top == -neg_bottom and not problem:
            return None
        everyone = [None] * g.world_size
        g.dist.all_gather_object(everyone, (value, local_problem))
    except Exception as exc:
        raise failure(op, exc) from None
    return everyone


def first_difference(ref, other):
    """The first index where the lists ``ref`` and ``other`` differ, and each one's entry there
    (None past its end)."""
    i = next((i for i, (a, b) in enumerate(zip(ref, other)) if a != b), min(len(ref), len(other)))
    return i, (ref[i] if i < len(ref) else None), (other[i] if i < len(other) else None)


def _run(g, op, call, async_op, finish):
    try:
        work = call(async_op)
    except Exception as exc:
        raise failure(op, exc) from None
    if async_op:
        return Work(op, work, finish)
    return finish()


def _check_tensor(tensor, op):
    """A Tensor of a real kind: docs/complex.md, distributed takes real tensors only."""
    check_tensor(tensor, op)
    if tensor._dtype.kind == "complex":
        raise _dt.complex_error(op, "tensor", tensor._dtype)


def _check_op(op, name, tensor):
    if name not in REDUCE_OPS:
        raise InvalidParameterError(f"{op}: op {name!r} is unknown; expected one of {REDUCE_OPS}",
                                    "op", name)
    kind = tensor._dtype.kind
    if kind == "bool":
        raise KindError(f"{op}: not defined for bool tensors (dtype bool); expected a float or "
                        "int tensor")
    if name == "mean" and kind != "float":
        raise KindError(f"{op}: op 'mean' is not defined for int tensors (dtype "
                        f"{tensor._dtype.name}); expected a float tensor, or op='sum'")
    if tensor._dtype.name not in GLOO_REDUCES:
        raise KindError(f"{op}: gloo cannot reduce {tensor._dtype.name} tensors; expected one of "
                        f"{', '.join(GLOO_REDUCES)} (cast first, e.g. to int32)")


def byte_view(g, torch_tensor):
    """A contiguous torch tensor's memory as flat uint8, which gloo moves whatever its dtype."""
    if torch_tensor.numel() == 0:  # NumPy's empty arrays may come with a stride of 0
        return torch_tensor.new_empty(0, dtype=g.torch.uint8)
    return torch_tensor.reshape(-1).view(g.torch.uint8)


def all_reduce(tensor, op="sum", async_op=False):
    """The elementwise reduction of ``tensor`` over all ranks: ``op`` is ``"sum"``, ``"mean"``,
    ``"max"``, ``"min"`` or ``"prod"``. Returns a new tensor (or a ``Work`` with
    ``async_op=True``); every rank gets the same values.

    >>> import ember, ember.distributed as dist
    >>> dist.init_process_group(rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    >>> dist.all_reduce(ember.tensor([1.0, 2.0]), op="mean").tolist()
    [1.0, 2.0]
    >>> dist.destroy_process_group()
    """
    g = group("all_reduce")
    _check_tensor(tensor, "all_reduce")
    _check_op("all_reduce", op, tensor)
    be = tensor._device.backend
    buffer = be.dist_copy(tensor._data)
    target = be.dist_torch(buffer)
    reduce_op = getattr(g.dist.ReduceOp, _TORCH_OPS[op])
    dtype, world = tensor._dtype, g.world_size

    def finish():
        if op == "mean":
            be.dist_divide(buffer, world)
        return wrap(be.dist_result(buffer), dtype)

    return _run(g, "all_reduce", lambda a: g.dist.all_reduce(target, op=reduce_op, async_op=a),
                async_op, finish)


def _check_rank(op, name, value, world):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < world:
        raise InvalidParameterError(f"{op}: {name} is {value!r}; expected a rank in [0, "
                                    f"{world})", name, value)


def broadcast(tensor, src=0, async_op=False):
    """Rank ``src``'s ``tensor`` on every rank: returns a new tensor with its values (every rank
    passes a tensor of the same shape and dtype; the others' values are not used).

    >>> import ember, ember.distributed as dist
    >>> dist.init_process_group(rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    >>> dist.broadcast(ember.tensor([3, 4]), src=0).tolist()
    [3, 4]
    >>> dist.destroy_process_group()
    """
    g = group("broadcast")
    _check_tensor(tensor, "broadcast")
    _check_rank("broadcast", "src", src, g.world_size)
    be = tensor._device.backend
    buffer = be.dist_copy(tensor._data)
    target = byte_view(g, be.dist_torch(buffer))
    dtype = tensor._dtype
    return _run(g, "broadcast", lambda a: g.dist.broadcast(target, src=src, async_op=a),
                async_op, lambda: wrap(be.dist_result(buffer), dtype))


def all_gather(tensor, async_op=False):
    """Every rank's ``tensor``: a list of ``get_world_size()`` new tensors, rank order.

    >>> import ember, ember.distributed as dist
    >>> dist.init_process_group(rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    >>> [t.tolist() for t in dist.all_gather(ember.tensor([1.0, 2.0]))]
    [[1.0, 2.0]]
    >>> dist.destroy_process_group()
    """
    g = group("all_gather")
    _check_tensor(tensor, "all_gather")
    world, shape, dtype = g.world_size, tuple(tensor.shape), tensor._dtype
    be = tensor._device.backend
    source = byte_view(g, be.dist_torch(be.dist_copy(tensor._data)))
    out = be.dist_buffer(world * tensor.numel(), dtype)
    parts = [be.dist_unpack(p, 0, shape) for p in be.dist_split(out, world)]
    targets = [byte_view(g, be.dist_torch(p)) for p in parts]

    def finish():
        return [wrap(be.dist_result(p), dtype) for p in parts]

    return _run(g, "all_gather", lambda a: g.dist.all_gather(targets, source, async_op=a),
                async_op, finish)


def reduce_scatter(tensor, op="sum", async_op=False):
    """This rank's share of the reduction over ranks: ``tensor``'s dim 0 is cut into
    ``get_world_size()`` equal chunks, chunk ``i`` is reduced with ``op`` over all ranks and
    rank ``i`` gets it (shape ``(n // world_size, ...)``).

    >>> import ember, ember.distributed as dist
    >>> dist.init_process_group(rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    >>> dist.reduce_scatter(ember.tensor([[1.0], [2.0]])).tolist()
    [[1.0], [2.0]]
    >>> dist.destroy_process_group()
    """
    g = group("reduce_scatter")
    _check_tensor(tensor, "reduce_scatter")
    _check_op("reduce_scatter", op, tensor)
    world = g.world_size
    if tensor.ndim == 0 or tensor.shape[0] % world:
        first = "no dim 0" if tensor.ndim == 0 else f"dim 0 of size {tensor.shape[0]}"
        raise ShapeMismatchError(
            f"reduce_scatter: tensor has {first}; expected a dim 0 whose size is a multiple of "
            f"the world size {world}", expected=f"a multiple of {world}", actual=tensor.shape)
    shape = (tensor.shape[0] // world,) + tuple(tensor.shape[1:])
    be = tensor._device.backend
    dtype = tensor._dtype
    n = tensor.numel()
    source = be.dist_buffer(n, dtype)
    be.dist_pack(source, 0, tensor._data)
    inputs = [be.dist_torch(p) for p in be.dist_split(source, world)]
    out = be.dist_buffer(n // world, dtype)
    target = be.dist_torch(out)
    reduce_op = getattr(g.dist.ReduceOp, _TORCH_OPS[op])

    def finish():
        if op == "mean":
            be.dist_divide(out, world)
        return wrap(be.dist_result(be.dist_unpack(out, 0, shape)), dtype)

    return _run(g, "reduce_scatter",
                lambda a: g.dist.reduce_scatter(target, inputs, op=reduce_op, async_op=a),
                async_op, finish)
