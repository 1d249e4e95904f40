"""One benchmark process: runs the cases of one library and writes their timings as JSON.

Started by ``run.py`` with the thread variables already set in its environment (and the
OpenBLAS tuning variables unset), so it imports only its own library and pins its pools before
any work; with ``--threads default`` the variables are unset and it pins nothing. Besides the
times it records the minor page faults per call. Not meant to be run by hand, but it can be:

    python benchmarks/worker.py --lib ember --cases add_8,sum_4M --out /tmp/ember.json
    python benchmarks/worker.py --lib torch --cases gpt_step --threads default
    python benchmarks/worker.py --lib ember --cases mlp_step --profile 200
    python benchmarks/worker.py --lib ember --cases cnn_step --kernels 200
"""

import argparse
import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import cases as cases_mod  # noqa: E402
import helpers  # noqa: E402


def _pin_torch(threads):
    """Pin PyTorch's intra-op and inter-op pools to ``threads`` (None: leave its defaults)."""
    import torch

    if threads is not None:
        torch.set_num_threads(threads)
        try:
            torch.set_num_interop_threads(threads)
        except RuntimeError:  # pragma: no cover - only if parallel work already started
            pass
    return torch


def _import_library(lib, threads):
    """Import ``lib``, pin its thread pools to ``threads`` (None: the library's defaults), and
    describe what it runs on."""
    info = {"cpu_count": os.cpu_count()}
    if lib == "torch":
        torch = _pin_torch(threads)
        info["version"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
        info["torch_interop_threads"] = torch.get_num_interop_threads()
    elif lib in ("ember", helpers.EMBER_TORCH):
        if lib == helpers.EMBER_TORCH:
            os.environ["EMBER_DEVICE"] = "torch:cpu"  # every case's tensors on the torch backend
            info["torch_threads"] = _pin_torch(threads).get_num_threads()
        import ember

        info["version"] = ember.__version__
        info["device"] = str(ember.get_default_device())
        info["ember_threads"] = ember.get_num_threads()
    import numpy as np

    info["numpy"] = np.__version__
    return info


def _profile(fn, calls, top):
    """cProfile ``calls`` calls of ``fn``; returns the report text."""
    import cProfile
    import io
    import pstats

    fn()
    prof = cProfile.Profile()
    start = time.perf_counter()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    wall = time.perf_counter() - start
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf)
    print(f"{calls} calls, {wall / calls * 1e6:.1f} µs per call under the profiler "
          "(the profiler adds its own overhead per function call)", file=buf)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def _kernel_profile(fn, calls, top):
    """Time every backend kernel ember calls during ``calls`` calls of ``fn``; returns the report.

    Each public function of the default device's backend module is wrapped with a timer for the duration
    (kernels that an op captured at import time, such as the operators' short paths, are not
    seen and count as time outside kernels). The rest of the time is ember's Python: argument
    checks, dispatch, recording and the backward walk, plus about 0.1 µs of wrapper per call.
    """
    import types

    import numpy as np

    import ember
    be = ember.get_default_device().backend

    totals, counts, originals = {}, {}, {}

    def wrapped(name, kernel):
        clock = time.perf_counter

        def timed(*a, **k):
            t0 = clock()
            try:
                return kernel(*a, **k)
            finally:
                totals[name] = totals.get(name, 0.0) + (clock() - t0)
                counts[name] = counts.get(name, 0) + 1
        return timed

    for name in dir(be):
        obj = getattr(be, name)
        if name.startswith("_") or not isinstance(
                obj, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)):
            continue
        originals[name] = obj
        setattr(be, name, wrapped(name, obj))
    try:
        fn()
        totals.clear()
        counts.clear()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        wall = time.perf_counter() - start
    finally:
        for name, obj in originals.items():
            setattr(be, name, obj)
    inside = sum(totals.values())
    lines = [f"{calls} calls: {wall / calls * 1e6:.1f} µs per call, of which "
             f"{inside / calls * 1e6:.1f} µs in {sum(counts.values()) / calls:.0f} backend "
             f"kernel calls and {(wall - inside) / calls * 1e6:.1f} µs outside them",
             f"{'kernel':32s} {'calls/call':>10s} {'µs/call':>10s} {'µs each':>9s} {'share':>6s}"]
    for name in sorted(totals, key=totals.get, reverse=True)[:top]:
        per = totals[name] / calls * 1e6
        lines.append(f"{name:32s} {counts[name] / calls:10.1f} {per:10.1f} "
                     f"{totals[name] / counts[name] * 1e6:9.2f} {totals[name] / wall:6.1%}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True, choices=helpers.LIBS + (helpers.EMBER_TORCH,))
    ap.add_argument("--cases", required=True, help="comma-separated case names")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=0.02,
                    help="seconds one repetition lasts at least (calls are batched)")
    ap.add_argument("--threads", type=helpers.parse_thread_setting, default=1,
                    help="threads per pool, or 'default': leave the library's own defaults")
    ap.add_argument("--out", help="JSON file to write (default: stdout)")
    ap.add_argument("--profile", type=int, default=0, metavar="CALLS",
                    help="instead of timing, cProfile CALLS calls of each case and print it")
    ap.add_argument("--kernels", type=int, default=0, metavar="CALLS",
                    help="ember only: instead of timing, time each backend kernel over CALLS "
                         "calls of each case and print the totals")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args(argv)

    pinned = None if args.threads == "default" else args.threads
    info = _import_library(args.lib, pinned)
    limiter = helpers.limit_threadpools(pinned) if pinned else None  # noqa: F841 - kept on
    table = cases_mod.by_name(args.quick)
    names = [n for n in args.cases.split(",") if n]
    results = {}
    for name in names:
        case = table[name]
        setup = case.setups.get("ember" if args.lib == helpers.EMBER_TORCH else args.lib)
        if setup is None:
            continue
        entry = {}
        try:
            fn = setup(case.params(args.quick))
            entry["fingerprint"] = helpers.fingerprint(fn())
            if args.profile:
                print(f"=== {args.lib} {name}: {case.title}")
                print(_profile(fn, args.profile, args.top), flush=True)
                continue
            if args.kernels:
                print(f"=== {args.lib} {name}: {case.title}")
                print(_kernel_profile(fn, args.kernels, args.top), flush=True)
                continue
            if isinstance(fn, cases_mod.Backward):
                entry.update(helpers.measure_difference(fn.run, fn.baseline, args.reps,
                                                        args.min_time))
            else:
                entry.update(helpers.measure(fn, args.reps, args.min_time))
        except Exception as exc:  # a failing case is reported, the others still run
            entry["error"] = f"{type(exc).__name__}: {exc}"
            entry["traceback"] = traceback.format_exc(limit=6)
        results[name] = entry
    if args.profile or args.kernels:
        return 0
    info["threadpools"] = helpers.threadpools()
    info["env"] = {v: os.environ.get(v) for v in helpers.THREAD_VARS + helpers.OPENBLAS_TUNING_VARS}
    payload = {"lib": args.lib, "info": info, "results": results}
    text = json.dumps(payload, indent=1)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
