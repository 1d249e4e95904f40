"""``torch.distributions.transforms``: invertible (or not) maps between constrained spaces, with the
log absolute determinant of their Jacobians, for building distributions from simpler ones.

A transform maps values of its ``domain`` constraint to its ``codomain``; ``t(x)`` is the
forward map, ``t.inv(y)`` the inverse, ``t.log_abs_det_jacobian(x, y)`` the log of
``|det dy/dx|`` summed over the ``event_dim`` rightmost dims of one event.

>>> import ember.torch as torch
>>> from ember.torch.distributions.transforms import ExpTransform, AffineTransform
>>> t = ExpTransform()
>>> round(t(torch.tensor(0.0)).item(), 4), round(t.inv(torch.tensor(1.0)).item(), 4)
(1.0, 0.0)
>>> AffineTransform(1.0, 2.0)(torch.tensor([0.0, 1.0])).tolist()
[1.0, 3.0]
"""

import math
import numbers
import operator
import weakref
from functools import reduce

from ... import torch as _t
from ..._tensor import Tensor as _AnyTensor
from ...errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import as_torch
from . import constraints
from .utils import broadcast_all, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
           "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform",
           "Transform", "identity_transform"]


def _sum_rightmost(value, dims):
    """``value`` summed over its ``dims`` rightmost dims (a number stays a number)."""
    if dims <= 0 or not isinstance(value, _AnyTensor):
        return value
    return value.sum(tuple(range(-dims, 0)))


def _as_param(value):
    return as_torch(value) if isinstance(value, _AnyTensor) else value


def _same(a, b):
    """Equal parameters: both the same number, or tensors equal everywhere."""
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    if isinstance(a, _AnyTensor) and isinstance(b, _AnyTensor):
        return bool(_t.eq(as_torch(a), as_torch(b)).all())
    return False


