"""PyTorch's in-place methods (``add_``, ``clamp_``, ``index_add_``, ``bernoulli_`` ...) of
``ember.torch.Tensor``, written through every alias (docs/pytorch.md, "In-place updates and
views").

Each computes the out-of-place result with the method of the same name without the trailing
underscore (``x.add_(y)`` is ``x.add(y)``) and writes it into ``x`` and every alias of ``x``
(its views, the tensor it views: ember/ops/aliasing.py); it returns ``x``. As PyTorch's:

- on a leaf that requires grad, outside ``no_grad()``, it raises ``GraphError``;
- a result of a higher kind than the tensor's dtype (an int tensor's ``add_(0.5)``: a float
  result for an int tensor) raises ``KindError``, a lower one is cast to the tensor's dtype
  (``x.eq_(y)`` holds 0 and 1 in x's dtype);
- a result of another shape than the tensor's (the operand broadcast it) raises
  ``ShapeMismatchError``, except for the shape methods ``t_``, ``transpose_``, ``squeeze_``,
  ``unsqueeze_``, ``swapdims_`` and ``swapaxes_``, which make ``x`` a new view of its memory;
- on ``p.data`` it updates ``p`` too.

>>> import ember.torch as torch
>>> x = torch.tensor([1.0, 2.0])
>>> x.add_(1, alpha=2) is x, x.tolist()
(True, [3.0, 4.0])
>>> torch.tensor([1, 2]).add_(0.5)
Traceback (most recent call last):
...
ember.errors.KindError: add_: result type float32 can't be cast to the desired output type int64
"""

import math

import ember as _e

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..ops.aliasing import review
from ..ops.inplace import _check_update, _settle, apply_inplace  # noqa: F401  (re-exported)
from ..ops.random import _gen
from .._tensor import Tensor as _T
from ._tensor import Tensor, torch_method

__all__ = ["apply_inplace", "register_inplace", "register_all"]

# the shape methods: their in-place forms change the tensor's shape
_RESHAPING = frozenset(("t", "transpose", "squeeze", "unsqueeze", "swapdims", "swapaxes"))


def register_inplace(name, base=None):
    """Give ember.torch's Tensor the in-place method ``name`` (``"exp_"``): the method
    ``base`` (default ``name`` without its underscore), looked up when called, rebound into
    the tensor.

    >>> import ember.torch as torch
    >>> register_inplace("exp_")
    >>> torch.zeros(2).exp_().tolist()
    [1.0, 1.0]
    """
    base = base or name[:-1]

    if base in _RESHAPING:
        def method(self, *args, **kwargs):
            _check_update(self, name)
            return review(self, base, getattr(type(self), base), args, kwargs)
    else:
        fast = {"mul": "mul", "div": "div"}.get(base)

        def method(self, *args, **kwargs):
            fn = getattr(type(self), base)
            return apply_inplace(self, lambda t: fn(t, *args, **kwargs), name,
                                 (fast, args[0]) if fast and len(args) == 1 and not kwargs
                                 else None)
    method.__doc__ = (f"PyTorch's ``{name}``: ``{base}`` of this tensor, rebound into it; "
                      "returns it (see ember/torch/inplace.py).")
    torch_method(method, name=name)


# PyTorch's in-place methods that are their base method rebound (the aliases map onto the
# base of the name they alias)
_ALIASES = {"absolute_": "abs", "arccos_": "acos", "arccosh_": "acosh", "arcsin_": "asin",
            "arcsinh_": "asinh", "arctan_": "atan", "arctanh_": "atanh", "arctan2_": "atan2",
            "clip_": "clamp", "multiply_": "mul", "subtract_": "sub", "divide_": "div",
            "negative_": "neg", "less_": "lt", "less_equal_": "le", "greater_": "gt",
            "greater_equal_": "ge", "not_equal_": "ne", "fix_": "trunc", "swapaxes_": "transpose",
            "swapdims_": "transpose", "true_divide_": "div"}

