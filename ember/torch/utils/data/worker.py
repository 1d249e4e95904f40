"""The worker processes of a DataLoader with ``num_workers > 0``: ``get_worker_info``, the
worker loop, the transport of batches and the errors a worker gives the main process.

Each worker gets its tasks ``(index, batch of indices)`` on a pipe of its own and sends each
result back on another, in the order it got them; a batch travels pickled, its ember tensors
as their host buffers (pickle protocol 5), and is rebuilt in the main process on the default
device. A worker that raises sends the exception's type and traceback text, which the main
process raises as a ``WorkerError`` (also an instance of the original type where Python
allows it); a worker that dies is seen through its process sentinel, never waited on.

>>> from ember.torch.utils.data import get_worker_info
>>> get_worker_info() is None  # the main process
True
"""

import io
import os
import pickle
import queue
import random
import signal
import threading
import traceback

import numpy as np

from ... import _tensor as _torch_tensor
from ....devices import CPU, as_device, get_default_device, set_default_device
from ...._tensor import Tensor as _EmberTensor
from ....errors import EmberError
from ....ops.data import _host, _rebuild_tensor
from ....ops.random import _loaded_devices, manual_seed
from ....threads import get_num_threads, set_num_threads

__all__ = ["WorkerInfo", "get_worker_info", "WorkerError", "WorkerTimeoutError"]

# how often an idle worker checks that the main process is alive (seconds)
_WATCHDOG_S = 1.0


class WorkerError(EmberError, RuntimeError):
    """A DataLoader worker raised, died or did not answer in time; carries ``worker_id``,
    ``pid`` and, when it raised, ``original_type`` (the exception's class, or its name when
    the class could not be sent) and ``worker_traceback`` (the worker's traceback text)."""

    def __init__(self, message, worker_id=None, pid=None, original_type=None,
                 worker_traceback=None):
        Exception.__init__(self, message)
        self.worker_id, self.pid = worker_id, pid
        self.original_type, self.worker_traceback = original_type, worker_traceback

    def __str__(self):
        return self.args[0] if self.args else ""


class WorkerTimeoutError(WorkerError, TimeoutError):
    """No batch came from a worker within the DataLoader's ``timeout``."""


_raised_types = {}


def _raised_type(cls):
    """The class to raise for a worker's exception of class ``cls``: a WorkerError that is
    also a ``cls`` (so ``except KeyError`` still catches a worker's KeyError), or WorkerError
    itself where Python cannot combine the two."""
    if not isinstance(cls, type) or not issubclass(cls, Exception) or \
            issubclass(cls, WorkerError):
        return WorkerError
    found = _raised_types.get(cls)
    if found is None:
        try:
            found = type(cls.__name__, (WorkerError, cls),
                         {"__module__": cls.__module__, "__qualname__": cls.__qualname__,
                          "__init__": WorkerError.__init__, "__str__": WorkerError.__str__})
        except TypeError:  # incompatible layouts, a final class
            found = WorkerError
        _raised_types[cls] = found
    return found


class WorkerInfo:
    """What ``get_worker_info()`` answers in a worker: ``id``, ``num_workers``, ``seed`` (the
    worker's: base seed + id) and ``dataset`` (the worker's copy). Read-only."""

    __slots__ = ("id", "num_workers", "seed", "dataset", "_frozen")

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, key, value):
        from ....errors import InvalidParameterError
        raise InvalidParameterError(f"WorkerInfo: {key} cannot be set; it is read-only", key,
                                    value)

    def __repr__(self):
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
                f"dataset={self.dataset!r})")


_worker_info = None


def get_worker_info():
    """In a DataLoader worker process, its ``WorkerInfo`` (``id``, ``num_workers``, ``seed``,
    ``dataset``); None in the main process. An ``IterableDataset`` uses it to take its share.

    >>> from ember.torch.utils.data import get_worker_info
    >>> print(get_worker_info())
    None
    """
    return _worker_info


# -- transport ---------------------------------------------------------------------------------

def _rebuild(values, dtype_name, requires_grad, ad, device, torch_class):
    """A tensor sent by a worker: on ``device``, or the default device when it was made on the
    worker's default one (None)."""
    t = _rebuild_tensor(values, dtype_name, requires_grad, ad,
                        get_default_device().name if device is None else device)
    return _torch_tensor.as_torch(t) if torch_class else t