class Transform:
    """The base class of transforms.

    ``cache_size=1`` remembers the last ``x -> y`` pair, so that ``t.inv(t(x))`` returns ``x``
    itself (useful for transforms whose inverse is costly or unstable); ``0`` keeps nothing.
    Subclasses define ``_call`` (forward), ``_inverse``, ``log_abs_det_jacobian``,
    ``domain``/``codomain`` and ``bijective``/``sign`` where they hold.
    """

    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise InvalidParameterError(f"cache_size must be 0 or 1, got {cache_size!r}",
                                        "cache_size", cache_size)
        self._cache_size = cache_size
        self._cached_x_y = (None, None)
        self._inv = None

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None  # weak references do not pickle
        return state

    @property
    def event_dim(self):
        """The number of rightmost dims of one event, when domain and codomain agree."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform: ``t.inv(t(x)) == x``; the same object while it is alive."""
        inverse = self._inv() if self._inv is not None else None
        if inverse is None:
            inverse = _InverseTransform(self)
            self._inv = weakref.ref(inverse)
        return inverse

    @property
    def sign(self):
        """``+1`` or ``-1``: whether a bijective univariate transform increases or decreases."""
        raise NotImplementedError(f"{type(self).__name__}.sign")

    def with_cache(self, cache_size=1):
        """This transform with ``cache_size`` (itself when it already has that size)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self).__name__}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError(f"{type(self).__name__}._call")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} has no inverse")

    def log_abs_det_jacobian(self, x, y):
        """``log |det dy/dx|`` at the pair ``x``, ``y = t(x)``, one value per event."""
        raise NotImplementedError(f"{type(self).__name__}.log_abs_det_jacobian")

    def forward_shape(self, shape):
        """The shape of ``t(x)`` for an ``x`` of ``shape``."""
        return shape

    def inverse_shape(self, shape):
        """The shape of ``t.inv(y)`` for a ``y`` of ``shape``."""
        return shape

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform: forward and inverse swapped, the Jacobian term negated."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform  # a strong reference: the inverse keeps its transform alive

    @property
    def domain(self):
        return self._inv.codomain

    @property
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


def _bad_dim(who, dim, value):
    return DimensionError(f"{who}: dim {dim} is out of range for an input of shape "
                          f"{tuple(value.shape)}")


def _check_transforms(seq, who):
    seq = list(seq)
    for part in seq:
        if not isinstance(part, Transform):
            raise KindError(f"{who}: expected Transforms, got {type(part).__name__}")
    return seq


class ComposeTransform(Transform):
    """``parts`` applied in order: ``ComposeTransform([f, g])(x) == g(f(x))``; the empty
    composition is the identity."""

    def __init__(self, parts, cache_size=0):
        parts = _check_transforms(parts, "ComposeTransform")
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        # walk back from the output's event dims: each part needs at least its own domain's
        dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            dim = max(dim + part.domain.event_dim - part.codomain.event_dim,
                      part.domain.event_dim)
        domain = self.parts[0].domain
        if dim > domain.event_dim:
            domain = constraints.independent(domain, dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        dim = self.parts[0].domain.event_dim
        for part in self.parts:
            dim = max(dim + part.codomain.event_dim - part.domain.event_dim,
                      part.codomain.event_dim)
        codomain = self.parts[-1].codomain
        if dim > codomain.event_dim:
            codomain = constraints.independent(codomain, dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self):
        return all(part.bijective for part in self.parts)

    @property
    def sign(self):
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    @property
    def inv(self):
        inverse = self._inv() if self._inv is not None else None
        if inverse is None:
            inverse = ComposeTransform([part.inv for part in reversed(self.parts)])
            self._inv = weakref.ref(inverse)
            inverse._inv = weakref.ref(self)
        return inverse

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return _t.zeros_like(x)
        values = [x]
        for part in self.parts[:-1]:
            values.append(part(values[-1]))
        values.append(y)
        total, dim = None, self.domain.event_dim
        for part, a, b in zip(self.parts, values[:-1], values[1:]):
            term = _sum_rightmost(part.log_abs_det_jacobian(a, b),
                                  dim - part.domain.event_dim)
            total = term if total is None else total + term
            dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(repr(part) for part in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more rightmost dims counted in each
    event: the same map, its Jacobian term summed over those dims."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        if not isinstance(base_transform, Transform):
            raise KindError("IndependentTransform: base_transform must be a Transform, got "
                            f"{type(base_transform).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise InvalidParameterError(
                "IndependentTransform: reinterpreted_batch_ndims must be an int >= 0, got "
                f"{reinterpreted_batch_ndims!r}", "reinterpreted_batch_ndims",
                reinterpreted_batch_ndims)
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _check_dims(self, value):
        if value.dim() < self.domain.event_dim:
            raise ShapeMismatchError(
                f"IndependentTransform: too few dimensions on input: expected at least "
                f"{self.domain.event_dim}, got a tensor of shape {tuple(value.shape)}")

    def _call(self, x):
        self._check_dims(x)
        return self.base_transform(x)

    def _inverse(self, y):
        self._check_dims(y)
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return (f"{type(self).__name__}({self.base_transform!r}, "
                f"{self.reinterpreted_batch_ndims})")


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` of a tensor to ``out_shape`` (same number of
    entries); the Jacobian is a permutation, so its log determinant is 0."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = _t.Size(in_shape)
        self.out_shape = _t.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ShapeMismatchError(
                f"ReshapeTransform: in_shape {tuple(self.in_shape)} and out_shape "
                f"{tuple(self.out_shape)} have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(batch + tuple(self.out_shape))

    def _inverse(self, y):
        batch = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(batch + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    @staticmethod
    def _swap(shape, old, new):
        shape = tuple(shape)
        if len(shape) < len(old):
            raise ShapeMismatchError(f"ReshapeTransform: too few dimensions on input: shape "
                                     f"{shape} needs at least {len(old)}")
        cut = len(shape) - len(old)
        if shape[cut:] != tuple(old):
            raise ShapeMismatchError(f"ReshapeTransform: shape mismatch: expected "
                                     f"{tuple(old)} but got {shape[cut:]}")
        return _t.Size(shape[:cut] + tuple(new))

    def forward_shape(self, shape):
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap(shape, self.out_shape, self.in_shape)


class _WithoutParameters(Transform):
    """A transform without parameters: every instance of its class is the same map, so they
    compare equal (as PyTorch's do)."""

    def __eq__(self, other):
        return isinstance(other, type(self))

    __hash__ = object.__hash__


class ExpTransform(_WithoutParameters):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x  # d exp(x) / dx = exp(x)


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and _same(self.exponent, other.exponent)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()  # d x^k / dx = k x^k / x

    def forward_shape(self, shape):
        return _t.broadcast_shapes(shape, tuple(self.exponent.shape))

    def inverse_shape(self, shape):
        return _t.broadcast_shapes(shape, tuple(self.exponent.shape))


def _clip_unit(p):
    info = _t.finfo(p.dtype)
    return p.clamp(min=info.tiny, max=1.0 - info.eps)


class SigmoidTransform(_WithoutParameters):
    """``y = 1 / (1 + exp(-x))``, kept inside ``(0, 1)`` at the dtype's resolution."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _call(self, x):
        return _clip_unit(_t.sigmoid(x))

    def _inverse(self, y):
        y = _clip_unit(y)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        # sigmoid' = sigmoid(x) sigmoid(-x); log sigmoid(z) = -softplus(-z)
        softplus = _t.nn.functional.softplus
        return -softplus(-x) - softplus(x)


class SoftplusTransform(_WithoutParameters):
    """``y = log(1 + exp(x))``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return _t.nn.functional.softplus(x)

    def _inverse(self, y):
        return y + _t.log(-_t.expm1(-y))  # log(exp(y) - 1)

    def log_abs_det_jacobian(self, x, y):
        return -_t.nn.functional.softplus(-x)  # log sigmoid(x)


class TanhTransform(_WithoutParameters):
    """``y = tanh(x)``; its inverse is ``atanh``."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        # 1 - tanh(x)^2 = 4 / (e^x + e^-x)^2, so its log is 2 (log 2 - x - softplus(-2x))
        return 2.0 * (math.log(2.0) - x - _t.nn.functional.softplus(-2.0 * x))


class AbsTransform(_WithoutParameters):
    """``y = |x|`` (not injective: its inverse picks the nonnegative root)."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, pointwise; ``event_dim`` rightmost dims form one event (the
    Jacobian term is summed over them)."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        for name, value in (("loc", loc), ("scale", scale)):
            if not isinstance(value, (numbers.Number, _AnyTensor)):
                raise KindError(f"AffineTransform: {name} must be a number or a Tensor, got "
                                f"{type(value).__name__}")
        if not isinstance(event_dim, int) or event_dim < 0:
            raise InvalidParameterError(
                f"AffineTransform: event_dim must be an int >= 0, got {event_dim!r}",
                "event_dim", event_dim)
        super().__init__(cache_size=cache_size)
        self.loc = _as_param(loc)
        self.scale = _as_param(scale)
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self.domain

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other):
        return (isinstance(other, AffineTransform) and _same(self.loc, other.loc)
                and _same(self.scale, other.scale))  # event_dim is not compared (as PyTorch)

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        if isinstance(self.scale, numbers.Number):
            result = _t.full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self._event_dim:
            result = _sum_rightmost(result, self._event_dim)
            shape = shape[:len(shape) - self._event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return _t.broadcast_shapes(shape, tuple(getattr(self.loc, "shape", ())),
                                   tuple(getattr(self.scale, "shape", ())))

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


class SoftmaxTransform(_WithoutParameters):
    """``y = softmax(x)`` over the last dim (not injective: shifting ``x`` changes nothing);
    the inverse gives ``log y``."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        e = (x - x.max(-1, keepdim=True)[0]).exp()
        return e / e.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()


def _stick_shift(x):
    """``log(K - i)`` for ``i = 0 .. K-1`` along the last dim of ``x`` (``K`` its size): the
    shift that makes ``x = 0`` the centre of the simplex."""
    k = x.shape[-1]
    return _t.log(k - _t.arange(k, dtype=x.dtype, device=x.device))


class StickBreakingTransform(_WithoutParameters):
    """``R^K -> `` the ``K+1``-simplex by stick breaking: entry ``i`` takes the fraction
    ``sigmoid(x_i - log(K - i))`` of what the entries before it left."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        frac = _t.sigmoid(x - _stick_shift(x))
        left = (1 - frac).cumprod(-1)  # what remains of the stick after each break
        pad = _t.nn.functional.pad
        return pad(frac, (0, 1), value=1.0) * pad(left, (1, 0), value=1.0)

    def _inverse(self, y):
        head = y[..., :-1]
        left = (1 - head.cumsum(-1)).clamp(min=_t.finfo(y.dtype).tiny)
        return head.log() - left.log() + _stick_shift(head)

    def log_abs_det_jacobian(self, x, y):
        # triangular Jacobian: dy_i/dx_i = y_i (1 - frac_i), log(1 - frac_i) = logsigmoid(-z_i)
        z = x - _stick_shift(x)
        return (_t.nn.functional.logsigmoid(-z) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ShapeMismatchError(f"StickBreakingTransform: too few dimensions on input: "
                                     f"{tuple(shape)}")
        return _t.Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ShapeMismatchError(f"StickBreakingTransform: too few dimensions on input: "
                                     f"{tuple(shape)}")
        return _t.Size(tuple(shape[:-1]) + (shape[-1] - 1,))


class LowerCholeskyTransform(_WithoutParameters):
    """A square matrix to a lower triangular one with positive diagonal: the strict lower
    triangle is kept, the diagonal exponentiated."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(_WithoutParameters):
    """A square matrix to a positive definite one: ``L L^T`` with ``L`` the
    LowerCholeskyTransform of it."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(_t.linalg.cholesky(y))


class CorrCholeskyTransform(_WithoutParameters):
    """A vector of ``D (D - 1) / 2`` reals to the lower Cholesky factor of a ``D x D``
    correlation matrix: ``tanh`` makes partial correlations, placed row by row in the strict
    lower triangle; each row takes its fraction of the squared norm its earlier entries left,
    and the diagonal the rest, so every row has unit norm."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = _t.finfo(x.dtype).eps
        z = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        n = z.shape[-1]
        # the norm left in each row before column j: prod_{k<j} sqrt(1 - z_k^2)
        left = _t.nn.functional.pad((1 - z * z).sqrt().cumprod(-1)[..., :-1], (1, 0),
                                    value=1.0)
        eye = _t.eye(n, dtype=x.dtype, device=x.device)
        return (z + eye) * left

    def _inverse(self, y):
        # the squared norm of each row left before each column
        left = _t.nn.functional.pad((1 - (y * y).cumsum(-1))[..., :-1], (1, 0), value=1.0)
        z = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return 0.5 * ((1 + z).log() - (1 - z).log())

    def log_abs_det_jacobian(self, x, y):
        # dy_ij / dz_ij = sqrt(norm left in row i before column j), for j < i; the first
        # column's is 1
        left = 1 - (y * y).cumsum(-1)
        stick = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        # d tanh(x) / dx = 1 - tanh^2 = 4 / (e^x + e^-x)^2
        tanh = 2.0 * (math.log(2.0) - x - _t.nn.functional.softplus(-2.0 * x)).sum(-1)
        return stick + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ShapeMismatchError(f"CorrCholeskyTransform: too few dimensions on input: "
                                     f"{tuple(shape)}")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ShapeMismatchError(f"CorrCholeskyTransform: the last dim {n} is not the "
                                     "size of a strict lower triangle D (D - 1) / 2")
        return _t.Size(tuple(shape[:-1]) + (d, d))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ShapeMismatchError(f"CorrCholeskyTransform: too few dimensions on input: "
                                     f"{tuple(shape)}")
        if shape[-2] != shape[-1]:
            raise ShapeMismatchError(f"CorrCholeskyTransform: input is not square: "
                                     f"{tuple(shape)}")
        d = shape[-1]
        return _t.Size(tuple(shape[:-2]) + (d * (d - 1) // 2,))


class CatTransform(Transform):
    """``tseq[i]`` applied to the ``lengths[i]`` entries of dim ``dim`` that follow those of
    the transforms before it (``torch.cat``'s layout)."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        tseq = _check_transforms(tseq, "CatTransform")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.lengths = [1] * len(tseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise InvalidParameterError(
                f"CatTransform: lengths has {len(self.lengths)} entries for "
                f"{len(self.transforms)} transforms", "lengths", lengths)
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _check(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise _bad_dim(type(self).__name__, self.dim, value)
        if value.size(self.dim) != self.length:
            raise ShapeMismatchError(
                f"CatTransform: dim {self.dim} of the input has size {value.size(self.dim)}, "
                f"expected the sum of lengths {self.length}")

    def _pieces(self, value):
        start = 0
        for t, length in zip(self.transforms, self.lengths):
            yield t, value.narrow(self.dim, start, length)
            start += length

    def _call(self, x):
        self._check(x)
        return _t.cat([t(v) for t, v in self._pieces(x)], dim=self.dim)

    def _inverse(self, y):
        self._check(y)
        return _t.cat([t.inv(v) for t, v in self._pieces(y)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        self._check(x)
        self._check(y)
        terms = []
        for (t, xs), (_, ys) in zip(self._pieces(x), self._pieces(y)):
            terms.append(_sum_rightmost(t.log_abs_det_jacobian(xs, ys),
                                        self.event_dim - t.event_dim))
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim += self.event_dim
        # the cat dim lies in the batch part: the terms line up along it
        if dim < 0:
            return _t.cat(terms, dim=dim)
        return reduce(operator.add, terms)  # it lies inside the events: the terms add

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """``tseq[i]`` applied to index ``i`` of dim ``dim`` (``torch.stack``'s layout)."""

    def __init__(self, tseq, dim=0, cache_size=0):
        tseq = _check_transforms(tseq, "StackTransform")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise _bad_dim(type(self).__name__, self.dim, value)
        if value.size(self.dim) != len(self.transforms):
            raise ShapeMismatchError(
                f"StackTransform: dim {self.dim} of the input has size {value.size(self.dim)}, "
                f"expected one entry per transform ({len(self.transforms)})")
        return [value.select(self.dim, i) for i in range(value.size(self.dim))]

    def _call(self, x):
        return _t.stack([t(v) for t, v in zip(self.transforms, self._slices(x))], dim=self.dim)

    def _inverse(self, y):
        return _t.stack([t.inv(v) for t, v in zip(self.transforms, self._slices(y))],
                        dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = [t.log_abs_det_jacobian(a, b)
                 for t, a, b in zip(self.transforms, self._slices(x), self._slices(y))]
        return _t.stack(terms, dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: maps the distribution's support onto ``[0, 1]``; the
    inverse is its ``icdf`` and the Jacobian term its ``log_prob``."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)
