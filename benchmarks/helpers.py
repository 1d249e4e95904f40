"""Shared pieces of the benchmark: thread pinning, timing, fingerprints and machine facts.

Imported both by ``run.py`` (the parent process) and by ``worker.py`` (one process per library),
so nothing here imports NumPy, PyTorch or ember at module level.
"""

import gc
import os
import platform
import statistics
import subprocess
import sys
import time

LIBS = ("ember", "numpy", "torch")
# ember's own cases again with EMBER_DEVICE=torch:cpu: ember on its PyTorch backend
EMBER_TORCH = "ember_torch"

# Variables that pin BLAS / OpenMP thread pools; set in each worker's environment before it
# imports anything, so the three libraries start with identical pools.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

# Set on some machines for old OpenBLAS builds; they slow a current NumPy down, so a benchmark
# process runs with both unset together (see /work/.library/env/README.md).
OPENBLAS_TUNING_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def parse_thread_setting(text):
    """One thread setting of ``--threads``: a count >= 1, or "default" (each library's own)."""
    text = str(text).strip()
    if text == "default":
        return text
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"a thread setting is an int >= 1 or 'default', got {text!r}")
    return n


def worker_env(threads, root):
    """The environment of one worker process: threads pinned (``threads`` a count) or the
    thread variables unset (``threads`` "default": every library picks its own), the OpenBLAS
    tuning variables unset, the repository root on PYTHONPATH. Returns ``(env, removed)`` where
    ``removed`` maps each tuning variable that was set in this process to its value."""
    env = dict(os.environ)
    for var in THREAD_VARS:
        if threads == "default":
            env.pop(var, None)
        else:
            env[var] = str(threads)
    removed = {}
    if any(var in env for var in OPENBLAS_TUNING_VARS):
        for var in OPENBLAS_TUNING_VARS:
            if var in env:
                removed[var] = env.pop(var)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONHASHSEED"] = "0"
    return env, removed


# -- timing ------------------------------------------------------------------------------------

def _run_number(fn, number):
    """Seconds for ``number`` back-to-back calls of ``fn`` (garbage collector off, as timeit)."""
    gc_was = gc.isenabled()
    gc.disable()
    try:
        rng = range(number)
        start = time.perf_counter()
        for _ in rng:
            fn()
        return time.perf_counter() - start
    finally:
        if gc_was:
            gc.enable()


def calibrate(fn, min_time):
    """The number of calls of ``fn`` per repetition so that one repetition lasts at least
    ``min_time`` seconds (1, 2, 5, 10, 20, 50 ... as timeit's autorange)."""
    number = 1
    while True:
        for k in (1, 2, 5):
            n = number * k
            if _run_number(fn, n) >= min_time:
                return n
        number *= 10
        if number > 10_000_000:  # pragma: no cover - only a no-op function gets here
            return number


def minor_faults():
    """Minor page faults of this process so far (every thread), None where getrusage is
    missing."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _settle(*fns):
    """After the warm-up calls: wait for the kernels ember compiles in the background (a first
    call takes the NumPy path while its kernel compiles), then call each function once more."""
    jit = sys.modules.get("ember.backends.numpy.jit")
    if jit is None:
        return
    jit.wait()
    for fn in fns:
        fn()


def measure(fn, reps, min_time, warmup=1):
    """Time ``fn``: ``warmup`` untimed calls, calibration, then ``reps`` repetitions.

    Returns a dict with the median, minimum and maximum seconds per call, the repetitions, the
    calls per repetition and ``faults``: the minor page faults per call over the repetitions
    (memory the process mapped or touched for the first time: fresh buffers from the OS).
    """
    for _ in range(warmup):
        fn()
    _settle(fn)
    number = calibrate(fn, min_time) if min_time > 0 else 1
    times = []
    faults = 0
    for _ in range(reps):
        gc.collect()
        before = minor_faults()
        times.append(_run_number(fn, number) / number)
        if before is not None:
            faults += minor_faults() - before
    return {"median": statistics.median(times), "min": min(times), "max": max(times),
            "reps": reps, "number": number,
            "faults": None if before is None else faults / (reps * number)}


def measure_difference(fn, baseline, reps, min_time, warmup=1):
    """The time of ``fn`` minus the time of ``baseline`` (work ``fn`` also does), per call.

    Each repetition times ``fn`` then ``baseline`` with the same number of calls, so a burst
    of load affects both; the median, minimum and maximum are over the repetitions'
    differences. The dict also has ``total`` and ``baseline``: the medians of the two, and
    ``faults`` per call of ``fn``.
    """
    for _ in range(warmup):
        fn()
        baseline()
    _settle(fn, baseline)
    number = calibrate(fn, min_time) if min_time > 0 else 1
    diffs, totals, bases = [], [], []
    faults = 0
    for _ in range(reps):
        gc.collect()
        before = minor_faults()
        t = _run_number(fn, number) / number
        if before is not None:
            faults += minor_faults() - before
        gc.collect()
        b = _run_number(baseline, number) / number
        diffs.append(t - b)
        totals.append(t)
        bases.append(b)
    return {"median": statistics.median(diffs), "min": min(diffs), "max": max(diffs),
            "reps": reps, "number": number, "total": statistics.median(totals),
            "baseline": statistics.median(bases),
            "faults": None if before is None else faults / (reps * number)}


# -- fingerprints --------------------------------------------------------------------------------

def to_numpy(value):
    """A NumPy array (or float) of a case's result, whatever library produced it."""
    import numpy as np

    if isinstance(value, (tuple, list)) and not hasattr(value, "shape"):
        value = value[0]
    if isinstance(value, (int, float)):
        return np.asarray(float(value))
    if hasattr(value, "detach"):  # torch
        value = value.detach().numpy()
    elif hasattr(value, "_data") and hasattr(value, "numpy"):  # ember
        value = value.numpy()
    return np.asarray(value)


