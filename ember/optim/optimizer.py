"""The base class of ember's optimizers: parameter groups, state, zero_grad, state_dict.

An optimizer holds leaf float tensors; as in PyTorch, a frozen one (no require-grad, so never a
``.grad``) may be among them and is left as it is, so ``SGD(model.parameters())`` works on a
partly frozen model. ``step()`` computes each parameter's
new value on backend arrays (no autodiff recording) and *rebinds* the tensor object to it: the
tensor keeps its identity, leaf node, dtype and require-grad flag, while every other tensor,
such as a view taken before the step, keeps the values it had (tensors are immutable values).
The new value is always a new array, never written into the parameter's old buffer, even
when a reference count shows that buffer unshared (``Tensor.can_mut``): another thread may take
a view of the parameter between that check and the write, and the write would save nothing,
since the update computes into a temporary of the parameter's size anyway.
"""

import math
import numbers

from .. import dtypes as _dt
from ..autodiff import enable_grad
from ..errors import DeviceError, InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor, _adopt_device, transfer, wrap

__all__ = ["Optimizer"]


def _check_betas(op, betas):
    """Adam's ``betas``: a pair of numbers in [0, 1), as a tuple."""
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise InvalidParameterError(f"{op}: betas is {betas!r}; expected a pair (beta1, "
                                    "beta2) of numbers in [0, 1)", "betas", betas)
    return tuple(_check_number(op, "betas", b, low=0.0, high=1.0, high_open=True,
                               text=f"numbers in [0, 1) (betas[{i}] is {b!r})")
                 for i, b in enumerate(betas))


