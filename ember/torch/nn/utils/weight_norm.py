"""``torch.nn.utils.weight_norm`` / ``remove_weight_norm``, PyTorch's hook-based weight
normalization: the parameter ``name`` becomes two, ``name_g`` (its norm over every dim except
``dim``) and ``name_v`` (its direction), and a forward pre-hook recomputes
``name = name_v * (name_g / ||name_v||)`` before each call, so gradients reach both.

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> m = nn.utils.weight_norm(nn.Linear(3, 2))
>>> list(m.state_dict()), tuple(m.weight_g.shape)
(['bias', 'weight_g', 'weight_v'], (2, 1))
>>> list(nn.utils.remove_weight_norm(m).state_dict())
['bias', 'weight']
"""

from ....autodiff.graph import no_grad
from ....errors import GraphError, InvalidParameterError, KindError
from ....ops.norms import vector_norm
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


def norm_except_dim(v, pow=2, dim=0):  # noqa: A002  (PyTorch's name)
    """The ``pow``-norm of ``v`` over every dim except ``dim``, kept as size-1 dims; ``dim=-1``
    (PyTorch's convention here): the norm of the whole tensor, 0-d.

    >>> import ember.torch as torch
    >>> from ember.torch.nn.utils.weight_norm import norm_except_dim
    >>> norm_except_dim(torch.tensor([[3.0, 4.0], [0.0, 1.0]]), 2, 0).tolist()
    [[5.0], [1.0]]
    """
    if dim == -1:
        return vector_norm(v, pow)
    dims = tuple(d for d in range(v.ndim) if d != dim % v.ndim)
    return vector_norm(v, pow, dim=dims, keepdim=True)


class WeightNorm:
    """The forward pre-hook of ``weight_norm`` (one per normalized parameter): ``name`` and
    ``dim``; ``compute_weight(module)`` gives the weight from ``name_g`` and ``name_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        """``name_v * (name_g / norm_except_dim(name_v))``, recorded in the graph."""
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / norm_except_dim(v, 2, self.dim))

    @staticmethod
    def apply(module, name, dim):
        """Normalize ``module``'s parameter ``name`` (see ``weight_norm``); returns the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise GraphError(f"Cannot register two weight_norm hooks on the same parameter "
                                 f"{name}")
        params = module.__dict__.get("_parameters", {})
        weight = params.get(name)
        if weight is None:
            raise InvalidParameterError(f"weight_norm: module {type(module).__name__} has no "
                                        f"parameter {name!r}", "name", name)
        if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)
                                or not -weight.ndim <= dim < max(weight.ndim, 1)):
            raise InvalidParameterError(f"weight_norm: dim {dim!r} is out of range for a "
                                        f"{weight.ndim}-D parameter", "dim", dim)
        fn = WeightNorm(name, dim)
        if fn.dim < -1:  # (-1 is the whole tensor, as PyTorch's)
            fn.dim += weight.ndim
        del module._parameters[name]
        with no_grad():
            g = norm_except_dim(weight, 2, fn.dim)
        module.register_parameter(name + "_g", Parameter(g))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        """Fold ``name_g`` and ``name_v`` back into the Parameter ``name``."""
        with no_grad():
            weight = self.compute_weight(module)
        object.__delattr__(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def _check_module(module, op):
    from ..module import Module
    if not isinstance(module, Module):
        raise KindError(f"{op}: module must be an ember.torch.nn.Module, got "
                        f"{type(module).__name__}")


def weight_norm(module, name="weight", dim=0):
    """Reparameterize ``module``'s parameter ``name`` as magnitude ``name_g`` (the norm over
    every dim but ``dim``; ``dim=None`` or -1: the whole tensor's norm) times direction
    ``name_v``, recomputed by a forward pre-hook (see the module docstring); returns
    ``module``. A second one on the same parameter raises GraphError.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> m = nn.utils.weight_norm(nn.Linear(2, 2), dim=None)
    >>> m.weight_g.shape, bool(torch.allclose(m.weight_g, m.weight_v.norm()))
    (torch.Size([]), True)
    """
    _check_module(module, "weight_norm")
    if not isinstance(name, str):
        raise KindError(f"weight_norm: name must be a str, got {type(name).__name__}")
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo ``weight_norm``: the parameter ``name`` holds the current normalized weight again
    (a new leaf Parameter), ``name_g``, ``name_v`` and the hook are gone; returns ``module``.
    Raises InvalidParameterError when ``name`` is not weight-normalized.

    >>> from ember.torch import nn
    >>> m = nn.utils.remove_weight_norm(nn.utils.weight_norm(nn.Linear(2, 2)))
    >>> [n for n, _ in m.named_parameters()], len(m._forward_pre_hooks)
    (['bias', 'weight'], 0)
    """
    _check_module(module, "remove_weight_norm")
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise InvalidParameterError(f"weight_norm of '{name}' not found in {module}", "name", name)
