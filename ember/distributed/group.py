"""The process group: one per process, on torch.distributed (gloo), set up from torchrun's
environment or from explicit arguments."""

import datetime
import numbers
import os

from ..errors import DistributedError, InvalidParameterError

__all__ = ["init_process_group", "destroy_process_group", "is_initialized", "get_rank",
           "get_world_size", "barrier", "is_available"]

BACKENDS = ("gloo",)
DEFAULT_TIMEOUT = 300.0
_INIT_METHODS = ("env://", "tcp://", "file://")


class _Group:
    __slots__ = ("rank", "world_size", "backend", "timeout", "dist", "torch")

    def __init__(self, rank, world_size, backend, timeout, torch, dist):
        self.rank, self.world_size, self.backend, self.timeout = rank, world_size, backend, timeout
        self.torch, self.dist = torch, dist


_state = {"group": None}
# (joined, left) pairs called after a group is initialized and before it is destroyed; the
# gradient reducer registers itself here (ember/distributed/reducer.py).
_hooks = []


def on_group_change(joined, left):
    """Call ``joined()`` after each process group is initialized and ``left()`` before it is
    destroyed."""
    _hooks.append((joined, left))


def _import_torch():
    try:
        import torch
        import torch.distributed as dist
    except ImportError as exc:
        raise DistributedError(f"ember.distributed needs PyTorch's torch.distributed ({exc}); "
                               "install it with `pip install 'ember[distributed]'`") from None
    if not dist.is_available():
        raise DistributedError("ember.distributed: this PyTorch build has no torch.distributed")
    return torch, dist


def is_available():
    """Whether torch.distributed can be imported (PyTorch is an optional dependency)."""
    try:
        _import_torch()
    except DistributedError:
        return False
    return True


def group(op):
    """The current process group; DistributedError when none is initialized."""
    g = _state["group"]
    if g is None:
        raise DistributedError(f"{op}: no process group is initialized; call "
                               "ember.distributed.init_process_group() first")
    return g


def failure(op, exc):
    """The DistributedError of a failed torch.distributed call ``op``."""
    text = " ".join(str(exc).split())
    if len(text) > 300:
        text = text[:300] + " ..."
    return DistributedError(f"{op}: the collective failed (a rank stopped, or the timeout "
                            f"passed): {type(exc).__name__}: {text}")


def _env_int(name, op):
    text = os.environ.get(name)
    if text is None:
        raise InvalidParameterError(
            f"{op}: {name.lower()} is not given and the environment variable {name} is not set; "
            "launch with torchrun (or `python -m ember train --nproc N`) or pass it",
            name.lower(), None)
    try:
        return int(text)
    except ValueError:
        raise InvalidParameterError(f"{op}: environment variable {name}={text!r} is not an int",
                                    name.lower(), text) from None


def _seconds(timeout, op):
    if isinstance(timeout, datetime.timedelta):
        timeout = timeout.total_seconds()
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) or not \
            0 < float(timeout) < float("inf"):
        raise InvalidParameterError(f"{op}: timeout must be a number of seconds > 0 or a "
                                    f"timedelta, got {timeout!r}", "timeout", timeout)
    return float(timeout)


def init_process_group(backend=None, init_method=None, rank=None, world_size=None,
                       timeout=DEFAULT_TIMEOUT):
    """Join the process group of this job (PyTorch's ``init_process_group``).

    By default ``rank``, ``world_size`` and the rendezvous address come from the environment
    that torchrun (or ``python -m ember train --nproc N``) sets: ``RANK``, ``WORLD_SIZE``,
    ``MASTER_ADDR``, ``MASTER_PORT``. ``backend`` is ``"gloo"`` (CPU; the default);
    ``init_method`` is ``"env://"`` (the default), ``"tcp://HOST:PORT"`` or ``"file://PATH"``.
    ``timeout`` (seconds or a timedelta, default 300) bounds every collective: a rank that
    stops makes the others raise ``DistributedError`` instead of waiting for ever.

    >>> import ember.distributed as dist
    >>> dist.init_process_group(rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    >>> dist.get_rank(), dist.get_world_size()
    (0, 1)
    >>> dist.destroy_process_group()
    """
    op = "init_process_group"
    if _state["group"] is not None:
        raise DistributedError(f"{op}: a process group is already initialized; call "
                               "destroy_process_group() first")
    backend = "gloo" if backend is None else backend
    if backend not in BACKENDS:
        raise InvalidParameterError(f"{op}: backend {backend!r} is not supported; expected one "
                                    f"of {BACKENDS} (ember's tensors live on the CPU)",
                                    "backend", backend)
    seconds = _seconds(timeout, op)
    if init_method is None:
        init_method = "env://"
    if not isinstance(init_method, str) or not init_method.startswith(_INIT_METHODS):
        raise InvalidParameterError(f"{op}: init_method must be a string starting with one of "
                                    f"{_INIT_METHODS}, got {init_method!r}", "init_method",
                                    init_method)
    rank = _env_int("RANK", op) if rank is None else rank
    world_size = _env_int("WORLD_SIZE", op) if world_size is None else world_size
    for name, value in (("rank", rank), ("world_size", world_size)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidParameterError(f"{op}: {name} must be an int, got {value!r}", name,
                                        value)
    if world_size < 1:
        raise InvalidParameterError(f"{op}: world_size is {world_size}; expected an int >= 1",
                                    "world_size", world_size)
    if not 0 <= rank < world_size:
        raise InvalidParameterError(f"{op}: rank is {rank}; expected an int in [0, "
                                    f"{world_size})", "rank", rank)
    if init_method == "env://":
        for name in ("MASTER_ADDR", "MASTER_PORT"):
            if name not in os.environ:
                raise InvalidParameterError(
                    f"{op}: the environment variable {name} is not set; launch with torchrun "
                    "or pass init_method='tcp://HOST:PORT'", name.lower(), None)
    torch, dist = _import_torch()
    try:
        dist.init_process_group(backend, init_method=init_method, rank=rank,
                                world_size=world_size,
                                timeout=datetime.timedelta(seconds=seconds))
    except Exception as exc:  # torch raises RuntimeError, ValueError, OSError, DistStoreError
        raise failure(op, exc) from None
    _state["group"] = _Group(rank, world_size, backend, seconds, torch, dist)
    for joined, _ in _hooks:
        joined()


def destroy_process_group():
    """Leave the process group (nothing happens when none is initialized).

    >>> import ember.distributed as dist
    >>> dist.destroy_process_group(); dist.is_initialized()
    False
    """
    g = _state["group"]
    if g is None:
        return
    for _, left in _hooks:
        left()
    _state["group"] = None
    try:
        g.dist.destroy_process_group()
    except Exception as exc:  # pragma: no cover - torch's teardown after a failed peer
        raise failure("destroy_process_group", exc) from None


def is_initialized():
    """Whether this process has joined a process group."""
    return _state["group"] is not None


def get_rank():
    """This process's rank, in ``[0, get_world_size())``."""
    return group("get_rank").rank


def get_world_size():
    """The number of processes in the group."""
    return group("get_world_size").world_size


def barrier():
    """Wait until every rank reaches this call (DistributedError after the timeout)."""
    g = group("barrier")
    try:
        g.dist.barrier()
    except Exception as exc:
        raise failure("barrier", exc) from None
