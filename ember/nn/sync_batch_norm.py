"""PyTorch's ``nn.SyncBatchNorm``: batch normalization whose training statistics are those of
the whole batch across the processes of ``ember.distributed``.

In training, with a process group of two or more processes, every process sums its channels
(and then the squared deviations from the global mean) and the sums are all-reduced, so each
process normalizes with the mean and biased variance of the concatenated batch; the
all-reduce is differentiable (its gradient is the all-reduce of the gradients), so the
gradient of each process's input includes what it does to the other processes' outputs,
as PyTorch's. The running statistics (unbiased variance over the global count) are updated
on every process alike. In eval mode, or without a process group (one process), it is
``BatchNorm`` on the local batch. Its state-dict keys are BatchNorm's.

>>> import ember
>>> from ember import nn
>>> bn = nn.SyncBatchNorm(3)
>>> bn
SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
>>> bn(ember.randn(4, 3, 5)).shape
(4, 3, 5)
"""

from .. import dtypes as _dt
from .._tensor import record, wrap
from ..errors import InvalidParameterError, ShapeMismatchError
from ..ops.nn_args import _float_tensor, _shape_str
from .layers import _BatchNorm, _check_input
from .norms import _InstanceNorm

__all__ = ["SyncBatchNorm"]


def _world_size():
    """The number of processes of ember.distributed's group (1 when none is initialized)."""
    from .. import distributed as dist
    return dist.get_world_size() if dist.is_initialized() else 1


def _all_reduce_sum(t):
    """``ember.distributed.all_reduce(t)`` as a recorded step: its gradient is the all-reduce
    of the result's gradient (so higher orders work too)."""
    from .. import distributed as dist
    total = dist.all_reduce(t)
    return record(total._data, t._dtype, (t,), lambda g, needs, out: (_all_reduce_sum(g),),
                  "sync_batch_norm_all_reduce")


def _children(module):
    """(name, path, child) for the direct sub-modules of ``module``."""
    if hasattr(module, "add_module"):  # an ember.torch.nn module keeps PyTorch's layout
        return [(name, None, child) for name, child in module.named_children()]
    return module._local_split()[2]


def _set_child(module, name, path, child):
    """Rebind the sub-module of ``module`` at ``path`` (its name ``name``) to ``child``."""
    if path is None:
        module.add_module(name, child)
    elif len(path) == 1:
        setattr(module, path[0], child)
    else:
        holder = getattr(module, path[0])
        for key in path[1:-1]:
            holder = holder[key]
        holder[path[-1]] = child


class SyncBatchNorm(_BatchNorm):
    """Batch normalization of (N, C, *) inputs over N and * on every process together,
    PyTorch's ``nn.SyncBatchNorm`` (see the module docstring). ``process_group`` is None:
    ember.distributed has one group, the world.

    >>> import ember
    >>> from ember import nn
    >>> bn = nn.SyncBatchNorm(2, affine=False, eps=0.0)
    >>> bn(ember.tensor([[1.0, 2.0], [3.0, 6.0]])).tolist()
    [[-1.0, -1.0], [1.0, 1.0]]
    """

    _ranks = range(2, 1 << 16)
    _shape_text = "(N, {C}, *)"

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        if process_group is not None:
            raise InvalidParameterError(
                f"SyncBatchNorm: process_group is {process_group!r}; ember.distributed has one "
                "process group (the world): pass None", "process_group", process_group)
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = None

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        name = "SyncBatchNorm"
        x = _check_input(input, name)
        if x.ndim < 2:
            raise ShapeMismatchError(f"{name}: expected at least 2D input (got {x.ndim}D "
                                     "input)", expected=2, actual=tuple(x.shape))
        if not self.training or _world_size() == 1:
            return super().forward(x)
        C = self.num_features
        if x.shape[1] != C:
            raise ShapeMismatchError(
                f"{name}: input has shape {_shape_str(x.shape)}; expected (N, {C}, *)",
                expected=C, actual=tuple(x.shape))
        return self._synced(_float_tensor(x, name), float(self.eps))

    def _synced(self, x, eps):
        """The training forward with statistics all-reduced over the processes."""
        from .. import distributed as dist
        C = self.num_features
        dims = (0,) + tuple(range(2, x.ndim))
        view = (1, C) + (1,) * (x.ndim - 2)
        local = x.numel() // C
        count = int(dist.all_reduce(wrap(x._device.backend.scalar_array(local, _dt.int64),
                                         _dt.int64)).item())
        if count == 1:
            raise ShapeMismatchError(
                f"SyncBatchNorm: expected more than 1 value per channel when training, got "
                f"{count} over all processes (local input of shape {_shape_str(x.shape)})",
                expected="more than 1 value per channel", actual=tuple(x.shape))
        if count == 0:  # no statistics anywhere: PyTorch's empty batch passes through
            return self._affine(x, view)
        mean = _all_reduce_sum(x.sum(dims)) / count
        centered = x - mean.reshape(view)
        var = _all_reduce_sum(centered.square().sum(dims)) / count
        out = self._affine(centered * (var + eps).rsqrt().reshape(view), view)
        if self.track_running_stats:
            self._track(mean.detach(), var.detach() * (count / (count - 1)), x._device.backend)
        return out

    def _affine(self, xhat, view):
        out = xhat if self.weight is None else xhat * self.weight.reshape(view)
        return out if self.bias is None else out + self.bias.reshape(view)

    def _track(self, mean, var, be):
        """Move the running statistics towards the batch's (PyTorch's momentum rule)."""
        rm, rv = self.running_mean, self.running_var
        steps = int(self.num_batches_tracked.item()) + 1
        self.num_batches_tracked = wrap(be.scalar_array(steps, _dt.int64), _dt.int64)
        m = 1.0 / steps if self.momentum is None else self.momentum
        self.running_mean = wrap(be.nn_running_update(rm._data, mean.cast(rm.dtype)._data, m,
                                                      rm.dtype), rm.dtype)
        self.running_var = wrap(be.nn_running_update(rv._data, var.cast(rv.dtype)._data, m,
                                                     rv.dtype), rv.dtype)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm layer in it replaced by a SyncBatchNorm sharing its
        parameters and buffers (a BatchNorm ``module`` itself gives a new layer).

        >>> from ember import nn
        >>> m = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm2d(3)))
        >>> type(m[0]).__name__, m[0].num_features
        ('SyncBatchNorm', 3)
        """
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, (_InstanceNorm, cls)):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                out.weight = module.weight
                if module.bias is not None:
                    out.bias = module.bias
            for key in ("running_mean", "running_var", "num_batches_tracked"):
                setattr(out, key, getattr(module, key))
            out.train(module.training)
        for name, path, child in _children(module):
            _set_child(out, name, path, cls.convert_sync_batchnorm(child, process_group))
        return out
