"""The table of ONNX operator converters: one small function per operator of the default
domain, registered with ``@converter("OpType")``.

A converter is ``fn(x, a, c)``: ``x`` the node's input tensors (None for an omitted optional
input), ``a`` its attributes (a dict of Python values), ``c`` the Context (the default-domain
opset and the device); it returns one tensor or a list of them (one per output). Converters
compute with ember ops only, so a loaded graph has ember's gradients to any order.

>>> from ember.onnx import registry
>>> import ember.onnx.ops_math  # noqa: F401  (fills the table)
>>> "Relu" in registry.CONVERTERS
True
"""

from dataclasses import dataclass

import ember

CONVERTERS = {}


@dataclass(frozen=True)
class Context:
    """What a converter may need besides inputs and attributes: the default-domain opset,
    the graph's device, the node's number of outputs, the values in scope (for subgraphs,
    which read the enclosing graph's values by name) and the running program (for Gradient,
    which replays the nodes before it)."""
    opset: int
    device: object = None
    outputs: int = 1
    scope: dict = None
    program: object = None

    def const(self, value, dtype=None):
        """A constant tensor on the graph's device."""
        return ember.tensor(value, dtype=dtype, device=self.device)


def converter(*names):
    """Register ``fn`` as the converter of the ONNX operators ``names``."""
    def attach(fn):
        for name in names:
            CONVERTERS[name] = fn
        return fn
    return attach


def ints(t):
    """A tensor (or None) of ints as a list of Python ints (None stays None)."""
    if t is None:
        return None
    v = t.tolist() if isinstance(t, ember.Tensor) else t
    return [int(i) for i in v] if isinstance(v, (list, tuple)) else [int(v)]


def scalar(t, default=None):
    """A 0-d or one-element tensor (or None) as a Python number."""
    if t is None:
        return default
    v = t.tolist()
    while isinstance(v, list):
        v = v[0]
    return v


def axis_of(axis, rank):
    """``axis`` made non-negative for a tensor of ``rank`` dims."""
    return axis + rank if axis < 0 else axis


def axes_arg(x, a, index=1):
    """The axes of a reduction-like op: the ``axes`` attribute (older opsets) or input
    ``index`` (newer); None when neither is given."""
    if "axes" in a:
        return list(a["axes"])
    if len(x) > index and x[index] is not None:
        return ints(x[index])
    return None
