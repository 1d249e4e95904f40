"""``DataLoader``: batches of a dataset, in the main process or in worker processes.

PyTorch's signature and rules: ``batch_size`` (None turns batching off), ``shuffle``,
``sampler``, ``batch_sampler``, ``collate_fn``, ``drop_last``, ``generator``, ``num_workers``,
``worker_init_fn``, ``prefetch_factor`` (tasks in flight per worker, 2 by default),
``persistent_workers``, ``timeout``, ``multiprocessing_context``; ``pin_memory``,
``pin_memory_device`` and ``in_order`` are accepted and change nothing (batches always come in
the sampler's order, and there is no pinned memory on the CPU).

With ``num_workers > 0`` the batches are made in real worker processes: each gets whole
batches of indices (``prefetch_factor`` of them in flight per worker, handed out round-robin)
and the main process takes the results in the sampler's order, so they equal
``num_workers=0``'s. A worker that raises gives a ``WorkerError`` (with its traceback; also an
instance of the original exception's class where Python allows it), a worker that dies gives a
``WorkerError`` at once, and ``timeout`` seconds without a batch a ``WorkerTimeoutError``. The
workers end (by PID, after a short grace) when the iterator is exhausted or deleted, or with
the loader when ``persistent_workers=True``.

Shuffling draws from ember's generators: ``ember.manual_seed(s)`` (or ``generator=``) gives
the same order on every run, though not the order PyTorch would give.

>>> import ember.torch as torch
>>> from ember.torch.utils.data import DataLoader, TensorDataset
>>> ds = TensorDataset(torch.arange(10.0), torch.arange(10))
>>> [y.tolist() for x, y in DataLoader(ds, batch_size=4)]
[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
"""

import itertools
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import time
import warnings

from ....devices import get_default_device
from ....errors import InvalidParameterError
from ....ops.random import Generator
from . import worker as _worker
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, draw_seed

__all__ = ["DataLoader"]

# seconds a worker is given to leave on its own at shutdown before it is terminated by PID
_GRACE_S = 1.0


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: None for ever (the dataset decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn
        getitems = getattr(dataset, "__getitems__", None)
        self.getitems = getitems if callable(getitems) else None

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if self.getitems is not None:
            data = self.getitems(index)
        else:
            data = [self.dataset[i] for i in index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.it = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, \
            drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.it))
        data = []
        for _ in index:
            try:
                data.append(next(self.it))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


class _MakeFetcher:
    """Makes a dataset's fetcher; picklable, so a spawned worker can make its own."""

    def __init__(self, iterable, auto_collation, collate_fn, drop_last):
        self.iterable, self.auto_collation = iterable, auto_collation
        self.collate_fn, self.drop_last = collate_fn, drop_last

    def __call__(self, dataset):
        if self.iterable:
            return _IterableFetcher(dataset, self.auto_collation, self.collate_fn,
                                    self.drop_last)
        return _MapFetcher(dataset, self.auto_collation, self.collate_fn)


def _flag(name, value):
    if not isinstance(value, bool):
        raise InvalidParameterError(f"DataLoader: {name} is {value!r}; expected a bool", name,
                                    value)
    return value


def _count(name, value, low, what):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidParameterError(f"DataLoader: {name} is {value!r}; expected {what}", name,
                                    value)
    return value


def _context(value):
    if value is None:
        return multiprocessing.get_context()
    if isinstance(value, str):
        methods = multiprocessing.get_all_start_methods()
        if value not in methods:
            raise InvalidParameterError(
                f"DataLoader: multiprocessing_context is {value!r}; expected one of the start "
                f"methods {methods!r} or a context object", "multiprocessing_context", value)
        return multiprocessing.get_context(value)
    if not isinstance(value, multiprocessing.context.BaseContext):
        raise InvalidParameterError(
            f"DataLoader: multiprocessing_context is {type(value).__name__}; expected a "
            "start method's name or a multiprocessing context", "multiprocessing_context",
            value)
    return value