def fingerprint(value):
    """``[shape, sum, sum of squares]`` of a result in float64: enough to tell whether the
    three libraries computed the same thing on the same data."""
    import numpy as np

    arr = to_numpy(value).astype(np.float64)
    return {"shape": list(arr.shape), "sum": float(arr.sum()), "sumsq": float((arr * arr).sum())}


def fingerprints_agree(a, b, rtol=1e-3):
    """Whether two fingerprints describe the same result up to float32 rounding."""
    if a is None or b is None:
        return None
    if a["shape"] != b["shape"]:
        return False
    for key in ("sum", "sumsq"):
        x, y = a[key], b[key]
        scale = max(abs(x), abs(y), 1e-3 * (abs(a["sumsq"]) ** 0.5 + 1.0))
        if abs(x - y) > rtol * scale:
            return False
    return True


# -- machine facts -----------------------------------------------------------------------------

def _read(path):
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return ""


def cpu_model():
    for line in _read("/proc/cpuinfo").splitlines():
        if line.lower().startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def nproc():
    try:
        out = subprocess.run(["nproc"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def memory_gib():
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / 2**20, 1)
    return None


def uptime():
    """``uptime``'s line, or the load averages when the command is missing."""
    try:
        out = subprocess.run(["uptime"], capture_output=True, text=True, timeout=10)
        if out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def machine_info():
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "nproc": nproc(),
        "memory_gib": memory_gib(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


def threadpools():
    """Thread pools loaded in this process, as threadpoolctl sees them (None without it)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    keep = ("user_api", "internal_api", "prefix", "version", "num_threads", "architecture",
            "threading_layer")
    return [{k: info.get(k) for k in keep} for info in threadpool_info()]


def limit_threadpools(threads):
    """Pin every loaded BLAS/OpenMP pool with threadpoolctl; returns the limiter (kept alive by
    the caller) or None when threadpoolctl is not installed (the environment variables then do
    the pinning alone)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    return threadpool_limits(limits=threads)


def fmt_time(seconds):
    """A duration with a unit that keeps 3 significant digits: ``1.23 µs``, ``45.6 ms``."""
    if seconds is None:
        return "—"
    if seconds < 0:  # a difference of two noisy times (a backward case) can come out below 0
        return "−" + fmt_time(-seconds)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            value = seconds / scale
            digits = 0 if value >= 100 else 1 if value >= 10 else 2
            return f"{value:.{digits}f} {unit}"
    return f"{seconds:.3g} s"  # pragma: no cover


def median_of(payloads, lib, name):
    """The median time of case ``name`` in library ``lib``'s payload, or None (not run, failed)."""
    entry = payloads.get(lib, {}).get("results", {}).get(name)
    return None if not entry or "median" not in entry else entry["median"]


def fmt_ratio(ratio):
    if ratio is None:
        return "—"
    return "∞" if ratio == float("inf") else f"{ratio:.2f}×"
