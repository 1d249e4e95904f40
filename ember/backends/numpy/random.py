"""NumPy kernels of the random family. Public names here are kernels (`be.NAME`); helpers start with _.

One global ``numpy.random.Generator`` feeds every sampler; ``random_seed`` replaces it. Each
sampler also takes ``gen``, a generator of ``random_generator`` to draw from instead. ``dtype``
arguments are ember DTypes (NumPy dtypes are still read, for callers not yet converted).
"""

import numpy as np

from .core import NP, _first, allocates

__all__ = ["random_seed", "random_generator", "random_get_state", "random_set_state",
           "random_entropy_seed", "random_permutation",
           "random_uniform", "random_normal", "random_normal_int",
           "random_bernoulli", "random_integers", "random_categorical",
           ]

_state = {"gen": np.random.default_rng()}

_NATIVE = (np.dtype(np.float32), np.dtype(np.float64))


def random_seed(seed):
    """Restart the global generator from ``seed`` (an int >= 0)."""
    _state["gen"] = np.random.default_rng(seed)


def random_generator(seed):
    """A new generator started from ``seed`` (an int >= 0)."""
    return np.random.default_rng(seed)


def random_entropy_seed():
    """A fresh seed (an int in [0, 2**63)) from the operating system's entropy."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))


_STATE_BYTES = 16 + 16 + 1 + 4  # PCG64's state and increment, the buffered-uint32 flag and value


def random_get_state(gen):
    """The state of ``gen`` (None: the global one) as a uint8 array (PCG64's state)."""
    st = (_state["gen"] if gen is None else gen).bit_generator.state
    inner = st["state"]
    raw = (inner["state"].to_bytes(16, "little") + inner["inc"].to_bytes(16, "little")
           + bytes([st["has_uint32"]]) + int(st["uinteger"]).to_bytes(4, "little"))
    return np.frombuffer(raw, dtype=np.uint8).copy()


def random_set_state(gen, raw):
    """Restore a state of ``random_get_state`` into ``gen`` (None: the global one); returns
    False when ``raw`` is not such a state."""
    raw = np.asarray(raw)
    if raw.dtype != np.uint8 or raw.shape != (_STATE_BYTES,):
        return False
    b = raw.tobytes()
    target = _state["gen"] if gen is None else gen
    target.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": int.from_bytes(b[:16], "little"),
                  "inc": int.from_bytes(b[16:32], "little")},
        "has_uint32": b[32], "uinteger": int.from_bytes(b[33:], "little")}
    return True


@allocates(lambda n, *args, **kwargs: (n,))
def random_permutation(n, dtype, gen=None):
    """A random permutation of ``0 .. n-1`` of ember dtype ``dtype``."""
    dtype = NP[dtype]
    gen = _state["gen"] if gen is None else gen
    return np.asarray(gen.permutation(n).astype(dtype, copy=False))






def _below(x, dtype):
    """The largest value of ``dtype`` strictly below ``x`` (a 0-d array of ``dtype``)."""
    xt = np.asarray(x, dtype=dtype)
    if float(xt) < x:
        return xt
    return np.nextafter(xt, np.asarray(-np.inf, dtype=dtype))


@allocates(_first)
def random_uniform(shape, low, high, dtype, gen=None):
    """Floats of ember dtype ``dtype`` uniform in ``[low, high)``."""
    dtype = NP[dtype]
    gen = _state["gen"] if gen is None else gen
    work = dtype if dtype in _NATIVE else np.dtype(np.float32)
    u = gen.random(shape, dtype=work)
    if low != 0.0 or high != 1.0:
        u = u * (high - low) + low
    out = u.astype(dtype, copy=False)
    if out.size and (low != 0.0 or high != 1.0 or work != dtype):
        out = np.minimum(out, _below(high, dtype))
        out = np.maximum(out, np.asarray(low, dtype=dtype))
    return np.asarray(out)


@allocates(_first)
def random_normal(shape, mean, std, dtype, gen=None):
    """Floats of ember dtype ``dtype`` from the normal distribution N(mean, std**2)."""
    dtype = NP[dtype]
    gen = _state["gen"] if gen is None else gen
    work = dtype if dtype in _NATIVE else np.dtype(np.float32)
    x = gen.standard_normal(shape, dtype=work)
    if std != 1.0 or mean != 0.0:
        x = x * std + mean
    return np.asarray(x.astype(dtype, copy=False))


