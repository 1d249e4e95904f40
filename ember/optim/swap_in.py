"""``swap_in_optimizer_params_and_state``: run an optimizer, for the length of a ``with`` block,
on other parameters and another state, as ``torch.optim.swap_in_optimizer_params_and_state``."""

import contextlib

from ..autodiff import no_grad
from ..errors import InvalidParameterError, ShapeMismatchError
from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["swap_in_optimizer_params_and_state"]

_OP = "swap_in_optimizer_params_and_state"


def _swapped_groups(optimizer, swapin_parameters):
    if not isinstance(swapin_parameters, dict):
        raise InvalidParameterError(f"{_OP}: swapin_parameters must be a dict of name -> tensor "
                                    f"(as model.named_parameters() gives), got "
                                    f"{type(swapin_parameters).__name__}", "swapin_parameters",
                                    type(swapin_parameters).__name__)
    new = list(swapin_parameters.values())
    old = [p for g in optimizer.param_groups for p in g["params"]]
    if len(new) != len(old):
        raise InvalidParameterError(
            f"{_OP}: swapin_parameters has {len(new)} tensors, the optimizer {len(old)}; "
            "expected one per parameter, in the optimizer's order", "swapin_parameters",
            len(new))
    for i, (name, p) in enumerate(swapin_parameters.items()):
        if not isinstance(p, Tensor):
            raise InvalidParameterError(f"{_OP}: swapin_parameters[{name!r}] is a "
                                        f"{type(p).__name__}; expected a Tensor",
                                        "swapin_parameters", name)
        if p.shape != old[i].shape:
            raise ShapeMismatchError(
                f"{_OP}: swapin_parameters[{name!r}] has shape {tuple(p.shape)}; the "
                f"optimizer's parameter {i} has {tuple(old[i].shape)}",
                expected=tuple(old[i].shape), actual=tuple(p.shape))
    groups, start = [], 0
    for g in optimizer.param_groups:
        n = len(g["params"])
        groups.append(dict(g, params=new[start:start + n]))
        start += n
    return groups


def _write_back(optimizer, saved):
    """Give the tensors of the user's ``saved`` state the values the optimizer's state now has
    (PyTorch's steps edit them in place); other entries are left as they are."""
    now = optimizer.state_dict()["state"]
    with no_grad():
        for index, entry in saved.get("state", {}).items():
            for key, old in entry.items():
                new = now.get(index, {}).get(key)
                if not isinstance(old, Tensor) or new is None:
                    continue
                if isinstance(new, Tensor):
                    old.copy_(new)
                elif old.ndim == 0:
                    old.fill_(new)


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Within the ``with`` block, ``optimizer`` works on ``swapin_parameters`` (a dict of name
    -> tensor, one per parameter in the optimizer's order) with the state and group
    hyper-parameters of ``swapin_optim_state`` (shaped as ``optimizer.state_dict()``); at the
    end its own parameters, groups and state are back.

    A ``step()`` inside updates the swapped-in tensors, and the tensors of
    ``swapin_optim_state["state"]`` are given the state's new values (PyTorch's step edits
    them in place); nothing else of the block reaches the caller's dict. The state is checked
    as ``load_state_dict`` checks it, before anything changes.

    >>> import ember
    >>> from ember.optim import SGD, swap_in_optimizer_params_and_state
    >>> w = ember.tensor([1.0]).require_grad()
    >>> opt = SGD([w], lr=0.5)
    >>> other = ember.tensor([4.0]).require_grad()
    >>> other.grad = ember.tensor([2.0])
    >>> with swap_in_optimizer_params_and_state(opt, {"w": other}, opt.state_dict()):
    ...     _ = opt.step()
    >>> other.tolist(), w.tolist(), opt.param_groups[0]["params"][0] is w
    ([3.0], [1.0], True)
    """
    if not isinstance(optimizer, Optimizer):
        raise InvalidParameterError(f"{_OP}: optimizer must be an ember.optim optimizer, got "
                                    f"{type(optimizer).__name__}", "optimizer",
                                    type(optimizer).__name__)
    if not isinstance(swapin_optim_state, dict):
        raise InvalidParameterError(f"{_OP}: swapin_optim_state must be a dict shaped as "
                                    "optimizer.state_dict()", "swapin_optim_state",
                                    type(swapin_optim_state).__name__)
    groups = _swapped_groups(optimizer, swapin_parameters)
    live = (optimizer.param_groups, optimizer._state, optimizer._where)
    optimizer.param_groups, optimizer._state, optimizer._where = groups, {}, {}
    installed = False
    try:
        optimizer.load_state_dict(swapin_optim_state)
        installed = True
        yield
    finally:
        try:
            if installed:
                _write_back(optimizer, swapin_optim_state)
        finally:
            optimizer.param_groups, optimizer._state, optimizer._where = live
