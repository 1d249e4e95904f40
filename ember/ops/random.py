"""Random sampling: distributions, random tensors of every kind, categorical draws, seeding.

One global generator feeds every sampler; ``ember.manual_seed(seed)`` restarts it, so the same
seed gives the same values.

>>> import ember
>>> ember.manual_seed(0)
>>> ember.random((2, 3), ember.Distribution.uniform(-1.0, 1.0)).shape
(2, 3)
"""

import math

from .. import dtypes as _dt
from ..backends import default as be
from ..errors import DimensionError, InvalidParameterError, KindError
from ..shapes import as_int, check_rank
from ..tensor import Device, Tensor, tensor_method, wrap
from .data import _is_device

__all__ = ["Distribution", "random", "random_like", "rand", "randn", "randint", "manual_seed",
           "categorical", "multinomial"]


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


def _int_bounds(lo, hi, dtype, op, what):
    """Check that ``[lo, hi)`` holds an int and fits ``dtype``."""
    if lo >= hi:
        raise InvalidParameterError(f"{op}: {what} holds no integer; expected low < high",
                                    "high", hi)
    if dtype.kind == "int":
        mn, mx = be.random_dtype_info(dtype.np)
        if lo < mn or hi - 1 > mx:
            raise InvalidParameterError(
                f"{op}: {what} does not fit {dtype.name}, whose values lie in [{mn}, {mx}]",
                "high" if hi - 1 > mx else "low", hi if hi - 1 > mx else lo)


def _sample(shape, dist, dtype, op):
    """A backend array of ``shape`` and ember ``dtype`` sampled from ``dist`` (checked first)."""
    kind, params = dist.kind, dist.params
    npd = dtype.np
    if dtype.kind == "float":
        if kind == "default":
            return be.random_uniform(shape, 0.0, 1.0, npd)
        if kind == "uniform":
            return be.random_uniform(shape, params[0], params[1], npd)
        if kind == "normal":
            return be.random_normal(shape, params[0], params[1], npd)
        return be.random_bernoulli(shape, params[0], npd)
    if dtype.kind == "int":
        if kind == "default":
            mn, mx = be.random_dtype_info(npd)
            return be.random_integers(shape, mn, mx + 1, npd)
        if kind == "uniform":
            lo, hi = math.ceil(params[0]), math.ceil(params[1])
            _int_bounds(lo, hi, dtype, op, f"the range [{params[0]}, {params[1]})")
            return be.random_integers(shape, lo, hi, npd)
        if kind == "normal":
            return be.random_normal_int(shape, params[0], params[1], npd)
        return be.random_bernoulli(shape, params[0], npd)
    if kind == "default":
        return be.random_bernoulli(shape, 0.5, npd)
    if kind == "bernoulli":
        return be.random_bernoulli(shape, params[0], npd)
    raise KindError(f"{op}: cannot sample bool tensors from {dist!r}; expected "
                    "Distribution.bernoulli(p) or Distribution.default()")


def _finish(data, dtype, requires_grad):
    t = wrap(data, dtype)
    if requires_grad:
        t.require_grad()
    return t


def random(shape, distribution=None, dtype=None, device=None, requires_grad=False):
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
    if device is not None:
        Device(device.split(":")[0] if isinstance(device, str) else device)
    if requires_grad and dtype.kind != "float":
        raise KindError(f"{op}: only float tensors can require grad; dtype is {dtype.name}")
    return _finish(_sample(shape, dist, dtype, op), dtype, requires_grad)


Tensor.random = staticmethod(random)


@tensor_method
def random_like(self, distribution=None, dtype=None):
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
    dtype = self._dtype if dtype is None else _dt.as_dtype(dtype)
    return wrap(_sample(self._data.shape, dist, dtype, op), dtype)


def _float_dtype(dtype, op):
    dtype = _dt.default_float if dtype is None else _dt.as_dtype(dtype)
    if dtype.kind != "float":
        raise KindError(f"{op}: dtype {dtype.name} is not a float dtype; expected a float dtype")
    return dtype


