"""``biject_to`` and ``transform_to``: from a constraint to a transform whose codomain it is, for
optimizing constrained parameters in unconstrained space.

``biject_to(c)`` gives a bijection onto ``c`` (its ``inv`` recovers the unconstrained value);
``transform_to(c)`` a transform onto ``c`` that need not be injective (``softmax`` for the
simplex). Both are ``ConstraintRegistry`` objects: ``register`` adds a factory for a new
constraint type.

>>> import ember.torch as torch
>>> from ember.torch.distributions import constraints, biject_to
>>> t = biject_to(constraints.positive)
>>> round(t(torch.tensor(0.0)).item(), 4)
1.0
>>> biject_to(constraints.unit_interval)
SigmoidTransform()
"""

import numbers

from ...errors import KindError
from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A map from constraint types to factories ``factory(constraint) -> Transform``; calling
    the registry with a constraint looks up its type."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """Register ``factory`` for ``constraint`` (a Constraint subclass, or an instance whose
        type is used); without ``factory`` it is a decorator.

        >>> from ember.torch.distributions import constraints, transforms
        >>> from ember.torch.distributions.constraint_registry import ConstraintRegistry
        >>> registry = ConstraintRegistry()
        >>> @registry.register(constraints.positive)
        ... def _to_positive(constraint):
        ...     return transforms.ExpTransform()
        >>> registry(constraints.positive)
        ExpTransform()
        """
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not (isinstance(constraint, type) and issubclass(constraint, constraints.Constraint)):
            raise KindError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint!r}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        """The transform registered for ``type(constraint)``, made for this constraint."""
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(constraint_type):
    def decorator(factory):
        biject_to.register(constraint_type, factory)
        transform_to.register(constraint_type, factory)
        return factory
    return decorator


@_both(constraints._Real)
def _to_real(constraint):
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint):
    return transforms.IndependentTransform(biject_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint):
    return transforms.IndependentTransform(transform_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@_both(constraints._GreaterThan)
@_both(constraints._GreaterThanEq)
def _to_greater_than(constraint):
    # exp maps the reals onto (0, inf); the shift onto (lower_bound, inf)
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_both(constraints._LessThan)
def _to_less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


def _is_number(value, target):
    return isinstance(value, numbers.Number) and value == target


@_both(constraints._Interval)
@_both(constraints._HalfOpenInterval)
def _to_interval(constraint):
    low, high = constraint.lower_bound, constraint.upper_bound
    if _is_number(low, 0) and _is_number(high, 1):
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(low, high - low)])


@biject_to.register(constraints._Simplex)
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@transform_to.register(constraints._Simplex)
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@transform_to.register(constraints._LowerCholesky)
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints._PositiveDefinite)
@transform_to.register(constraints._PositiveSemidefinite)
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()


@_both(constraints._CorrCholesky)
def _to_corr_cholesky(constraint):
    return transforms.CorrCholeskyTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint):
    return transforms.CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint):
    return transforms.CatTransform([transform_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint):
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint):
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq],
                                     constraint.dim)
