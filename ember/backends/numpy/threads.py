"""NumPy kernels for the thread settings: the BLAS/OpenMP pools NumPy's matmul and linalg use.

With threadpoolctl installed the pools already loaded are resized at once; the
``OMP/OPENBLAS/MKL/BLIS_NUM_THREADS`` environment variables are set too, for pools loaded later.
"""

import os

__all__ = ["threads_set", "threads_get"]

_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
_state = {"n": None, "limiter": None}


def _threadpoolctl():
    try:
        import threadpoolctl
    except ImportError:  # optional: scikit-learn brings it
        return None
    return threadpoolctl


def threads_set(n):
    """Use ``n`` threads in the BLAS/OpenMP pools; returns whether a loaded pool was resized."""
    for var in _VARS:
        os.environ[var] = str(n)
    _state["n"] = n
    tpc = _threadpoolctl()
    if tpc is None:
        return False
    _state["limiter"] = tpc.threadpool_limits(limits=n)
    return bool(tpc.threadpool_info())


def threads_get():
    """The threads of the BLAS pool (the largest loaded pool's), else the last setting, else the
    number of CPUs."""
    tpc = _threadpoolctl()
    if tpc is not None:
        info = [p["num_threads"] for p in tpc.threadpool_info() if p.get("user_api") == "blas"]
        if info:
            return max(info)
    if _state["n"] is not None:
        return _state["n"]
    return os.cpu_count() or 1