def rand(*shape, dtype=None, device=None, requires_grad=False):
    """Floats uniform in [0, 1) of the given shape (PyTorch's ``rand``; varargs or one sequence).

    >>> import ember
    >>> ember.rand(2, 3).shape
    (2, 3)
    """
    op = "rand"
    shape = _varargs_shape(shape, op)
    dtype = _float_dtype(dtype, op)
    if device is not None:
        Device(device.split(":")[0] if isinstance(device, str) else device)
    return _finish(be.random_uniform(shape, 0.0, 1.0, dtype.np), dtype, requires_grad)


def randn(*shape, dtype=None, device=None, requires_grad=False):
    """Floats from the standard normal distribution (PyTorch's ``randn``).

    >>> import ember
    >>> ember.randn((4,), dtype="float64").dtype
    ember.float64
    """
    op = "randn"
    shape = _varargs_shape(shape, op)
    dtype = _float_dtype(dtype, op)
    if device is not None:
        Device(device.split(":")[0] if isinstance(device, str) else device)
    return _finish(be.random_normal(shape, 0.0, 1.0, dtype.np), dtype, requires_grad)


def randint(low, high=None, size=None, dtype=None, device=None):
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
    if device is not None:
        Device(device.split(":")[0] if isinstance(device, str) else device)
    _int_bounds(low, high, dtype, op, f"the range [{low}, {high})")
    return wrap(be.random_integers(shape, low, high, dtype.np), dtype)


def manual_seed(seed):
    """Restart the global random generator from ``seed``: the same seed gives the same values.

    Any int in [-2**63, 2**64) works; negative seeds wrap around, as in PyTorch.

    >>> import ember
    >>> ember.manual_seed(3); a = ember.rand(3).tolist()
    >>> ember.manual_seed(3); a == ember.rand(3).tolist()
    True
    """
    seed = as_int(seed, "manual_seed", "seed", wide=True)
    if not -2**63 <= seed < 2**64:
        raise InvalidParameterError(
            f"manual_seed: seed {seed} is out of range; expected an int in [-2**63, 2**64)",
            "seed", seed)
    be.random_seed(seed % 2**64)


def _weights(self, op):
    if not isinstance(self, Tensor):
        raise InvalidParameterError(f"{op}: expected a Tensor of weights, got "
                                    f"{type(self).__name__}", "self", self)
    if self._dtype.kind == "bool":
        raise KindError(f"{op}: not defined for bool tensors; expected a float (or int) tensor "
                        "of weights")
    shape = self._data.shape
    if not shape:
        raise DimensionError(f"{op}: a 0-d tensor has no dim of categories; expected at least "
                             "1 dim (the last one holds the weights)")
    if shape[-1] == 0:
        raise InvalidParameterError(
            f"{op}: the last dim has no categories (shape {tuple(shape)}); expected at least one",
            "self", tuple(shape))
    bad = be.random_weights_check(self._data)
    if bad is not None:
        what, idx, value = bad
        if what == "bad":
            raise InvalidParameterError(
                f"{op}: weight {value} at index {idx}; expected finite weights >= 0",
                "self", value)
        if what == "zero":
            raise InvalidParameterError(
                f"{op}: the weights of row {idx} sum to zero; expected at least one positive "
                "weight in every row", "self", idx)
        raise InvalidParameterError(
            f"{op}: the weights of row {idx} sum to infinity; expected a finite sum",
            "self", idx)


def _num_samples(n, op):
    n = as_int(n, op, "num_samples")
    if n < 1:
        raise InvalidParameterError(f"{op}: num_samples is {n}; expected num_samples >= 1",
                                    "num_samples", n)
    return n


@tensor_method
def categorical(self, num_samples):
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
    return wrap(be.random_categorical(self._data, n, True), _dt.int64)


@tensor_method
def multinomial(self, num_samples, replacement=False):
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
    if not replacement:
        k = be.random_positive_counts(self._data)
        if n > k:
            raise InvalidParameterError(
                f"{op}: num_samples {n} exceeds the {k} positive weight(s) of a row; without "
                "replacement expected num_samples <= the number of positive weights",
                "num_samples", n)
    return wrap(be.random_categorical(self._data, n, replacement), _dt.int64)
