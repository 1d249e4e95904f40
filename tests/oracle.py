"""The test oracle: convert between ember and PyTorch, compare values, build awkward inputs."""

import os

import numpy as np
import torch

import ember

TORCH_DTYPES = {
    "float64": torch.float64, "float32": torch.float32, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32, "int16": torch.int16,
    "int8": torch.int8, "uint8": torch.uint8, "uint16": torch.uint16, "uint32": torch.uint32,
    "uint64": torch.uint64, "bool": torch.bool,
}
COMPLEX_TORCH_DTYPES = {"complex64": torch.complex64, "complex128": torch.complex128}


def _device_lacks():
    """The ember dtype names the suite's device (EMBER_DEVICE) has none of."""
    from ember.errors import KindError
    backend = ember.Device(os.environ.get("EMBER_DEVICE", "cpu").strip() or "cpu").backend
    lacked = set()
    for dt in ember.dtypes.ALL:
        try:
            backend.native_dtype(dt)
        except KindError:
            lacked.add(dt.name)
    return lacked


DEVICE_LACKS = _device_lacks()


#: how much further than on ember's own engines a long float computation (an optimizer's
#: trajectory) on the suite's device may drift from PyTorch's: XLA (JAX) fuses and orders sums
#: and approximates float32 functions its own way, which a trajectory's growth magnifies
DRIFT = 10 if os.environ.get("EMBER_DEVICE", "").startswith("xp:jax") else 1


def on_device(names):
    """``names`` less the dtypes the suite's device lacks (the loops' twin of the conftest's
    leaving out of a test parametrized with such a dtype)."""
    return [n for n in names if n not in DEVICE_LACKS]


def to_torch(t, requires_grad=False):
    """A torch tensor with the same values and dtype as ember tensor ``t`` (a copy)."""
    arr = np.array(t.numpy(), copy=True)
    if t.dtype.name == "bfloat16":
        out = torch.from_numpy(arr.astype(np.float32)).to(torch.bfloat16)
    else:
        out = torch.from_numpy(arr)
    if requires_grad:
        out.requires_grad_(True)
    return out


def torch_to_numpy(x):
    x = x.detach()
    if x.dtype == torch.bfloat16:
        return x.float().numpy()
    return x.numpy()


def assert_close(actual, expected, rtol=None, atol=None, check_dtype=True, equal_nan=True):
    """``actual`` (ember Tensor) equals ``expected`` (torch tensor, ndarray or list): values,
    shape and, for torch tensors, dtype."""
    assert isinstance(actual, ember.Tensor), f"expected an ember.Tensor, got {type(actual)}"
    if isinstance(expected, torch.Tensor):
        if check_dtype:
            assert actual.dtype.name == str(expected.dtype).replace("torch.", ""), (
                f"dtype {actual.dtype.name} != {expected.dtype}")
        exp = torch_to_numpy(expected)
    else:
        exp = np.asarray(expected)
    act = np.asarray(ember.Tensor.numpy(actual))  # the values, tracked or not
    if act.dtype.name == "bfloat16":
        act = act.astype(np.float32)
    assert tuple(act.shape) == tuple(exp.shape), f"shape {act.shape} != {exp.shape}"
    if act.dtype.kind in "fc" or exp.dtype.kind in "fc":
        if rtol is None:
            rtol = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-5,
                    "complex64": 1e-5}.get(actual.dtype.name, 1e-7)
        if atol is None:
            atol = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6,
                    "complex64": 1e-6}.get(actual.dtype.name, 1e-9)
        wide = np.complex128 if "c" in (act.dtype.kind, exp.dtype.kind) else np.float64
        np.testing.assert_allclose(act.astype(wide), exp.astype(wide), rtol=rtol, atol=atol,
                                   equal_nan=equal_nan)
    else:
        np.testing.assert_array_equal(act, exp)


def random_array(rng, shape, dtype="float32", low=-3, high=3):
    """Random NumPy data of an ember dtype name (bool, ints in [low, high), floats normal)."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.startswith(("int", "uint")):
        lo = 0 if dtype.startswith("uint") else low
        return np.asarray(rng.integers(lo, high, size=shape)).astype(dtype)
    if dtype.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    arr = np.asarray(rng.standard_normal(shape))
    if dtype == "bfloat16":
        return arr.astype(np.float32)
    return arr.astype(dtype)


def layouts(arr):
    """The same values in several layouts: contiguous, transposed-back, flipped-back, stepped.

    Yields (name, array) where each array has the values of ``arr`` but a different layout.
    """
    yield "contiguous", arr
    if arr.ndim >= 2:
        yield "permuted", np.ascontiguousarray(arr.swapaxes(0, 1)).swapaxes(0, 1)
    if arr.ndim >= 1:
        yield "flipped", np.ascontiguousarray(arr[::-1])[::-1]
        big = np.repeat(arr, 2, axis=0)
        yield "stepped", big[::2]


def ember_tensor(arr, dtype=None, requires_grad=False):
    """An ember tensor viewing ``arr`` (layout kept), optionally cast and requiring grad."""
    t = ember.from_numpy(arr) if dtype is None else ember.from_numpy(arr).cast(dtype)
    if requires_grad:
        t = t.require_grad()
    return t


SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]


def snapshot(*tensors):
    """Copies of the tensors' values, to check later that an op left its inputs unchanged."""
    return [np.array(t.numpy(), copy=True) for t in tensors]


def assert_unchanged(tensors, before):
    """Each tensor still holds exactly (bit for bit, shape and dtype too) its snapshot."""
    for t, b in zip(tensors, before):
        a = np.asarray(t.numpy())
        assert a.shape == b.shape and a.dtype == b.dtype, f"{a.shape}/{a.dtype} != {b.shape}/{b.dtype}"
        assert a.tobytes() == b.tobytes(), "the tensor's values changed"


def device_dtypes(devices, names):
    """(device, dtype) pairs: each of ``devices`` with each of the dtype ``names`` it has."""
    from ember.errors import KindError
    pairs = []
    for device in devices:
        backend = ember.Device(device).backend
        for name in names:
            try:
                backend.native_dtype(getattr(ember.dtypes, name if name != "bool" else "bool_"))
            except KindError:
                continue
            pairs.append((device, name))
    return pairs


def has_views(t):
    """Whether ``t``'s device has views to see: arrays with a memory layout (not JAX's or
    Dask's, whose views are copies); checks of memory sharing hold only there."""
    return t.device.backend.has_layout


def flush_subnormals(expected, t):
    """``expected`` (a NumPy array) as ``t``'s device computes it: where its backend flushes
    subnormal floats to zero (XLA's CPU), each subnormal value of ``t``'s float dtype is a zero
    of its sign."""
    if t.device.backend.keeps_subnormals:
        return expected
    tiny = np.finfo(np.dtype(t.dtype.name) if t.dtype.name != "bfloat16" else np.float32).tiny
    return np.where(np.abs(expected) < tiny, np.copysign(0.0, expected), expected)


def engine_devices():
    """The devices of ember's own engines (NumPy, torch), without the Array API libraries'
    (``xp:...``): the cross-device checks of whole algorithms (connected components, training)
    run on these; an xp device runs the whole suite in its own pass (``EMBER_DEVICE=xp:jax``),
    and Dask's lazy graphs would recompute an iterative algorithm from its start at each step."""
    return [d for d in ember.devices() if d.backend_name != "xp"]
