"""Torch kernels of the bitwise family: the NumPy backend's kernels, same names and results.

Operands of the binary kernels already have the result dtype (the ops promote first); a number
operand is a Python int wrapped into the dtype, or a 0-d tensor. Shifts are deterministic: a
count below 0 or at least the bit width gives 0 for ``<<`` and the sign fill for ``>>``.
torch 2.13 on the CPU has no shifts or ``~`` on uint16/uint32/uint64: those compute exactly in
int64 (uint64 as its bits).
"""

import torch

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert", "bitwise_lshift",
           "bitwise_rshift", "bitwise_lshift_scalar", "bitwise_rshift_scalar",
           "logical_and", "logical_or", "logical_xor", "logical_not"]

_Tensor = torch.Tensor
_I64 = torch.int64
_U64 = torch.uint64
_WIDE_U = (torch.uint16, torch.uint32, torch.uint64)
_MAX64 = (1 << 63) - 1


def _operand(b, a):
    """A Python int operand for ``a``'s dtype as something torch takes (uint64 past int64's
    range: a 0-d uint64 tensor of its bits)."""
    if isinstance(b, int) and not isinstance(b, bool) and b > _MAX64:
        return torch.tensor(b - (1 << 64), dtype=_I64, device=a.device).view(_U64)
    return b


def _tensor_of(v, like):
    """The Python int ``v`` (wrapped into ``like``'s dtype by the op) as a 0-d tensor of it."""
    if like.dtype is _U64 and v > _MAX64:
        return torch.tensor(v - (1 << 64), dtype=_I64, device=like.device).view(_U64)
    return torch.tensor(v, dtype=like.dtype, device=like.device)


def _binary(fn):
    def kernel(a, b):
        """``fn(a, b)`` (logical on bools)."""
        if not isinstance(a, _Tensor):
            a, b = b, a
        return fn(a, _operand(b, a))
    return kernel


# override: a Python int operand past int64 (uint64) and 5.6 vs the default's 6.9 µs, as or, xor
bitwise_and = _binary(torch.bitwise_and)
bitwise_or = _binary(torch.bitwise_or)
bitwise_xor = _binary(torch.bitwise_xor)


# override: torch has no ~ on uint16/32/64 (the default fails there)
def bitwise_invert(a):
    """``~a``: two's complement not on ints, logical not on bools."""
    if a.dtype is _U64:
        return torch.bitwise_not(a.view(_I64)).view(_U64)
    if a.dtype in _WIDE_U:
        return torch.bitwise_xor(a, (1 << (a.dtype.itemsize * 8)) - 1)
    return torch.bitwise_not(a)


def _as_i64(a):
    """uint16/32 as int64 values, uint64 as its int64 bits."""
    return a.view(_I64) if a.dtype is _U64 else a.to(_I64)


def _back(r, dtype):
    return r.view(_U64) if dtype is _U64 else r.to(dtype)


def _logical_rshift64(x, count):
    """Logical ``x >> count`` of int64 bits, ``count`` in [0, 63] (a tensor or an int)."""
    if isinstance(count, int):
        return x if count == 0 else ((x >> 1) & _MAX64) >> (count - 1)
    shifted = ((x >> 1) & _MAX64) >> (count - 1).clamp_min(0)
    return torch.where(count == 0, x, shifted)


# override: torch has no shifts on uint16/32/64 (the default fails there), as the other shifts
def bitwise_lshift(a, c):
    """``a << c`` elementwise, both of one int dtype; counts < 0 or >= the bit width give 0."""
    if not isinstance(a, _Tensor):
        a = _tensor_of(a, c)
    bits = a.dtype.itemsize * 8
    d = a.dtype
    if d in _WIDE_U:
        x, k = _as_i64(a), _as_i64(c)
        ok = (k >= 0) & (k < bits)                    # uint64 counts >= 2**63 look negative
        out = x << k.clamp(0, bits - 1)
        return _back(torch.where(ok, out, torch.zeros_like(out)), d)
    ok = (c >= 0) & (c < bits) if d.is_signed else c < bits
    out = a << c.clamp(0, bits - 1)
    return torch.where(ok, out, torch.zeros_like(out))


def bitwise_rshift(a, c):
    """``a >> c`` (arithmetic on signed ints); counts < 0 or >= the bit width give the sign fill."""
    if not isinstance(a, _Tensor):
        a = _tensor_of(a, c)
    bits = a.dtype.itemsize * 8
    d = a.dtype
    if d.is_signed:
        k = torch.where((c < 0) | (c >= bits), torch.full_like(c, bits - 1), c)
        return a >> k
    if d in _WIDE_U:
        x, k = _as_i64(a), _as_i64(c)
        ok = (k >= 0) & (k < bits)
        kk = k.clamp(0, bits - 1)
        out = _logical_rshift64(x, kk) if d is _U64 else x >> kk
        return _back(torch.where(ok, out, torch.zeros_like(out)), d)
    ok = c < bits
    out = a >> c.clamp(0, bits - 1)
    return torch.where(ok, out, torch.zeros_like(out))


def bitwise_lshift_scalar(a, count):
    """``a << count`` for a Python int ``count`` of any size; out of [0, bit width) gives 0."""
    bits = a.dtype.itemsize * 8
    if not 0 <= count < bits:
        return torch.zeros_like(a)
    d = a.dtype
    if d in _WIDE_U:
        return _back(_as_i64(a) << count, d)
    return a << count


def bitwise_rshift_scalar(a, count):
    """``a >> count`` for a Python int ``count``; out of [0, bit width) gives the sign fill."""
    bits = a.dtype.itemsize * 8
    d = a.dtype
    if not 0 <= count < bits:
        if not d.is_signed:
            return torch.zeros_like(a)
        count = bits - 1
    if d is _U64:
        return _back(_logical_rshift64(a.view(_I64), count), d)
    if d in _WIDE_U:
        return _back(_as_i64(a) >> count, d)
    return a >> count


# override: 1.8 vs the default's 10 µs (bool (32, 64)), as or, xor, not
logical_and = torch.logical_and
logical_or = torch.logical_or
logical_xor = torch.logical_xor
logical_not = torch.logical_not
