"""The base class of the learning-rate schedulers, ``LRScheduler`` (``step()``,
``get_last_lr()``, ``state_dict()``, ``load_state_dict()``), and the argument checks the
schedulers share. The schedulers themselves are in lr_scheduler.py, which re-exports
``LRScheduler`` (``ember.optim.lr_scheduler.LRScheduler``, as torch's).
"""

import math
import numbers
import operator
import types

from ..errors import InvalidParameterError
from .optimizer import Optimizer, _check_flag, _check_number

__all__ = ["LRScheduler"]


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


def _check_optimizer(op, optimizer):
    if not isinstance(optimizer, Optimizer):
        raise InvalidParameterError(f"{op}: optimizer must be an ember.optim optimizer, got "
                                    f"{type(optimizer).__name__}", "optimizer", optimizer)
    return optimizer


def _per_group(op, name, value, optimizer, **bounds):
    """``value`` (a number, or a list/tuple with one number per parameter group) as a list of
    floats, one per group."""
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise InvalidParameterError(f"{op}: {name} has {len(value)} entries; expected one "
                                        f"per parameter group ({n})", name, value)
        return [_check_number(op, name, v, **bounds) for v in value]
    return [_check_number(op, name, value, **bounds)] * n


def _copy(v):
    if isinstance(v, list):
        return list(v)
    if isinstance(v, dict):
        return dict(v)
    return v


# Checkers of saved scheduler fields, for load_state_dict: each takes (op, name, value,
# scheduler) and returns the value to restore, or raises InvalidParameterError.

def _int_field(low):
    return lambda op, name, value, s: _check_int(op, name, value, low)


def _number_field(**bounds):
    return lambda op, name, value, s: _check_number(op, name, value, **bounds)


def _flag_field(op, name, value, s):
    return _check_flag(op, name, value)


def _choice_field(*choices):
    def check(op, name, value, s):
        if not isinstance(value, str) or value not in choices:
            raise InvalidParameterError(f"{op}: {name} is {value!r}; expected one of "
                                        f"{list(choices)}", name, value)
        return value
    return check


def _rates_field(**bounds):
    """One number per parameter group of the scheduler's optimizer, as a list."""
    def check(op, name, value, s):
        if not isinstance(value, (list, tuple)):
            raise InvalidParameterError(f"{op}: {name} must be a list of numbers, one per "
                                        f"parameter group, got {type(value).__name__}", name,
                                        type(value).__name__)
        return _per_group(op, name, list(value), s.optimizer, **bounds)
    return check


def _extended_field(op, name, value, s):
    """A float that may be infinite, not NaN (ReduceLROnPlateau's best metric so far)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise InvalidParameterError(f"{op}: {name} is {value!r}; expected a number (inf "
                                    "allowed, not nan)", name, value)
    return float(value)


def _lambda_states(op, name, value, s):
    """The saved ``__dict__`` of each callable object (None for a function), of LambdaLR's or
    MultiplicativeLR's ``lr_lambdas``."""
    if value is None:
        return []
    if not isinstance(value, (list, tuple)) or len(value) > len(s.lr_lambdas):
        raise InvalidParameterError(
            f"{op}: {name} must be a list of at most {len(s.lr_lambdas)} entries (None or a "
            f"dict), one per function, got {value!r}", name, type(value).__name__)
    for i, (fn, attrs) in enumerate(zip(s.lr_lambdas, value)):
        if attrs is None:
            continue
        if not isinstance(attrs, dict) or not all(isinstance(k, str) for k in attrs):
            raise InvalidParameterError(f"{op}: {name}[{i}] is {attrs!r}; expected None or "
                                        "a dict of attribute names to values", name, i)
        if not isinstance(getattr(fn, "__dict__", None), dict):
            raise InvalidParameterError(
                f"{op}: {name}[{i}] holds attributes, but lr_lambda[{i}] "
                f"({type(fn).__name__}) has no __dict__ to take them", name, i)
    return [None if attrs is None else dict(attrs) for attrs in value]


def _sub_states(op, name, value, s):
    """The saved states of SequentialLR's (or ChainedScheduler's) schedulers: each state
    checked by its scheduler."""
    if not isinstance(value, (list, tuple)) or len(value) != len(s._schedulers):
        raise InvalidParameterError(
            f"{op}: state_dict must hold {len(s._schedulers)} scheduler states under "
            f"'{name}'", "state_dict", type(value).__name__)
    return [sub._checked_state(sd) for sub, sd in zip(s._schedulers, value)]


# the fields every scheduler made through LRScheduler.__init__ keeps
_BASE_FIELDS = {"base_lrs": _rates_field(low=0.0), "last_epoch": _int_field(-1),
                "_step_count": _int_field(0), "_is_initial": _flag_field,
                "_last_lr": _rates_field()}
# PyTorch keys that mean nothing here: loading a state that has them ignores them
_IGNORED = ("_get_lr_called_within_step", "verbose")


