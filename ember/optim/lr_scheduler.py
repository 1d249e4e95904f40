"""Learning-rate schedulers: StepLR and CosineAnnealingLR, as ``torch.optim.lr_scheduler``.

A scheduler is made after its optimizer and stepped once per epoch, after the epoch's
``optimizer.step()`` calls; it writes the new rate into every parameter group's ``"lr"``.
The rates follow PyTorch's recursive formulas, so they agree with torch's to rounding.
"""

import math
import operator

from ..errors import InvalidParameterError
from .optimizer import Optimizer, _check_number

__all__ = ["LRScheduler", "StepLR", "CosineAnnealingLR"]


def _check_int(op, name, value, low):
    if isinstance(value, bool):
        raise InvalidParameterError(f"{op}: {name} must be an int, got {value!r}", name, value)
    try:
        n = operator.index(value)
    except TypeError:
        raise InvalidParameterError(f"{op}: {name} must be an int, got {type(value).__name__} "
                                    f"{value!r}", name, value) from None
    if n < low:
        raise InvalidParameterError(f"{op}: {name} is {n}; expected an int >= {low}", name, value)
    return n


class LRScheduler:
    """Base class of the schedulers: ``step()``, ``get_last_lr()``, ``state_dict()``.

    Subclasses implement ``get_lr()``, the rates for the current ``last_epoch``.
    """

    _name = "LRScheduler"

    def __init__(self, optimizer, last_epoch=-1):
        op = self._name
        if not isinstance(optimizer, Optimizer):
            raise InvalidParameterError(f"{op}: optimizer must be an ember.optim optimizer, got "
                                        f"{type(optimizer).__name__}", "optimizer", optimizer)
        last_epoch = _check_int(op, "last_epoch", last_epoch, -1)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise InvalidParameterError(
                        f"{op}: last_epoch={last_epoch} resumes a schedule, but parameter group "
                        f"{i} has no 'initial_lr'; load the optimizer's state_dict first",
                        "last_epoch", last_epoch)
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        """The learning rates of the current epoch, one per group; each schedule defines it."""
        raise NotImplementedError(f"{type(self).__name__}: a scheduler subclass must define "
                                  "get_lr()")

    def step(self):
        """Advance one epoch and set each group's learning rate.

        >>> import ember
        >>> from ember.optim import SGD, StepLR
        >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
        >>> sched = StepLR(opt, step_size=2, gamma=0.5)
        >>> rates = []
        >>> for epoch in range(5):
        ...     rates.append(sched.get_last_lr()[0])
        ...     sched.step()
        >>> rates
        [1.0, 1.0, 0.5, 0.5, 0.25]
        """
        self._step_count += 1
        self.last_epoch += 1
        values = self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self):
        """The learning rates the last ``step()`` set, one per parameter group (a list).

        >>> import ember
        >>> from ember.optim import SGD, StepLR
        >>> a, b = ember.ones(1).require_grad(), ember.ones(1).require_grad()
        >>> opt = SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=1.0)
        >>> StepLR(opt, step_size=3).get_last_lr()
        [1.0, 0.5]
        """
        return list(self._last_lr)

    def state_dict(self):
        """The scheduler's state (everything but the optimizer), for ``load_state_dict``.

        >>> import ember
        >>> from ember.optim import SGD, StepLR
        >>> sched = StepLR(SGD([ember.ones(1).require_grad()], lr=1.0), step_size=3)
        >>> sched.state_dict()["last_epoch"], sched.state_dict()["step_size"]
        (0, 3)
        """
        return {k: (list(v) if isinstance(v, list) else v) for k, v in self.__dict__.items()
                if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restore a state from ``state_dict()``.

        >>> import ember
        >>> from ember.optim import SGD, StepLR
        >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
        >>> a, b = StepLR(opt, step_size=1, gamma=0.5), StepLR(opt, step_size=1, gamma=0.5)
        >>> a.step(); a.step()
        >>> b.load_state_dict(a.state_dict())
        >>> b.last_epoch, b.get_last_lr()
        (2, [0.25])
        """
        if not isinstance(state_dict, dict):
            raise InvalidParameterError(f"{self._name}.load_state_dict: state_dict must be a "
                                        f"dict, got {type(state_dict).__name__}", "state_dict",
                                        state_dict)
        self.__dict__.update({k: (list(v) if isinstance(v, list) else v)
                              for k, v in state_dict.items() if k != "optimizer"})

    def __repr__(self):
        return f"{type(self).__name__}(last_epoch={self.last_epoch}, lr={self.get_last_lr()})"


class StepLR(LRScheduler):
    """Multiply each group's learning rate by ``gamma`` every ``step_size`` epochs.

    >>> import ember
    >>> from ember.optim import SGD, StepLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=0.1)
    >>> sched = StepLR(opt, step_size=1, gamma=0.1)
    >>> sched.step()
    >>> [round(lr, 6) for lr in sched.get_last_lr()]
    [0.01]
    """

    _name = "StepLR"

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = _check_int(self._name, "step_size", step_size, 1)
        self.gamma = _check_number(self._name, "gamma", gamma, low=0.0)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma for group in groups]


class CosineAnnealingLR(LRScheduler):
    """Anneal each group's learning rate from its initial value to ``eta_min`` along a half
    cosine over ``T_max`` epochs (then back up, periodically, as PyTorch's).

    >>> import ember
    >>> from ember.optim import SGD, CosineAnnealingLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
    >>> sched = CosineAnnealingLR(opt, T_max=2)
    >>> rates = []
    >>> for epoch in range(3):
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    ...     sched.step()
    >>> rates
    [1.0, 0.5, 0.0]
    """

    _name = "CosineAnnealingLR"

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):  # noqa: N803
        self.T_max = _check_int(self._name, "T_max", T_max, 1)
        self.eta_min = _check_number(self._name, "eta_min", eta_min, low=0.0)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        e, t, eta = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return [group["lr"] for group in groups]
        if self._step_count == 1 and e > 0:
            return [eta + (base - eta) * (1 + math.cos(e * math.pi / t)) / 2
                    for base in self.base_lrs]
        if (e - 1 - t) % (2 * t) == 0:
            return [group["lr"] + (base - eta) * (1 - math.cos(math.pi / t)) / 2
                    for base, group in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
                * (group["lr"] - eta) + eta for group in groups]
