"""PyTorch's device-agnostic ``torch.Stream`` and ``torch.Event``.

ember runs each device's work on one in-order queue, so every ``Stream`` of a device is that
queue (``stream_id`` 0). On the CPU, as PyTorch's:

- a stream's ``query()`` is True and ``synchronize()``, ``wait_stream`` and ``wait_event``
  return at once; ``with stream:`` runs its block as usual;
- an event's ``query()`` is True and ``synchronize()`` and ``wait()`` return at once, but
  ``record()`` (and ``stream.record_event()``) raise, since the CPU backend has no events;
  ``elapsed_time`` needs two events made with ``enable_timing=True`` and recorded
  (``InvalidParameterError``, a ``ValueError``, otherwise).

On an accelerator (the torch backend's CUDA or MPS), ``synchronize`` waits for the device,
``record()`` waits and notes the time, and ``elapsed_time`` gives the milliseconds between two
recorded events.

>>> import ember.torch as torch
>>> s = torch.Stream("cpu")
>>> s
torch.Stream device_type=cpu, device_index=-1, stream_id=0
>>> s.query(), s.synchronize()
(True, None)
>>> torch.Event("cpu").query()
True
"""

import time

from ..devices import Device
from ..errors import DeviceError, InvalidParameterError, KindError
from ._tensor import functions

__all__ = ["Stream", "Event"]

# PyTorch's DeviceType numbers, which ``device_type`` reports
_TYPE_CODES = {"cpu": 0, "cuda": 1, "mps": 13}


def _device(device, op):
    if device is None:
        from . import accelerator
        acc = accelerator.current_accelerator()
        return acc if acc is not None else Device("cpu")
    if isinstance(device, int) and not isinstance(device, bool):
        from . import accelerator
        acc = accelerator.current_accelerator()
        if acc is None:
            raise DeviceError(f"{op}: device index {device} names an accelerator, and there is "
                              "none here", ("accelerator",))
        return Device(f"{acc.type}:{device}")
    try:
        d = device if isinstance(device, Device) else Device(device)
    except Exception as exc:
        raise InvalidParameterError(f"{op}: device must be a device or a device name, got "
                                    f"{device!r}", "device", device) from exc
    if d.type not in _TYPE_CODES:
        raise InvalidParameterError(f"{op}: device type {d.type!r} has no streams; expected "
                                    "'cpu', 'cuda' or 'mps'", "device", device)
    if d.type != "cpu":
        from . import accelerator
        acc = accelerator.current_accelerator()
        if acc is None or acc.type != d.type:
            raise DeviceError(f"{op}: there is no {d.type!r} device here", (d.type,))
    return d


def _index(device):
    return -1 if device.type == "cpu" else (device.index or 0)


def _synchronize(device):
    if device.type != "cpu":
        from . import accelerator
        accelerator.synchronize()


def _bool(value, name, op):
    if not isinstance(value, bool):
        raise KindError(f"{op}: {name} must be a bool, got {type(value).__name__}")
    return value


