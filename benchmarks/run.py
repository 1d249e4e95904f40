"""ember against NumPy and PyTorch: the same cases, one process per library, median times.

    python3 dev.py bench                       # the full run: docs/performance.md and .png
    python benchmarks/run.py --quick --out /tmp/perf.md    # tiny sizes, 1 repetition
    python benchmarks/run.py --cases add_8,mlp_step        # some cases (names, groups, globs)
    python benchmarks/run.py --cases mlp_step --profile 200   # cProfile ember's side instead
    python benchmarks/run.py --cases cnn_step --kernels 200   # time each backend kernel
    python benchmarks/run.py --cases gpt_step --threads 2      # one thread setting only

Each library runs in its own worker process (benchmarks/worker.py), once per thread setting of
``--threads`` (default ``1,default``): a count pins the BLAS/OpenMP pools of every library to
it; ``default`` pins nothing and unsets the thread variables, so each library runs with its own
defaults (ember's compiled kernels and NumPy's BLAS as they start, PyTorch with
``torch.get_num_threads()``'s default). The OpenBLAS tuning variables (OPENBLAS_CORETYPE,
OPENBLAS_L2_SIZE) are unset; every process builds the same inputs from a fixed seed. The report
is a Markdown file with the table of median times per library and thread setting side by side,
the ratios ember/NumPy and ember/PyTorch, the minor page faults per call of the training steps,
the targets of the Performance and Threads issues, the scaling table, the machine and the
library versions, and a PNG chart beside it.
"""

import argparse
import datetime
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import against  # noqa: E402
import cases as cases_mod  # noqa: E402
import helpers  # noqa: E402
from helpers import fmt_ratio, fmt_time, median_of  # noqa: E402

MARKER = "<!-- Everything below this line is written by benchmarks/run.py; edit above it. -->"
DEFAULT_INTRO = """# Performance

ember against NumPy and PyTorch on the same data, written by `python3 dev.py bench`
(`benchmarks/run.py`). Times are medians per call; a ratio above 1 means ember is slower.
"""

LIB_TITLES = {"ember": "ember", "numpy": "NumPy", "torch": "PyTorch",
              "ember_torch": "ember on torch:cpu"}
TORCH_OVERHEAD_FACTOR = 1.3  # torch backend: 8-element add <= 1.3 x PyTorch's own
TORCH_LARGE_FACTOR = 1.1     # torch backend: 4M ops, softmax, sum, matmul <= 1.1 x PyTorch
TORCH_LARGE_CASES = ("add_4M", "chain_4M", "sum_4M", "softmax_4096x1024", "matmul_1024")
LARGE_FACTOR = 1.1      # large ops: ember <= 1.1 x NumPy
TRACKED_FACTOR = 1.5    # 8-element add with a tracked input: ember <= 1.5 x PyTorch
MLP_NUMPY_FACTOR = 1.5  # MLP step: ember <= 1.5 x the hand-written NumPy step
FLAT_FACTOR = 2.0       # movement chain: time at 1e7 elements <= 2 x time at 1e3
# The Threads issue: ember <= PyTorch with every library on its default threads on these ...
DEFAULT_THREADS_CASES = (
    "gelu_4096x1024", "gelu_tanh_4096x1024", "layer_norm_4096x1024", "log_softmax_4096x1024",
    "softmax_backward_4096x1024", "layer_norm_backward_4096x1024", "gelu_backward_4096x1024",
    "transpose_copy_4096x1024", "sum_axis0_4096x1024", "sum_rows_4096x1024",
    "max_rows_4096x1024", "gpt_step", "gpt_forward", "softmax_4096x1024", "sum_4M",
    "permute_copy", "chain_4M")
# ... and with one thread each on these ...
ONE_THREAD_CASES = (
    "gpt_step", "softmax_4096x1024", "softmax_backward_4096x1024", "layer_norm_4096x1024",
    "layer_norm_backward_4096x1024", "gelu_4096x1024", "gelu_tanh_4096x1024",
    "gelu_backward_4096x1024")
# ... and the GPT step's minor page faults per call <= 2 x PyTorch's.
FAULTS_FACTOR = 2.0
FAULTS_CASES = ("gpt_step",)


def parse_threads(text):
    """The thread settings of ``--threads``: ``"1,default"`` -> ``[1, "default"]``."""
    settings = []
    for part in str(text).split(","):
        if part.strip():
            s = helpers.parse_thread_setting(part)
            if s not in settings:
                settings.append(s)
    if not settings:
        raise ValueError("--threads: expected at least one setting")
    return settings


