"""More learning-rate schedulers, as ``torch.optim.lr_scheduler``'s: ConstantLR,
MultiplicativeLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR and ChainedScheduler.

They follow PyTorch's recursive formulas (closed forms where SequentialLR restarts them), so
their rates agree with torch's to rounding; lr_scheduler.py re-exports them.
"""

import math
import numbers
import types

from ..errors import InvalidParameterError
from .lr_scheduler_base import (LambdaScheduler, LRScheduler, SchedulerGroup, _BASE_FIELDS,
                                _callable_state, _check_int, _check_optimizer, _choice_field,
                                _copy, _factor, _flag_field, _int_field, _lambda_states,
                                _number_field, _per_group, _rates_field, _sub_states)
from .optimizer import _check_flag, _check_number

__all__ = ["ConstantLR", "MultiplicativeLR", "PolynomialLR", "CosineAnnealingWarmRestarts",
           "CyclicLR", "ChainedScheduler"]


class ConstantLR(LRScheduler):
    """Multiply each group's learning rate by ``factor`` until epoch ``total_iters``, then
    restore it.

    A ``factor`` of 0 restores the initial rate at ``total_iters`` (PyTorch divides by zero).

    >>> import ember
    >>> from ember.optim import SGD
    >>> from ember.optim.lr_scheduler import ConstantLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
    >>> sched = ConstantLR(opt, factor=0.5, total_iters=2)
    >>> rates = []
    >>> for epoch in range(4):
    ...     rates.append(sched.get_last_lr()[0])
    ...     sched.step()
    >>> rates
    [0.5, 0.5, 1.0, 1.0]
    """

    _name = "ConstantLR"
    _fields = {**_BASE_FIELDS, "factor": _number_field(low=0.0, high=1.0),
               "total_iters": _int_field(0)}

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        self.factor = _check_number(self._name, "factor", factor, low=0.0, high=1.0)
        self.total_iters = _check_int(self._name, "total_iters", total_iters, 0)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in groups]
        if self.last_epoch != self.total_iters:
            return [group["lr"] for group in groups]
        if self.factor == 0:
            return list(self.base_lrs)
        return [group["lr"] * (1.0 / self.factor) for group in groups]

    def _closed_form_lr(self):
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class MultiplicativeLR(LambdaScheduler):
    """Multiply each group's learning rate by ``lr_lambda(epoch)`` every epoch; ``lr_lambda``
    is one function, or a list with one per parameter group. ``state_dict()`` holds None for a
    function and the ``__dict__`` of a callable object, as PyTorch's.

    >>> import ember
    >>> from ember.optim import SGD
    >>> from ember.optim.lr_scheduler import MultiplicativeLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
    >>> sched = MultiplicativeLR(opt, lambda epoch: 0.5)
    >>> sched.step(); sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    _name = "MultiplicativeLR"
    def get_lr(self):
        groups = self.optimizer.param_groups
        if self._is_initial:
            return [group["lr"] for group in groups]
        return [group["lr"] * _factor(self._name, fn, self.last_epoch)
                for fn, group in zip(self.lr_lambdas, groups)]


class PolynomialLR(LRScheduler):
    """Decay each group's learning rate as ``(1 - epoch / total_iters) ** power`` of its initial
    value, reaching 0 at ``total_iters`` and staying there.

    >>> import ember
    >>> from ember.optim import SGD
    >>> from ember.optim.lr_scheduler import PolynomialLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
    >>> sched = PolynomialLR(opt, total_iters=4, power=1.0)
    >>> rates = []
    >>> for epoch in range(6):
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    ...     sched.step()
    >>> rates
    [1.0, 0.75, 0.5, 0.25, 0.0, 0.0]
    """

    _name = "PolynomialLR"
    _fields = {**_BASE_FIELDS, "total_iters": _int_field(1), "power": _number_field(low=0.0)}

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = _check_int(self._name, "total_iters", total_iters, 1)
        self.power = _check_number(self._name, "power", power, low=0.0)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        e, total = self.last_epoch, self.total_iters
        if self._is_initial or e > total:
            return [group["lr"] for group in groups]
        decay = ((1.0 - e / total) / (1.0 - (e - 1) / total)) ** self.power
        return [group["lr"] * decay for group in groups]

    def _closed_form_lr(self):
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for base in self.base_lrs]


def _nonnegative_number(op, name, value, s):
    """An epoch position: an int, or a float >= 0 (CosineAnnealingWarmRestarts' T_cur)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return _check_int(op, name, value, -1)
    return _check_number(op, name, value, low=0.0)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Anneal each group's learning rate along a half cosine from its initial value to
    ``eta_min`` over ``T_0`` epochs, then restart; each period is ``T_mult`` times the last.

    ``step(epoch)`` may be given a (fractional) epoch, as PyTorch's, to step within an epoch:
    ``sched.step(epoch + i / iters)``.

    >>> import ember
    >>> from ember.optim import SGD
    >>> from ember.optim.lr_scheduler import CosineAnnealingWarmRestarts
    >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
    >>> sched = CosineAnnealingWarmRestarts(opt, T_0=2)
    >>> rates = []
    >>> for epoch in range(5):
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    ...     sched.step()
    >>> rates
    [1.0, 0.5, 1.0, 0.5, 1.0]
    """

    _name = "CosineAnnealingWarmRestarts"
    _fields = {**_BASE_FIELDS, "T_0": _int_field(1), "T_i": _number_field(low=1.0),
               "T_mult": _int_field(1), "eta_min": _number_field(low=0.0),
               "T_cur": _nonnegative_number}

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):  # noqa: N803
        op = self._name
        self.T_0 = _check_int(op, "T_0", T_0, 1)
        self.T_i = self.T_0
        self.T_mult = _check_int(op, "T_mult", T_mult, 1)
        self.eta_min = _check_number(op, "eta_min", eta_min, low=0.0)
        self.T_cur = _check_int(op, "last_epoch", last_epoch, -1)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2 for base in self.base_lrs]

    def step(self, epoch=None):
        """Advance one epoch, or go to ``epoch`` (a number >= 0, fractions allowed).

        >>> import ember
        >>> from ember.optim import SGD
        >>> from ember.optim.lr_scheduler import CosineAnnealingWarmRestarts
        >>> sched = CosineAnnealingWarmRestarts(SGD([ember.ones(1).require_grad()], lr=1.0), 4)
        >>> sched.step(2.0)
        >>> sched.get_last_lr(), sched.last_epoch
        ([0.5], 2)
        """
        if epoch is not None:
            if isinstance(epoch, numbers.Integral) and not isinstance(epoch, bool):
                epoch = _check_int(f"{self._name}.step", "epoch", epoch, 0)
            else:
                epoch = _check_number(f"{self._name}.step", "epoch", epoch, low=0.0)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]


def _scale_fn_state(op, name, value, s):
    """The saved attributes of CyclicLR's callable ``scale_fn`` object, or None."""
    if value is None:
        return None
    fn = s._scale_fn_custom
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise InvalidParameterError(f"{op}: {name} is {value!r}; expected None or a dict of "
                                    "attribute names to values", name, type(value).__name__)
    if not isinstance(getattr(fn, "__dict__", None), dict):
        raise InvalidParameterError(f"{op}: {name} holds attributes, but this scheduler's "
                                    f"scale_fn ({type(fn).__name__}) has no __dict__ to take "
                                    "them", name, sorted(value))
    return dict(value)


class CyclicLR(LRScheduler):
    """Cycle each group's learning rate between ``base_lr`` and ``max_lr``: up over
    ``step_size_up`` batches, down over ``step_size_down`` (default: the same). The amplitude
    is scaled per cycle by ``mode``: ``"triangular"`` (constant), ``"triangular2"`` (halved
    each cycle) or ``"exp_range"`` (``gamma ** iteration``), or by ``scale_fn`` of the cycle
    (``scale_mode="cycle"``) or of the iteration (``"iterations"``). With ``cycle_momentum``,
    the momentum (or beta1) goes the other way between ``max_momentum`` and
    ``base_momentum``. Step it once per batch.

    >>> import ember
    >>> from ember.optim import SGD
    >>> from ember.optim.lr_scheduler import CyclicLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=0.1, momentum=0.9)
    >>> sched = CyclicLR(opt, base_lr=0.1, max_lr=0.5, step_size_up=2)
    >>> rates = []
    >>> for batch in range(5):
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    ...     sched.step()
    >>> rates
    [0.1, 0.3, 0.5, 0.3, 0.1]
    """

    _name = "CyclicLR"
    _fields = {**_BASE_FIELDS, "max_lrs": _rates_field(low=0.0),
               "total_size": _number_field(low=0.0, low_open=True),
               "step_ratio": _number_field(low=0.0, high=1.0, low_open=True),
               "mode": lambda op, name, value, s: value, "gamma": _number_field(low=0.0),
               "scale_mode": _choice_field("cycle", "iterations"),
               "cycle_momentum": _flag_field, "use_beta1": _flag_field,
               "base_momentums": _rates_field(low=0.0), "max_momentums": _rates_field(low=0.0),
               "_scale_fn_custom": _scale_fn_state}

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        op = self._name
        _check_optimizer(op, optimizer)
        last_epoch = _check_int(op, "last_epoch", last_epoch, -1)
        base_lrs = _per_group(op, "base_lr", base_lr, optimizer, low=0.0)
        max_lrs = _per_group(op, "max_lr", max_lr, optimizer, low=0.0)
        up = _check_number(op, "step_size_up", step_size_up, low=0.0, low_open=True)
        down = up if step_size_down is None else _check_number(op, "step_size_down",
                                                                step_size_down, low=0.0)
        if scale_fn is None:
            if mode not in ("triangular", "triangular2", "exp_range"):
                raise InvalidParameterError(
                    f"{op}: mode is {mode!r}; expected 'triangular', 'triangular2' or "
                    "'exp_range' (or give scale_fn)", "mode", mode)
        elif not callable(scale_fn):
            raise InvalidParameterError(f"{op}: scale_fn is a {type(scale_fn).__name__}; "
                                        "expected a function or None", "scale_fn", scale_fn)
        elif scale_mode not in ("cycle", "iterations"):
            raise InvalidParameterError(f"{op}: scale_mode is {scale_mode!r}; expected 'cycle' "
                                        "or 'iterations'", "scale_mode", scale_mode)
        gamma = _check_number(op, "gamma", gamma, low=0.0)
        _check_flag(op, "cycle_momentum", cycle_momentum)
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise InvalidParameterError(
                    f"{op}: cycle_momentum=True needs an optimizer with momentum or betas, got "
                    f"{type(optimizer).__name__}; pass cycle_momentum=False", "cycle_momentum",
                    cycle_momentum)
            base_moms = _per_group(op, "base_momentum", base_momentum, optimizer, low=0.0)
            max_moms = _per_group(op, "max_momentum", max_momentum, optimizer, low=0.0)
        self.optimizer = optimizer
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = max_lrs
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = base_moms
            self.max_momentums = max_moms
            if last_epoch == -1:
                for m, b, group in zip(max_moms, base_moms, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (m, *group["betas"][1:])
                    else:
                        group["momentum"] = m
                    group["max_momentum"] = m
                    group["base_momentum"] = b
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is None:
            self.scale_mode = "iterations" if self.mode == "exp_range" else "cycle"

    def scale_fn(self, x):
        """The amplitude's scale at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base + (top - base) * scale_factor * self.scale_fn(at)
               for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, base, top in zip(self.optimizer.param_groups, self.base_momentums,
                                        self.max_momentums):
                momentum = top - (top - base) * scale_factor * self.scale_fn(at)
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs

    def state_dict(self):
        """The state, PyTorch's: ``_scale_fn_custom`` is None, or a callable object's
        ``__dict__`` (code is never saved).

        >>> import ember
        >>> from ember.optim import SGD
        >>> from ember.optim.lr_scheduler import CyclicLR
        >>> opt = SGD([ember.ones(1).require_grad()], lr=0.1, momentum=0.9)
        >>> sd = CyclicLR(opt, base_lr=0.1, max_lr=1.0).state_dict()
        >>> sd["total_size"], sd["_scale_fn_custom"]
        (4000.0, None)
        """
        out = {k: _copy(v) for k, v in self.__dict__.items()
               if k not in ("optimizer", "_scale_fn_custom")}
        out["_scale_fn_custom"] = (None if self._scale_fn_custom is None
                                   else _callable_state(self._scale_fn_custom))
        return out

    def _check_fields(self, op, fields):
        if fields["_scale_fn_custom"] is None and fields["mode"] not in (
                "triangular", "triangular2", "exp_range"):
            raise InvalidParameterError(f"{op}: mode is {fields['mode']!r}; expected "
                                        "'triangular', 'triangular2' or 'exp_range'", "mode",
                                        fields["mode"])
        if fields["cycle_momentum"]:
            missing = [k for k in ("use_beta1", "base_momentums", "max_momentums")
                       if k not in fields]
            if missing:
                raise InvalidParameterError(f"{op}: cycle_momentum is True but {missing} "
                                            "are missing", "state_dict", missing)

    def _restore(self, fields):
        attrs = fields.pop("_scale_fn_custom", None)
        super()._restore(fields)
        if attrs is not None:
            self._scale_fn_custom.__dict__.update(attrs)
        self._init_scale_fn()


class ChainedScheduler(SchedulerGroup):
    """Step several schedulers of one optimizer together: each ``step()`` steps every one in
    turn, so their factors compose. ReduceLROnPlateau (which needs a metric) is refused.

    >>> import ember
    >>> from ember.optim import SGD
    >>> from ember.optim.lr_scheduler import ChainedScheduler, ConstantLR, ExponentialLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
    >>> sched = ChainedScheduler([ConstantLR(opt, factor=0.5, total_iters=2),
    ...                           ExponentialLR(opt, gamma=0.5)])
    >>> rates = []
    >>> for epoch in range(4):
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    ...     sched.step()
    >>> rates
    [0.5, 0.25, 0.25, 0.125]
    """

    _name = "ChainedScheduler"
    _fields = {"_last_lr": _rates_field(), "_schedulers": _sub_states}

    def __init__(self, schedulers, optimizer=None):
        op = self._name
        if not isinstance(schedulers, (list, tuple)) or not schedulers:
            raise InvalidParameterError(f"{op}: schedulers must be a non-empty list of "
                                        f"schedulers, got {schedulers!r}", "schedulers",
                                        schedulers)
        for i, s in enumerate(schedulers):
            if not isinstance(s, LRScheduler) or s.steps_on_metric:
                raise InvalidParameterError(
                    f"{op}: schedulers[{i}] is a {type(s).__name__}; expected an epoch-driven "
                    "scheduler, stepped without arguments (not ReduceLROnPlateau)",
                    "schedulers", s)
        if optimizer is None:
            optimizer = schedulers[0].optimizer
        _check_optimizer(op, optimizer)
        for i, s in enumerate(schedulers):
            if s.optimizer is not optimizer:
                raise InvalidParameterError(f"{op}: schedulers[{i}] ({type(s).__name__}) belongs "
                                            "to another optimizer; expected all to share one",
                                            "schedulers", s)
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = [group["lr"] for group in optimizer.param_groups]

    def step(self):
        """Step every scheduler, in order."""
        for s in self._schedulers:
            s.step()
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def __repr__(self):
        return f"{type(self).__name__}({[type(s).__name__ for s in self._schedulers]}, " \
               f"lr={self.get_last_lr()})"