class Stream:
    """An in-order queue of a device's work (``torch.Stream(device=None, *, priority=0)``);
    the accelerator's when ``device`` is None and there is one, else the CPU's.

    >>> import ember.torch as torch
    >>> with torch.Stream("cpu") as s:
    ...     (torch.ones(2) * 2).tolist()
    [2.0, 2.0]
    """

    def __init__(self, device=None, *, priority=0):
        if not isinstance(priority, int) or isinstance(priority, bool):
            raise KindError(f"Stream: priority must be an int, got {type(priority).__name__}")
        self.device = _device(device, "Stream")
        self.priority = priority
        self.stream_id = 0

    @property
    def device_type(self):
        """PyTorch's number of the device's type (0 for the CPU, 1 for CUDA)."""
        return _TYPE_CODES[self.device.type]

    @property
    def device_index(self):
        """The device's index: -1 for the CPU."""
        return _index(self.device)

    def query(self):
        """Whether all work queued here is done: True once it has run (the CPU's always)."""
        _synchronize(self.device)
        return True

    def synchronize(self):
        """Wait for all work queued here."""
        _synchronize(self.device)

    def wait_event(self, event):
        """Make later work here wait for ``event``: the queue is in order, so nothing to do."""
        if not isinstance(event, Event):
            raise KindError(f"Stream.wait_event: event must be an Event, got "
                            f"{type(event).__name__}")

    def wait_stream(self, stream):
        """Make later work here wait for ``stream``'s work: one queue per device, in order."""
        if not isinstance(stream, Stream):
            raise KindError(f"Stream.wait_stream: stream must be a Stream, got "
                            f"{type(stream).__name__}")
        if stream.device != self.device:
            stream.synchronize()

    def record_event(self, event=None):
        """Record ``event`` (a new one when None) here and return it; raises on the CPU."""
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def is_capturing(self):
        """Whether a graph capture is under way here: False (ember captures no graphs)."""
        return False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return (isinstance(other, Stream) and other.device == self.device
                and other.stream_id == self.stream_id)

    def __hash__(self):
        return hash((str(self.device), self.stream_id))

    def __repr__(self):
        return (f"torch.Stream device_type={self.device.type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """A marker in a device's queue (``torch.Event(device=None, *, enable_timing=False,
    blocking=False, interprocess=False)``).

    >>> import ember.torch as torch
    >>> e = torch.Event("cpu", enable_timing=True)
    >>> e
    torch.Event device_type=cpu, device_index=-1, event_flag=1, event_id=0
    >>> e.synchronize() is None
    True
    """

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = _bool(enable_timing, "enable_timing", "Event")
        self.blocking = _bool(blocking, "blocking", "Event")
        self.interprocess = _bool(interprocess, "interprocess", "Event")
        self.device = _device(device, "Event")
        self.event_id = 0
        self._time = None

    @property
    def device_type(self):
        return _TYPE_CODES[self.device.type]

    @property
    def device_index(self):
        return _index(self.device)

    def record(self, stream=None):
        """Mark this point of ``stream``'s queue (the device's): the CPU backend has no events,
        so on the CPU this raises ``DeviceError`` (a ``RuntimeError``), as PyTorch's."""
        if stream is not None and not isinstance(stream, Stream):
            raise KindError(f"Event.record: stream must be a Stream, got {type(stream).__name__}")
        device = stream.device if stream is not None else self.device
        if device.type == "cpu":
            raise DeviceError("Event.record: cpu backend doesn't support events.", ("cpu",))
        _synchronize(device)
        self._time = time.perf_counter()

    def query(self):
        """Whether the work before this event is done: True once it has run."""
        _synchronize(self.device)
        return True

    def synchronize(self):
        """Wait for the work before this event."""
        _synchronize(self.device)

    def wait(self, stream=None):
        """Make ``stream``'s later work wait for this event: the queue is in order, so nothing
        to do."""
        if stream is not None and not isinstance(stream, Stream):
            raise KindError(f"Event.wait: stream must be a Stream, got {type(stream).__name__}")

    def elapsed_time(self, end_event):
        """Milliseconds from this event to ``end_event``; both made with ``enable_timing=True``
        and recorded."""
        if not isinstance(end_event, Event):
            raise KindError(f"Event.elapsed_time: end_event must be an Event, got "
                            f"{type(end_event).__name__}")
        if not (self.enable_timing and end_event.enable_timing):
            raise InvalidParameterError("Event.elapsed_time: Both events must be created with "
                                        "argument 'enable_timing=True'.", "end_event", end_event)
        if self._time is None or end_event._time is None:
            raise InvalidParameterError("Event.elapsed_time: Both events must be recorded before "
                                        "calculating elapsed time.", "end_event", end_event)
        return (end_event._time - self._time) * 1000.0

    def __repr__(self):
        return (f"torch.Event device_type={self.device.type}, device_index={self.device_index}, "
                f"event_flag={int(self.enable_timing)}, event_id={self.event_id}")


Stream.__module__ = Event.__module__ = "ember.torch"
functions["Stream"] = Stream
functions["Event"] = Event
