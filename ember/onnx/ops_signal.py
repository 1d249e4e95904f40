"""ONNX converters of the signal operators: DFT, STFT, the window functions (HannWindow,
HammingWindow, BlackmanWindow) and MelWeightMatrix.

ONNX carries complex signals as a trailing dimension of 2 (real, imaginary). ember has no
gradients through complex tensors, so DFT and STFT multiply by the real cosine and sine
matrices of the transform instead: the result is the same and gradients flow to any order.

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> x = ember.tensor([[[1.0], [0.0], [0.0], [0.0]]])
>>> CONVERTERS["DFT"]([x], {"axis": 1}, Context(17)).tolist()
[[[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]]
"""

import math

import ember

from .proto import ember_dtype
from .registry import axis_of, converter, scalar


def _float_of(t):
    return t.dtype if t.dtype.kind == "float" else ember.float32


def _transform(re, im, n, inverse, onesided, c):
    """The DFT of length ``n`` along the last dim of ``re`` (+ i ``im``; None when real):
    (real, imaginary) of K = n // 2 + 1 (``onesided``) or n bins."""
    K = n // 2 + 1 if onesided else n
    sign = 1.0 if inverse else -1.0
    ang = [[sign * 2.0 * math.pi * ((j * k) % n) / n for k in range(K)] for j in range(n)]
    cos = c.const([[math.cos(v) for v in row] for row in ang], re.dtype)
    sin = c.const([[math.sin(v) for v in row] for row in ang], re.dtype)
    # (re + i im)(cos + i sin) = (re cos - im sin) + i (re sin + im cos)
    out_re, out_im = re.matmul(cos), re.matmul(sin)
    if im is not None:
        out_re = out_re - im.matmul(sin)
        out_im = out_im + im.matmul(cos)
    if inverse:
        out_re, out_im = out_re / n, out_im / n
    return out_re, out_im


def _fit(t, n):
    """``t`` cut or zero-padded to ``n`` along its last dim."""
    have = t.shape[-1]
    if have >= n:
        return t.narrow(-1, 0, n)
    return t.pad([(0, 0)] * (t.ndim - 1) + [(0, n - have)], "constant", 0.0)


@converter("DFT")
def dft(x, a, c):
    t = x[0]
    length = scalar(x[1]) if len(x) > 1 and x[1] is not None else None
    if c.opset >= 20:
        axis = scalar(x[2], -2) if len(x) > 2 and x[2] is not None else -2
    else:
        axis = a.get("axis", 1)
    axis = axis_of(axis, t.ndim)
    inverse, onesided = bool(a.get("inverse", 0)), bool(a.get("onesided", 0))
    dt = t.dtype
    t = t.movedim(axis, -2).cast("float64")             # (..., n, 1 | 2), summed in float64
    re = t[..., 0]
    im = t[..., 1] if t.shape[-1] == 2 else None
    if inverse and onesided:  # one-sided spectrum in, real signal out
        n = int(length) if length is not None else 2 * (re.shape[-1] - 1)
        return _inverse_real(re, im, n, c).cast(dt).unsqueeze(-1).movedim(-2, axis)
    n = int(length) if length is not None else re.shape[-1]
    re = _fit(re, n)
    im = None if im is None else _fit(im, n)
    out_re, out_im = _transform(re, im, n, inverse, onesided, c)
    return ember.stack([out_re, out_im], -1).cast(dt).movedim(-2, axis)


def _inverse_real(re, im, n, c):
    """The real signal of length ``n`` whose one-sided spectrum is ``re`` + i ``im`` (the
    bins past n // 2 are the conjugates of the first ones)."""
    K = n // 2 + 1
    re = _fit(re, K)
    im = None if im is None else _fit(im, K)
    weight = [1.0 if k == 0 or 2 * k == n else 2.0 for k in range(K)]
    ang = [[2.0 * math.pi * ((k * j) % n) / n for j in range(n)] for k in range(K)]
    cos = c.const([[weight[k] * math.cos(v) / n for v in row] for k, row in enumerate(ang)],
                  re.dtype)
    out = re.matmul(cos)
    if im is not None:
        sin = c.const([[weight[k] * math.sin(v) / n for v in row] for k, row in
                       enumerate(ang)], re.dtype)
        out = out - im.matmul(sin)
    return out


@converter("STFT")
def stft(x, a, c):
    signal, step = x[0], int(scalar(x[1]))
    window = x[2] if len(x) > 2 else None
    length = scalar(x[3]) if len(x) > 3 and x[3] is not None else None
    n = int(length) if length is not None else window.shape[0]
    onesided = bool(a.get("onesided", 1))
    L = signal.shape[1]
    frames = (L - n) // step + 1
    idx = c.const([[f * step + i for i in range(n)] for f in range(frames)], "int64")
    re = signal[..., 0]
    im = signal[..., 1] if signal.shape[-1] == 2 else None
    B = re.shape[0]

    def framed(t):
        v = t.gather(1, idx.reshape(1, -1).expand(B, frames * n)).reshape(B, frames, n)
        return v if window is None else v * window.cast(v.dtype)

    out_re, out_im = _transform(framed(re).cast("float64"),
                                None if im is None else framed(im).cast("float64"), n, False,
                                onesided and im is None, c)
    return ember.stack([out_re, out_im], -1).cast(signal.dtype)


def _window(terms):
    """A converter of a cosine-sum window ``sum_k terms[k] * cos(2 pi k i / N)``."""
    def run(x, a, c):
        size = int(scalar(x[0]))
        periodic = a.get("periodic", 1)
        N = size if periodic else size - 1
        vals = [sum(w * math.cos(2.0 * math.pi * k * i / N) for k, w in enumerate(terms))
                if N > 0 else 1.0 for i in range(size)]
        return c.const(vals, ember_dtype(a.get("output_datatype", 1), "window"))
    return run


converter("HannWindow")(_window([0.5, -0.5]))
converter("HammingWindow")(_window([25.0 / 46.0, -(1.0 - 25.0 / 46.0)]))
converter("BlackmanWindow")(_window([0.42, -0.5, 0.08]))


@converter("MelWeightMatrix")
def mel_weight_matrix(x, a, c):
    bins, dft_length, rate = (int(scalar(v)) for v in x[:3])
    low, high = float(scalar(x[3])), float(scalar(x[4]))

    def mel(hz):
        return 2595.0 * math.log10(1.0 + hz / 700.0)

    lo_mel, hi_mel = mel(low), mel(high)
    step = (hi_mel - lo_mel) / (bins + 2)   # ONNX divides by the count of edge points
    edges = [int(((dft_length + 1) * (700.0 * (10.0 ** ((i * step + lo_mel) / 2595.0) - 1.0)))
                 // rate) for i in range(bins + 2)]
    spec = dft_length // 2 + 1
    out = [[0.0] * bins for _ in range(spec)]
    for i in range(bins):
        left, center, right = edges[i], edges[i + 1], edges[i + 2]
        if center == left:
            out[center][i] = 1.0
        else:
            for j in range(left, center + 1):
                out[j][i] = (j - left) / (center - left)
        for j in range(center, right):
            out[j][i] = (right - j) / (right - center)
    return c.const(out, ember_dtype(a.get("output_datatype", 1), "MelWeightMatrix"))