def threads_label(setting):
    """``1 thread``, ``4 threads``, ``default threads``."""
    if setting == "default":
        return "default threads"
    return f"{setting} thread{'s' if setting != 1 else ''}"


def select_cases(spec, quick):
    """The cases named by ``spec`` (comma-separated names, group names or glob patterns)."""
    cases = cases_mod.all_cases(quick)
    if not spec:
        return cases
    chosen, unknown = [], []
    for pat in (p.strip() for p in spec.split(",")):
        if not pat:
            continue
        hit = [c for c in cases if fnmatch.fnmatch(c.name, pat) or c.group == pat]
        if not hit:
            unknown.append(pat)
        chosen.extend(c for c in hit if c not in chosen)
    if unknown:
        names = ", ".join(c.name for c in cases_mod.CASES)
        groups = ", ".join(sorted({c.group for c in cases}))
        raise SystemExit(f"run.py: no case matches {', '.join(unknown)}; cases: {names}; "
                         f"groups: {groups}")
    return chosen


def run_worker(lib, names, args, threads, env, timeout, root=ROOT):
    """Run one library's worker with the thread setting ``threads`` (the worker of the source
    tree at ``root``); returns its JSON payload (with an ``error`` on failure)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, f"{lib}.json")
        cmd = [sys.executable, os.path.join(root, "benchmarks", "worker.py"), "--lib", lib,
               "--cases", ",".join(names), "--reps", str(args.reps),
               "--min-time", str(args.min_time), "--threads", str(threads), "--out", out]
        if args.quick:
            cmd.append("--quick")
        try:
            proc = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"lib": lib, "error": f"timed out after {timeout} s", "results": {}}
        if proc.returncode != 0 or not os.path.exists(out):
            tail = (proc.stderr or proc.stdout).strip()[-2000:]
            return {"lib": lib, "error": f"worker exited {proc.returncode}: {tail}",
                    "results": {}}
        with open(out) as fh:
            return json.load(fh)


def merge_rounds(best, new):
    """Keep, per case, the round with the lower median: a burst of load from other work on the
    machine slows one round, not both (the medians of one round are not mixed)."""
    if best is None:
        return new
    if new.get("error") and not best.get("error"):
        return best
    merged = dict(best)
    results = dict(best.get("results", {}))
    for name, entry in new.get("results", {}).items():
        old = results.get(name)
        rounds = (old or {}).get("rounds", 1) + 1
        if old is None or "median" not in old or (
                "median" in entry and entry["median"] < old["median"]):
            entry = dict(entry)
            results[name] = entry
        results[name]["rounds"] = rounds
    merged["results"] = results
    return merged


def profile(selected, args, env):
    """cProfile (or time the backend kernels of) ember's side of the selected cases; prints
    the reports."""
    names = [c.name for c in selected if "ember" in c.setups]
    mode = ["--kernels", str(args.kernels)] if args.kernels else ["--profile", str(args.profile)]
    cmd = [sys.executable, os.path.join(HERE, "worker.py"), "--lib", args.profile_lib,
           "--cases", ",".join(names), "--threads", str(args.threads[0]), *mode,
           "--top", str(args.top)]
    if args.quick:
        cmd.append("--quick")
    return subprocess.call(cmd, env=env, cwd=ROOT)


# -- the report ---------------------------------------------------------------------------------

def _faults(payloads, lib, name):
    entry = payloads.get(lib, {}).get("results", {}).get(name)
    return None if not entry else entry.get("faults")


def _faults_ratio(payloads, name):
    """ember's page faults per call over PyTorch's; where PyTorch had none, 0 if ember had none
    either, else infinite."""
    a, b = _faults(payloads, "ember", name), _faults(payloads, "torch", name)
    if a is not None and b == 0:
        return 0.0 if a == 0 else float("inf")
    return _ratio(a, b)


def _fmt_faults(value):
    if value is None:
        return "—"
    return f"{value:,.0f}" if value >= 10 else f"{value:.1f}"


def _ratio(a, b):
    return None if a is None or b is None or b <= 0 else a / b


def _cell(payloads, lib, case):
    if ("ember" if lib == "ember_torch" else lib) not in case.setups:
        return "—"
    entry = payloads.get(lib, {}).get("results", {}).get(case.name)
    if entry is None:
        return "not run"
    if "error" in entry:
        return "error"
    text = fmt_time(entry["median"])
    if entry["reps"] > 1 and (entry["min"] <= 0 or entry["max"] > 1.5 * entry["min"]):
        text += " ~"
    return text


def _agree(by_setting, case):
    """Whether every library's result, at every thread setting, has the same fingerprint."""
    prints = [payloads.get(lib, {}).get("results", {}).get(case.name, {}).get("fingerprint")
              for payloads in by_setting.values() for lib in case.check]
    prints = [fp for fp in prints if fp is not None]
    libs = {lib for payloads in by_setting.values() for lib in case.check
            if payloads.get(lib, {}).get("results", {}).get(case.name, {}).get("fingerprint")}
    if len(libs) < 2:
        return "—"
    ok = all(helpers.fingerprints_agree(prints[0], fp) for fp in prints)
    return "yes" if ok else "**NO**"


