"""NumPy kernels of ember.nn: activations, linear, conv2d (im2col), pooling, norms, losses.

Public names here are kernels (``be.NAME``), all prefixed ``nn_``; helpers start with ``_``.
Half-precision inputs (float16, bfloat16) are computed in float32 and cast back, as PyTorch's
CPU kernels accumulate. Every kernel leaves its inputs untouched and returns fresh arrays.
"""

import math as _math

import numpy as np
from numpy.lib.stride_tricks import as_strided as _as_strided

from . import jit
from .core import NP, _warnings_off, sum_to_shape
from .elementwise import ew_erf
from .jit import activations
from .jit import rows as _rows

__all__ = [
    "nn_gelu", "nn_gelu_grad", "nn_silu", "nn_silu_grad", "nn_relu", "nn_relu_grad",
    "nn_softmax", "nn_softmax_grad",
    "nn_log_softmax", "nn_log_softmax_grad", "nn_linear", "nn_linear_grads",
    "nn_conv2d", "nn_conv2d_grads", "nn_max_pool2d", "nn_max_pool2d_grad",
    "nn_max_pool2d_indices", "nn_max_unpool2d", "nn_max_unpool2d_grad", "nn_avg_pool2d",
    "nn_avg_pool2d_grad", "nn_batch_norm", "nn_batch_norm_grads", "nn_running_update",
    "nn_layer_norm", "nn_layer_norm_grads", "nn_target_bad", "nn_class_loss",
    "nn_class_loss_grad", "nn_prob_loss", "nn_prob_loss_grads", "nn_pair_loss",
    "nn_pair_loss_grads", "nn_bce_logits", "nn_bce_logits_grads", "nn_dropout_apply",
    "nn_embedding", "nn_embedding_grad", "nn_embedding_renorm", "nn_scale", "nn_full_like_shape",
    "nn_reshape", "nn_int_max", "nn_zero_row", "nn_index_bad",
    "nn_attention", "nn_attention_grads",
]

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _np(dtype):
    """The NumPy dtype of the ember DType ``dtype`` (None stays None)."""
    return None if dtype is None else NP[dtype]


def _work(a):
    """``a`` in a dtype NumPy computes well: float32/float64 as they are, others as float32."""
    dt = a.dtype
    if dt == _F32 or dt == _F64:
        return a
    return a.astype(_F32)


def _out(a, dtype):
    """``a`` as NumPy dtype ``dtype``, an ndarray (never a NumPy scalar)."""
    return np.asarray(a.astype(dtype, copy=False) if a.dtype != dtype else a)


def nn_scale(a, factor, dtype):
    """``a * factor`` as NumPy dtype ``dtype``."""
    dtype = NP[dtype]
    return _out(_work(a) * factor, dtype)


def nn_reshape(a, shape):
    """``a`` reshaped (a view where the layout allows)."""
    return np.reshape(a, shape)


def nn_zero_row(a, row):
    """A copy of the 2-d ``a`` with row ``row`` set to zero."""
    out = np.array(a, copy=True)
    out[row] = 0
    return out


def nn_int_max(a):
    """The largest element of a non-empty int array, a Python int."""
    return int(a.max())


def nn_full_like_shape(shape, value, dtype):
    """A new array of ``shape`` filled with ``value`` (``dtype`` an ember DType)."""
    return np.full(shape, value, dtype=NP[dtype])


# -- activations --------------------------------------------------------------------------------

_SQRT_HALF = _math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / _math.sqrt(2.0 * _math.pi)
_SQRT_2_OVER_PI = _math.sqrt(2.0 / _math.pi)
_GELU_C = 0.044715


JIT_MIN_NUMEL = 4096  # below it the NumPy path is as fast as launching a compiled kernel


def _gelu_kernel(x, approximate, grad, g=None):
    """The compiled GELU kernel for ``x`` (and ``g``), or None: the NumPy path then."""
    if x.size < JIT_MIN_NUMEL or (x.dtype != _F32 and x.dtype != _F64) or \
            not x.flags.c_contiguous:
        return None
    if g is not None and (g.dtype != x.dtype or g.shape != x.shape or not g.flags.c_contiguous):
        return None
    return jit.kernel(*activations.gelu_source(x.dtype.name, approximate, grad))


def _phi32(w):
    """The normal CDF and ``exp(-w*w/2)`` of a float32 array, in float32:
    ``Phi = h`` (``w < 0``) or ``1 - h`` with ``h = erfc(|w|/sqrt 2)/2 = e * t * R(t) / 2``."""
    e = np.multiply(w, w, out=np.empty_like(w))     # out=: a 0-d array stays an array
    e *= np.float32(-0.5)
    np.exp(e, out=e)
    t = np.abs(w, out=np.empty_like(w))
    t *= np.float32(activations.ERFC_T_SCALE * _SQRT_HALF)
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    h = np.full_like(t, np.float32(0.5 * activations.ERFC_R[0]))
    for c in activations.ERFC_R[1:]:
        h *= t
        h += np.float32(0.5 * c)
    h *= t
    h *= e
    return np.where(w < 0, h, np.float32(1.0) - h), e


@_warnings_off
def nn_gelu(x, approximate):
    """GELU: ``x * Phi(x)`` (exact, through erf) or its tanh approximation. float32 (and the
    half types) compute in float32, float64 in float64."""
    k = _gelu_kernel(x, approximate, False)
    if k is not None:
        out = np.empty_like(x)
        k((x, out), (x.size, jit.num_threads()), ())
        return out
    w = _work(x)
    if approximate == "tanh":
        out = 0.5 * w * (1.0 + np.tanh(_SQRT_2_OVER_PI * (w + _GELU_C * w * w * w)))
    elif w.dtype == _F32:
        phi, _ = _phi32(w)
        out = np.multiply(w, phi, out=phi)
    else:
        out = 0.5 * w * (1.0 + ew_erf(w * _SQRT_HALF))
    return _out(out, x.dtype)


@_warnings_off
def nn_gelu_grad(g, x, approximate):
    """The gradient of ``nn_gelu`` for the output gradient ``g``."""
    k = _gelu_kernel(x, approximate, True, g)
    if k is not None:
        out = np.empty_like(x)
        k((g, x, out), (x.size, jit.num_threads()), ())
        return out
    w = _work(x)
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (w + _GELU_C * w * w * w)
        t = np.tanh(inner)
        d = 0.5 * (1.0 + t) + 0.5 * w * (1.0 - t * t) * _SQRT_2_OVER_PI * (
            1.0 + 3.0 * _GELU_C * w * w)
    elif w.dtype == _F32:
        d, e = _phi32(w)
        e *= np.float32(_INV_SQRT_2PI)
        e *= w
        d += e
    else:
        d = 0.5 * (1.0 + ew_erf(w * _SQRT_HALF)) + w * _INV_SQRT_2PI * np.exp(-0.5 * w * w)
    return _out(_work(g) * d, g.dtype)


