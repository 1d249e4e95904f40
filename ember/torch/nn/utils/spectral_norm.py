"""``torch.nn.utils.spectral_norm`` / ``remove_spectral_norm``, PyTorch's hook-based spectral
normalization: the parameter ``name`` is stored as ``name_orig``, with buffers ``name_u`` and
``name_v`` (unit vectors of its matrix's left and right spaces), and a forward pre-hook sets
``name = name_orig / sigma``, ``sigma = u . (W v)``, ``W`` the parameter as a matrix (``dim``
first, the rest flattened). In training mode each call first runs ``n_power_iterations`` steps
of power iteration (``v = normalize(W^T u)``, ``u = normalize(W v)``, no gradient) that update
the buffers.

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> m = nn.utils.spectral_norm(nn.Linear(4, 3))
>>> list(m.state_dict())
['bias', 'weight_orig', 'weight_u', 'weight_v']
>>> for _ in range(30):
...     _ = m(torch.ones(1, 4))
>>> round(torch.linalg.matrix_norm(m.weight.detach(), 2).item(), 3)
1.0
"""

from ....autodiff.graph import no_grad
from ....errors import GraphError, InvalidParameterError, KindError
from ....ops.inplace import rebind
from ....nn.conv_layers import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ....ops.random import randn
from ..parameter import Parameter
from .weight_norm import _check_module

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


def _normalize(x, eps):
    """``x / max(||x||, eps)``."""
    return x / x.norm().clamp(min=eps)


class SpectralNorm:
    """The forward pre-hook of ``spectral_norm`` (one per normalized parameter): ``name``,
    ``n_power_iterations``, ``dim`` and ``eps``; ``compute_weight`` gives the normalized weight."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if isinstance(n_power_iterations, bool) or not isinstance(n_power_iterations, int) \
                or n_power_iterations <= 0:
            raise InvalidParameterError(f"Expected n_power_iterations to be positive, but got "
                                        f"n_power_iterations={n_power_iterations!r}",
                                        "n_power_iterations", n_power_iterations)
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """``weight`` with ``dim`` moved first and the other dims flattened: (h, w)."""
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        """``name_orig / sigma`` (recorded); with ``do_power_iteration`` the buffers ``name_u``,
        ``name_v`` first take ``n_power_iterations`` power-iteration steps (not recorded)."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                m = mat.detach()
                new_u, new_v = u, v
                for _ in range(self.n_power_iterations):
                    new_v = _normalize(m.T @ new_u, self.eps)
                    new_u = _normalize(m @ new_v, self.eps)
                rebind(u, new_u, "spectral_norm")
                rebind(v, new_v, "spectral_norm")
            u, v = u.clone(), v.clone()
        sigma = u.dot(mat @ v)
        return weight / sigma

    def remove(self, module):
        """Fold the normalization into the Parameter ``name`` (no power iteration)."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        object.__delattr__(module, self.name)
        del module._buffers[self.name + "_u"]
        del module._buffers[self.name + "_v"]
        del module._parameters[self.name + "_orig"]
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        """Normalize ``module``'s parameter ``name`` (see ``spectral_norm``); returns the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise GraphError(f"Cannot register two spectral_norm hooks on the same "
                                 f"parameter {name}")
        weight = module.__dict__.get("_parameters", {}).get(name)
        if weight is None:
            raise InvalidParameterError(f"spectral_norm: module {type(module).__name__} has no "
                                        f"parameter {name!r}", "name", name)
        if weight.ndim == 0 or isinstance(dim, bool) or not isinstance(dim, int) \
                or not -weight.ndim <= dim < weight.ndim:
            raise InvalidParameterError(f"spectral_norm: dim {dim!r} is out of range for a "
                                        f"{weight.ndim}-D parameter", "dim", dim)
        fn = SpectralNorm(name, n_power_iterations, dim % weight.ndim, eps)
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = _normalize(randn(h, dtype=weight.dtype, device=weight.device), eps)
            v = _normalize(randn(w, dtype=weight.dtype, device=weight.device), eps)
        del module._parameters[name]
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectrally normalize ``module``'s parameter ``name`` (see the module docstring);
    returns ``module``. ``dim`` (the output dim of the weight matrix) defaults to 1 for the
    ConvTranspose layers, 0 otherwise. ``u`` and ``v`` start as random unit vectors (ember's
    generator). A second one on the same parameter raises GraphError.

    >>> from ember.torch import nn
    >>> m = nn.utils.spectral_norm(nn.ConvTranspose2d(2, 3, 3))
    >>> tuple(m.weight_u.shape), tuple(m.weight_v.shape)
    ((3,), (18,))
    """
    _check_module(module, "spectral_norm")
    if not isinstance(name, str):
        raise KindError(f"spectral_norm: name must be a str, got {type(name).__name__}")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo ``spectral_norm``: the parameter ``name`` holds the current normalized weight
    (computed with the stored ``u`` and ``v``, a new leaf Parameter); ``name_orig``, the
    buffers and the hook are gone; returns ``module``. Raises InvalidParameterError when
    ``name`` is not spectrally normalized.

    >>> from ember.torch import nn
    >>> m = nn.utils.remove_spectral_norm(nn.utils.spectral_norm(nn.Linear(2, 2)))
    >>> list(m.state_dict())
    ['bias', 'weight']
    """
    _check_module(module, "remove_spectral_norm")
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise InvalidParameterError(f"spectral_norm of '{name}' not found in {module}", "name", name)
