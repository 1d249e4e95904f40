"""ONNX converters of ``ai.onnx.preview.training``'s optimizer operators Adagrad, Adam and
Momentum (its Gradient is in ops_control.py). Each optimizer takes the learning rate R, the step count T, then n tensors to optimize,
their n gradients and their n optimizer states of each kind, and returns the n new tensors
followed by the new states.

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> x, g, h = ember.tensor([1.0]), ember.tensor([2.0]), ember.tensor([0.0])
>>> new_x, new_h = CONVERTERS["ai.onnx.preview.training.Adagrad"](
...     [ember.tensor(0.5), ember.tensor(0), x, g, h], {"epsilon": 0.0}, Context(18))
>>> new_x.tolist(), new_h.tolist()
([0.5], [4.0])
"""

from .registry import CONVERTERS, Context, converter, scalar

_DOMAIN = "ai.onnx.preview.training."


def _groups(x, states):
    """(r, t, [(x, g, *states) per optimized tensor]) of an optimizer node's inputs."""
    r, t, rest = x[0], scalar(x[1]), x[2:]
    n = len(rest) // (2 + states)
    return r, t, [tuple(rest[k * n + i] for k in range(2 + states)) for i in range(n)]


@converter(_DOMAIN + "Adagrad")
def adagrad(x, a, c):
    r, t, groups = _groups(x, 1)
    lr = r / (1 + t * a.get("decay_factor", 0.0))
    eps, norm = a.get("epsilon", 0.0), a.get("norm_coefficient", 0.0)
    xs, hs = [], []
    for p, g, h in groups:
        g = g + p * norm
        h = h + g * g
        xs.append((p - lr * g / (h.sqrt() + eps)).cast(p.dtype))
        hs.append(h.cast(p.dtype))
    return xs + hs


@converter(_DOMAIN + "Adam")
def adam(x, a, c):
    r, t, groups = _groups(x, 2)
    alpha, beta = a.get("alpha", 0.9), a.get("beta", 0.999)
    eps, norm = a.get("epsilon", 0.0), a.get("norm_coefficient", 0.0)
    post = a.get("norm_coefficient_post", 0.0)
    lr = r * ((1 - beta ** t) ** 0.5 / (1 - alpha ** t)) if t > 0 else r
    xs, vs, hs = [], [], []
    for p, g, v, h in groups:
        g = g + p * norm
        v = v * alpha + g * (1 - alpha)
        h = h * beta + g * g * (1 - beta)
        xs.append(((p - lr * (v / (h.sqrt() + eps))) * (1 - post)).cast(p.dtype))
        vs.append(v.cast(p.dtype))
        hs.append(h.cast(p.dtype))
    return xs + vs + hs


@converter(_DOMAIN + "Momentum")
def momentum(x, a, c):
    r, t, groups = _groups(x, 1)
    alpha, beta, norm = a["alpha"], a["beta"], a["norm_coefficient"]
    nesterov = a.get("mode", "standard") == "nesterov"
    b = beta if t > 0 else 1.0
    xs, vs = [], []
    for p, g, v in groups:
        g = g + p * norm
        v = v * alpha + g * b
        step = g + v * alpha if nesterov else v
        xs.append((p - r * step).cast(p.dtype))
        vs.append(v.cast(p.dtype))
    return xs + vs