class DataLoader:
    """Batches of ``dataset`` (see the module docstring), PyTorch's ``DataLoader``.

    >>> from ember.torch.utils.data import DataLoader
    >>> [b.tolist() for b in DataLoader(range(5), batch_size=2, drop_last=True)]
    [[0, 1], [2, 3]]
    >>> DataLoader(range(5), shuffle=True, sampler=[0, 1])
    Traceback (most recent call last):
    ember.errors.InvalidParameterError: DataLoader: sampler option is mutually exclusive with shuffle
    """

    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        num_workers = _count("num_workers", num_workers, 0, "an int >= 0 (0 loads in the "
                             "main process)")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
                not timeout >= 0:
            raise InvalidParameterError(f"DataLoader: timeout is {timeout!r}; expected a "
                                        "number >= 0 (0: no timeout)", "timeout", timeout)
        if prefetch_factor is not None:
            if num_workers == 0:
                raise InvalidParameterError(
                    "DataLoader: prefetch_factor applies to worker processes only; expected "
                    "None with num_workers=0", "prefetch_factor", prefetch_factor)
            _count("prefetch_factor", prefetch_factor, 1, "an int >= 1")
        elif num_workers > 0:
            prefetch_factor = 2
        persistent_workers = bool(persistent_workers)
        if persistent_workers and num_workers == 0:
            raise InvalidParameterError("DataLoader: persistent_workers needs num_workers > 0",
                                        "persistent_workers", persistent_workers)
        if multiprocessing_context is not None and num_workers == 0:
            raise InvalidParameterError(
                "DataLoader: multiprocessing_context applies to worker processes only; "
                "expected None with num_workers=0", "multiprocessing_context",
                multiprocessing_context)
        if generator is not None and not isinstance(generator, Generator):
            raise InvalidParameterError(f"DataLoader: generator must be an "
                                        f"ember.torch.Generator or None, got "
                                        f"{type(generator).__name__}", "generator", generator)
        if worker_init_fn is not None and not callable(worker_init_fn):
            raise InvalidParameterError("DataLoader: worker_init_fn must be callable or None",
                                        "worker_init_fn", worker_init_fn)
        if collate_fn is not None and not callable(collate_fn):
            raise InvalidParameterError("DataLoader: collate_fn must be callable or None",
                                        "collate_fn", collate_fn)
        drop_last = _flag("drop_last", drop_last)
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if shuffle not in (False, None):
                raise InvalidParameterError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}", "shuffle", shuffle)
            if sampler is not None:
                raise InvalidParameterError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, "
                    f"but got sampler={sampler}", "sampler", sampler)
            if batch_sampler is not None:
                raise InvalidParameterError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}", "batch_sampler",
                    batch_sampler)
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise InvalidParameterError("DataLoader: sampler option is mutually exclusive "
                                        "with shuffle", "shuffle", shuffle)
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise InvalidParameterError(
                    "DataLoader: batch_sampler option is mutually exclusive with batch_size, "
                    "shuffle, sampler, and drop_last", "batch_sampler", batch_sampler)
            batch_size, drop_last = None, False
        elif batch_size is None:
            if drop_last:
                raise InvalidParameterError(
                    "DataLoader: batch_size=None option disables auto-batching and is "
                    "mutually exclusive with drop_last", "drop_last", drop_last)
        else:
            _count("batch_size", batch_size, 1, "a positive int or None")
        if sampler is None:
            if iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.in_order = in_order
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = None if num_workers == 0 else \
            _context(multiprocessing_context)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterable = iterable
        self._len_called = None
        self._iterator = None
        self._initialized = True
        self._check_worker_number()

    def __setattr__(self, attr, value):
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                          "dataset", "persistent_workers"):
            raise InvalidParameterError(f"DataLoader: {attr} attribute should not be set "
                                        "after DataLoader is initialized", attr, value)
        object.__setattr__(self, attr, value)

    def _check_worker_number(self):
        if self.num_workers == 0:
            return
        try:
            cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cpus = os.cpu_count()
        if cpus is not None and self.num_workers > cpus:
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in "
                          f"total. Our suggested max number of worker in current system is "
                          f"{cpus}, which is smaller than what this DataLoader is going to "
                          "create.", stacklevel=3)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _make_fetcher(self):
        return _MakeFetcher(self._iterable, self._auto_collation, self.collate_fn,
                            self.drop_last)

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if not self.persistent_workers:
            return _MultiProcessIter(self)
        if self._iterator is None or self._iterator._shut:
            self._iterator = _MultiProcessIter(self)
        else:
            self._iterator._reset(self)
        return self._iterator

    def __len__(self):
        if self._iterable:
            length = self._len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else \
                    -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseIter:
    def __init__(self, loader):
        self._loader = loader
        self._dataset = loader.dataset
        self._iterable = loader._iterable
        self._index_sampler = loader._index_sampler
        self._len_called = loader._len_called
        # drawn even without workers, so that a seed gives the same order for every
        # num_workers
        self._base_seed = draw_seed(loader.generator)
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def _reset(self, loader):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._len_called = loader._len_called

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if self._iterable and self._len_called is not None and \
                self._num_yielded > self._len_called:
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be "
                          f"{self._len_called} (when accessing len(dataloader)), but "
                          f"{self._num_yielded} samples have been fetched.", stacklevel=2)
        return data


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = loader._make_fetcher()(self._dataset)

    def _next_data(self):
        return self._fetcher.fetch(next(self._sampler_iter))


class _Worker:
    __slots__ = ("process", "tasks", "results", "active")

    def __init__(self, process, tasks, results):
        self.process, self.tasks, self.results, self.active = process, tasks, results, True


def _exit_text(code):
    if code is not None and code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited unexpectedly with exit code {code}"


