"""The per-step ops of the recurrent layers: an LSTM step's and a GRU step's gate math as one
op each (``lstm_gates``, ``gru_gates``) and the recurrence ``gx_t + h @ W_hh^T`` with one
weight-gradient matmul for the whole sequence (``recurrence``/``recurrent_step``).

``lstm_gates(gates, c) -> (h, c')``:
``gates`` (B, 4H) are the pre-activations in PyTorch's order ``i, f, g, o``; ``c`` (B, H) the
cell state: ``c' = sigmoid(f) c + sigmoid(i) tanh(g)``, ``h = sigmoid(o) tanh(c')``. Composed
of ember ops this is a dozen recorded ops a step, and its backward two dozen; here the forward
is one backend kernel, ``nn_lstm_gates`` (``nn_gru_gates`` for ``gru_gates``: a default on the
array API that every backend has, one compiled pass on the NumPy backend), which also gives the
local derivatives, so each result's backward is two ember ops (``cat`` of the incoming gradient
times the kept factors). Under ``create_graph`` the rules recompute the same gradients from the
inputs with ember ops, so higher-order gradients hold.

``recurrence(xp, w_hh)`` returns ``xp`` (the input projections of every step, (N, G)) tied to
``w_hh`` and a record of the steps; ``recurrent_step(gx_t, h, w_hh, steps, t)`` is ``gx_t + h @
w_hh^T`` (``gx_t`` may be None). A step's backward computes only the gradients of ``gx_t`` and
``h``; the gradient of ``w_hh``, the sum over steps of ``g_t^T h_(t-1)``, is one matmul of the
gradient arriving at ``xp`` (every ``g_t`` in one (N, G) tensor) with the steps' ``h`` stacked.
Under ``create_graph`` each step gives its own weight gradient (ember ops, differentiable) and
the tie none, so higher-order gradients hold.

>>> import ember
>>> from ember.ops.recurrent_gates import lstm_gates
>>> h, c = lstm_gates(ember.zeros(1, 8), ember.ones(1, 2))
>>> [round(v, 4) for v in c.tolist()[0]], [round(v, 4) for v in h.tolist()[0]]
([0.5, 0.5], [0.2311, 0.2311])
"""

from .. import dtypes as _dt
from ..autodiff.graph import _mode
from ..errors import ShapeMismatchError
from .._tensor import alias, check_tensor, record, saved, wrap
from .linalg import _product
from .segments import cat

__all__ = ["lstm_gates", "gru_gates", "recurrence", "recurrent_step"]

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
    dt = gates._dtype
    need = _mode.enabled and (gates._node is not None or c._node is not None)
    h, c2, kept = gates._device.backend.nn_lstm_gates(gates._data, c._data, need)
    if not need:
        return wrap(h, dt), wrap(c2, dt)
    k_c, k_h, f_c, f_h = (wrap(a, dt) for a in kept)
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


def gru_gates(gx, gh, h):
    """``h'`` of one GRU step from the input's projection ``gx`` (B, 3H, with ``b_ih``), the
    state's ``gh`` (B, 3H, with ``b_hh``), gates ``r, z, n``, and ``h`` (B, H): ``r, z =
    sigmoid(gx + gh)``, ``n = tanh(gx_n + r gh_n)``, ``h' = n + z (h - n)``. One op; backward as
    ``lstm_gates``'s (kept factors; ember ops on the inputs under ``create_graph``).

    >>> import ember
    >>> from ember.ops.recurrent_gates import gru_gates
    >>> gru_gates(ember.zeros(1, 3), ember.zeros(1, 3), ember.ones(1, 1)).tolist()
    [[0.5]]
    """
    op = "gru_gates"
    for name, t in (("gx", gx), ("gh", gh), ("h", h)):
        check_tensor(t, op, name)
    if h.ndim != 2 or tuple(gx.shape) != (h.shape[0], 3 * h.shape[1]) \
            or tuple(gh.shape) != tuple(gx.shape):
        raise ShapeMismatchError(f"{op}: gx {tuple(gx.shape)}, gh {tuple(gh.shape)} and h "
                                 f"{tuple(h.shape)} do not fit; expected (B, 3H), (B, 3H), "
                                 "(B, H)", expected="(B, 3H), (B, 3H), (B, H)",
                                 actual=(tuple(gx.shape), tuple(gh.shape), tuple(h.shape)))
    if gx._dtype not in _FAST or gh._dtype is not gx._dtype or h._dtype is not gx._dtype \
            or gh._device is not gx._device or h._device is not gx._device:
        return _gru_composed(gx, gh, h)
    dt = gx._dtype
    need = _mode.enabled and (gx._node is not None or gh._node is not None
                              or h._node is not None)
    out, kept = gx._device.backend.nn_gru_gates(gx._data, gh._data, h._data, need)
    if not need:
        return wrap(out, dt)
    k_x, k_h, k_z = (wrap(a, dt) for a in kept)
    xs, ys, hs = saved(gx), saved(gh), saved(h)

    def rule(g, needs, res):
        if _mode.enabled:  # create_graph: differentiable in turn
            return _gru_exact(xs, ys, hs, g, needs)
        g3 = cat([g] * 3, 1) if needs[0] or needs[1] else None
        return (g3 * k_x if needs[0] else None, g3 * k_h if needs[1] else None,
                g * k_z if needs[2] else None)

    return record(out, dt, (gx, gh, h), rule, op)


