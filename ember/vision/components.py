"""Connected components of a 2-D bool image: Burn's ``ConnectedComponents`` vision trait.

``mask.connected_components(connectivity)`` labels each foreground (True) pixel with the number
of its component: 0 is the background, components are numbered 1, 2, ... in raster order of
their first pixel, as OpenCV's ``connectedComponents`` and ``scipy.ndimage.label`` number them.
``connected_components_with_stats`` also returns a :class:`ConnectedStats` of per-label
statistics (OpenCV's ``connectedComponentsWithStats``: bounding boxes, areas, centroids).

>>> import ember
>>> mask = ember.tensor([[True, True, False],
...                      [False, False, True]])
>>> mask.connected_components(4).tolist()
[[1, 1, 0], [0, 0, 2]]
>>> mask.connected_components(8).tolist()
[[1, 1, 0], [0, 0, 1]]
"""

import enum
import numbers

from .. import dtypes as _dt
from ..errors import InvalidParameterError, ShapeMismatchError
from .._tensor import check_kind, check_tensor, tensor_method, wrap

__all__ = ["Connectivity", "ConnectedStatsOptions", "ConnectedStats", "connected_components",
           "connected_components_with_stats"]


class Connectivity(enum.IntEnum):
    """Which neighbours join two foreground pixels: ``FOUR`` (edges) or ``EIGHT`` (edges and
    corners). The ops also take the ints 4 and 8 and the strings ``"four"`` and ``"eight"``.

    >>> import ember
    >>> ember.vision.Connectivity.EIGHT == 8
    True
    >>> ember.vision.Connectivity(4)
    <Connectivity.FOUR: 4>
    """

    FOUR = 4
    EIGHT = 8


_NAMES = {"four": 4, "eight": 8, "4": 4, "8": 8}


def _connectivity(value, op):
    """``value`` (a Connectivity, 4, 8, "four" or "eight") as the int 4 or 8."""
    if isinstance(value, str):
        c = _NAMES.get(value.lower())
        if c is not None:
            return c
    elif isinstance(value, numbers.Integral) and not isinstance(value, bool) and value in (4, 8):
        return int(value)
    raise InvalidParameterError(
        f"{op}: connectivity must be 4, 8, Connectivity.FOUR or Connectivity.EIGHT, got "
        f"{type(value).__name__} {value!r}", "connectivity", value)


class ConnectedStatsOptions:
    """Which statistics ``connected_components_with_stats`` computes (area always).

    - ``bounds_enabled``: left, top, right, bottom, width and height of each label's box;
    - ``centroids_enabled``: each label's centroid (x, y), as OpenCV;
    - ``max_label_enabled``: the largest label (the number of components);
    - ``compact_labels``: accepted for Burn's API; ember's labels are always compact (1..count,
      no gaps), so it changes nothing.

    The default, like ``ConnectedStatsOptions.all()``, enables everything; ``none()`` only the
    area.

    >>> import ember
    >>> opts = ember.vision.ConnectedStatsOptions.none()
    >>> opts.bounds_enabled, opts.centroids_enabled, opts.max_label_enabled
    (False, False, False)
    >>> ember.vision.ConnectedStatsOptions(centroids_enabled=False).bounds_enabled
    True
    """

    __slots__ = ("bounds_enabled", "max_label_enabled", "compact_labels", "centroids_enabled")

    def __init__(self, bounds_enabled=True, max_label_enabled=True, compact_labels=True,
                 centroids_enabled=True):
        for name, value in (("bounds_enabled", bounds_enabled),
                            ("max_label_enabled", max_label_enabled),
                            ("compact_labels", compact_labels),
                            ("centroids_enabled", centroids_enabled)):
            if not isinstance(value, bool):
                raise InvalidParameterError(
                    f"ConnectedStatsOptions: {name} must be a bool, got "
                    f"{type(value).__name__} {value!r}", name, value)
        self.bounds_enabled = bounds_enabled
        self.max_label_enabled = max_label_enabled
        self.compact_labels = compact_labels
        self.centroids_enabled = centroids_enabled

    @classmethod
    def all(cls):
        """Every statistic enabled (the default).

        >>> import ember
        >>> ember.vision.ConnectedStatsOptions.all().max_label_enabled
        True
        """
        return cls(True, True, True, True)

    @classmethod
    def none(cls):
        """Only the area (which is always computed).

        >>> import ember
        >>> ember.vision.ConnectedStatsOptions.none().bounds_enabled
        False
        """
        return cls(False, False, False, False)

    def __eq__(self, other):
        if not isinstance(other, ConnectedStatsOptions):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None

    def __repr__(self):
        args = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"ConnectedStatsOptions({args})"


