"""Learning-rate schedulers, as ``torch.optim.lr_scheduler``: StepLR, MultiStepLR,
ExponentialLR, CosineAnnealingLR, LambdaLR, LinearLR, OneCycleLR, SequentialLR and
ReduceLROnPlateau, with ConstantLR, MultiplicativeLR, PolynomialLR, CosineAnnealingWarmRestarts,
CyclicLR and ChainedScheduler from lr_scheduler_more.py (re-exported here).

A scheduler is made after its optimizer and stepped once per epoch (OneCycleLR: once per
batch), after the epoch's ``optimizer.step()`` calls; it writes the new rate into every
parameter group's ``"lr"``. The rates follow PyTorch's recursive formulas (and its closed forms
where SequentialLR restarts a schedule), so they agree with torch's to rounding. Their base
class, ``LRScheduler``, is in lr_scheduler_base.py and re-exported here.
"""

import math
import numbers
import types
from bisect import bisect_right

from ..errors import InvalidParameterError
# LRScheduler (the base class) lives in lr_scheduler_base.py; it is re-exported here because
# PyTorch users import every scheduler, the base included, from optim.lr_scheduler.
from .lr_scheduler_base import (LambdaScheduler, LRScheduler, SchedulerGroup, _BASE_FIELDS,
                                _check_int, _check_optimizer, _choice_field, _copy,
                                _extended_field, _factor, _flag_field, _int_field, _lambda_states,
                                _number_field, _per_group, _rates_field, _sub_states)
from .optimizer import _check_flag, _check_number
# the schedulers of lr_scheduler_more.py, re-exported: PyTorch users import every scheduler from
# optim.lr_scheduler
from .lr_scheduler_more import (ChainedScheduler, ConstantLR, CosineAnnealingWarmRestarts,
                                CyclicLR, MultiplicativeLR, PolynomialLR)

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
           "LambdaLR", "LinearLR", "OneCycleLR", "SequentialLR", "ReduceLROnPlateau",
           "ConstantLR", "MultiplicativeLR", "PolynomialLR", "CosineAnnealingWarmRestarts",
           "CyclicLR", "ChainedScheduler"]


# Checkers of saved fields (see lr_scheduler_base._BASE_FIELDS).

def _milestone_counts(op, name, value, s):
    if not isinstance(value, dict):
        raise InvalidParameterError(f"{op}: {name} must be a dict of epoch -> count, got "
                                    f"{type(value).__name__}", name, type(value).__name__)
    counts = {_check_int(op, name, m, 0): _check_int(op, f"{name}[{m!r}]", c, 1)
              for m, c in value.items()}
    return dict(sorted(counts.items()))


_LR_KEYS = ("initial_lr", "max_lr", "min_lr")
_MOMENTUM_KEYS = ("max_momentum", "base_momentum")


def _one_cycle_phases(op, name, value, s):
    """The saved phases: 2 or 3 dicts, each its end step and the group keys it goes
    between."""
    keys = {"start_lr": _LR_KEYS, "end_lr": _LR_KEYS, "start_momentum": _MOMENTUM_KEYS,
            "end_momentum": _MOMENTUM_KEYS}
    if not isinstance(value, (list, tuple)) or len(value) not in (2, 3):
        raise InvalidParameterError(f"{op}: {name} must be a list of 2 or 3 phases, got "
                                    f"{value!r}", name, type(value).__name__)
    out = []
    for i, phase in enumerate(value):
        if not isinstance(phase, dict) or set(phase) != {"end_step", *keys}:
            raise InvalidParameterError(
                f"{op}: {name}[{i}] is {phase!r}; expected a dict with the keys "
                f"{sorted({'end_step', *keys})}", name, i)
        new = {"end_step": _check_number(op, f"{name}[{i}]['end_step']",
                                         phase["end_step"])}
        for key, choices in keys.items():
            new[key] = _choice_field(*choices)(op, f"{name}[{i}][{key!r}]", phase[key], s)
        out.append(new)
    return out