def _pinned_setting(settings):
    """The setting the Performance issue's targets are read at: the first count, else the
    first setting."""
    return next((s for s in settings if s != "default"), settings[0])


def targets(by_setting, scaling_ran):
    """``[(target, measured, met)]`` for the targets of the Performance and Threads issues that
    were run. The Performance issue's targets are read at the first thread count (they were
    set for one thread), the Threads issue's at one thread and at the default threads."""
    rows = []
    settings = list(by_setting)
    pin = _pinned_setting(settings)
    payloads = by_setting[pin]
    at = f" ({threads_label(pin)})"
    e = lambda n: median_of(payloads, "ember", n)  # noqa: E731
    n_ = lambda n: median_of(payloads, "numpy", n)  # noqa: E731
    t = lambda n: median_of(payloads, "torch", n)  # noqa: E731

    def add(text, ratio, limit, detail=""):
        if ratio is None:
            return
        rows.append((text + at, f"{fmt_ratio(ratio)}{detail}", ratio <= limit))

    add("8-element add, untracked: ember ≤ PyTorch", _ratio(e("add_8"), t("add_8")), 1.0,
        f" ({fmt_time(e('add_8'))} vs {fmt_time(t('add_8'))})" if e("add_8") else "")
    add(f"8-element add, tracked input: ember ≤ {TRACKED_FACTOR}× PyTorch",
        _ratio(e("add_8_tracked"), t("add_8_tracked")), TRACKED_FACTOR,
        f" ({fmt_time(e('add_8_tracked'))} vs {fmt_time(t('add_8_tracked'))})"
        if e("add_8_tracked") else "")
    for case in cases_mod.CASES:
        if case.group == "large":
            add(f"{case.name}: ember ≤ {LARGE_FACTOR}× NumPy", _ratio(e(case.name), n_(case.name)),
                LARGE_FACTOR)
    add("mlp_step: ember ≤ PyTorch", _ratio(e("mlp_step"), t("mlp_step")), 1.0)
    et = lambda n: median_of(payloads, "ember_torch", n)  # noqa: E731
    add(f"torch backend, 8-element add: ember on torch:cpu ≤ {TORCH_OVERHEAD_FACTOR}× PyTorch",
        _ratio(et("add_8"), t("add_8")), TORCH_OVERHEAD_FACTOR,
        f" ({fmt_time(et('add_8'))} vs {fmt_time(t('add_8'))})" if et("add_8") else "")
    for name in TORCH_LARGE_CASES:
        add(f"torch backend, {name}: ember on torch:cpu ≤ {TORCH_LARGE_FACTOR}× PyTorch",
            _ratio(et(name), t(name)), TORCH_LARGE_FACTOR)
    add(f"mlp_step: ember ≤ {MLP_NUMPY_FACTOR}× hand-written NumPy",
        _ratio(e("mlp_step"), n_("mlp_step")), MLP_NUMPY_FACTOR)
    if scaling_ran:
        sizes = scaling_ran
        lo, hi = sizes[0], sizes[-1]
        for lib in ("ember", "numpy"):
            a = median_of(payloads, lib, _scale_name("views", lo))
            b = median_of(payloads, lib, _scale_name("views", hi))
            add(f"movement chain O(1) ({LIB_TITLES[lib]}): time at {hi:,} ≤ {FLAT_FACTOR}× "
                f"time at {lo:,} elements", _ratio(b, a), FLAT_FACTOR,
                f" ({fmt_time(a)} → {fmt_time(b)})" if a and b else "")
    for setting, names in (("default", DEFAULT_THREADS_CASES), (1, ONE_THREAD_CASES)):
        payloads = by_setting.get(setting)
        if payloads is None:
            continue
        at = f" ({threads_label(setting)})"
        for name in names:
            a, b = median_of(payloads, "ember", name), median_of(payloads, "torch", name)
            if a is not None and b is not None and _ratio(a, b) is None:
                # a backward's time is a difference of two times: noise can leave it <= 0
                rows.append((f"Threads issue, {name}: ember ≤ PyTorch{at}",
                             f"not measured ({fmt_time(a)} vs {fmt_time(b)})", False))
                continue
            add(f"Threads issue, {name}: ember ≤ PyTorch", _ratio(a, b), 1.0,
                f" ({fmt_time(a)} vs {fmt_time(b)})" if a and b else "")
    for setting, payloads in by_setting.items():
        at = f" ({threads_label(setting)})"
        for name in FAULTS_CASES:
            a, b = _faults(payloads, "ember", name), _faults(payloads, "torch", name)
            ratio = _faults_ratio(payloads, name)
            add(f"Threads issue, {name}: minor page faults per call ≤ {FAULTS_FACTOR}× "
                "PyTorch's", ratio, FAULTS_FACTOR,
                f" ({_fmt_faults(a)} vs {_fmt_faults(b)})" if a is not None and b is not None
                else "")
        # the nn-layer targets: ember (ember.torch.nn) <= PyTorch at every thread setting
        for case in cases_mod.LAYER_CASES:
            a, b = median_of(payloads, "ember", case.name), median_of(payloads, "torch", case.name)
            add(f"nn layers, {case.name}: ember ≤ PyTorch", _ratio(a, b), 1.0,
                f" ({fmt_time(a)} vs {fmt_time(b)})" if a and b else "")
    return rows


