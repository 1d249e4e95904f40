"""``run.py --against DIR``: ember from another source tree (a checkout of an earlier commit,
``git worktree add /tmp/old REF``) timed in the same run, its workers interleaved with this
tree's, and the report's table of the two side by side.

A backend change's target "within 1.05x of main in the same run" is read from this table: two
separate runs, minutes apart, differ by more than that on a busy machine.
"""

import os
import subprocess
import sys

from helpers import EMBER_TORCH, fmt_ratio, fmt_time, median_of

SUFFIX = "@against"
WITHIN = 1.05  # the ratio a case counts as "within" at
COLUMNS = ("ember", EMBER_TORCH)


def label(lib):
    """The payload key of ``lib`` (``ember`` or ``ember_torch``) run from the other tree."""
    return lib + SUFFIX


def check_tree(root):
    """``root``, absolute, when it holds ember and its benchmarks; else SystemExit naming it."""
    root = os.path.abspath(root)
    for part in ("ember", os.path.join("benchmarks", "worker.py")):
        if not os.path.exists(os.path.join(root, part)):
            raise SystemExit(f"run.py: --against {root!r}: expected a source tree of ember "
                             f"(no {part} there)")
    return root


def case_names(root):
    """The names of the benchmark cases of the tree at ``root`` (asked of its own cases.py)."""
    code = ("import sys; sys.path.insert(0, 'benchmarks'); import cases; "
            "print(','.join(c.name for c in cases.CASES))")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, PYTHONPATH=root))
    if out.returncode != 0:
        raise SystemExit(f"run.py: --against {root!r}: its benchmarks/cases.py does not "
                         f"import: {out.stderr.strip()[-500:]}")
    return set(out.stdout.strip().split(","))


def table(cases, by_setting, root, threads_label):
    """The Markdown lines of the section comparing this tree's ember with ``root``'s: per
    thread setting and column, each case's two times and their ratio (here / there), and how
    many cases are within ``WITHIN``."""
    out = ["## Against another tree", "",
           f"ember from `{root}` ran in the same run, its workers interleaved with this tree's "
           f"(same rounds, same settings). *ratio*: this tree's time over that tree's; "
           f"*within*: cases at most {WITHIN}x.", ""]
    for setting, payloads in by_setting.items():
        for lib in COLUMNS:
            rows = [(c.name, median_of(payloads, label(lib), c.name),
                     median_of(payloads, lib, c.name)) for c in cases]
            rows = [(n, there, here) for n, there, here in rows
                    if there is not None and here is not None and there > 0]
            if not rows:
                continue
            within = sum(1 for _, there, here in rows if here / there <= WITHIN)
            title = "ember (NumPy)" if lib == "ember" else "ember on torch:cpu"
            out += [f"### {title}, {threads_label(setting)}: {within} of {len(rows)} within "
                    f"{WITHIN}x", "", "| case | that tree | this tree | ratio |",
                    "| --- | ---: | ---: | ---: |"]
            out += [f"| `{n}` | {fmt_time(there)} | {fmt_time(here)} | "
                    f"{fmt_ratio(here / there)} |" for n, there, here in rows]
            out.append("")
    return out