@allocates(_first)
def random_normal_int(shape, mean, std, dtype, gen=None):
    """Ints of ember dtype ``dtype``: normal samples rounded to the nearest int, clipped to
    range."""
    dtype = NP[dtype]
    gen = _state["gen"] if gen is None else gen
    x = np.rint(gen.standard_normal(shape) * std + mean)
    info = np.iinfo(dtype)
    top = float(info.max)
    if int(top) > info.max:  # int64/uint64: the float of the max rounds up past it
        top = float(np.nextafter(top, 0.0))
    return np.asarray(np.clip(x, float(info.min), top).astype(dtype))


@allocates(_first)
def random_bernoulli(shape, p, dtype, gen=None):
    """Ones (True) with probability ``p``, else zeros (False), of ember dtype ``dtype``."""
    dtype = NP[dtype]
    gen = _state["gen"] if gen is None else gen
    return np.asarray((gen.random(shape) < p).astype(dtype, copy=False))


@allocates(_first)
def random_integers(shape, low, high, dtype, gen=None):
    """Ints of ember dtype ``dtype`` uniform in ``[low, high)`` (``high`` may be one past the
    max)."""
    dtype = np.dtype(NP[dtype])
    gen = _state["gen"] if gen is None else gen
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if high - 1 == info.max:
            return np.asarray(gen.integers(low, high - 1, size=shape, dtype=dtype, endpoint=True))
        return np.asarray(gen.integers(low, high, size=shape, dtype=dtype))
    return np.asarray(gen.integers(low, high, size=shape, dtype=np.int64).astype(dtype))








@allocates(lambda w, n, replacement, gen=None: w.shape[:-1] + (n,))
def random_categorical(w, num_samples, replacement, gen=None):
    """Category indices (int64) drawn per row of weights ``w`` (categories along the last dim):
    the last dim of the result has ``num_samples`` entries.

    ``w`` is non-negative, finite, with a positive sum in every row. With replacement the
    draws are independent; without, they follow sequential sampling without replacement
    (Gumbel top-k), so ``num_samples`` must not exceed any row's number of positive weights.
    """
    batch = w.shape[:-1]
    out = _categorical_2d(np.asarray(w, dtype=np.float64).reshape(-1, w.shape[-1]), num_samples,
                          replacement, _state["gen"] if gen is None else gen)
    return out.reshape(batch + (num_samples,))


def _categorical_2d(w, num_samples, replacement, gen):
    rows, k = w.shape
    if rows == 0:
        return np.zeros((0, num_samples), dtype=np.int64)
    if not replacement:
        with np.errstate(divide="ignore"):
            keys = np.log(w) + gen.gumbel(size=w.shape)
        order = np.argsort(-keys, axis=-1, kind="stable")
        return np.ascontiguousarray(order[:, :num_samples]).astype(np.int64, copy=False)
    if rows == 1:  # the general path's values (its offsets are 0.0) with half its calls
        cdf = np.cumsum(w[0])
        cdf /= cdf[-1]
        idx = np.searchsorted(cdf, gen.random(num_samples), side="right")
        positive = np.flatnonzero(w[0] > 0)
        np.maximum(idx, positive[0], out=idx)
        np.minimum(idx, positive[-1], out=idx)
        return idx.astype(np.int64, copy=False).reshape(1, num_samples)
    cdf = np.cumsum(w, axis=-1)
    cdf /= cdf[:, -1:]
    offsets = np.arange(rows, dtype=np.float64)[:, None]
    u = gen.random((rows, num_samples)) + offsets
    idx = np.searchsorted((cdf + offsets).ravel(), u.ravel(), side="right").reshape(rows, -1)
    idx -= (np.arange(rows) * k)[:, None]
    # rounding can push a draw past the row's last positive weight: clamp it back
    last = k - 1 - np.argmax(w[:, ::-1] > 0, axis=-1)
    first = np.argmax(w > 0, axis=-1)
    np.maximum(idx, first[:, None], out=idx)   # np.clip's values without its Python layers
    np.minimum(idx, last[:, None], out=idx)
    return idx.astype(np.int64, copy=False)