class _Pickler(pickle.Pickler):
    """Pickles ember tensors as (host buffer, dtype, autodiff state, device, API)."""

    default_device = None

    def reducer_override(self, obj):
        if not isinstance(obj, _EmberTensor):
            return NotImplemented
        device = obj._device
        return (_rebuild, (_host(obj), obj._dtype.name, obj._node is not None, obj._ad,
                           None if device is self.default_device else device.name,
                           isinstance(obj, _torch_tensor.Tensor)))


def dumps(obj, default_device):
    buf = io.BytesIO()
    pickler = _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.default_device = default_device
    pickler.dump(obj)
    return buf.getbuffer()


def raised(message, worker_id, pid):
    """The exception a main process raises for the error message ``message``
    (``("error", idx, type name, pickled type or None, traceback text)``) of a worker."""
    _, _, type_name, pickled, text = message
    original = None
    if pickled is not None:
        try:
            original = pickle.loads(pickled)
        except Exception:  # noqa: BLE001 - a class this process cannot import: its name only
            original = None
    cls = _raised_type(original)
    where = f"Caught {type_name} in DataLoader worker process {worker_id}."
    return cls(f"{where}\nOriginal {text}", worker_id=worker_id, pid=pid,
               original_type=original or type_name, worker_traceback=text)


def _error_message(idx, exc):
    """The message that tells the main process that task ``idx`` raised ``exc``."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        pickled = pickle.dumps(type(exc))
    except Exception:  # noqa: BLE001 - a class pickle cannot name: its name only
        pickled = None
    return ("error", idx, type(exc).__name__, pickled, text)


# -- the worker ----------------------------------------------------------------------------------

class _Sender:
    """A thread that writes the worker's results to the main process, so the worker computes
    its next batch while the last one is on its way."""

    def __init__(self, conn):
        self.conn = conn
        self.queue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            data = self.queue.get()
            if data is None:
                return
            try:
                self.conn.send_bytes(data)
            except OSError:  # the main process has gone or stopped listening
                return

    def put(self, data):
        self.queue.put(data)


def _seed_worker(base_seed, worker_id):
    seed = base_seed + worker_id
    random.seed(seed)
    try:
        manual_seed(seed)  # the host's generator first, then each loaded device's
    except Exception:  # noqa: BLE001 - a forked worker cannot reach its parent's CUDA devices
        pass
    np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
    return seed


def warm_for_fork():
    """Load once in the main process what each forked worker would otherwise load on its own
    (tens of milliseconds per worker and epoch): the torch backend's devices, which
    ``manual_seed`` restarts once the program has imported torch, and the BLAS thread pool's
    handle."""
    _loaded_devices()
    get_num_threads()


def worker_loop(make_fetcher, dataset, index_conn, result_conn, base_seed, init_fn, worker_id,
                num_workers, device_name, parent_pid):
    """The body of worker ``worker_id``: answers each task of ``index_conn`` on
    ``result_conn`` until it gets None, its pipe closes or the main process dies."""
    global _worker_info
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C
    device = as_device(device_name, "DataLoader")
    if device.type != "cpu" or not device.backend.survives_fork:
        device = CPU  # an accelerator is the main process's, JAX's pools die in a fork: the host
    set_default_device(device)
    set_num_threads(1)
    seed = _seed_worker(base_seed, worker_id)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    sender = _Sender(result_conn)
    init_error = None
    fetcher = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = make_fetcher(dataset)
    except Exception as exc:  # noqa: BLE001 - sent to the main process with the first task
        init_error = exc
    iteration_end = False
    while True:
        try:
            if not index_conn.poll(_WATCHDOG_S):
                if os.getppid() != parent_pid:
                    break
                continue
            task = index_conn.recv()
        except (EOFError, OSError):
            break
        if task is None:
            break
        if task[0] == "resume":
            iteration_end = False
            try:
                fetcher = make_fetcher(dataset)
            except Exception as exc:  # noqa: BLE001
                init_error = exc
            sender.put(dumps(("resume", None), device))
            continue
        _, idx, index = task
        if iteration_end:
            continue
        if init_error is not None:
            message, init_error = _error_message(idx, init_error), None
        else:
            try:
                message = ("data", idx, fetcher.fetch(index))
            except StopIteration:
                iteration_end = True
                message = ("stop", idx)
            except Exception as exc:  # noqa: BLE001 - the main process raises it
                message = _error_message(idx, exc)
        try:
            payload = dumps(message, device)
        except Exception as exc:  # noqa: BLE001 - a batch that cannot be pickled
            payload = dumps(_error_message(idx, exc), device)
        sender.put(payload)
