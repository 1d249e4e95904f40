"""Start N local processes of one command, as torchrun does on one machine: each gets RANK,
LOCAL_RANK, WORLD_SIZE, MASTER_ADDR=127.0.0.1 and a free MASTER_PORT. When one fails, the
others are ended (by their process ids) and its exit code is returned."""

import os
import signal
import socket
import subprocess
import threading
import time

__all__ = ["free_port", "launch"]


def free_port(host="127.0.0.1"):
    """A TCP port on ``host`` that is free right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _end(procs, grace=5.0):
    """Terminate the processes still running, then kill those that outlive ``grace`` seconds."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def launch(args, nproc, env=None, timeout=None, **popen):
    """Run ``args`` (a command list) as ``nproc`` ranks on 127.0.0.1; returns the exit code
    (0 when every rank succeeded, else the first failure's; 124 when ``timeout`` seconds pass).
    ``popen`` goes to ``subprocess.Popen`` (``stdout=...`` for example)."""
    base = dict(os.environ if env is None else env)
    base.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), WORLD_SIZE=str(nproc),
                LOCAL_WORLD_SIZE=str(nproc))
    procs = []
    previous = None
    if threading.current_thread() is threading.main_thread():  # SIGTERM ends the ranks too
        previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        for rank in range(nproc):
            procs.append(subprocess.Popen(args, env=dict(base, RANK=str(rank),
                                                         LOCAL_RANK=str(rank)), **popen))
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            codes = [p.poll() for p in procs]
            failed = [c for c in codes if c not in (None, 0)]
            if failed:
                _end(procs)
                return failed[0]
            if all(c == 0 for c in codes):
                return 0
            if deadline is not None and time.monotonic() > deadline:
                _end(procs)
                return 124
            time.sleep(0.05)
    except BaseException:
        _end(procs)
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _terminated(signum, frame):
    raise SystemExit(128 + signum)

