"""PyTorch's creation functions that ember's namespace lacks or spells otherwise:
``as_tensor``/``asarray``, the random ``*_like``, ``range``, ``logspace``, ``empty_strided``,
``heaviside``, ``clone``, ``normal``/``bernoulli`` with PyTorch's overloads, the ``new_*``
methods, ``manual_seed`` returning the generator, ``set_default_dtype``/``get_default_dtype``
and ``set_printoptions``.

``from_numpy`` (ember's) shares the array's memory as PyTorch's does, but ember's tensors never
write their buffer: a later write into the NumPy array shows through the tensor, no ember op
writes back into it.

>>> import ember.torch as torch
>>> x = torch.tensor([1, 2])
>>> x.new_zeros(2, 3).dtype, torch.range(0, 2).tolist()
(torch.int64, [0.0, 1.0, 2.0])
>>> torch.manual_seed(0) is torch.default_generator
True
"""

import math

import ember as _e

from .. import dtypes as _dt
from .._tensor import Tensor as _T
from ..errors import InvalidParameterError, KindError
from ..ops.random import default_generator
from ._tensor import torch_function, torch_method
from .conversion import _check_format, preserve_format

__all__ = []


def _size(size, op):
    """PyTorch's ``*size`` or ``size``: a tuple of ints."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise InvalidParameterError(f"{op}: size must be ints >= 0, got {list(size)!r}",
                                        "size", size)
    return tuple(size)


def _like(input, op):
    if not isinstance(input, _T):
        raise KindError(f"{op}: input must be a Tensor, got {type(input).__name__}")


def fill_for(value, dtype, op):
    """A Python fill value as PyTorch casts it into ``dtype``: a float truncated toward zero
    for an int dtype, any number's truth for bool (a non-finite float into ints raises
    ``InvalidParameterError``; a value out of the dtype's range raises in ``full``).

    >>> fill_for(-2.7, _dt.int64, "full"), fill_for(0.2, _dt.bool_, "full")
    (-2, True)
    """
    if dtype is None or isinstance(value, (bool, _T)) or not isinstance(value, (int, float)):
        return value
    dtype = _dt.as_dtype(dtype, "dtype", op)
    if dtype.kind == "bool":
        return bool(value)
    if dtype.kind == "int" and isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameterError(f"{op}: fill_value {value} cannot be converted to "
                                        f"{dtype.name}", "fill_value", value)
        return math.trunc(value)
    return value


@torch_function
def full(size, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    """``torch.full``: ``fill_value`` in a tensor of ``size`` (dtype from the value unless
    given; a float into an int dtype is truncated, as PyTorch's cast).

    >>> import ember.torch as torch
    >>> torch.full((2,), -2.7, dtype=torch.int64).tolist(), torch.full([1], 2).dtype
    ([-2, -2], torch.int64)
    """
    return _e.full(_size((size,), "full"), fill_for(fill_value, dtype, "full"), dtype=dtype,
                   device=device, requires_grad=requires_grad)


@torch_function
def full_like(input, fill_value, *, dtype=None, layout=None, device=None,  # noqa: A002
              requires_grad=False, memory_format=preserve_format):
    """``torch.full_like``: ``fill_value`` in ``input``'s shape, dtype and device.

    >>> import ember.torch as torch
    >>> torch.full_like(torch.ones(2, dtype=torch.int64), 2.7).tolist()
    [2, 2]
    """
    dtype, device, rg = _like_options(input, dtype, device, requires_grad, memory_format,
                                      "full_like")
    return _e.full(tuple(input.shape), fill_for(fill_value, dtype, "full_like"), dtype=dtype,
                   device=device, requires_grad=rg)


# -- from data ------------------------------------------------------------------------------

@torch_function
def as_tensor(data, dtype=None, device=None):
    """``torch.as_tensor``: ``data`` itself when it is a tensor of that dtype and device, a
    tensor sharing a NumPy array's memory where it can (see ``from_numpy``), else a new tensor.

    >>> import ember.torch as torch
    >>> t = torch.ones(2)
    >>> torch.as_tensor(t) is t, torch.as_tensor([1, 2]).dtype
    (True, torch.int64)
    """
    if isinstance(data, _T):
        out = data
        if dtype is not None:
            out = out.to(dtype)
        if device is not None:
            out = out.to(device)
        return out
    if dtype is None and device is None and type(data).__module__ == "numpy" and \
            hasattr(data, "__array_interface__") and data.ndim:
        try:
            return _e.from_numpy(data)
        except KindError:
            pass
    return _e.tensor(data, dtype=dtype, device=device)


@torch_function
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``torch.asarray``: ``obj`` as a tensor, shared where possible unless ``copy=True``
    (``copy=False`` where a copy is needed raises ``InvalidParameterError``).

    >>> import ember.torch as torch
    >>> torch.asarray([1.5, 2]).tolist(), torch.asarray(torch.ones(1), copy=True).tolist()
    ([1.5, 2.0], [1.0])
    """
    op = "asarray"
    if copy is True:
        out = _e.tensor(obj, dtype=dtype, device=device) if not isinstance(obj, _T) else \
            as_tensor(obj, dtype, device).clone().detach()
    else:
        out = as_tensor(obj, dtype, device)
        if copy is False and isinstance(obj, _T) and out is not obj:
            raise InvalidParameterError(f"{op}: copy=False but the dtype or device asked for "
                                        "needs a copy", "copy", copy)
    if requires_grad:
        out = out.detach() if out is obj else out
        out.set_require_grad(True)
    return out


# -- random *_like --------------------------------------------------------------------------

def _like_options(input, dtype, device, requires_grad, memory_format, op):
    _like(input, op)
    _check_format(memory_format, op)
    return (input._dtype if dtype is None else _dt.as_dtype(dtype, "dtype", op),
            input._device if device is None else device, requires_grad)


@torch_function
def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,  # noqa: A002
              memory_format=preserve_format, generator=None):
    """``torch.rand_like``: uniform samples in [0, 1) of ``input``'s shape, dtype and device.

    >>> import ember.torch as torch
    >>> torch.rand_like(torch.ones(2, 3, dtype=torch.float64)).dtype
    torch.float64
    """
    dtype, device, rg = _like_options(input, dtype, device, requires_grad, memory_format,
                                      "rand_like")
    return _e.rand(tuple(input.shape), generator=generator, dtype=dtype, device=device,
                   requires_grad=rg)