class LRScheduler:
    """Base class of the schedulers: ``step()``, ``get_last_lr()``, ``state_dict()``.

    Subclasses implement ``get_lr()``, the rates for the current ``last_epoch``; one whose
    ``step`` needs a metric sets ``steps_on_metric = True``.
    """

    steps_on_metric = False

    _name = "LRScheduler"
    # the saved fields load_state_dict takes, name -> checker (see _BASE_FIELDS)
    _fields = _BASE_FIELDS

    def __init__(self, optimizer, last_epoch=-1):
        op = self._name
        _check_optimizer(op, optimizer)
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
        self._initial_step()

    def _initial_step(self):
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
        self._update_lr()

    def _update_lr(self, epoch=None):
        """Set the rates of the next epoch, or (SequentialLR's restart) of ``epoch``, from the
        closed form where the schedule has one."""
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
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
        return {k: _copy(v) for k, v in self.__dict__.items() if k != "optimizer"}

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
        self._restore(self._checked_state(state_dict))

    def _checked_state(self, state_dict):
        """The fields to restore from ``state_dict``, every one checked (a field it lacks keeps
        its value, as in PyTorch); nothing changes here. A field of a user's subclass, one this
        scheduler has that ``_fields`` does not list, is taken as it is, as PyTorch takes it."""
        op = f"{self._name}.load_state_dict"
        if not isinstance(state_dict, dict):
            raise InvalidParameterError(f"{op}: state_dict must be a dict, got "
                                        f"{type(state_dict).__name__}", "state_dict",
                                        type(state_dict).__name__)
        fields = self._fields
        out = {}
        for key, value in state_dict.items():
            if key in _IGNORED:
                continue
            check = fields.get(key)
            if check is not None:
                out[key] = check(op, key, _copy(value), self)
            elif key in self.__dict__ and key != "optimizer":
                out[key] = _copy(value)
            else:
                known = sorted(set(fields) | set(self.__dict__) - {"optimizer"})
                raise InvalidParameterError(
                    f"{op}: state_dict has a field {key!r}, which {type(self).__name__} does "
                    f"not keep; expected fields among {known}", "state_dict", key)
        self._check_fields(op, {**self.__dict__, **out})
        return out

    def _check_fields(self, op, fields):
        """Checks across the ``fields`` a load would leave (schedulers that need them)."""

    def _restore(self, fields):
        """Set the checked ``fields``."""
        self.__dict__.update(fields)

    def __repr__(self):
        return f"{type(self).__name__}(last_epoch={self.last_epoch}, lr={self.get_last_lr()})"


class SchedulerGroup(LRScheduler):
    """A scheduler made of other schedulers of one optimizer (``self._schedulers``), whose
    state holds each one's ``state_dict()`` under ``"_schedulers"``: SequentialLR and
    ChainedScheduler."""

    def state_dict(self):
        """The state, with each scheduler's ``state_dict()`` under ``"_schedulers"``.

        >>> import ember
        >>> from ember.optim import SGD, LinearLR, ExponentialLR, SequentialLR
        >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
        >>> s = SequentialLR(opt, [LinearLR(opt), ExponentialLR(opt, 0.9)], milestones=[5])
        >>> sorted(s.state_dict()), len(s.state_dict()["_schedulers"])
        (['_last_lr', '_milestones', '_schedulers', 'last_epoch'], 2)
        """
        out = {k: _copy(v) for k, v in self.__dict__.items()
               if k not in ("optimizer", "_schedulers")}
        out["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return out

    def load_state_dict(self, state_dict):
        """Restore a state from ``state_dict()``, each scheduler's included (all checked
        before any changes)."""
        op = f"{self._name}.load_state_dict"
        if isinstance(state_dict, dict) and "_schedulers" not in state_dict:
            raise InvalidParameterError(
                f"{op}: state_dict must hold {len(self._schedulers)} scheduler states under "
                "'_schedulers'", "state_dict", "_schedulers")
        super().load_state_dict(state_dict)

    def _restore(self, fields):
        saved = fields.pop("_schedulers")
        super()._restore(fields)
        for s, checked in zip(self._schedulers, saved):
            s._restore(checked)


def _lambdas(op, optimizer, lr_lambda):
    """``lr_lambda`` (a function, or one per parameter group) as a list, one per group."""
    _check_optimizer(op, optimizer)
    n = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != n:
            raise InvalidParameterError(f"{op}: lr_lambda has {len(lr_lambda)} functions; "
                                        f"expected one per parameter group ({n})", "lr_lambda",
                                        lr_lambda)
        fns = list(lr_lambda)
    else:
        fns = [lr_lambda] * n
    for i, fn in enumerate(fns):
        if not callable(fn):
            raise InvalidParameterError(f"{op}: lr_lambda[{i}] is a {type(fn).__name__}; "
                                        "expected a function of the epoch", "lr_lambda", fn)
    return fns


def _factor(op, fn, epoch):
    value = fn(epoch)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{op}: lr_lambda({epoch}) returned a "
                                    f"{type(value).__name__}; expected a number", "lr_lambda",
                                    value)
    return value


def _callable_state(fn):
    """What a state_dict keeps of a user's function: None, or a callable object's attributes."""
    if isinstance(fn, types.FunctionType) or not hasattr(fn, "__dict__"):
        return None
    return dict(fn.__dict__)


class LambdaScheduler(LRScheduler):
    """A scheduler driven by user functions of the epoch (``lr_lambda``: one, or one per
    parameter group): LambdaLR and MultiplicativeLR. ``state_dict()`` holds None for a function
    and a copy of a callable object's ``__dict__``, as PyTorch's."""

    _fields = {**_BASE_FIELDS, "lr_lambdas": _lambda_states}

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = _lambdas(self._name, optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        """The scheduler's state; for each ``lr_lambda``, None (a function) or a copy of the
        callable object's ``__dict__``.

        >>> import ember
        >>> from ember.optim import SGD, LambdaLR
        >>> opt = SGD([ember.ones(1).require_grad()], lr=1.0)
        >>> LambdaLR(opt, lambda epoch: 0.5).state_dict()["lr_lambdas"]
        [None]
        """
        out = {k: _copy(v) for k, v in self.__dict__.items()
               if k not in ("optimizer", "lr_lambdas")}
        out["lr_lambdas"] = [_callable_state(fn) for fn in self.lr_lambdas]
        return out

    def _restore(self, fields):
        saved = fields.pop("lr_lambdas", [])
        super()._restore(fields)
        for fn, attrs in zip(self.lr_lambdas, saved):
            if attrs is not None:
                fn.__dict__.update(attrs)