_NAMES = """conj_physical_ igamma_ igammac_ abs_ acos_ acosh_ asin_ asinh_ atan_ atanh_ atan2_ bitwise_and_ bitwise_or_
bitwise_xor_ bitwise_not_ bitwise_left_shift_ bitwise_right_shift_ ceil_ clamp_ clamp_min_
clamp_max_ cos_ cosh_ cumsum_ cumprod_ deg2rad_ rad2deg_ div_ eq_ ne_ lt_ le_ gt_ ge_ erf_ erfc_
erfinv_ exp_ exp2_ expm1_ floor_ floor_divide_ fmod_ frac_ hypot_ lerp_ log_ log10_ log1p_ log2_
logical_and_ logical_or_ logical_xor_ logical_not_ masked_fill_ mul_ neg_ pow_ reciprocal_
relu_ remainder_ round_ rsqrt_ sgn_ sigmoid_ sign_ sin_ sinh_ sqrt_ square_ tan_ tanh_ trunc_
tril_ triu_ t_ transpose_ squeeze_ unsqueeze_ index_fill_ index_copy_ index_reduce_ index_put_
masked_scatter_ scatter_ scatter_reduce_ put_ nan_to_num_ lgamma_ digamma_ i0_ sinc_ logit_
xlogy_ copysign_ heaviside_ float_power_ nextafter_ ldexp_ gcd_ lcm_ renorm_ polygamma_
mvlgamma_ addmm_ addmv_ addr_ addbmm_ baddbmm_""".split()


def register_all():
    """Register the in-place form of every name of the list whose base method ember.torch
    has now (idempotent: a module that adds base methods later may call it again)."""
    for name in _NAMES:
        if hasattr(_T, name[:-1]) or hasattr(Tensor, name[:-1]):
            register_inplace(name)
    for name, base in _ALIASES.items():
        if hasattr(_T, base) or hasattr(Tensor, base):
            register_inplace(name, base)


# -- the arithmetic with PyTorch's extra arguments -------------------------------------------

def _alpha(other, alpha, op):
    if alpha == 1:
        return other
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, complex)):
        raise InvalidParameterError(f"{op}: alpha must be a number, got {alpha!r}", "alpha", alpha)
    return other * alpha


def _check_alpha(self, alpha, op):
    if isinstance(alpha, float) and self._dtype.kind in ("int", "bool"):
        raise KindError(f"{op}: for integral input tensors, argument alpha must not be a "
                        f"floating point number, got {alpha!r}")


@torch_method
def add_(self, other, *, alpha=1):
    """PyTorch's ``add_``: ``self + alpha * other``, rebound into this tensor.

    >>> import ember.torch as torch
    >>> torch.ones(2).add_(torch.tensor([1.0, 2.0]), alpha=3).tolist()
    [4.0, 7.0]
    """
    _check_alpha(self, alpha, "add_")
    other = _alpha(other, alpha, "add_")
    return apply_inplace(self, lambda t: t + other, "add_", ("add", other))


@torch_method
def sub_(self, other, *, alpha=1):
    """PyTorch's ``sub_``: ``self - alpha * other``, rebound into this tensor.

    >>> import ember.torch as torch
    >>> torch.ones(2).sub_(torch.tensor([1.0, 2.0]), alpha=2).tolist()
    [-1.0, -3.0]
    """
    _check_alpha(self, alpha, "sub_")
    other = _alpha(other, alpha, "sub_")
    return apply_inplace(self, lambda t: t - other, "sub_", ("sub", other))


Tensor.subtract_ = sub_


@torch_method
def addcmul_(self, tensor1, tensor2, *, value=1):
    """PyTorch's ``addcmul_``: ``self + value * tensor1 * tensor2``, rebound.

    >>> import ember.torch as torch
    >>> a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    >>> torch.ones(2).addcmul_(a, b, value=0.5).tolist()
    [2.5, 5.0]
    """
    return apply_inplace(self, lambda t: t + _alpha(tensor1 * tensor2, value, "addcmul_"),
                         "addcmul_")


@torch_method
def addcdiv_(self, tensor1, tensor2, *, value=1):
    """PyTorch's ``addcdiv_``: ``self + value * tensor1 / tensor2``, rebound; int operands
    raise ``KindError`` as PyTorch's.

    >>> import ember.torch as torch
    >>> torch.ones(2).addcdiv_(torch.tensor([1.0, 2.0]), torch.tensor([4.0, 4.0]), value=2).tolist()
    [1.5, 2.0]
    """
    for name, t in (("tensor1", tensor1), ("tensor2", tensor2)):
        if isinstance(t, _T) and t._dtype.kind in ("int", "bool"):
            raise KindError(f"addcdiv_: integer division with addcdiv is no longer supported "
                            f"({name} has dtype {t._dtype.name}); use addcmul with "
                            f"1 / {name} or torch.div with rounding_mode")
    return apply_inplace(self, lambda t: t + _alpha(tensor1 / tensor2, value, "addcdiv_"),
                         "addcdiv_")