def _check_number(op, name, value, low=None, high=None, low_open=False, high_open=False,
                 text=None):
    """``value`` as a Python float; InvalidParameterError unless it is a finite real number in
    the interval given by ``low``/``high`` (closed unless ``*_open``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{op}: {name} must be a number, got {type(value).__name__} {value!r}", name, value)
    x = float(value)
    bad = not math.isfinite(x)
    if low is not None and (x < low or low_open and x == low):
        bad = True
    if high is not None and (x > high or high_open and x == high):
        bad = True
    if bad:
        if text is None:
            lo = "" if low is None else ("(" if low_open else "[") + repr(low)
            hi = "" if high is None else repr(high) + (")" if high_open else "]")
            if low is not None and high is not None:
                text = f"a number in {lo}, {hi}"
            elif low is not None:
                text = f"a finite number {'>' if low_open else '>='} {low!r}"
            else:
                text = "a finite number"
        raise InvalidParameterError(f"{op}: {name} is {value!r}; expected {text}", name, value)
    return x


def _check_flag(op, name, value):
    """``value`` itself; InvalidParameterError unless it is a bool."""
    if not isinstance(value, bool):
        raise InvalidParameterError(
            f"{op}: {name} must be a bool (True or False), got {value!r}", name, value)
    return value


class Optimizer:
    """Base class of the optimizers: parameter groups, per-parameter state, ``zero_grad``,
    ``step``, ``state_dict`` and ``load_state_dict``, as PyTorch's ``torch.optim.Optimizer``.

    ``params`` is an iterable of tensors, or of dicts each with a ``"params"`` entry and its own
    hyper-parameters (a parameter group); the ``defaults`` fill what a group leaves out.
    Subclasses implement ``_check_group(group)`` and ``_update(group)``.

    >>> import ember
    >>> from ember.optim import SGD
    >>> w = ember.tensor([1.0, 2.0]).require_grad()
    >>> opt = SGD([w], lr=0.5)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()
    >>> w.tolist()
    [0.0, 0.0]
    """

    _name = "Optimizer"

    def __init__(self, params, defaults):
        self.defaults = dict(defaults)
        self.param_groups = []
        self._state = {}
        self._where = {}  # id(p) -> the device its state was last checked on
        if isinstance(params, Tensor):
            raise InvalidParameterError(
                f"{self._name}: params must be an iterable of tensors or of dicts (parameter "
                "groups), got a single Tensor; wrap it in a list: [t]", "params", params)
        if isinstance(params, dict):
            params = [params]
        try:
            groups = list(params)
        except TypeError:
            raise InvalidParameterError(
                f"{self._name}: params must be an iterable of tensors or of dicts (parameter "
                f"groups), got {type(params).__name__}", "params", params) from None
        if not groups:
            raise InvalidParameterError(f"{self._name}: params is empty; expected at least one "
                                        "tensor to optimize", "params", params)
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    # -- groups -----------------------------------------------------------------------------
    def add_param_group(self, param_group):
        """Add a parameter group: a dict with ``"params"`` (a tensor or a list of them) and any
        hyper-parameters that differ from the optimizer's defaults.

        >>> import ember
        >>> from ember.optim import SGD
        >>> a, b = ember.ones(2).require_grad(), ember.ones(3).require_grad()
        >>> opt = SGD([a], lr=0.1)
        >>> opt.add_param_group({"params": [b], "lr": 0.01})
        >>> [g["lr"] for g in opt.param_groups]
        [0.1, 0.01]
        """
        op = self._name
        if not isinstance(param_group, dict):
            raise InvalidParameterError(
                f"{op}: a parameter group must be a dict with a 'params' entry, got "
                f"{type(param_group).__name__}", "param_group", param_group)
        if "params" not in param_group:
            raise InvalidParameterError(f"{op}: parameter group {param_group!r} has no 'params' "
                                        "entry", "param_group", param_group)
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise InvalidParameterError(f"{op}: a group's params must be an ordered sequence; a "
                                        "set has no stable order", "params", params)
        else:
            try:
                params = list(params)
            except TypeError:
                raise InvalidParameterError(
                    f"{op}: a group's params must be a tensor or a list of them, got "
                    f"{type(params).__name__}", "params", params) from None
        gi = len(self.param_groups)
        if not params:
            raise InvalidParameterError(f"{op}: parameter group {gi} has no tensors; expected "
                                        "at least one", "params", params)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        mine = set()
        for i, p in enumerate(params):
            _check_param(op, p, f"parameter {i} of group {gi}")
            if id(p) in seen or id(p) in mine:
                raise InvalidParameterError(
                    f"{op}: parameter {i} of group {gi} (shape {p.shape}) appears more than once "
                    "in the optimizer's groups; expected each tensor once", "params", params)
            mine.add(id(p))
        group = dict(self.defaults)
        for key, value in param_group.items():
            if key != "params":
                group[key] = value
        self._check_group(group)
        group["params"] = params
        self.param_groups.append(group)

    def _check_group(self, group):  # pragma: no cover - subclasses override
        pass

    # -- lr ---------------------------------------------------------------------------------
    @property
    def lr(self):
        """The learning rate shared by every group; setting it sets every group's.

        With groups of different learning rates read ``param_groups[i]["lr"]`` instead.

        >>> import ember
        >>> from ember.optim import SGD
        >>> opt = SGD([ember.ones(1).require_grad()], lr=0.1)
        >>> opt.lr = 0.05
        >>> opt.lr, opt.param_groups[0]["lr"]
        (0.05, 0.05)
        """
        values = [g["lr"] for g in self.param_groups]
        if any(v != values[0] for v in values):
            raise InvalidParameterError(
                f"{self._name}.lr: the parameter groups have different learning rates {values}; "
                "read param_groups[i]['lr'] instead", "lr", values)
        return values[0]

    @lr.setter
    def lr(self, value):
        value = _check_number(f"{self._name}.lr", "lr", value, low=0.0)
        for g in self.param_groups:
            g["lr"] = value

    # -- state ------------------------------------------------------------------------------
    @property
    def state(self):
        """Per-parameter state (a copy): ``{param: {name: value}}``, tensors for buffers.

        >>> import ember
        >>> from ember.optim import Adam
        >>> w = ember.ones(2).require_grad()
        >>> opt = Adam([w])
        >>> w.grad = ember.ones(2)
        >>> _ = opt.step()
        >>> sorted(opt.state[w]), opt.state[w]["step"]
        (['exp_avg', 'exp_avg_sq', 'step'], 1)
        """
        return {p: _export_state(s, p) for g in self.param_groups for p in g["params"]
                for s in (self._state.get(id(p)),) if s is not None}

    def zero_grad(self, set_to_none=True):
        """Clear the gradients of every parameter (set ``.grad`` to None, or to zeros when
        ``set_to_none=False``), before the next backward.

        >>> import ember
        >>> from ember.optim import SGD
        >>> w = ember.ones(2).require_grad()
        >>> opt = SGD([w], lr=0.1)
        >>> _ = (w * 3).sum().backward()
        >>> opt.zero_grad()
        >>> w.grad is None
        True
        """
        _check_flag(f"{self._name}.zero_grad", "set_to_none", set_to_none)
        for g in self.param_groups:
            for p in g["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad = wrap(p._device.backend.optim_zeros(p._data), p._dtype)

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss (or None).

        ``closure``, when given, re-evaluates the model and returns the loss; it runs with
        gradient recording on, before the update. Parameters whose ``.grad`` is None are left
        as they are.

        >>> import ember
        >>> from ember.optim import SGD
        >>> w = ember.tensor([1.0, 2.0]).require_grad()
        >>> opt = SGD([w], lr=0.25)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (w * w).sum()
        ...     _ = loss.backward()
        ...     return loss
        >>> opt.step(closure).item(), w.tolist()
        (5.0, [0.5, 1.0])
        """
        loss = None
        if closure is not None:
            if not callable(closure):
                raise InvalidParameterError(
                    f"{self._name}.step: closure must be callable, got {type(closure).__name__}",
                    "closure", closure)
            with enable_grad():
                loss = closure()
        work = []  # every gradient is checked before any parameter changes
        for gi, group in enumerate(self.param_groups):
            params = group["params"]
            grads = []
            for i, p in enumerate(params):
                g = p.grad
                if g is None:
                    grads.append(None)
                    continue
                if not isinstance(g, Tensor):
                    raise InvalidParameterError(
                        f"{self._name}.step: the .grad of parameter {i} of group {gi} is a "
                        f"{type(g).__name__}; expected a Tensor or None", "grad", g)
                if g.shape != p.shape:
                    raise ShapeMismatchError(
                        f"{self._name}.step: the .grad of parameter {i} of group {gi} has shape "
                        f"{tuple(g.shape)}, expected {tuple(p.shape)}", expected=tuple(p.shape),
                        actual=tuple(g.shape))
                device = p._device
                if g._device is not device:
                    raise DeviceError(
                        f"{self._name}.step: the .grad of parameter {i} of group {gi} is on "
                        f"{g._device}, the parameter on {device}; expected both on one device "
                        "(a step never moves a parameter)", (device, g._device))
                if self._where.get(id(p)) is not device:
                    self._follow(p, device)
                grads.append(g._data)
            work.append((group, params, grads))
        for group, params, grads in work:
            self._update(group, params, grads)
        return loss

    def _follow(self, p, device):
        """Move the state of ``p`` to its device (after the module moved, as Burn's optimizers
        do at each step); the state is created on the parameter's device otherwise."""
        st = self._state.get(id(p))
        if st:
            for k, v in st.items():
                if v is None or isinstance(v, (int, float)):
                    continue
                src = _adopt_device(v)
                if src is not device:
                    st[k] = transfer(v, src.backend.dtype_of(v), src, device)
        self._where[id(p)] = device

    def _state_of(self, p, **buffers):
        """The state of parameter ``p``, made on its first step: ``step`` 0, each of
        ``buffers`` set to its value, where True means a zero buffer like ``p`` (in the
        backend's optimizer dtype)."""
        st = self._state.get(id(p))
        if st is None:
            zeros = p._device.backend.optim_zeros
            st = self._state[id(p)] = {"step": 0}
            for name, value in buffers.items():
                st[name] = zeros(p._data) if value is True else value
        return st

    def _update(self, group, params, grads):
        """Apply one step to ``params`` (backend arrays of ``grads``); each optimizer defines it."""
        raise NotImplementedError(f"{type(self).__name__}: an Optimizer subclass must define "
                                  "_update(group, params, grads)")

    # -- state_dict -------------------------------------------------------------------------
    def state_dict(self):
        """The optimizer's state as PyTorch lays it out: ``{"state": {index: {...}},
        "param_groups": [{hyper-parameters..., "params": [index, ...]}]}``, parameters numbered
        in group order; buffers are copies (ember tensors), so later steps do not change it.

        >>> import ember
        >>> from ember.optim import SGD
        >>> opt = SGD([ember.ones(2).require_grad()], lr=0.1, momentum=0.9)
        >>> sd = opt.state_dict()
        >>> sd["param_groups"][0]["params"], sd["param_groups"][0]["momentum"]
        ([0], 0.9)
        """
        index = 0
        groups, state = [], {}
        for group in self.param_groups:
            entry = {k: _copy_value(v) for k, v in group.items() if k != "params"}
            ids = []
            for p in group["params"]:
                s = self._state.get(id(p))
                if s is not None:
                    state[index] = _export_state(s, p)
                ids.append(index)
                index += 1
            entry["params"] = ids
            groups.append(entry)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore the state saved by ``state_dict()`` (of an optimizer of the same kind over
        parameters of the same shapes, in the same groups); the buffers are copied in.

        Every entry is checked before anything changes: the groups' hyper-parameters as the
        constructor checks them, each state's entries against what this optimizer keeps (a
        buffer is a float tensor of its parameter's shape, cast to its dtype and moved to its
        device; ``step`` an int >= 0). An empty or absent state starts afresh, as PyTorch's;
        a state that lacks a buffer PyTorch would need at the next step is refused.

        >>> import ember
        >>> from ember.optim import SGD
        >>> w = ember.ones(2).require_grad()
        >>> a = SGD([w], lr=0.1)
        >>> b = SGD([w], lr=0.5)
        >>> b.load_state_dict(a.state_dict())
        >>> b.lr
        0.1
        """
        op = f"{self._name}.load_state_dict"
        if not isinstance(state_dict, dict) or "state" not in state_dict or \
                "param_groups" not in state_dict:
            raise InvalidParameterError(
                f"{op}: state_dict must be a dict with 'state' and 'param_groups' entries, as "
                "state_dict() returns", "state_dict", type(state_dict).__name__)
        groups, state = state_dict["param_groups"], state_dict["state"]
        if not isinstance(groups, (list, tuple)) or not isinstance(state, dict):
            raise InvalidParameterError(f"{op}: 'param_groups' must be a list and 'state' a "
                                        "dict", "state_dict", type(state_dict).__name__)
        if len(groups) != len(self.param_groups):
            raise InvalidParameterError(
                f"{op}: state_dict has {len(groups)} parameter groups, this optimizer "
                f"{len(self.param_groups)}", "state_dict", len(groups))
        new_groups, by_index = [], {}
        index = 0
        for gi, (saved, mine) in enumerate(zip(groups, self.param_groups)):
            if not isinstance(saved, dict) or "params" not in saved:
                raise InvalidParameterError(f"{op}: parameter group {gi} is not a dict with "
                                            "'params'", "state_dict", gi)
            ids = _saved_params(op, gi, saved["params"], by_index)
            if len(ids) != len(mine["params"]):
                raise InvalidParameterError(
                    f"{op}: parameter group {gi} has {len(ids)} parameters in "
                    f"state_dict, {len(mine['params'])} here", "state_dict", gi)
            group = {k: _copy_value(v) for k, v in saved.items() if k != "params"}
            for key in self.defaults:
                group.setdefault(key, mine[key])
            self._check_group(group)
            for key in _SCHEDULE_KEYS:
                if key in group:
                    group[key] = _check_number(op, f"{key} of parameter group {gi}", group[key],
                                               low=0.0)
            group["params"] = mine["params"]
            new_groups.append(group)
            for saved_index, p in zip(ids, mine["params"]):
                by_index[saved_index] = (p, index, group)
                index += 1
        new_state = {}
        for key, entry in state.items():
            if key not in by_index:
                raise InvalidParameterError(f"{op}: state for parameter {key!r}, which no group "
                                            "lists", "state_dict", key)
            p, i, group = by_index[key]
            st = self._import_state(op, i, p, entry, group)
            if st is not None:
                new_state[id(p)] = st
        for p, _, group in by_index.values():
            if id(p) not in new_state:
                st = self._initial_state(group, p)
                if st is not None:
                    new_state[id(p)] = st
        self.param_groups[:] = new_groups
        self._state = new_state
        self._where = {}

    # What a parameter's state may hold, checked by load_state_dict: name -> (kind, needed).
    # kind: "step" (a count, an int >= 0), "buffer" (a float tensor of the parameter's shape)
    # or "fraction" (a float in [0, 1]). needed: True where a non-empty state must hold it
    # (PyTorch's optimizer reads it without making it), the name of the group hyper-parameter
    # that makes it needed when nonzero or True, or False (a missing one, or None, is made at
    # the next step). Each optimizer describes its own; None (a user's subclass that does not):
    # every tensor is checked as a buffer, and None, ints and floats are taken as they are.
    _state_spec = None

    def _initial_state(self, group, p):
        """The state of ``p`` before its first step, or None where the first step makes it."""
        return None

    def _import_state(self, op, index, p, entry, group):
        """The checked copy of ``entry``, the saved state of parameter ``index`` (``p``), or None
        for an empty one (it starts afresh, as in PyTorch)."""
        where = f"state of parameter {index}"
        if not isinstance(entry, dict):
            raise InvalidParameterError(f"{op}: {where} must be a dict, got "
                                        f"{type(entry).__name__}", "state_dict", index)
        if not entry:
            return None
        spec = self._state_spec
        if spec is None:
            return {name: _import_loose(op, f"{where}: {name!r}", p, value)
                    for name, value in entry.items()}
        for name in entry:
            if name not in spec:
                raise InvalidParameterError(
                    f"{op}: {where} has an entry {name!r}, which {self._name} does not keep; "
                    f"expected entries among {sorted(spec)}", "state_dict", name)
        needed = [n for n, (_, need) in spec.items()
                  if need is True or isinstance(need, str) and group[need]]
        missing = [n for n in needed if entry.get(n) is None]
        if missing:
            raise InvalidParameterError(
                f"{op}: {where} lacks {missing}; a saved state of this group holds "
                f"{needed} (an empty state starts afresh)", "state_dict", missing)
        out = {}
        for name, value in entry.items():
            kind = spec[name][0]
            what = f"{where}: {name!r}"
            if kind == "buffer":
                out[name] = None if value is None else _import_buffer(op, what, p, value)
            elif kind == "step":
                out[name] = _check_count(op, what, saved_scalar(value))
            else:
                out[name] = _check_number(op, what, saved_scalar(value), low=0.0, high=1.0)
        return out

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)


# the keys the schedulers keep in a parameter group (checked when a state_dict is loaded)
_SCHEDULE_KEYS = ("initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum")
_MAX_STEP = 2 ** 63 - 1


def _saved_params(op, gi, ids, seen):
    """The parameter indices of saved group ``gi``: ints, none seen in an earlier group."""
    if not isinstance(ids, (list, tuple)):
        raise InvalidParameterError(f"{op}: 'params' of parameter group {gi} must be a list of "
                                    f"parameter indices, got {type(ids).__name__}", "state_dict",
                                    gi)
    out = []
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, numbers.Integral):
            raise InvalidParameterError(
                f"{op}: 'params' of parameter group {gi} holds {i!r}; expected parameter "
                "indices (ints)", "state_dict", gi)
        i = int(i)
        if i in seen or i in out:
            raise InvalidParameterError(
                f"{op}: parameter index {i} appears more than once in the parameter groups; "
                "expected each once", "state_dict", i)
        out.append(i)
    return out


def saved_scalar(value):
    """A saved state's scalar entry as a number: PyTorch keeps ``step`` (and NAdam's
    ``mu_product``, ASGD's ``eta`` and ``mu``) as 0-d tensors, which a checkpoint written by
    PyTorch and read by ``ember.torch.load`` holds; any other value is returned as it is."""
    if isinstance(value, Tensor) and value.ndim == 0 and value.kind in ("int", "float"):
        return value.item()
    return value


def _check_count(op, what, value):
    """A saved step count as an int; InvalidParameterError unless it is an int (or an integral
    float, as PyTorch's float step) in [0, 2**63)."""
    n = None
    if isinstance(value, bool):
        pass
    elif isinstance(value, numbers.Integral):
        n = int(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        n = int(value)
    if n is None or not 0 <= n <= _MAX_STEP:
        raise InvalidParameterError(f"{op}: {what} is {value!r}; expected a step count, an int "
                                    "in [0, 2**63)", "state_dict", value)
    return n


def _import_loose(op, what, p, value):
    """A saved state entry of an optimizer that does not describe its state."""
    if value is None or isinstance(value, (int, float)):
        return value
    return _import_buffer(op, what, p, value)


def _import_buffer(op, what, p, value):
    """A fresh copy of saved buffer ``value`` on ``p``'s device, in ``p``'s dtype."""
    if not isinstance(value, Tensor):
        raise InvalidParameterError(f"{op}: {what} is a {type(value).__name__}; expected a "
                                    f"Tensor of shape {tuple(p.shape)}", "state_dict", what)
    if value.shape != p.shape:
        raise ShapeMismatchError(
            f"{op}: {what} has shape {tuple(value.shape)}, expected {tuple(p.shape)}",
            expected=tuple(p.shape), actual=tuple(value.shape))
    if value.kind != "float":
        if value.kind == "complex":
            raise _dt.complex_error(op, what, value.dtype)
        raise KindError(f"{op}: {what} is {value.dtype.name}; expected a float tensor")
    v = value._data
    if value._device is not p._device:
        v = transfer(v, value._dtype, value._device, p._device)
    return p._device.backend.optim_state_copy(v, p._data)


def _check_param(op, p, what):
    if not isinstance(p, Tensor):
        raise InvalidParameterError(f"{op}: {what} is a {type(p).__name__}; expected a Tensor "
                                    "(a float leaf tensor)", "params", p)
    if p.kind != "float":
        if p.kind == "complex":  # docs/complex.md: optimizers take real tensors only
            raise _dt.complex_error(op, what, p.dtype)
        raise KindError(f"{op}: {what} has dtype {p.dtype.name}; only float tensors can be "
                        "optimized")
    if not p.is_leaf:
        raise InvalidParameterError(f"{op}: {what} (shape {p.shape}) is not a leaf (an op "
                                    "produced it); optimize the leaf tensors, or detach() it and "
                                    "require_grad()", "params", p)


def _copy_value(v):
    if isinstance(v, list):
        return list(v)
    return v


def _export_state(s, p):
    out = {}
    be = p._device.backend
    for k, v in s.items():
        if v is not None and not isinstance(v, (int, float)):
            if _adopt_device(v) is not p._device:  # the module moved since the last step
                src = _adopt_device(v)
                v = transfer(v, src.backend.dtype_of(v), src, p._device)
            v = wrap(be.optim_state_copy(v), be.dtype_of(v))
        out[k] = v
    return out
