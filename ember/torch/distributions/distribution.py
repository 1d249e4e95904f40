"""``Distribution``: the base of every distribution (shapes, validation, sampling defaults).

A distribution's ``batch_shape`` indexes independent distributions of the same family and its
``event_shape`` is the shape of one draw; ``sample(sample_shape)`` has shape
``sample_shape + batch_shape + event_shape``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Normal
>>> d = Normal(torch.zeros(3), 1.0)
>>> d.batch_shape, d.event_shape, d.sample((2,)).shape
(torch.Size([3]), torch.Size([]), torch.Size([2, 3]))
"""

from ... import torch as _t
from ..._tensor import Tensor as _AnyTensor
from ...errors import InvalidParameterError, KindError
from .._tensor import Size, as_torch
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


def _size(shape, param):
    try:
        return Size(int(s) for s in shape)
    except TypeError:
        raise KindError(f"{param} must be a sequence of ints (a torch.Size), got {shape!r}") from None


class Distribution:
    """The base class: subclasses set ``arg_constraints``, ``support`` and the methods they have.

    ``validate_args`` (default: ``Distribution.set_default_validate_args``, on unless Python runs
    with ``-O``) checks the parameters against ``arg_constraints`` at construction and the values
    given to ``log_prob``/``cdf`` against ``support``, raising ``InvalidParameterError`` (a
    ``ValueError``) that names the parameter.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions made from now on.

        >>> from ember.torch.distributions import Distribution
        >>> Distribution.set_default_validate_args(True)
        """
        if value not in (True, False):
            raise InvalidParameterError(
                f"set_default_validate_args: value must be True or False, got {value!r}",
                "value", value)
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _size(batch_shape, "batch_shape")
        self._event_shape = _size(event_shape, "event_shape")
        if validate_args is not None:
            self._validate_args = bool(validate_args)
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param, None),
                                                         lazy_property):
                continue  # a parameter given in another form (probs for logits): not computed
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise InvalidParameterError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                    f"{constraint!r}, but found invalid values:\n{value}", param, value)

    # -- shapes ----------------------------------------------------------------------------
    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample (without batching)."""
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        return Size(tuple(_size(sample_shape, "sample_shape")) + self._batch_shape
                    + self._event_shape)

    def expand(self, batch_shape, _instance=None):
        """A distribution of the same family with its parameters expanded to ``batch_shape``
        (views, no copies); ``batch_shape`` must broadcast from the current one."""
        raise NotImplementedError(f"{type(self).__name__}.expand")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {type(self).__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return type(self).__new__(type(self)) if _instance is None else _instance

    def _expand_parameters(self, cls, names, batch_shape, _instance=None):
        """The common ``expand``: a new instance with each parameter of ``names`` held in
        ``__dict__`` expanded to ``batch_shape`` plus its own event dims."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = _size(batch_shape, "batch_shape")
        for name in names:
            if name in self.__dict__:
                value = self.__dict__[name]
                tail = tuple(value.shape)[len(self._batch_shape):]
                setattr(new, name, value.expand(batch_shape + tail))
        for key, value in self.__dict__.items():
            if key not in names and not key.startswith("_") and key not in new.__dict__:
                setattr(new, key, value)
        if "_param" in self.__dict__:  # the one of probs / logits given (binary_parameters.py)
            new._param = new.__dict__.get("probs", new.__dict__.get("logits"))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    # -- what subclasses define --------------------------------------------------------------
    @property
    def arg_constraints(self):
        """``{parameter name: Constraint}`` that each parameter must satisfy."""
        raise NotImplementedError(f"{type(self).__name__}.arg_constraints")

    @property
    def support(self):
        """The ``Constraint`` of the values this distribution takes."""
        raise NotImplementedError(f"{type(self).__name__}.support")

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError(f"{type(self).__name__}.mean")

    @property
    def mode(self):
        """The mode of the distribution."""
        raise NotImplementedError(f"{type(self).__class__}.mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError(f"{type(self).__name__}.variance")

    @property
    def stddev(self):
        """The standard deviation: the square root of the variance."""
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """Samples of shape ``sample_shape + batch_shape + event_shape``, without gradients."""
        with _t.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """Reparameterized samples: gradients flow back to the parameters."""
        raise NotImplementedError(f"{type(self).__name__}.rsample")

    def sample_n(self, n):
        """``sample((n,))`` (deprecated in PyTorch; kept for old programs)."""
        return self.sample(Size((n,)))

    def log_prob(self, value):
        """The log of the probability density (or mass) at ``value``."""
        raise NotImplementedError(f"{type(self).__name__}.log_prob")

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError(f"{type(self).__name__}.cdf")

    def icdf(self, value):
        """The inverse of the cumulative distribution function at ``value``."""
        raise NotImplementedError(f"{type(self).__name__}.icdf")

    def enumerate_support(self, expand=True):
        """Every value of a discrete support along a new leading dim, expanded over the batch
        (``expand=True``) or of size 1 in the batch dims."""
        raise NotImplementedError(f"{type(self).__name__}.enumerate_support")

    def entropy(self):
        """The entropy, one value per batch entry."""
        raise NotImplementedError(f"{type(self).__name__}.entropy")

    def perplexity(self):
        """``exp(entropy)``."""
        return _t.exp(self.entropy())

    # -- validation of values ---------------------------------------------------------------
    def _validate_sample(self, value):
        if not isinstance(value, _AnyTensor):
            raise InvalidParameterError("The value argument to log_prob must be a Tensor, got "
                                        f"{type(value).__name__}", "value", value)
        event_dim_start = len(value.shape) - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise InvalidParameterError(
                f"The right-most size of value must match event_shape: {tuple(value.shape)} vs "
                f"{tuple(self._event_shape)}.", "value", tuple(value.shape))
        actual = tuple(value.shape[:event_dim_start])
        expected = tuple(self._batch_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise InvalidParameterError(
                    f"Value is not broadcastable with batch_shape+event_shape: "
                    f"{tuple(value.shape)} vs {tuple(self._extended_shape())}.",
                    "value", tuple(value.shape))
        try:
            support = self.support
        except NotImplementedError:
            return
        if not bool(support.check(as_torch(value)).all()):
            raise InvalidParameterError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}", "value", value)

    def __repr__(self):
        try:
            names = [k for k in self.arg_constraints if k in self.__dict__]
        except NotImplementedError:
            names = []
        shown = []
        for name in names:
            value = self.__dict__[name]
            shown.append(f"{name}: {value.item() if value.numel() == 1 else value.size()}")
        return f"{type(self).__name__}({', '.join(shown)})"
