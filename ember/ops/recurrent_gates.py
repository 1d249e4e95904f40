"""The pointwise gate math of an LSTM step as one op: ``lstm_gates(gates, c) -> (h, c')``.

``gates`` (B, 4H) are the pre-activations in PyTorch's order ``i, f, g, o``; ``c`` (B, H) the
cell state: ``c' = sigmoid(f) c + sigmoid(i) tanh(g)``, ``h = sigmoid(o) tanh(c')``. Composed
of ember ops this is a dozen recorded ops a step, and its backward two dozen; here the forward
runs on the backend's arrays (its ``ew_sigmoid``/``ew_tanh`` kernels and array arithmetic, so
every backend has it) and keeps the local derivatives, so each result's backward is two ember
ops (``cat`` of the incoming gradient times the kept factors). Under ``create_graph`` the rules
recompute the same gradients from the inputs with ember ops, so higher-order gradients hold.

>>> import ember
>>> from ember.ops.recurrent_gates import lstm_gates
>>> h, c = lstm_gates(ember.zeros(1, 8), ember.ones(1, 2))
>>> [round(v, 4) for v in c.tolist()[0]], [round(v, 4) for v in h.tolist()[0]]
([0.5, 0.5], [0.2311, 0.2311])
"""

from .. import dtypes as _dt
from ..autodiff.graph import _mode
from ..errors import ShapeMismatchError
from .._tensor import check_tensor, record, saved, wrap
from .segments import cat

__all__ = ["lstm_gates"]

_FAST = (_dt.float32, _dt.float64)


def lstm_gates(gates, c):
    """``(h, c')`` of one LSTM step from ``gates`` (B, 4H; i, f, g, o) and ``c`` (B, H); see the
    module docstring.

    >>> import ember
    >>> from ember.ops.recurrent_gates import lstm_gates
    >>> [t.shape for t in lstm_gates(ember.zeros(3, 8), ember.zeros(3, 2))]
    [(3, 2), (3, 2)]
    """
    op = "lstm_gates"
    check_tensor(gates, op, "gates")
    check_tensor(c, op, "c")
    if c.ndim != 2 or gates.ndim != 2 or tuple(gates.shape) != (c.shape[0], 4 * c.shape[1]):
        raise ShapeMismatchError(f"{op}: gates {tuple(gates.shape)} and c {tuple(c.shape)} do "
                                 "not fit; expected gates (B, 4H) and c (B, H)",
                                 expected="(B, 4H), (B, H)",
                                 actual=(tuple(gates.shape), tuple(c.shape)))
    if gates._dtype not in _FAST or c._dtype is not gates._dtype \
            or c._device is not gates._device:
        return _composed(gates, c)
    n = c.shape[1]
    dt = gates._dtype
    be = gates._device.backend
    G, C = gates._data, c._data
    s = be.ew_sigmoid(G)
    i, f, o = s[:, :n], s[:, n:2 * n], s[:, 3 * n:]
    g = be.ew_tanh(G[:, 2 * n:3 * n])
    c2 = f * C + i * g
    tc = be.ew_tanh(c2)
    h = o * tc
    if not (_mode.enabled and (gates._node is not None or c._node is not None)):
        return wrap(h, dt), wrap(c2, dt)
    # local derivatives: d c'/d(i, f, g) and d h/d c', d h/d o
    di, df, dg = g * i * (1 - i), C * f * (1 - f), i * (1 - g * g)
    e = o * (1 - tc * tc)
    k_c = wrap(be.segments_cat([di, df, dg, 0 * o], 1), dt)
    k_h = wrap(be.segments_cat([di * e, df * e, dg * e, tc * o * (1 - o)], 1), dt)
    f_c, f_h = wrap(f, dt), wrap(f * e, dt)
    gs, cs = saved(gates), saved(c)

    def rule_h(gh, needs, out):
        if _mode.enabled:  # create_graph: differentiable in turn
            return _exact(gs, cs, gh, True, needs)
        return (cat([gh] * 4, 1) * k_h if needs[0] else None, gh * f_h if needs[1] else None)

    def rule_c(gc, needs, out):
        if _mode.enabled:
            return _exact(gs, cs, gc, False, needs)
        return (cat([gc] * 4, 1) * k_c if needs[0] else None, gc * f_c if needs[1] else None)

    return record(h, dt, (gates, c), rule_h, op), record(c2, dt, (gates, c), rule_c, op)


def _composed(gates, c):
    """The step written with ember ops (any dtype; gradients from theirs)."""
    n = c.shape[1]
    s = gates.sigmoid()
    c2 = s[:, n:2 * n] * c + s[:, :n] * gates[:, 2 * n:3 * n].tanh()
    return s[:, 3 * n:] * c2.tanh(), c2


def _exact(gates, c, grad, of_h, needs):
    """The gradients of ``h`` (``of_h``) or of ``c'`` with respect to (gates, c), with ember ops
    on the (tracked) inputs."""
    n = c.shape[1]
    s = gates.sigmoid()
    i, f, o = s[:, :n], s[:, n:2 * n], s[:, 3 * n:]
    g = gates[:, 2 * n:3 * n].tanh()
    if of_h:
        tc = (f * c + i * g).tanh()
        dc2 = grad * o * (1 - tc * tc)
        do = grad * tc * o * (1 - o)
    else:
        dc2, do = grad, grad * 0
    dgates = cat([dc2 * g * i * (1 - i), dc2 * c * f * (1 - f), dc2 * i * (1 - g * g), do], 1)
    return (dgates if needs[0] else None, dc2 * f if needs[1] else None)
