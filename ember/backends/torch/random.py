"""Torch kernels of the random family: the same names and arguments as the NumPy backend's.

Every torch device has its own generator: ``gen=None`` draws from the device's default
generator (``torch.default_generator`` on the CPU, ``torch.cuda.default_generators[i]`` on
CUDA), ``random_generator`` makes a ``torch.Generator`` on the device. The same seed on the same
device gives the same values; they are not NumPy's values (the streams differ), but the
distributions are the same.
"""

import math
import os

import torch

from .core import TORCH, allocates

__all__ = ["random_seed", "random_generator", "random_get_state", "random_set_state",
           "random_entropy_seed", "random_permutation",
           "random_uniform", "random_normal", "random_normal_int",
           "random_bernoulli", "random_integers", "random_categorical",
           ]

_NATIVE = (torch.float32, torch.float64)
_INFO = {"int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
         "int64": (-2**63, 2**63 - 1), "uint8": (0, 2**8 - 1), "uint16": (0, 2**16 - 1),
         "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}


def _first(shape, *args, **kwargs):
    return tuple(shape)


def _default(device):
    """The default generator of the torch ``device``."""
    if device is None or device.type == "cpu":
        return torch.default_generator
    if device.type == "cuda":
        return torch.cuda.default_generators[device.index or 0]
    return None  # mps: torch's global mps generator (generator=None)


def _gen(gen, device):
    return _default(device) if gen is None else gen


def _work(device):
    """The widest float the device computes in (MPS has no float64)."""
    return torch.float32 if device is not None and device.type == "mps" else torch.float64


def random_seed(seed, *, device=None):
    """Restart the device's default generator from ``seed`` (an int in [0, 2**64))."""
    if device is not None and device.type == "mps":
        torch.mps.manual_seed(seed)
        return
    if device is not None and device.type == "cuda":
        torch.cuda.manual_seed(seed) if device.index is None else \
            torch.cuda.default_generators[device.index].manual_seed(seed)
        return
    torch.default_generator.manual_seed(seed)


def random_generator(seed, *, device=None):
    """A new ``torch.Generator`` on the device, started from ``seed``."""
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return g


def random_entropy_seed():
    """A fresh seed (an int in [0, 2**63)) from the operating system's entropy."""
    return int.from_bytes(os.urandom(8), "little") >> 1


def random_get_state(gen, *, device=None):
    """The state of ``gen`` (None: the device's default generator), a uint8 tensor."""
    g = _gen(gen, device)
    if g is None:
        return torch.mps.get_rng_state()
    return g.get_state()


def random_set_state(gen, raw, *, device=None):
    """Restore a state of ``random_get_state`` into ``gen`` (None: the device's default);
    False when ``raw`` is not such a state."""
    if not isinstance(raw, torch.Tensor) or raw.dtype != torch.uint8 or raw.ndim != 1:
        return False
    current = random_get_state(gen, device=device)
    if raw.shape != current.shape:
        return False
    g = _gen(gen, device)
    try:
        if g is None:
            torch.mps.set_rng_state(raw.cpu())
        else:
            g.set_state(raw.cpu())
    except (RuntimeError, ValueError):
        return False
    return True


@allocates(lambda n, *args, **kwargs: (n,))
def random_permutation(n, dtype, gen=None, *, device=None):
    """A random permutation of ``0 .. n-1`` of ember dtype ``dtype``."""
    p = torch.randperm(n, generator=_gen(gen, device), device=device, dtype=torch.int64)
    return p.to(TORCH[dtype])






def _below(x, dtype, device):
    """The largest value of ``dtype`` strictly below ``x`` (a 0-d tensor)."""
    xt = torch.tensor(x, dtype=dtype, device=device)
    if float(xt) < x:
        return xt
    return torch.nextafter(xt, torch.tensor(-math.inf, dtype=dtype, device=device))


@allocates(_first)
def random_uniform(shape, low, high, dtype, gen=None, *, device=None):
    """Floats of ember dtype ``dtype`` uniform in ``[low, high)``."""
    target = TORCH[dtype]
    work = target if target in _NATIVE and target in (torch.float32, _work(device)) \
        else torch.float32
    u = torch.rand(tuple(shape), generator=_gen(gen, device), dtype=work, device=device)
    if low != 0.0 or high != 1.0:
        u = u * (high - low) + low
    out = u.to(target)
    if out.numel() and (low != 0.0 or high != 1.0 or work != target):
        out = torch.minimum(out, _below(high, target, device))
        out = torch.maximum(out, torch.tensor(low, dtype=target, device=device))
    return out


@allocates(_first)
def random_normal(shape, mean, std, dtype, gen=None, *, device=None):
    """Floats of ember dtype ``dtype`` from the normal distribution N(mean, std**2)."""
    target = TORCH[dtype]
    work = target if target in _NATIVE and target in (torch.float32, _work(device)) \
        else torch.float32
    x = torch.randn(tuple(shape), generator=_gen(gen, device), dtype=work, device=device)
    if std != 1.0 or mean != 0.0:
        x = x * std + mean
    return x.to(target)


@allocates(_first)
def random_normal_int(shape, mean, std, dtype, gen=None, *, device=None):
    """Ints of ember dtype ``dtype``: normal samples rounded to the nearest int (half to even),
    clipped to the dtype's range."""
    w = _work(device)
    x = torch.round(torch.randn(tuple(shape), generator=_gen(gen, device), dtype=w,
                                device=device) * std + mean)
    mn, mx = _INFO[dtype.name]
    top = float(mx)
    if int(top) > mx:  # int64/uint64: the float of the max rounds up past it
        top = math.nextafter(top, 0.0)
    x = torch.clamp(x, float(mn), top)
    if dtype.name == "uint64":  # through int64 bits: values >= 2**63 wrap to negative ones
        big = x >= 2.0 ** 63
        low = torch.where(big, x - 2.0 ** 64, x).to(torch.int64)
        return low.view(torch.uint64)
    return x.to(TORCH[dtype])


@allocates(_first)
def random_bernoulli(shape, p, dtype, gen=None, *, device=None):
    """Ones (True) with probability ``p``, else zeros (False), of ember dtype ``dtype``."""
    u = torch.rand(tuple(shape), generator=_gen(gen, device), dtype=_work(device), device=device)
    return (u < p).to(TORCH[dtype])


def _bits(shape, g, device):
    """Uniform 64-bit patterns as int64 (two 32-bit draws)."""
    hi = torch.randint(0, 2**32, shape, generator=g, dtype=torch.int64, device=device)
    lo = torch.randint(0, 2**32, shape, generator=g, dtype=torch.int64, device=device)
    return (hi << 32) | lo


def _wrap64(value):
    """A Python int as its int64 two's complement value."""
    value %= 2**64
    return value - 2**64 if value >= 2**63 else value


@allocates(_first)
def random_integers(shape, low, high, dtype, gen=None, *, device=None):
    """Ints of ember dtype ``dtype`` uniform in ``[low, high)`` (``high`` may be one past the
    max); a float dtype gets integral floats."""
    g = _gen(gen, device)
    shape = tuple(shape)
    span = high - low
    if -2**63 <= low and high <= 2**63 - 1 and span <= 2**63 - 1:
        x = torch.randint(low, high, shape, generator=g, dtype=torch.int64, device=device)
    else:  # wider than torch.randint reaches: 64-bit patterns, rejected above the span
        x = _bits(shape, g, device)
        if span < 2**64:
            limit = span - 2**63  # unsigned u < span  <=>  (u ^ MIN) < span - 2**63 (signed)
            bad = (x ^ -2**63) >= limit
            while bool(bad.any()):
                x[bad] = _bits((int(bad.sum()),), g, device)
                bad = (x ^ -2**63) >= limit
        x = x + _wrap64(low)  # wraps modulo 2**64, as the unsigned sum does
        if dtype.name == "uint64":
            return x.view(torch.uint64)
    return x.to(TORCH[dtype])








@allocates(lambda w, n, replacement, gen=None, **kw: tuple(w.shape[:-1]) + (n,))
def random_categorical(w, num_samples, replacement, gen=None, *, device=None):
    """Category indices (int64) drawn per row of weights ``w`` (categories along the last dim),
    with or without replacement (``torch.multinomial``)."""
    batch = tuple(w.shape[:-1])
    k = w.shape[-1]
    flat = w.to(_work(w.device)).reshape(-1, k)
    if flat.shape[0] == 0:
        return torch.zeros(batch + (num_samples,), dtype=torch.int64, device=w.device)
    out = torch.multinomial(flat, num_samples, replacement, generator=_gen(gen, device))
    return out.reshape(batch + (num_samples,))