@torch_function
def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,  # noqa: A002
               memory_format=preserve_format, generator=None):
    """``torch.randn_like``: standard normal samples of ``input``'s shape, dtype and device.

    >>> import ember.torch as torch
    >>> torch.randn_like(torch.ones(2, 3)).shape
    torch.Size([2, 3])
    """
    dtype, device, rg = _like_options(input, dtype, device, requires_grad, memory_format,
                                      "randn_like")
    return _e.randn(tuple(input.shape), generator=generator, dtype=dtype, device=device,
                    requires_grad=rg)


@torch_function
def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,  # noqa: A002
                 requires_grad=False, memory_format=preserve_format, generator=None):
    """``torch.randint_like``: ints uniform in ``[low, high)`` (``randint_like(x, high)`` is
    ``[0, high)``) of ``input``'s shape, dtype and device.

    >>> import ember.torch as torch
    >>> torch.randint_like(torch.zeros(3), 5, 6).tolist()
    [5.0, 5.0, 5.0]
    """
    op = "randint_like"
    dtype, device, rg = _like_options(input, dtype, device, requires_grad, memory_format, op)
    if high is None:
        low, high = 0, low
    samples = _e.randint(low, high, tuple(input.shape), generator=generator, device=device)
    out = samples.to(dtype)
    if rg:
        out.set_require_grad(True)
    return out


# -- ranges ---------------------------------------------------------------------------------

def _real(value, op, param):
    if isinstance(value, _T):
        if value.numel() != 1:
            raise InvalidParameterError(f"{op}: {param} must be a number or a one-element "
                                        f"tensor, got shape {tuple(value.shape)}", param, value)
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameterError(f"{op}: {param} must be a real number, got {value!r}",
                                    param, value)
    return value


