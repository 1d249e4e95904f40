"""``ember.torch.optim.swa_utils``: PyTorch's stochastic weight averaging and exponential moving
averages of a model's weights (``AveragedModel`` and its averaging functions), the ``SWALR``
schedule that anneals to a constant rate, and ``update_bn``, which recomputes the BatchNorm
statistics of an averaged model.

>>> import ember.torch as torch
>>> from ember.torch.optim.swa_utils import AveragedModel
>>> model = torch.nn.Linear(1, 1, bias=False)
>>> swa = AveragedModel(model)
>>> for value in (1.0, 2.0, 6.0):
...     with torch.no_grad():
...         _ = model.weight.fill_(value)
...     swa.update_parameters(model)
>>> swa.module.weight.item(), swa.n_averaged.item()
(3.0, 3)
"""

import copy
import itertools
import math

from ...errors import InvalidParameterError
from ...nn.layers import _BatchNorm
from ...nn.norms import _InstanceNorm
from ...optim.lr_scheduler_base import (_BASE_FIELDS, LRScheduler, _check_int,
                                        _check_optimizer, _choice_field, _int_field, _per_group)
from ...optim._compose import float32
from ...optim.optimizer import _check_number
from ..._tensor import Tensor
from ...autodiff import no_grad
from ...dtypes import int64
from ... import tensor as _tensor
from .._tensor import to_torch
from ..nn import Module

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(op, decay):
    return _check_number(op, "decay", decay, low=0.0, high=1.0)


def _average_into(averaged, value):
    """Rebind ``averaged`` to ``value`` in its own dtype (an integer buffer, such as
    BatchNorm's ``num_batches_tracked``, is truncated towards zero, as PyTorch's copy)."""
    averaged.copy_(value)


