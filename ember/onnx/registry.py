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
    which read the enclosing graph's values by name) and the ONNX element types of the node's
    inputs where the graph declares them (0 where not; narrow types such as float8 travel in a
    wider ember dtype, see narrow.py); for a Gradient node, ``replay(target, given)``
    recomputes the graph's value ``target`` from the values in ``given``."""
    opset: int
    device: object = None
    outputs: int = 1
    scope: dict = None
    types: tuple = ()
    replay: object = None

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


def widened(fn):
    """``fn`` (a converter) computing float16 and bfloat16 inputs in float32 and rounding its
    float results back once, as ONNX runtimes accumulate half-precision matmuls and softmaxes
    (rounding every step of a sum to 8 or 11 bits drifts far from onnx's reference)."""
    def conv(x, a, c):
        half = next((t.dtype for t in x if isinstance(t, ember.Tensor)
                     and t.dtype.name in ("float16", "bfloat16")), None)
        if half is None:
            return fn(x, a, c)
        wide = [t.cast("float32") if isinstance(t, ember.Tensor) and t.dtype == half else t
                for t in x]
        out = fn(wide, a, c)
        back = [t.cast(half) if isinstance(t, ember.Tensor) and t.kind == "float" else t
                for t in (out if isinstance(out, (list, tuple)) else [out])]
        return back if isinstance(out, (list, tuple)) else back[0]
    conv.__doc__ = fn.__doc__
    return conv


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