def _scale_name(op, n):
    return f"scale_{op}_{n:.0e}".replace("+0", "").replace("+", "")


def _threads_text(payloads, setting):
    lines = []
    for lib in helpers.LIBS:
        info = payloads.get(lib, {}).get("info")
        if not info:
            continue
        pools = info.get("threadpools")
        if pools is None:
            desc = "threadpoolctl not installed: pinned by the environment variables alone"
        else:
            desc = "; ".join(
                " ".join(str(x) for x in (p.get("internal_api"), p.get("version")) if x)
                + f" ({p.get('prefix')}"
                + (f", kernel {p['architecture']}" if p.get("architecture") else "")
                + f"): {p.get('num_threads')} thread(s)" for p in pools)
        if lib == "torch":
            desc += (f"; torch.get_num_threads() = {info.get('torch_threads')}, "
                     f"interop {info.get('torch_interop_threads')}")
        if info.get("ember_threads") is not None:
            desc += f"; ember.get_num_threads() = {info['ember_threads']}"
        lines.append(f"- {threads_label(setting)}, {LIB_TITLES[lib]} process: {desc}")
    return lines


def _results_table(main_cases, by_setting):
    """The Markdown lines of the results table: per library, its time at each thread setting
    side by side, then the ratios at each setting."""
    settings = list(by_setting)
    first = by_setting[settings[0]]
    labels = [threads_label(s) for s in settings]
    head, align = ["case", "what"], ["---", "---"]
    for lib in helpers.LIBS:
        head += [f"{LIB_TITLES[lib]}, {lab}" for lab in labels]
    for other in ("numpy", "torch"):
        head += [f"ember / {LIB_TITLES[other]}, {lab}" for lab in labels]
    head += [f"ember on torch:cpu, {labels[0]}", f"ember on torch:cpu / PyTorch, {labels[0]}",
             "agree"]
    align += ["---:"] * (len(head) - 3) + [":---:"]
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    for c in main_cases:
        cells = [f"`{c.name}`", c.title]
        for lib in helpers.LIBS:
            cells += [_cell(by_setting[s], lib, c) for s in settings]
        for other in ("numpy", "torch"):
            cells += [fmt_ratio(_ratio(median_of(by_setting[s], "ember", c.name),
                                       median_of(by_setting[s], other, c.name)))
                      for s in settings]
        cells += [_cell(first, "ember_torch", c),
                  fmt_ratio(_ratio(median_of(first, "ember_torch", c.name),
                                   median_of(first, "torch", c.name))),
                  _agree(by_setting, c)]
        out.append("| " + " | ".join(cells) + " |")
    return out