@torch_function
def range(start=0, end=None, step=1, *, dtype=None, device=None,  # noqa: A001
          requires_grad=False):
    """``torch.range`` (deprecated in PyTorch): like ``arange`` but ``end`` included, and the
    default float dtype whatever the arguments.

    >>> import ember.torch as torch
    >>> torch.range(1, 4).tolist(), torch.range(0, 1, 0.5).tolist()
    ([1.0, 2.0, 3.0, 4.0], [0.0, 0.5, 1.0])
    """
    op = "range"
    if end is None:
        start, end = 0, start
    start, end, step = _real(start, op, "start"), _real(end, op, "end"), _real(step, op, "step")
    if step == 0:
        raise InvalidParameterError(f"{op}: step must be nonzero", "step", step)
    if (end - start) * step < 0:
        raise InvalidParameterError(f"{op}: upper bound and larger bound inconsistent with step "
                                    f"sign (start={start}, end={end}, step={step})", "step", step)
    dtype = _dt.default_float if dtype is None else _dt.as_dtype(dtype, "dtype", op)
    n = int(math.floor((end - start) / step)) + 1
    steps = _e.arange(n, dtype=_dt.float64, device=device)
    out = (steps * step + start).to(dtype)
    if requires_grad:
        out.set_require_grad(True)
    return out


