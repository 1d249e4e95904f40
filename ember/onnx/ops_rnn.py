"""ONNX's recurrent operators, LSTM, GRU and RNN, unrolled over time with ember ops (so they
train and differentiate like any other graph): forward, reverse and bidirectional, both
layouts, peepholes, clipping, custom activations, ``sequence_lens`` (steps past a sequence's
length keep its state and output zeros).

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> x, w, r = ember.ones(5, 2, 3), ember.ones(1, 16, 3) * 0.1, ember.ones(1, 16, 4) * 0.1
>>> [t.shape for t in CONVERTERS["LSTM"]([x, w, r], {"hidden_size": 4}, Context(18))]
[(5, 1, 2, 4), (1, 2, 4), (1, 2, 4)]
"""

import ember
import ember.nn.functional as F

from ..errors import InvalidParameterError
from .registry import converter

_ACTIVATIONS = {
    "sigmoid": lambda t, a, b: F.sigmoid(t),
    "tanh": lambda t, a, b: t.tanh(),
    "relu": lambda t, a, b: F.relu(t),
    "hardsigmoid": lambda t, a, b: (t * (0.2 if a is None else a) + (0.5 if b is None else b))
    .clamp(0.0, 1.0),
    "leakyrelu": lambda t, a, b: ember.where(t >= 0, t, t * (0.01 if a is None else a)),
    "thresholdedrelu": lambda t, a, b: ember.where(t > (1.0 if a is None else a), t, t * 0),
    "scaledtanh": lambda t, a, b: (t * b).tanh() * a,
    "affine": lambda t, a, b: t * a + b,
    "elu": lambda t, a, b: ember.where(t > 0, t, (t.exp() - 1) * (1.0 if a is None else a)),
    "softsign": lambda t, a, b: t / (t.abs() + 1),
    "softplus": lambda t, a, b: (t.exp() + 1).log(),
}


def _activations(a, defaults, dirs):
    names = a.get("activations", defaults * dirs)
    alphas, betas = list(a.get("activation_alpha", [])), list(a.get("activation_beta", []))
    out = []
    for i, name in enumerate(names):
        fn = _ACTIVATIONS.get(name.lower())
        if fn is None:
            raise InvalidParameterError(f"recurrent activation {name!r} is not supported",
                                        "activations", name)
        alpha = alphas[i] if i < len(alphas) else None
        beta = betas[i] if i < len(betas) else None
        out.append(lambda t, fn=fn, al=alpha, be=beta: fn(t, al, be))
    n = len(defaults)
    return [out[d * n:(d + 1) * n] for d in range(dirs)]


def _run(x, a, c, gates, defaults, cell):
    """The shared driver: ``cell(xt_proj, h, state, weights, acts) -> (h, state)``."""
    x = list(x) + [None] * (8 - len(x))
    X, W, R, B, lens, h0 = x[:6]
    layout = a.get("layout", 0)
    if layout:
        X = X.permute(1, 0, 2)
    direction = a.get("direction", "forward")
    dirs = 2 if direction == "bidirectional" else 1
    hidden = a.get("hidden_size", R.shape[-1])
    steps, batch = X.shape[0], X.shape[1]
    acts = _activations(a, defaults, dirs)
    clip = a.get("clip")
    ys, hs, states = [], [], []
    for d in range(dirs):
        reverse = direction == "reverse" or d == 1
        w, r = W[d], R[d]
        b = B[d] if B is not None else None
        h = h0[d] if h0 is not None else ember.zeros(batch, hidden, dtype=X.dtype,
                                                      device=X.device)
        extra = [t[d] if t is not None else None for t in x[6:]]
        proj = X.matmul(w.transpose(0, 1))  # every step's input projection at once
        if b is not None:
            proj = proj + b[:gates * hidden]
        outs = [None] * steps
        state = None
        for s in range(steps):
            t = steps - 1 - s if reverse else s
            h_new, state_new = cell(proj[t], h, state, r, b, hidden, acts[d], clip, extra,
                                    a)
            if lens is not None:
                alive = (lens.cast("int64") > t).reshape(batch, 1)
                h = ember.where(alive, h_new, h)
                state = state_new if state is None or state_new is None else \
                    ember.where(alive, state_new, state)
                outs[t] = ember.where(alive, h_new, h_new * 0)
            else:
                h, state, outs[t] = h_new, state_new, h_new
        ys.append(ember.stack(outs, dim=0))
        hs.append(h)
        states.append(state)
    Y = ember.stack(ys, dim=1)  # (seq, dirs, batch, hidden)
    Yh = ember.stack(hs, dim=0)
    Yc = ember.stack(states, dim=0) if states[0] is not None else None
    if layout:
        Y, Yh = Y.permute(2, 0, 1, 3), Yh.permute(1, 0, 2)
        Yc = Yc.permute(1, 0, 2) if Yc is not None else None
    return [Y, Yh] + ([Yc] if Yc is not None else [])


def _clip(t, clip):
    return t.clamp(-clip, clip) if clip is not None else t


def _lstm_cell(xp, h, c_prev, r, b, n, acts, clip, extra, a):
    f, g, hact = acts
    c_prev = c_prev if c_prev is not None else (extra[0] if extra[0] is not None else h * 0)
    p = extra[1]
    z = xp + h.matmul(r.transpose(0, 1))
    if b is not None:
        z = z + b[4 * n:]
    zi, zo, zf, zc = (_clip(z[:, k * n:(k + 1) * n], clip) for k in range(4))
    if p is not None:
        zi, zf = zi + p[:n] * c_prev, zf + p[2 * n:] * c_prev
    i = f(zi)
    fg = 1 - i if a.get("input_forget", 0) else f(zf)
    c = fg * c_prev + i * g(zc)
    if p is not None:
        zo = zo + p[n:2 * n] * c
    return f(zo) * hact(c), c


def _gru_cell(xp, h, _, r, b, n, acts, clip, extra, a):
    f, g = acts
    rz, rr, rh = r[:n], r[n:2 * n], r[2 * n:]
    rb = b[3 * n:] if b is not None else None
    hz = h.matmul(rz.transpose(0, 1))
    hr = h.matmul(rr.transpose(0, 1))
    if rb is not None:
        hz, hr = hz + rb[:n], hr + rb[n:2 * n]
    z = f(_clip(xp[:, :n] + hz, clip))
    rt = f(_clip(xp[:, n:2 * n] + hr, clip))
    if a.get("linear_before_reset", 0):
        hh = h.matmul(rh.transpose(0, 1))
        if rb is not None:
            hh = hh + rb[2 * n:]
        cand = g(_clip(xp[:, 2 * n:] + rt * hh, clip))
    else:
        hh = (rt * h).matmul(rh.transpose(0, 1))
        if rb is not None:
            hh = hh + rb[2 * n:]
        cand = g(_clip(xp[:, 2 * n:] + hh, clip))
    return (1 - z) * cand + z * h, None


def _rnn_cell(xp, h, _, r, b, n, acts, clip, extra, a):
    z = xp + h.matmul(r.transpose(0, 1))
    if b is not None:
        z = z + b[n:]
    return acts[0](_clip(z, clip)), None


@converter("LSTM")
def lstm(x, a, c):
    return _run(x, a, c, 4, ["Sigmoid", "Tanh", "Tanh"], _lstm_cell)


@converter("GRU")
def gru(x, a, c):
    return _run(x, a, c, 3, ["Sigmoid", "Tanh"], _gru_cell)


@converter("RNN")
def rnn(x, a, c):
    return _run(x, a, c, 1, ["Tanh"], _rnn_cell)
