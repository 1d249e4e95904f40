"""Random sampling: distributions, random tensors of every kind, categorical draws, seeding.

Every device has a default generator that feeds its samplers; ``ember.manual_seed(seed)``
restarts all of them, so the same seed on the same device gives the same values. The samplers
take ``device=`` (None: the default device, or the generator's). Values are the device's
backend's own stream: the same seed gives different values on ``"cpu"`` (NumPy's PCG64) and on
``"torch:cpu"`` or CUDA (torch's generators), with the same distributions. An
``ember.Generator(device)`` is a generator of its own: pass it as ``generator=`` to a sampler to
draw from it instead (PyTorch's spelling).

>>> import ember
>>> ember.manual_seed(0)
>>> ember.random((2, 3), ember.Distribution.uniform(-1.0, 1.0)).shape
(2, 3)
"""

import math

from .. import dtypes as _dt
from ..backends import registry
from ..devices import Device
from ..devices import CPU, _default, as_device, get_default_device
from ..errors import DeviceError, DimensionError, InvalidParameterError, KindError
from ..shapes import as_int, check_rank
from .._tensor import Tensor, tensor_method, wrap
from .data import _is_device

__all__ = ["Distribution", "Generator", "random", "random_like", "rand", "randn", "randint",
           "randperm", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "default_generator", "categorical", "multinomial"]