def get_ema_multi_avg_fn(decay=0.999):
    """The exponential moving average over lists of tensors, updated in place:
    ``ema = decay * ema + (1 - decay) * model`` for each pair (for ``AveragedModel``'s
    ``multi_avg_fn``).

    >>> import ember.torch as torch
    >>> ema, cur = [torch.tensor([0.0, 4.0])], [torch.tensor([2.0, 0.0])]
    >>> get_ema_multi_avg_fn(0.75)(ema, cur, 1)
    >>> ema[0].tolist()
    [0.5, 3.0]
    """
    decay = _check_decay("get_ema_multi_avg_fn", decay)

    def ema_update(ema_params, current_params, num_averaged):
        with no_grad():
            for ema, cur in zip(ema_params, current_params):
                if ema.is_floating_point() or ema.is_complex():
                    ema.lerp_(cur.to(ema.dtype), 1 - decay)
                else:
                    _average_into(ema, ema * decay + cur * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """The running equal-weight average over lists of tensors, updated in place: with ``n``
    models averaged so far, ``avg += (model - avg) / (n + 1)`` for each pair (for
    ``AveragedModel``'s ``multi_avg_fn``). As in PyTorch, ``n`` given as a tensor makes the
    weight ``1 / (n + 1)`` a float32 value (the default dtype), an int keeps it a Python float.

    >>> import ember.torch as torch
    >>> avg, cur = [torch.tensor([1.0, 1.0])], [torch.tensor([4.0, -2.0])]
    >>> get_swa_multi_avg_fn()(avg, cur, torch.tensor(2))
    >>> avg[0].tolist()
    [2.0, 0.0]
    """
    def swa_update(averaged_params, current_params, num_averaged):
        if isinstance(num_averaged, Tensor):
            weight = float32(1 / (num_averaged.item() + 1))
        else:
            weight = 1 / (num_averaged + 1)
        with no_grad():
            for avg, cur in zip(averaged_params, current_params):
                if avg.is_floating_point() or avg.is_complex():
                    avg.lerp_(cur.to(avg.dtype), weight)
                else:
                    _average_into(avg, avg + (cur - avg) / (float(num_averaged) + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The exponential moving average of one tensor: returns ``decay * ema + (1 - decay) *
    model`` (for ``AveragedModel``'s ``avg_fn``).

    >>> import ember.torch as torch
    >>> get_ema_avg_fn(0.5)(torch.tensor([0.0]), torch.tensor([2.0]), 3).tolist()
    [1.0]
    """
    decay = _check_decay("get_ema_avg_fn", decay)

    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """The running equal-weight average of one tensor: with ``n`` models averaged so far,
    returns ``avg + (model - avg) / (n + 1)`` (for ``AveragedModel``'s ``avg_fn``).

    >>> import ember.torch as torch
    >>> get_swa_avg_fn()(torch.tensor([1.0]), torch.tensor([4.0]), torch.tensor(2)).tolist()
    [2.0]
    """
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose weights are a running average of ``model``'s, as PyTorch's
    ``torch.optim.swa_utils.AveragedModel`` (stochastic weight averaging by default, or an
    exponential moving average with ``get_ema_multi_avg_fn``/``get_ema_avg_fn``).

    ``update_parameters(model)`` copies ``model``'s parameters at the first call and averages
    them in at later ones, with ``multi_avg_fn(averaged, current, n_averaged)`` (lists, updated
    in place), else ``avg_fn(averaged, current, n_averaged)`` (one tensor, returns the new
    value), else the equal-weight average. With ``use_buffers`` the buffers are averaged too;
    without, they are copied from ``model``. ``n_averaged`` is a buffer (in ``state_dict``);
    ``device`` moves the copy. Calling it runs the copy's ``forward``.

    >>> import ember.torch as torch
    >>> from ember.torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
    >>> model = torch.nn.Linear(1, 1, bias=False)
    >>> ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.5))
    >>> for value in (4.0, 0.0):
    ...     with torch.no_grad():
    ...         _ = model.weight.fill_(value)
    ...     ema.update_parameters(model)
    >>> ema.module.weight.item()
    2.0
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        op = "AveragedModel"
        super().__init__()
        if not isinstance(model, Module):
            raise InvalidParameterError(f"{op}: model must be an ember.torch.nn.Module, got "
                                        f"{type(model).__name__}", "model", model)
        for name, fn in (("avg_fn", avg_fn), ("multi_avg_fn", multi_avg_fn)):
            if fn is not None and not callable(fn):
                raise InvalidParameterError(f"{op}: {name} must be None or a function, got "
                                            f"{type(fn).__name__}", name, fn)
        if not isinstance(use_buffers, bool):
            raise InvalidParameterError(f"{op}: use_buffers must be a bool, got "
                                        f"{use_buffers!r}", "use_buffers", use_buffers)
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", to_torch(_tensor(0, dtype=int64, device=device)))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """The averaged copy's forward: ``self.module(*args, **kwargs)``."""
        return self.module(*args, **kwargs)

    def _averaged(self, model):
        if self.use_buffers:
            return itertools.chain(model.parameters(), model.buffers())
        return model.parameters()

    def update_parameters(self, model):
        """Average ``model``'s current parameters (and buffers, with ``use_buffers``) into the
        copy's; the first call copies them. See the class docstring for an example."""
        if not isinstance(model, Module):
            raise InvalidParameterError("AveragedModel.update_parameters: model must be an "
                                        f"ember.torch.nn.Module, got {type(model).__name__}",
                                        "model", model)
        mine, theirs = list(self._averaged(self.module)), list(self._averaged(model))
        if len(mine) != len(theirs):
            raise InvalidParameterError(
                f"AveragedModel.update_parameters: model has {len(theirs)} tensors to average, "
                f"the averaged copy {len(mine)}; expected the model the copy was made of",
                "model", len(theirs))
        pairs = [(a, b.detach().to(a.device)) for a, b in zip(mine, theirs)]
        n = self.n_averaged
        with no_grad():
            if n.item() == 0:
                for a, b in pairs:
                    _average_into(a, b)
            elif self.multi_avg_fn is not None or self.avg_fn is None:
                # the default average weighs by the exact 1 / (n + 1), as PyTorch's
                fn = self.multi_avg_fn or get_swa_multi_avg_fn()
                groups = {}
                for a, b in pairs:
                    groups.setdefault((str(a.device), a.dtype.name), []).append((a, b))
                for (device, _), group in groups.items():
                    count = n.to(device) if self.multi_avg_fn is not None else n.item()
                    fn([a for a, _ in group], [b for _, b in group], count)
            else:
                for a, b in pairs:
                    _average_into(a, self.avg_fn(a.detach(), b, n.to(a.device)))
            if not self.use_buffers:
                # keep the copy's buffers (BatchNorm's statistics) as the model's
                for a, b in zip(self.module.buffers(), model.buffers()):
                    _average_into(a, b.detach().to(a.device))
            self.n_averaged = n + 1


_STRATEGIES = ("cos", "linear")


def _anneal(strategy, t):
    """The fraction of the way from the starting rate to ``swa_lr`` at progress ``t``."""
    if strategy == "cos":
        return (1 - math.cos(math.pi * t)) / 2
    return t


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` steps, then keep
    it there, as PyTorch's ``SWALR`` (``anneal_strategy`` ``"cos"`` or ``"linear"``;
    ``swa_lr`` one number or one per group, stored as each group's ``"swa_lr"``).

    At step ``k`` (``_step_count``) the progress is ``t = clamp((k - 1) / anneal_epochs, 0,
    1)`` (1 when ``anneal_epochs`` is 0) and the rate ``(1 - a(t)) * lr0 + a(t) * swa_lr``,
    with ``a`` the strategy's curve; ``lr0`` is recovered from the group's current rate by
    undoing the previous step's mix, so the schedule starts from whatever rate the group has.

    >>> import ember.torch as torch
    >>> from ember.torch.optim.swa_utils import SWALR
    >>> opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=1.0)
    >>> sched = SWALR(opt, swa_lr=0.1, anneal_epochs=2, anneal_strategy="linear")
    >>> rates = []
    >>> for _ in range(4):
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    ...     opt.step(); sched.step()
    >>> rates
    [1.0, 0.55, 0.1, 0.1]
    """

    _name = "SWALR"
    _fields = {**_BASE_FIELDS, "anneal_epochs": _int_field(0),
               "_anneal_strategy": _choice_field(*_STRATEGIES)}

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        op = self._name
        _check_optimizer(op, optimizer)
        rates = _per_group(op, "swa_lr", swa_lr, optimizer, low=0.0)
        if not isinstance(anneal_strategy, str) or anneal_strategy not in _STRATEGIES:
            raise InvalidParameterError(f"{op}: anneal_strategy is {anneal_strategy!r}; "
                                        "expected 'cos' or 'linear'", "anneal_strategy",
                                        anneal_strategy)
        self.anneal_epochs = _check_int(op, "anneal_epochs", anneal_epochs, 0)
        self._anneal_strategy = anneal_strategy
        for group, rate in zip(optimizer.param_groups, rates):
            group["swa_lr"] = rate
        super().__init__(optimizer, last_epoch)

    def _progress(self, k):
        if self.anneal_epochs == 0:
            return 1.0
        return max(0.0, min(1.0, (k - 1) / self.anneal_epochs))

    def get_lr(self):
        """The rates of the current step, one per group (see the class docstring)."""
        k = self._step_count
        now = _anneal(self._anneal_strategy, self._progress(k))
        before = _anneal(self._anneal_strategy, self._progress(k - 1))
        rates = []
        for group in self.optimizer.param_groups:
            lr, swa = group["lr"], group["swa_lr"]
            start = lr if before >= 1 else (lr - before * swa) / (1 - before)
            rates.append(start * (1 - now) + swa * now)
        return rates


def _is_batch_norm(module):
    return isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm)


def update_bn(loader, model, device=None):
    """Recompute the running statistics of every BatchNorm layer of ``model`` with one pass
    over ``loader``, as PyTorch's ``update_bn``: the statistics are reset, each batch (a
    tensor, or a list/tuple whose first element is the input) runs through ``model`` in
    training mode with a cumulative average (``momentum=None``), then each layer's momentum
    and the model's mode are restored. ``device`` moves each batch first. A model without
    BatchNorm is left as it is.

    >>> import ember.torch as torch
    >>> from ember.torch.optim.swa_utils import update_bn
    >>> model = torch.nn.BatchNorm1d(1).eval()
    >>> update_bn([torch.tensor([[1.0], [3.0]]), torch.tensor([[5.0], [7.0]])], model)
    >>> model.running_mean.tolist(), model.training
    ([4.0], False)
    """
    if not isinstance(model, Module):
        raise InvalidParameterError(f"update_bn: model must be an ember.torch.nn.Module, got "
                                    f"{type(model).__name__}", "model", model)
    momenta = {}
    for module in model.modules():
        if _is_batch_norm(module):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    try:
        for module in momenta:
            module.momentum = None
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    finally:
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)