@torch_method
def index_add_(self, dim, index, source, *, alpha=1):
    """PyTorch's ``index_add_``: ``index_add`` rebound into this tensor.

    >>> import ember.torch as torch
    >>> torch.zeros(3).index_add_(0, torch.tensor([0, 0]), torch.tensor([1.0, 2.0])).tolist()
    [3.0, 0.0, 0.0]
    """
    return apply_inplace(self, lambda t: t.index_add(dim, index, source, alpha=alpha),
                         "index_add_")


@torch_method
def scatter_add_(self, dim, index, src):
    """PyTorch's ``scatter_add_``: ``scatter_add`` rebound into this tensor.

    >>> import ember.torch as torch
    >>> torch.zeros(3).scatter_add_(0, torch.tensor([2, 2]), torch.tensor([1.0, 2.0])).tolist()
    [0.0, 0.0, 3.0]
    """
    return apply_inplace(self, lambda t: t.scatter_add(dim, index, src), "scatter_add_")


# -- graph ------------------------------------------------------------------------------------

@torch_method
def detach_(self):
    """PyTorch's ``detach_``: this tensor stops being recorded (and requiring grad); returns it.

    >>> import ember.torch as torch
    >>> x = torch.ones(2, requires_grad=True) * 2
    >>> x.detach_().requires_grad, x.is_leaf
    (False, True)
    """
    self._node = None
    return self


# -- random fills -----------------------------------------------------------------------------

def _uniform(self, generator, op):
    """Uniform samples in [0, 1) of self's shape on its device (float64)."""
    _gen(generator, op)
    return _e.rand(tuple(self._data.shape), generator=generator, dtype=_dt.float64,
                   device=self._device)


def _number(value, op, param):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameterError(f"{op}: {param} must be a real number, got {value!r}",
                                    param, value)
    return float(value)


def _random_fill(self, op, sample, kinds=("float",)):
    _check_update(self, op)
    if self._dtype.kind not in kinds:
        raise KindError(f"{op}: not defined for {self._dtype.kind} tensors (dtype "
                        f"{self._dtype.name}); expected a {' or '.join(kinds)} tensor")
    return _settle(self, sample().detach().to(self._dtype), op)


@torch_method
def bernoulli_(self, p=0.5, *, generator=None):
    """PyTorch's ``bernoulli_``: each element 1 with probability ``p`` (a number or a tensor
    of probabilities broadcast to this shape), else 0.

    >>> import ember.torch as torch
    >>> torch.zeros(3).bernoulli_(1.0).tolist()
    [1.0, 1.0, 1.0]
    """
    op = "bernoulli_"
    if isinstance(p, _T):
        bad = p.detach().to(_dt.float64)
        if p.numel() and bool(((bad < 0) | (bad > 1)).any()):
            raise InvalidParameterError(f"{op}: p must hold probabilities in [0, 1]", "p", p)
        prob = bad
    else:
        prob = _number(p, op, "p")
        if not 0 <= prob <= 1:
            raise InvalidParameterError(f"{op}: p is {prob}; expected 0 <= p <= 1", "p", prob)
    return _random_fill(self, op, lambda: _uniform(self, generator, op) < prob,
                        ("float", "int", "bool"))


@torch_method
def exponential_(self, lambd=1.0, *, generator=None):
    """PyTorch's ``exponential_``: samples of the exponential distribution of rate ``lambd``.

    >>> import ember.torch as torch
    >>> bool((torch.zeros(100).exponential_(2.0) >= 0).all())
    True
    """
    op = "exponential_"
    rate = _number(lambd, op, "lambd")
    if rate <= 0:
        raise InvalidParameterError(f"{op}: lambd is {rate}; expected lambd > 0", "lambd", rate)
    return _random_fill(self, op, lambda: -(1 - _uniform(self, generator, op)).log() / rate)


@torch_method
def geometric_(self, p, *, generator=None):
    """PyTorch's ``geometric_``: the number of Bernoulli(``p``) trials up to the first
    success (values 1, 2, ...).

    >>> import ember.torch as torch
    >>> torch.zeros(3).geometric_(1.0).tolist()
    [1.0, 1.0, 1.0]
    """
    op = "geometric_"
    prob = _number(p, op, "p")
    if not 0 < prob <= 1:
        raise InvalidParameterError(f"{op}: p is {prob}; expected 0 < p <= 1", "p", prob)
    if prob == 1:
        return _random_fill(self, op, lambda: _e.ones(tuple(self._data.shape), device=self._device),
                            ("float", "int"))
    return _random_fill(
        self, op,
        lambda: ((1 - _uniform(self, generator, op)).log() / math.log1p(-prob)).ceil().clamp(min=1),
        ("float", "int"))