def _faults_table(fault_cases, by_setting):
    """The Markdown lines of the minor page faults per call of ``fault_cases``."""
    settings = list(by_setting)
    labels = [threads_label(s) for s in settings]
    head = ["case"]
    for lib in helpers.LIBS:
        head += [f"{LIB_TITLES[lib]}, {lab}" for lab in labels]
    head += [f"ember / PyTorch, {lab}" for lab in labels]
    out = ["| " + " | ".join(head) + " |", "| --- " + "| ---: " * (len(head) - 1) + "|"]
    for c in fault_cases:
        cells = [f"`{c.name}`"]
        for lib in helpers.LIBS:
            cells += [_fmt_faults(_faults(by_setting[s], lib, c.name)) if lib in c.setups
                      else "—" for s in settings]
        cells += [fmt_ratio(_faults_ratio(by_setting[s], c.name)) for s in settings]
        out.append("| " + " | ".join(cells) + " |")
    return out


def write_report(path, chart_path, selected, by_setting, meta, scaling_sizes):
    intro = DEFAULT_INTRO
    if os.path.exists(path):
        with open(path) as fh:
            old = fh.read()
        if MARKER in old:
            intro = old.split(MARKER, 1)[0].rstrip() + "\n"
    main_cases = [c for c in selected if c.group != "scaling"]
    settings = list(by_setting)
    payloads = by_setting[settings[0]]  # the scaling table and the versions: the first setting
    out = [intro, MARKER, ""]
    out.append("## Results")
    out.append("")
    out.append(f"Run {meta['date']} with `{meta['command']}` in {meta['seconds']:.0f} s"
               f"{' (--quick: tiny sizes, not a measurement)' if meta['quick'] else ''}. "
               f"Each time is the median of {meta['reps']} repetitions after a warm-up call; "
               f"each repetition batches calls to last at least {meta['min_time'] * 1000:.0f} ms "
               "(garbage collector off while timing, as `timeit`). Every library's process ran "
               f"{meta['rounds']} time(s) per thread setting, interleaved with the others, and "
               "each case keeps the round with the lower median (a burst of other work on the "
               "machine slows one round, not both). Thread settings: "
               f"{', '.join(threads_label(s) for s in settings)} (*Machine and settings* "
               "below); ember on its torch:cpu backend ran at the first only. `~` marks a cell "
               "whose slowest repetition was more than 1.5× its fastest (noisy). *agree*: every "
               "library's result, at every thread setting, has the same shape, sum and sum of "
               "squares (to float32 rounding).")
    out.append("")
    if main_cases:
        out.extend(_results_table(main_cases, by_setting))
        out.append("")
        notes = [f"- `{c.name}`: {c.note}" for c in main_cases if c.note]
        if notes:
            out.append("Notes:")
            out.append("")
            out.extend(notes)
            out.append("")
    fault_cases = [c for c in main_cases if c.group == "training"]
    if fault_cases:
        out.append("## Page faults")
        out.append("")
        out.append("Minor page faults per call of the training steps (`getrusage` of the worker "
                   "process, over the timed calls): each is a page of memory the process "
                   "touched for the first time, most often a fresh buffer the allocator had to "
                   "get from the operating system.")
        out.append("")
        out.extend(_faults_table(fault_cases, by_setting))
        out.append("")
    rows = targets(by_setting, scaling_sizes)
    if rows:
        met = sum(1 for r in rows if r[2])
        out.append("## Targets")
        out.append("")
        out.append(f"The targets of the Performance and Threads issues, measured above: {met} "
                   f"of {len(rows)} met.")
        out.append("")
        out.append("| target | measured | met |")
        out.append("| --- | ---: | :---: |")
        for text, measured, ok in rows:
            out.append(f"| {text} | {measured} | {'yes' if ok else '**no**'} |")
        out.append("")
    if meta.get("against"):
        out.extend(against.table(main_cases, by_setting, meta["against"], threads_label))
    if scaling_sizes:
        out.append("## Scaling")
        out.append("")
        out.append("Median time per call against the number of elements (float32). An "
                   "elementwise op and a reduction grow with the size; a chain of views "
                   "should not.")
        out.append("")
        head = ["elements"]
        for op in cases_mod.SCALING_OPS:
            for lib in cases_mod.SCALING_LIBS:
                head.append(f"{op}: {LIB_TITLES[lib]}")
        out.append("| " + " | ".join(head) + " |")
        out.append("| ---: " + "| ---: " * (len(head) - 1) + "|")
        for n in scaling_sizes:
            cells = [f"{n:,}"]
            for op in cases_mod.SCALING_OPS:
                for lib in cases_mod.SCALING_LIBS:
                    cells.append(fmt_time(median_of(payloads, lib, _scale_name(op, n))))
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        for op, (title, _) in cases_mod.SCALING_OPS.items():
            growth = []
            for lib in cases_mod.SCALING_LIBS:
                r = _ratio(median_of(payloads, lib, _scale_name(op, scaling_sizes[-1])),
                           median_of(payloads, lib, _scale_name(op, scaling_sizes[0])))
                growth.append(f"{LIB_TITLES[lib]} {fmt_ratio(r)}")
            out.append(f"- {title}: time at {scaling_sizes[-1]:,} / time at "
                       f"{scaling_sizes[0]:,} elements: {', '.join(growth)}")
        out.append("")
    if chart_path:
        rel = os.path.relpath(chart_path, os.path.dirname(os.path.abspath(path)))
        out.append(f"![ratios and scaling]({rel})")
        out.append("")
    out.append("## Machine and settings")
    out.append("")
    m = meta["machine"]
    out.append(f"- CPU: {m['cpu']}; {m['cores']} logical cores (`os.cpu_count()`), `nproc` "
               f"{m['nproc']}; {m['memory_gib']} GiB memory; {m['platform']}; Python "
               f"{m['python']}")
    out.append(f"- Load: before the run `{meta['load_before']}`; after `{meta['load_after']}`. "
               "The machine has 2 cores and may be shared: a load well above 1 while the run "
               "was going can inflate times; rerun when a number looks disturbed.")
    versions = []
    for lib in helpers.LIBS:
        info = payloads.get(lib, {}).get("info") or {}
        if info.get("version"):
            versions.append(f"{LIB_TITLES[lib]} {info['version']}")
    numpy_v = (payloads.get("numpy", {}).get("info") or {}).get("numpy")
    if numpy_v:
        versions.append(f"NumPy {numpy_v} (in every process)")
    out.append(f"- Versions: {', '.join(versions)}")
    for s in settings:
        if s == "default":
            out.append("- Threads, default: every library as it starts. The workers run with "
                       f"{', '.join(helpers.THREAD_VARS[:3])} unset and pin nothing: ember's "
                       "compiled kernels and NumPy's BLAS use their own default pools, PyTorch "
                       "`torch.get_num_threads()`'s default (its values are below).")
        else:
            out.append(f"- Threads, {threads_label(s)} per library: each worker starts with "
                       f"{', '.join(v + '=' + str(s) for v in helpers.THREAD_VARS[:3])} in its "
                       "environment; the ember and NumPy processes also call threadpoolctl's "
                       "`threadpool_limits`, the PyTorch process `torch.set_num_threads` and "
                       "`torch.set_num_interop_threads`.")
    removed = meta["removed_vars"]
    if removed:
        out.append("- OpenBLAS tuning: "
                   + ", ".join(f"{k}={v}" for k, v in removed.items())
                   + " were set in this environment and were unset together in the worker "
                   "processes only (they slow a current NumPy); the kernel NumPy then used is "
                   "below.")
    else:
        out.append("- OpenBLAS tuning: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE were not set in "
                   "this environment (the workers would unset both together); OpenBLAS picked "
                   "its kernel itself, as below.")
    for s in settings:
        out.extend(_threads_text(by_setting[s], s))
    errors = []
    for s in settings:
        for lib in helpers.LIBS + (helpers.EMBER_TORCH,):
            p = by_setting[s].get(lib, {})
            where = f"{LIB_TITLES[lib]} ({threads_label(s)})"
            if p.get("error"):
                errors.append(f"- {where} worker: {p['error']}")
            for name, entry in p.get("results", {}).items():
                if "error" in entry:
                    errors.append(f"- {where} `{name}`: {entry['error']}")
    if errors:
        out.append("")
        out.append("## Errors")
        out.append("")
        out.extend(errors)
    out.append("")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as fh:
        fh.write("\n".join(out))