def _sigmoid(w):
    """A stable logistic function of a float array."""
    e = np.exp(-np.abs(w))
    return np.where(w >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


@_warnings_off
def nn_silu(x):
    """SiLU (swish): ``x * sigmoid(x)``."""
    w = _work(x)
    return _out(w * _sigmoid(w), x.dtype)


@_warnings_off
def nn_silu_grad(g, x):
    """The gradient of ``nn_silu``: ``g * s * (1 + x * (1 - s))`` with ``s = sigmoid(x)``."""
    w = _work(x)
    s = _sigmoid(w)
    return _out(_work(g) * (s * (1.0 + w * (1.0 - s))), g.dtype)


def _log_softmax_work(w, axis):
    # x - max(x), as PyTorch: a +inf logit gives inf - inf = nan, so its whole slice is nan, and
    # so is a slice of -inf (nothing to normalize)
    if w.size == 0:
        return np.array(w, copy=True)
    z = np.subtract(w, w.max(axis=axis, keepdims=True))
    z -= np.log(np.sum(np.exp(z), axis=axis, keepdims=True))    # in place: one buffer less
    return z


# -- compiled row programs (jit/rows.py) ----------------------------------------------------------

JIT_MIN_NUMEL = 64  # measured: from 64 elements on, a compiled call is the faster


def _row_kernel(op, axis, a, *others):
    """The compiled row program ``op`` for ``a`` (and ``others`` of its dtype) reduced along
    ``axis``, or None for the NumPy path: a float32/float64 ``a`` of at least ``JIT_MIN_NUMEL``
    elements reduced along its last axis."""
    dt = a.dtype
    if (a.size < JIT_MIN_NUMEL or not a.size or axis != a.ndim - 1
            or (dt != _F32 and dt != _F64) or any(o.dtype != dt for o in others)):
        return None
    return _rows.kernel(op, dt)


def _run_rows(k, *arrays):
    """``k`` over the C-contiguous copies (or the arrays themselves) of ``arrays``, rows along
    the last axis; the fresh output."""
    arrays = tuple(np.ascontiguousarray(a) for a in arrays)
    a = arrays[0]
    out = np.empty(a.shape, a.dtype)
    cols = a.shape[-1]
    k((*arrays, out), (a.size // cols, cols, jit.num_threads()), ())
    return out


@_warnings_off
def nn_softmax(x, axis):
    """Softmax along ``axis``: the max is subtracted before ``exp``. One output buffer: the
    shifted values are exponentiated and divided in place."""
    k = _row_kernel("softmax", axis, x)
    if k is not None:
        return _run_rows(k, x)
    w = _work(x)
    if w.size == 0:
        return np.array(x, copy=True)
    e = np.subtract(w, w.max(axis=axis, keepdims=True))      # +inf or all -inf: nan, as PyTorch
    np.exp(e, out=e)
    e /= np.sum(e, axis=axis, keepdims=True)
    return _out(e, x.dtype)


def nn_softmax_grad(g, y, axis):
    """The gradient of softmax from its output ``y``: ``y * (g - sum(g * y))``."""
    k = _row_kernel("softmax_grad", axis, g, y)
    if k is not None:
        return _run_rows(k, g, y)
    gw, yw = _work(g), _work(y)
    if gw.size == 0:
        return np.array(g, copy=True)
    t = np.multiply(gw, yw)
    s = np.sum(t, axis=axis, keepdims=True)
    np.subtract(gw, s, out=t)                                       # t's buffer reused
    t *= yw
    return _out(t, g.dtype)


@_warnings_off
def nn_log_softmax(x, axis):
    """Log-softmax along ``axis``: ``x - max - log(sum(exp(x - max)))``."""
    k = _row_kernel("log_softmax", axis, x)
    if k is not None:
        return _run_rows(k, x)
    return _out(_log_softmax_work(_work(x), axis), x.dtype)


@_warnings_off
def nn_log_softmax_grad(g, y, axis):
    """The gradient of log-softmax from its output ``y``: ``g - exp(y) * sum(g)``."""
    k = _row_kernel("log_softmax_grad", axis, g, y)
    if k is not None:
        return _run_rows(k, g, y)
    gw, yw = _work(g), _work(y)
    if gw.size == 0:
        return np.array(g, copy=True)
    t = np.exp(yw)
    t *= np.sum(gw, axis=axis, keepdims=True)
    np.subtract(gw, t, out=t)
    return _out(t, g.dtype)


# -- relu ---------------------------------------------------------------------------------------

_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _select(g, mask, out=None):
    """``where(mask, g, 0)`` for a float ``g``, about four times faster than ``np.where``: the
    bits of ``g`` times the 0/1 mask as unsigned ints. An integer multiply, so an inf or nan in
    ``g`` where the mask is False still gives +0.0 (a float ``g * mask`` would give nan).
    ``out`` (optional) is a float array of the result's shape and ``g``'s dtype."""
    u = _UINT_OF_SIZE[g.dtype.itemsize]
    if out is not None:
        np.multiply(g.view(u), mask, out=out.view(u))
        return out
    r = np.multiply(g.view(u), mask)
    return (r if type(r) is np.ndarray else np.asarray(r)).view(g.dtype)


@_warnings_off
def nn_relu(x):
    """``max(x, 0)`` of a float array, keeping nan (a new array)."""
    r = np.maximum(x, np.zeros((), x.dtype))
    return r if type(r) is np.ndarray else np.asarray(r)


@_warnings_off
def nn_relu_grad(g, x):
    """The gradient of ``nn_relu``: 0 where ``x <= 0``, else ``g`` (NaN inputs pass ``g`` on, as
    PyTorch's), in ``g``'s dtype."""
    return _select(g, np.logical_not(np.less_equal(x, 0)))


# -- linear -------------------------------------------------------------------------------------

def nn_linear(x, w, b, dtype):
    """``x @ w.T + b`` (``b`` may be None), as NumPy dtype ``dtype``."""
    dtype = NP[dtype]
    xw = _work(x).astype(_F64 if dtype == _F64 else _F32, copy=False)
    ww = _work(w).astype(xw.dtype, copy=False)
    out = np.matmul(xw, ww.T)
    if b is not None:
        np.add(out, _work(b), out=out)       # in place: ``out`` is the matmul's fresh result
    return _out(out, dtype)


def nn_linear_grads(g, x, w, need_x, need_w, need_b, b_dtype):
    """Gradients of ``nn_linear`` (in each input's dtype): (gx, gw, gb), None where not needed."""
    b_dtype = _np(b_dtype)
    gw_ = _work(g)
    O, I = w.shape
    rows = _math.prod(gw_.shape[:-1])     # not -1: a size-0 layer leaves -1 ambiguous
    g2 = gw_.reshape(rows, O)
    gx = gw = gb = None
    if need_x:
        gx = _out(np.matmul(gw_, _work(w).astype(gw_.dtype, copy=False)), x.dtype)
    if need_w:
        gw = _out(np.matmul(g2.T, _work(x).reshape(rows, I)), w.dtype)
    if need_b:
        gb = _out(g2.sum(axis=0), b_dtype)
    return gx, gw, gb


# -- conv2d through im2col ----------------------------------------------------------------------

def _pad_hw(x, pads, value=0.0):
    """``x`` (N, C, H, W) padded by (top, bottom, left, right) with ``value`` (a new array)."""
    pt, pb, pl, pr = pads
    if not (pt or pb or pl or pr):
        return x
    N, C, H, W = x.shape
    out = np.full((N, C, H + pt + pb, W + pl + pr), value, dtype=x.dtype)
    out[:, :, pt:pt + H, pl:pl + W] = x
    return out


def _windows(xp, kernel, stride, dilation, out_hw):
    """A read-only view (N, C, OH, OW, kh, kw) of the sliding windows of ``xp`` (no copy)."""
    N, C = xp.shape[:2]
    kh, kw = kernel
    sN, sC, sH, sW = xp.strides
    return _as_strided(xp, (N, C, out_hw[0], out_hw[1], kh, kw),
                       (sN, sC, sH * stride[0], sW * stride[1], sH * dilation[0],
                        sW * dilation[1]), writeable=False)


def _col2im(d, shape, kernel, stride, dilation, out_hw):
    """Sum window gradients ``d`` (kh, kw, N, C, OH, OW) back into a zero array of ``shape``.

    Loops over the kh*kw kernel positions only; each step adds a whole strided slab.
    """
    out = np.zeros(shape, dtype=d.dtype)
    kh, kw = kernel
    sh, sw = stride
    dh, dw = dilation
    OH, OW = out_hw
    for i in range(kh):
        r0 = i * dh
        rs = slice(r0, r0 + sh * (OH - 1) + 1, sh)
        for j in range(kw):
            c0 = j * dw
            out[:, :, rs, c0:c0 + sw * (OW - 1) + 1:sw] += d[i, j]
    return out


def _kernel_slices(kernel, stride, dilation, out_hw):
    """(i, j, row slice, column slice) of the padded input that kernel position (i, j) reads."""
    (kh, kw), (sh, sw), (dh, dw), (OH, OW) = kernel, stride, dilation, out_hw
    return [(i, j, slice(i * dh, i * dh + sh * (OH - 1) + 1, sh),
             slice(j * dw, j * dw + sw * (OW - 1) + 1, sw)) for i in range(kh) for j in range(kw)]


def nn_conv2d(x, w, b, stride, pads, dilation, groups, out_hw, dtype):
    """2-D cross-correlation of ``x`` (N, C, H, W) with ``w`` (O, C/groups, kh, kw), plus ``b``.

    im2col: the windows of a padded copy of the input are gathered into columns (one copy)
    that one matmul per group contracts with the weights. The padded copy is laid out so that
    the gather reads long contiguous runs: channels last (a window row is kw * C contiguous
    values) when kw * C/groups exceeds the output width, else channels first (a window row
    is an output row, OW values). Either way the result is (O, N * OH * OW), bias added in
    place, and the output a (N, O, OH, OW) view of it: every (OH, OW) plane contiguous,
    which the per-channel reductions of batch norm read fastest. Returns (out, saved) where
    ``saved`` is what ``nn_conv2d_grads`` needs.
    """
    dtype = NP[dtype]
    unbatched = x.ndim == 3
    if unbatched:
        x = x[None]
    work = _F64 if dtype == _F64 else _F32
    N, C, H, W = x.shape
    O, Cg, kh, kw = w.shape
    G = groups
    Og = O // G
    OH, OW = out_hw
    M, K = N * OH * OW, Cg * kh * kw
    (sh, sw), (dh, dw) = stride, dilation
    pt, pb, pl, pr = pads
    Hp, Wp = H + pt + pb, W + pl + pr
    ww = w.astype(work, copy=False)
    last = Cg * kw > OW
    if last:
        xp = np.zeros((N, Hp, Wp, C), dtype=work)                      # padded, channels last
        xp[:, pt:pt + H, pl:pl + W, :] = x.transpose(0, 2, 3, 1)
        sN, sH, sW, sC = xp.strides
        win = _as_strided(xp, (G, N, OH, OW, kh, kw, Cg),
                          (Cg * sC, sN, sH * sh, sW * sw, sH * dh, sW * dw, sC), writeable=False)
        cols = win.reshape(G, M, K)                                    # the one copy
        wm = ww.reshape(G, Og, Cg, kh, kw).transpose(0, 1, 3, 4, 2).reshape(G, Og, K)
        mm = np.matmul(cols, wm.transpose(0, 2, 1)).transpose(0, 2, 1)   # (G, Og, M)
        out = np.empty((G, Og, M), dtype=work)
        if b is not None:   # one pass adds the bias and transposes
            np.add(mm, b.astype(work, copy=False).reshape(G, Og, 1), out=out)
        else:
            np.copyto(out, mm)
    else:
        xp = np.zeros((C, N, Hp, Wp), dtype=work)                      # channels, batch first
        xp[:, :, pt:pt + H, pl:pl + W] = x.transpose(1, 0, 2, 3)
        sC, sN, sH, sW = xp.strides
        win = _as_strided(xp, (G, Cg, kh, kw, N, OH, OW),
                          (Cg * sC, sC, sH * dh, sW * dw, sN, sH * sh, sW * sw), writeable=False)
        cols = win.reshape(G, K, M)                                    # the one copy
        wm = ww.reshape(G, Og, K)
        out = np.matmul(wm, cols)                                      # (G, Og, M)
        if b is not None:
            out += b.astype(work, copy=False).reshape(G, Og, 1)
    out = out.reshape(O, N, OH, OW).transpose(1, 0, 2, 3)
    saved = (last, cols, wm, x.shape, xp.shape, (kh, kw), stride, pads, dilation, G, out_hw,
             unbatched)
    return _out(out[0] if unbatched else out, dtype), saved


def nn_conv2d_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    """Gradients of ``nn_conv2d``: (gx, gw, gb), each in its input's dtype or None.

    gw is one matmul per group of the output gradient with the saved columns; gx is a matmul
    back to columns, laid out kernel position first, and a col2im: one add of a contiguous
    slab into the padded layout of the forward per kernel position.
    """
    x_dtype = NP[x_dtype]
    w_dtype = _np(w_dtype)
    b_dtype = _np(b_dtype)
    last, cols, wm, xshape, pshape, kernel, stride, pads, dilation, G, out_hw, unb = saved
    if unb:
        g = g[None]
    N, C, H, W = xshape
    (kh, kw), (OH, OW) = kernel, out_hw
    Og, K = wm.shape[1:]
    O, M, Cg = G * Og, N * OH * OW, C // G
    gm = g.astype(cols.dtype, copy=False).transpose(1, 0, 2, 3).reshape(O, M)
    gx = gw = gb = None
    if need_b:
        gb = _out(gm.sum(axis=1), b_dtype)
    gm = gm.reshape(G, Og, M)
    if need_w:
        if last:
            gw = np.matmul(gm, cols).reshape(G, Og, kh, kw, Cg).transpose(0, 1, 4, 2, 3)
        else:
            gw = np.matmul(gm, cols.transpose(0, 2, 1))
        gw = _out(gw.reshape(O, Cg, kh, kw), w_dtype)
    if need_x:
        dxp = np.zeros(pshape, dtype=cols.dtype)
        pt, _, pl, _ = pads
        if last:                                                      # dxp: (N, Hp, Wp, C)
            wk = wm.reshape(G, Og, kh * kw, Cg).transpose(0, 2, 1, 3)     # (G, kh*kw, Og, Cg)
            dcols = np.matmul(gm.transpose(0, 2, 1)[:, None], wk)      # (G, kh*kw, M, Cg)
            d = dcols.reshape(G, kh, kw, N, OH, OW, Cg).transpose(1, 2, 3, 4, 5, 0, 6)
            d5 = dxp.reshape(pshape[:3] + (G, Cg))
            for i, j, rs, cs in _kernel_slices(kernel, stride, dilation, out_hw):
                d5[:, rs, cs] += d[i, j]
            gx = dxp[:, pt:pt + H, pl:pl + W, :].transpose(0, 3, 1, 2)
        else:                                                         # dxp: (C, N, Hp, Wp)
            dcols = np.matmul(wm.transpose(0, 2, 1), gm)              # (G, K, M)
            d = dcols.reshape(C, kh, kw, N, OH, OW)
            for i, j, rs, cs in _kernel_slices(kernel, stride, dilation, out_hw):
                dxp[:, :, rs, cs] += d[:, i, j]
            gx = dxp[:, :, pt:pt + H, pl:pl + W].transpose(1, 0, 2, 3)
        gx = _out(gx[0] if unb else gx, x_dtype)
    return gx, gw, gb


# -- pooling ------------------------------------------------------------------------------------

def _slabs(xp, kernel, stride, dilation, out_hw):
    """The kh*kw strided views (N, C, OH, OW) of ``xp``, one per kernel position (row-major):
    slab k holds element k of every window."""
    sh, sw = stride
    dh, dw = dilation
    OH, OW = out_hw
    return [xp[:, :, i * dh:i * dh + sh * (OH - 1) + 1:sh, j * dw:j * dw + sw * (OW - 1) + 1:sw]
            for i in range(kernel[0]) for j in range(kernel[1])]


@_warnings_off
def nn_max_pool2d(x, kernel, stride, pads, dilation, out_hw):
    """Max pooling of ``x`` (N, C, H, W) or (C, H, W); padding counts as -inf.
    Returns (out, saved).

    A pairwise ``np.maximum`` over the kernel-position slabs (nan propagates): a few
    whole-array passes instead of an argmax over a tiny last axis per window."""
    unb = x.ndim == 3
    dtype = x.dtype
    if unb:
        x = x[None]
    xp = _pad_hw(_work(x), pads, -np.inf)
    slabs = _slabs(xp, kernel, stride, dilation, out_hw)
    out = slabs[0].copy(order="K")         # keeps the input's memory order (as the ufuncs)
    for s in slabs[1:]:
        np.maximum(out, s, out=out)
    return _out(out[0] if unb else out, dtype), (xp, out, x.shape, kernel, stride, pads,
                                                  dilation, out_hw, unb)


def _tap_inside(size, before, offset, stride, n):
    """Whether the tap at padded offset ``offset`` of each of the ``n`` windows along one axis
    lies inside the input (a bool (n,) array), or None when it does for every window."""
    pos = np.arange(n) * stride + offset
    ok = (pos >= before) & (pos < before + size)
    return None if ok.all() else ok


def _max_pool_hits(xp, out, xshape, kernel, stride, pads, dilation, out_hw):
    """Yield ``(k, hit, first)`` per kernel position ``k`` (row-major): ``hit`` (a bool array of
    the output's shape, or broadcastable to it) marks the windows whose selected element is tap
    ``k``; ``first`` is False in the second pass over NaN windows.

    PyTorch's CPU rule, found by experiment (torch 2.13): taps in the padding are skipped; a
    window's element is its first maximum in kernel order, or its last NaN when it has one (its
    scan is ``if val > maxval or isnan(val)``). A window with no tap inside the input (possible
    with dilation) selects nothing. Loops over the kernel positions only (twice with NaNs)."""
    slabs = _slabs(xp, kernel, stride, dilation, out_hw)
    H, W = xshape[2:]
    kh, kw = kernel
    (sh, sw), (dh, dw), (OH, OW) = stride, dilation, out_hw
    rows = [_tap_inside(H, pads[0], i * dh, sh, OH) for i in range(kh)]
    cols = [_tap_inside(W, pads[2], j * dw, sw, OW) for j in range(kw)]

    def inside(k):
        r, c = rows[k // kw], cols[k % kw]
        if r is None and c is None:
            return None
        r = np.ones(OH, bool) if r is None else r
        c = np.ones(OW, bool) if c is None else c
        return np.logical_and.outer(r, c)

    nanwin = np.isnan(out)
    if not nanwin.any():
        nanwin = None
    free = None if nanwin is None else ~nanwin  # windows whose element is not found yet
    last = len(slabs) - 1
    for k, s in enumerate(slabs):
        v = inside(k)
        if k == last:           # the element is here when no earlier tap had it
            hit = np.ones(out.shape, bool) if free is None else free
            if v is not None:
                hit = hit & v
        else:
            hit = np.equal(s, out)
            if v is not None:
                hit &= v
            if free is not None:
                hit &= free
        yield k, hit, True
        if k < last:
            free = ~hit if free is None else np.greater(free, hit, out=free)  # free & ~hit
    if nanwin is not None:      # NaN windows: their last NaN, scanning the taps backwards
        free = nanwin
        for k in range(last, -1, -1):
            hit = np.isnan(slabs[k]) & free
            yield k, hit, False
            if k:
                free = np.greater(free, hit, out=free if free is not nanwin else None)


@_warnings_off
def nn_max_pool2d_grad(g, saved):
    """The gradient of ``nn_max_pool2d``: each window's gradient goes to the element PyTorch's
    CPU kernel selects (see ``_max_pool_hits``: the first max among the taps inside the input,
    the last NaN when the window has one), found by comparing the slabs with the output."""
    xp, out, xshape, kernel, stride, pads, dilation, out_hw, unb = saved
    gdt = g.dtype
    gw = g[None] if unb else g
    if gw.dtype != xp.dtype or gw.strides != out.strides:
        # one copy into the output's memory order: ufuncs over operands laid out differently
        # cost several times more than this copy
        gw, g_ = np.empty_like(out), gw
        np.copyto(gw, g_, casting="unsafe")
    N, C, Hp, Wp = xp.shape
    # windows that tile the padded input exactly write every element once: no zeros, no sums
    tiled = (tuple(stride) == tuple(kernel) and tuple(dilation) == (1, 1)
             and Hp == kernel[0] * out_hw[0] and Wp == kernel[1] * out_hw[1])
    dxp = (np.empty_like if tiled else np.zeros_like)(xp, gw.dtype)
    dslabs = _slabs(dxp, kernel, stride, dilation, out_hw)
    for k, hit, first in _max_pool_hits(xp, out, xshape, kernel, stride, pads, dilation,
                                        out_hw):
        if tiled and first:
            _select(gw, np.broadcast_to(hit, out.shape), out=dslabs[k])
        else:
            dslabs[k] += _select(gw, hit)
    pt, _, pl, _ = pads
    gx = dxp[:, :, pt:pt + xshape[2], pl:pl + xshape[3]]
    return _out(gx[0] if unb else gx, gdt)


def nn_max_pool2d_indices(saved):
    """PyTorch's ``return_indices`` of ``nn_max_pool2d``: the flat index (into each H*W input
    plane, int64) of the element each window selects (``_max_pool_hits``). A window with no tap
    inside the input gets PyTorch's start index (its first row and column at or past 0, which
    lies outside the plane)."""
    xp, out, xshape, kernel, stride, pads, dilation, out_hw, unb = saved
    kpos = np.full(out.shape, -1, np.int64)
    for k, hit, _ in _max_pool_hits(xp, out, xshape, kernel, stride, pads, dilation, out_hw):
        np.copyto(kpos, k, where=hit)
    H, W = xshape[2:]
    kw = kernel[1]
    (sh, sw), (dh, dw), (OH, OW) = stride, dilation, out_hw
    r0 = np.arange(OH, dtype=np.int64)[:, None] * sh - pads[0]
    c0 = np.arange(OW, dtype=np.int64)[None, :] * sw - pads[2]
    idx = (r0 + kpos // kw * dh) * W + c0 + kpos % kw * dw
    empty = kpos < 0
    if empty.any():
        rs = np.where(r0 < 0, r0 + (-r0 + dh - 1) // dh * dh, r0)
        cs = np.where(c0 < 0, c0 + (-c0 + dw - 1) // dw * dw, c0)
        np.copyto(idx, np.broadcast_to(rs * W + cs, idx.shape), where=empty)
    return idx[0] if unb else idx


def _avg_divisor(size, kernel, stride, pad, out, include_pad):
    """PyTorch's per-output-position divisor along one axis (a 1-D float64 array)."""
    start = np.arange(out) * stride - pad
    end = np.minimum(start + kernel, size + pad)
    if include_pad:
        return (end - start).astype(_F64)
    return (np.minimum(end, size) - np.maximum(start, 0)).astype(_F64)


@_warnings_off
def nn_avg_pool2d(x, kernel, stride, pads, padding, out_hw, count_include_pad, divisor_override):
    """Average pooling of ``x`` (N, C, H, W) or (C, H, W) with PyTorch's divisors.
    Returns (out, saved)."""
    unb = x.ndim == 3
    dtype = x.dtype
    if unb:
        x = x[None]
    work = _work(x)
    H, W = x.shape[2:]
    xp = _pad_hw(work, pads, 0.0)
    win = _windows(xp, kernel, stride, (1, 1), out_hw)
    sums = win.sum(axis=(-2, -1))
    if divisor_override is not None:
        div = np.full(out_hw, float(divisor_override))
    else:
        dh = _avg_divisor(H, kernel[0], stride[0], padding[0], out_hw[0], count_include_pad)
        dw = _avg_divisor(W, kernel[1], stride[1], padding[1], out_hw[1], count_include_pad)
        div = np.multiply.outer(dh, dw)
    out = sums / div
    return _out(out[0] if unb else out, dtype), (div, x.shape, xp.shape, kernel, stride, pads,
                                                  out_hw, unb)


@_warnings_off
def nn_avg_pool2d_grad(g, saved):
    """The gradient of ``nn_avg_pool2d``: each window's gradient, divided, spread over it."""
    div, xshape, pshape, kernel, stride, pads, out_hw, unb = saved
    gdt = g.dtype
    gd = _work(g[None] if unb else g) / div
    kh, kw = kernel
    d = np.broadcast_to(gd, (kh, kw) + gd.shape)
    dxp = _col2im(d, pshape, kernel, stride, (1, 1), out_hw)
    pt, _, pl, _ = pads
    gx = dxp[:, :, pt:pt + xshape[2], pl:pl + xshape[3]]
    return _out(gx[0] if unb else gx, gdt)


# -- normalization ------------------------------------------------------------------------------

def _per_channel(a):
    """``a`` (N, C, *rest) as a (N, C, L) view where the layout allows (a copy otherwise)."""
    return a.reshape(a.shape[:2] + (_math.prod(a.shape[2:]),))


@_warnings_off
def nn_batch_norm(x, w, b, running_mean, running_var, use_batch, eps, dtype):
    """Batch norm over every dim but dim 1. Returns (out, saved, batch_mean, batch_var_unbiased);
    the batch statistics are None when the running ones are used.

    Works on (N, C, L) views: the per-channel sums are ``einsum`` contractions (several times
    faster than ``mean``/``var`` over the axes (0, 2, ...)), and the centred values become the
    normalized ones in place."""
    dtype = NP[dtype]
    work = _F64 if dtype == _F64 else _F32
    x3 = _per_channel(x.astype(work, copy=False))
    C = x.shape[1]
    count = x3.shape[0] * x3.shape[2]
    if use_batch:
        mean = np.einsum("ncl->c", x3) / count
        xhat = x3 - mean[:, None]
        var = np.einsum("ncl,ncl->c", xhat, xhat) / count
    else:
        mean = running_mean.astype(work)
        var = running_var.astype(work)
        xhat = x3 - mean[:, None]
    invstd = 1.0 / np.sqrt(var + eps)
    xhat *= invstd[:, None]
    ww = None
    if w is not None:
        ww = w.astype(work, copy=False)
        out = xhat * ww[:, None]
    else:
        out = xhat.copy()
    if b is not None:
        out += b.astype(work, copy=False)[:, None]
    unbiased = var * (count / (count - 1)) if use_batch and count > 1 else var
    saved = (xhat, invstd, ww, x.shape, use_batch)
    return _out(out.reshape(x.shape), dtype), saved, (mean if use_batch else None), (
        unbiased if use_batch else None)


@_warnings_off
def nn_batch_norm_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    """Gradients of ``nn_batch_norm``: (gx, gw, gb). With batch statistics,
    ``gx = invstd * w * (g - mean(g) - xhat * mean(g * xhat))``, the means per channel."""
    x_dtype = NP[x_dtype]
    w_dtype = _np(w_dtype)
    b_dtype = _np(b_dtype)
    xhat, invstd, ww, shape, use_batch = saved
    g3 = _per_channel(g.astype(xhat.dtype, copy=False))
    count = g3.shape[0] * g3.shape[2]
    gx = gw = gb = None
    gsum = np.einsum("ncl->c", g3) if need_b or (need_x and use_batch) else None
    gxsum = np.einsum("ncl,ncl->c", g3, xhat) if need_w or (need_x and use_batch) else None
    if need_b:
        gb = _out(gsum, b_dtype)
    if need_w:
        gw = _out(gxsum, w_dtype)
    if need_x:
        k = invstd * ww if ww is not None else invstd                 # (C,)
        if use_batch:
            t = xhat * (gxsum / count)[:, None]
            t += (gsum / count)[:, None]
            np.subtract(g3, t, out=t)
            t *= k[:, None]
        else:
            t = g3 * k[:, None]
        gx = _out(t.reshape(shape), x_dtype)
    return gx, gw, gb


def nn_running_update(running, batch, momentum, dtype):
    """``(1 - momentum) * running + momentum * batch`` as NumPy dtype ``dtype`` (a new array)."""
    dtype = NP[dtype]
    return _out((1.0 - momentum) * running.astype(_F64) + momentum * batch.astype(_F64), dtype)


@_warnings_off
def nn_layer_norm(x, w, b, ndims, eps, dtype):
    """Layer norm over the last ``ndims`` dims, then ``* w + b`` (either may be None)."""
    dtype = NP[dtype]
    work = _F64 if dtype == _F64 else _F32
    axes = tuple(range(x.ndim - ndims, x.ndim))
    if (work == dtype == x.dtype and x.size >= JIT_MIN_NUMEL and x.size
            and (w is None or w.dtype == dtype) and (b is None or b.dtype == dtype)):
        k = _rows.kernel("layer_norm", dtype)
        if k is not None:
            return _layer_norm_rows(k, x, w, b, axes, eps)
    xw = x.astype(work, copy=False)
    if xw.size:
        mean = xw.mean(axis=axes, keepdims=True)
        var = xw.var(axis=axes, keepdims=True)
    else:  # nothing to normalize: no statistics (NumPy would warn about empty means)
        mean = var = np.zeros(x.shape[:x.ndim - ndims] + (1,) * ndims, work)
    invstd = 1.0 / np.sqrt(var + eps)
    xhat = (xw - mean) * invstd
    out = xhat
    ww = None
    if w is not None:
        ww = w.astype(work, copy=False)
        out = out * ww
    if b is not None:
        out = out + b.astype(work, copy=False)
    return _out(out, dtype), (xhat, invstd, ww, axes)


def _layer_norm_rows(k, x, w, b, axes, eps):
    """``nn_layer_norm`` by the compiled row program ``k`` (x, w, b of one float dtype). Saves
    (x, mean, rstd, w, axes): the backward recomputes ``xhat`` row by row, as PyTorch does."""
    x = np.ascontiguousarray(x)
    cols = _math.prod(x.shape[i] for i in axes)
    rows = x.size // cols
    wc = None if w is None else np.ascontiguousarray(w)
    bc = None if b is None else np.ascontiguousarray(b)
    out = np.empty(x.shape, x.dtype)
    mean = np.empty(rows, x.dtype)
    rstd = np.empty(rows, x.dtype)
    k((x, x if wc is None else wc, x if bc is None else bc, out, mean, rstd),
      (rows, cols, jit.num_threads(), wc is not None, bc is not None), (float(eps),))
    return out, (x, mean, rstd, wc, axes)


def _layer_norm_grads_rows(k, g, saved, need_x, need_w, need_b):
    """(gx, gw, gb) of the compiled forward's ``saved`` by the compiled row program ``k``."""
    x, mean, rstd, wc, axes = saved
    g = np.ascontiguousarray(g, dtype=x.dtype)
    rows = mean.shape[0]
    cols = x.size // rows
    nt = jit.num_threads()
    nothing = np.empty(0, x.dtype)   # stands for an array the kernel neither reads nor writes
    gx = np.empty(x.shape, x.dtype) if need_x else nothing
    gw = np.empty(wc.shape if wc is not None else (), x.dtype) if need_w else nothing
    gb = np.empty(x.shape[x.ndim - len(axes):], x.dtype) if need_b else nothing
    scratch = (np.zeros(_rows.scratch_bytes(rows, cols, nt, x.dtype), np.uint8)
               if need_w or need_b else nothing)
    k((g, x, mean, rstd, x if wc is None else wc, gx, gw, gb, scratch),
      (rows, cols, nt, wc is not None, need_x, need_w, need_b), ())
    return gx if need_x else None, gw if need_w else None, gb if need_b else None


@_warnings_off
def nn_layer_norm_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    """Gradients of ``nn_layer_norm``: (gx, gw, gb)."""
    x_dtype = NP[x_dtype]
    w_dtype = _np(w_dtype)
    b_dtype = _np(b_dtype)
    if len(saved) == 5:  # the compiled forward's: (x, mean, rstd, w, axes)
        x, mean, rstd, ww, axes = saved
        k = _rows.kernel("layer_norm_grads", x.dtype)
        if k is not None:
            gx, gw, gb = _layer_norm_grads_rows(k, g, saved, need_x, need_w, need_b)
            return (None if gx is None else _out(gx, x_dtype),
                    None if gw is None else _out(gw, w_dtype),
                    None if gb is None else _out(gb, b_dtype))
        stat = x.shape[:x.ndim - len(axes)] + (1,) * len(axes)
        invstd = rstd.reshape(stat)
        saved = ((x - mean.reshape(stat)) * invstd, invstd, ww, axes)
    xhat, invstd, ww, axes = saved
    gw_ = g.astype(xhat.dtype, copy=False)
    lead = tuple(range(g.ndim - len(axes)))
    gx = gw = gb = None
    if need_b:
        gb = _out(gw_.sum(axis=lead), b_dtype)
    if need_w:
        gw = _out((gw_ * xhat).sum(axis=lead), w_dtype)
    if need_x and not xhat.size:
        gx = _out(gw_, x_dtype)  # empty
    elif need_x:
        dxhat = gw_ * ww if ww is not None else gw_
        gx = invstd * (dxhat - dxhat.mean(axis=axes, keepdims=True)
                       - xhat * (dxhat * xhat).mean(axis=axes, keepdims=True))
        gx = _out(gx, x_dtype)
    return gx, gw, gb


# -- losses -------------------------------------------------------------------------------------

def nn_target_bad(target, num_classes, ignore_index):
    """The first class index of ``target`` outside ``[0, num_classes)`` (other than
    ``ignore_index``) as a Python int, or None when all are in range."""
    if target.size == 0:
        return None
    if target.min() >= 0 and target.max() < num_classes:    # the usual case: two reductions
        return None
    bad = (target < 0) | (target >= num_classes)
    if ignore_index is not None:
        bad &= target != ignore_index
    if not bad.any():
        return None
    return int(target[bad].ravel()[0])


def _reduce(per, reduction, denom):
    if reduction == "none":
        return per
    total = per.sum()
    if reduction == "sum":
        return np.asarray(total)
    return np.asarray(total / denom)


def _grad_scale(g, reduction, denom, shape):
    """The output gradient spread over the per-element losses (an array of ``shape``)."""
    if reduction == "none":
        return g
    if reduction == "sum":
        return np.broadcast_to(g, shape)
    return np.broadcast_to(g / denom, shape)


@_warnings_off
def nn_class_loss(x, target, weight, ignore_index, smoothing, reduction, from_logits, dtype):
    """Cross entropy (``from_logits``) or NLL (``x`` already log-probabilities) with class-index
    targets. ``x`` is (N, C, *rest), ``target`` (N, *rest). Returns (loss, saved)."""
    dtype = NP[dtype]
    work = _F64 if dtype == _F64 else _F32
    if (x.ndim == 2 and x.size and from_logits and weight is None and not smoothing
            and not (target == ignore_index).any()):
        return _cross_entropy_2d(x.astype(work, copy=False), target, reduction, dtype)
    xl = np.moveaxis(x.astype(work, copy=False), 1, -1)               # (N, *rest, C)
    C = xl.shape[-1]
    logp = _log_softmax_work(xl, -1) if from_logits else xl
    valid = target != ignore_index
    tt = np.where(valid, target, 0).astype(np.intp)
    if C:
        picked = np.take_along_axis(logp, tt[..., None], axis=-1)[..., 0]
    else:
        picked = np.zeros(tt.shape, dtype=work)
    wv = weight.astype(work, copy=False) if weight is not None else None
    w_t = np.where(valid, wv[tt] if wv is not None else 1.0, 0.0).astype(work)
    per = -w_t * picked
    if smoothing:
        smooth = -(logp * wv).sum(axis=-1) if wv is not None else -logp.sum(axis=-1)
        smooth = np.where(valid, smooth, 0.0)
        per = (1.0 - smoothing) * per + (smoothing / C) * smooth
    denom = w_t.sum()
    loss = _reduce(per, reduction, denom)
    saved = (logp, tt, w_t, valid, wv, smoothing, reduction, denom, from_logits, per.shape)
    return _out(loss, dtype), saved


def _cross_entropy_2d(x, target, reduction, dtype):
    """The fast path of ``nn_class_loss``: cross entropy of logits ``x`` (N, C) in the work
    dtype, N, C > 0, no class weights, no smoothing, no ignored target. The same arithmetic as
    the general path (same values, bit for bit) without its moveaxis, take_along_axis and
    masks; ``nn_class_loss_grad`` recognizes the saved tuple by its length."""
    if x.size >= JIT_MIN_NUMEL:
        k = _rows.kernel("cross_entropy", x.dtype)
        if k is not None:
            return _cross_entropy_rows(k, x, target, reduction, dtype)
    rows = np.arange(x.shape[0])
    tt = target.astype(np.intp, copy=False)
    z = x - x.max(axis=1, keepdims=True)                         # as _log_softmax_work
    lse = np.log(np.exp(z).sum(axis=1))                          # (N,)
    per = lse - z[rows, tt]                                      # -log_softmax at the targets
    denom = x.dtype.type(x.shape[0])
    loss = _reduce(per, reduction, denom)
    return _out(loss, dtype), (z, lse, rows, tt, reduction, denom)


def _cross_entropy_rows(k, x, target, reduction, dtype):
    """``_cross_entropy_2d`` by the compiled row program ``k``; saves (x, targets, row max,
    logsumexp, reduction, denom, the kernel's dtype), whose length tells it apart."""
    x = np.ascontiguousarray(x)
    N, C = x.shape
    tt = np.ascontiguousarray(target, dtype=np.int64)
    per, mx, lse = np.empty(N, x.dtype), np.empty(N, x.dtype), np.empty(N, x.dtype)
    k((x, tt, per, mx, lse), (N, C, jit.num_threads()), ())
    denom = x.dtype.type(N)
    loss = _reduce(per, reduction, denom)
    return _out(loss, dtype), (x, tt, mx, lse, reduction, denom, x.dtype)


def _cross_entropy_grad_rows(g, saved):
    """The input gradient of ``_cross_entropy_rows``'s loss, in the saved dtype."""
    x, tt, mx, lse, reduction, denom, _ = saved
    g = g.astype(x.dtype, copy=False)
    N = x.shape[0]
    scale = g if reduction == "none" else g / denom if reduction == "mean" else g
    scale = np.ascontiguousarray(np.broadcast_to(scale, (N,)), dtype=x.dtype)
    k = _rows.kernel("cross_entropy_grad", x.dtype)
    if k is not None:
        gx = np.empty(x.shape, x.dtype)
        k((x, tt, mx, lse, scale, gx), (N, x.shape[1], jit.num_threads()), ())
        return gx
    gx = np.subtract(x, mx[:, None])                             # the NumPy fast path's steps
    gx -= lse[:, None]
    np.exp(gx, out=gx)
    gx[np.arange(N), tt] -= 1.0
    gx *= scale[:, None]
    return gx


@_warnings_off
def nn_class_loss_grad(g, saved, x_dtype):
    """The gradient of ``nn_class_loss`` with respect to ``x``: ``(softmax * sum(q) - q)``
    scaled (or ``-q`` for NLL), where ``q`` are the per-class loss coefficients."""
    x_dtype = NP[x_dtype]
    if len(saved) == 7:  # the compiled fast path's
        return _out(_cross_entropy_grad_rows(g, saved), x_dtype)
    if len(saved) == 6:  # the fast path's: softmax minus the one-hot targets, scaled
        z, lse, rows, tt, reduction, denom = saved
        g = g.astype(z.dtype, copy=False)
        gx = np.subtract(z, lse[:, None])
        np.exp(gx, out=gx)
        gx[rows, tt] -= 1.0
        gx *= g[:, None] if reduction == "none" else g / denom if reduction == "mean" else g
        return _out(gx, x_dtype)
    logp, tt, w_t, valid, wv, smoothing, reduction, denom, from_logits, pshape = saved
    C = logp.shape[-1]
    scale = _grad_scale(g.astype(logp.dtype, copy=False), reduction, denom, pshape)
    q = np.zeros(logp.shape, dtype=logp.dtype)
    if C:
        np.put_along_axis(q, tt[..., None], ((1.0 - smoothing) * w_t)[..., None], axis=-1)
    if smoothing:
        base = wv if wv is not None else 1.0
        q = q + (smoothing / C) * np.where(valid[..., None], base, 0.0)
    if from_logits:
        gx = np.exp(logp) * q.sum(axis=-1, keepdims=True) - q
    else:
        gx = -q
    # ignored targets get no gradient (not 0 * nan when every target is ignored)
    gx = np.where(valid[..., None], gx * scale[..., None], 0.0)
    return _out(np.moveaxis(gx, -1, 1), x_dtype)


@_warnings_off
def nn_prob_loss(x, target, weight, smoothing, reduction, dtype):
    """Cross entropy with class-probability targets (same shape as ``x``, classes in dim 1)."""
    dtype = NP[dtype]
    work = _F64 if dtype == _F64 else _F32
    xl = np.moveaxis(x.astype(work, copy=False), 1, -1)
    tl = np.moveaxis(target.astype(work, copy=False), 1, -1)
    C = xl.shape[-1]
    logp = _log_softmax_work(xl, -1)
    tt = tl * (1.0 - smoothing) + smoothing / C if smoothing else tl
    wv = weight.astype(work, copy=False) if weight is not None else None
    q = tt * wv if wv is not None else tt
    per = -(logp * q).sum(axis=-1)
    denom = float(x.size // C) if C else 0.0
    loss = _reduce(per, reduction, denom)
    return _out(loss, dtype), (logp, q, wv, smoothing, reduction, denom, per.shape)


@_warnings_off
def nn_prob_loss_grads(g, saved, need_x, need_t, x_dtype, t_dtype):
    """Gradients of ``nn_prob_loss`` with respect to the logits and the target probabilities."""
    x_dtype = NP[x_dtype]
    t_dtype = _np(t_dtype)
    logp, q, wv, smoothing, reduction, denom, pshape = saved
    scale = _grad_scale(g.astype(logp.dtype, copy=False), reduction, denom, pshape)[..., None]
    gx = gt = None
    if need_x:
        gx = _out(np.moveaxis((np.exp(logp) * q.sum(axis=-1, keepdims=True) - q) * scale,
                              -1, 1), x_dtype)
    if need_t:
        d = -(1.0 - smoothing) * logp
        if wv is not None:
            d = d * wv
        gt = _out(np.moveaxis(d * scale, -1, 1), t_dtype)
    return gx, gt


@_warnings_off
def nn_pair_loss(a, b, kind, reduction, dtype):
    """Elementwise regression losses of broadcast ``a`` and ``b``: ``"mse"`` or ``"l1"``."""
    dtype = NP[dtype]
    work = _F64 if dtype == _F64 else _F32
    diff = a.astype(work, copy=False) - b.astype(work, copy=False)
    per = diff * diff if kind == "mse" else np.abs(diff)
    loss = _reduce(per, reduction, float(per.size))
    return _out(loss, dtype), (diff, kind, reduction)


@_warnings_off
def nn_pair_loss_grads(g, saved):
    """The gradient of ``nn_pair_loss`` with respect to ``a`` at the broadcast shape (that of
    ``b`` is its negation)."""
    diff, kind, reduction = saved
    scale = _grad_scale(g.astype(diff.dtype, copy=False), reduction, float(diff.size), diff.shape)
    d = 2.0 * diff if kind == "mse" else np.sign(diff)
    return d * scale


@_warnings_off
def nn_bce_logits(x, t, weight, pos_weight, reduction, dtype):
    """Binary cross entropy on logits, stable: ``(1 - t) x - lw * logsigmoid(x)`` with
    ``lw = 1 + (pos_weight - 1) t``, times ``weight``. Returns (loss, saved)."""
    dtype = NP[dtype]
    work = _F64 if dtype == _F64 else _F32
    xw = x.astype(work, copy=False)
    tw = t.astype(work, copy=False)
    logsig = np.minimum(xw, 0.0) - np.log1p(np.exp(-np.abs(xw)))
    pw = pos_weight.astype(work, copy=False) if pos_weight is not None else None
    lw = 1.0 + (pw - 1.0) * tw if pw is not None else 1.0
    raw = (1.0 - tw) * xw - lw * logsig
    ww = weight.astype(work, copy=False) if weight is not None else None
    per = raw * ww if ww is not None else raw
    per = np.broadcast_to(per, np.broadcast_shapes(per.shape, xw.shape))
    loss = _reduce(per, reduction, float(per.size))
    return _out(loss, dtype), (xw, tw, logsig, pw, lw, raw, ww, reduction, per.shape)


@_warnings_off
def nn_bce_logits_grads(g, saved):
    """Gradients of ``nn_bce_logits`` at the broadcast shape: (gx, gt, gweight, gpos_weight)."""
    xw, tw, logsig, pw, lw, raw, ww, reduction, pshape = saved
    scale = _grad_scale(g.astype(xw.dtype, copy=False), reduction, float(np.prod(pshape)), pshape)
    sig_neg = np.exp(logsig - xw)                                  # sigmoid(-x)
    wscale = scale * ww if ww is not None else scale
    gx = ((1.0 - tw) - lw * sig_neg) * wscale
    dt = -xw - ((pw - 1.0) * logsig if pw is not None else 0.0)
    gt = dt * wscale
    gw = raw * scale
    gpw = -tw * logsig * wscale
    return gx, gt, gw, gpw


# -- dropout, embedding -------------------------------------------------------------------------

def nn_dropout_apply(x, mask, scale):
    """``x * mask * scale`` in ``x``'s dtype."""
    return _out(_work(x) * _work(mask) * scale, x.dtype)


def nn_embedding(weight, idx):
    """Rows ``weight[idx]``: shape ``idx.shape + (D,)`` (a new array)."""
    return np.take(weight, idx, axis=0)


def nn_embedding_grad(g, idx, num, padding_idx, scale_grad_by_freq=False):
    """The gradient of ``nn_embedding``: the output gradient summed into rows (none to
    ``padding_idx``); with ``scale_grad_by_freq`` each row's sum is divided by how often its
    index occurs in ``idx``."""
    D = g.shape[-1]
    gw = _work(g).reshape(idx.size, D)
    flat = idx.reshape(-1).astype(np.intp)
    out = np.zeros((num, D), dtype=gw.dtype)
    np.add.at(out, flat, gw)
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=num)
        out /= np.maximum(counts, 1).astype(out.dtype)[:, None]
    if padding_idx is not None:
        out[padding_idx] = 0.0
    return _out(out, g.dtype)


@_warnings_off
def nn_embedding_renorm(weight, idx, max_norm, norm_type):
    """PyTorch's ``embedding_renorm_`` without the in-place write: a new array equal to
    ``weight`` (num, dim) except that each row indexed by ``idx`` whose ``norm_type``-norm
    exceeds ``max_norm`` is scaled by ``max_norm / (norm + 1e-7)``; None when no row changes.
    The norms are computed in float64 (PyTorch: in the weight's dtype, then as a double)."""
    rows = np.unique(idx.reshape(-1).astype(np.intp))
    if rows.size == 0 or weight.shape[1] == 0:
        return None
    sel = np.abs(weight[rows].astype(_F64))
    p = norm_type
    if p == np.inf:
        norms = sel.max(axis=1)
    elif p == -np.inf:
        norms = sel.min(axis=1)
    elif p == 0:
        norms = np.count_nonzero(sel, axis=1).astype(_F64)
    else:
        norms = np.sum(sel ** p, axis=1) ** (1.0 / p)
    big = norms > max_norm
    if not big.any():
        return None
    rows = rows[big]
    scale = max_norm / (norms[big] + 1e-7)
    out = np.array(weight, copy=True)
    out[rows] = _out(_work(weight[rows]) * scale.astype(_work(weight[:0]).dtype)[:, None],
                     weight.dtype)
    return out


def nn_index_bad(idx, size):
    """The first element of the int array ``idx`` outside ``[0, size)`` as a Python int, or
    None when all are in range (also when ``idx`` is empty)."""
    return nn_target_bad(idx, size, None)


# -- max_unpool2d -------------------------------------------------------------------------------

def nn_max_unpool2d(x, idx, out_hw):
    """PyTorch's ``max_unpool2d``: zeros of (N, C) + ``out_hw`` (or (C,) + ``out_hw``) with each
    value of ``x`` written at its flat plane index in ``idx`` (same shape as ``x``); where
    indices repeat, the last value in row-major order wins (PyTorch leaves it unspecified)."""
    lead = x.shape[:-2]
    L = out_hw[0] * out_hw[1]
    n = x.shape[-2] * x.shape[-1]
    out = np.zeros(lead + (L,), dtype=x.dtype)
    np.put_along_axis(out, idx.reshape(lead + (n,)).astype(np.intp), x.reshape(lead + (n,)),
                      axis=-1)
    return out.reshape(lead + tuple(out_hw))


def nn_max_unpool2d_grad(g, idx):
    """The gradient of ``nn_max_unpool2d``: ``g`` read at each index (a gather per plane, as
    PyTorch's, also where indices repeat)."""
    lead = idx.shape[:-2]
    n = idx.shape[-2] * idx.shape[-1]
    gf = g.reshape(lead + (g.shape[-2] * g.shape[-1],))
    return np.take_along_axis(gf, idx.reshape(lead + (n,)).astype(np.intp),
                              axis=-1).reshape(idx.shape)


# -- scaled dot-product attention ---------------------------------------------------------------

def _heads(a, groups):
    """``a`` with each head (dim -3) repeated ``groups`` times, the copies next to each other
    (grouped-query attention)."""
    return a if groups == 1 else np.repeat(a, groups, axis=-3)


def _unheads(g, groups):
    """The gradient of ``_heads``: each group of ``groups`` consecutive heads summed."""
    if groups == 1:
        return g
    shape = g.shape
    return g.reshape(shape[:-3] + (shape[-3] // groups, groups) + shape[-2:]).sum(axis=-3)


@_warnings_off
def nn_attention(q, k, v, bias, allowed, causal, scale, groups_k, groups_v, keep, keep_scale):
    """``softmax(q @ k^T * scale + bias) @ v`` over the last dim, with ``-inf`` where ``allowed``
    (a bool array) is False or above the diagonal when ``causal``; a row with every score
    ``-inf`` gets weights 0 (PyTorch's safe softmax). ``keep`` (or None) is the dropout mask of
    the weights, scaled by ``keep_scale``. Half floats compute in float32.

    Returns (out in ``q``'s dtype, saved arrays for ``nn_attention_grads``).
    """
    dt = q.dtype
    qw, kw, vw = _work(q), _heads(_work(k), groups_k), _heads(_work(v), groups_v)
    s = np.matmul(qw, np.swapaxes(kw, -1, -2))  # a fresh array: the steps below work in place
    if qw.shape[-1]:  # with no features every score is 0, whatever the scale
        s *= scale
    if bias is not None:
        s = s + _work(bias) if s.shape != bias.shape else np.add(s, _work(bias), out=s)
    if causal:
        np.copyto(s, -np.inf, where=np.logical_not(np.tri(s.shape[-2], s.shape[-1], dtype=bool)))
    if allowed is not None:
        np.copyto(s, -np.inf, where=np.logical_not(allowed))
    if s.shape[-1] == 0:
        p = s
    else:
        m = np.max(s, axis=-1, keepdims=True)
        m[m == -np.inf] = 0.0  # a fully masked row: exp gives zeros, and zeros it stays
        s -= m
        p = np.exp(s, out=s)
        total = np.sum(p, axis=-1, keepdims=True)
        total[total == 0] = 1.0
        p /= total
    pd = p if keep is None else p * _work(keep) * keep_scale
    out = np.matmul(pd, vw)
    return _out(out, dt), (qw, kw, vw, p, pd, keep, keep_scale, scale, groups_k, groups_v)


def nn_attention_grads(g, saved, shapes, needs):
    """The gradients (gq, gk, gv, gbias) of ``nn_attention`` for its output gradient ``g``, each
    summed back to its input's shape (``shapes``) in ``g``'s dtype; None where ``needs`` is
    False."""
    qw, kw, vw, p, pd, keep, keep_scale, scale, groups_k, groups_v = saved
    dt = g.dtype
    gw = _work(g)
    gq = gk = gv = gb = None
    if needs[2]:
        gv = sum_to_shape(np.matmul(np.swapaxes(pd, -1, -2), gw), vw.shape)
        gv = _out(sum_to_shape(_unheads(gv, groups_v), shapes[2]), dt)
    if needs[0] or needs[1] or needs[3]:
        gp = np.matmul(gw, np.swapaxes(vw, -1, -2))
        if keep is not None:
            gp = gp * _work(keep) * keep_scale
        gs = p * (gp - np.sum(gp * p, axis=-1, keepdims=True))
        if needs[3]:
            gb = _out(sum_to_shape(gs, shapes[3]), dt)
        if qw.shape[-1]:
            gs = gs * scale
        if needs[0]:
            gq = _out(sum_to_shape(np.matmul(gs, kw), shapes[0]), dt)
        if needs[1]:
            gk = sum_to_shape(np.matmul(np.swapaxes(gs, -1, -2), qw), kw.shape)
            gk = _out(sum_to_shape(_unheads(gk, groups_k), shapes[1]), dt)
    return gq, gk, gv, gb
