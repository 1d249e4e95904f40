"""DistributedDataParallel: a module trained data-parallel over the ranks of ember.distributed.

This file imports ember.distributed (and so PyTorch) only when a DistributedDataParallel is
made, so ``import ember.nn`` stays free of torch.
"""

import contextlib

from ..errors import InvalidParameterError, ShapeMismatchError
from .module import Module

__all__ = ["DistributedDataParallel"]


def _signature(module):
    """(name, shape, dtype) of every parameter and buffer, in the module's order."""
    return ([(n, tuple(t.shape), t.dtype.name) for n, t in module.named_parameters()],
            [(n, tuple(t.shape), t.dtype.name) for n, t in module.named_buffers()
             if t is not None])


def _verify_same_model(g, module):
    """ShapeMismatchError on every rank unless every rank's module has the same parameters and
    buffers (names, shapes, dtypes) as rank 0's; runs before any other collective."""
    from ..distributed.collectives import disagreement, first_difference
    params, buffers = _signature(module)
    everyone = disagreement(g, "DistributedDataParallel", params + buffers)
    if everyone is None:
        return
    ref = everyone[0][0]
    for rank, (theirs, _) in enumerate(everyone):
        if theirs != ref:
            i, want, got = first_difference(ref, theirs)
            raise ShapeMismatchError(
                f"DistributedDataParallel: rank {rank}'s model differs from rank 0's: tensor "
                f"{i} (name, shape, dtype) is {got} on rank {rank}, expected {want}; build the "
                "same model on every rank", expected=want, actual=got)


class DistributedDataParallel(Module):
    """``module`` trained data-parallel over the process group (PyTorch's
    ``nn.parallel.DistributedDataParallel``).

    Making it checks that every rank holds the same model (else ShapeMismatchError on every
    rank), copies rank 0's parameters and buffers to the other ranks, and marks every trainable
    parameter distributed (``set_distributed(ParamId(i))``, in ``parameters()`` order). Then
    each ``backward()`` averages the gradients over the ranks (in buckets of ``bucket_cap_mb``,
    overlapped with backward) before it returns, so every rank's optimizer takes the same step.
    With ``broadcast_buffers`` (the default), each forward in training mode first copies rank
    0's buffers (BatchNorm's running statistics) to the others. ``no_sync()`` keeps gradients
    local for gradient accumulation. Calling it calls ``module``; its ``state_dict`` names are
    ``module.``-prefixed, as PyTorch's.

    A model with BatchNorm normalizes each rank's own share of the batch, as PyTorch's DDP
    without SyncBatchNorm does.
    """

    def __init__(self, module, broadcast_buffers=True, bucket_cap_mb=25):
        super().__init__()
        op = "DistributedDataParallel"
        if not isinstance(module, Module):
            raise InvalidParameterError(f"{op}: module must be an ember.nn.Module, got "
                                        f"{type(module).__name__}", "module", module)
        if not isinstance(broadcast_buffers, bool):
            raise InvalidParameterError(f"{op}: broadcast_buffers must be a bool, got "
                                        f"{broadcast_buffers!r}", "broadcast_buffers",
                                        broadcast_buffers)
        if isinstance(bucket_cap_mb, bool) or not isinstance(bucket_cap_mb, (int, float)) or \
                not 0 < bucket_cap_mb < float("inf"):
            raise InvalidParameterError(f"{op}: bucket_cap_mb is {bucket_cap_mb!r}; expected a "
                                        "number > 0", "bucket_cap_mb", bucket_cap_mb)
        from ..distributed import ParamId
        from ..distributed.group import group
        from ..distributed.reducer import set_bucket_bytes
        g = group(op)
        _verify_same_model(g, module)
        self.module = module
        self.broadcast_buffers = broadcast_buffers
        set_bucket_bytes(int(bucket_cap_mb * 1024 * 1024))
        self._copy_from_rank0(params=True)
        for i, p in enumerate(module.parameters()):
            if p.is_require_grad():
                p.set_distributed(ParamId(i))

    def _copy_from_rank0(self, params):
        """Rank 0's parameters (with ``params``) and buffers on every rank: one broadcast per
        dtype of a flat buffer they are packed into. Each tensor object keeps its identity
        (and its leaf node) and is rebound to its new values, as an optimizer step does."""
        from ..distributed.collectives import byte_view, torch_view
        from ..distributed.group import failure, group
        g = group("DistributedDataParallel")
        tensors = self.module.parameters() if params else []
        tensors = tensors + [b for b in self.module.buffers() if b is not None]
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault((t._device, t._dtype), []).append(t)
        packed = []
        for (device, dt), group_ in by_dtype.items():
            be = device.backend
            n = sum(t.numel() for t in group_)
            buffer = be.dist_buffer(n, dt)
            offset = 0
            for t in group_:
                be.dist_pack(buffer, offset, t._data)
                offset += t.numel()
            try:
                work = g.dist.broadcast(byte_view(g, torch_view(g, buffer)), src=0,
                                        async_op=True)
            except Exception as exc:
                raise failure("DistributedDataParallel", exc) from None
            packed.append((be, buffer, group_, work))
        for be, buffer, group_, work in packed:
            try:
                work.wait()
            except Exception as exc:
                raise failure("DistributedDataParallel", exc) from None
            offset = 0
            for t in group_:
                t._data = be.dist_result(be.dist_unpack(buffer, offset, tuple(t.shape)))
                offset += t.numel()

    def forward(self, *args, **kwargs):
        if self.broadcast_buffers and self.training and self.module.buffers():
            self._copy_from_rank0(params=False)
        return self.module(*args, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, backward keeps gradients local (they accumulate in ``.grad``); the first
        backward after it averages the accumulated gradients, as PyTorch's ``no_sync``. It
        pauses the synchronisation of every distributed parameter of this process."""
        from ..distributed.reducer import no_sync
        with no_sync():
            yield

    def extra_repr(self):
        return f"broadcast_buffers={self.broadcast_buffers}"