@torch_function
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``torch.logspace``: ``base ** linspace(start, end, steps)``.

    >>> import ember.torch as torch
    >>> torch.logspace(0, 2, 3).tolist()
    [1.0, 10.0, 100.0]
    """
    op = "logspace"
    start, end = _real(start, op, "start"), _real(end, op, "end")
    base = _real(base, op, "base")
    dtype = _dt.default_float if dtype is None else _dt.as_dtype(dtype, "dtype", op)
    exps = _e.linspace(start, end, steps, dtype=_dt.float64, device=device)
    out = (_e.full((), float(base), dtype=_dt.float64, device=device) ** exps)
    out = out.round() .to(dtype) if dtype.kind == "int" else out.to(dtype)
    if requires_grad:
        out.set_require_grad(True)
    return out


@torch_function
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """``torch.empty_strided``: an uninitialised tensor of ``size`` (ember's buffers are
    row-major, so ``stride`` is checked against ``size`` but does not change the layout).

    >>> import ember.torch as torch
    >>> torch.empty_strided((2, 3), (1, 2)).shape
    torch.Size([2, 3])
    """
    op = "empty_strided"
    size = _size((size,), op)
    if not isinstance(stride, (tuple, list)) or len(stride) != len(size):
        raise InvalidParameterError(f"{op}: stride must be a sequence of {len(size)} ints, got "
                                    f"{stride!r}", "stride", stride)
    return _e.empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


@torch_function
def heaviside(input, values):  # noqa: A002
    """``torch.heaviside``: 0 where ``input < 0``, 1 where ``input > 0``, ``values`` where it
    is 0 (the two of one dtype, as PyTorch).

    >>> import ember.torch as torch
    >>> torch.heaviside(torch.tensor([-1.0, 0.0, 2.0]), torch.tensor([0.5])).tolist()
    [0.0, 0.5, 1.0]
    """
    op = "heaviside"
    _like(input, op)
    _like(values, op)
    if input._dtype is not values._dtype:
        raise KindError(f"{op}: input ({input._dtype.name}) and values ({values._dtype.name}) "
                        "must have the same dtype")
    if input._dtype.kind == "complex":
        raise _dt.complex_error(op, "input", input._dtype)
    step = (input > 0).to(input._dtype)
    return _e.where(input == 0, values, step).detach()


torch_method(lambda self, values: heaviside(self, values), name="heaviside")


@torch_function
def clone(input, *, memory_format=preserve_format):  # noqa: A002
    """``torch.clone``: ``input.clone()``.

    >>> import ember.torch as torch
    >>> torch.clone(torch.ones(2)).tolist()
    [1.0, 1.0]
    """
    _like(input, "clone")
    return input.clone(memory_format=memory_format)


# -- random with PyTorch's overloads -------------------------------------------------------

@torch_function
def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """``torch.normal``: samples of N(``mean``, ``std**2``), where ``mean`` and ``std`` are
    tensors (broadcast together) or numbers (then ``size`` gives the shape).

    >>> import ember.torch as torch
    >>> torch.normal(torch.tensor([1.0, 2.0]), 0.0).tolist(), torch.normal(3.0, 0.0, (2,)).tolist()
    ([1.0, 2.0], [3.0, 3.0])
    """
    op = "normal"
    tensors = [t for t in (mean, std) if isinstance(t, _T)]
    if not tensors:
        if size is None:
            raise InvalidParameterError(f"{op}: size is needed when mean and std are numbers",
                                        "size", size)
        m, s = _real(mean, op, "mean"), _real(std, op, "std")
        if s < 0:
            raise InvalidParameterError(f"{op}: std is {s}; expected std >= 0", "std", s)
        noise = _e.randn(_size((size,), op), generator=generator, dtype=dtype, device=device)
        out = noise * s + m
        if requires_grad:
            out.set_require_grad(True)
        return out
    if size is not None:
        raise InvalidParameterError(f"{op}: size is only for number mean and std", "size", size)
    for t in tensors:
        if t._dtype.kind != "float":
            raise KindError(f"{op}: mean and std must be float tensors, got {t._dtype.name}")
    if isinstance(std, _T):
        if std.numel() and bool((std.detach() < 0).any()):
            raise InvalidParameterError(f"{op}: std must hold values >= 0", "std", std)
    elif _real(std, op, "std") < 0:
        raise InvalidParameterError(f"{op}: std is {std}; expected std >= 0", "std", std)
    both = mean * 0 + std * 0  # the broadcast of the two, tracked when either is
    noise = _e.randn(tuple(both.shape), generator=generator, dtype=tensors[0]._dtype,
                     device=tensors[0]._device)
    return _recorded_sample((noise * std + mean).detach(), both)


def _recorded_sample(sample, inputs):
    """``sample`` recorded as a function of ``inputs`` (a tensor of its shape) with zero
    gradients, as PyTorch records its samplers; untracked when ``inputs`` is."""
    if not inputs.requires_grad:
        return sample
    everywhere = _e.ones(tuple(sample.shape), dtype=_dt.bool_, device=sample._device)
    return _e.where(everywhere, sample, inputs)


@torch_function
def bernoulli(input, p=None, *, generator=None):  # noqa: A002
    """``torch.bernoulli``: 1 with the probability in each element of ``input`` (or ``p``),
    else 0; ``input``'s shape and dtype.

    >>> import ember.torch as torch
    >>> torch.bernoulli(torch.tensor([0.0, 1.0])).tolist()
    [0.0, 1.0]
    """
    op = "bernoulli"
    _like(input, op)
    prob = input if p is None else p
    if isinstance(prob, _T) and prob._dtype.kind != "float":
        raise KindError(f"{op}: the probabilities must be a float tensor, got {prob._dtype.name}")
    sample = input.detach().clone().bernoulli_(prob, generator=generator)
    if input._dtype.kind != "float":
        return sample
    tracked = input * 0 if not isinstance(prob, _T) else input * 0 + (prob * 0).to(input._dtype)
    return _recorded_sample(sample, tracked)


torch_method(lambda self, p=None, *, generator=None: bernoulli(self, p, generator=generator),
             name="bernoulli")


@torch_function
def manual_seed(seed):
    """``torch.manual_seed``: restart the global generator at ``seed``; returns it.

    >>> import ember.torch as torch
    >>> torch.manual_seed(3).initial_seed()
    3
    """
    _e.manual_seed(seed)
    return default_generator


# -- new_* ----------------------------------------------------------------------------------

def _new_options(self, dtype, device):
    return (self._dtype if dtype is None else dtype, self._device if device is None else device)


@torch_method
def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    """PyTorch's ``new_zeros``: zeros of ``size`` with this tensor's dtype and device.

    >>> import ember.torch as torch
    >>> torch.ones(1, dtype=torch.int32).new_zeros((2,)).tolist()
    [0, 0]
    """
    dtype, device = _new_options(self, dtype, device)
    return _e.zeros(_size(size, "new_zeros"), dtype=dtype, device=device,
                    requires_grad=requires_grad)


@torch_method
def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    """PyTorch's ``new_ones``: ones of ``size`` with this tensor's dtype and device.

    >>> import ember.torch as torch
    >>> torch.ones(1, dtype=torch.float64).new_ones(2).dtype
    torch.float64
    """
    dtype, device = _new_options(self, dtype, device)
    return _e.ones(_size(size, "new_ones"), dtype=dtype, device=device,
                   requires_grad=requires_grad)


@torch_method
def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    """PyTorch's ``new_empty``: an uninitialised tensor of ``size``, this tensor's dtype and
    device.

    >>> import ember.torch as torch
    >>> torch.ones(1).new_empty(2, 3).shape
    torch.Size([2, 3])
    """
    dtype, device = _new_options(self, dtype, device)
    return _e.empty(_size(size, "new_empty"), dtype=dtype, device=device,
                    requires_grad=requires_grad)


@torch_method
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    """PyTorch's ``new_full``: ``fill_value`` in ``size``, this tensor's dtype and device.

    >>> import ember.torch as torch
    >>> torch.ones(1, dtype=torch.int64).new_full((2,), 7).tolist()
    [7, 7]
    """
    dtype, device = _new_options(self, dtype, device)
    return _e.full(_size((size,), "new_full"), fill_for(fill_value, dtype, "new_full"),
                   dtype=dtype, device=device,
                   requires_grad=requires_grad)


@torch_method
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """PyTorch's ``new_tensor``: a new tensor (a copy) of ``data`` with this tensor's dtype
    and device.

    >>> import ember.torch as torch
    >>> torch.ones(1, dtype=torch.float64).new_tensor([1, 2]).dtype
    torch.float64
    """
    dtype, device = _new_options(self, dtype, device)
    if isinstance(data, _T):
        data = data.detach()
    return _e.tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


# -- defaults -------------------------------------------------------------------------------

@torch_function
def set_default_dtype(d):
    """``torch.set_default_dtype``: the float dtype that Python floats and the float creation
    functions default to (float32 or float64 ...), for ember's API too; the default complex
    dtype follows it.

    >>> import ember.torch as torch
    >>> torch.set_default_dtype(torch.float64); torch.tensor([1.5]).dtype
    torch.float64
    >>> torch.set_default_dtype(torch.float32); torch.get_default_dtype()
    torch.float32
    """
    dtype = _dt.as_dtype(d, "d", "set_default_dtype")
    if dtype.kind != "float":
        raise KindError(f"set_default_dtype: only floating-point types are supported as the "
                        f"default type, got {dtype.name}")
    _dt.default_float = dtype
    _dt._DEFAULT_OF_KIND["float"] = dtype
    _dt._DEFAULT_OF_KIND["complex"] = _dt.complex_of(dtype)


@torch_function
def get_default_dtype():
    """``torch.get_default_dtype``: the default float dtype (float32 unless set).

    >>> import ember.torch as torch
    >>> torch.get_default_dtype()
    torch.float32
    """
    return _dt.default_float


@torch_function
def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """``torch.set_printoptions``: how ember.torch prints tensors (``profile`` "default",
    "short" or "full" first, then the other options).

    >>> import ember.torch as torch
    >>> torch.set_printoptions(precision=2); torch.tensor([1.2345])
    tensor([1.23])
    >>> torch.set_printoptions(profile="default")
    """
    from . import printing
    printing.set_options(precision=precision, threshold=threshold, edgeitems=edgeitems,
                         linewidth=linewidth, profile=profile, sci_mode=sci_mode)