class _MultiProcessIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._shut = True  # until the workers are up: nothing to end
        self._owner = os.getpid()  # a forked child inherits this object but not its workers
        self._timeout = loader.timeout
        self._prefetch = loader.prefetch_factor
        n = self._num_workers = loader.num_workers
        ctx = loader.multiprocessing_context
        make_fetcher = loader._make_fetcher()
        device = get_default_device().name
        self._workers = []
        if ctx.get_start_method() == "fork":
            _worker.warm_for_fork()
        try:
            for i in range(n):
                task_r, task_w = ctx.Pipe(duplex=False)
                result_r, result_w = ctx.Pipe(duplex=False)
                process = ctx.Process(
                    target=_worker.worker_loop,
                    args=(make_fetcher, self._dataset, task_r, result_w, self._base_seed,
                          loader.worker_init_fn, i, n, device, os.getpid()),
                    daemon=True)
                try:
                    process.start()
                except (pickle.PicklingError, AttributeError, TypeError) as exc:
                    task_w.close()
                    result_r.close()
                    raise InvalidParameterError(
                        f"DataLoader: the dataset, collate_fn or worker_init_fn cannot be sent "
                        f"to a worker started by {ctx.get_start_method()!r}: {exc}; define "
                        "them at module level (or use the 'fork' start method)",
                        "multiprocessing_context", ctx.get_start_method()) from exc
                finally:
                    # only the worker holds these ends now: its death closes its pipes
                    task_r.close()
                    result_w.close()
                self._workers.append(_Worker(process, task_w, result_r))
                self._shut = False
        except BaseException:
            self._shutdown()
            raise
        self._persistent = loader.persistent_workers
        self._start_epoch()

    def _start_epoch(self):
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_worker = {}
        self._cycle = itertools.cycle(range(self._num_workers))
        for w in self._workers:
            w.active = True
        for _ in range(self._prefetch * self._num_workers):
            self._put_task()

    def _reset(self, loader):
        super()._reset(loader)
        for i, w in enumerate(self._workers):
            self._send(i, ("resume",))
        for i in range(self._num_workers):  # drop what is left of the last epoch
            while self._receive(i)[0] != "resume":
                pass
        self._start_epoch()

    def _send(self, wid, message):
        try:
            self._workers[wid].tasks.send(message)
        except OSError:
            self._raise_dead(wid)

    def _put_task(self):
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            wid = next(self._cycle)
            if self._workers[wid].active:
                break
        else:
            return
        self._send(wid, ("task", self._send_idx, index))
        self._task_worker[self._send_idx] = wid
        self._send_idx += 1

    def _raise_dead(self, wid):
        process = self._workers[wid].process
        process.join(0.1)
        code, pid = process.exitcode, process.pid
        self._shutdown()
        raise _worker.WorkerError(f"DataLoader worker {wid} (pid {pid}) {_exit_text(code)}",
                                  worker_id=wid, pid=pid)

    def _receive(self, wid):
        """The next message of worker ``wid``: it answers its tasks in order."""
        w = self._workers[wid]
        timeout = self._timeout if self._timeout > 0 else None
        ready = multiprocessing.connection.wait([w.results, w.process.sentinel], timeout)
        if not ready:
            pid = w.process.pid
            self._shutdown()
            raise _worker.WorkerTimeoutError(
                f"DataLoader timed out after {self._timeout} seconds waiting for worker {wid} "
                f"(pid {pid})", worker_id=wid, pid=pid)
        if w.results not in ready and not w.results.poll(0):
            self._raise_dead(wid)
        try:
            data = w.results.recv_bytes()
        except (EOFError, OSError):
            self._raise_dead(wid)
        return pickle.loads(data)

    def _next_data(self):
        while True:
            while self._rcvd_idx < self._send_idx:
                wid = self._task_worker[self._rcvd_idx]
                if self._workers[wid].active:
                    break
                del self._task_worker[self._rcvd_idx]  # an exhausted worker drops its tasks
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown()
                raise StopIteration
            message = self._receive(wid)
            del self._task_worker[self._rcvd_idx]
            self._rcvd_idx += 1
            kind = message[0]
            if kind == "stop":
                self._workers[wid].active = False
                self._put_task()
                continue
            self._put_task()
            if kind == "error":
                raise _worker.raised(message, wid, self._workers[wid].process.pid)
            return message[2]

    def _shutdown(self):
        if getattr(self, "_shut", True) or self._owner != os.getpid():
            return
        self._shut = True
        for w in self._workers:
            try:
                w.tasks.send(None)
            except OSError:
                pass
        for w in self._workers:
            w.results.close()  # a worker still sending gets an error, not a wait
        deadline = time.monotonic() + _GRACE_S
        for w in self._workers:
            w.process.join(max(0.0, deadline - time.monotonic()))
        for w in self._workers:
            if w.process.is_alive():
                w.process.terminate()
        for w in self._workers:
            w.process.join(_GRACE_S)
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
            w.tasks.close()
            w.process.close()

    def __del__(self):
        self._shutdown()