def _sequential_milestones(op, name, value, s):
    if not isinstance(value, (list, tuple)) or len(value) != len(s._schedulers) - 1:
        raise InvalidParameterError(f"{op}: {name} is {value!r}; expected a list of "
                                    f"{len(s._schedulers) - 1} epochs", name, value)
    value = [_check_int(op, name, m, 0) for m in value]
    if value != sorted(value):
        raise InvalidParameterError(f"{op}: {name} {value} are not in increasing order", name,
                                    value)
    return value


def _min_lrs(op, name, value, s):
    if not isinstance(value, (list, tuple)) or not value:
        raise InvalidParameterError(f"{op}: {name} must be a non-empty list of numbers, got "
                                    f"{value!r}", name, value)
    return [_check_number(op, name, v, low=0.0) for v in value]


def _default_min_lr(op, name, value, s):
    return None if value is None else _check_number(op, name, value, low=0.0)


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
    _fields = {**_BASE_FIELDS, "step_size": _int_field(1), "gamma": _number_field(low=0.0)}

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = _check_int(self._name, "step_size", step_size, 1)
        self.gamma = _check_number(self._name, "gamma", gamma, low=0.0)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma for group in groups]

    def _closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


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
    _fields = {**_BASE_FIELDS, "T_max": _int_field(1), "eta_min": _number_field(low=0.0)}

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

    def _closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply each group's learning rate by ``gamma`` at each epoch in ``milestones`` (a
    milestone listed twice multiplies by ``gamma**2``).

    >>> import ember
    >>> from ember.optim import SGD, MultiStepLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
    >>> sched = MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
    >>> rates = []
    >>> for epoch in range(6):
    ...     rates.append(sched.get_last_lr()[0])
    ...     sched.step()
    >>> rates
    [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    """

    _name = "MultiStepLR"

    _fields = {**_BASE_FIELDS, "milestones": _milestone_counts, "gamma": _number_field(low=0.0)}

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        op = self._name
        if isinstance(milestones, (str, bytes)) or not hasattr(milestones, "__iter__"):
            raise InvalidParameterError(f"{op}: milestones must be a list of epochs (ints), got "
                                        f"{type(milestones).__name__}", "milestones", milestones)
        counts = {}
        for m in milestones:
            m = _check_int(op, "milestones", m, 0)
            counts[m] = counts.get(m, 0) + 1
        self.milestones = dict(sorted(counts.items()))
        self.gamma = _check_number(op, "gamma", gamma, low=0.0)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        count = self.milestones.get(self.last_epoch)
        if count is None:
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma ** count for group in groups]

    def _closed_form_lr(self):
        passed = sum(c for m, c in self.milestones.items() if m <= self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply each group's learning rate by ``gamma`` every epoch.

    >>> import ember
    >>> from ember.optim import SGD, ExponentialLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
    >>> sched = ExponentialLR(opt, gamma=0.5)
    >>> sched.step(); sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    _name = "ExponentialLR"
    _fields = {**_BASE_FIELDS, "gamma": _number_field(low=0.0)}

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = _check_number(self._name, "gamma", gamma, low=0.0)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self._is_initial:
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma for group in groups]

    def _closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class LambdaLR(LambdaScheduler):
    """Set each group's learning rate to its initial rate times ``lr_lambda(epoch)``;
    ``lr_lambda`` is one function, or a list with one per parameter group.

    ``state_dict()`` holds None for each plain function (code is never saved), and the
    ``__dict__`` of a callable object, as PyTorch's.

    >>> import ember
    >>> from ember.optim import SGD, LambdaLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=0.1)
    >>> warmup = LambdaLR(opt, lambda epoch: min(1.0, (epoch + 1) / 4))
    >>> rates = []
    >>> for epoch in range(5):
    ...     rates.append(round(warmup.get_last_lr()[0], 6))
    ...     warmup.step()
    >>> rates
    [0.025, 0.05, 0.075, 0.1, 0.1]
    """

    _name = "LambdaLR"


    def get_lr(self):
        return [base * _factor(self._name, fn, self.last_epoch)
                for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class LinearLR(LRScheduler):
    """Scale each group's learning rate by a factor that goes linearly from ``start_factor`` to
    ``end_factor`` over ``total_iters`` epochs, then stays (a warmup).

    >>> import ember
    >>> from ember.optim import SGD, LinearLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
    >>> sched = LinearLR(opt, start_factor=0.25, total_iters=3)
    >>> rates = []
    >>> for epoch in range(5):
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    ...     sched.step()
    >>> rates
    [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    _name = "LinearLR"
    _fields = {**_BASE_FIELDS,
               "start_factor": _number_field(low=0.0, high=1.0, low_open=True),
               "end_factor": _number_field(low=0.0, high=1.0), "total_iters": _int_field(1)}

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        op = self._name
        self.start_factor = _check_number(op, "start_factor", start_factor, low=0.0, high=1.0,
                                          low_open=True)
        self.end_factor = _check_number(op, "end_factor", end_factor, low=0.0, high=1.0)
        self.total_iters = _check_int(op, "total_iters", total_iters, 1)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        e, s, f = self.last_epoch, self.start_factor, self.end_factor
        if e == 0:
            return [group["lr"] * s for group in groups]
        if self._is_initial or e > self.total_iters:
            return [group["lr"] for group in groups]
        return [group["lr"] * (1.0 + (f - s) / (self.total_iters * s + (e - 1) * (f - s)))
                for group in groups]

    def _closed_form_lr(self):
        s, f = self.start_factor, self.end_factor
        return [base * (s + (f - s) * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base in self.base_lrs]


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the learning rate rises from ``max_lr / div_factor`` to ``max_lr`` over
    the first ``pct_start`` of ``total_steps`` batches, then anneals to ``max_lr / div_factor /
    final_div_factor`` (``three_phase``: back down to the initial rate symmetrically, then to
    the minimum), along a cosine (``anneal_strategy="cos"``) or linearly (``"linear"``). With
    ``cycle_momentum``, the momentum (SGD's ``momentum``, or beta1 of Adam-style ``betas``) goes
    the other way between ``max_momentum`` and ``base_momentum``. Step it once per batch; a step
    past ``total_steps`` raises. ``total_steps`` may be given as ``epochs * steps_per_epoch``.

    A phase of no steps (``pct_start * total_steps == 1``, where PyTorch divides by zero) ends at
    its end value.

    >>> import ember
    >>> from ember.optim import SGD, OneCycleLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=0.1, momentum=0.9)
    >>> sched = OneCycleLR(opt, max_lr=1.0, total_steps=5, anneal_strategy="linear",
    ...                    pct_start=0.4, div_factor=4.0, final_div_factor=1.0)
    >>> rates = [sched.get_last_lr()[0]]
    >>> for step in range(4):                  # total_steps - 1 steps reach the end
    ...     sched.step()
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    >>> rates, round(opt.param_groups[0]["momentum"], 6)
    ([0.25, 1.0, 0.75, 0.5, 0.25], 0.95)
    """

    _name = "OneCycleLR"

    _fields = {**_BASE_FIELDS, "total_steps": _int_field(1), "_schedule_phases": _one_cycle_phases,
               "_anneal_func_type": _choice_field("cos", "linear"),
               "cycle_momentum": _flag_field, "use_beta1": _flag_field}

    def _check_fields(self, op, fields):
        need = set(_LR_KEYS)
        if fields["cycle_momentum"]:
            if "use_beta1" not in fields:
                raise InvalidParameterError(f"{op}: cycle_momentum is True but use_beta1 is "
                                            "missing; expected both", "state_dict", "use_beta1")
            need |= {*_MOMENTUM_KEYS, "betas" if fields["use_beta1"] else "momentum"}
        for i, group in enumerate(self.optimizer.param_groups):
            missing = sorted(need.difference(group))
            if missing:
                raise InvalidParameterError(
                    f"{op}: parameter group {i} has no {missing}, which the saved schedule "
                    "uses; load the optimizer's state_dict first", "state_dict", missing)

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        op = self._name
        _check_optimizer(op, optimizer)
        if total_steps is not None:
            total = _check_int(op, "total_steps", total_steps, 1)
        elif epochs is not None and steps_per_epoch is not None:
            total = (_check_int(op, "epochs", epochs, 1)
                     * _check_int(op, "steps_per_epoch", steps_per_epoch, 1))
        else:
            raise InvalidParameterError(f"{op}: give total_steps, or both epochs and "
                                        "steps_per_epoch", "total_steps", total_steps)
        pct_start = _check_number(op, "pct_start", pct_start, low=0.0, high=1.0)
        if anneal_strategy not in ("cos", "linear"):
            raise InvalidParameterError(f"{op}: anneal_strategy is {anneal_strategy!r}; "
                                        "expected 'cos' or 'linear'", "anneal_strategy",
                                        anneal_strategy)
        _check_flag(op, "cycle_momentum", cycle_momentum)
        _check_flag(op, "three_phase", three_phase)
        div_factor = _check_number(op, "div_factor", div_factor, low=0.0, low_open=True)
        final_div_factor = _check_number(op, "final_div_factor", final_div_factor, low=0.0,
                                         low_open=True)
        max_lrs = _per_group(op, "max_lr", max_lr, optimizer, low=0.0)
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise InvalidParameterError(
                    f"{op}: cycle_momentum=True needs an optimizer with momentum or betas, got "
                    f"{type(optimizer).__name__}; pass cycle_momentum=False", "cycle_momentum",
                    cycle_momentum)
            max_moms = _per_group(op, "max_momentum", max_momentum, optimizer, low=0.0)
            base_moms = _per_group(op, "base_momentum", base_momentum, optimizer, low=0.0)
        if last_epoch != -1:
            need = ["initial_lr", "max_lr", "min_lr"] + (
                ["max_momentum", "base_momentum"] if cycle_momentum else [])
            for i, group in enumerate(optimizer.param_groups):
                missing = [k for k in need if k not in group]
                if missing:
                    raise InvalidParameterError(
                        f"{op}: last_epoch={last_epoch} resumes a schedule, but parameter group "
                        f"{i} has no {missing}; load the optimizer's state_dict first",
                        "last_epoch", last_epoch)
        self.total_steps = total
        if three_phase:
            self._schedule_phases = [
                {"end_step": float(pct_start * total) - 1, "start_lr": "initial_lr",
                 "end_lr": "max_lr", "start_momentum": "max_momentum",
                 "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * total) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum",
                 "end_momentum": "max_momentum"},
                {"end_step": total - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"},
            ]
        else:
            self._schedule_phases = [
                {"end_step": float(pct_start * total) - 1, "start_lr": "initial_lr",
                 "end_lr": "max_lr", "start_momentum": "max_momentum",
                 "end_momentum": "base_momentum"},
                {"end_step": total - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
            ]
        self._anneal_func_type = anneal_strategy
        self.cycle_momentum = cycle_momentum
        if last_epoch == -1:
            for m, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = m / div_factor
                group["max_lr"] = m
                group["min_lr"] = group["initial_lr"] / final_div_factor
        if cycle_momentum:
            self.use_beta1 = "betas" in optimizer.defaults
            if last_epoch == -1:
                for m, b, group in zip(max_moms, base_moms, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (m, *group["betas"][1:])
                    else:
                        group["momentum"] = m
                    group["max_momentum"] = m
                    group["base_momentum"] = b
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def step(self):
        """Advance one batch; raises InvalidParameterError past ``total_steps`` (and changes
        nothing then)."""
        if self.last_epoch + 1 > self.total_steps:
            raise InvalidParameterError(
                f"{self._name}.step: tried to step {self.last_epoch + 1} times; the schedule has "
                f"total_steps={self.total_steps}", "total_steps", self.total_steps)
        super().step()

    def get_lr(self):
        lrs = []
        step = self.last_epoch
        phases = self._schedule_phases
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(phases):
                end = phase["end_step"]
                if step <= end or i == len(phases) - 1:
                    pct = (step - start) / (end - start) if end != start else 1.0
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(group[phase["start_momentum"]],
                                           group[phase["end_momentum"]], pct)
                    break
                start = end
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (mom, *group["betas"][1:])
                else:
                    group["momentum"] = mom
        return lrs


class SequentialLR(SchedulerGroup):
    """Run ``schedulers`` one after another: ``schedulers[i]`` from epoch ``milestones[i - 1]``,
    restarted at its own epoch 0 (from its closed form, as PyTorch's). Typically a warmup, then
    a decay. The schedulers must share ``optimizer``; ReduceLROnPlateau and nested SequentialLR
    are refused.

    >>> import ember
    >>> from ember.optim import SGD, LinearLR, ExponentialLR, SequentialLR
    >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
    >>> warmup = LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> decay = ExponentialLR(opt, gamma=0.5)
    >>> sched = SequentialLR(opt, [warmup, decay], milestones=[2])
    >>> rates = []
    >>> for epoch in range(5):
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    ...     sched.step()
    >>> rates
    [0.5, 0.75, 1.0, 0.5, 0.25]
    """

    _name = "SequentialLR"
    _fields = {"_milestones": _sequential_milestones, "last_epoch": _int_field(0),
               "_last_lr": _rates_field(), "_schedulers": _sub_states}

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        op = self._name
        _check_optimizer(op, optimizer)
        if not isinstance(schedulers, (list, tuple)) or not schedulers:
            raise InvalidParameterError(f"{op}: schedulers must be a non-empty list of "
                                        f"schedulers, got {schedulers!r}", "schedulers",
                                        schedulers)
        for i, s in enumerate(schedulers):
            if not isinstance(s, LRScheduler) or isinstance(s, (ReduceLROnPlateau,
                                                                 SequentialLR)):
                raise InvalidParameterError(
                    f"{op}: schedulers[{i}] is a {type(s).__name__}; expected an epoch-driven "
                    "scheduler (not ReduceLROnPlateau or SequentialLR)", "schedulers", s)
            if s.optimizer is not optimizer:
                raise InvalidParameterError(f"{op}: schedulers[{i}] ({type(s).__name__}) belongs "
                                            "to another optimizer; expected all to share "
                                            "optimizer", "schedulers", s)
        if not isinstance(milestones, (list, tuple)) or \
                len(milestones) != len(schedulers) - 1:
            raise InvalidParameterError(
                f"{op}: milestones is {milestones!r}; expected a list of "
                f"{len(schedulers) - 1} epochs (one fewer than the schedulers)", "milestones",
                milestones)
        milestones = [_check_int(op, "milestones", m, 0) for m in milestones]
        if milestones != sorted(milestones):
            raise InvalidParameterError(f"{op}: milestones {milestones} are not in increasing "
                                        "order", "milestones", milestones)
        last_epoch = _check_int(op, "last_epoch", last_epoch, -1)
        self._schedulers = list(schedulers)
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for s in self._schedulers:
            s.last_epoch -= 1
        idx = bisect_right(milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = self._schedulers[idx].get_last_lr()

    def step(self):
        """Advance one epoch in the scheduler whose turn it is."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ReduceLROnPlateau(LRScheduler):
    """Multiply each group's learning rate by ``factor`` (not below its ``min_lr``) when a metric
    has not improved for more than ``patience`` epochs; ``step(metric)`` once per epoch.

    ``mode="min"`` (a loss) or ``"max"`` (an accuracy); an improvement beats the best value by
    more than ``threshold``, relative (``threshold_mode="rel"``) or absolute (``"abs"``). After
    a reduction, ``cooldown`` epochs pass before bad epochs count again; a change smaller than
    ``eps`` is skipped. ``min_lr`` is a number or one per group.

    >>> import ember
    >>> from ember.optim import SGD, ReduceLROnPlateau
    >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
    >>> sched = ReduceLROnPlateau(opt, factor=0.5, patience=1)
    >>> rates = []
    >>> for loss in [3.0, 2.0, 2.0, 2.0, 2.0, 1.0]:
    ...     sched.step(loss)
    ...     rates.append(sched.get_last_lr()[0])
    >>> rates
    [1.0, 1.0, 1.0, 0.5, 0.5, 0.5]
    """

    steps_on_metric = True

    _name = "ReduceLROnPlateau"
    _fields = {"factor": _number_field(low=0.0, high=1.0, high_open=True),
               "default_min_lr": _default_min_lr, "min_lrs": _min_lrs,
               "patience": _int_field(0), "cooldown": _int_field(0),
               "eps": _number_field(low=0.0), "threshold": _number_field(low=0.0),
               "mode_worse": _extended_field, "mode": _choice_field("min", "max"),
               "threshold_mode": _choice_field("rel", "abs"), "last_epoch": _int_field(0),
               "_last_lr": _rates_field(), "best": _extended_field,
               "cooldown_counter": _int_field(0), "num_bad_epochs": _int_field(0)}

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0.0, eps=1e-8):
        op = self._name
        _check_optimizer(op, optimizer)
        self.factor = _check_number(op, "factor", factor, low=0.0, high=1.0, high_open=True)
        if isinstance(min_lr, (list, tuple)):
            self.default_min_lr = None
            self.min_lrs = _per_group(op, "min_lr", min_lr, optimizer, low=0.0)
        else:
            self.default_min_lr = _check_number(op, "min_lr", min_lr, low=0.0)
            self.min_lrs = [self.default_min_lr] * len(optimizer.param_groups)
        self.patience = _check_int(op, "patience", patience, 0)
        self.cooldown = _check_int(op, "cooldown", cooldown, 0)
        self.eps = _check_number(op, "eps", eps, low=0.0)
        self._init_is_better(mode, threshold, threshold_mode)
        self.optimizer = optimizer
        self.last_epoch = 0
        self._last_lr = [group["lr"] for group in optimizer.param_groups]
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def _init_is_better(self, mode, threshold, threshold_mode):
        op = self._name
        if mode not in ("min", "max"):
            raise InvalidParameterError(f"{op}: mode is {mode!r}; expected 'min' or 'max'",
                                        "mode", mode)
        if threshold_mode not in ("rel", "abs"):
            raise InvalidParameterError(f"{op}: threshold_mode is {threshold_mode!r}; expected "
                                        "'rel' or 'abs'", "threshold_mode", threshold_mode)
        self.threshold = _check_number(op, "threshold", threshold, low=0.0)
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold_mode = threshold_mode

    @property
    def in_cooldown(self):
        """Whether the scheduler is in its cooldown after a reduction."""
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min":
            if self.threshold_mode == "rel":
                return a < best * (1.0 - self.threshold)
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def step(self, metrics):
        """Record one epoch's metric (a number or a one-element tensor) and reduce the rates
        when it has stopped improving."""
        if isinstance(metrics, bool) or not isinstance(metrics, numbers.Real):
            try:
                current = float(metrics.item())
            except Exception:  # not a number: no .item(), or not one element
                raise InvalidParameterError(
                    f"{self._name}.step: metrics is a {type(metrics).__name__}; expected a "
                    "number or a one-element tensor", "metrics", metrics) from None
        else:
            current = float(metrics)
        self.last_epoch += 1
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise InvalidParameterError(
                    f"{self._name}.step: the optimizer has {len(groups)} parameter groups, "
                    f"min_lr has {len(self.min_lrs)}; set min_lrs to one per group", "min_lr",
                    self.min_lrs)
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, min_lr)
            if old - new > self.eps:
                group["lr"] = new

    def get_lr(self):
        """The current learning rates (this schedule changes them only in ``step(metrics)``)."""
        return [group["lr"] for group in self.optimizer.param_groups]

    def _check_fields(self, op, fields):
        n = len(self.optimizer.param_groups)
        if fields["default_min_lr"] is None and len(fields["min_lrs"]) != n:
            raise InvalidParameterError(
                f"{op}: min_lrs has {len(fields['min_lrs'])} entries; expected one per "
                f"parameter group ({n})", "min_lrs", fields["min_lrs"])

    def _restore(self, fields):
        super()._restore(fields)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)