class ConnectedStats:
    """Per-label statistics of ``connected_components_with_stats``: ember tensors indexed by label.

    Each tensor has ``count + 1`` rows, row 0 being the background (as OpenCV's
    ``connectedComponentsWithStats``): ``area`` (int64, always); ``left``, ``top``, ``right``,
    ``bottom`` (inclusive pixel coordinates), ``width``, ``height`` (int64, with bounds);
    ``centroids`` (float64, shape (count + 1, 2), columns x and y, with centroids); ``max_label``
    (a 0-d int64 tensor, the number of components, with max_label). A disabled statistic is
    None. A label with no pixel (the background of an all-True image) has area 0,
    left = top = 0, right = bottom = -1, width = height = 0 and a NaN centroid.
    ``num_labels`` is the number of rows (OpenCV's return value).

    >>> import ember
    >>> mask = ember.tensor([[True, False], [False, True]])
    >>> labels, stats = mask.connected_components_with_stats(4)
    >>> stats.area.tolist(), stats.num_labels
    ([2, 1, 1], 3)
    """

    __slots__ = ("area", "left", "top", "right", "bottom", "width", "height", "centroids",
                 "max_label", "num_labels")

    def __init__(self, area, left=None, top=None, right=None, bottom=None, width=None,
                 height=None, centroids=None, max_label=None):
        self.area = area
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
        self.width = width
        self.height = height
        self.centroids = centroids
        self.max_label = max_label
        self.num_labels = area.shape[0]

    def __repr__(self):
        parts = []
        for k in self.__slots__[:-1]:
            v = getattr(self, k)
            parts.append(f"{k}={None if v is None else v.tolist()!r}")
        return "ConnectedStats(" + ", ".join(parts) + ")"


def _mask_input(mask, op):
    check_tensor(mask, op, "self")
    check_kind(mask, "bool", op)
    shape = tuple(mask.shape)
    if len(shape) != 2:
        raise ShapeMismatchError(
            f"{op}: self has shape {shape} ({len(shape)} dims); expected a 2-D bool image "
            "(height, width)", expected="2 dims", actual=shape)
    return mask


@tensor_method
def connected_components(self, connectivity=8):
    """The connected-component labels of a 2-D bool image (int64, the image's shape).

    0 is the background; components are numbered 1.. in raster order of their first pixel,
    as OpenCV and ``scipy.ndimage.label``. ``connectivity`` is 4 or 8 (or
    ``Connectivity.FOUR``/``EIGHT``); the default is 8, OpenCV's default. Only bool tensors are
    accepted (``KindError`` otherwise: compare with 0 first, ``(image != 0)``).

    >>> import ember
    >>> mask = ember.tensor([[True, False, True],
    ...                      [False, True, False]])
    >>> mask.connected_components(ember.vision.Connectivity.FOUR).tolist()
    [[1, 0, 2], [0, 3, 0]]
    >>> ember.vision.connected_components(mask, 8).tolist()
    [[1, 0, 1], [0, 1, 0]]
    """
    op = "connected_components"
    _mask_input(self, op)
    conn = _connectivity(connectivity, op)
    labels, _ = self._device.backend.cc_label(self._data, conn)
    return wrap(labels, _dt.int64)


@tensor_method
def connected_components_with_stats(self, connectivity=8, options=None):
    """The labels of ``connected_components`` and a :class:`ConnectedStats` of each label.

    ``options`` is a :class:`ConnectedStatsOptions` (default: all statistics). The statistics
    have one row per label, the background (label 0) included, as OpenCV's
    ``connectedComponentsWithStats``.

    >>> import ember
    >>> mask = ember.tensor([[False, True, True],
    ...                      [False, False, True]])
    >>> labels, stats = mask.connected_components_with_stats(4)
    >>> labels.tolist()
    [[0, 1, 1], [0, 0, 1]]
    >>> stats.left.tolist(), stats.top.tolist(), stats.width.tolist(), stats.height.tolist()
    ([0, 1], [0, 0], [2, 2], [2, 2])
    >>> stats.area.tolist(), stats.max_label.item()
    ([3, 3], 1)
    >>> stats.centroids.tolist()
    [[0.3333333333333333, 0.6666666666666666], [1.6666666666666667, 0.3333333333333333]]
    """
    op = "connected_components_with_stats"
    _mask_input(self, op)
    conn = _connectivity(connectivity, op)
    if options is None:
        options = ConnectedStatsOptions()
    elif not isinstance(options, ConnectedStatsOptions):
        raise InvalidParameterError(
            f"{op}: options must be a ConnectedStatsOptions or None, got "
            f"{type(options).__name__} {options!r}", "options", options)
    bounds = options.bounds_enabled
    cents = options.centroids_enabled
    want_max = options.max_label_enabled
    be = self._device.backend
    labels, count = be.cc_label(self._data, conn)
    st = be.cc_stats(labels, count, bounds, cents)
    i64 = _dt.int64
    fields = {"area": wrap(st["area"], i64)}
    if bounds:
        for k in ("left", "top", "right", "bottom", "width", "height"):
            fields[k] = wrap(st[k], i64)
    if cents:
        fields["centroids"] = wrap(st["centroids"], _dt.float64)
    if want_max:
        fields["max_label"] = wrap(be.scalar_array(count, i64), i64)
    return wrap(labels, i64), ConnectedStats(**fields)