def write_chart(path, selected, by_setting, scaling_sizes):
    """Bars of the ratios per case (ember / NumPy and ember / PyTorch at the first thread
    setting, ember / PyTorch at the second) and lines of the scaling table (first setting);
    False without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    main_cases = [c for c in selected if c.group != "scaling"]
    fig = Figure(figsize=(13, max(4.0, 0.38 * len(main_cases) + 1.5)), layout="constrained")
    ax_ratio, ax_scale = fig.subplots(1, 2, width_ratios=(1.3, 1))
    names = [c.name for c in main_cases][::-1]
    ys = range(len(names))
    settings = list(by_setting)
    payloads = by_setting[settings[0]]
    series = [("numpy", settings[0], "tab:blue"), ("torch", settings[0], "tab:orange")]
    if len(settings) > 1:
        series.append(("torch", settings[1], "tab:green"))
    height = 0.8 / len(series)
    known = []
    for k, (lib, setting, color) in enumerate(series):
        p = by_setting[setting]
        vals = [_ratio(median_of(p, "ember", n), median_of(p, lib, n)) for n in names]
        known += [v for v in vals if v is not None and v > 0]
        pos = [y + 0.4 - height * (k + 0.5) for y in ys]
        # bars grow from 1 (equal time): right of it ember is slower, left of it faster
        ax_ratio.barh(pos, [v - 1 if v is not None and v > 0 else 0 for v in vals], left=1,
                      height=height * 0.95, color=color,
                      label=f"ember / {LIB_TITLES[lib]}, {threads_label(setting)}")
        for y, v in zip(pos, vals):
            if v is not None and v > 0:  # a log axis: a noisy negative backward time is left out
                ax_ratio.text(v * (1.04 if v >= 1 else 0.96), y, f"{v:.2f}", va="center",
                              ha="left" if v >= 1 else "right", fontsize=7)
    ax_ratio.axvline(1.0, color="black", lw=1)
    ax_ratio.axvline(LARGE_FACTOR, color="gray", lw=1, ls="--")
    ax_ratio.set_xscale("log")
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ticks = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100]
    ax_ratio.xaxis.set_major_locator(FixedLocator(ticks))
    ax_ratio.xaxis.set_minor_locator(NullLocator())
    ax_ratio.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax_ratio.set_yticks(list(ys), names)
    if known:
        ax_ratio.set_xlim(min(0.5, min(known) / 1.6), max(2.0, max(known) * 1.6))
    ax_ratio.set(title="ember's median time / the other's (left of 1: ember faster)",
                 xlabel="ratio (log scale); dashed: 1.1")
    ax_ratio.legend(loc="best", fontsize=8)
    ax_ratio.grid(axis="x", alpha=0.3, which="both")
    if scaling_sizes:
        styles = {"ember": "-o", "numpy": "--s"}
        colors = {"add": "tab:green", "sum": "tab:purple", "views": "tab:red"}
        for op in cases_mod.SCALING_OPS:
            for lib in cases_mod.SCALING_LIBS:
                ts = [median_of(payloads, lib, _scale_name(op, n)) for n in scaling_sizes]
                pts = [(n, t) for n, t in zip(scaling_sizes, ts) if t is not None]
                if pts:
                    ax_scale.plot([p[0] for p in pts], [p[1] * 1e6 for p in pts], styles[lib],
                                  color=colors.get(op), label=f"{op} ({LIB_TITLES[lib]})")
        ax_scale.set_xscale("log")
        ax_scale.set_yscale("log")
        ax_scale.set(title="time against size", xlabel="elements", ylabel="µs per call")
        ax_scale.legend(fontsize=8)
        ax_scale.grid(alpha=0.3, which="both")
    else:
        ax_scale.set_axis_off()
    fig.suptitle("ember vs NumPy and PyTorch (CPU, "
                 f"{'quick run' if not scaling_sizes or len(scaling_sizes) < 3 else 'full run'})")
    fig.savefig(path, format="png", dpi=90)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes and one repetition: checks the harness, measures nothing")
    ap.add_argument("--cases", default="",
                    help="comma-separated case names, groups or glob patterns (default: all)")
    ap.add_argument("--reps", type=int, default=None, help="repetitions (default 7; quick 1)")
    ap.add_argument("--min-time", type=float, default=None,
                    help="seconds per repetition at least (default 0.05; quick 0)")
    ap.add_argument("--rounds", type=int, default=None,
                    help="run every worker this many times, interleaved, and keep the round "
                         "with the lower median per case (default 5; quick 1)")
    ap.add_argument("--threads", default="1,default",
                    help="comma-separated thread settings, each a count of BLAS/OpenMP threads "
                         "per library or 'default' (each library's own; default: 1,default)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    ap.add_argument("--chart", default=None,
                    help="PNG path (default: the --out path with .png); 'none' for no chart")
    ap.add_argument("--json", default=None, help="also write the raw results to this file")
    ap.add_argument("--profile", type=int, default=0, metavar="CALLS",
                    help="cProfile CALLS calls of each selected case instead of timing")
    ap.add_argument("--kernels", type=int, default=0, metavar="CALLS",
                    help="time each ember backend kernel over CALLS calls of each selected case "
                         "instead of timing (where ember's time goes, without cProfile's "
                         "per-call distortion)")
    ap.add_argument("--profile-lib", default="ember",
                    choices=helpers.LIBS + (helpers.EMBER_TORCH,))
    ap.add_argument("--no-torch-backend", action="store_true",
                    help="leave out the column of ember on its torch:cpu backend")
    ap.add_argument("--top", type=int, default=25, help="functions per profile listing")
    ap.add_argument("--against", default=None, metavar="DIR",
                    help="also time ember from the source tree DIR (e.g. `git worktree add "
                         "/tmp/old REF`) in the same run, interleaved, and report the two side "
                         "by side")
    args = ap.parse_args(argv)
    if args.reps is None:
        args.reps = 1 if args.quick else 7
    if args.rounds is None:
        args.rounds = 1 if args.quick else 5
    if args.min_time is None:
        args.min_time = 0.0 if args.quick else 0.05
    if args.reps < 1 or args.rounds < 1:
        ap.error("--reps and --rounds must be at least 1")
    try:
        args.threads = parse_threads(args.threads)
    except ValueError as exc:
        ap.error(str(exc))

    selected = select_cases(args.cases, args.quick)
    envs = {s: helpers.worker_env(s, ROOT) for s in args.threads}
    if args.against:
        args.against = against.check_tree(args.against)
        there = against.case_names(args.against)
        envs_there = {s: helpers.worker_env(s, args.against)[0] for s in args.threads}
    removed = envs[args.threads[0]][1]
    if args.kernels:
        args.profile_lib = "ember"
    if args.profile or args.kernels:
        return profile(selected, args, envs[args.threads[0]][0])

    chart = args.chart
    if chart is None:
        chart = os.path.splitext(args.out)[0] + ".png"
    elif chart.lower() == "none":
        chart = None

    load_before = helpers.uptime()
    start = time.perf_counter()
    timeout = 300 if args.quick else 1800
    by_setting = {s: {} for s in args.threads}
    for rnd in range(1, args.rounds + 1):
        for k, setting in enumerate(args.threads):
            payloads = by_setting[setting]
            env = envs[setting][0]
            for lib in ("numpy", "torch", "ember", helpers.EMBER_TORCH):
                # ember on torch:cpu and the scaling table run at the first setting only
                names = [c.name for c in selected
                         if ("ember" if lib == helpers.EMBER_TORCH else lib) in c.setups
                         and (k == 0 or c.group != "scaling")]
                if lib == helpers.EMBER_TORCH and (k > 0 or args.no_torch_backend
                                                   or "torch" not in payloads):
                    continue
                if not names:
                    continue
                print(f"run.py: round {rnd}/{args.rounds}: {threads_label(setting)}: {lib}: "
                      f"{len(names)} cases ...", file=sys.stderr, flush=True)
                runs = [(lib, names, env, ROOT)]
                if args.against and lib in against.COLUMNS:
                    runs.append((against.label(lib), [n for n in names if n in there],
                                 envs_there[setting], args.against))
                for key, chosen, run_env, root in runs:
                    if not chosen:
                        continue
                    payload = run_worker(lib, chosen, args, setting, run_env, timeout, root)
                    if payload.get("error"):
                        print(f"run.py: {key} worker failed: {payload['error']}",
                              file=sys.stderr)
                    payloads[key] = merge_rounds(payloads.get(key), payload)
    seconds = time.perf_counter() - start
    scaling_sizes = sorted({c.full["n"] for c in selected if c.group == "scaling"})
    meta = {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "command": "python benchmarks/run.py " + " ".join(argv if argv is not None
                                                         else sys.argv[1:]),
        "seconds": seconds, "quick": args.quick, "reps": args.reps, "min_time": args.min_time,
        "rounds": args.rounds, "against": args.against,
        "threads": args.threads, "machine": helpers.machine_info(), "removed_vars": removed,
        "load_before": load_before, "load_after": helpers.uptime(),
    }
    for p in (args.out, chart, args.json):
        if p:
            os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
    if chart and not write_chart(chart, selected, by_setting, scaling_sizes):
        print("run.py: matplotlib is not installed; no chart", file=sys.stderr)
        chart = None
    write_report(args.out, chart, selected, by_setting, meta, scaling_sizes)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"meta": meta, "payloads": {str(s): p for s, p in by_setting.items()}},
                      fh, indent=1)
    print(f"run.py: wrote {args.out}" + (f" and {chart}" if chart else "")
          + f" ({seconds:.0f} s)", file=sys.stderr)
    failed = [lib for p in by_setting.values() for lib, q in p.items() if q.get("error")]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