def _gru_composed(gx, gh, h):
    n = h.shape[1]
    rz = (gx[:, :2 * n] + gh[:, :2 * n]).sigmoid()
    new = (gx[:, 2 * n:] + rz[:, :n] * gh[:, 2 * n:]).tanh()
    return new + rz[:, n:] * (h - new)


def _gru_exact(gx, gh, h, g, needs):
    n = h.shape[1]
    rz = (gx[:, :2 * n] + gh[:, :2 * n]).sigmoid()
    r, z = rz[:, :n], rz[:, n:]
    yn = gh[:, 2 * n:]
    new = (gx[:, 2 * n:] + r * yn).tanh()
    dn = g * (1 - z) * (1 - new * new)
    dr = dn * yn * r * (1 - r)
    dz = g * (h - new) * z * (1 - z)
    return (cat([dr, dz, dn], 1) if needs[0] else None,
            cat([dr, dz, dn * r], 1) if needs[1] else None, g * z if needs[2] else None)


# -- the recurrence gx_t + h @ W_hh^T -----------------------------------------------------------

def recurrence(xp, weight):
    """``(xp, steps)``: ``xp`` (N, G) tied to ``weight`` (G, K) (the same values) and the dict
    that ``recurrent_step`` fills with each step's ``h`` (None when nothing is recorded: grad
    mode off or ``weight`` not tracked); see the module docstring.

    >>> import ember
    >>> from ember.ops.recurrent_gates import recurrence, recurrent_step
    >>> w = ember.ones(2, 2).require_grad()
    >>> xp, steps = recurrence(ember.zeros(2, 2), w)
    >>> h = ember.ones(1, 2)
    >>> for t, x in enumerate(xp.split([1, 1], 0)):
    ...     h = recurrent_step(x, h, w, steps, t)
    >>> _ = h.sum().backward(); w.grad.tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    """
    if not (_mode.enabled and weight._node is not None):
        return xp, None
    steps = {}

    def rule(g, needs, out):
        gw = None
        if needs[1] and not _mode.enabled and steps:
            hs = cat([steps[t] for t in sorted(steps)], 0)
            gw = _product(g.mT, hs, g._device.backend)
            if gw._dtype is not weight_dtype:
                gw = gw.cast(weight_dtype)
        return (g if needs[0] else None), gw

    weight_dtype = weight._dtype
    return record(xp._data, xp._dtype, (xp, weight), rule, "recurrence"), steps


def recurrent_step(gx, h, weight, steps, t):
    """``gx + h @ weight^T`` (``gx`` None: ``h @ weight^T``), step ``t`` of a ``recurrence``
    (its ``steps``; None: a step of its own, with its own weight gradient); see the module
    docstring and ``recurrence``.

    >>> import ember
    >>> from ember.ops.recurrent_gates import recurrent_step
    >>> recurrent_step(ember.ones(1, 2), ember.ones(1, 3), ember.ones(2, 3), None, 0).tolist()
    [[4.0, 4.0]]
    """
    if h._dtype not in _FAST or weight._dtype is not h._dtype or (
            gx is not None and gx._dtype is not h._dtype):
        out = _product(h, weight.mT, h._device.backend)
        return out if gx is None else gx + out
    be = h._device.backend
    data = be.linalg_matmul(h._data, be.mv_permute(weight._data, (1, 0)))
    if gx is not None:
        data = be.ew_add(data, gx._data)
    dt = h._dtype
    tied = steps is not None
    if tied and _mode.enabled:  # h's value, not its graph: the recurrence's rule holds the
        held = steps[t] = alias(h)  # dict, and a graph there would be a reference cycle
        held._node = None
    hs, ws = saved(h), saved(weight)

    def rule(g, needs, out):
        k = 0 if gx is None else 1
        ggx = g if gx is not None and needs[0] else None
        gh = _product(g, ws, be) if needs[k] else None
        gw = None
        if needs[k + 1] and (_mode.enabled or not tied):  # else the recurrence's one matmul
            gw = _product(g.mT, hs, be)
        return (gh, gw) if gx is None else (ggx, gh, gw)

    inputs = (h, weight) if gx is None else (gx, h, weight)
    return record(data, dt, inputs, rule, "recurrent_step")