def _real(value, op, param):
    """``value`` as a finite Python float; InvalidParameterError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        item = getattr(value, "item", None)
        if item is None or isinstance(value, bool) or getattr(value, "ndim", 1) != 0:
            raise InvalidParameterError(
                f"{op}: {param} must be a real number, got {type(value).__name__} {value!r}",
                param, value)
        value = item()
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidParameterError(f"{op}: {param} must be a real number, got {value!r}",
                                        param, value)
    value = float(value)
    if not math.isfinite(value):
        raise InvalidParameterError(f"{op}: {param} is {value}; expected a finite number",
                                    param, value)
    return value


class Distribution:
    """A distribution to sample from (Burn's ``Distribution`` enum).

    ``Distribution.default()`` is uniform in [0, 1) for floats (the whole range for ints, a fair
    coin for bools); ``uniform(low, high)`` samples [low, high), ``normal(mean, std)`` the
    Gaussian, ``bernoulli(p)`` ones with probability ``p``. Burn's spellings ``Default()``,
    ``Uniform(low, high)``, ``Normal(mean, std)`` and ``Bernoulli(p)`` work too.

    >>> import ember
    >>> ember.Distribution.uniform(0, 2)
    Distribution.uniform(0.0, 2.0)
    >>> ember.Distribution.normal(0.0, -1.0)
    Traceback (most recent call last):
    ...
    ember.errors.InvalidParameterError: Distribution.normal: std is -1.0; expected std >= 0
    """

    __slots__ = ("kind", "params")

    def __init__(self, kind="default", params=()):
        maker = {"default": Distribution.default, "uniform": Distribution.uniform,
                 "normal": Distribution.normal, "bernoulli": Distribution.bernoulli}.get(kind)
        if maker is None:
            raise InvalidParameterError(
                f"Distribution: kind {kind!r} is unknown; expected 'default', 'uniform', "
                "'normal' or 'bernoulli'", "kind", kind)
        if not isinstance(params, (tuple, list)):
            raise InvalidParameterError(
                f"Distribution: params must be a tuple, got {type(params).__name__}",
                "params", params)
        made = maker(*params)
        self.kind, self.params = made.kind, made.params

    @classmethod
    def _make(cls, kind, params):
        d = object.__new__(cls)
        d.kind = kind
        d.params = params
        return d

    @classmethod
    def default(cls):
        """Uniform in [0, 1) for floats; the dtype's whole range for ints; a fair coin for bools.

        >>> import ember
        >>> ember.Distribution.default()
        Distribution.default()
        """
        return cls._make("default", ())

    @classmethod
    def uniform(cls, low=0.0, high=1.0):
        """Uniform in ``[low, high)``; ``low < high``, both finite.

        >>> import ember
        >>> ember.Distribution.uniform(-1, 1).params
        (-1.0, 1.0)
        """
        op = "Distribution.uniform"
        low, high = _real(low, op, "low"), _real(high, op, "high")
        if not low < high:
            raise InvalidParameterError(
                f"{op}: low {low} is not below high {high}; expected low < high", "low", low)
        if not math.isfinite(high - low):
            raise InvalidParameterError(
                f"{op}: the width high - low of [{low}, {high}) overflows; expected a finite "
                "width", "high", high)
        return cls._make("uniform", (low, high))

    @classmethod
    def normal(cls, mean=0.0, std=1.0):
        """The normal (Gaussian) distribution with ``mean`` and standard deviation ``std >= 0``.

        >>> import ember
        >>> ember.Distribution.normal(0, 2)
        Distribution.normal(0.0, 2.0)
        """
        op = "Distribution.normal"
        mean, std = _real(mean, op, "mean"), _real(std, op, "std")
        if std < 0:
            raise InvalidParameterError(f"{op}: std is {std}; expected std >= 0", "std", std)
        return cls._make("normal", (mean, std))

    @classmethod
    def bernoulli(cls, p=0.5):
        """One (True) with probability ``p`` in [0, 1], else zero (False).

        >>> import ember
        >>> ember.Distribution.bernoulli(0.25)
        Distribution.bernoulli(0.25)
        """
        op = "Distribution.bernoulli"
        p = _real(p, op, "p")
        if not 0.0 <= p <= 1.0:
            raise InvalidParameterError(f"{op}: p is {p}; expected a probability in [0, 1]",
                                        "p", p)
        return cls._make("bernoulli", (p,))

    Default = default
    Uniform = uniform
    Normal = normal
    Bernoulli = bernoulli

    def __eq__(self, other):
        return (isinstance(other, Distribution) and other.kind == self.kind
                and other.params == self.params)

    def __hash__(self):
        return hash((self.kind, self.params))

    def __repr__(self):
        return f"Distribution.{self.kind}({', '.join(repr(p) for p in self.params)})"


def _seed_value(seed, op):
    seed = as_int(seed, op, "seed", wide=True)
    if not -2**63 <= seed < 2**64:
        raise InvalidParameterError(
            f"{op}: seed {seed} is out of range; expected an int in [-2**63, 2**64)",
            "seed", seed)
    return seed % 2**64


class Generator:
    """A random generator of its own (PyTorch's ``torch.Generator``) on a device (None: the
    default device): ``manual_seed``, ``seed``, ``initial_seed``, ``get_state``, ``set_state``;
    pass it as ``generator=`` to ``rand``, ``randn``, ``randint``, ``randperm``, ``random``,
    ``multinomial``, ``categorical``, ``Tensor.normal_``/``uniform_`` and the ``nn.init``
    functions. On a torch device it wraps a ``torch.Generator`` of that device; its values are
    that backend's stream, not NumPy's. ``ember.default_generator`` stands for every device's
    default generator, which ``ember.manual_seed`` restarts.

    >>> import ember
    >>> g = ember.Generator().manual_seed(42)
    >>> a = ember.rand(3, generator=g).tolist()
    >>> a == ember.rand(3, generator=ember.Generator().manual_seed(42)).tolist()
    True
    """

    __slots__ = ("_gen", "_seed", "_device")

    def __init__(self, device=None):
        self._device = as_device(device, "Generator")
        self._seed = 67280421310721  # PyTorch's default seed
        self._gen = self._device.backend.random_generator(self._seed)

    @property
    def device(self):
        """The device whose samplers it feeds."""
        return self._device

    def manual_seed(self, seed):
        """Restart from ``seed`` (an int in [-2**63, 2**64)); returns the generator."""
        self._seed = _seed_value(seed, "Generator.manual_seed")
        self._gen = self._device.backend.random_generator(self._seed)
        return self

    def seed(self):
        """Restart from a fresh seed from the operating system's entropy; returns that seed."""
        self.manual_seed(self._device.backend.random_entropy_seed())
        return self._seed

    def initial_seed(self):
        """The seed it was last started from."""
        return self._seed

    def get_state(self):
        """Its state, a uint8 tensor (give it back to ``set_state`` to replay the draws)."""
        return wrap(self._device.backend.random_get_state(self._gen), _dt.uint8)

    def set_state(self, new_state):
        """Restore a state of ``get_state``; returns the generator."""
        _set_state(self._device, self._gen, new_state, "Generator.set_state")
        return self

    def __repr__(self):
        return f"<ember.Generator device={self._device} seed={self._seed}>"


# the last seed of manual_seed, and a count of the calls; a device's default generator is
# restarted from that seed before its first draw after the call (devices whose backend is
# loaded at the call are restarted at once)
_seed_state = [None, 0]
_seeded = {}


def _sync(device):
    """Restart ``device``'s default generator from the last manual seed, once per seeding."""
    epoch = _seed_state[1]
    if _seeded.get(device) != epoch:
        _seeded[device] = epoch
        if _seed_state[0] is not None:
            device.backend.random_seed(_seed_state[0])


def _loaded_devices():
    """The non-NumPy devices whose backend has been loaded; when the program has imported
    torch, its devices are loaded here (cheap then), so that torch's own generators follow
    ``manual_seed`` even for draws that do not pass through these samplers."""
    for entry in registry.used_unloaded():
        try:
            for name in registry.module_of(entry.name).available_devices():
                Device(name).backend  # noqa: B018 - loads the device's backend
        except Exception:  # noqa: BLE001 - an unusable library leaves the others to seed
            continue
    return [b.device for b in registry.loaded_backends() if b.device is not CPU]


class _DefaultGenerator(Generator):
    """Every device's default generator: seeding it seeds all of them; its state is the default
    device's."""

    __slots__ = ()

    def __init__(self):
        self._seed = None
        self._gen = None  # None selects the backend's default generator

    @property
    def device(self):
        """The default device (whose generator ``get_state`` reads)."""
        return get_default_device()

    @property
    def _device(self):
        device = get_default_device()
        if device is not CPU:
            _sync(device)
        return device

    def manual_seed(self, seed):
        self._seed = _seed_value(seed, "manual_seed")
        CPU.backend.random_seed(self._seed)
        _seed_state[0] = self._seed
        _seed_state[1] += 1
        _seeded[CPU] = _seed_state[1]
        for device in _loaded_devices():
            _sync(device)
        return self

    def seed(self):
        self.manual_seed(CPU.backend.random_entropy_seed())
        return self._seed

    def initial_seed(self):
        if self._seed is None:
            self.manual_seed(CPU.backend.random_entropy_seed())
        return self._seed

    def __repr__(self):
        return "<ember.default_generator>"


default_generator = _DefaultGenerator()


def _set_state(device, gen, new_state, op):
    if not isinstance(new_state, Tensor) or new_state._device.backend_name != \
            device.backend_name or not device.backend.random_set_state(gen, new_state._data):
        got = (f"a {new_state._dtype.name} tensor of shape {tuple(new_state.shape)} on "
               f"{new_state._device}" if isinstance(new_state, Tensor) else repr(new_state))
        raise InvalidParameterError(
            f"{op}: new_state must be a uint8 tensor given by get_state() of a generator on "
            f"{device}, got {got}", "new_state", new_state)


def _gen(generator, op, device=None):
    """The backend generator of ``generator`` (None: the device's default one). Kernels called
    with ``gen=None`` draw from their device's default generator: pass that ``device`` so that
    it is restarted from the last ``manual_seed`` first (free on the CPU)."""
    if generator is None:
        if device is not None and device is not CPU:
            _sync(device)
        return None
    if not isinstance(generator, Generator):
        raise InvalidParameterError(f"{op}: generator must be an ember.Generator, got "
                                    f"{type(generator).__name__}", "generator", generator)
    return generator._gen


def _random(kernel, source, op, *args):
    """``be.<kernel>(*args, gen)`` for ``source = (be, gen)``, a backend and its generator
    (``ember.ops.random._source``), on behalf of the op named ``op``."""
    be, gen = source
    return getattr(be, kernel)(*args, gen, op=op)


def _source(generator, device, op):
    """(backend, backend generator or None) of a sampler: ``device`` (None: the generator's
    device, else the default device) and the generator, which must live there."""
    gen = None if generator is None else _gen(generator, op)
    if gen is None:  # the device's default generator
        dev = _default[0] if device is None else as_device(device, op)
        if dev is not CPU:  # NumPy's global generator is seeded by manual_seed itself
            _sync(dev)
        return dev.backend, None
    dev = generator._device if device is None else as_device(device, op)
    if dev is not generator._device:
        raise DeviceError(
            f"{op}: generator is on {generator._device} but the result is made on {dev}; "
            "expected a generator of the same device", (generator._device, dev))
    return dev.backend, gen


def _tensor_source(t, generator, op):
    """(backend, backend generator or None) of a sampler of the tensor ``t``'s device."""
    return _source(generator, t._device, op)


_NAMED = {"default": Distribution.default, "uniform": Distribution.uniform,
          "normal": Distribution.normal, "bernoulli": Distribution.bernoulli}


def _distribution(d, op):
    if d is None:
        return Distribution.default()
    if isinstance(d, Distribution) or (type(d).__name__ == "Distribution"
                                       and hasattr(d, "kind") and hasattr(d, "params")):
        return d
    if isinstance(d, str) and d.lower() in _NAMED:
        return _NAMED[d.lower()]()
    raise InvalidParameterError(
        f"{op}: distribution must be a Distribution or one of 'default', 'uniform', 'normal', "
        f"'bernoulli', got {d!r}", "distribution", d)


def _shape(shape, op):
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if not isinstance(shape, (tuple, list)):
        shape = (shape,)
    check_rank(len(shape), op, "shape", tuple(shape))
    out = tuple(as_int(s, op, "shape") for s in shape)
    for s in out:
        if s < 0:
            raise InvalidParameterError(f"{op}: shape {out} has the negative size {s}; expected "
                                        "sizes >= 0", "shape", out)
    return out


def _varargs_shape(args, op):
    if len(args) == 1 and isinstance(args[0], (tuple, list, Tensor)):
        return _shape(args[0], op)
    return _shape(args, op)


def _int_bounds(be, lo, hi, dtype, op, what):
    """Check that ``[lo, hi)`` holds an int and fits ``dtype``."""
    if lo >= hi:
        raise InvalidParameterError(f"{op}: {what} holds no integer; expected low < high",
                                    "high", hi)
    if dtype.kind == "int":
        mn, mx = be.random_dtype_info(dtype)
        if lo < mn or hi - 1 > mx:
            raise InvalidParameterError(
                f"{op}: {what} does not fit {dtype.name}, whose values lie in [{mn}, {mx}]",
                "high" if hi - 1 > mx else "low", hi if hi - 1 > mx else lo)


def _sample(be, shape, dist, dtype, op, gen=None):
    """A backend array of ``shape`` and ember ``dtype`` sampled from ``dist`` (checked first),
    drawn from the backend ``be``'s generator ``gen`` (None: the device's default one)."""
    kind, params = dist.kind, dist.params
    npd = dtype
    if dtype.kind == "float":
        if kind == "default":
            return be.random_uniform(shape, 0.0, 1.0, npd, gen, op=op)
        if kind == "uniform":
            return be.random_uniform(shape, params[0], params[1], npd, gen, op=op)
        if kind == "normal":
            return be.random_normal(shape, params[0], params[1], npd, gen, op=op)
        return be.random_bernoulli(shape, params[0], npd, gen, op=op)
    if dtype.kind == "int":
        if kind == "default":
            mn, mx = be.random_dtype_info(npd)
            return be.random_integers(shape, mn, mx + 1, npd, gen, op=op)
        if kind == "uniform":
            lo, hi = math.ceil(params[0]), math.ceil(params[1])
            _int_bounds(be, lo, hi, dtype, op, f"the range [{params[0]}, {params[1]})")
            return be.random_integers(shape, lo, hi, npd, gen, op=op)
        if kind == "normal":
            return be.random_normal_int(shape, params[0], params[1], npd, gen, op=op)
        return be.random_bernoulli(shape, params[0], npd, gen, op=op)
    if dtype.kind == "complex":  # docs/complex.md: random takes real tensors only
        raise _dt.complex_error(op, "dtype", dtype)
    if kind == "default":
        return be.random_bernoulli(shape, 0.5, npd, gen, op=op)
    if kind == "bernoulli":
        return be.random_bernoulli(shape, params[0], npd, gen, op=op)
    raise KindError(f"{op}: cannot sample bool tensors from {dist!r}; expected "
                    "Distribution.bernoulli(p) or Distribution.default()")


def _finish(data, dtype, requires_grad):
    t = wrap(data, dtype)
    if requires_grad:
        t.require_grad()
    return t


def random(shape, distribution=None, dtype=None, device=None, requires_grad=False, *,
           generator=None):
    """A tensor of ``shape`` sampled from ``distribution`` (default: uniform in [0, 1)).

    ``dtype`` (default float32) may be of any kind: float samples the distribution; int takes
    the integers in [low, high) for ``uniform``, rounds ``normal`` samples and gives 0/1 for
    ``bernoulli``; bool takes ``bernoulli`` (``default``: a fair coin). Also ``Tensor.random``;
    Burn's ``Tensor.random(shape, distribution, device)`` works too (a device in third place).

    >>> import ember
    >>> ember.manual_seed(7)
    >>> x = ember.random((2, 3), ember.Distribution.uniform(0.0, 1.0))
    >>> x.shape, x.dtype
    ((2, 3), ember.float32)
    >>> ember.random([4], ember.Distribution.uniform(0, 10), dtype="int32").dtype
    ember.int32
    """
    op = "random"
    if dtype is not None and _is_device(dtype):
        device, dtype = dtype, None  # Burn's third argument: the device
    shape = _shape(shape, op)
    dist = _distribution(distribution, op)
    dtype = _dt.default_float if dtype is None else _dt.as_dtype(dtype)
    be, gen = _source(generator, device, op)
    if requires_grad and dtype.kind != "float":
        raise KindError(f"{op}: only float tensors can require grad; dtype is {dtype.name}")
    return _finish(_sample(be, shape, dist, dtype, op, gen), dtype, requires_grad)


Tensor.random = staticmethod(random)


@tensor_method
def random_like(self, distribution=None, dtype=None, *, generator=None):
    """A tensor with this one's shape and dtype (or ``dtype``), sampled from ``distribution``.

    >>> import ember
    >>> t = ember.tensor([[1.0, 2.0]], dtype="float64")
    >>> r = t.random_like(ember.Distribution.normal(0.0, 1.0))
    >>> r.shape, r.dtype
    ((1, 2), ember.float64)
    """
    op = "random_like"
    if not isinstance(self, Tensor):
        raise InvalidParameterError(f"{op}: expected a Tensor, got {type(self).__name__}",
                                    "self", self)
    if self.is_quantized:  # Burn: quantized tensor creation is unsupported
        raise KindError(f"{op}: the tensor is quantized; quantized tensor creation is not "
                        "supported (call dequantize() first)")
    dist = _distribution(distribution, op)
    if dtype is None:
        dtype = self._dtype
        if dtype.kind == "complex":
            raise _dt.complex_error(op, "self", dtype)
    else:
        dtype = _dt.as_dtype(dtype)
    be, gen = _source(generator, self._device, op)
    return wrap(_sample(be, tuple(self._data.shape), dist, dtype, op, gen), dtype)


def _float_dtype(dtype, op):
    dtype = _dt.default_float if dtype is None else _dt.as_dtype(dtype)
    if dtype.kind != "float":
        if dtype.kind == "complex":
            raise _dt.complex_error(op, "dtype", dtype)
        raise KindError(f"{op}: dtype {dtype.name} is not a float dtype; expected a float dtype")
    return dtype


def rand(*shape, generator=None, dtype=None, device=None, requires_grad=False):
    """Floats uniform in [0, 1) of the given shape (PyTorch's ``rand``; varargs or one sequence).

    >>> import ember
    >>> ember.rand(2, 3).shape
    (2, 3)
    """
    op = "rand"
    shape = _varargs_shape(shape, op)
    dtype = _float_dtype(dtype, op)
    be, gen = _source(generator, device, op)
    return _finish(be.random_uniform(shape, 0.0, 1.0, dtype, gen, op=op), dtype, requires_grad)


def randn(*shape, generator=None, dtype=None, device=None, requires_grad=False):
    """Floats from the standard normal distribution (PyTorch's ``randn``).

    >>> import ember
    >>> ember.randn((4,), dtype="float64").dtype
    ember.float64
    """
    op = "randn"
    shape = _varargs_shape(shape, op)
    dtype = _float_dtype(dtype, op)
    be, gen = _source(generator, device, op)
    return _finish(be.random_normal(shape, 0.0, 1.0, dtype, gen, op=op), dtype, requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    """Integers uniform in ``[low, high)``: ``randint(low, high, size)`` or ``randint(high, size)``.

    ``dtype`` defaults to int64; a float dtype gives integral floats.

    >>> import ember
    >>> x = ember.randint(0, 10, (3, 4))
    >>> x.shape, x.dtype
    ((3, 4), ember.int64)
    >>> ember.randint(5, (2,)).shape
    (2,)
    """
    op = "randint"
    if size is None:
        if high is None or not isinstance(high, (tuple, list, Tensor)):
            raise InvalidParameterError(f"{op}: size is missing; expected randint(low, high, "
                                        "size) or randint(high, size)", "size", size)
        low, high, size = 0, low, high
    low = as_int(low, op, "low", wide=True)
    high = as_int(high, op, "high", wide=True)
    shape = _shape(size, op)
    dtype = _dt.default_int if dtype is None else _dt.as_dtype(dtype)
    if dtype.kind == "bool":
        raise KindError(f"{op}: dtype bool is not an int or float dtype; expected an int or "
                        "float dtype")
    if dtype.kind == "complex":
        raise _dt.complex_error(op, "dtype", dtype)
    be, gen = _source(generator, device, op)
    _int_bounds(be, low, high, dtype, op, f"the range [{low}, {high})")
    if requires_grad and dtype.kind != "float":
        raise KindError(f"{op}: only float tensors can require grad; dtype is {dtype.name}")
    return _finish(be.random_integers(shape, low, high, dtype, gen, op=op), dtype, requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of ``0 .. n-1`` (PyTorch's ``randperm``), int64 by default.

    >>> import ember
    >>> sorted(ember.randperm(5).tolist())
    [0, 1, 2, 3, 4]
    """
    op = "randperm"
    n = as_int(n, op, "n")
    if n < 0:
        raise InvalidParameterError(f"{op}: n is {n}; expected n >= 0", "n", n)
    dtype = _dt.default_int if dtype is None else _dt.as_dtype(dtype)
    if dtype.kind == "bool":
        raise KindError(f"{op}: dtype bool is not an int or float dtype; expected an int or "
                        "float dtype")
    if dtype.kind == "complex":
        raise _dt.complex_error(op, "dtype", dtype)
    be, gen = _source(generator, device, op)
    if dtype.kind == "int" and n and n - 1 > be.random_dtype_info(dtype)[1]:
        raise InvalidParameterError(f"{op}: n {n} does not fit {dtype.name}", "n", n)
    if requires_grad and dtype.kind != "float":
        raise KindError(f"{op}: only float tensors can require grad; dtype is {dtype.name}")
    return _finish(be.random_permutation(n, dtype, gen, op=op), dtype, requires_grad)


def manual_seed(seed):
    """Restart the global random generator from ``seed``: the same seed gives the same values.

    Any int in [-2**63, 2**64) works; negative seeds wrap around, as in PyTorch.

    >>> import ember
    >>> ember.manual_seed(3); a = ember.rand(3).tolist()
    >>> ember.manual_seed(3); a == ember.rand(3).tolist()
    True
    """
    default_generator.manual_seed(seed)


def seed():
    """Restart the global generator from a fresh seed from the operating system; returns it.

    >>> import ember
    >>> s = ember.seed(); s == ember.initial_seed()
    True
    """
    return default_generator.seed()


def initial_seed():
    """The seed the global generator was last started from (PyTorch's ``initial_seed``).

    >>> import ember
    >>> ember.manual_seed(5); ember.initial_seed()
    5
    """
    return default_generator.initial_seed()


def get_rng_state():
    """The global generator's state, a uint8 tensor (PyTorch's ``get_rng_state``).

    >>> import ember
    >>> state = ember.get_rng_state(); a = ember.rand(2).tolist()
    >>> ember.set_rng_state(state); a == ember.rand(2).tolist()
    True
    """
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default device's generator's state from ``get_rng_state``."""
    _set_state(default_generator._device, None, new_state, "set_rng_state")


def _weights(self, op):
    if not isinstance(self, Tensor):
        raise InvalidParameterError(f"{op}: expected a Tensor of weights, got "
                                    f"{type(self).__name__}", "self", self)
    kind = self._dtype.kind
    if kind == "bool":
        raise KindError(f"{op}: not defined for bool tensors; expected a float (or int) tensor "
                        "of weights")
    if kind == "complex":
        raise _dt.complex_error(op, "self", self._dtype)
    shape = self._data.shape
    if not shape:
        raise DimensionError(f"{op}: a 0-d tensor has no dim of categories; expected at least "
                             "1 dim (the last one holds the weights)")
    if shape[-1] == 0:
        raise InvalidParameterError(
            f"{op}: the last dim has no categories (shape {tuple(shape)}); expected at least one",
            "self", tuple(shape))
    bad = self._device.backend.random_weights_check(self._data)
    if bad is not None:
        what, idx, value = bad
        if what == "bad":
            raise InvalidParameterError(
                f"{op}: weight {value} at index {idx}; expected finite weights >= 0",
                "self", value)
        row = f" of row {idx}" if idx else ""
        if what == "zero":
            raise InvalidParameterError(
                f"{op}: the weights{row} sum to zero; expected at least one positive "
                "weight in every row", "self", idx)
        raise InvalidParameterError(
            f"{op}: the weights{row} sum to infinity; expected a finite sum", "self", idx)


def _num_samples(n, op):
    n = as_int(n, op, "num_samples")
    if n < 1:
        raise InvalidParameterError(f"{op}: num_samples is {n}; expected num_samples >= 1",
                                    "num_samples", n)
    return n


@tensor_method
def categorical(self, num_samples, *, generator=None):
    """Draw ``num_samples`` category indices per row of weights (the last dim), with replacement.

    The weights need not be normalized; leading dims are batch dims. The result is an int64
    tensor of this shape with the last dim replaced by ``num_samples``. Negative, NaN or
    infinite weights, or a row whose weights are all zero, raise ``InvalidParameterError``.

    >>> import ember
    >>> probs = ember.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> probs.categorical(4).tolist()
    [[1, 1, 1, 1], [2, 2, 2, 2]]
    """
    op = "categorical"
    _weights(self, op)
    n = _num_samples(num_samples, op)
    be, gen = _tensor_source(self, generator, op)
    return wrap(be.random_categorical(self._data, n, True, gen, op=op), _dt.int64)


@tensor_method
def multinomial(self, num_samples, replacement=False, *, generator=None):
    """PyTorch's ``multinomial``: like ``categorical``, without replacement by default.

    Without replacement each row's indices are distinct, so ``num_samples`` can be at most the
    number of positive weights in every row.

    >>> import ember
    >>> w = ember.tensor([0.0, 5.0, 1.0, 0.0])
    >>> sorted(w.multinomial(2).tolist())
    [1, 2]
    """
    op = "multinomial"
    _weights(self, op)
    n = _num_samples(num_samples, op)
    if not isinstance(replacement, bool):
        raise InvalidParameterError(f"{op}: replacement must be a bool, got {replacement!r}",
                                    "replacement", replacement)
    be, gen = _tensor_source(self, generator, op)
    if not replacement:
        k = be.random_positive_counts(self._data)
        if n > k:
            raise InvalidParameterError(
                f"{op}: num_samples {n} exceeds the {k} positive weight(s) of a row; without "
                "replacement expected num_samples <= the number of positive weights",
                "num_samples", n)
    return wrap(be.random_categorical(self._data, n, replacement, gen, op=op), _dt.int64)
