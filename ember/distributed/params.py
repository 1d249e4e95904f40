"""ParamId: the name of a distributed parameter, equal on every rank (Burn's ``ParamId``)."""

import itertools

from ..errors import InvalidParameterError

__all__ = ["ParamId"]

_counter = itertools.count()


class ParamId:
    """The identifier of a parameter: a non-negative int, the same on every rank.

    ``ParamId()`` takes the next number of a per-process counter, so parameters created in
    the same order on every rank get the same ids; ``ParamId(7)`` names one explicitly.

    >>> from ember.distributed import ParamId
    >>> ParamId(7), ParamId(7) == ParamId(7), ParamId(7).val()
    (ParamId(7), True, 7)
    """

    __slots__ = ("_value",)

    def __init__(self, value=None):
        if value is None:
            value = next(_counter)
        elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidParameterError(
                f"ParamId: value must be an int >= 0, got {value!r}", "value", value)
        self._value = value

    @classmethod
    def of(cls, value, op):
        """``value`` as a ParamId (a ParamId, or an int >= 0); InvalidParameterError otherwise."""
        if isinstance(value, cls):
            return value
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidParameterError(
                f"{op}: param_id must be a ParamId or an int >= 0, got {value!r}", "param_id",
                value)
        return cls(value)

    def val(self):
        """The number (Burn's ``val``)."""
        return self._value

    def __int__(self):
        return self._value

    def __eq__(self, other):
        return isinstance(other, ParamId) and other._value == self._value

    def __hash__(self):
        return hash(self._value)

    def __repr__(self):
        return f"ParamId({self._value})"

    def __str__(self):
        return str(self._value)
