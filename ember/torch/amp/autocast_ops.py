"""The ops autocast changes, and the one wrapper that changes them.

Inside ``torch.autocast(device_type)`` PyTorch runs two lists of ops differently on tensors of
that device type: the lower-precision list (matrix products and convolutions) with their
floating-point arguments cast to the autocast dtype (``bfloat16`` on the CPU by default), and
the float32 list (losses, reductions and solvers that lose accuracy in 16 bits) with them cast
to float32. float64 tensors, integer tensors and tensors of other device types are never cast.
``install()`` wraps each listed name where ember.torch registers it (the ``torch`` namespace,
``torch.nn.functional``, ``torch.linalg``, the Tensor methods) and the ``forward`` of the layers
that are one such op (Linear, the convolutions, PReLU: their input and their own weights are
cast), all with ``autocast_call``. Casts are recorded, so gradients reach the float32 weights in
float32. Outside autocast each wrapper costs one check.

>>> import ember.torch as torch
>>> a = torch.ones(2, 3)
>>> with torch.autocast("cpu", dtype=torch.bfloat16):
...     print((a @ a.T).dtype, torch.nn.functional.mse_loss(a.bfloat16(), a).dtype)
torch.bfloat16 torch.float32
"""

from ..._tensor import Tensor as _EmberTensor
from ...dtypes import float32
from .._tensor import to_torch
from ..autocast_state import state

__all__ = ["LOWER", "LOWER_CUDA", "FP32", "LOWER_LAYERS", "autocast_call", "install"]

# names with the lower-precision policy on every device type (PyTorch's CPU list, as
# ember.torch spells them); on CUDA devices also LOWER_CUDA
LOWER = frozenset((
    "matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "chain_matmul", "multi_dot", "einsum",
    "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "prelu", "scaled_dot_product_attention", "__matmul__", "__rmatmul__"))
LOWER_CUDA = frozenset(("mv", "addmv", "addr"))
# names with the float32 policy
FP32 = frozenset((
    "prod", "cdist", "trace", "quantile", "nanquantile", "pinverse", "inverse", "cholesky",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "soft_margin_loss",
    "multilabel_margin_loss", "multi_margin_loss", "poisson_nll_loss", "hinge_embedding_loss",
    "cosine_embedding_loss", "margin_ranking_loss", "triplet_margin_loss", "avg_pool3d",
    "max_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "grid_sample"))
# the ember.torch.nn layers whose forward is one lower-precision op
LOWER_LAYERS = ("Linear", "LazyLinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
                "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
                "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "PReLU")

_CASTABLE = frozenset(("float16", "bfloat16", "float32"))


def _cast_one(x, lower, name):
    """``x`` cast by the policy (``x`` itself when it is not cast)."""
    if not isinstance(x, _EmberTensor) or x._dtype.name not in _CASTABLE:
        return x
    kind = x._device.type
    if kind not in state.enabled:
        return x
    if lower:
        if kind != "cuda" and name in LOWER_CUDA:
            return x
        target = state.dtypes[kind]
    else:
        target = float32
    if x._dtype is target:
        return x
    cache = state.cache_enabled and x.requires_grad and x.is_leaf
    if cache:
        hit = state.cache.get(id(x))
        if hit is not None and hit[0] is x and hit[1]._dtype is target:
            return hit[1]
    out = x.to(target)
    if cache:
        state.cache[id(x)] = (x, out)
    return out


def _cast_args(value, lower, name):
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], _EmberTensor):
        return type(value)(_cast_one(v, lower, name) for v in value)
    return _cast_one(value, lower, name)


def autocast_call(fn, name, args, kwargs):
    """``fn(*args, **kwargs)`` with the floating-point tensor arguments cast by ``name``'s
    policy (a tensor, or a list or tuple of tensors, as an argument) when autocast is on."""
    lower = name in LOWER or name in LOWER_CUDA
    args = [_cast_args(a, lower, name) for a in args]
    kwargs = {k: _cast_args(v, lower, name) for k, v in kwargs.items()}
    return fn(*args, **kwargs)


def _wrap(fn, name):
    raw = getattr(fn, "returns_torch_of", None)
    if raw is not None:  # fn is to_torch(raw(...)): one call less while autocast is off
        def autocast_op(*args, **kwargs):
            if not state.enabled:
                return to_torch(raw(*args, **kwargs))
            return autocast_call(fn, name, args, kwargs)
    else:
        def autocast_op(*args, **kwargs):
            if not state.enabled:
                return fn(*args, **kwargs)
            return autocast_call(fn, name, args, kwargs)
    autocast_op.__name__ = getattr(fn, "__name__", name)
    autocast_op.__qualname__ = getattr(fn, "__qualname__", name)
    autocast_op.__doc__ = fn.__doc__
    autocast_op.__module__ = getattr(fn, "__module__", None)
    autocast_op.autocast_original = fn  # (no __wrapped__: doctest would collect it twice)
    autocast_op.autocast_policy = "lower" if name in LOWER or name in LOWER_CUDA else "fp32"
    if hasattr(fn, "implementation"):
        autocast_op.implementation = fn.implementation
    return autocast_op


def _wrap_layer(cls):
    forward = cls.forward

    def autocast_forward(self, *args, **kwargs):
        if not state.enabled:
            return forward(self, *args, **kwargs)
        d = self.__dict__
        shadowed = {}
        for name, p in d["_parameters"].items():  # the layer's weights, cast, for this call
            if p is not None:
                cast = _cast_one(p, True, "linear")
                if cast is not p:
                    shadowed[name] = d.get(name, _MISSING)
                    d[name] = cast
        try:
            return autocast_call(forward.__get__(self), "linear", args, kwargs)
        finally:
            for name, old in shadowed.items():
                if old is _MISSING:
                    del d[name]
                else:
                    d[name] = old

    autocast_forward.__name__ = "forward"
    autocast_forward.__qualname__ = f"{cls.__name__}.forward"
    autocast_forward.__doc__ = forward.__doc__
    autocast_forward.__wrapped__ = forward
    autocast_forward.autocast_layer = True
    cls.forward = autocast_forward


_MISSING = object()


def install(functions, namespaces, tensor_cls, to_torch, layers):
    """Wrap every listed name: in the dict ``functions`` (the ``torch`` namespace), in each
    module of ``namespaces``, as a method of ``tensor_cls`` (ember.torch's Tensor; a method it
    inherits gets its results made ember.torch tensors with ``to_torch``), and the ``forward``
    of each class in ``layers``. Each is wrapped once."""
    names = LOWER | LOWER_CUDA | FP32
    for name in names:
        fn = functions.get(name)
        if fn is not None and not hasattr(fn, "autocast_policy"):
            functions[name] = _wrap(fn, name)
        for mod in namespaces:
            fn = mod.__dict__.get(name)
            if fn is not None and not hasattr(fn, "autocast_policy"):
                setattr(mod, name, _wrap(fn, name))
        own = tensor_cls.__dict__.get(name)
        if own is None:
            inherited = getattr(tensor_cls, name, None)
            if inherited is None:
                continue
            own = _converting(inherited, name, to_torch)
        if not hasattr(own, "autocast_policy"):
            setattr(tensor_cls, name, _wrap(own, name))
    for cls in layers:
        if not getattr(cls.forward, "autocast_layer", False):
            _wrap_layer(cls)


def _converting(method, name, to_torch):
    def converted(*args, **kwargs):
        return to_torch(method(*args, **kwargs))
    converted.__name__ = name
    converted.returns_torch_of = method
    converted.__doc__ = method.__doc__
    return converted
