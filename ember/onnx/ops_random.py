"""ONNX converters of the random operators: RandomNormal, RandomUniform, RandomNormalLike,
RandomUniformLike, Bernoulli and Multinomial, drawn by ember's generators. A ``seed``
attribute seeds a generator of the node's own (the same seed gives the same values on
ember, not onnxruntime's values); without one the global generator draws.

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> y = CONVERTERS["RandomUniform"]([], {"shape": [2, 3], "low": 2.0, "high": 3.0}, Context(18))
>>> y.shape, bool(((y >= 2) & (y < 3)).all())
((2, 3), True)
"""

import ember

from .proto import ember_dtype
from .registry import converter


def _generator(a, device):
    if "seed" not in a:
        return None
    return ember.Generator(device=device).manual_seed(int(a["seed"]))


def _dtype(a, like=None, default=ember.float32):
    if "dtype" in a:
        return ember_dtype(a["dtype"], "random")
    return like if like is not None else default


def _draw(kind, shape, a, dtype, device):
    gen = _generator(a, device)
    if kind == "normal":
        v = ember.randn(*shape, generator=gen, dtype=ember.float64, device=device)
        v = v * a.get("scale", 1.0) + a.get("mean", 0.0)
    else:
        v = ember.rand(*shape, generator=gen, dtype=ember.float64, device=device)
        low = a.get("low", 0.0)
        v = v * (a.get("high", 1.0) - low) + low
    return v.cast(dtype)


@converter("RandomNormal")
def random_normal(x, a, c):
    return _draw("normal", list(a["shape"]), a, _dtype(a), c.device)


@converter("RandomUniform")
def random_uniform(x, a, c):
    return _draw("uniform", list(a["shape"]), a, _dtype(a), c.device)


@converter("RandomNormalLike")
def random_normal_like(x, a, c):
    return _draw("normal", x[0].shape, a, _dtype(a, x[0].dtype), x[0].device)


@converter("RandomUniformLike")
def random_uniform_like(x, a, c):
    return _draw("uniform", x[0].shape, a, _dtype(a, x[0].dtype), x[0].device)


@converter("Bernoulli")
def bernoulli(x, a, c):
    p = x[0]
    u = _draw("uniform", p.shape, {k: v for k, v in a.items() if k == "seed"},
              ember.float64, p.device)
    return (u < p.cast(ember.float64)).cast(_dtype(a, p.dtype))


@converter("Multinomial")
def multinomial(x, a, c):
    logits = x[0]
    probs = logits.cast(ember.float64).softmax(-1)
    n = a.get("sample_size", 1)
    out = probs.multinomial(n, True, generator=_generator(a, logits.device))
    return out.cast(_dtype(a, default=ember.int32))
