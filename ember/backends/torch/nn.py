"""What the nn kernel files of the PyTorch backend share (activation.py, linear.py, conv.py,
pool.py, dropout.py), and the layer and group norms: torch's fused kernels in the working dtype,
within float32 rounding of the defaults; the small nn kernels are the defaults of base/nn.py.

Kernels are named ``nn_*``; helpers start with ``_``.
"""


import torch

from .core import TORCH

__all__ = ["nn_layer_norm", "nn_layer_norm_grads", "nn_group_norm", "nn_group_norm_grads"]

_F32 = torch.float32
_F64 = torch.float64
_aten = torch.ops.aten


def _td(dtype):
    """The torch dtype of the ember DType ``dtype`` (None stays None)."""
    return None if dtype is None else TORCH[dtype]


def _work(a):
    """``a`` in float32 or float64 (others as float32)."""
    dt = a.dtype
    return a if dt == _F32 or dt == _F64 else a.to(_F32)


def _work_of(dtype):
    """The working dtype of a result of torch dtype ``dtype``."""
    return _F64 if dtype == _F64 else _F32


def _out(a, dtype):
    return a if a.dtype == dtype else a.to(dtype)


def _long(idx):
    """An int tensor as int64 (torch indexes with int64; uint16/32 convert exactly)."""
    return idx if idx.dtype == torch.int64 else idx.to(torch.int64)


# override: 1.3 ms vs the default's 30 ms (float32 (4096, 1024), weight and bias, one thread)
def nn_layer_norm(x, w, b, ndims, eps, dtype):
    xw, ww, bw = (None if a is None else _out(a, _work_of(TORCH[dtype])) for a in (x, w, b))
    shape = tuple(x.shape[x.ndim - ndims:])
    out, mean, rstd = torch.native_layer_norm(xw, shape, ww, bw, eps)
    return _out(out, TORCH[dtype]), (xw, ww, bw, mean, rstd, shape)


# override: 3.3 ms vs the default's 47 ms (float32 (4096, 1024), the input's gradient)
def nn_layer_norm_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    xw, ww, bw, mean, rstd, shape = saved
    return _grads(_aten.native_layer_norm_backward, g, (xw, shape, mean, rstd, ww, bw), ww, bw,
                  (need_x, need_w, need_b), (x_dtype, w_dtype, b_dtype))


def _grads(kernel, g, args, ww, bw, needs, dts):
    """(gx, gw, gb) of torch's fused backward ``kernel(g, *args, mask)``, as ember dtypes."""
    mask = [needs[0], needs[1] and ww is not None, needs[2] and bw is not None]
    grads = kernel(_out(g, args[0].dtype).reshape(args[0].shape).contiguous(), *args, mask)
    return tuple(_out(a, TORCH[dt]) if m else None for a, m, dt in zip(grads, mask, dts))


# override: 2.0 vs the default's 42 ms (float32 (16, 256, 32, 32) in 32 groups, one thread)
def nn_group_norm(x, w, b, groups, eps, dtype):
    # a weight of ones stands for none: torch's backward fails on a bias gradient without one
    xw, ww, bw = (None if a is None else _out(a, _work_of(TORCH[dtype])).contiguous()
                  for a in (x, x.new_ones(x.shape[1]) if w is None else w, b))
    dims = (x.shape[0], x.shape[1], x.numel() // max(x.shape[0] * x.shape[1], 1), groups)
    out, mean, rstd = torch.native_group_norm(xw, ww, bw, *dims, eps)
    return _out(out, TORCH[dtype]), (xw, ww, bw, mean, rstd, dims)


def nn_group_norm_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    xw, ww, bw, mean, rstd, dims = saved
    return _grads(_aten.native_group_norm_backward, g, (xw, mean, rstd, ww) + dims, ww, bw,
                  (need_x, need_w, need_b), (x_dtype, w_dtype, b_dtype))