@torch_method
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """PyTorch's ``log_normal_``: ``exp`` of samples of N(``mean``, ``std**2``).

    >>> import ember.torch as torch
    >>> torch.zeros(2).log_normal_(0.0, 0.0).tolist()
    [1.0, 1.0]
    """
    op = "log_normal_"
    mu, sigma = _number(mean, op, "mean"), _number(std, op, "std")
    if sigma < 0:
        raise InvalidParameterError(f"{op}: std is {sigma}; expected std >= 0", "std", sigma)
    _gen(generator, op)
    return _random_fill(self, op, lambda: (_e.randn(tuple(self._data.shape), generator=generator,
                                                    dtype=_dt.float64, device=self._device)
                                           * sigma + mu).exp())


@torch_method
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """PyTorch's ``cauchy_``: samples of the Cauchy distribution at ``median`` of scale
    ``sigma``.

    >>> import ember.torch as torch
    >>> torch.zeros(2).cauchy_(3.0, 0.0).tolist()
    [3.0, 3.0]
    """
    op = "cauchy_"
    mid, scale = _number(median, op, "median"), _number(sigma, op, "sigma")
    if scale < 0:
        raise InvalidParameterError(f"{op}: sigma is {scale}; expected sigma >= 0", "sigma", scale)
    return _random_fill(self, op, lambda: ((_uniform(self, generator, op) - 0.5) * math.pi).tan()
                        * scale + mid)


_MANTISSA = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}


@torch_method
def random_(self, from_=0, to=None, *, generator=None, **kwargs):
    """PyTorch's ``random_``: ints uniform in ``[from, to - 1]`` (``random_(to)`` is
    ``[0, to - 1]``; with no bound up to the dtype's largest exactly held int).

    >>> import ember.torch as torch
    >>> bool(((torch.zeros(50).random_(3, 5) >= 3) & (torch.zeros(50).random_(3, 5) < 5)).all())
    True
    """
    op = "random_"
    if "from" in kwargs:
        from_ = kwargs.pop("from")
    if kwargs:
        raise InvalidParameterError(f"{op}: unexpected arguments {sorted(kwargs)}", "kwargs",
                                    kwargs)
    kind = self._dtype.kind
    if to is None and from_ != 0 and kwargs == {}:
        low, high = 0, from_
    else:
        low, high = from_, to
    if high is None:
        if kind == "float":
            high = 2 ** _MANTISSA[self._dtype.name] + 1
        elif kind == "bool":
            high = 2
        else:
            bits = 8 * self._dtype.itemsize
            high = 2 ** bits if self._dtype.name.startswith("uint") else 2 ** (bits - 1)
            high = min(high, 2 ** 63)  # int64's (and uint64's, as PyTorch): [0, 2**63 - 1]
    for param, v in (("from", low), ("to", high)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidParameterError(f"{op}: {param} must be an int, got {v!r}", param, v)
    if low >= high:
        raise InvalidParameterError(f"{op}: expects 'from' to be less than 'to', but got "
                                    f"from={low} >= to={high}", "from", low)
    _gen(generator, op)
    return _random_fill(self, op,
                        lambda: _e.randint(low, high, tuple(self._data.shape), generator=generator,
                                           device=self._device),
                        ("float", "int", "bool"))


# -- the diagonal -----------------------------------------------------------------------------

@torch_method
def fill_diagonal_(self, fill_value, wrap=False):
    """PyTorch's ``fill_diagonal_``: the main diagonal set to ``fill_value`` (every dim of
    the same size, or a matrix; ``wrap`` continues a tall matrix's diagonal every N+1 rows).

    >>> import ember.torch as torch
    >>> torch.zeros(2, 3).fill_diagonal_(5).tolist()
    [[5.0, 0.0, 0.0], [0.0, 5.0, 0.0]]
    """
    op = "fill_diagonal_"
    shape = tuple(self._data.shape)
    if len(shape) < 2:
        raise _e.errors.DimensionError(f"{op}: dimensions must be larger than 1, got a "
                                       f"{len(shape)}-D tensor")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ShapeMismatchError(f"{op}: all dimensions of input must be of equal length, got "
                                 f"shape {shape}", expected="equal sizes", actual=shape)
    numel = math.prod(shape)
    if len(shape) == 2:
        step = shape[1] + 1
        stop = numel if wrap and shape[0] > shape[1] else min(shape) * shape[1]
    else:
        step = sum(math.prod(shape[k + 1:]) for k in range(len(shape)))
        stop = numel
    flat = _e.arange(numel, device=self._device)
    mask = ((flat % step == 0) & (flat < stop)).reshape(shape)
    return apply_inplace(self, lambda t: t.masked_fill(mask, fill_value), op)


register_all()
